//! `--state-values-set` and `--state-values-set-string`: Helmfile's own `key=value`
//! parser (`pkg/maputil`), which is not Helm's `strvals`.
//!
//! The differences are observable in state values: each flag value is split on every
//! `,` (no escaping, so `x=a\,b` crashes helmfile), keys split on unescaped `.`, a key
//! `name[i]` addresses a list element (growing the list with nils), and values are
//! typed by a short rule list (`true`/`false`/`null` in any case, `0`, and base-10
//! integers not starting with `0` become integers; everything else stays a string).
//! Repeated flags are combined with `MergeMaps`, string flags first.

use crate::template::{IntType, List, Map, Value};

use super::gomerge::merge_maps;

/// Why a `--state-values-set` entry could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetError {
    /// Helmfile indexes the `=` split unchecked and panics; we report it instead.
    #[error("invalid state value {entry:?}: expected key=value (helmfile 0.166 crashes on this input: index out of range)")]
    MissingEquals { entry: String },
    /// Helmfile panics with `unexpected type: ...` when a path walks through a
    /// non-map (or a non-list for `key[i]`).
    #[error("invalid state value {entry:?}: unexpected type: {found} at {key:?} (helmfile 0.166 crashes on this input)")]
    WrongType {
        entry: String,
        key: String,
        found: String,
    },
    #[error("invalid state value {entry:?}: bad list index in {key:?}")]
    BadIndex { entry: String, key: String },
}

/// Splits a key on unescaped dots (`a\.b.c` → `a.b`, `c`); a trailing empty part is
/// dropped, empty inner parts are kept.
pub fn parse_key(key: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut part = String::new();
    let mut escaped = false;
    for c in key.chars() {
        if !escaped && c == '\\' {
            escaped = true;
            continue;
        }
        let split = c == '.' && !escaped;
        escaped = false;
        if split {
            parts.push(std::mem::take(&mut part));
        } else {
            part.push(c);
        }
    }
    if !part.is_empty() {
        parts.push(part);
    }
    parts
}

/// Helmfile's value typing for `--state-values-set` (`string_only` for `-string`).
pub fn typed_value(val: &str, string_only: bool) -> Value {
    if string_only {
        return Value::str(val);
    }
    if val.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if val.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if val.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    // Helmfile's parser yields `int64`, but the values reach every template only
    // after a YAML round trip (they are loaded like a values file), which decodes
    // integers as Go `int`: `kindOf` shows `int`.
    if val == "0" {
        return Value::Int(0, IntType::Int);
    }
    if !val.is_empty() && !val.starts_with('0') {
        if let Some(i) = parse_go_int64(val) {
            return Value::Int(i, IntType::Int);
        }
    }
    Value::str(val)
}

/// Go's `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits, in range.
fn parse_go_int64(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// How one key component addresses its container, after Helmfile turns `[` and `]`
/// into spaces and scans `"%s %d"`.
enum Cursor {
    Key(String),
    Indexed(String, usize),
}

fn cursor(key: &str) -> Result<Cursor, String> {
    let spaced = key.replace(['[', ']'], " ");
    // Sscanf("%s %d"): a word, then an integer after whitespace.
    let trimmed = spaced.trim_start();
    let word_end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
    let (word, rest) = trimmed.split_at(word_end);
    let rest = rest.trim_start();
    let num_end = rest
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && (c == '-' || c == '+'))))
        .map_or(rest.len(), |(i, _)| i);
    let num = &rest[..num_end];
    if !word.is_empty() && !num.is_empty() && num != "-" && num != "+" {
        return match num.parse::<i64>() {
            Ok(i) if i >= 0 => Ok(Cursor::Indexed(word.to_string(), i as usize)),
            _ => Err(key.to_string()),
        };
    }
    Ok(Cursor::Key(spaced))
}

/// Sets `value` at the key path in `m` the way `maputil.Set` does.
pub fn set_path(m: &Map, path: &[String], value: Value, entry: &str) -> Result<(), SetError> {
    let wrong = |key: &str, v: &Value| SetError::WrongType {
        entry: entry.to_string(),
        key: key.to_string(),
        found: v.type_name(),
    };
    let bad_index = |key: &str| SetError::BadIndex {
        entry: entry.to_string(),
        key: key.to_string(),
    };
    let Some((last, walk)) = path.split_last() else {
        return Err(SetError::MissingEquals {
            entry: entry.to_string(),
        });
    };
    let mut cur = m.clone();
    for k in walk {
        cur = match cursor(k).map_err(|k| bad_index(&k))? {
            Cursor::Key(key) => match cur.get(&key) {
                None => {
                    let n = Map::new();
                    cur.insert(key, Value::Map(n.clone()));
                    n
                }
                Some(Value::Map(n)) => n,
                Some(other) => return Err(wrong(&key, &other)),
            },
            Cursor::Indexed(key, idx) => {
                let mut items = list_for(&cur, &key, idx).map_err(|v| wrong(&key, &v))?;
                let n = match &items[idx] {
                    Value::Nil => {
                        let n = Map::new();
                        items[idx] = Value::Map(n.clone());
                        n
                    }
                    Value::Map(n) => n.clone(),
                    other => return Err(wrong(&key, other)),
                };
                cur.insert(key, Value::List(List::new(items)));
                n
            }
        };
    }
    match cursor(last).map_err(|k| bad_index(&k))? {
        Cursor::Key(key) => {
            cur.insert(key, value);
        }
        Cursor::Indexed(key, idx) => {
            let mut items = list_for(&cur, &key, idx).map_err(|v| wrong(&key, &v))?;
            items[idx] = value;
            cur.insert(key, Value::List(List::new(items)));
        }
    }
    Ok(())
}

/// The list at `key`, created or grown with nils so that `idx` exists.
fn list_for(m: &Map, key: &str, idx: usize) -> Result<Vec<Value>, Value> {
    let mut items = match m.get(key) {
        None => Vec::new(),
        Some(Value::List(l)) => l.to_vec(),
        Some(other) => return Err(other),
    };
    if items.len() <= idx {
        items.resize(idx + 1, Value::Nil);
    }
    Ok(items)
}

/// Parses one flag occurrence (`k=v,k2=v2`) into `m`.
pub fn apply_flag(m: &Map, flag: &str, string_only: bool) -> Result<(), SetError> {
    for op in flag.split(',') {
        let Some((k, v)) = op.split_once('=') else {
            return Err(SetError::MissingEquals {
                entry: op.to_string(),
            });
        };
        set_path(m, &parse_key(k), typed_value(v, string_only), op)?;
    }
    Ok(())
}

/// The state values map built from all `--state-values-set-string` and
/// `--state-values-set` flags (string flags first, then typed ones merged over them).
pub fn state_values_from_flags(set: &[String], set_string: &[String]) -> Result<Map, SetError> {
    let mut acc = Map::new();
    if !set_string.is_empty() {
        let m = Map::new();
        for f in set_string {
            apply_flag(&m, f, true)?;
        }
        acc = merge_maps(&acc, &m);
    }
    if !set.is_empty() {
        let m = Map::new();
        for f in set {
            apply_flag(&m, f, false)?;
        }
        acc = merge_maps(&acc, &m);
    }
    Ok(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(m: &Map) -> String {
        m.entries()
            .iter()
            .map(|(k, v)| format!("{k}={}:{v:?}", v.type_name()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn typing_follows_helmfile() {
        // From the fidelity lab (F4): a=true,b=1,s=010,f=1.5,nul=null,z=0,neg=-3,u=TRUE,arr[1]=x;
        // integers as helmfile 0.166's templates see them (`kindOf` is `int`).
        let m = state_values_from_flags(
            &["a=true,b=1,s=010,f=1.5,nul=null,z=0,neg=-3,u=TRUE,arr[1]=x".to_string()],
            &[],
        )
        .unwrap();
        assert_eq!(
            kinds(&m),
            "a=bool:true arr=[]interface {}:[nil, \"x\"] b=int:1 f=string:\"1.5\" \
             neg=int:-3 nul=<nil>:nil s=string:\"010\" u=bool:true z=int:0"
        );
    }

    #[test]
    fn string_flags_come_first_and_nest() {
        let m = state_values_from_flags(&["b=1".into()], &["a=true,n.x=y".into()]).unwrap();
        assert_eq!(
            kinds(&m),
            "a=string:\"true\" b=int:1 n=map[string]interface {}:{\"x\": \"y\"}"
        );
    }

    #[test]
    fn escaped_dots_and_equals_in_values() {
        assert_eq!(parse_key("a\\.b.c"), vec!["a.b", "c"]);
        assert_eq!(parse_key("a..b."), vec!["a", "", "b"]);
        let m = state_values_from_flags(&["x=a=b".into()], &[]).unwrap();
        assert_eq!(kinds(&m), "x=string:\"a=b\"");
    }

    #[test]
    fn comma_escape_is_an_error_not_a_panic() {
        let e = state_values_from_flags(&["x=a\\,b".into()], &[])
            .err()
            .unwrap_or(SetError::BadIndex {
                entry: String::new(),
                key: String::new(),
            });
        assert!(matches!(e, SetError::MissingEquals { .. }), "{e}");
    }

    #[test]
    fn walking_through_a_scalar_is_an_error() {
        let e = state_values_from_flags(&["a=1,a.b=2".into()], &[])
            .err()
            .unwrap_or(SetError::BadIndex {
                entry: String::new(),
                key: String::new(),
            });
        assert!(matches!(e, SetError::WrongType { .. }), "{e}");
    }

    #[test]
    fn list_elements_hold_maps() {
        let m = state_values_from_flags(&["l[0].n=x,l[2]=z".into()], &[]).unwrap();
        assert_eq!(kinds(&m), "l=[]interface {}:[{\"n\": \"x\"}, nil, \"z\"]");
    }
}
