//! Go's `encoding/json`, as Sprig's and Helm's JSON functions (and sigs.k8s.io/yaml
//! underneath `toYaml`/`fromYaml`) see it.
//!
//! Encoding is `json.Marshal`: byte-ordered map keys, compact output, HTML-safe string
//! escaping unless turned off (`toRawJson`), Go's float layout (`'f'` between 1e-6 and
//! 1e21, `'e'` outside with `e-7` rather than `e-07`), `[]byte` as base64, and the
//! `json: unsupported value: NaN` error. `MarshalIndent` is produced directly rather
//! than by re-indenting, with Go's rule that empty objects and arrays stay `{}`/`[]`.
//!
//! Decoding is `json.Unmarshal` into `interface{}`, `map[string]interface{}` or
//! `[]interface{}`: numbers become float64, duplicate keys keep the last value, and
//! errors carry Go's exact text. That text depends on the Go release that built the
//! program being imitated: Go up to 1.24 (Helm 3, Helmfile) validates with a byte
//! state machine whose messages name the offending byte and the scanner state, while
//! the json/v2-backed package of newer Go (Helm 4) reports truncation, escapes and
//! overflowing numbers differently — [`Dialect`] selects which.
//!
//! Both the validator and the value builder are iterative, so nesting as deep as Go
//! allows (10000 levels) cannot overflow the stack.

use std::collections::BTreeMap;
use std::fmt;

use crate::template::fmt::{format_float, quote_rune};
use crate::template::{List, ListType, Map, Value};

/// Which Go `encoding/json` implementation to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// The classic package (Go ≤ 1.24): Helm 3.15 (go1.22), Helmfile 0.166.
    V1,
    /// The package implemented on top of json/v2 (newer Go): Helm 4.
    V2,
}

/// An `encoding/json` error; `Display` is Go's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JsonError {
    /// Malformed input (`invalid character 'b' looking for beginning of object key
    /// string`, `unexpected end of JSON input`).
    Syntax(String),
    /// A value that does not fit the target (`json: cannot unmarshal array into Go
    /// value of type map[string]interface {}`); the message is complete.
    UnmarshalType(String),
    /// A value JSON cannot represent; holds what Go names it (`+Inf`, `NaN`,
    /// `encountered a cycle via map[string]interface {}`).
    UnsupportedValue(String),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax(m) | JsonError::UnmarshalType(m) => f.write_str(m),
            JsonError::UnsupportedValue(v) => write!(f, "json: unsupported value: {v}"),
        }
    }
}

impl std::error::Error for JsonError {}

// =====================================================================================
// Encoding
// =====================================================================================

/// Go `json.Marshal` (`escape_html`: `<`, `>`, `&` become `\u003c` etc., as Marshal
/// does; `false` is what an Encoder with `SetEscapeHTML(false)` writes, minus the
/// trailing newline).
pub fn encode(v: &Value, escape_html: bool) -> Result<String, JsonError> {
    encode_in(v, escape_html, Dialect::V1)
}

/// [`encode`] as the Go release of `dialect` writes it: bytes that are not UTF-8
/// become an escaped `\ufffd` in Go 1.22 ([`Dialect::V1`]) and a raw U+FFFD in the
/// newer Go that builds Helm 4 ([`Dialect::V2`]).
pub fn encode_in(v: &Value, escape_html: bool, dialect: Dialect) -> Result<String, JsonError> {
    let mut e = Encoder {
        out: String::new(),
        escape_html,
        indent: None,
        open_maps: Vec::new(),
        dialect,
    };
    e.value(v, 0)?;
    Ok(e.out)
}

/// Go `json.MarshalIndent(v, prefix, indent)` (HTML escaping on, as in Go).
pub fn encode_indent(v: &Value, prefix: &str, indent: &str) -> Result<String, JsonError> {
    encode_indent_in(v, prefix, indent, Dialect::V1)
}

/// [`encode_indent`] as the Go release of `dialect` writes it (see [`encode_in`]).
pub fn encode_indent_in(
    v: &Value,
    prefix: &str,
    indent: &str,
    dialect: Dialect,
) -> Result<String, JsonError> {
    let mut e = Encoder {
        out: String::new(),
        escape_html: true,
        indent: Some((prefix.to_string(), indent.to_string())),
        open_maps: Vec::new(),
        dialect,
    };
    e.value(v, 0)?;
    Ok(e.out)
}

/// A JSON string literal for `s`, escaped the way `json.Marshal` does.
pub fn encode_string(s: &str, escape_html: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    append_string(&mut out, s, escape_html, Dialect::V1);
    out
}

/// A float64 as `json.Marshal` writes it.
pub fn encode_float(f: f64) -> Result<String, JsonError> {
    if !f.is_finite() {
        return Err(JsonError::UnsupportedValue(format_float(f, b'g', -1)));
    }
    let abs = f.abs();
    let exp_form = abs != 0.0 && !(1e-6..1e21).contains(&abs);
    let mut s = format_float(f, if exp_form { b'e' } else { b'f' }, -1);
    if exp_form {
        // Go trims a single leading zero of a negative two-digit exponent: e-07 → e-7.
        let b = s.as_bytes();
        let n = b.len();
        if n >= 4 && b[n - 4] == b'e' && b[n - 3] == b'-' && b[n - 2] == b'0' {
            s.remove(n - 2);
        }
    }
    Ok(s)
}

struct Encoder {
    out: String,
    escape_html: bool,
    indent: Option<(String, String)>,
    /// Maps being encoded, outermost first, to detect self-containing maps (Go reports
    /// them instead of recursing forever).
    open_maps: Vec<Map>,
    dialect: Dialect,
}

impl Encoder {
    fn newline(&mut self, depth: usize) {
        if let Some((prefix, indent)) = &self.indent {
            self.out.push('\n');
            self.out.push_str(prefix);
            for _ in 0..depth {
                self.out.push_str(indent);
            }
        }
    }

    fn value(&mut self, v: &Value, depth: usize) -> Result<(), JsonError> {
        match v {
            Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i, _) => self.out.push_str(&i.to_string()),
            Value::Uint(u, _) => self.out.push_str(&u.to_string()),
            Value::Float(f) => {
                let s = encode_float(*f)?;
                self.out.push_str(&s);
            }
            Value::String(s) => append_string(&mut self.out, s, self.escape_html, self.dialect),
            Value::Bytes(b) => {
                self.out.push('"');
                self.out.push_str(&base64_std(b));
                self.out.push('"');
            }
            Value::List(l) => {
                if l.is_nil() {
                    self.out.push_str("null");
                    return Ok(());
                }
                self.out.push('[');
                for (i, item) in l.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    self.value(item, depth + 1)?;
                }
                if !l.is_empty() {
                    self.newline(depth);
                }
                self.out.push(']');
            }
            Value::Map(m) if m.is_nil() => self.out.push_str("null"),
            Value::Map(m) => {
                if self.open_maps.iter().any(|o| o.same(m)) {
                    return Err(JsonError::UnsupportedValue(format!(
                        "encountered a cycle via {}",
                        m.ty().go_name()
                    )));
                }
                self.open_maps.push(m.clone());
                self.object(m.entries(), depth)?;
                self.open_maps.pop();
            }
            // A Go struct writes its fields in declaration order, not sorted.
            Value::Object(o) => match crate::template::value::struct_json_fields(o.as_ref()) {
                Some(fields) => self.object(fields, depth)?,
                None => match o.to_json_value() {
                    // An object whose JSON form is itself an object would recurse
                    // forever; Go types always bottom out, so fall back to the
                    // printed form.
                    Value::Object(inner) => append_string(
                        &mut self.out,
                        &inner.fmt_v(false),
                        self.escape_html,
                        self.dialect,
                    ),
                    jv => self.value(&jv, depth)?,
                },
            },
        }
        Ok(())
    }

    /// A JSON object of these entries, in this order.
    fn object(&mut self, entries: Vec<(String, Value)>, depth: usize) -> Result<(), JsonError> {
        self.out.push('{');
        for (i, (k, item)) in entries.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline(depth + 1);
            append_string(&mut self.out, k, self.escape_html, self.dialect);
            self.out.push(':');
            if self.indent.is_some() {
                self.out.push(' ');
            }
            self.value(item, depth + 1)?;
        }
        if !entries.is_empty() {
            self.newline(depth);
        }
        self.out.push('}');
        Ok(())
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn append_string(out: &mut String, s: &str, escape_html: bool, dialect: Dialect) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if escape_html => push_u4(out, c as u32),
            c if (c as u32) < 0x20 => push_u4(out, c as u32),
            // Valid JSON but not valid JavaScript; Go always escapes them.
            '\u{2028}' | '\u{2029}' => push_u4(out, c as u32),
            // A byte that is not UTF-8 (see `gostr`): U+FFFD, escaped by Go 1.22.
            c if crate::template::gostr::raw_byte(c).is_some() => match dialect {
                Dialect::V1 => push_u4(out, 0xFFFD),
                Dialect::V2 => out.push(char::REPLACEMENT_CHARACTER),
            },
            c => out.push(c),
        }
    }
    out.push('"');
}

fn push_u4(out: &mut String, u: u32) {
    out.push_str("\\u");
    for k in (0..4).rev() {
        out.push(HEX[((u >> (4 * k)) & 0xF) as usize] as char);
    }
}

/// Standard base64 with padding, which is how Go encodes `[]byte`.
fn base64_std(b: &[u8]) -> String {
    const ALPHA: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = match chunk.len() {
            1 => u32::from(chunk[0]) << 16,
            2 => (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8),
            _ => (u32::from(chunk[0]) << 16) | (u32::from(chunk[1]) << 8) | u32::from(chunk[2]),
        };
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHA[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

// =====================================================================================
// Decoding
// =====================================================================================

/// The Go variable a document is unmarshalled into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `interface{}`
    Any,
    /// `map[string]interface{}`
    Map,
    /// `[]interface{}`
    List,
}

impl Target {
    fn go_name(self) -> &'static str {
        match self {
            Target::Any => "interface {}",
            Target::Map => "map[string]interface {}",
            Target::List => "[]interface {}",
        }
    }
}

/// What `json.Unmarshal` leaves behind: the target's value and the error it returned.
/// Go keeps decoding after a value that does not fit (an overflowing number), so a
/// value and an error can come together.
#[derive(Clone, Debug)]
pub struct Decoded {
    /// For [`Target::Map`] an empty map when nothing could be stored (also for a JSON
    /// `null`, where Go would leave a nil map); for [`Target::List`] a nil list for
    /// `null` and an empty one when nothing could be stored; for [`Target::Any`] nil.
    pub value: Value,
    pub error: Option<JsonError>,
}

/// Go `json.Unmarshal(data, &target)`.
pub fn unmarshal(data: &[u8], target: Target, dialect: Dialect) -> Decoded {
    let empty = || match target {
        Target::Any => Value::Nil,
        Target::Map => Value::Map(Map::new()),
        Target::List => Value::List(List::new(Vec::new())),
    };
    if let Err(e) = validate(data, dialect) {
        return Decoded {
            value: empty(),
            error: Some(e),
        };
    }
    let first = data.iter().copied().find(|c| !is_space(*c)).unwrap_or(b'n');
    let kind = match first {
        b'{' => "object",
        b'[' => "array",
        b'"' => "string",
        b't' | b'f' => "bool",
        b'n' => "null",
        _ => "number",
    };
    let fits = match target {
        Target::Any => true,
        Target::Map => matches!(kind, "object" | "null"),
        Target::List => matches!(kind, "array" | "null"),
    };
    if !fits {
        return Decoded {
            value: empty(),
            error: Some(JsonError::UnmarshalType(format!(
                "json: cannot unmarshal {kind} into Go value of type {}",
                target.go_name()
            ))),
        };
    }
    let (value, error) = build(data, dialect);
    let value = match (target, value) {
        (Target::Map, Value::Nil) => Value::Map(Map::new()),
        (Target::List, Value::Nil) => Value::List(List::nil(ListType::Interface)),
        (_, v) => v,
    };
    Decoded { value, error }
}

/// `json.Unmarshal` into `interface{}`, failing on any error (Sprig `mustFromJson`).
pub fn decode(data: &str, dialect: Dialect) -> Result<Value, JsonError> {
    let d = unmarshal(data.as_bytes(), Target::Any, dialect);
    match d.error {
        Some(e) => Err(e),
        None => Ok(d.value),
    }
}

/// `json.Unmarshal` into `map[string]interface{}`, failing on any error, including a
/// top level that is not an object (`json: cannot unmarshal array into Go value of
/// type map[string]interface {}`).
pub fn decode_into_map(data: &str, dialect: Dialect) -> Result<Map, JsonError> {
    let d = unmarshal(data.as_bytes(), Target::Map, dialect);
    match (d.error, d.value) {
        (Some(e), _) => Err(e),
        (None, Value::Map(m)) => Ok(m),
        (None, _) => Ok(Map::new()),
    }
}

/// `json.Unmarshal` into `[]interface{}`, failing on any error.
pub fn decode_into_list(data: &str, dialect: Dialect) -> Result<List, JsonError> {
    let d = unmarshal(data.as_bytes(), Target::List, dialect);
    match (d.error, d.value) {
        (Some(e), _) => Err(e),
        (None, Value::List(l)) => Ok(l),
        (None, _) => Ok(List::nil(ListType::Interface)),
    }
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's limit on nesting; deeper documents are a syntax error.
const MAX_DEPTH: usize = 10000;

// ---- validation: Go's scanner state machine ------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    /// Inside `\u`, with this many hex digits read so far.
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// Inside a literal, expecting `word[at]`.
    Lit(&'static [u8], u8),
}

struct Scanner<'a> {
    data: &'a [u8],
    dialect: Dialect,
    state: St,
    stack: Vec<Ctx>,
    end_top: bool,
    /// Offset of the backslash of the escape being read (for json/v2 messages).
    esc_start: usize,
}

/// Go's `quoteChar` for a byte; json/v2 names the whole rune starting there.
fn quote_char(data: &[u8], pos: usize, c: u8, dialect: Dialect) -> String {
    if c == b'\'' {
        return "'\\''".to_string();
    }
    if c == b'"' {
        return "'\"'".to_string();
    }
    let r = if dialect == Dialect::V2 && c >= 0x80 {
        let rest = &data[pos..data.len().min(pos + 4)];
        let valid = match std::str::from_utf8(rest) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or(""),
        };
        valid.chars().next().unwrap_or('\u{FFFD}')
    } else {
        // Go converts the byte itself to a rune (0xC3 becomes 'Ã').
        char::from(c)
    };
    quote_rune(r)
}

impl Scanner<'_> {
    fn err(&self, pos: usize, c: u8, context: &str) -> JsonError {
        JsonError::Syntax(format!(
            "invalid character {} {context}",
            quote_char(self.data, pos, c, self.dialect)
        ))
    }

    fn num_err(&self, pos: usize, c: u8, v1_context: &str) -> JsonError {
        match self.dialect {
            Dialect::V1 => self.err(pos, c, v1_context),
            Dialect::V2 => self.err(pos, c, "in numeric literal"),
        }
    }

    /// json/v2's message for a malformed escape: the escape text, backquoted when
    /// that reads unambiguously, else Go-quoted.
    fn escape_err(&self, len: usize) -> JsonError {
        let end = self.data.len().min(self.esc_start + len);
        let what = &self.data[self.esc_start..end];
        let text = String::from_utf8_lossy(what);
        let plain = std::str::from_utf8(what).is_ok()
            && !text
                .chars()
                .any(|r| r == '`' || r.is_whitespace() || !crate::template::fmt::is_print(r));
        if plain {
            JsonError::Syntax(format!("invalid escape sequence `{text}` in string"))
        } else {
            JsonError::Syntax(format!(
                "invalid escape sequence {} in string",
                crate::template::fmt::quote_bytes(what)
            ))
        }
    }

    fn push(&mut self, pos: usize, c: u8, ctx: Ctx) -> Result<(), JsonError> {
        self.stack.push(ctx);
        if self.stack.len() > MAX_DEPTH {
            return Err(match self.dialect {
                Dialect::V1 => self.err(pos, c, "exceeded max depth"),
                Dialect::V2 => JsonError::Syntax("exceeded max depth".to_string()),
            });
        }
        Ok(())
    }

    fn step(&mut self, pos: usize, c: u8) -> Result<(), JsonError> {
        loop {
            match self.state {
                St::BeginValueOrEmpty => {
                    if is_space(c) {
                        return Ok(());
                    }
                    if c == b']' {
                        self.state = St::EndValue;
                        continue;
                    }
                    self.state = St::BeginValue;
                    continue;
                }
                St::BeginValue => {
                    if is_space(c) {
                        return Ok(());
                    }
                    self.state = match c {
                        b'{' => {
                            self.push(pos, c, Ctx::ObjectKey)?;
                            St::BeginStringOrEmpty
                        }
                        b'[' => {
                            self.push(pos, c, Ctx::ArrayValue)?;
                            St::BeginValueOrEmpty
                        }
                        b'"' => St::InString,
                        b'-' => St::Neg,
                        b'0' => St::Zero,
                        b'1'..=b'9' => St::One,
                        b't' => St::Lit(b"true", 1),
                        b'f' => St::Lit(b"false", 1),
                        b'n' => St::Lit(b"null", 1),
                        _ => return Err(self.err(pos, c, "looking for beginning of value")),
                    };
                    return Ok(());
                }
                St::BeginStringOrEmpty => {
                    if is_space(c) {
                        return Ok(());
                    }
                    if c == b'}' {
                        if let Some(top) = self.stack.last_mut() {
                            *top = Ctx::ObjectValue;
                        }
                        self.state = St::EndValue;
                        continue;
                    }
                    self.state = St::BeginString;
                    continue;
                }
                St::BeginString => {
                    if is_space(c) {
                        return Ok(());
                    }
                    if c == b'"' {
                        self.state = St::InString;
                        return Ok(());
                    }
                    return Err(self.err(pos, c, "looking for beginning of object key string"));
                }
                St::EndValue => {
                    let Some(&top) = self.stack.last() else {
                        self.state = St::EndTop;
                        self.end_top = true;
                        continue;
                    };
                    if is_space(c) {
                        return Ok(());
                    }
                    match top {
                        Ctx::ObjectKey => {
                            if c == b':' {
                                if let Some(t) = self.stack.last_mut() {
                                    *t = Ctx::ObjectValue;
                                }
                                self.state = St::BeginValue;
                                return Ok(());
                            }
                            return Err(self.err(pos, c, "after object key"));
                        }
                        Ctx::ObjectValue => {
                            if c == b',' {
                                if let Some(t) = self.stack.last_mut() {
                                    *t = Ctx::ObjectKey;
                                }
                                self.state = St::BeginString;
                                return Ok(());
                            }
                            if c == b'}' {
                                self.stack.pop();
                                self.state = St::EndValue;
                                return Ok(());
                            }
                            return Err(self.err(pos, c, "after object key:value pair"));
                        }
                        Ctx::ArrayValue => {
                            if c == b',' {
                                self.state = St::BeginValue;
                                return Ok(());
                            }
                            if c == b']' {
                                self.stack.pop();
                                self.state = St::EndValue;
                                return Ok(());
                            }
                            return Err(self.err(pos, c, "after array element"));
                        }
                    }
                }
                St::EndTop => {
                    if !is_space(c) {
                        return Err(self.err(pos, c, "after top-level value"));
                    }
                    return Ok(());
                }
                St::InString => {
                    match c {
                        b'"' => self.state = St::EndValue,
                        b'\\' => {
                            self.esc_start = pos;
                            self.state = St::InStringEsc;
                        }
                        c if c < 0x20 => {
                            return Err(match self.dialect {
                                Dialect::V1 => self.err(pos, c, "in string literal"),
                                Dialect::V2 => self.err(pos, c, "in string"),
                            });
                        }
                        _ => {}
                    }
                    return Ok(());
                }
                St::InStringEsc => {
                    match c {
                        b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {
                            self.state = St::InString
                        }
                        b'u' => self.state = St::InStringEscU(0),
                        _ => {
                            return Err(match self.dialect {
                                Dialect::V1 => self.err(pos, c, "in string escape code"),
                                Dialect::V2 => self.escape_err(2),
                            });
                        }
                    }
                    return Ok(());
                }
                St::InStringEscU(n) => {
                    if c.is_ascii_hexdigit() {
                        self.state = if n == 3 {
                            St::InString
                        } else {
                            St::InStringEscU(n + 1)
                        };
                        return Ok(());
                    }
                    return Err(match self.dialect {
                        Dialect::V1 => self.err(pos, c, "in \\u hexadecimal character escape"),
                        Dialect::V2 => self.escape_err(6),
                    });
                }
                St::Neg => {
                    self.state = match c {
                        b'0' => St::Zero,
                        b'1'..=b'9' => St::One,
                        _ => return Err(self.num_err(pos, c, "in numeric literal")),
                    };
                    return Ok(());
                }
                St::One => {
                    if c.is_ascii_digit() {
                        return Ok(());
                    }
                    self.state = St::Zero;
                    continue;
                }
                St::Zero => {
                    match c {
                        b'.' => self.state = St::Dot,
                        b'e' | b'E' => self.state = St::E,
                        _ => {
                            self.state = St::EndValue;
                            continue;
                        }
                    }
                    return Ok(());
                }
                St::Dot => {
                    if c.is_ascii_digit() {
                        self.state = St::Dot0;
                        return Ok(());
                    }
                    return Err(self.num_err(pos, c, "after decimal point in numeric literal"));
                }
                St::Dot0 => {
                    if c.is_ascii_digit() {
                        return Ok(());
                    }
                    if c == b'e' || c == b'E' {
                        self.state = St::E;
                        return Ok(());
                    }
                    self.state = St::EndValue;
                    continue;
                }
                St::E => {
                    if c == b'+' || c == b'-' {
                        self.state = St::ESign;
                        return Ok(());
                    }
                    self.state = St::ESign;
                    continue;
                }
                St::ESign => {
                    if c.is_ascii_digit() {
                        self.state = St::E0;
                        return Ok(());
                    }
                    return Err(self.num_err(pos, c, "in exponent of numeric literal"));
                }
                St::E0 => {
                    if c.is_ascii_digit() {
                        return Ok(());
                    }
                    self.state = St::EndValue;
                    continue;
                }
                St::Lit(word, at) => {
                    let want = word[at as usize];
                    if c != want {
                        let name = String::from_utf8_lossy(word);
                        let ctx = format!("in literal {name} (expecting '{}')", want as char);
                        return Err(self.err(pos, c, &ctx));
                    }
                    self.state = if at as usize + 1 == word.len() {
                        St::EndValue
                    } else {
                        St::Lit(word, at + 1)
                    };
                    return Ok(());
                }
            }
        }
    }
}

const UNEXPECTED_END: &str = "unexpected end of JSON input";

/// Checks that `data` is one JSON value, reporting the first problem as Go does.
fn validate(data: &[u8], dialect: Dialect) -> Result<(), JsonError> {
    let mut s = Scanner {
        data,
        dialect,
        state: St::BeginValue,
        stack: Vec::new(),
        end_top: false,
        esc_start: 0,
    };
    let mut pos = 0;
    while let Some(&c) = data.get(pos) {
        s.step(pos, c)?;
        pos += 1;
        // Inside a string, every byte but a quote, a backslash or a control
        // character leaves the scanner as it was; strings are most of a document
        // (nats' `tplYaml` decodes its own JSON at every level), so those runs are
        // skipped here rather than stepped through one at a time.
        if matches!(s.state, St::InString) {
            let rest = &data[pos..];
            pos += rest
                .iter()
                .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
                .unwrap_or(rest.len());
        }
    }
    if s.end_top {
        return Ok(());
    }
    // Go's classic scanner feeds a space at the end, which completes a trailing
    // number or fails in the state it was left in; json/v2 calls every unfinished
    // document truncated.
    let fed = s.step(data.len(), b' ');
    if s.end_top {
        return Ok(());
    }
    match (dialect, fed) {
        (Dialect::V1, Err(e)) => Err(e),
        _ => Err(JsonError::Syntax(UNEXPECTED_END.to_string())),
    }
}

// ---- building values from validated input ----------------------------------------------

enum Frame {
    Array(Vec<Value>),
    /// An object under construction and, once read, the key whose value comes next.
    Object(BTreeMap<String, Value>, Option<String>),
}

struct Builder<'a> {
    data: &'a [u8],
    pos: usize,
    dialect: Dialect,
    stack: Vec<Frame>,
    error: Option<JsonError>,
}

impl Builder<'_> {
    fn skip_space(&mut self) {
        while self.pos < self.data.len() && is_space(self.data[self.pos]) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> u8 {
        self.data.get(self.pos).copied().unwrap_or(0)
    }

    /// Where the value being built sits, as json/v2 names it in type errors: the
    /// JSON Pointer tokens (`~0`, `~1` escaped) joined with dots, and whether the
    /// innermost container is an object.
    fn path(&self) -> (String, bool) {
        let mut tokens = Vec::with_capacity(self.stack.len());
        let mut in_object = false;
        for f in &self.stack {
            match f {
                Frame::Array(items) => {
                    tokens.push(items.len().to_string());
                    in_object = false;
                }
                Frame::Object(_, key) => {
                    let k = key.as_deref().unwrap_or("");
                    tokens.push(k.replace('~', "~0").replace('/', "~1"));
                    in_object = true;
                }
            }
        }
        (tokens.join("."), in_object)
    }

    fn number(&mut self) -> Value {
        let start = self.pos;
        while self.pos < self.data.len()
            && matches!(
                self.data[self.pos],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.pos += 1;
        }
        let text = String::from_utf8_lossy(&self.data[start..self.pos]).into_owned();
        if let Ok(f) = text.parse::<f64>() {
            if f.is_finite() {
                return Value::Float(f);
            }
        }
        // Only magnitudes beyond float64 get here: Go's ParseFloat reports a range
        // error and the decoder records the first such value.
        if self.error.is_none() {
            let into = match self.dialect {
                Dialect::V1 => "Go value".to_string(),
                Dialect::V2 => match self.path() {
                    (p, _) if p.is_empty() => "Go value".to_string(),
                    (p, true) => format!("Go struct field .{p}"),
                    (p, false) => format!(".{p}"),
                },
            };
            self.error = Some(JsonError::UnmarshalType(format!(
                "json: cannot unmarshal number {text} into {into} of type float64"
            )));
        }
        match self.dialect {
            Dialect::V1 => Value::Nil,
            Dialect::V2 => Value::Float(0.0),
        }
    }

    /// A string literal at `pos` (known to be well formed), unescaped.
    fn string(&mut self) -> String {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        while self.pos < self.data.len() {
            let c = self.data[self.pos];
            if c == b'"' {
                self.pos += 1;
                break;
            }
            if c != b'\\' {
                out.push(c);
                self.pos += 1;
                continue;
            }
            let e = self.data.get(self.pos + 1).copied().unwrap_or(b'"');
            self.pos += 2;
            let simple = match e {
                b'b' => Some(8),
                b'f' => Some(12),
                b'n' => Some(b'\n'),
                b'r' => Some(b'\r'),
                b't' => Some(b'\t'),
                b'u' => None,
                other => Some(other),
            };
            if let Some(b) = simple {
                out.push(b);
                continue;
            }
            let r = self.hex4(self.pos);
            self.pos += 4;
            let ch = if (0xD800..0xE000).contains(&r) {
                // A high surrogate must be followed by a low one; otherwise Go writes
                // U+FFFD for it and decodes what follows on its own.
                let next_is_u = self.data.get(self.pos) == Some(&b'\\')
                    && self.data.get(self.pos + 1) == Some(&b'u');
                let lo = if next_is_u {
                    self.hex4(self.pos + 2)
                } else {
                    0
                };
                if (0xD800..0xDC00).contains(&r) && (0xDC00..0xE000).contains(&lo) {
                    self.pos += 6;
                    char::from_u32(0x10000 + ((r - 0xD800) << 10) + (lo - 0xDC00))
                        .unwrap_or('\u{FFFD}')
                } else {
                    '\u{FFFD}'
                }
            } else {
                char::from_u32(r).unwrap_or('\u{FFFD}')
            };
            let mut tmp = [0u8; 4];
            out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
        }
        match String::from_utf8(out) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        }
    }

    fn hex4(&self, at: usize) -> u32 {
        let mut v = 0u32;
        for k in 0..4 {
            let d = self.data.get(at + k).copied().unwrap_or(b'0');
            v = v * 16 + char::from(d).to_digit(16).unwrap_or(0);
        }
        v
    }

    /// Stores a finished value into the enclosing container, or returns it when it
    /// is the document itself.
    fn finish(&mut self, v: Value) -> Option<Value> {
        match self.stack.last_mut() {
            None => Some(v),
            Some(Frame::Array(items)) => {
                items.push(v);
                None
            }
            Some(Frame::Object(map, key)) => {
                map.insert(key.take().unwrap_or_default(), v);
                None
            }
        }
    }

    fn run(&mut self) -> Value {
        loop {
            self.skip_space();
            // Separators, closers and keys, according to the open container.
            let closed = match self.stack.last_mut() {
                Some(Frame::Object(_, key)) if key.is_none() => {
                    if self.peek() == b'}' {
                        self.pos += 1;
                        true
                    } else {
                        if self.peek() == b',' {
                            self.pos += 1;
                            self.skip_space();
                        }
                        let k = self.string();
                        self.skip_space();
                        self.pos += 1; // ':'
                        self.skip_space();
                        if let Some(Frame::Object(_, key)) = self.stack.last_mut() {
                            *key = Some(k);
                        }
                        false
                    }
                }
                Some(Frame::Array(_)) => {
                    if self.peek() == b']' {
                        self.pos += 1;
                        true
                    } else {
                        if self.peek() == b',' {
                            self.pos += 1;
                            self.skip_space();
                        }
                        false
                    }
                }
                _ => false,
            };
            let v = if closed {
                match self.stack.pop() {
                    Some(Frame::Object(map, _)) => Value::Map(Map::from_btree(map)),
                    Some(Frame::Array(items)) => Value::List(List::new(items)),
                    None => Value::Nil,
                }
            } else {
                match self.peek() {
                    b'{' => {
                        self.pos += 1;
                        self.stack.push(Frame::Object(BTreeMap::new(), None));
                        continue;
                    }
                    b'[' => {
                        self.pos += 1;
                        self.stack.push(Frame::Array(Vec::new()));
                        continue;
                    }
                    b'"' => Value::str(self.string()),
                    b't' => {
                        self.pos += 4;
                        Value::Bool(true)
                    }
                    b'f' => {
                        self.pos += 5;
                        Value::Bool(false)
                    }
                    b'n' => {
                        self.pos += 4;
                        Value::Nil
                    }
                    _ if self.pos >= self.data.len() => return Value::Nil,
                    _ => self.number(),
                }
            };
            if let Some(done) = self.finish(v) {
                return done;
            }
        }
    }
}

/// Builds the value of a validated document; the error is the first value that did
/// not fit (an out-of-range number).
fn build(data: &[u8], dialect: Dialect) -> (Value, Option<JsonError>) {
    let mut b = Builder {
        data,
        pos: 0,
        dialect,
        stack: Vec::new(),
        error: None,
    };
    let v = b.run();
    (v, b.error)
}

#[cfg(test)]
mod tests;
