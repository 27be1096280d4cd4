//! Sprig's regular-expression functions (`regexMatch`, `regexFind`, `regexFindAll`,
//! `regexReplaceAll`, `regexReplaceAllLiteral`, `regexSplit`, `regexQuoteMeta` and the
//! `must*` variants) with Go `regexp` semantics on top of the `regex` crate.
//!
//! Both engines implement RE2 syntax with leftmost-first matching, but they differ
//! where charts can notice: Go's `\d`, `\w`, `\s`, `\b` are ASCII-only, Go accepts
//! `\Q...\E`, octal escapes and duplicate group names, rejects `(?x)`, look-around and
//! counts above 1000, and reports syntax errors in its own words
//! (`error parsing regexp: missing closing ): `(``). So a pattern is first parsed
//! here with Go's rules — producing Go's error for anything Go rejects — and
//! translated into an equivalent `regex` pattern. Named groups become plain groups
//! whose names are kept on the side, because `$name` expansion in `regexReplaceAll`
//! follows Go's rules (first participating group of that name; `$1x` is the group
//! named `1x`), which are implemented here rather than by the crate.
//!
//! The iteration over successive matches (`FindAll`, `ReplaceAll`, `Split`) also
//! follows Go's loops exactly, including how empty matches next to a previous match
//! are skipped.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::conversion::{arg_int, arg_str};
use crate::template::fmt::quote as go_quote;
use crate::template::{FuncDef, FuncError, FuncResult, List, ListType, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("regexMatch", &[Ty::String, Ty::String], regex_match),
    FuncDef::plain(
        "mustRegexMatch",
        &[Ty::String, Ty::String],
        must_regex_match,
    ),
    FuncDef::plain(
        "regexFindAll",
        &[Ty::String, Ty::String, Ty::Int],
        regex_find_all,
    ),
    FuncDef::plain(
        "mustRegexFindAll",
        &[Ty::String, Ty::String, Ty::Int],
        must_regex_find_all,
    ),
    FuncDef::plain("regexFind", &[Ty::String, Ty::String], regex_find),
    FuncDef::plain("mustRegexFind", &[Ty::String, Ty::String], must_regex_find),
    FuncDef::plain(
        "regexReplaceAll",
        &[Ty::String, Ty::String, Ty::String],
        regex_replace_all,
    ),
    FuncDef::plain(
        "mustRegexReplaceAll",
        &[Ty::String, Ty::String, Ty::String],
        must_regex_replace_all,
    ),
    FuncDef::plain(
        "regexReplaceAllLiteral",
        &[Ty::String, Ty::String, Ty::String],
        regex_replace_all_literal,
    ),
    FuncDef::plain(
        "mustRegexReplaceAllLiteral",
        &[Ty::String, Ty::String, Ty::String],
        must_regex_replace_all_literal,
    ),
    FuncDef::plain(
        "regexSplit",
        &[Ty::String, Ty::String, Ty::Int],
        regex_split,
    ),
    FuncDef::plain(
        "mustRegexSplit",
        &[Ty::String, Ty::String, Ty::Int],
        must_regex_split,
    ),
    FuncDef::plain("regexQuoteMeta", &[Ty::String], regex_quote_meta),
];

// ---- Go regexp ------------------------------------------------------------------------

/// A compiled Go regular expression.
#[derive(Debug)]
pub struct GoRegex {
    /// The pattern in the crate's syntax.
    pattern: String,
    /// The pattern compiled as is, for text that is not all ASCII: built on first
    /// need when `ascii` exists (`None` if it then exceeds the size limit).
    unicode: std::sync::OnceLock<Option<regex::Regex>>,
    /// The pattern compiled without Unicode, on bytes, for text that is all ASCII.
    ///
    /// Why: the crate compiles a class that spans Unicode (`[^a-z0-9]`, `.`) into
    /// a UTF-8 automaton through a table of 10,000 entries it allocates and clears
    /// for each compile: 2.8% of a render of grafana's chart, for its one pattern.
    /// On ASCII text such a pattern matches exactly as the byte-wise one does:
    /// classes, `.` and `\b` (ASCII in Go) decide alike on ASCII characters, and
    /// offsets are the same. Case folding is the exception (`(?i)ſ` matches `s`),
    /// so only patterns written in ASCII get this form; one that does not compile
    /// so (`\pL`) has none.
    ascii: Option<regex::bytes::Regex>,
    /// Capture group names by index (index 0 is the whole match); `""` if unnamed.
    names: Vec<String>,
    expr: String,
}

/// The compiled form that searches a given text (see [`GoRegex::ascii`]).
enum Engine<'r> {
    Ascii(&'r regex::bytes::Regex),
    Unicode(&'r regex::Regex),
}

/// One match's group spans (`None` for a group that did not take part).
type Spans = Vec<Option<(usize, usize)>>;

impl Engine<'_> {
    /// Group spans of the leftmost match at or after `pos` (context before `pos`
    /// counts for `^` and `\b`), Go's `doExecute`.
    fn exec(&self, s: &str, pos: usize) -> Option<Spans> {
        let spans = |n: usize, get: &dyn Fn(usize) -> Option<(usize, usize)>| {
            Some((0..n).map(get).collect())
        };
        match self {
            Engine::Ascii(re) => {
                let c = re.captures_at(s.as_bytes(), pos)?;
                spans(c.len(), &|i| c.get(i).map(|m| (m.start(), m.end())))
            }
            Engine::Unicode(re) => {
                let c = re.captures_at(s, pos)?;
                spans(c.len(), &|i| c.get(i).map(|m| (m.start(), m.end())))
            }
        }
    }

    fn is_match(&self, s: &str) -> bool {
        match self {
            Engine::Ascii(re) => re.is_match(s.as_bytes()),
            Engine::Unicode(re) => re.is_match(s),
        }
    }

    fn find<'s>(&self, s: &'s str) -> Option<&'s str> {
        let (a, b) = match self {
            Engine::Ascii(re) => re.find(s.as_bytes()).map(|m| (m.start(), m.end()))?,
            Engine::Unicode(re) => re.find(s).map(|m| (m.start(), m.end()))?,
        };
        s.get(a..b)
    }
}

/// A Go `regexp/syntax` error: `error parsing regexp: CODE: `EXPR``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub code: &'static str,
    pub expr: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const MISSING_BRACKET: &str = "missing closing ]";
const INVALID_RANGE: &str = "invalid character class range";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_NAMED: &str = "invalid named capture";
const INVALID_PERL: &str = "invalid or unsupported Perl syntax";
const NESTED_REPEAT: &str = "invalid nested repetition operator";
const REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_ARG: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const TOO_LARGE: &str = "expression too large";
const INVALID_UTF8: &str = "invalid UTF-8";

fn err(code: &'static str, expr: &str) -> SyntaxError {
    SyntaxError {
        code,
        expr: expr.to_string(),
    }
}

/// Go's limit on a single count and on nested counts multiplied together.
const MAX_REPEAT: i64 = 1000;

/// What sits on the translator's stack: enough of Go's parse stack to decide
/// whether a repetition has an operand and whether nested counts are too large.
#[derive(Clone, Copy, Debug)]
enum Item {
    /// An operand; `rep` is the largest product of counted repetitions inside it.
    Atom { rep: i64 },
    /// An open group (`(`), remembering whether flags must be restored.
    Paren,
    /// An alternation bar.
    Bar,
}

struct Translator<'a> {
    src: &'a str,
    out: String,
    names: Vec<String>,
    stack: Vec<Item>,
}

/// Go's POSIX class names (`[:alpha:]` and friends), also valid in `regex`.
const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Go's Unicode general-category names for `\p`.
const CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N",
    "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm", "So",
    "Z", "Zl", "Zp", "Zs",
];

/// Go's Perl classes, ASCII-only, as `regex` class bodies.
fn perl_class(c: u8) -> Option<(&'static str, bool)> {
    match c {
        b'd' => Some(("0-9", false)),
        b'D' => Some(("0-9", true)),
        b's' => Some((r"\t\n\x0C\r ", false)),
        b'S' => Some((r"\t\n\x0C\r ", true)),
        b'w' => Some(("0-9A-Za-z_", false)),
        b'W' => Some(("0-9A-Za-z_", true)),
        _ => None,
    }
}

/// A literal character in `regex` syntax.
fn lit(c: char) -> String {
    if (0xD800..=0xDFFF).contains(&(c as u32)) {
        // Unreachable for &str input, but keep the pattern valid.
        return r"[^\x00-\x{10FFFF}]".to_string();
    }
    let mut buf = [0u8; 4];
    regex::escape(c.encode_utf8(&mut buf))
}

/// A literal character inside a `regex` character class.
fn class_lit(c: u32) -> String {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => ch.to_string(),
        Some(ch) => format!(r"\x{{{:X}}}", ch as u32),
        None => String::new(),
    }
}

impl<'a> Translator<'a> {
    fn push_atom(&mut self, rep: i64) {
        self.stack.push(Item::Atom { rep });
    }

    /// Go's parseEscape: one escaped rune, or an error naming the escape.
    fn escape(&self, t: &str) -> Result<(u32, usize), SyntaxError> {
        let b = t.as_bytes();
        if b.len() < 2 {
            return Err(err(TRAILING_BACKSLASH, ""));
        }
        let c = t[1..].chars().next().unwrap_or('\0');
        let after = 1 + c.len_utf8();
        let bad = |end: usize| err(INVALID_ESCAPE, &t[..end.min(t.len())]);
        match c {
            '1'..='7' if !(b.len() > 2 && (b'0'..=b'7').contains(&b[2])) => Err(bad(after)),
            '0'..='7' => {
                let mut r = u32::from(b[1] - b'0');
                let mut i = 2;
                while i < 4 && i < b.len() && (b'0'..=b'7').contains(&b[i]) {
                    r = r * 8 + u32::from(b[i] - b'0');
                    i += 1;
                }
                Ok((r, i))
            }
            'x' => {
                let rest = &t[2..];
                let Some(first) = rest.chars().next() else {
                    return Err(bad(2));
                };
                if first == '{' {
                    let mut r: u32 = 0;
                    let mut pos = 3;
                    for (n, ch) in t[3..].chars().enumerate() {
                        pos += ch.len_utf8();
                        if ch == '}' {
                            if n == 0 {
                                return Err(bad(pos));
                            }
                            return Ok((r, pos));
                        }
                        let Some(v) = ch.to_digit(16) else {
                            return Err(bad(pos));
                        };
                        r = r * 16 + v;
                        if r > 0x10FFFF {
                            return Err(bad(pos));
                        }
                    }
                    return Err(bad(pos));
                }
                let mut it = rest.chars();
                let x = it.next().and_then(|c| c.to_digit(16));
                let second = it.next();
                let end = 2 + first.len_utf8() + second.map_or(0, char::len_utf8);
                match (x, second.and_then(|c| c.to_digit(16))) {
                    (Some(x), Some(y)) => Ok((x * 16 + y, end)),
                    _ => Err(bad(end)),
                }
            }
            'a' => Ok((7, after)),
            'f' => Ok((12, after)),
            'n' => Ok((10, after)),
            'r' => Ok((13, after)),
            't' => Ok((9, after)),
            'v' => Ok((11, after)),
            c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c as u32, after)),
            _ => Err(bad(after)),
        }
    }

    /// Go's parseUnicodeClass for `\p` / `\P` at the start of `t`: the `regex`
    /// text and the length consumed.
    fn unicode_class(&self, t: &str) -> Result<(String, usize), SyntaxError> {
        let mut negate = t.as_bytes()[1] == b'P';
        let rest = &t[2..];
        let (seq_len, mut name) = match rest.chars().next() {
            Some('{') => match rest.find('}') {
                Some(end) => (2 + end + 1, &rest[1..end]),
                None => return Err(err(INVALID_RANGE, t)),
            },
            Some(c) => (2 + c.len_utf8(), &rest[..c.len_utf8()]),
            None => (2, ""),
        };
        let seq = &t[..seq_len];
        if let Some(n) = name.strip_prefix('^') {
            negate = !negate;
            name = n;
        }
        let valid = name == "Any"
            || CATEGORIES.contains(&name)
            || (name.len() > 1
                && name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && regex::Regex::new(&format!(r"\p{{{name}}}")).is_ok());
        if !valid {
            return Err(err(INVALID_RANGE, seq));
        }
        let p = if negate { 'P' } else { 'p' };
        Ok((format!(r"\{p}{{{name}}}"), seq_len))
    }

    /// Go's parseClass, starting at `[`; emits a `regex` class.
    fn class(&mut self, start: usize) -> Result<usize, SyntaxError> {
        let s = &self.src[start..];
        let mut t = 1;
        let mut out = String::from("[");
        if s[t..].starts_with('^') {
            out.push('^');
            t += 1;
        }
        let mut first = true;
        loop {
            let rest = &s[t..];
            if rest.is_empty() {
                return Err(err(MISSING_BRACKET, s));
            }
            if rest.starts_with(']') && !first {
                break;
            }
            first = false;
            if rest.starts_with("[:") && rest.len() > 2 {
                if let Some(i) = rest[2..].find(":]") {
                    let name = &rest[..i + 4];
                    let inner = &rest[2..i + 2];
                    let base = inner.strip_prefix('^').unwrap_or(inner);
                    if !POSIX_CLASSES.contains(&base) {
                        return Err(err(INVALID_RANGE, name));
                    }
                    out.push('[');
                    out.push_str(name);
                    out.push(']');
                    t += name.len();
                    continue;
                }
            }
            if rest.len() >= 2 && rest.starts_with('\\') {
                let c = rest.as_bytes()[1];
                if c == b'p' || c == b'P' {
                    let (text, n) = self.unicode_class(rest)?;
                    out.push_str(&text);
                    t += n;
                    continue;
                }
                if let Some((body, neg)) = perl_class(c) {
                    out.push_str(if neg { "[^" } else { "[" });
                    out.push_str(body);
                    out.push(']');
                    t += 2;
                    continue;
                }
            }
            let range_start = t;
            let (lo, n) = self.class_char(s, t)?;
            t += n;
            let mut hi = lo;
            let rest = &s[t..];
            if rest.len() >= 2 && rest.starts_with('-') && !rest[1..].starts_with(']') {
                t += 1;
                let (h, n) = self.class_char(s, t)?;
                t += n;
                hi = h;
                if hi < lo {
                    return Err(err(INVALID_RANGE, &s[range_start..t]));
                }
            }
            out.push_str(&class_lit(lo));
            if hi != lo {
                out.push('-');
                out.push_str(&class_lit(hi));
            }
        }
        out.push(']');
        self.out.push_str(&out);
        Ok(t + 1)
    }

    fn class_char(&self, whole: &str, t: usize) -> Result<(u32, usize), SyntaxError> {
        let rest = &whole[t..];
        if rest.is_empty() {
            return Err(err(MISSING_BRACKET, whole));
        }
        if rest.starts_with('\\') {
            return self.escape(rest);
        }
        let c = rest.chars().next().unwrap_or('\0');
        Ok((c as u32, c.len_utf8()))
    }

    /// Go's parsePerlFlags at `(?`: named groups, flag groups, flag settings.
    fn perl_flags(&mut self, start: usize) -> Result<usize, SyntaxError> {
        let t = &self.src[start..];
        let b = t.as_bytes();
        let named_p = b.len() > 4 && b[2] == b'P' && b[3] == b'<';
        let named = b.len() > 3 && b[2] == b'<';
        if named_p || named {
            let name_start = if named_p { 4 } else { 3 };
            let Some(end) = t.find('>') else {
                return Err(err(INVALID_NAMED, t));
            };
            let name = &t[name_start..end];
            if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) {
                return Err(err(INVALID_NAMED, &t[..end + 1]));
            }
            self.names.push(name.to_string());
            self.stack.push(Item::Paren);
            self.out.push('(');
            return Ok(end + 1);
        }
        let mut negated = false;
        let mut saw_flag = false;
        let mut flags = String::new();
        let mut i = 2;
        for c in t[2..].chars() {
            i += c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => {
                    flags.push(c);
                    saw_flag = true;
                }
                '-' if !negated => {
                    negated = true;
                    flags.push('-');
                    saw_flag = false;
                }
                ':' | ')' => {
                    if negated && !saw_flag {
                        break;
                    }
                    if c == ':' {
                        self.stack.push(Item::Paren);
                        self.out.push_str(&format!("(?{flags}:"));
                    } else if !flags.is_empty() {
                        self.out.push_str(&format!("(?{flags})"));
                    }
                    return Ok(i);
                }
                _ => break,
            }
        }
        Err(err(INVALID_PERL, &t[..i]))
    }

    /// The operand of a repetition, checked as Go's `repeat` does.
    #[allow(clippy::too_many_arguments)]
    fn repeat(
        &mut self,
        op_start: usize,
        op_end: usize,
        last_repeat: Option<usize>,
        counted: Option<(i64, i64)>,
    ) -> Result<usize, SyntaxError> {
        let mut end = op_end;
        let lazy = self.src[end..].starts_with('?');
        if lazy {
            end += 1;
        }
        if let Some(lr) = last_repeat {
            return Err(err(NESTED_REPEAT, &self.src[lr..end]));
        }
        let rep = match self.stack.last() {
            Some(Item::Atom { rep }) => *rep,
            _ => return Err(err(MISSING_ARG, &self.src[op_start..end])),
        };
        let new_rep = match counted {
            Some((min, max)) => {
                let m = if max == 0 {
                    0
                } else if max < 0 {
                    min
                } else {
                    max
                };
                if (min >= 2 || max >= 2) && m != 0 && (m > MAX_REPEAT || rep > MAX_REPEAT / m) {
                    return Err(err(REPEAT_SIZE, &self.src[op_start..end]));
                }
                if m == 0 {
                    1
                } else {
                    m.saturating_mul(rep)
                }
            }
            None => rep,
        };
        if let Some(Item::Atom { rep }) = self.stack.last_mut() {
            *rep = new_rep;
        }
        self.out.push_str(&self.src[op_start..end]);
        Ok(end)
    }

    /// Reduces the stack above the innermost `(` into one operand.
    fn collapse(&mut self) -> i64 {
        let mut rep = 1;
        while let Some(top) = self.stack.last() {
            match top {
                Item::Paren => break,
                Item::Atom { rep: r } => rep = rep.max(*r),
                Item::Bar => {}
            }
            self.stack.pop();
        }
        rep
    }

    fn run(mut self) -> Result<(String, Vec<String>), SyntaxError> {
        let src = self.src;
        let mut i = 0;
        let mut last_repeat: Option<usize> = None;
        while i < src.len() {
            let mut repeat_at = None;
            let c = src[i..].chars().next().unwrap_or('\0');
            match c {
                '(' => {
                    if src[i..].starts_with("(?") {
                        i += self.perl_flags(i)?;
                    } else {
                        self.names.push(String::new());
                        self.stack.push(Item::Paren);
                        self.out.push('(');
                        i += 1;
                    }
                }
                '|' => {
                    let rep = self.collapse();
                    self.push_atom(rep);
                    self.stack.push(Item::Bar);
                    self.out.push('|');
                    i += 1;
                }
                ')' => {
                    let rep = self.collapse();
                    match self.stack.pop() {
                        Some(Item::Paren) => self.push_atom(rep),
                        _ => return Err(err(UNEXPECTED_PAREN, src)),
                    }
                    self.out.push(')');
                    i += 1;
                }
                '^' | '$' | '.' => {
                    self.out.push_str(match c {
                        '^' => "(?:^)",
                        '$' => "(?:$)",
                        _ => ".",
                    });
                    self.push_atom(1);
                    i += 1;
                }
                '[' => {
                    i += self.class(i)?;
                    self.push_atom(1);
                }
                '*' | '+' | '?' => {
                    repeat_at = Some(i);
                    i = self.repeat(i, i + 1, last_repeat, None)?;
                }
                '{' => match parse_repeat(&src[i..]) {
                    None => {
                        self.out.push_str(r"\{");
                        self.push_atom(1);
                        i += 1;
                    }
                    Some((min, max, len)) => {
                        if !(0..=MAX_REPEAT).contains(&min)
                            || max > MAX_REPEAT
                            || (max >= 0 && min > max)
                        {
                            return Err(err(REPEAT_SIZE, &src[i..i + len]));
                        }
                        repeat_at = Some(i);
                        i = self.repeat(i, i + len, last_repeat, Some((min, max)))?;
                    }
                },
                '\\' => {
                    let b = src.as_bytes();
                    let next = b.get(i + 1).copied();
                    match next {
                        Some(b'A') => {
                            self.out.push_str(r"(?:\A)");
                            self.push_atom(1);
                            i += 2;
                        }
                        Some(b'z') => {
                            self.out.push_str(r"(?:\z)");
                            self.push_atom(1);
                            i += 2;
                        }
                        Some(b'b') => {
                            self.out.push_str(r"(?-u:\b)");
                            self.push_atom(1);
                            i += 2;
                        }
                        Some(b'B') => {
                            self.out.push_str(r"(?-u:\B)");
                            self.push_atom(1);
                            i += 2;
                        }
                        Some(b'C') => return Err(err(INVALID_ESCAPE, &src[i..i + 2])),
                        Some(b'Q') => {
                            let body = &src[i + 2..];
                            let (lit_text, used) = match body.find(r"\E") {
                                Some(e) => (&body[..e], e + 2),
                                None => (body, body.len()),
                            };
                            for ch in lit_text.chars() {
                                self.out.push_str(&lit(ch));
                                self.push_atom(1);
                            }
                            i += 2 + used;
                        }
                        Some(b'p' | b'P') => {
                            let (text, n) = self.unicode_class(&src[i..])?;
                            self.out.push_str(&text);
                            self.push_atom(1);
                            i += n;
                        }
                        Some(pc) if perl_class(pc).is_some() => {
                            if let Some((body, neg)) = perl_class(pc) {
                                self.out
                                    .push_str(&format!("[{}{body}]", if neg { "^" } else { "" }));
                            }
                            self.push_atom(1);
                            i += 2;
                        }
                        _ => {
                            let (r, n) = self.escape(&src[i..])?;
                            match char::from_u32(r) {
                                Some(ch) => self.out.push_str(&lit(ch)),
                                None => self.out.push_str(r"[^\x00-\x{10FFFF}]"),
                            }
                            self.push_atom(1);
                            i += n;
                        }
                    }
                }
                _ => {
                    self.out.push_str(&lit(c));
                    self.push_atom(1);
                    i += c.len_utf8();
                }
            }
            last_repeat = repeat_at;
        }
        self.collapse();
        if !self.stack.is_empty() {
            return Err(err(MISSING_PAREN, src));
        }
        Ok((self.out, self.names))
    }
}

/// Go's parseRepeat: `{n}`, `{n,}`, `{n,m}`; `None` if the text is not of that form
/// (the `{` is then a literal). Returns (min, max, length); -1 for "too big".
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let b = s.as_bytes();
    let mut i = 1;
    let parse_int = |i: &mut usize| -> Option<i64> {
        let start = *i;
        if *i >= b.len() || !b[*i].is_ascii_digit() {
            return None;
        }
        if b[*i] == b'0' && *i + 1 < b.len() && b[*i + 1].is_ascii_digit() {
            return None;
        }
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        let digits = &s[start..*i];
        Some(if digits.len() > 8 {
            -1
        } else {
            digits.parse().unwrap_or(-1)
        })
    };
    let mut min = parse_int(&mut i)?;
    if i >= b.len() {
        return None;
    }
    let max;
    if b[i] != b',' {
        max = min;
    } else {
        i += 1;
        if i >= b.len() {
            return None;
        }
        if b[i] == b'}' {
            max = -1;
        } else {
            max = parse_int(&mut i)?;
            if max < 0 {
                min = -1;
            }
        }
    }
    if i >= b.len() || b[i] != b'}' {
        return None;
    }
    Some((min, max, i + 1))
}

/// The crate's compile size limit for Go patterns (far above what Go's own
/// parser limits let through).
const SIZE_LIMIT: usize = 1 << 28;

/// The largest byte-wise form kept beside a Unicode form that is compiled only
/// when first needed. A larger pattern compiles its Unicode form at once, so that
/// one too large for [`SIZE_LIMIT`] fails `compile` as it always did, rather than
/// failing later, at a search, where no error can be given. A class compiles to
/// a few dozen UTF-8 states where its byte-wise form has one, far short of the
/// factor of 1,024 between the two limits.
const ASCII_SIZE_LIMIT: usize = SIZE_LIMIT >> 10;

fn unicode_regex(pattern: &str) -> Option<regex::Regex> {
    regex::RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .build()
        .ok()
}

impl GoRegex {
    /// Go's regexp.Compile.
    pub fn compile(expr: &str) -> Result<GoRegex, SyntaxError> {
        // Go checks the pattern is UTF-8 before parsing it; the error quotes the
        // pattern from the first bad byte on (see `template::gostr`).
        if let Some(at) = expr
            .char_indices()
            .find(|(_, c)| crate::template::gostr::raw_byte(*c).is_some())
            .map(|(i, _)| i)
        {
            return Err(err(INVALID_UTF8, &expr[at..]));
        }
        let t = Translator {
            src: expr,
            out: String::with_capacity(expr.len() + 8),
            names: vec![String::new()],
            stack: Vec::new(),
        };
        let (pattern, names) = t.run()?;
        let ascii = expr
            .is_ascii()
            .then(|| {
                regex::bytes::RegexBuilder::new(&pattern)
                    .unicode(false)
                    .size_limit(ASCII_SIZE_LIMIT)
                    .build()
                    .ok()
            })
            .flatten();
        let unicode = std::sync::OnceLock::new();
        if ascii.is_none() {
            let re = unicode_regex(&pattern).ok_or_else(|| err(TOO_LARGE, expr))?;
            let _ = unicode.set(Some(re));
        }
        Ok(GoRegex {
            pattern,
            unicode,
            ascii,
            names,
            expr: expr.to_string(),
        })
    }

    /// The compiled form for searching `s` (`None` only if the Unicode form,
    /// built late, exceeded its size limit, which [`ASCII_SIZE_LIMIT`] rules out).
    fn engine(&self, s: &str) -> Option<Engine<'_>> {
        if let Some(re) = &self.ascii {
            if s.is_ascii() {
                return Some(Engine::Ascii(re));
            }
        }
        self.unicode
            .get_or_init(|| unicode_regex(&self.pattern))
            .as_ref()
            .map(Engine::Unicode)
    }

    fn exec(&self, s: &str, pos: usize) -> Option<Spans> {
        self.engine(s)?.exec(s, pos)
    }

    /// Go's allMatches: successive matches, skipping an empty match that abuts the
    /// previous one; at most `n` (negative: all).
    fn all_matches(&self, s: &str, n: i64) -> Vec<Spans> {
        let Some(engine) = self.engine(s) else {
            return Vec::new();
        };
        let limit = if n < 0 { s.len() as i64 + 1 } else { n };
        let mut out = Vec::new();
        let mut pos = 0usize;
        let mut prev_end: Option<usize> = None;
        while (out.len() as i64) < limit && pos <= s.len() {
            let Some(m) = engine.exec(s, pos) else { break };
            let Some((ms, me)) = m[0] else { break };
            let mut accept = true;
            if me == pos {
                if Some(ms) == prev_end {
                    accept = false;
                }
                pos += s[pos..].chars().next().map_or(1, char::len_utf8);
            } else {
                pos = me;
            }
            prev_end = Some(me);
            if accept {
                out.push(m);
            }
        }
        out
    }

    /// The groups of the leftmost match, `None` for a group that did not take part
    /// (Go's FindStringSubmatchIndex, as text).
    pub fn submatch<'s>(&self, s: &'s str) -> Option<Vec<Option<&'s str>>> {
        let m = self.exec(s, 0)?;
        Some(m.iter().map(|g| g.map(|(a, b)| &s[a..b])).collect())
    }

    /// [`Self::submatch`] of every match (Go's FindAllStringSubmatchIndex, `n` < 0).
    pub fn submatch_all<'s>(&self, s: &'s str) -> Vec<Vec<Option<&'s str>>> {
        self.all_matches(s, -1)
            .into_iter()
            .map(|m| m.iter().map(|g| g.map(|(a, b)| &s[a..b])).collect())
            .collect()
    }

    /// Capture group names by index (index 0 is the whole match); `""` if unnamed.
    pub fn group_names(&self) -> &[String] {
        &self.names
    }

    /// Go's FindStringSubmatch: the groups of the leftmost match (`""` for groups
    /// that did not participate).
    pub fn captures<'s>(&self, s: &'s str) -> Option<Vec<&'s str>> {
        let m = self.exec(s, 0)?;
        Some(m.iter().map(|g| g.map_or("", |(a, b)| &s[a..b])).collect())
    }

    /// Go's FindAllStringSubmatch.
    pub fn captures_all<'s>(&self, s: &'s str, n: i64) -> Vec<Vec<&'s str>> {
        self.all_matches(s, n)
            .into_iter()
            .map(|m| m.iter().map(|g| g.map_or("", |(a, b)| &s[a..b])).collect())
            .collect()
    }

    pub fn is_match(&self, s: &str) -> bool {
        self.engine(s).is_some_and(|e| e.is_match(s))
    }

    pub fn find<'s>(&self, s: &'s str) -> Option<&'s str> {
        self.engine(s)?.find(s)
    }

    pub fn find_all<'s>(&self, s: &'s str, n: i64) -> Vec<&'s str> {
        self.all_matches(s, n)
            .into_iter()
            .filter_map(|m| m[0].map(|(a, b)| &s[a..b]))
            .collect()
    }

    /// Go's Regexp.Split.
    pub fn split<'s>(&self, s: &'s str, n: i64) -> Option<Vec<&'s str>> {
        if n == 0 {
            return None;
        }
        if !self.expr.is_empty() && s.is_empty() {
            return Some(vec![""]);
        }
        let mut out = Vec::new();
        let (mut beg, mut end) = (0usize, 0usize);
        for m in self.all_matches(s, n) {
            let Some((ms, me)) = m[0] else { continue };
            if n > 0 && out.len() as i64 == n - 1 {
                break;
            }
            end = ms;
            if me != 0 {
                out.push(&s[beg..end]);
            }
            beg = me;
        }
        if end != s.len() {
            out.push(&s[beg..]);
        }
        Some(out)
    }

    /// Go's replaceAll loop; `literal` skips `$` expansion.
    pub fn replace_all(&self, src: &str, repl: &str, literal: bool) -> String {
        let mut buf = String::with_capacity(src.len());
        let Some(engine) = self.engine(src) else {
            buf.push_str(src);
            return buf;
        };
        let mut last_end = 0usize;
        let mut search = 0usize;
        while search <= src.len() {
            let Some(m) = engine.exec(src, search) else {
                break;
            };
            let Some((ms, me)) = m[0] else { break };
            buf.push_str(&src[last_end..ms]);
            // No replacement for an empty match right after the previous match.
            if me > last_end || ms == 0 {
                if literal {
                    buf.push_str(repl);
                } else {
                    self.expand(&mut buf, repl, src, &m);
                }
            }
            last_end = me;
            let width = src[search..].chars().next().map_or(0, char::len_utf8);
            if search + width > me {
                search += width;
            } else if search + 1 > me {
                search += 1;
            } else {
                search = me;
            }
        }
        buf.push_str(&src[last_end..]);
        buf
    }

    /// Go's Regexp.expand: `$1`, `${1}`, `$name`, `${name}`, `$$`.
    fn expand(&self, out: &mut String, template: &str, src: &str, m: &[Option<(usize, usize)>]) {
        let mut t = template;
        while let Some(i) = t.find('$') {
            out.push_str(&t[..i]);
            t = &t[i + 1..];
            if let Some(rest) = t.strip_prefix('$') {
                out.push('$');
                t = rest;
                continue;
            }
            match extract_name(t) {
                None => out.push('$'),
                Some((name, num, rest)) => {
                    t = rest;
                    if let Some(n) = num {
                        if let Some(Some((a, b))) = m.get(n) {
                            out.push_str(&src[*a..*b]);
                        }
                    } else {
                        for (idx, gname) in self.names.iter().enumerate() {
                            if gname == name {
                                if let Some(Some((a, b))) = m.get(idx) {
                                    out.push_str(&src[*a..*b]);
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
        out.push_str(t);
    }
}

/// Go's `extract`: a group name after `$` (letters, digits, `_`, optionally in
/// braces); numeric names without leading zeros are group numbers.
fn extract_name(s: &str) -> Option<(&str, Option<usize>, &str)> {
    let (brace, body) = match s.strip_prefix('{') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let end = body
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(body.len(), |(i, _)| i);
    // Go's unicode.IsLetter/IsDigit; `char::is_alphanumeric` also admits other
    // numbers and letter-like marks, so narrow it down.
    let name = &body[..end];
    let name_end = name
        .char_indices()
        .find(|(_, c)| {
            !(*c == '_' || super::strings::go_is_letter(*c) || super::strings::go_is_digit(*c))
        })
        .map_or(name.len(), |(i, _)| i);
    let name = &name[..name_end];
    if name.is_empty() {
        return None;
    }
    let mut rest = &body[name.len()..];
    if brace {
        rest = rest.strip_prefix('}')?;
    }
    let mut num: Option<usize> = Some(0);
    for c in name.bytes() {
        num = match num {
            Some(n) if c.is_ascii_digit() && n < 100_000_000 => {
                Some(n * 10 + usize::from(c - b'0'))
            }
            _ => None,
        };
    }
    if name.len() > 1 && name.starts_with('0') {
        num = None;
    }
    Some((name, num, rest))
}

/// Go's regexp.QuoteMeta.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Compiled patterns, shared across calls (charts call the same few patterns in
/// loops, and a values schema's patterns are compiled to check the schema and
/// again to check the values).
pub(crate) fn cached(expr: &str) -> Result<Arc<GoRegex>, SyntaxError> {
    static CACHE: std::sync::OnceLock<Mutex<HashMap<String, Arc<GoRegex>>>> =
        std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(r) = cache.lock().get(expr) {
        return Ok(r.clone());
    }
    let r = Arc::new(GoRegex::compile(expr)?);
    let mut c = cache.lock();
    if c.len() >= 512 {
        c.clear();
    }
    c.insert(expr.to_string(), r.clone());
    Ok(r)
}

/// Go's `regexp.MustCompile` panic text, which the plain functions surface.
fn must_compile(expr: &str) -> Result<Arc<GoRegex>, FuncError> {
    cached(expr).map_err(|e| {
        FuncError::Call(format!(
            "regexp: Compile({}): {e}",
            backquote_or_quote(expr)
        ))
    })
}

/// Go's regexp `quote`: backquotes when strconv.CanBackquote allows, else a Go
/// quoted string.
fn backquote_or_quote(s: &str) -> String {
    // On the pattern's bytes: one that is not UTF-8 rules the backquotes out.
    if crate::template::fmt::can_backquote(&crate::template::gostr::to_bytes(s)) {
        format!("`{s}`")
    } else {
        go_quote(s)
    }
}

fn compile_err(expr: &str) -> Result<Arc<GoRegex>, FuncError> {
    cached(expr).map_err(|e| FuncError::Call(e.to_string()))
}

fn strings_value(v: Vec<&str>) -> Value {
    if v.is_empty() {
        return Value::List(List::nil(ListType::String));
    }
    Value::List(List::of_strings(v.into_iter().map(Value::str).collect()))
}

fn regex_match(args: &[Value]) -> FuncResult {
    let ok = cached(arg_str(args, 0)?).is_ok_and(|r| r.is_match(arg_str(args, 1).unwrap_or("")));
    Ok(Value::Bool(ok))
}

fn must_regex_match(args: &[Value]) -> FuncResult {
    let r = compile_err(arg_str(args, 0)?)?;
    Ok(Value::Bool(r.is_match(arg_str(args, 1)?)))
}

fn find_all_with(r: &GoRegex, args: &[Value]) -> FuncResult {
    Ok(strings_value(
        r.find_all(arg_str(args, 1)?, arg_int(args, 2)?),
    ))
}

fn regex_find_all(args: &[Value]) -> FuncResult {
    find_all_with(&*must_compile(arg_str(args, 0)?)?, args)
}

fn must_regex_find_all(args: &[Value]) -> FuncResult {
    find_all_with(&*compile_err(arg_str(args, 0)?)?, args)
}

fn regex_find(args: &[Value]) -> FuncResult {
    let r = must_compile(arg_str(args, 0)?)?;
    Ok(Value::str(r.find(arg_str(args, 1)?).unwrap_or("")))
}

fn must_regex_find(args: &[Value]) -> FuncResult {
    let r = compile_err(arg_str(args, 0)?)?;
    Ok(Value::str(r.find(arg_str(args, 1)?).unwrap_or("")))
}

fn replace_with(r: &GoRegex, args: &[Value], literal: bool) -> FuncResult {
    Ok(Value::str(r.replace_all(
        arg_str(args, 1)?,
        arg_str(args, 2)?,
        literal,
    )))
}

fn regex_replace_all(args: &[Value]) -> FuncResult {
    replace_with(&*must_compile(arg_str(args, 0)?)?, args, false)
}

fn must_regex_replace_all(args: &[Value]) -> FuncResult {
    replace_with(&*compile_err(arg_str(args, 0)?)?, args, false)
}

fn regex_replace_all_literal(args: &[Value]) -> FuncResult {
    replace_with(&*must_compile(arg_str(args, 0)?)?, args, true)
}

fn must_regex_replace_all_literal(args: &[Value]) -> FuncResult {
    replace_with(&*compile_err(arg_str(args, 0)?)?, args, true)
}

fn split_with(r: &GoRegex, args: &[Value]) -> FuncResult {
    Ok(match r.split(arg_str(args, 1)?, arg_int(args, 2)?) {
        None => Value::List(List::nil(ListType::String)),
        Some(parts) => Value::List(List::of_strings(
            parts.into_iter().map(Value::str).collect(),
        )),
    })
}

fn regex_split(args: &[Value]) -> FuncResult {
    split_with(&*must_compile(arg_str(args, 0)?)?, args)
}

fn must_regex_split(args: &[Value]) -> FuncResult {
    split_with(&*compile_err(arg_str(args, 0)?)?, args)
}

fn regex_quote_meta(args: &[Value]) -> FuncResult {
    Ok(Value::str(quote_meta(arg_str(args, 0)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ascii_form_matches_as_the_unicode_form_on_ascii_text() {
        let patterns = [
            "[^a-zA-Z0-9._-]+",
            ".",
            "(?s).+",
            "(?i)k+",
            r"\b\w+\b",
            r"^v?\d+(\.\d+)?",
            "(a|b)*c",
            "[[:alpha:]]+",
            r"\s+",
            "x*",
            "(?m)^a$",
            r"[^\x00-\x7f]",
            r"\B.\B",
            "(?U)a+?",
        ];
        let texts = [
            "",
            "abc",
            "a-b_c.d!",
            "hello world\nfoo",
            "K k kelvin",
            "v1.2.3 and 10",
            "  x  ",
            "a\na\n",
            "aaab",
        ];
        for p in patterns {
            let re = GoRegex::compile(p).expect("compiles");
            let ascii = re
                .ascii
                .as_ref()
                .expect("an ASCII pattern has the ASCII form");
            let unicode = unicode_regex(&re.pattern).expect("compiles");
            for t in texts {
                for pos in 0..=t.len() {
                    assert_eq!(
                        Engine::Ascii(ascii).exec(t, pos),
                        Engine::Unicode(&unicode).exec(t, pos),
                        "{p:?} on {t:?} at {pos}"
                    );
                }
            }
        }
        // Text that is not all ASCII takes the Unicode form, built on demand.
        let re = GoRegex::compile("[^a-z]").expect("compiles");
        assert!(re.unicode.get().is_none());
        assert_eq!(re.find_all("aébc", -1), ["é"]);
        assert!(re.unicode.get().is_some());
        // Patterns with Unicode classes or letters have no ASCII form.
        for p in [r"\pL", "ſ", "(?i)é"] {
            assert!(
                GoRegex::compile(p).expect("compiles").ascii.is_none(),
                "{p}"
            );
        }
    }

    fn compile_error(expr: &str) -> String {
        match GoRegex::compile(expr) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn syntax_errors_match_go() {
        let cases = [
            ("(", "missing closing ): `(`"),
            ("a**", "invalid nested repetition operator: `**`"),
            ("a*??", "invalid nested repetition operator: `*??`"),
            ("*a", "missing argument to repetition operator: `*`"),
            ("(*)", "missing argument to repetition operator: `*`"),
            ("a{1001}", "invalid repeat count: `{1001}`"),
            ("a{2,1}?", "invalid repeat count: `{2,1}`"),
            ("(a{500}){3}?", "invalid repeat count: `{3}?`"),
            ("a)", "unexpected ): `a)`"),
            ("[a", "missing closing ]: `[a`"),
            ("x[z-a]", "invalid character class range: `z-a`"),
            ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
            (r"\q", r"invalid escape sequence: `\q`"),
            (r"\1", r"invalid escape sequence: `\1`"),
            ("(?P<>a)", "invalid named capture: `(?P<>`"),
            ("(?P<n", "invalid named capture: `(?P<n`"),
            ("(?x)a", "invalid or unsupported Perl syntax: `(?x`"),
            ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
            ("(?i-)a", "invalid or unsupported Perl syntax: `(?i-)`"),
            ("a\\", "trailing backslash at end of expression: ``"),
            (r"\pX", r"invalid character class range: `\pX`"),
            (r"\p{Foo}", r"invalid character class range: `\p{Foo}`"),
            (r"\C", r"invalid escape sequence: `\C`"),
            (r"\x{110000}", r"invalid escape sequence: `\x{110000`"),
            (r"\8", r"invalid escape sequence: `\8`"),
        ];
        for (expr, want) in cases {
            assert_eq!(
                compile_error(expr),
                format!("error parsing regexp: {want}"),
                "{expr}"
            );
        }
        for ok in ["(?P<a>x)(?P<a>y)", "^*a", "(?)a", "a{,2}", r"\Qa.b\E+"] {
            assert_eq!(compile_error(ok), "ok", "{ok}");
        }
    }

    fn re(expr: &str) -> GoRegex {
        match GoRegex::compile(expr) {
            Ok(r) => r,
            Err(e) => panic!("{expr}: {e}"),
        }
    }

    #[test]
    fn matching_follows_go() {
        assert_eq!(re("a*").find_all("baaab", -1), vec!["", "aaa", ""]);
        assert_eq!(re(".").find_all("abc", 2), vec!["a", "b"]);
        assert_eq!(re("a*").replace_all("baaab", "-", false), "-b-b-");
        assert_eq!(
            re("(?P<x>a)(b)?").replace_all("ab a", "[$x|$2|${1}z|$1z|$$|$9|$]", false),
            "[a|b|az||$||$] [a||az||$||$]"
        );
        assert_eq!(re("a").replace_all("banana", "$1", true), "b$1n$1n$1");
        assert_eq!(re("a(n)").replace_all("banana", "<$1>", false), "b<n><n>a");
        assert_eq!(re("a").split("banana", -1), Some(vec!["b", "n", "n", ""]));
        assert_eq!(re("a").split("banana", 0), None);
        assert_eq!(re("a").split("banana", 2), Some(vec!["b", "nana"]));
        assert_eq!(re("").split("abc", -1), Some(vec!["a", "b", "c"]));
        assert_eq!(re("x*").split("abc", -1), Some(vec!["a", "b", "c"]));
        assert_eq!(re("a").split("", -1), Some(vec![""]));
        assert_eq!(re(r"\d+").find("x١٢3"), Some("3"));
        assert_eq!(re(r"\w+").find("héllo"), Some("h"));
        assert_eq!(re("(?i)k").find("\u{212a}"), Some("\u{212a}"));
        assert_eq!(re(r"\bfoo\b").find("éfoo"), Some("foo"));
        assert_eq!(re("[[:^alpha:]]").find("ab1"), Some("1"));
        assert_eq!(re(r"\p{Greek}+").find("aαβ"), Some("αβ"));
        assert_eq!(re(r"\pL+").find("1ab"), Some("ab"));
        assert_eq!(re(r"[\d\s]+").find("a1 2b"), Some("1 2"));
        assert_eq!(re(r"\x41\101\x{42}").find("AAB"), Some("AAB"));
        assert_eq!(re("(?m)^b").find("a\nb"), Some("b"));
        assert_eq!(re("(?s)a.b").find("a\nb"), Some("a\nb"));
        assert_eq!(re("(?U)a+").find("aaa"), Some("a"));
        assert_eq!(re("a{,2}").find("a{,2}"), Some("a{,2}"));
        assert_eq!(re(r"\Qa.b\E+").find("a.bbb"), Some("a.bbb"));
        assert!(re("^$").is_match(""));
    }

    #[test]
    fn quote_meta_and_panic_text() {
        assert_eq!(
            quote_meta(r"a.b*c[d]{e}^$\|()+?-"),
            r"a\.b\*c\[d\]\{e\}\^\$\\\|\(\)\+\?-"
        );
        let e = regex_find(&[Value::str("a**"), Value::str("x")]);
        assert_eq!(
            e.err().map(|e| e.to_string()),
            Some(
                "regexp: Compile(`a**`): error parsing regexp: invalid nested repetition operator: `**`"
                    .to_string()
            )
        );
        let r = regex_find_all(&[Value::str("x"), Value::str("abc"), Value::int(-1)]);
        assert_eq!(
            r.ok().map(|v| format!("{v:?}")),
            Some("[]stringnil[]".to_string())
        );
        let m = regex_match(&[Value::str("("), Value::str("x")]);
        assert_eq!(m.ok().and_then(|v| v.as_bool()), Some(false));
    }
}
