//! Sprig's string functions, with the exact quirks of the Go code behind them.
//!
//! Sprig delegates to Go's `strings` package, to Masterminds/goutils and to
//! huandu/xstrings, and each has behaviour charts can observe: Go's case mapping is
//! rune-for-rune (`upper "ß"` stays `ß`), `trunc`/`substr`/`abbrev`/`wrap` cut at byte
//! offsets, goutils' `initials` and `nospace` walk bytes as if they were Latin-1, and
//! `substr` out of range is a Go runtime panic that Helm reports as an error. Those
//! are reproduced here on purpose, together with Go's Unicode classes (`IsUpper` is
//! category Lu, not Rust's wider Uppercase property).
//!
//! Byte cuts inside a multi-byte character would make invalid UTF-8 in Go; our
//! strings are always valid UTF-8, so such cuts are replaced by U+FFFD.
//!
//! `camelcase` differs between Sprig 3.2.3 (xstrings 1.4 `ToCamelCase`) and Sprig
//! 3.3.0 (xstrings 1.5 `ToPascalCase`), hence the two extra tables.

use unicode_general_category::{get_general_category, GeneralCategory as Gc};

use super::conversion::{arg, arg_int, arg_str, strslice, strval};
use crate::template::fmt::{format_value, quote as go_quote};
use crate::template::{gostr, FuncDef, FuncError, FuncResult, List, Map, MapType, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("hello", &[], hello),
    FuncDef::plain("abbrev", &[Ty::Int, Ty::String], abbrev),
    FuncDef::plain("abbrevboth", &[Ty::Int, Ty::Int, Ty::String], abbrevboth),
    FuncDef::plain("trunc", &[Ty::Int, Ty::String], trunc),
    FuncDef::plain("trim", &[Ty::String], trim),
    FuncDef::plain("upper", &[Ty::String], upper),
    FuncDef::plain("lower", &[Ty::String], lower),
    FuncDef::plain("title", &[Ty::String], title),
    FuncDef::plain("untitle", &[Ty::String], untitle),
    FuncDef::plain("substr", &[Ty::Int, Ty::Int, Ty::String], substr),
    FuncDef::plain("repeat", &[Ty::Int, Ty::String], repeat),
    FuncDef::plain("trimall", &[Ty::String, Ty::String], trim_all),
    FuncDef::plain("trimAll", &[Ty::String, Ty::String], trim_all),
    FuncDef::plain("trimSuffix", &[Ty::String, Ty::String], trim_suffix),
    FuncDef::plain("trimPrefix", &[Ty::String, Ty::String], trim_prefix),
    FuncDef::plain("nospace", &[Ty::String], nospace),
    FuncDef::plain("initials", &[Ty::String], initials),
    FuncDef::plain("swapcase", &[Ty::String], swapcase),
    FuncDef::plain("snakecase", &[Ty::String], snakecase),
    FuncDef::plain("kebabcase", &[Ty::String], kebabcase),
    FuncDef::plain("wrap", &[Ty::Int, Ty::String], wrap),
    FuncDef::plain("wrapWith", &[Ty::Int, Ty::String, Ty::String], wrap_with),
    FuncDef::plain("contains", &[Ty::String, Ty::String], contains),
    FuncDef::plain("hasPrefix", &[Ty::String, Ty::String], has_prefix),
    FuncDef::plain("hasSuffix", &[Ty::String, Ty::String], has_suffix),
    FuncDef::variadic("quote", &[], Ty::Any, quote),
    FuncDef::variadic("squote", &[], Ty::Any, squote),
    FuncDef::variadic("cat", &[], Ty::Any, cat),
    FuncDef::plain("indent", &[Ty::Int, Ty::String], indent),
    FuncDef::plain("nindent", &[Ty::Int, Ty::String], nindent),
    FuncDef::plain("replace", &[Ty::String, Ty::String, Ty::String], replace),
    FuncDef::plain("plural", &[Ty::String, Ty::String, Ty::Int], plural),
    FuncDef::plain("split", &[Ty::String, Ty::String], split),
    FuncDef::plain("splitList", &[Ty::String, Ty::String], split_list),
    FuncDef::plain("splitn", &[Ty::String, Ty::Int, Ty::String], splitn),
    FuncDef::plain("join", &[Ty::String, Ty::Any], join),
];

/// Sprig 3.2.3 (xstrings 1.4): `camelcase` keeps the case of inner letters.
pub static FUNCS_SPRIG_3_2: &[FuncDef] = &[FuncDef::plain(
    "camelcase",
    &[Ty::String],
    camelcase_xstrings_1_4,
)];

/// Sprig 3.3.0 (xstrings 1.5 `ToPascalCase`): runs of capitals are lowered.
pub static FUNCS_SPRIG_3_3: &[FuncDef] = &[FuncDef::plain(
    "camelcase",
    &[Ty::String],
    camelcase_xstrings_1_5,
)];

fn s(v: impl Into<String>) -> FuncResult {
    Ok(Value::str(v.into()))
}

fn hello(_: &[Value]) -> FuncResult {
    s("Hello!")
}

/// `s[a..b]` on bytes, as Go slices strings; a cut inside a character leaves raw
/// bytes (see `gostr`).
fn bytes_to_string(b: &[u8]) -> String {
    gostr::from_slice(b).into_owned()
}

fn to_usize(i: i64) -> usize {
    usize::try_from(i).unwrap_or(0)
}

fn abbrev(args: &[Value]) -> FuncResult {
    let width = arg_int(args, 0)?;
    let st = arg_str(args, 1)?;
    if width < 4 {
        return s(st);
    }
    s(abbreviate_full(st, 0, width).unwrap_or_default())
}

fn abbrevboth(args: &[Value]) -> FuncResult {
    let left = arg_int(args, 0)?;
    let right = arg_int(args, 1)?;
    let st = arg_str(args, 2)?;
    if right < 4 || (left > 0 && right < 7) {
        return s(st);
    }
    s(abbreviate_full(st, left, right).unwrap_or_default())
}

/// goutils.AbbreviateFull, byte-based; `None` where goutils returns an error (Sprig
/// then prints the empty string).
fn abbreviate_full(st: &str, offset: i64, max_width: i64) -> Option<String> {
    if st.is_empty() {
        return Some(String::new());
    }
    if max_width < 4 {
        return None;
    }
    let b = gostr::to_bytes(st);
    let b: &[u8] = &b;
    let len = b.len() as i64;
    if len <= max_width {
        return Some(st.to_string());
    }
    let mut offset = offset.min(len);
    if len - offset < max_width - 3 {
        offset = len - (max_width - 3);
    }
    if offset <= 4 {
        return Some(bytes_to_string(&b[..to_usize(max_width - 3)]) + "...");
    }
    if max_width < 7 {
        return None;
    }
    if offset + max_width - 3 < len {
        let rest = bytes_to_string(&b[to_usize(offset)..]);
        let inner = abbreviate_full(&rest, 0, max_width - 3).unwrap_or_default();
        return Some(format!("...{inner}"));
    }
    Some(format!(
        "...{}",
        bytes_to_string(&b[to_usize(len - (max_width - 3))..])
    ))
}

fn trunc(args: &[Value]) -> FuncResult {
    let c = arg_int(args, 0)?;
    let st = arg_str(args, 1)?;
    let b = gostr::to_bytes(st);
    let b: &[u8] = &b;
    let len = b.len() as i64;
    if c < 0 && len + c > 0 {
        return s(bytes_to_string(&b[to_usize(len + c)..]));
    }
    if c >= 0 && len > c {
        return s(bytes_to_string(&b[..to_usize(c)]));
    }
    s(st)
}

fn trim(args: &[Value]) -> FuncResult {
    s(arg_str(args, 0)?.trim_matches(go_is_space))
}

fn upper(args: &[Value]) -> FuncResult {
    s(arg_str(args, 0)?
        .chars()
        .map(go_to_upper)
        .collect::<String>())
}

fn lower(args: &[Value]) -> FuncResult {
    s(arg_str(args, 0)?
        .chars()
        .map(go_to_lower)
        .collect::<String>())
}

/// strings.Title: the first letter of each word in title case, where words are
/// separated by anything that is not a letter, digit or underscore (outside ASCII,
/// only spaces separate).
fn title(args: &[Value]) -> FuncResult {
    let mut prev = ' ';
    let out: String = gostr::lossy(arg_str(args, 0)?)
        .chars()
        .map(|c| {
            let r = if title_separator(prev) {
                go_to_title(c)
            } else {
                c
            };
            prev = c;
            r
        })
        .collect();
    s(out)
}

fn title_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if go_is_letter(c) || go_is_digit(c) {
        return false;
    }
    go_is_space(c)
}

/// goutils.Uncapitalize: the first letter after whitespace is lowered.
fn untitle(args: &[Value]) -> FuncResult {
    let mut next = true;
    let out: String = gostr::lossy(arg_str(args, 0)?)
        .chars()
        .map(|c| {
            if go_is_space(c) {
                next = true;
                c
            } else if next {
                next = false;
                go_to_lower(c)
            } else {
                c
            }
        })
        .collect();
    s(out)
}

fn substr(args: &[Value]) -> FuncResult {
    let start = arg_int(args, 0)?;
    let end = arg_int(args, 1)?;
    let st = arg_str(args, 2)?;
    let b = gostr::to_bytes(st);
    let b: &[u8] = &b;
    let len = b.len() as i64;
    if start < 0 {
        // s[:end]
        if end < 0 {
            return Err(runtime(format!("slice bounds out of range [:{end}]")));
        }
        if end > len {
            return Err(runtime(format!(
                "slice bounds out of range [:{end}] with length {len}"
            )));
        }
        return s(bytes_to_string(&b[..to_usize(end)]));
    }
    if end < 0 || end > len {
        // s[start:]
        if start > len {
            return Err(runtime(format!(
                "slice bounds out of range [{start}:{len}]"
            )));
        }
        return s(bytes_to_string(&b[to_usize(start)..]));
    }
    if start > end {
        return Err(runtime(format!(
            "slice bounds out of range [{start}:{end}]"
        )));
    }
    s(bytes_to_string(&b[to_usize(start)..to_usize(end)]))
}

/// A Go runtime panic, as `text/template` reports a recovered one.
pub(crate) fn runtime(msg: String) -> FuncError {
    FuncError::Call(format!("runtime error: {msg}"))
}

/// Output size beyond which `repeat` refuses instead of exhausting memory (Go would
/// try to allocate it).
const MAX_REPEAT_BYTES: usize = 1 << 30;

fn repeat(args: &[Value]) -> FuncResult {
    let count = arg_int(args, 0)?;
    let st = arg_str(args, 1)?;
    if count < 0 {
        return Err(FuncError::call("strings: negative Repeat count"));
    }
    let count = to_usize(count);
    match st.len().checked_mul(count) {
        Some(n) if n <= MAX_REPEAT_BYTES => s(st.repeat(count)),
        _ => Err(FuncError::call("strings: Repeat output length overflow")),
    }
}

fn trim_all(args: &[Value]) -> FuncResult {
    let cutset = arg_str(args, 0)?;
    let st = arg_str(args, 1)?;
    s(st.trim_matches(|c| cutset.contains(c)))
}

fn trim_suffix(args: &[Value]) -> FuncResult {
    let suffix = arg_str(args, 0)?;
    let st = arg_str(args, 1)?;
    s(st.strip_suffix(suffix).unwrap_or(st))
}

fn trim_prefix(args: &[Value]) -> FuncResult {
    let prefix = arg_str(args, 0)?;
    let st = arg_str(args, 1)?;
    s(st.strip_prefix(prefix).unwrap_or(st))
}

/// Go's `unicode.IsSpace` applied to a byte taken as a Latin-1 character, which is
/// how goutils walks strings.
fn byte_is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | 0x85 | 0xa0)
}

/// Appends a byte as goutils does: `WriteRune(rune(b))`, i.e. Latin-1 to UTF-8.
fn push_latin1(out: &mut String, b: u8) {
    out.push(char::from(b));
}

fn nospace(args: &[Value]) -> FuncResult {
    let st = arg_str(args, 0)?;
    if !st.bytes().any(byte_is_space) {
        return s(st);
    }
    let mut out = String::with_capacity(st.len());
    for b in gostr::to_bytes(st)
        .iter()
        .copied()
        .filter(|b| !byte_is_space(*b))
    {
        push_latin1(&mut out, b);
    }
    s(out)
}

fn initials(args: &[Value]) -> FuncResult {
    let st = arg_str(args, 0)?;
    let mut out = String::new();
    let mut gap = true;
    for b in gostr::to_bytes(st).iter().copied() {
        if byte_is_space(b) {
            gap = true;
        } else if gap {
            push_latin1(&mut out, b);
            gap = false;
        }
    }
    s(out)
}

/// goutils.SwapCase: upper and title case go to lower; lower case goes to title case
/// at the start of a word and to upper case elsewhere.
fn swapcase(args: &[Value]) -> FuncResult {
    let mut word_start = true;
    let out: String = gostr::lossy(arg_str(args, 0)?)
        .chars()
        .map(|c| {
            if go_is_upper(c) || go_is_title(c) {
                word_start = false;
                go_to_lower(c)
            } else if go_is_lower(c) {
                if word_start {
                    word_start = false;
                    go_to_title(c)
                } else {
                    go_to_upper(c)
                }
            } else {
                word_start = go_is_space(c);
                c
            }
        })
        .collect();
    s(out)
}

fn snakecase(args: &[Value]) -> FuncResult {
    s(camel_to_lower(arg_str(args, 0)?, '_'))
}

fn kebabcase(args: &[Value]) -> FuncResult {
    s(camel_to_lower(arg_str(args, 0)?, '-'))
}

// xstrings decodes runes: a byte that is not UTF-8 is U+FFFD to it.
fn camelcase_xstrings_1_4(args: &[Value]) -> FuncResult {
    s(to_camel(&gostr::lossy(arg_str(args, 0)?), false))
}

fn camelcase_xstrings_1_5(args: &[Value]) -> FuncResult {
    s(to_camel(&gostr::lossy(arg_str(args, 0)?), true))
}

fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || go_is_space(c)
}

/// xstrings' letter test: letters, except the common CJK ideograph blocks.
fn is_alphabet(c: char) -> bool {
    if !go_is_letter(c) {
        return false;
    }
    let u = c as u32;
    if u < 0x3400 {
        return true;
    }
    !((0x4E00..=0x9FCC).contains(&u)
        || (0x3400..=0x4D85).contains(&u)
        || (0x20000..=0x2B81D).contains(&u))
}

/// Go decodes U+FFFD as `utf8.RuneError`, which xstrings treats as an invalid byte.
const RUNE_ERROR: char = '\u{FFFD}';

/// xstrings ToCamelCase (1.4) and ToPascalCase (1.5, `lower_runs`): connectors are
/// dropped and the letter after them raised; 1.5 also lowers the rest of a word that
/// starts with a run of capitals.
fn to_camel(st: &str, lower_runs: bool) -> String {
    let mut it = st.chars();
    let mut out = String::with_capacity(st.len());
    let mut r0 = '\0';
    let mut got = false;
    let mut first_upper = false;
    for c in it.by_ref() {
        got = true;
        r0 = c;
        if !is_connector(c) {
            first_upper = go_is_upper(c);
            r0 = go_to_upper(c);
            break;
        }
        out.push(c);
    }
    let rest: Vec<char> = it.collect();
    if rest.is_empty() {
        if got {
            out.push(r0);
        }
        return out;
    }
    for c in rest {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            first_upper = go_is_upper(r0);
            r0 = go_to_upper(r0);
        } else {
            if lower_runs && first_upper {
                if go_is_upper(r0) {
                    r0 = go_to_lower(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum WordType {
    Invalid,
    Number,
    UpperCase,
    Alphabet,
    Connector,
    Punct,
    Other,
}

/// xstrings `nextValidRune`: the next rune that is not a decoding error, and the
/// bytes consumed to reach past it; `prev` when only errors remain.
fn next_valid_rune(st: &str, prev: char) -> (char, usize) {
    let mut size = 0;
    for c in st.chars() {
        size += c.len_utf8();
        if c != RUNE_ERROR {
            return (c, size);
        }
    }
    (prev, size)
}

/// Advances over runes while `keep(rune, size)` holds. `r` ends as the first rune not
/// taken (xstrings peeks one rune ahead and keeps it); returns the size of the last
/// rune taken, 0 when none was.
fn take_while(
    remaining: &mut &str,
    offset: &mut usize,
    r: &mut char,
    keep: impl Fn(char, usize) -> bool,
) -> usize {
    let mut last = 0;
    while !remaining.is_empty() {
        let (c, sz) = next_valid_rune(remaining, *r);
        *r = c;
        if !keep(c, sz) {
            break;
        }
        last = sz;
        *offset += sz;
        *remaining = &remaining[sz..];
    }
    last
}

/// xstrings `nextWord`: splits off the next word and classifies it.
fn next_word(st: &str) -> (WordType, &str, &str) {
    if st.is_empty() {
        return (WordType::Invalid, "", "");
    }
    let (mut r, size) = next_valid_rune(st, RUNE_ERROR);
    let mut offset = size;
    if r == RUNE_ERROR {
        return (WordType::Invalid, &st[..offset], &st[offset..]);
    }
    let mut remaining = &st[size..];
    let lower_letter = |c: char, _| is_alphabet(c) && !go_is_upper(c);
    let wt;
    if is_connector(r) {
        wt = WordType::Connector;
        take_while(&mut remaining, &mut offset, &mut r, |c, _| is_connector(c));
    } else if go_is_punct(r) {
        wt = WordType::Punct;
        take_while(&mut remaining, &mut offset, &mut r, |c, _| go_is_punct(c));
    } else if go_is_upper(r) {
        wt = WordType::UpperCase;
        if !remaining.is_empty() {
            let (c, sz) = next_valid_rune(remaining, r);
            r = c;
            if go_is_upper(r) {
                offset += sz;
                remaining = &remaining[sz..];
                let taken = take_while(&mut remaining, &mut offset, &mut r, |c, _| go_is_upper(c));
                let prev_size = if taken > 0 { taken } else { sz };
                // "HTTPStatus" is "HTTP" + "Status": give back the last capital.
                if !remaining.is_empty() && is_alphabet(r) {
                    offset -= prev_size;
                    remaining = &st[offset..];
                }
            } else if is_alphabet(r) {
                offset += sz;
                remaining = &remaining[sz..];
                take_while(&mut remaining, &mut offset, &mut r, lower_letter);
            }
        }
    } else if is_alphabet(r) {
        wt = WordType::Alphabet;
        take_while(&mut remaining, &mut offset, &mut r, lower_letter);
    } else if go_is_number(r) {
        wt = WordType::Number;
        take_while(&mut remaining, &mut offset, &mut r, |c, _| go_is_number(c));
    } else {
        wt = WordType::Other;
        take_while(&mut remaining, &mut offset, &mut r, |c, sz| {
            !(sz == 0 || is_connector(c) || is_alphabet(c) || go_is_number(c) || go_is_punct(c))
        });
    }
    (wt, &st[..offset], remaining)
}

/// xstrings `toLower`: only capital and connector words are rewritten.
fn push_lower(out: &mut String, wt: WordType, word: &str, connector: char) {
    if wt != WordType::UpperCase && wt != WordType::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_connector(c) {
            out.push(connector);
        } else if go_is_upper(c) {
            out.push(go_to_lower(c));
        } else {
            out.push(c);
        }
    }
}

/// xstrings `camelCaseToLowerCase` (ToSnakeCase / ToKebabCase), identical in 1.4
/// and 1.5.
fn camel_to_lower(st: &str, connector: char) -> String {
    use WordType as W;
    if st.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(st.len() + 4);
    let (mut wt, mut word, mut remaining) = next_word(st);
    while !remaining.is_empty() {
        if wt != W::Connector {
            push_lower(&mut out, wt, word, connector);
        }
        let prev = wt;
        let last = word;
        (wt, word, remaining) = next_word(remaining);
        match prev {
            W::Number => {
                while wt == W::Alphabet || wt == W::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if wt != W::Invalid && wt != W::Punct && wt != W::Connector {
                    out.push(connector);
                }
            }
            W::Connector => push_lower(&mut out, prev, last, connector),
            W::Punct => {}
            _ => {
                if wt != W::Number {
                    if wt != W::Connector && wt != W::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                if remaining.is_empty() {
                    continue;
                }
                let last = word;
                (wt, word, remaining) = next_word(remaining);
                // A number glued to the previous word stays with it ("Bld4Floor").
                if wt != W::Alphabet {
                    push_lower(&mut out, W::Number, last, connector);
                    if wt != W::Connector && wt != W::Punct {
                        out.push(connector);
                    }
                    continue;
                }
                // Lower-case letters after a number start a new word ("HTTP2xx").
                out.push(connector);
                push_lower(&mut out, W::Number, last, connector);
                while wt == W::Alphabet || wt == W::Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, remaining) = next_word(remaining);
                }
                if wt != W::Invalid && wt != W::Connector && wt != W::Punct {
                    out.push(connector);
                }
            }
        }
    }
    push_lower(&mut out, wt, word, connector);
    out
}

fn wrap(args: &[Value]) -> FuncResult {
    let l = arg_int(args, 0)?;
    let st = arg_str(args, 1)?;
    s(wrap_custom(st, l, "", false))
}

fn wrap_with(args: &[Value]) -> FuncResult {
    let l = arg_int(args, 0)?;
    let sep = arg_str(args, 1)?;
    let st = arg_str(args, 2)?;
    s(wrap_custom(st, l, sep, true))
}

/// goutils.WrapCustom, on bytes: breaks at the last space within the width; long
/// words are cut (`wrap_long`) or kept whole up to the next space.
fn wrap_custom(st: &str, width: i64, newline: &str, wrap_long: bool) -> String {
    if st.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline }.as_bytes();
    let width = usize::try_from(width.max(1)).unwrap_or(usize::MAX);
    let b = gostr::to_bytes(st);
    let b: &[u8] = &b;
    let len = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::with_capacity(len + 8);
    while len - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = width + offset + 1;
        match b[offset..end].iter().rposition(|&c| c == b' ') {
            Some(p) => {
                let at = offset + p;
                out.extend_from_slice(&b[offset..at]);
                out.extend_from_slice(newline);
                offset = at + 1;
            }
            None => {
                let end = width + offset;
                if wrap_long {
                    out.extend_from_slice(&b[offset..end]);
                    out.extend_from_slice(newline);
                    offset += width;
                } else {
                    match b[end..].iter().position(|&c| c == b' ') {
                        None => {
                            out.extend_from_slice(&b[offset..]);
                            offset = len;
                        }
                        Some(p) => {
                            let at = end + p;
                            out.extend_from_slice(&b[offset..at]);
                            out.extend_from_slice(newline);
                            offset = at + 1;
                        }
                    }
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    bytes_to_string(&out)
}

fn contains(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(arg_str(args, 1)?.contains(arg_str(args, 0)?)))
}

fn has_prefix(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(
        arg_str(args, 1)?.starts_with(arg_str(args, 0)?),
    ))
}

fn has_suffix(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(arg_str(args, 1)?.ends_with(arg_str(args, 0)?)))
}

fn quote(args: &[Value]) -> FuncResult {
    let parts: Vec<String> = args
        .iter()
        .filter(|v| !v.is_nil())
        .map(|v| go_quote(&strval(v)))
        .collect();
    s(parts.join(" "))
}

fn squote(args: &[Value]) -> FuncResult {
    let parts: Vec<String> = args
        .iter()
        .filter(|v| !v.is_nil())
        .map(|v| format!("'{}'", format_value(v)))
        .collect();
    s(parts.join(" "))
}

fn cat(args: &[Value]) -> FuncResult {
    let parts: Vec<String> = args
        .iter()
        .filter(|v| !v.is_nil())
        .map(format_value)
        .collect();
    s(parts.join(" "))
}

/// Sprig's `pad + strings.Replace(v, "\n", "\n"+pad, -1)`, after `prefix`, built
/// in one buffer of the final size: charts pipe whole manifests through `nindent`,
/// and building it as written copied each of them four times.
fn indent_str(prefix: &str, spaces: i64, v: &str) -> Result<String, FuncError> {
    if spaces < 0 {
        return Err(FuncError::call("strings: negative Repeat count"));
    }
    let n = to_usize(spaces);
    let lines = memchr::memchr_iter(b'\n', v.as_bytes()).count() + 1;
    if n.saturating_mul(lines) > MAX_REPEAT_BYTES {
        return Err(FuncError::call("strings: Repeat output length overflow"));
    }
    let pad = " ".repeat(n);
    let mut out = String::with_capacity(prefix.len() + v.len() + n * lines);
    out.push_str(prefix);
    for (i, line) in v.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&pad);
        out.push_str(line);
    }
    Ok(out)
}

fn indent(args: &[Value]) -> FuncResult {
    s(indent_str("", arg_int(args, 0)?, arg_str(args, 1)?)?)
}

fn nindent(args: &[Value]) -> FuncResult {
    s(indent_str("\n", arg_int(args, 0)?, arg_str(args, 1)?)?)
}

fn replace(args: &[Value]) -> FuncResult {
    let old = arg_str(args, 0)?;
    let new = arg_str(args, 1)?;
    let src = arg_str(args, 2)?;
    s(src.replace(old, new))
}

fn plural(args: &[Value]) -> FuncResult {
    let one = arg_str(args, 0)?;
    let many = arg_str(args, 1)?;
    s(if arg_int(args, 2)? == 1 { one } else { many })
}

/// Go's strings.SplitN (n < 0: no limit; n == 0: nothing; empty separator: one
/// piece per character).
pub(crate) fn go_split<'a>(st: &'a str, sep: &str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    if sep.is_empty() {
        let count = st.chars().count();
        let n = if n < 0 || to_usize(n) > count {
            count
        } else {
            to_usize(n)
        };
        let mut out = Vec::with_capacity(n);
        let mut rest = st;
        for _ in 0..n.saturating_sub(1) {
            let w = rest.chars().next().map_or(0, char::len_utf8);
            out.push(&rest[..w]);
            rest = &rest[w..];
        }
        if n > 0 {
            out.push(rest);
        }
        return out;
    }
    if n < 0 {
        st.split(sep).collect()
    } else {
        st.splitn(to_usize(n), sep).collect()
    }
}

fn parts_map(parts: Vec<&str>) -> Value {
    let m = Map::with_type(MapType::String);
    for (i, p) in parts.into_iter().enumerate() {
        m.insert(format!("_{i}"), Value::str(p));
    }
    Value::Map(m)
}

fn split(args: &[Value]) -> FuncResult {
    let sep = arg_str(args, 0)?;
    Ok(parts_map(go_split(arg_str(args, 1)?, sep, -1)))
}

fn split_list(args: &[Value]) -> FuncResult {
    let sep = arg_str(args, 0)?;
    let parts = go_split(arg_str(args, 1)?, sep, -1);
    Ok(Value::List(List::of_strings(
        parts.into_iter().map(Value::str).collect(),
    )))
}

fn splitn(args: &[Value]) -> FuncResult {
    let sep = arg_str(args, 0)?;
    let n = arg_int(args, 1)?;
    Ok(parts_map(go_split(arg_str(args, 2)?, sep, n)))
}

fn join(args: &[Value]) -> FuncResult {
    let sep = arg_str(args, 0)?;
    let items = strslice(arg(args, 1)?);
    let parts: Vec<String> = items.iter().map(strval).collect();
    s(parts.join(sep))
}

// ---- Go's unicode package -------------------------------------------------------------

/// `unicode.IsUpper`: general category Lu.
pub(crate) fn go_is_upper(c: char) -> bool {
    get_general_category(c) == Gc::UppercaseLetter
}

/// `unicode.IsLower`: general category Ll.
pub(crate) fn go_is_lower(c: char) -> bool {
    get_general_category(c) == Gc::LowercaseLetter
}

/// `unicode.IsTitle`: general category Lt.
pub(crate) fn go_is_title(c: char) -> bool {
    get_general_category(c) == Gc::TitlecaseLetter
}

/// `unicode.IsLetter`: any L category.
pub(crate) fn go_is_letter(c: char) -> bool {
    matches!(
        get_general_category(c),
        Gc::UppercaseLetter
            | Gc::LowercaseLetter
            | Gc::TitlecaseLetter
            | Gc::ModifierLetter
            | Gc::OtherLetter
    )
}

/// `unicode.IsDigit`: category Nd.
pub(crate) fn go_is_digit(c: char) -> bool {
    get_general_category(c) == Gc::DecimalNumber
}

/// `unicode.IsNumber`: any N category.
pub(crate) fn go_is_number(c: char) -> bool {
    matches!(
        get_general_category(c),
        Gc::DecimalNumber | Gc::LetterNumber | Gc::OtherNumber
    )
}

/// `unicode.IsPunct`: any P category.
pub(crate) fn go_is_punct(c: char) -> bool {
    matches!(
        get_general_category(c),
        Gc::ConnectorPunctuation
            | Gc::DashPunctuation
            | Gc::OpenPunctuation
            | Gc::ClosePunctuation
            | Gc::InitialPunctuation
            | Gc::FinalPunctuation
            | Gc::OtherPunctuation
    )
}

/// `unicode.IsSpace`: the White_Space property, which Rust uses too.
pub(crate) fn go_is_space(c: char) -> bool {
    c.is_whitespace()
}

/// `unicode.ToUpper`: the simple (one-to-one) mapping. Rust's is the full mapping,
/// which agrees wherever it yields one character; where it expands, the simple
/// mapping is the identity except for the Greek letters with ypogegrammeni.
pub(crate) fn go_to_upper(c: char) -> char {
    // Go's case mappings decode runes: a byte that is not UTF-8 becomes U+FFFD.
    if gostr::raw_byte(c).is_some() {
        return char::REPLACEMENT_CHARACTER;
    }
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => u,
        _ => {
            let x = c as u32;
            let mapped = match x {
                0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => x + 8,
                0x1FB3 => 0x1FBC,
                0x1FC3 => 0x1FCC,
                0x1FF3 => 0x1FFC,
                _ => x,
            };
            char::from_u32(mapped).unwrap_or(c)
        }
    }
}

/// `unicode.ToLower`: simple mapping (only U+0130 expands in the full one).
pub(crate) fn go_to_lower(c: char) -> char {
    if gostr::raw_byte(c).is_some() {
        return char::REPLACEMENT_CHARACTER;
    }
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ if c == '\u{130}' => 'i',
        _ => c,
    }
}

/// `unicode.ToTitle`: the upper-case mapping except for the Latin digraphs (which
/// have their own title-case letters) and Georgian Mkhedruli (title case is itself).
pub(crate) fn go_to_title(c: char) -> char {
    if gostr::raw_byte(c).is_some() {
        return char::REPLACEMENT_CHARACTER;
    }
    match c as u32 {
        0x01C4..=0x01C6 => '\u{1C5}',
        0x01C7..=0x01C9 => '\u{1C8}',
        0x01CA..=0x01CC => '\u{1CB}',
        0x01F1..=0x01F3 => '\u{1F2}',
        0x10D0..=0x10FA | 0x10FD..=0x10FF => c,
        _ => go_to_upper(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::funcs::conversion::go_int;

    fn st(x: &str) -> Value {
        Value::str(x)
    }

    fn call(f: fn(&[Value]) -> FuncResult, args: &[Value]) -> String {
        match f(args) {
            Ok(Value::String(s)) => s.to_string(),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn truncation_and_substrings_follow_go_slicing() {
        assert_eq!(call(trunc, &[go_int(3), st("abcdef")]), "abc");
        assert_eq!(call(trunc, &[go_int(-3), st("abcdef")]), "def");
        assert_eq!(call(trunc, &[go_int(10), st("ab")]), "ab");
        assert_eq!(call(trunc, &[go_int(-10), st("ab")]), "ab");
        assert_eq!(call(substr, &[go_int(1), go_int(3), st("abcdef")]), "bc");
        assert_eq!(call(substr, &[go_int(1), go_int(10), st("abc")]), "bc");
        assert_eq!(call(substr, &[go_int(-1), go_int(2), st("abc")]), "ab");
        assert_eq!(
            call(substr, &[go_int(4), go_int(10), st("abc")]),
            "ERR runtime error: slice bounds out of range [4:3]"
        );
        assert_eq!(
            call(substr, &[go_int(-1), go_int(5), st("abc")]),
            "ERR runtime error: slice bounds out of range [:5] with length 3"
        );
        assert_eq!(
            call(substr, &[go_int(2), go_int(1), st("abc")]),
            "ERR runtime error: slice bounds out of range [2:1]"
        );
    }

    #[test]
    fn case_functions_use_go_unicode_rules() {
        assert_eq!(call(upper, &[st("aé")]), "AÉ");
        assert_eq!(call(upper, &[st("ß")]), "ß");
        assert_eq!(call(lower, &[st("ÀİB")]), "àib");
        assert_eq!(call(title, &[st("hello world-foo")]), "Hello World-Foo");
        assert_eq!(call(title, &[st("o'neil_x y")]), "O'Neil_x Y");
        assert_eq!(call(untitle, &[st("Hello World")]), "hello world");
        assert_eq!(call(swapcase, &[st("aB")]), "Ab");
        assert_eq!(call(title, &[st("ǆemal ᾳx")]), "ǅemal ᾼx");
        assert_eq!(call(upper, &[st("ßᾳǆ")]), "ßᾼǄ");
        assert_eq!(call(initials, &[st("élan vital")]), "Ãv");
        assert_eq!(call(swapcase, &[st("hello World")]), "HELLO wORLD");
    }

    #[test]
    fn xstrings_conversions() {
        let cases = [
            ("FirstName", "first_name"),
            ("HTTPServer", "http_server"),
            ("NoHTTPS", "no_https"),
            ("GO_PATH", "go_path"),
            ("GO PATH", "go_path"),
            ("GO-PATH", "go_path"),
            ("http2xx", "http_2xx"),
            ("HTTP20xOK", "http_20x_ok"),
            ("Duration2m3s", "duration_2m3s"),
            ("Bld4Floor3rd", "bld4_floor_3rd"),
            ("FooBar", "foo_bar"),
        ];
        for (input, want) in cases {
            assert_eq!(camel_to_lower(input, '_'), want, "{input}");
        }
        assert_eq!(camel_to_lower("FooBar", '-'), "foo-bar");
        assert_eq!(to_camel("foo_bar", false), "FooBar");
        assert_eq!(to_camel("_complex__case_", false), "_Complex_Case_");
        assert_eq!(to_camel("GOLANG_IS_GREAT", false), "GOLANGISGREAT");
        assert_eq!(to_camel("GOLANG_IS_GREAT", true), "GolangIsGreat");
        assert_eq!(to_camel("some words", true), "SomeWords");
        // Observed with helm 3.15.3 (xstrings 1.4) and helm 4.3.1 (xstrings 1.5).
        assert_eq!(to_camel("HTTPServer", false), "HTTPServer");
        assert_eq!(to_camel("HTTPServer", true), "Httpserver");
        for v in [false, true] {
            assert_eq!(to_camel("fooBar_baz", v), "FooBarBaz");
            assert_eq!(to_camel("_", v), "__");
            assert_eq!(to_camel("a", v), "A");
            assert_eq!(to_camel("__a__", v), "__A__");
            assert_eq!(to_camel("FooBAR", v), "FooBAR");
        }
        assert_eq!(camel_to_lower("a.b-c", '_'), "a.b_c");
        assert_eq!(camel_to_lower("ABC123def", '_'), "abc_123def");
    }

    #[test]
    fn goutils_byte_walkers() {
        assert_eq!(call(initials, &[st("foo bar")]), "fb");
        assert_eq!(call(nospace, &[st(" a b\tc ")]), "abc");
        assert_eq!(call(nospace, &[st("é")]), "é");
        assert_eq!(call(nospace, &[st("é x")]), "\u{c3}\u{a9}x");
        assert_eq!(call(wrap, &[go_int(5), st("aaa bbb ccc")]), "aaa\nbbb\nccc");
        assert_eq!(
            call(wrap_with, &[go_int(3), st("<br>"), st("abcdefg")]),
            "abc<br>def<br>g"
        );
        assert_eq!(call(wrap, &[go_int(3), st("abcdefg hi")]), "abcdefg\nhi");
        assert_eq!(call(abbrev, &[go_int(5), st("hello world")]), "he...");
        assert_eq!(
            call(
                abbrevboth,
                &[go_int(5), go_int(10), st("1234567890abcdefg")]
            ),
            "...6789..."
        );
    }

    #[test]
    fn quoting_and_joining() {
        assert_eq!(
            call(quote, &[go_int(1), Value::Nil, st("x")]),
            "\"1\" \"x\""
        );
        assert_eq!(call(squote, &[st("it's")]), "'it's'");
        assert_eq!(
            call(cat, &[st("a"), Value::Nil, st("b"), go_int(1)]),
            "a b 1"
        );
        assert_eq!(
            call(indent, &[go_int(2), st("a\n\nb\n")]),
            "  a\n  \n  b\n  "
        );
        assert_eq!(call(nindent, &[go_int(2), st("a")]), "\n  a");
        assert_eq!(call(replace, &[st("a"), st("x"), st("banana")]), "bxnxnx");
        assert_eq!(
            call(split_list, &[st(","), st("a,,b")]),
            r#"[]string["a", "", "b"]"#
        );
        assert_eq!(call(split_list, &[st(""), st("")]), "[]string[]");
        assert_eq!(
            call(splitn, &[st(","), go_int(2), st("a,b,c")]),
            r#"map[string]string{"_0": "a", "_1": "b,c"}"#
        );
        assert_eq!(
            call(
                join,
                &[st("-"), Value::list(vec![go_int(1), st("a"), Value::Nil])]
            ),
            "1-a"
        );
        assert_eq!(call(plural, &[st("one"), st("many"), go_int(1)]), "one");
        assert_eq!(
            call(repeat, &[go_int(-1), st("x")]),
            "ERR strings: negative Repeat count"
        );
    }
}
