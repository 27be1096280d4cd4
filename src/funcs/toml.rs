//! TOML template functions: Helm's `toToml` (BurntSushi/toml v1.3.2 in Helm 3,
//! v1.6.0 in Helm 4), and Helm 4's `mustToToml` and `fromToml`.
//!
//! The encoder reproduces BurntSushi's layout: plain keys first, then tables and
//! arrays of tables, each group in byte order; nested keys indented two spaces per
//! level; nil values skipped; every float written with a decimal part (Helm values
//! are float64, so `1` prints as `1.0`). Helm 3's library writes floats in `%f`
//! form (`1000000.0`), Helm 4's in `%g` form (`1e+06`). Errors are returned as the
//! output text by `toToml`, and fail the template in `mustToToml`.

use crate::funcs::codec::yaml::{format_float_f, format_float_g};
use crate::template::{FuncDef, FuncError, FuncResult, Map, Ty, Value};

/// Which BurntSushi/toml release to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TomlVersion {
    /// v1.3.2 (Helm 3.15).
    V1_3,
    /// v1.6.0 (Helm 4.3).
    V1_6,
}

const ERR_NIL_ELEMENT: &str = "toml: cannot encode array with nil element";
const ERR_NO_KEY: &str = "toml: top-level values must be Go maps or structs";

/// TOML's view of a Go value's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TomlType {
    Scalar,
    Array,
    Hash,
    ArrayHash,
}

/// Go's `isNil` as the encoder applies it (nil interfaces and nil slices).
fn is_nil(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::List(l) => l.is_nil(),
        _ => false,
    }
}

/// Host objects are encoded through their JSON view (their exported fields).
fn resolved(v: &Value) -> Value {
    match v {
        Value::Object(o) => o.to_json_value(),
        other => other.clone(),
    }
}

fn toml_type(v: &Value) -> Result<Option<TomlType>, String> {
    if is_nil(v) {
        return Ok(None);
    }
    Ok(Some(match v {
        Value::Map(_) => TomlType::Hash,
        Value::Object(_) => return toml_type(&resolved(v)),
        Value::List(l) => {
            if is_table_array(l.items())? {
                TomlType::ArrayHash
            } else {
                TomlType::Array
            }
        }
        Value::Bytes(_) => TomlType::Array,
        _ => TomlType::Scalar,
    }))
}

fn is_table_array(items: &[Value]) -> Result<bool, String> {
    if items.is_empty() {
        return Ok(false);
    }
    let mut all = true;
    for it in items {
        match toml_type(it)? {
            None => return Err(ERR_NIL_ELEMENT.to_string()),
            Some(TomlType::Hash) => {}
            Some(_) => all = false,
        }
    }
    Ok(all)
}

fn is_table(t: Option<TomlType>) -> bool {
    matches!(t, Some(TomlType::Hash | TomlType::ArrayHash))
}

fn bare_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// BurntSushi's basic-string escaping (`dblQuotedReplacer`).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7F => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

fn maybe_quoted(k: &str) -> String {
    if k.is_empty() {
        return "\"\"".to_string();
    }
    if k.chars().all(bare_key_char) {
        k.to_string()
    } else {
        format!("\"{}\"", escape(k))
    }
}

fn key_string(key: &[String]) -> String {
    key.iter()
        .map(|k| maybe_quoted(k))
        .collect::<Vec<_>>()
        .join(".")
}

struct Encoder {
    out: String,
    version: TomlVersion,
}

impl Encoder {
    fn write(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(&self, key: &[String]) -> String {
        "  ".repeat(key.len().saturating_sub(1))
    }

    fn float(&self, f: f64) -> String {
        match self.version {
            TomlVersion::V1_3 => {
                if f.is_nan() {
                    "nan".to_string()
                } else if f.is_infinite() {
                    if f < 0.0 { "-inf" } else { "+inf" }.to_string()
                } else {
                    let s = format_float_f(f);
                    if s.contains('.') {
                        s
                    } else {
                        s + ".0"
                    }
                }
            }
            TomlVersion::V1_6 => {
                let sign = if f.is_sign_negative() { "-" } else { "" };
                if f.is_nan() {
                    format!("{sign}nan")
                } else if f.is_infinite() {
                    format!("{sign}inf")
                } else {
                    let s = format_float_g(f);
                    if s.contains('e') || s.contains('.') {
                        s
                    } else {
                        s + ".0"
                    }
                }
            }
        }
    }

    fn encode(&mut self, key: &[String], v: &Value) -> Result<(), String> {
        match v {
            Value::Nil => Ok(()),
            Value::Map(m) => self.table(key, m),
            Value::Object(_) => self.encode(key, &resolved(v)),
            Value::List(l) => {
                if toml_type(v)? == Some(TomlType::ArrayHash) {
                    self.array_of_tables(key, l.items())
                } else {
                    self.key_value(key, v, false)
                }
            }
            _ => self.key_value(key, v, false),
        }
    }

    fn element(&mut self, v: &Value) -> Result<(), String> {
        match v {
            Value::String(s) => {
                let q = format!("\"{}\"", escape(s));
                self.write(&q);
            }
            Value::Bool(b) => self.write(if *b { "true" } else { "false" }),
            Value::Int(i, _) => self.write(&i.to_string()),
            Value::Uint(u, _) => self.write(&u.to_string()),
            Value::Float(f) => {
                let s = self.float(*f);
                self.write(&s);
            }
            Value::List(l) => self.array(l.items())?,
            Value::Bytes(b) => {
                let items: Vec<Value> = b.iter().map(|&x| Value::int(x as i64)).collect();
                self.array(&items)?;
            }
            Value::Map(m) => self.map(&[], m, true)?,
            Value::Object(_) => self.element(&resolved(v))?,
            Value::Nil => return Err(ERR_NIL_ELEMENT.to_string()),
        }
        Ok(())
    }

    fn array(&mut self, items: &[Value]) -> Result<(), String> {
        self.write("[");
        for (i, it) in items.iter().enumerate() {
            self.element(it)?;
            if i + 1 != items.len() {
                self.write(", ");
            }
        }
        self.write("]");
        Ok(())
    }

    fn array_of_tables(&mut self, key: &[String], items: &[Value]) -> Result<(), String> {
        if key.is_empty() {
            return Err(ERR_NO_KEY.to_string());
        }
        for it in items {
            let it = resolved(it);
            let Value::Map(m) = &it else {
                continue;
            };
            self.newline();
            let line = format!("{}[[{}]]", self.indent(key), key_string(key));
            self.write(&line);
            self.newline();
            self.map(key, m, false)?;
        }
        Ok(())
    }

    fn table(&mut self, key: &[String], m: &Map) -> Result<(), String> {
        if key.len() == 1 {
            self.newline();
        }
        if !key.is_empty() {
            let line = format!("{}[{}]", self.indent(key), key_string(key));
            self.write(&line);
            self.newline();
        }
        self.map(key, m, false)
    }

    fn map(&mut self, key: &[String], m: &Map, inline: bool) -> Result<(), String> {
        let entries = m.entries();
        let mut direct = Vec::new();
        let mut sub = Vec::new();
        for (k, v) in &entries {
            if is_table(toml_type(v)?) {
                sub.push((k, v));
            } else {
                direct.push((k, v));
            }
        }
        if inline {
            self.write("{");
        }
        let trail = !sub.is_empty();
        self.map_keys(key, &direct, trail, inline)?;
        self.map_keys(key, &sub, false, inline)?;
        if inline {
            self.write("}");
        }
        Ok(())
    }

    fn map_keys(
        &mut self,
        key: &[String],
        keys: &[(&String, &Value)],
        trail: bool,
        inline: bool,
    ) -> Result<(), String> {
        for (i, (k, v)) in keys.iter().enumerate() {
            if is_nil(v) {
                continue;
            }
            if inline {
                self.key_value(&[(*k).clone()], v, true)?;
                if trail || i + 1 != keys.len() {
                    self.write(", ");
                }
            } else {
                let mut sub = key.to_vec();
                sub.push((*k).clone());
                self.encode(&sub, v)?;
            }
        }
        Ok(())
    }

    fn key_value(&mut self, key: &[String], v: &Value, inline: bool) -> Result<(), String> {
        let Some(last) = key.last() else {
            return self.element(v);
        };
        let head = format!("{}{} = ", self.indent(key), maybe_quoted(last));
        self.write(&head);
        self.element(v)?;
        if !inline {
            self.newline();
        }
        Ok(())
    }
}

/// BurntSushi/toml `NewEncoder(w).Encode(v)`. The error is the library's text (or,
/// for a nil value, the reflection panic text Go's template engine reports).
pub fn encode(v: &Value, version: TomlVersion) -> Result<String, String> {
    if matches!(v, Value::Nil) {
        return Err("reflect: call of reflect.Value.Type on zero Value".to_string());
    }
    let mut e = Encoder {
        out: String::new(),
        version,
    };
    e.encode(&[], v)?;
    Ok(e.out)
}

fn arg(args: &[Value]) -> Value {
    args.first().cloned().unwrap_or(Value::Nil)
}

fn to_toml(args: &[Value], version: TomlVersion) -> FuncResult {
    let v = arg(args);
    if matches!(v, Value::Nil) {
        // Go panics inside the encoder; text/template turns that into a call error.
        return Err(FuncError::call(
            "reflect: call of reflect.Value.Type on zero Value",
        ));
    }
    Ok(Value::from(encode(&v, version).unwrap_or_else(|e| e)))
}

/// Helm 3 `toToml`: TOML text, or the encoder's error text.
pub fn helm3_to_toml(args: &[Value]) -> FuncResult {
    to_toml(args, TomlVersion::V1_3)
}

/// Helm 4 `toToml`.
pub fn helm4_to_toml(args: &[Value]) -> FuncResult {
    to_toml(args, TomlVersion::V1_6)
}

/// Helm 4 `mustToToml`: like `toToml`, but an encoding error fails the template.
pub fn helm4_must_to_toml(args: &[Value]) -> FuncResult {
    encode(&arg(args), TomlVersion::V1_6)
        .map(Value::from)
        .map_err(FuncError::call)
}

/// Helm 4 `fromToml`: a `map[string]interface{}`, with the error text under `Error`.
pub fn helm4_from_toml(args: &[Value]) -> FuncResult {
    let text = match args.first() {
        Some(Value::String(s)) => s.to_string(),
        _ => String::new(),
    };
    Ok(match decode::parse(&text) {
        Ok(v) => v,
        Err(e) => {
            let m = Map::new();
            m.insert("Error", Value::from(e));
            Value::Map(m)
        }
    })
}

/// Helm 3's TOML functions.
pub static HELM_FUNCS: &[FuncDef] = &[FuncDef::plain("toToml", &[Ty::Any], helm3_to_toml)];

/// Helm 4's TOML functions (replacing [`HELM_FUNCS`]).
pub static HELM4_FUNCS: &[FuncDef] = &[
    FuncDef::plain("toToml", &[Ty::Any], helm4_to_toml),
    FuncDef::plain("mustToToml", &[Ty::Any], helm4_must_to_toml),
    FuncDef::plain("fromToml", &[Ty::String], helm4_from_toml),
];

mod decode;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    #[test]
    fn layout_like_burntsushi() {
        let v = vmap! {
            "a" => 1.0,
            "nested" => vmap!{"deep" => vmap!{"x" => 1.0}, "y" => true},
            "tables" => Value::list(vec![vmap!{"name" => "a"}, vmap!{"name" => "b"}]),
            "z" => Value::Nil,
        };
        assert_eq!(
            encode(&v, TomlVersion::V1_3).as_deref(),
            Ok("a = 1.0\n\n[nested]\n  y = true\n  [nested.deep]\n    x = 1.0\n\n[[tables]]\n  name = \"a\"\n\n[[tables]]\n  name = \"b\"\n")
        );
        assert_eq!(
            encode(&vmap! {"m" => 1e6}, TomlVersion::V1_3).as_deref(),
            Ok("m = 1000000.0\n")
        );
        assert_eq!(
            encode(&vmap! {"m" => 1e6}, TomlVersion::V1_6).as_deref(),
            Ok("m = 1e+06\n")
        );
        let bad = vmap! {"a" => Value::list(vec![Value::int(1), Value::Nil])};
        assert_eq!(
            encode(&bad, TomlVersion::V1_3).err().as_deref(),
            Some(ERR_NIL_ELEMENT)
        );
    }
}
