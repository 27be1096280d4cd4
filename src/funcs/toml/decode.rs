//! TOML decoding for Helm 4's `fromToml`, following BurntSushi/toml v1.6.0: its
//! value types (`int64`, `float64`, `time.Time`, `[]interface{}`), its table rules
//! (implicit tables may be defined once explicitly, keys never twice) and its error
//! texts, framed as `toml: line N (last key "k"): message`.
//!
//! The library lexes and parses in one pass, reporting the first problem in file
//! order; this parser has the same shape, so the same error wins.

use std::collections::HashSet;
use std::sync::Arc;

use crate::template::{Kind, List, Map, Object, Value};

/// A Go `time.Time` decoded from a TOML date or time.
#[derive(Clone, Debug)]
pub struct GoTime {
    pub year: i64,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
    pub nanos: u32,
    /// Offset east of UTC in seconds.
    pub offset: i32,
    /// Zone name as Go prints it (`UTC`, `datetime-local`, or empty for a
    /// fabricated fixed zone).
    pub zone: String,
}

impl GoTime {
    fn offset_text(&self, colon: bool) -> String {
        let sign = if self.offset < 0 { '-' } else { '+' };
        let o = self.offset.abs();
        if colon {
            format!("{sign}{:02}:{:02}", o / 3600, (o % 3600) / 60)
        } else {
            format!("{sign}{:02}{:02}", o / 3600, (o % 3600) / 60)
        }
    }

    fn frac(&self) -> String {
        if self.nanos == 0 {
            return String::new();
        }
        let s = format!(".{:09}", self.nanos);
        s.trim_end_matches('0').to_string()
    }

    /// Go `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
    pub fn go_string(&self) -> String {
        let zone = if self.zone.is_empty() {
            self.offset_text(false)
        } else {
            self.zone.clone()
        };
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}{} {} {}",
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.frac(),
            self.offset_text(false),
            zone
        )
    }

    /// Go `Time.MarshalJSON` text (RFC 3339 with nanoseconds).
    pub fn rfc3339(&self) -> String {
        let off = if self.offset == 0 {
            "Z".to_string()
        } else {
            self.offset_text(true)
        };
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{}",
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.frac(),
            off
        )
    }
}

impl Object for GoTime {
    fn type_name(&self) -> String {
        "time.Time".to_string()
    }

    fn kind(&self) -> Kind {
        Kind::Struct
    }

    fn fmt_v(&self, _plus: bool) -> String {
        self.go_string()
    }

    fn to_json_value(&self) -> Value {
        Value::from(self.rfc3339())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Go's `%q` of a rune.
fn quote_rune(c: char) -> String {
    match c {
        '\n' => "'\\n'".to_string(),
        '\t' => "'\\t'".to_string(),
        '\r' => "'\\r'".to_string(),
        '\'' => "'\\''".to_string(),
        '\\' => "'\\\\'".to_string(),
        c if (c as u32) < 0x20 || c as u32 == 0x7F => format!("'\\x{:02x}'", c as u32),
        c => format!("'{c}'"),
    }
}

fn go_quote(s: &str) -> String {
    crate::funcs::codec::yaml::go_quote(s)
}

fn bare_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| {
            if k.is_empty() {
                "\"\"".to_string()
            } else if k.chars().all(bare_key_char) {
                k.clone()
            } else {
                format!("\"{}\"", k.replace('\\', "\\\\").replace('"', "\\\""))
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind2 {
    Table,
    ArrayTables,
    Value,
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    root: Map,
    context: Vec<String>,
    current_key: String,
    implicit: HashSet<Vec<String>>,
    explicit_tables: HashSet<Vec<String>>,
    kinds: std::collections::HashMap<Vec<String>, Kind2>,
}

type R<T> = Result<T, String>;

pub fn parse(text: &str) -> R<Value> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
        root: Map::new(),
        context: Vec::new(),
        current_key: String::new(),
        implicit: HashSet::new(),
        explicit_tables: HashSet::new(),
        kinds: std::collections::HashMap::new(),
    };
    p.top()?;
    Ok(Value::Map(p.root))
}

impl<'a> Parser<'a> {
    fn line_at(&self, pos: usize) -> usize {
        1 + self.s[..pos.min(self.s.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn current(&self) -> String {
        if self.current_key.is_empty() {
            return key_string(&self.context);
        }
        if self.context.is_empty() {
            return key_string(std::slice::from_ref(&self.current_key));
        }
        format!(
            "{}.{}",
            key_string(&self.context),
            key_string(std::slice::from_ref(&self.current_key))
        )
    }

    fn err_at(&self, pos: usize, msg: impl Into<String>) -> String {
        let line = self.line_at(pos);
        let last = self.current();
        if last.is_empty() {
            format!("toml: line {line}: {}", msg.into())
        } else {
            format!(
                "toml: line {line} (last key {}): {}",
                go_quote(&last),
                msg.into()
            )
        }
    }

    fn err(&self, msg: impl Into<String>) -> String {
        self.err_at(self.pos, msg)
    }

    /// An error reported at the end of the previous line (libraries do this for
    /// problems found at a newline).
    fn err_prev_line(&self, msg: impl Into<String>) -> String {
        self.err_at(self.pos.saturating_sub(1), msg)
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn peek_at(&self, k: usize) -> Option<u8> {
        self.s.get(self.pos + k).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
    }

    fn skip_comment(&mut self) -> R<()> {
        while let Some(c) = self.peek() {
            if c == '\n' || (c == '\r' && self.peek_at(1) == Some(b'\n')) {
                break;
            }
            if (c as u32) < 0x20 && c != '\t' || c as u32 == 0x7F {
                return Err(self.err(format!(
                    "control characters are not allowed: '\\x{:02x}'",
                    c as u32
                )));
            }
            self.bump();
        }
        Ok(())
    }

    fn is_nl(&self) -> bool {
        self.peek() == Some('\n') || (self.peek() == Some('\r') && self.peek_at(1) == Some(b'\n'))
    }

    fn top(&mut self) -> R<()> {
        loop {
            // lexTop: skip whitespace and newlines.
            while let Some(c) = self.peek() {
                if c == ' '
                    || c == '\t'
                    || c == '\n'
                    || (c == '\r' && self.peek_at(1) == Some(b'\n'))
                {
                    self.bump();
                } else {
                    break;
                }
            }
            match self.peek() {
                None => return Ok(()),
                Some('#') => {
                    self.bump();
                    self.skip_comment()?;
                    continue;
                }
                Some('[') => {
                    self.bump();
                    self.table_header()?;
                }
                Some(_) => {
                    self.key_value_top()?;
                }
            }
            // lexTopEnd
            self.skip_ws();
            match self.peek() {
                None => return Ok(()),
                Some('#') => {
                    self.bump();
                    self.skip_comment()?;
                }
                Some(_) if self.is_nl() => {}
                Some(c) => {
                    return Err(self.err(format!(
                        "expected a top-level item to end with a newline, comment, or EOF, but got {} instead",
                        quote_rune(c)
                    )))
                }
            }
        }
    }

    fn table_header(&mut self) -> R<()> {
        let start = self.pos - 1;
        let array = if self.peek() == Some('[') {
            self.bump();
            true
        } else {
            false
        };
        let mut key = Vec::new();
        loop {
            self.skip_ws();
            match self.peek() {
                Some(']') if key.is_empty() => {
                    return Err(
                        self.err("unexpected end of table name (table names cannot be empty)")
                    )
                }
                Some('.') if key.is_empty() => {
                    return Err(self.err("unexpected table separator (table names cannot be empty)"))
                }
                _ => {}
            }
            key.push(self.key_part()?);
            self.skip_ws();
            match self.bump() {
                Some('.') => continue,
                Some(']') => {
                    if array {
                        if self.peek() == Some(']') {
                            self.bump();
                        } else {
                            let c = self.peek();
                            return Err(self.err(format!(
                                "expected end of table array name delimiter ']', but got {} instead",
                                c.map_or("EOF".to_string(), quote_rune)
                            )));
                        }
                    }
                    break;
                }
                Some(c) => {
                    self.pos -= c.len_utf8();
                    return Err(self.err(format!(
                        "expected '.' or ']' to end table name, but got {} instead",
                        quote_rune(c)
                    )));
                }
                None => {
                    return Err(
                        self.err("expected '.' or ']' to end table name, but got EOF instead")
                    )
                }
            }
        }
        self.current_key.clear();
        self.add_context(&key, array, start)?;
        Ok(())
    }

    /// One part of a key: bare, "basic" or 'literal'.
    fn key_part(&mut self) -> R<String> {
        match self.peek() {
            Some('"') => {
                self.bump();
                self.basic_string()
            }
            Some('\'') => {
                self.bump();
                self.literal_string()
            }
            _ => {
                let st = self.pos;
                while matches!(self.peek(), Some(c) if bare_key_char(c)) {
                    self.bump();
                }
                Ok(self.text[st..self.pos].to_string())
            }
        }
    }

    fn read_key(&mut self) -> R<Vec<String>> {
        self.skip_ws();
        match self.peek() {
            Some('=') | None => return Err(self.err("unexpected '=': key name appears blank")),
            Some('.') => return Err(self.err("unexpected '.': keys cannot start with a '.'")),
            _ => {}
        }
        let mut key = Vec::new();
        loop {
            self.skip_ws();
            key.push(self.key_part()?);
            self.skip_ws();
            match self.peek() {
                Some('.') => {
                    self.bump();
                }
                Some('=') => {
                    self.bump();
                    return Ok(key);
                }
                None => return Err(self.err("unexpected EOF; expected key separator '='")),
                Some(c) => {
                    if c == '\n' {
                        return Err(self.err_prev_line(format!(
                            "expected '.' or '=', but got {} instead",
                            quote_rune(c)
                        )));
                    }
                    return Err(self.err(format!(
                        "expected '.' or '=', but got {} instead",
                        quote_rune(c)
                    )));
                }
            }
        }
    }

    fn key_value_top(&mut self) -> R<()> {
        let outer = self.context.clone();
        let key_pos = self.pos;
        let key = self.read_key()?;
        let (last, parents) = key
            .split_last()
            .map(|(l, p)| (l.clone(), p.to_vec()))
            .unwrap_or_default();
        self.current_key = last.clone();
        for part in &parents {
            let mut c = self.context.clone();
            c.push(part.clone());
            self.add_implicit_context(&c, key_pos)?;
        }
        let value = self.value()?;
        self.set_value(&last, value, key_pos)?;
        self.context = outer;
        self.current_key.clear();
        Ok(())
    }

    /// Walks `path` from the root, returning the table it names (the last element
    /// of an array of tables), creating nothing.
    fn table_at(&self, path: &[String]) -> Option<Map> {
        let mut cur = self.root.clone();
        for k in path {
            let next = cur.get(k)?;
            cur = match next {
                Value::Map(m) => m,
                Value::List(l) => match l.items().last() {
                    Some(Value::Map(m)) => m.clone(),
                    _ => return None,
                },
                _ => return None,
            };
        }
        Some(cur)
    }

    fn add_implicit_context(&mut self, path: &[String], pos: usize) -> R<()> {
        // Entering a dotted-key parent: create it as an implicit table if needed.
        let (last, parent) = match path.split_last() {
            Some(x) => x,
            None => return Ok(()),
        };
        let Some(table) = self.table_at(parent) else {
            return Err(self.err_at(
                pos,
                format!("Key '{}' has already been defined.", key_string(parent)),
            ));
        };
        match table.get(last) {
            None => {
                table.insert(last.clone(), Value::Map(Map::new()));
                self.implicit.insert(path.to_vec());
                self.kinds.insert(path.to_vec(), Kind2::Table);
            }
            Some(Value::Map(_)) => {}
            Some(Value::List(_)) if self.kinds.get(path) == Some(&Kind2::ArrayTables) => {}
            Some(_) => {
                return Err(self.err_at(
                    pos,
                    format!("Key '{}' has already been defined.", key_string(path)),
                ));
            }
        }
        self.context = path.to_vec();
        Ok(())
    }

    fn add_context(&mut self, key: &[String], array: bool, pos: usize) -> R<()> {
        let Some((last, parents)) = key.split_last() else {
            return Ok(());
        };
        let mut cur = self.root.clone();
        let mut key_context: Vec<String> = Vec::new();
        for k in parents {
            key_context.push(k.clone());
            if cur.get(k).is_none() {
                self.implicit.insert(key_context.clone());
                self.kinds.insert(key_context.clone(), Kind2::Table);
                cur.insert(k.clone(), Value::Map(Map::new()));
            }
            cur = match cur.get(k) {
                Some(Value::List(l))
                    if self.kinds.get(&key_context) == Some(&Kind2::ArrayTables) =>
                {
                    match l.items().last() {
                        Some(Value::Map(m)) => m.clone(),
                        _ => {
                            return Err(self.err_at(
                                pos,
                                format!(
                                    "Key '{}' was already created as a hash.",
                                    key_string(&key_context)
                                ),
                            ))
                        }
                    }
                }
                Some(Value::Map(m)) => m,
                _ => {
                    return Err(self.err_at(
                        pos,
                        format!(
                            "Key '{}' was already created as a hash.",
                            key_string(&key_context)
                        ),
                    ))
                }
            };
        }
        self.context = key_context.clone();
        let mut full = key_context.clone();
        full.push(last.clone());
        if array {
            match cur.get(last) {
                None => {
                    cur.insert(
                        last.clone(),
                        Value::List(List::new(vec![Value::Map(Map::new())])),
                    );
                    self.kinds.insert(full.clone(), Kind2::ArrayTables);
                }
                Some(Value::List(l)) if self.kinds.get(&full) == Some(&Kind2::ArrayTables) => {
                    let mut items = l.to_vec();
                    items.push(Value::Map(Map::new()));
                    cur.insert(last.clone(), Value::List(List::new(items)));
                    // Tables below a new array element start fresh.
                    self.explicit_tables
                        .retain(|t| !t.starts_with(&full) || t.len() == full.len());
                    self.implicit
                        .retain(|t| !t.starts_with(&full) || t.len() == full.len());
                }
                Some(_) => {
                    return Err(self.err_at(
                        pos,
                        format!(
                            "Key '{}' was already created and cannot be used as an array.",
                            key_string(key)
                        ),
                    ))
                }
            }
        } else {
            match cur.get(last) {
                None => {
                    cur.insert(last.clone(), Value::Map(Map::new()));
                    self.kinds.insert(full.clone(), Kind2::Table);
                    self.explicit_tables.insert(full.clone());
                }
                Some(Value::Map(_)) if self.implicit.contains(&full) => {
                    self.implicit.remove(&full);
                    self.explicit_tables.insert(full.clone());
                }
                Some(_) => {
                    return Err(self.err_at(
                        pos,
                        format!("Key '{}' has already been defined.", key_string(&full)),
                    ))
                }
            }
        }
        self.context = full;
        Ok(())
    }

    fn set_value(&mut self, key: &str, value: Value, pos: usize) -> R<()> {
        let Some(table) = self.table_at(&self.context) else {
            return Err(self.err_at(
                pos,
                format!(
                    "Key '{}' has already been defined.",
                    key_string(&self.context)
                ),
            ));
        };
        let mut full = self.context.clone();
        full.push(key.to_string());
        if table.get(key).is_some() {
            return Err(self.err_at(
                pos,
                format!("Key '{}' has already been defined.", key_string(&full)),
            ));
        }
        table.insert(key.to_string(), value);
        self.kinds.insert(full, Kind2::Value);
        Ok(())
    }

    // ---- values -------------------------------------------------------------------

    fn value(&mut self) -> R<Value> {
        self.skip_ws();
        let start = self.pos;
        let Some(c) = self.peek() else {
            return Err(self.err("unexpected EOF; expected value"));
        };
        match c {
            '[' => {
                self.bump();
                self.array()
            }
            '{' => {
                self.bump();
                self.inline_table()
            }
            '"' => {
                self.bump();
                if self.peek() == Some('"') && self.peek_at(1) == Some(b'"') {
                    self.pos += 2;
                    let s = self.multiline_basic()?;
                    return Ok(Value::from(s));
                }
                Ok(Value::from(self.basic_string()?))
            }
            '\'' => {
                self.bump();
                if self.peek() == Some('\'') && self.peek_at(1) == Some(b'\'') {
                    self.pos += 2;
                    let s = self.multiline_literal()?;
                    return Ok(Value::from(s));
                }
                Ok(Value::from(self.literal_string()?))
            }
            '.' => Err(self.err("floats must start with a digit, not '.'")),
            '0'..='9' | '+' | '-' => self.number_or_date(start),
            'i' | 'n'
                if self.text[self.pos..].starts_with("inf")
                    || self.text[self.pos..].starts_with("nan") =>
            {
                self.pos += 3;
                self.float(start)
            }
            c if c.is_alphabetic() => {
                let st = self.pos;
                while matches!(self.peek(), Some(c) if c.is_alphabetic()) {
                    self.bump();
                }
                match &self.text[st..self.pos] {
                    "true" => Ok(Value::Bool(true)),
                    "false" => Ok(Value::Bool(false)),
                    w => Err(self.err(format!("expected value but found {} instead", go_quote(w)))),
                }
            }
            '\n' => Err(self.err_prev_line(format!(
                "expected value but found {} instead",
                quote_rune(c)
            ))),
            c => Err(self.err(format!(
                "expected value but found {} instead",
                quote_rune(c)
            ))),
        }
    }

    fn array(&mut self) -> R<Value> {
        let mut items = Vec::new();
        loop {
            // lexArrayValue
            loop {
                match self.peek() {
                    Some(' ' | '\t' | '\n') => {
                        self.bump();
                    }
                    Some('\r') if self.peek_at(1) == Some(b'\n') => {
                        self.bump();
                    }
                    Some('#') => {
                        self.bump();
                        self.skip_comment()?;
                    }
                    _ => break,
                }
            }
            match self.peek() {
                Some(',') => return Err(self.err("unexpected comma")),
                Some(']') => {
                    self.bump();
                    return Ok(Value::List(List::new(items)));
                }
                _ => {}
            }
            items.push(self.value()?);
            // lexArrayValueEnd
            loop {
                match self.peek() {
                    Some(' ' | '\t' | '\n') => {
                        self.bump();
                    }
                    Some('\r') if self.peek_at(1) == Some(b'\n') => {
                        self.bump();
                    }
                    Some('#') => {
                        self.bump();
                        self.skip_comment()?;
                    }
                    _ => break,
                }
            }
            match self.bump() {
                Some(',') => continue,
                Some(']') => return Ok(Value::List(List::new(items))),
                Some(c) => {
                    self.pos -= c.len_utf8();
                    return Err(self.err(format!(
                        "expected a comma (',') or array terminator (']'), but got '{c}'"
                    )));
                }
                None => {
                    return Err(self.err(
                        "expected a comma (',') or array terminator (']'), but got end of file",
                    ))
                }
            }
        }
    }

    fn skip_ws_nl_comments(&mut self) -> R<()> {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\n') => {
                    self.bump();
                }
                Some('\r') if self.peek_at(1) == Some(b'\n') => {
                    self.bump();
                }
                Some('#') => {
                    self.bump();
                    self.skip_comment()?;
                }
                _ => return Ok(()),
            }
        }
    }

    fn inline_table(&mut self) -> R<Value> {
        let table = Map::new();
        let outer_context = self.context.clone();
        let outer_key = self.current_key.clone();
        let mut defined: HashSet<Vec<String>> = HashSet::new();
        loop {
            self.skip_ws_nl_comments()?;
            match self.peek() {
                Some(',') => return Err(self.err("unexpected comma")),
                Some('}') => {
                    self.bump();
                    break;
                }
                _ => {}
            }
            let key_pos = self.pos;
            let key = self.read_key()?;
            let Some((last, parents)) = key.split_last() else {
                break;
            };
            self.current_key = last.clone();
            let mut cur = table.clone();
            for (i, p) in parents.iter().enumerate() {
                let sub = match cur.get(p) {
                    None => {
                        let m = Map::new();
                        cur.insert(p.clone(), Value::Map(m.clone()));
                        m
                    }
                    Some(Value::Map(m)) if !defined.contains(&key[..=i]) => m,
                    _ => {
                        let mut ctx = outer_context.clone();
                        ctx.push(outer_key.clone());
                        ctx.extend(key[..=i].iter().cloned());
                        return Err(self.err_at(
                            key_pos,
                            format!("Key '{}' has already been defined.", key_string(&ctx)),
                        ));
                    }
                };
                cur = sub;
            }
            let v = self.value()?;
            if cur.get(last).is_some() {
                let mut ctx = outer_context.clone();
                ctx.push(outer_key.clone());
                ctx.extend(key.iter().cloned());
                return Err(self.err_at(
                    key_pos,
                    format!("Key '{}' has already been defined.", key_string(&ctx)),
                ));
            }
            cur.insert(last.clone(), v);
            defined.insert(key.clone());
            // lexInlineTableValueEnd
            self.skip_ws_nl_comments()?;
            match self.bump() {
                Some(',') => {
                    self.skip_ws();
                    if self.peek() == Some('}') {
                        self.bump();
                        break;
                    }
                }
                Some('}') => break,
                Some(c) => {
                    self.pos -= c.len_utf8();
                    return Err(self.err(format!(
                        "expected a comma or an inline table terminator '}}', but got '{c}' instead"
                    )));
                }
                None => {
                    return Err(self.err(
                        "expected a comma or an inline table terminator '}', but got end of file instead",
                    ))
                }
            }
        }
        self.context = outer_context;
        self.current_key = outer_key;
        Ok(Value::Map(table))
    }

    fn hex_escape(&mut self, n: usize, what: &str, start_esc: usize) -> R<char> {
        let st = self.pos;
        for _ in 0..n {
            match self.peek() {
                Some(c) if c.is_ascii_hexdigit() => {
                    self.bump();
                }
                _ => {
                    self.bump();
                    let cur = &self.text[start_esc..self.pos.min(self.text.len())];
                    return Err(self.err(format!(
                        "expected {what} hexadecimal digits after '\\{}', but got {} instead",
                        match n {
                            2 => 'x',
                            4 => 'u',
                            _ => 'U',
                        },
                        go_quote(cur)
                    )));
                }
            }
        }
        let v = u32::from_str_radix(&self.text[st..self.pos], 16).unwrap_or(0xFFFD);
        match char::from_u32(v) {
            Some(c) => Ok(c),
            None => Err(self.err(format!(
                "Escaped character '\\u{}' is not valid UTF-8.",
                &self.text[st..self.pos]
            ))),
        }
    }

    fn escape(&mut self, out: &mut String) -> R<()> {
        let start_esc = self.pos;
        match self.bump() {
            Some('b') => out.push('\u{8}'),
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('f') => out.push('\u{c}'),
            Some('r') => out.push('\r'),
            Some('e') => out.push('\u{1b}'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('x') => out.push(self.hex_escape(2, "two", start_esc)?),
            Some('u') => out.push(self.hex_escape(4, "four", start_esc)?),
            Some('U') => out.push(self.hex_escape(8, "eight", start_esc)?),
            Some(c) => return Err(self.err(format!("invalid escape in string '\\{c}'"))),
            None => return Err(self.err("unexpected EOF; expected '\"'")),
        }
        Ok(())
    }

    fn basic_string(&mut self) -> R<String> {
        let mut out = String::new();
        loop {
            match self.bump() {
                None => return Err(self.err("unexpected EOF; expected '\"'")),
                Some('\n') => return Err(self.err_prev_line("strings cannot contain newlines")),
                Some('\r') if self.peek() == Some('\n') => {
                    return Err(self.err_prev_line("strings cannot contain newlines"))
                }
                Some('\\') => self.escape(&mut out)?,
                Some('"') => return Ok(out),
                Some(c) if ((c as u32) < 0x20 && c != '\t') || c as u32 == 0x7F => {
                    return Err(self.err(format!(
                        "control characters are not allowed: '\\x{:02x}'",
                        c as u32
                    )))
                }
                Some(c) => out.push(c),
            }
        }
    }

    fn literal_string(&mut self) -> R<String> {
        let st = self.pos;
        loop {
            match self.bump() {
                None => return Err(self.err("unexpected EOF; expected \"'\"")),
                Some('\n') => return Err(self.err_prev_line("strings cannot contain newlines")),
                Some('\'') => return Ok(self.text[st..self.pos - 1].to_string()),
                Some(_) => {}
            }
        }
    }

    fn multiline_basic(&mut self) -> R<String> {
        // A newline right after the opening quotes is trimmed.
        if self.peek() == Some('\n') {
            self.bump();
        } else if self.peek() == Some('\r') && self.peek_at(1) == Some(b'\n') {
            self.pos += 2;
        }
        let mut out = String::new();
        loop {
            if self.text[self.pos..].starts_with("\"\"\"") {
                let mut n = 3;
                while self.text[self.pos + n..].starts_with('"') && n < 5 {
                    n += 1;
                }
                if self.text[self.pos + n..].starts_with('"') {
                    return Err(self.err("unexpected '\"\"\"\"\"\"'"));
                }
                for _ in 3..n {
                    out.push('"');
                }
                self.pos += n;
                return Ok(out);
            }
            match self.bump() {
                None => return Err(self.err("unexpected EOF; expected '\"\"\"'")),
                Some('\\') => {
                    // Line-ending backslash: trim the newline and following whitespace.
                    let save = self.pos;
                    while matches!(self.peek(), Some(' ' | '\t')) {
                        self.bump();
                    }
                    if self.is_nl() {
                        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
                            self.bump();
                        }
                    } else {
                        self.pos = save;
                        self.escape(&mut out)?;
                    }
                }
                Some('\r') if self.peek() == Some('\n') => {}
                Some(c) => out.push(c),
            }
        }
    }

    fn multiline_literal(&mut self) -> R<String> {
        if self.peek() == Some('\n') {
            self.bump();
        } else if self.peek() == Some('\r') && self.peek_at(1) == Some(b'\n') {
            self.pos += 2;
        }
        let mut out = String::new();
        loop {
            if self.text[self.pos..].starts_with("'''") {
                let mut n = 3;
                while self.text[self.pos + n..].starts_with('\'') && n < 5 {
                    n += 1;
                }
                if self.text[self.pos + n..].starts_with('\'') {
                    return Err(self.err("unexpected \"''''''\""));
                }
                for _ in 3..n {
                    out.push('\'');
                }
                self.pos += n;
                return Ok(out);
            }
            match self.bump() {
                None => return Err(self.err("unexpected EOF; expected \"'''\"")),
                Some('\r') if self.peek() == Some('\n') => {}
                Some(c) => out.push(c),
            }
        }
    }

    fn number_or_date(&mut self, start: usize) -> R<Value> {
        let first = self.bump().unwrap_or('0');
        if first == '+' || first == '-' {
            match self.peek() {
                Some('i') => {
                    if self.text[self.pos..].starts_with("inf") {
                        self.pos += 3;
                        return self.float(start);
                    }
                    self.bump();
                    return Err(
                        self.err(format!("invalid float: '{}'", &self.text[start..self.pos]))
                    );
                }
                Some('n') => {
                    if self.text[self.pos..].starts_with("nan") {
                        self.pos += 3;
                        return self.float(start);
                    }
                    self.bump();
                    return Err(
                        self.err(format!("invalid float: '{}'", &self.text[start..self.pos]))
                    );
                }
                Some('0') if matches!(self.peek_at(1), Some(b'b' | b'o' | b'x')) => {
                    let p = self.peek_at(1).map(|b| b as char).unwrap_or('x');
                    self.bump();
                    return Err(self.err(format!(
                        "cannot use sign with non-decimal numbers: '{}{p}'",
                        &self.text[start..self.pos]
                    )));
                }
                Some('.') => return Err(self.err("floats must start with a digit, not '.'")),
                Some(c) if c.is_ascii_digit() => {}
                Some(c) => {
                    return Err(self.err(format!("expected a digit but got {}", quote_rune(c))))
                }
                None => return Err(self.err("expected a digit but got EOF")),
            }
            return self.decimal(start);
        }
        if first == '0' {
            if let Some('b' | 'o' | 'x') = self.peek() {
                let base = self.bump().unwrap_or('x');
                let ok = |c: char| match base {
                    'b' => c == '0' || c == '1',
                    'o' => ('0'..='7').contains(&c),
                    _ => c.is_ascii_hexdigit(),
                };
                while matches!(self.peek(), Some(c) if ok(c) || c == '_') {
                    self.bump();
                }
                return self.integer(start);
            }
        }
        // Digits, then decide: datetime, float or integer.
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_digit() => {
                    self.bump();
                }
                Some('-' | ':') => return self.datetime(start),
                Some('_') => return self.decimal(start),
                Some('.' | 'e' | 'E') => {
                    self.bump();
                    return self.float_rest(start);
                }
                _ => return self.integer(start),
            }
        }
    }

    fn decimal(&mut self, start: usize) -> R<Value> {
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_digit() || c == '_' => {
                    self.bump();
                }
                Some('.' | 'e' | 'E') => {
                    self.bump();
                    return self.float_rest(start);
                }
                _ => return self.integer(start),
            }
        }
    }

    fn float_rest(&mut self, start: usize) -> R<Value> {
        while matches!(self.peek(), Some(c) if c.is_ascii_digit() || matches!(c, '_' | '.' | '-' | '+' | 'e' | 'E'))
        {
            self.bump();
        }
        self.float(start)
    }

    fn integer(&mut self, start: usize) -> R<Value> {
        let s = &self.text[start..self.pos];
        if !underscores_ok(s) {
            return Err(self.err_at(
                start,
                format!(
                    "Invalid integer {}: underscores must be surrounded by digits",
                    go_quote(s)
                ),
            ));
        }
        if has_leading_zero(s) {
            return Err(self.err_at(
                start,
                format!(
                    "Invalid integer {}: cannot have leading zeroes",
                    go_quote(s)
                ),
            ));
        }
        let clean: String = s.chars().filter(|&c| c != '_').collect();
        let (neg, digits) = match clean.as_bytes().first() {
            Some(b'-') => (true, &clean[1..]),
            Some(b'+') => (false, &clean[1..]),
            _ => (false, clean.as_str()),
        };
        let (radix, body) = if let Some(r) = digits.strip_prefix("0x") {
            (16, r)
        } else if let Some(r) = digits.strip_prefix("0o") {
            (8, r)
        } else if let Some(r) = digits.strip_prefix("0b") {
            (2, r)
        } else {
            (10, digits)
        };
        let parsed = i128::from_str_radix(body, radix)
            .ok()
            .map(|v| if neg { -v } else { v })
            .filter(|v| *v >= i64::MIN as i128 && *v <= i64::MAX as i128);
        match parsed {
            Some(v) => Ok(Value::int64(v as i64)),
            None => Err(self.err_at(start, format!("{s} is out of range for int64"))),
        }
    }

    fn float(&mut self, start: usize) -> R<Value> {
        let s = &self.text[start..self.pos];
        let parts: Vec<&str> = s.split(['.', 'e', 'E']).filter(|p| !p.is_empty()).collect();
        for p in &parts {
            if !underscores_ok(p) {
                return Err(self.err_at(
                    start,
                    format!(
                        "Invalid float {}: underscores must be surrounded by digits",
                        go_quote(s)
                    ),
                ));
            }
        }
        if parts.first().is_some_and(|p| has_leading_zero(p)) {
            return Err(self.err_at(
                start,
                format!("Invalid float {}: cannot have leading zeroes", go_quote(s)),
            ));
        }
        let mut period = false;
        for c in s.chars() {
            if period && !c.is_ascii_digit() {
                return Err(self.err_at(
                    start,
                    format!(
                        "Invalid float {}: '.' must be followed by one or more digits",
                        go_quote(s)
                    ),
                ));
            }
            period = c == '.';
        }
        if period {
            return Err(self.err_at(
                start,
                format!(
                    "Invalid float {}: '.' must be followed by one or more digits",
                    go_quote(s)
                ),
            ));
        }
        let clean: String = s.chars().filter(|&c| c != '_').collect();
        let v = match clean.as_str() {
            "inf" | "+inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" | "+nan" => f64::NAN,
            "-nan" => -f64::NAN,
            other => match other.parse::<f64>() {
                Ok(f) if f.is_finite() => f,
                Ok(_) => return Err(self.err_at(start, format!("{s} is out of range for float64"))),
                Err(_) => {
                    return Err(self.err_at(start, format!("Invalid float value: {}", go_quote(s))))
                }
            },
        };
        Ok(Value::Float(v))
    }

    fn datetime(&mut self, start: usize) -> R<Value> {
        while matches!(self.peek(), Some(c) if c.is_ascii_digit() || matches!(c, '-' | ':' | 'T' | 't' | ' ' | '.' | 'Z' | 'z' | '+'))
        {
            self.bump();
        }
        // The lexer trims trailing spaces it swallowed.
        let mut end = self.pos;
        while end > start && self.s[end - 1] == b' ' {
            end -= 1;
        }
        self.pos = end;
        let raw = &self.text[start..end];
        let norm: String = raw
            .chars()
            .map(|c| match c {
                'z' => 'Z',
                't' | ' ' => 'T',
                c => c,
            })
            .collect();
        match parse_datetime(&norm) {
            Some(t) => Ok(Value::Object(Arc::new(t))),
            None => Err(self.err_at(start, format!("invalid datetime: {}", go_quote(&norm)))),
        }
    }
}

fn underscores_ok(s: &str) -> bool {
    if matches!(s, "nan" | "+nan" | "-nan" | "inf" | "-inf" | "+inf") {
        return true;
    }
    let mut accept = false;
    for c in s.chars() {
        if c == '_' && !accept {
            return false;
        }
        accept = c.is_ascii_hexdigit();
    }
    accept
}

fn has_leading_zero(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() > 1 && b[0] == b'0' && !matches!(b[1], b'b' | b'o' | b'x') {
        return true;
    }
    b.len() > 2 && (b[0] == b'-' || b[0] == b'+') && b[1] == b'0'
}

fn num(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The date and time layouts BurntSushi/toml tries, with two-digit fields required.
fn parse_datetime(s: &str) -> Option<GoTime> {
    let mut t = GoTime {
        year: 0,
        month: 1,
        day: 1,
        hour: 0,
        minute: 0,
        second: 0,
        nanos: 0,
        offset: 0,
        zone: String::new(),
    };
    let (date, rest) = if s.len() >= 10 && s.as_bytes().get(4) == Some(&b'-') {
        (Some(&s[..10]), &s[10..])
    } else {
        (None, s)
    };
    if let Some(d) = date {
        let b = d.as_bytes();
        if b[7] != b'-' {
            return None;
        }
        t.year = num(&d[0..4])? as i64;
        t.month = num(&d[5..7])?;
        t.day = num(&d[8..10])?;
        if !(1..=12).contains(&t.month) || t.day < 1 || t.day > days_in(t.month, t.year) {
            return None;
        }
    }
    let time_part = match (date.is_some(), rest.strip_prefix('T')) {
        (true, Some(r)) => Some(r),
        (true, None) if rest.is_empty() => None,
        (true, None) => return None,
        (false, _) => Some(rest),
    };
    let Some(tp) = time_part else {
        t.zone = "date-local".to_string();
        return Some(t);
    };
    // hh:mm[:ss[.frac]][offset]
    if tp.len() < 5 || tp.as_bytes()[2] != b':' {
        return None;
    }
    t.hour = num(&tp[0..2])?;
    t.minute = num(&tp[3..5])?;
    let mut r = &tp[5..];
    if let Some(x) = r.strip_prefix(':') {
        if x.len() < 2 {
            return None;
        }
        t.second = num(&x[0..2])?;
        r = &x[2..];
        if let Some(f) = r.strip_prefix('.') {
            let n = f.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return None;
            }
            let digits = &f[..n.min(9)];
            t.nanos = num(digits)? * 10u32.pow(9 - digits.len() as u32);
            r = &f[n..];
        }
    }
    if t.hour > 23 || t.minute > 59 || t.second > 59 {
        return None;
    }
    if r.is_empty() {
        t.zone = if date.is_some() {
            "datetime-local"
        } else {
            "time-local"
        }
        .to_string();
        if date.is_none() {
            t.year = 0;
        }
        return Some(t);
    }
    date?;
    if r == "Z" {
        t.zone = "UTC".to_string();
        return Some(t);
    }
    let b = r.as_bytes();
    if b.len() != 6 || (b[0] != b'+' && b[0] != b'-') || b[3] != b':' {
        return None;
    }
    let oh = num(&r[1..3])? as i32;
    let om = num(&r[4..6])? as i32;
    if oh > 24 || om > 60 {
        return None;
    }
    t.offset = (oh * 3600 + om * 60) * if b[0] == b'-' { -1 } else { 1 };
    if t.offset == 0 {
        t.zone = "UTC".to_string();
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_types() {
        let v = parse("a = 1\nb = 1.5\nc = \"x\"\n[t]\nd = [1, 'two']\n[[arr]]\ne = true\n")
            .expect("parse");
        assert_eq!(
            format!("{v:?}"),
            r#"{"a": int64(1), "arr": [{"e": true}], "b": float64(1.5), "c": "x", "t": {"d": [int64(1), "two"]}}"#
        );
    }

    #[test]
    fn errors_like_burntsushi() {
        assert_eq!(
            parse("a = 1\na = 2\n").err().as_deref(),
            Some("toml: line 2 (last key \"a\"): Key 'a' has already been defined.")
        );
        assert_eq!(
            parse("a = \n").err().as_deref(),
            Some("toml: line 1 (last key \"a\"): expected value but found '\\n' instead")
        );
    }

    #[test]
    fn datetimes() {
        let t = parse_datetime("2024-01-02T03:04:05Z").expect("dt");
        assert_eq!(t.go_string(), "2024-01-02 03:04:05 +0000 UTC");
        assert!(parse_datetime("2024-1-02").is_none());
    }
}
