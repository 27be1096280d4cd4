//! The methods of Helm's values type (`chartutil.Values` in Helm 3, `common.Values`
//! in Helm 4): `YAML`, `AsMap`, `Table` and `PathValue`.
//!
//! Why they exist: `.Values` and the top-level dot are of that named map type, and
//! Go's templates look a method up before a map key, so `.Values.AsMap`,
//! `.Values.Table "a.b"` and `.Values.PathValue "a.b"` call Helm's code, and a
//! values key spelled like a method (`YAML:`) is hidden behind it. Registered as
//! methods of the type name ([`type_name`]), not as functions: a template calls
//! them through a field chain, and the engine passes the receiver first.
//!
//! `Encode(io.Writer)` is left out: no template can build a writer to pass.

use crate::funcs::codec::yaml;
use crate::funcs::Flavor;
use crate::template::fmt::quote;
use crate::template::{FuncDef, FuncError, FuncResult, Map, MapType, Ty, Value};

/// The Go type name `typeOf` prints for the values of this Helm flavor.
pub fn type_name(flavor: Flavor) -> &'static str {
    match flavor {
        Flavor::Helm4 => "common.Values",
        _ => "chartutil.Values",
    }
}

/// Each method's first argument is the receiver (added by the engine); the
/// signatures list only what the template passes.
pub const METHODS: &[FuncDef] = &[
    FuncDef::plain("YAML", &[], yaml_text),
    FuncDef::plain("AsMap", &[], as_map),
    FuncDef::plain("Table", &[Ty::String], table),
    FuncDef::plain("PathValue", &[Ty::String], path_value),
];

fn receiver(args: &[Value]) -> Result<&Map, FuncError> {
    match args.first() {
        Some(Value::Map(m)) => Ok(m),
        _ => Err(FuncError::call("method called without its values receiver")),
    }
}

fn arg_str(args: &[Value]) -> &str {
    match args.get(1) {
        Some(Value::String(s)) => s,
        _ => "",
    }
}

/// `Values.YAML`: sigs.k8s.io/yaml's `Marshal`, trailing newline kept (unlike
/// `toYaml`), errors returned.
fn yaml_text(args: &[Value]) -> FuncResult {
    let m = receiver(args)?;
    yaml::helm_to_yaml(&Value::Map(m.clone()))
        .map(Value::from)
        .map_err(|e| FuncError::call(e.message))
}

/// `Values.AsMap`: the same map as a plain `map[string]interface{}`; an empty one
/// is a new map rather than the receiver.
fn as_map(args: &[Value]) -> FuncResult {
    let m = receiver(args)?;
    if m.is_empty() {
        return Ok(Value::Map(Map::new()));
    }
    Ok(Value::Map(m.retyped(MapType::Interface)))
}

/// A nested table: a map value of the key, which Go's `tableLookup` accepts as
/// `map[string]interface{}` or as the values type itself.
fn table_of(t: &Map, key: &str) -> Option<Map> {
    match t.get(key) {
        Some(Value::Map(m)) if m.ty() != MapType::String => Some(m),
        _ => None,
    }
}

/// The table at a dotted path (`strings.Split` on `.`, so `""` and `"a."` name an
/// empty key), or the first segment that is missing or not a table. Also Helm's
/// own lookups through `Values.Table` (import-values).
pub fn lookup_table(recv: &Map, path: &str) -> Result<Map, String> {
    let mut t = recv.clone();
    for seg in path.split('.') {
        t = table_of(&t, seg).ok_or_else(|| seg.to_string())?;
    }
    Ok(t.retyped(recv.ty()))
}

/// Helm's `ErrNoTable` text for the segment [`lookup_table`] stopped at.
pub fn no_table(segment: &str) -> String {
    format!("{} is not a table", quote(segment))
}

/// `Values.Table`: the table at a dotted path, of the values type.
fn table(args: &[Value]) -> FuncResult {
    let m = receiver(args)?;
    lookup_table(m, arg_str(args))
        .map(Value::Map)
        .map_err(|seg| FuncError::call(no_table(&seg)))
}

/// Go's `istable`: only a plain `map[string]interface{}` is a table here.
fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(m) if m.ty() == MapType::Interface)
}

/// `Values.PathValue`: the value (not a table) at a dotted path.
fn path_value(args: &[Value]) -> FuncResult {
    let m = receiver(args)?;
    let path = arg_str(args);
    if path.is_empty() {
        return Err(FuncError::call("YAML path cannot be empty"));
    }
    let no_value = |key: &str| FuncError::call(format!("{} is not a value", quote(key)));
    let (parent, key) = match path.rsplit_once('.') {
        Some((parent, key)) => (lookup_table(m, parent).map_err(|_| no_value(key))?, key),
        None => (m.clone(), path),
    };
    match parent.get(key) {
        Some(v) if !is_table(&v) => Ok(v),
        _ => Err(no_value(key)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::funcs::codec::yaml::{decode, DecodeOptions};

    fn values(text: &str) -> Value {
        match decode(text, &DecodeOptions::HELM_MAP) {
            Ok(Value::Map(m)) => Value::Map(m.retyped(MapType::Named("chartutil.Values"))),
            other => panic!("not a map: {other:?}"),
        }
    }

    fn call(f: fn(&[Value]) -> FuncResult, recv: &Value, arg: Option<&str>) -> FuncResult {
        let mut args = vec![recv.clone()];
        args.extend(arg.map(Value::str));
        f(&args)
    }

    /// The text of a string result (`None` for anything else).
    fn text(v: Option<Value>) -> Option<String> {
        match v {
            Some(Value::String(s)) => Some(s.to_string()),
            _ => None,
        }
    }

    fn err(r: FuncResult) -> String {
        match r {
            Err(e) => e.message().to_string(),
            Ok(v) => panic!("expected an error, got {v:?}"),
        }
    }

    #[test]
    fn table_walks_dotted_paths_and_keeps_the_values_type() {
        let v = values("a:\n  b: 1\n  c:\n    d: x\ns: str\nempty: {}\n");
        let Ok(Value::Map(t)) = call(table, &v, Some("a.c")) else {
            panic!("no table")
        };
        assert_eq!(t.ty(), MapType::Named("chartutil.Values"));
        assert_eq!(text(t.get("d")).as_deref(), Some("x"));
        assert!(matches!(call(table, &v, Some("empty")), Ok(Value::Map(m)) if m.is_empty()));
        assert_eq!(err(call(table, &v, Some("zz"))), "\"zz\" is not a table");
        assert_eq!(err(call(table, &v, Some("s"))), "\"s\" is not a table");
        assert_eq!(err(call(table, &v, Some("a.zz"))), "\"zz\" is not a table");
        assert_eq!(err(call(table, &v, Some(""))), "\"\" is not a table");
        assert_eq!(err(call(table, &v, Some("a."))), "\"\" is not a table");
    }

    #[test]
    fn path_value_returns_values_not_tables() {
        let v = values("a:\n  b: 1\n  c:\n    d: x\n  e: [1, 2]\ns: str\n");
        assert_eq!(
            text(call(path_value, &v, Some("s")).ok()).as_deref(),
            Some("str")
        );
        assert_eq!(
            text(call(path_value, &v, Some("a.c.d")).ok()).as_deref(),
            Some("x")
        );
        assert!(matches!(
            call(path_value, &v, Some("a.e")),
            Ok(Value::List(_))
        ));
        assert_eq!(err(call(path_value, &v, Some("a"))), "\"a\" is not a value");
        assert_eq!(
            err(call(path_value, &v, Some("zz.b"))),
            "\"b\" is not a value"
        );
        assert_eq!(
            err(call(path_value, &v, Some("a.zz"))),
            "\"zz\" is not a value"
        );
        assert_eq!(
            err(call(path_value, &v, Some(""))),
            "YAML path cannot be empty"
        );
    }

    #[test]
    fn as_map_and_yaml() {
        let v = values("b: 1\na: x\n");
        let Ok(Value::Map(m)) = call(as_map, &v, None) else {
            panic!("no map")
        };
        assert_eq!(m.ty(), MapType::Interface);
        assert_eq!(m.len(), 2);
        assert_eq!(
            text(call(yaml_text, &v, None).ok()).as_deref(),
            Some("a: x\nb: 1\n")
        );
        let empty = values("{}\n");
        assert_eq!(
            text(call(yaml_text, &empty, None).ok()).as_deref(),
            Some("{}\n")
        );
    }
}
