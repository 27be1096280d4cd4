//! Sprig's reflection helpers: `typeOf`, `typeIs`, `typeIsLike`, `kindOf`, `kindIs`,
//! `deepEqual`.
//!
//! They expose Go's dynamic types, so the value model's type names are what is
//! printed (`float64` for numbers from values files, `[]interface {}`, `<nil>`), and
//! `deepEqual` is `reflect.DeepEqual`: types must match exactly.

use super::conversion::{arg, arg_str};
use crate::template::{FuncDef, FuncResult, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("typeOf", &[Ty::Any], type_of),
    FuncDef::plain("typeIs", &[Ty::String, Ty::Any], type_is),
    FuncDef::plain("typeIsLike", &[Ty::String, Ty::Any], type_is_like),
    FuncDef::plain("kindOf", &[Ty::Any], kind_of),
    FuncDef::plain("kindIs", &[Ty::String, Ty::Any], kind_is),
    FuncDef::plain("deepEqual", &[Ty::Any, Ty::Any], deep_equal),
];

fn type_of(args: &[Value]) -> FuncResult {
    Ok(Value::str(arg(args, 0)?.type_name()))
}

fn type_is(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(arg_str(args, 0)? == arg(args, 1)?.type_name()))
}

fn type_is_like(args: &[Value]) -> FuncResult {
    let target = arg_str(args, 0)?;
    let t = arg(args, 1)?.type_name();
    Ok(Value::Bool(
        t == target || t.strip_prefix('*') == Some(target),
    ))
}

fn kind_of(args: &[Value]) -> FuncResult {
    Ok(Value::str(arg(args, 0)?.kind_name()))
}

fn kind_is(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(arg_str(args, 0)? == arg(args, 1)?.kind_name()))
}

fn deep_equal(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(arg(args, 0)?.deep_equal(arg(args, 1)?)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::{Map, MapType};

    #[test]
    fn types_and_kinds() {
        let m = Value::Map(Map::with_type(MapType::Named("chartutil.Values")));
        let b = |r: FuncResult| r.ok().and_then(|v| v.as_bool());
        let s = |r: FuncResult| r.ok().and_then(|v| v.as_str().map(String::from));
        assert_eq!(s(type_of(&[Value::int(1)])).as_deref(), Some("int"));
        assert_eq!(s(type_of(&[Value::Nil])).as_deref(), Some("<nil>"));
        assert_eq!(s(kind_of(&[Value::Nil])).as_deref(), Some("invalid"));
        assert_eq!(s(kind_of(std::slice::from_ref(&m))).as_deref(), Some("map"));
        assert_eq!(
            b(type_is(&[Value::str("chartutil.Values"), m.clone()])),
            Some(true)
        );
        assert_eq!(
            b(kind_is(&[Value::str("slice"), Value::list(vec![])])),
            Some(true)
        );
        assert_eq!(
            b(type_is_like(&[Value::str("float64"), Value::Float(1.0)])),
            Some(true)
        );
        assert_eq!(
            b(deep_equal(&[Value::int(1), Value::Float(1.0)])),
            Some(false)
        );
        assert_eq!(
            b(deep_equal(&[
                Value::list(vec![Value::int(1)]),
                Value::list(vec![Value::int(1)])
            ])),
            Some(true)
        );
    }
}
