//! Sprig's emptiness tests: `default`, `empty`, `coalesce`, `all`, `any`, `ternary`.
//!
//! Sprig's idea of "empty" is its own reflect-based test, close to but not the same
//! as template truthiness: structs are never empty, and it looks at the dynamic value
//! only (a non-nil pointer is not empty). `compact` in the list family uses it too.

use super::conversion::{arg, arg_bool};
use crate::template::{FuncDef, FuncResult, Kind, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::variadic("default", &[Ty::Any], Ty::Any, default),
    FuncDef::plain("empty", &[Ty::Any], empty_fn),
    FuncDef::variadic("coalesce", &[], Ty::Any, coalesce),
    FuncDef::variadic("all", &[], Ty::Any, all),
    FuncDef::variadic("any", &[], Ty::Any, any),
    FuncDef::plain("ternary", &[Ty::Any, Ty::Any, Ty::Bool], ternary),
];

/// Sprig's `empty`: nil, zero numbers, false, and zero-length strings, slices and
/// maps. Structs and pointers are never empty.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i, _) => *i == 0,
        Value::Uint(u, _) => *u == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Object(o) => match o.kind() {
            Kind::Map | Kind::Slice => o.as_collection().is_none_or(|c| is_empty(&c)),
            _ => false,
        },
    }
}

fn default(args: &[Value]) -> FuncResult {
    let d = arg(args, 0)?;
    match args.get(1) {
        Some(given) if !is_empty(given) => Ok(given.clone()),
        _ => Ok(d.clone()),
    }
}

fn empty_fn(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(is_empty(arg(args, 0)?)))
}

fn coalesce(args: &[Value]) -> FuncResult {
    Ok(args
        .iter()
        .find(|v| !is_empty(v))
        .cloned()
        .unwrap_or(Value::Nil))
}

fn all(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(args.iter().all(|v| !is_empty(v))))
}

fn any(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(args.iter().any(|v| !is_empty(v))))
}

fn ternary(args: &[Value]) -> FuncResult {
    let pick = if arg_bool(args, 2)? { 0 } else { 1 };
    Ok(arg(args, pick)?.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::funcs::conversion::go_int;

    fn show(r: FuncResult) -> String {
        match r {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn default_treats_falsy_values_as_unset() {
        let d = Value::str("d");
        for given in [
            Value::Bool(false),
            go_int(0),
            Value::str(""),
            Value::list(vec![]),
            Value::Nil,
        ] {
            assert_eq!(show(default(&[d.clone(), given])), "\"d\"");
        }
        assert_eq!(show(default(std::slice::from_ref(&d))), "\"d\"");
        assert_eq!(show(default(&[d, Value::str("x")])), "\"x\"");
        assert_eq!(show(default(&[go_int(5), go_int(0)])), "5");
    }

    #[test]
    fn empty_coalesce_all_any() {
        let e = |v: Value| is_empty(&v);
        assert!(e(go_int(0)));
        assert!(!e(Value::str("0")));
        assert!(e(Value::empty_map()));
        assert!(e(Value::Bool(false)));
        assert!(e(Value::Nil));
        assert!(e(Value::Float(-0.0)));
        assert_eq!(
            show(coalesce(&[go_int(0), Value::str(""), Value::str("c")])),
            "\"c\""
        );
        assert_eq!(show(coalesce(&[Value::Nil, Value::Bool(false)])), "nil");
        assert_eq!(show(all(&[])), "true");
        assert_eq!(show(any(&[])), "false");
        assert_eq!(show(all(&[go_int(1), Value::str("")])), "false");
        assert_eq!(show(any(&[go_int(0), Value::str("x")])), "true");
        assert_eq!(
            show(ternary(&[
                Value::str("a"),
                Value::str("b"),
                Value::Bool(false)
            ])),
            "\"b\""
        );
    }
}
