//! Helm's `--set` mini-language (`pkg/strvals`): `a.b=1,list[0].x=y,s=a\,b`.
//!
//! One parser serves all five flags, differing only in how a value becomes a Go
//! value: `--set` infers `int64`/`bool`/`null` (never floats), `--set-string` keeps
//! text, `--set-json` decodes JSON (numbers become `float64`), `--set-file` reads a
//! file, `--set-literal` takes the rest of the argument verbatim with no escapes.
//! Error texts are Helm's, including the ones Helm produces by recovering from a
//! failed Go type assertion (`unable to parse key: interface conversion: ...`).

use crate::template::{List, Map, Value};

/// How values are turned into Go values.
pub enum Mode<'a> {
    /// `--set`: Helm's `typedVal` inference.
    Typed,
    /// `--set-string`.
    String,
    /// `--set-json`.
    Json,
    /// `--set-file`: the value is a path handed to the reader.
    File(&'a dyn Fn(&str) -> Result<Value, String>),
    /// `--set-literal`.
    Literal,
}

const MAX_INDEX: i64 = 65536;
const MAX_NESTED_NAME_LEVEL: usize = 30;

/// Why parsing stopped: the end of input (not an error at the top level) or a real
/// error with Helm's text.
enum Stop {
    Eof,
    Err(String),
}

impl From<String> for Stop {
    fn from(s: String) -> Stop {
        Stop::Err(s)
    }
}

struct Parser<'a> {
    s: Vec<char>,
    pos: usize,
    mode: Mode<'a>,
}

/// Parses one flag value into `dest`, overwriting existing keys.
pub fn parse_into(input: &str, dest: &Map, mode: Mode<'_>) -> Result<(), String> {
    let mut p = Parser {
        s: input.chars().collect(),
        pos: 0,
        mode,
    };
    loop {
        match p.key(dest, 0) {
            Ok(()) => continue,
            Err(Stop::Eof) => return Ok(()),
            Err(Stop::Err(e)) => return Err(e),
        }
    }
}

/// Go's type name for a value inside an `interface{}`, as panics print it.
fn go_type(v: &Value) -> String {
    match v {
        Value::Nil => "nil".into(),
        other => other.type_name(),
    }
}

fn conversion_error(v: &Value, want: &str) -> Stop {
    Stop::Err(format!(
        "unable to parse key: interface conversion: interface {{}} is {}, not {want}",
        go_type(v)
    ))
}

impl Parser<'_> {
    fn literal(&self) -> bool {
        matches!(self.mode, Mode::Literal)
    }

    fn next(&mut self) -> Option<char> {
        let c = self.s.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// Reads up to a stop character (consumed and returned), honouring backslash
    /// escapes except in literal mode. `None` as the stop means end of input.
    fn until(&mut self, stop: &[char]) -> (String, Option<char>) {
        let mut v = String::new();
        loop {
            let Some(c) = self.next() else {
                return (v, None);
            };
            if stop.contains(&c) {
                return (v, Some(c));
            }
            if c == '\\' && !self.literal() {
                match self.next() {
                    Some(n) => v.push(n),
                    None => return (v, None),
                }
                continue;
            }
            v.push(c);
        }
    }

    fn key(&mut self, data: &Map, mut level: usize) -> Result<(), Stop> {
        let stop: &[char] = if self.literal() {
            &['=', '[', '.']
        } else {
            &['=', '[', ',', '.']
        };
        let (k, last) = self.until(stop);
        match last {
            None => {
                if k.is_empty() {
                    return Err(Stop::Eof);
                }
                Err(Stop::Err(format!("key {k:?} has no value")))
            }
            Some('[') => {
                let i = self
                    .key_index()
                    .map_err(|e| Stop::Err(format!("error parsing index: {e}")))?;
                let list = match data.get(&k) {
                    None => Vec::new(),
                    Some(Value::List(l)) => l.to_vec(),
                    Some(other) => return Err(conversion_error(&other, "[]interface {}")),
                };
                let (list, res) = self.list_item(list, i, level);
                set(data, &k, Value::List(List::new(list)));
                res
            }
            Some('=') => self.value_for_key(data, &k),
            Some(',') => {
                set(data, &k, Value::str(""));
                Err(Stop::Err(format!(
                    "key {k:?} has no value (cannot end with ,)"
                )))
            }
            Some(_) => {
                level += 1;
                if level > MAX_NESTED_NAME_LEVEL {
                    return Err(Stop::Err(format!(
                        "value name nested level is greater than maximum supported nested level of {MAX_NESTED_NAME_LEVEL}"
                    )));
                }
                let inner = match data.get(&k) {
                    None => Map::new(),
                    Some(Value::Map(m)) => m,
                    Some(other) => return Err(conversion_error(&other, "map[string]interface {}")),
                };
                let res = self.key(&inner, level);
                if res.is_ok() && inner.is_empty() {
                    return Err(Stop::Err(format!("key map {k:?} has no value")));
                }
                if !inner.is_empty() {
                    set(data, &k, Value::Map(inner));
                }
                res
            }
        }
    }

    fn value_for_key(&mut self, data: &Map, k: &str) -> Result<(), Stop> {
        match self.mode {
            Mode::Literal => {
                let (v, _) = self.until(&[]);
                set(data, k, Value::str(v));
                Ok(())
            }
            Mode::Json => {
                if self.empty_val() {
                    set(data, k, Value::Nil);
                    return Ok(());
                }
                let v = self.json_value()?;
                set(data, k, v);
                self.empty_val();
                Ok(())
            }
            _ => match self.val_list() {
                Ok(Some(list)) => {
                    set(data, k, Value::List(List::new(list)));
                    Ok(())
                }
                Ok(None) => {
                    let (rs, _) = self.until(&[',']);
                    let v = self.convert(&rs)?;
                    set(data, k, v);
                    Ok(())
                }
                Err(Stop::Eof) => {
                    set(data, k, Value::str(""));
                    Err(Stop::Eof)
                }
                Err(e) => Err(e),
            },
        }
    }

    fn convert(&self, rs: &str) -> Result<Value, Stop> {
        match &self.mode {
            Mode::Typed => Ok(typed_val(rs)),
            Mode::String | Mode::Literal => Ok(Value::str(rs)),
            Mode::File(reader) => reader(rs).map_err(Stop::Err),
            Mode::Json => Ok(Value::str(rs)),
        }
    }

    fn key_index(&mut self) -> Result<i64, String> {
        let (v, last) = self.until(&[']']);
        if last.is_none() {
            return Err("EOF".into());
        }
        go_atoi(&v)
    }

    fn list_item(
        &mut self,
        mut list: Vec<Value>,
        i: i64,
        level: usize,
    ) -> (Vec<Value>, Result<(), Stop>) {
        if i < 0 {
            return (
                list,
                Err(Stop::Err(format!("negative {i} index not allowed"))),
            );
        }
        let (k, last) = self.until(&['[', '.', '=']);
        if !k.is_empty() {
            return (
                list,
                Err(Stop::Err(format!(
                    "unexpected data at end of array index: {k:?}"
                ))),
            );
        }
        match last {
            None => (list, Err(Stop::Eof)),
            Some('=') => {
                let v = match self.mode {
                    Mode::Literal => {
                        let (v, _) = self.until(&[]);
                        Value::str(v)
                    }
                    Mode::Json => {
                        if self.empty_val() {
                            Value::Nil
                        } else {
                            match self.json_value() {
                                Ok(v) => {
                                    let r = set_index(list, i, v);
                                    self.empty_val();
                                    return r;
                                }
                                Err(e) => return (list, Err(e)),
                            }
                        }
                    }
                    _ => match self.val_list() {
                        Ok(Some(l)) => Value::List(List::new(l)),
                        Err(Stop::Eof) => Value::str(""),
                        Ok(None) => {
                            let (rs, _) = self.until(&[',']);
                            match self.convert(&rs) {
                                Ok(v) => v,
                                Err(e) => return (list, Err(e)),
                            }
                        }
                        Err(e) => return (list, Err(e)),
                    },
                };
                set_index(list, i, v)
            }
            Some('[') => {
                let next_i = match self.key_index() {
                    Ok(n) => n,
                    Err(e) => return (list, Err(Stop::Err(format!("error parsing index: {e}")))),
                };
                let mut current = Vec::new();
                if (i as usize) < list.len() {
                    match &list[i as usize] {
                        Value::Nil => {}
                        Value::List(l) => current = l.to_vec(),
                        other => {
                            let e = conversion_error(other, "[]interface {}");
                            return (list, Err(e));
                        }
                    }
                }
                let (inner, res) = self.list_item(current, next_i, level);
                if let Err(e) = res {
                    return (list, Err(e));
                }
                set_index(list, i, Value::List(List::new(inner)))
            }
            Some(_) => {
                let mut inner = Map::new();
                if (i as usize) < list.len() {
                    match &list[i as usize] {
                        Value::Map(m) => inner = m.clone(),
                        _ => list[i as usize] = Value::Map(inner.clone()),
                    }
                }
                if let Err(e) = self.key(&inner, level) {
                    return (list, Err(e));
                }
                set_index(list, i, Value::Map(inner))
            }
        }
    }

    /// Skips blanks; true (and consumes a comma) when the value is empty.
    fn empty_val(&mut self) -> bool {
        loop {
            match self.s.get(self.pos).copied() {
                None => return true,
                Some(',') => {
                    self.pos += 1;
                    return true;
                }
                Some(c) if c.is_whitespace() => self.pos += 1,
                Some(_) => return false,
            }
        }
    }

    /// Decodes one JSON value at the cursor like Go's `json.Decoder`, then moves past it.
    fn json_value(&mut self) -> Result<Value, Stop> {
        let rest: String = self.s[self.pos..].iter().collect();
        let mut stream = serde_json::Deserializer::from_str(&rest).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(j)) => {
                let consumed = rest[..stream.byte_offset()].chars().count();
                self.pos += consumed;
                Ok(from_json(&j))
            }
            Some(Err(e)) => Err(Stop::Err(e.to_string())),
            None => Err(Stop::Err("EOF".into())),
        }
    }

    /// `{a,b}` list syntax; `Ok(None)` when the value is not a list.
    fn val_list(&mut self) -> Result<Option<Vec<Value>>, Stop> {
        match self.s.get(self.pos) {
            None => return Err(Stop::Eof),
            Some('{') => self.pos += 1,
            Some(_) => return Ok(None),
        }
        let mut list = Vec::new();
        loop {
            let (rs, last) = self.until(&[',', '}']);
            match last {
                None => {
                    return Err(Stop::Err("list must terminate with '}'".into()));
                }
                Some('}') => {
                    if self.s.get(self.pos) == Some(&',') {
                        self.pos += 1;
                    }
                    list.push(self.convert(&rs)?);
                    return Ok(Some(list));
                }
                Some(_) => list.push(self.convert(&rs)?),
            }
        }
    }
}

fn set(data: &Map, key: &str, v: Value) {
    if !key.is_empty() {
        data.insert(key, v);
    }
}

fn set_index(mut list: Vec<Value>, i: i64, v: Value) -> (Vec<Value>, Result<(), Stop>) {
    if i < 0 {
        return (
            list,
            Err(Stop::Err(format!("negative {i} index not allowed"))),
        );
    }
    if i > MAX_INDEX {
        return (
            list,
            Err(Stop::Err(format!(
                "index of {i} is greater than maximum supported index of {MAX_INDEX}"
            ))),
        );
    }
    let i = i as usize;
    if list.len() <= i {
        list.resize(i + 1, Value::Nil);
    }
    list[i] = v;
    (list, Ok(()))
}

/// Go's `strconv.Atoi` with its error text.
pub(crate) fn go_atoi(s: &str) -> Result<i64, String> {
    let quoted = || crate::template::fmt::quote_bytes_with(s.as_bytes(), b'"', false);
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "strconv.Atoi: parsing {}: invalid syntax",
            quoted()
        ));
    }
    s.parse::<i64>()
        .map_err(|_| format!("strconv.Atoi: parsing {}: value out of range", quoted()))
}

/// Helm's `typedVal`: booleans and null case-insensitively, `0`, and base-10 integers
/// that do not start with `0`; everything else stays a string.
pub fn typed_val(s: &str) -> Value {
    if s.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if s.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if s.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if s == "0" {
        return Value::int64(0);
    }
    if !s.is_empty() && !s.starts_with('0') {
        let body = s.strip_prefix(['+', '-']).unwrap_or(s);
        if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(i) = s.parse::<i64>() {
                return Value::int64(i);
            }
        }
    }
    Value::str(s)
}

/// A JSON value as Go's `encoding/json` decodes it into `interface{}`.
pub fn from_json(j: &serde_json::Value) -> Value {
    match j {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::str(s.as_str()),
        serde_json::Value::Array(a) => Value::List(List::new(a.iter().map(from_json).collect())),
        serde_json::Value::Object(o) => Value::Map(
            o.iter()
                .map(|(k, v)| (k.clone(), from_json(v)))
                .collect::<Map>(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str, mode: Mode<'_>) -> Result<Value, String> {
        let m = Map::new();
        parse_into(s, &m, mode)?;
        Ok(Value::Map(m))
    }

    fn dbg(v: &Value) -> String {
        format!("{v:?}")
    }

    #[test]
    fn typed_values() {
        let v = parse("a=1,b=true,c=null,d=010,e=1.5,f=TRUE,g=0,h=-3", Mode::Typed).unwrap();
        assert_eq!(
            dbg(&v),
            r#"{"a": int64(1), "b": true, "c": nil, "d": "010", "e": "1.5", "f": true, "g": int64(0), "h": int64(-3)}"#
        );
    }

    #[test]
    fn nesting_lists_and_escapes() {
        let v = parse(
            r"a.b.c=x,l[1]=y,asg[0].name=n,asg[0].max=10,s=a\,b,list={x,y}",
            Mode::Typed,
        )
        .unwrap();
        assert_eq!(
            dbg(&v),
            r#"{"a": {"b": {"c": "x"}}, "asg": [{"max": int64(10), "name": "n"}], "l": [nil, "y"], "list": ["x", "y"], "s": "a,b"}"#
        );
    }

    #[test]
    fn string_json_literal() {
        assert_eq!(
            dbg(&parse("a=true,b=1", Mode::String).unwrap()),
            r#"{"a": "true", "b": "1"}"#
        );
        assert_eq!(
            dbg(&parse(r#"a={"x":[1,2]},b="s""#, Mode::Json).unwrap()),
            r#"{"a": {"x": [float64(1.0), float64(2.0)]}, "b": "s"}"#
        );
        assert_eq!(
            dbg(&parse("x={a,b}", Mode::Literal).unwrap()),
            r#"{"x": "{a,b}"}"#
        );
    }

    #[test]
    fn errors_are_helms() {
        assert_eq!(
            parse("a", Mode::Typed).unwrap_err(),
            r#"key "a" has no value"#
        );
        assert_eq!(
            parse("a,b=1", Mode::Typed).unwrap_err(),
            r#"key "a" has no value (cannot end with ,)"#
        );
        assert_eq!(
            parse("a=1,a.b=2", Mode::Typed).unwrap_err(),
            "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}"
        );
        assert_eq!(
            parse("a[x]=1", Mode::Typed).unwrap_err(),
            r#"error parsing index: strconv.Atoi: parsing "x": invalid syntax"#
        );
        assert_eq!(
            parse("a={x,y", Mode::Typed).unwrap_err(),
            "list must terminate with '}'"
        );
    }
}
