//! Sprig's dictionary functions: `dict`, `get`, `set`, `unset`, `hasKey`, `pluck`,
//! `dig`, `keys`, `values`, `pick`, `omit`, `deepCopy`, and the mergo-based `merge`
//! family.
//!
//! Maps are shared (Go reference semantics), so `set`/`unset`/`merge` mutate their
//! first argument and return it. `merge` reproduces mergo's reflect walk rather than
//! a tidy deep merge, because its corner cases are visible: a destination key holding
//! an empty value (`""`, `0`, `false`, empty list) is overwritten even by plain
//! `merge`, source nils are skipped by `merge` but written by `mergeOverwrite`, lists
//! are never merged element-wise, and nested source maps are inserted by reference.
//! mergo 0.3.13 (Helm 3) and 0.3.16/1.0.1 (Helmfile, Helm 4) differ in one place: when
//! the destination holds a non-empty non-map and the source a map, only the newer
//! versions let `mergeOverwrite` replace it; hence two tables.
//!
//! Go iterates maps in random order, so `keys` and `values` have no defined order in
//! Helm; we return byte order of keys, which is one of the orders Go can produce.

use super::conversion::{arg, arg_map, arg_str, strval};
use crate::template::{FuncDef, FuncError, FuncResult, List, Map, MapType, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::variadic("dict", &[], Ty::Any, dict),
    FuncDef::plain("get", &[Ty::Map, Ty::String], get),
    FuncDef::plain("set", &[Ty::Map, Ty::String, Ty::Any], set),
    FuncDef::plain("unset", &[Ty::Map, Ty::String], unset),
    FuncDef::plain("hasKey", &[Ty::Map, Ty::String], has_key),
    FuncDef::variadic("pluck", &[Ty::String], Ty::Map, pluck),
    FuncDef::variadic("keys", &[], Ty::Map, keys),
    FuncDef::variadic("pick", &[Ty::Map], Ty::String, pick),
    FuncDef::variadic("omit", &[Ty::Map], Ty::String, omit),
    FuncDef::plain("values", &[Ty::Map], values),
    FuncDef::variadic("dig", &[], Ty::Any, dig),
    FuncDef::plain("deepCopy", &[Ty::Any], deep_copy),
    FuncDef::plain("mustDeepCopy", &[Ty::Any], deep_copy),
];

/// `merge` with mergo 0.3.13 (Helm 3).
pub static FUNCS_MERGO_0_3_13: &[FuncDef] = &[
    FuncDef::variadic("merge", &[Ty::Map], Ty::Map, merge_0_3_13),
    FuncDef::variadic("mustMerge", &[Ty::Map], Ty::Map, merge_0_3_13),
    FuncDef::variadic(
        "mergeOverwrite",
        &[Ty::Map],
        Ty::Map,
        merge_overwrite_0_3_13,
    ),
    FuncDef::variadic(
        "mustMergeOverwrite",
        &[Ty::Map],
        Ty::Map,
        merge_overwrite_0_3_13,
    ),
];

/// `merge` with mergo 0.3.16 and 1.0.1 (Helmfile 0.166, Helm 4).
pub static FUNCS_MERGO_0_3_16: &[FuncDef] = &[
    FuncDef::variadic("merge", &[Ty::Map], Ty::Map, merge_0_3_16),
    FuncDef::variadic("mustMerge", &[Ty::Map], Ty::Map, merge_0_3_16),
    FuncDef::variadic(
        "mergeOverwrite",
        &[Ty::Map],
        Ty::Map,
        merge_overwrite_0_3_16,
    ),
    FuncDef::variadic(
        "mustMergeOverwrite",
        &[Ty::Map],
        Ty::Map,
        merge_overwrite_0_3_16,
    ),
];

/// A parameter of type `map[string]interface{}` seen as that type (Go converts named
/// map types such as `chartutil.Values` on the way in).
fn plain_map(m: &Map) -> Value {
    Value::Map(m.retyped(MapType::Interface))
}

fn dict(args: &[Value]) -> FuncResult {
    let m = Map::new();
    for pair in args.chunks(2) {
        let key = strval(&pair[0]);
        m.insert(key, pair.get(1).cloned().unwrap_or_else(|| Value::str("")));
    }
    Ok(Value::Map(m))
}

fn get(args: &[Value]) -> FuncResult {
    let key = arg_str(args, 1)?;
    Ok(arg_map(args, 0)?
        .and_then(|m| m.get(key))
        .unwrap_or_else(|| Value::str("")))
}

fn set(args: &[Value]) -> FuncResult {
    let key = arg_str(args, 1)?;
    let value = arg(args, 2)?.clone();
    match arg_map(args, 0)? {
        Some(m) => {
            m.insert(key, value);
            Ok(plain_map(m))
        }
        None => Err(FuncError::call("assignment to entry in nil map")),
    }
}

fn unset(args: &[Value]) -> FuncResult {
    let key = arg_str(args, 1)?;
    match arg_map(args, 0)? {
        Some(m) => {
            m.remove(key);
            Ok(plain_map(m))
        }
        // Deleting from a nil map is a no-op in Go; the nil map comes back.
        None => Ok(Value::Map(Map::new())),
    }
}

fn has_key(args: &[Value]) -> FuncResult {
    let key = arg_str(args, 1)?;
    Ok(Value::Bool(
        arg_map(args, 0)?.is_some_and(|m| m.contains_key(key)),
    ))
}

fn pluck(args: &[Value]) -> FuncResult {
    let key = arg_str(args, 0)?;
    let mut out = Vec::new();
    for d in &args[1..] {
        if let Some(v) = d.as_map().and_then(|m| m.get(key)) {
            out.push(v);
        }
    }
    Ok(Value::list(out))
}

fn keys(args: &[Value]) -> FuncResult {
    let mut out = Vec::new();
    for d in args {
        if let Some(m) = d.as_map() {
            out.extend(m.keys().into_iter().map(Value::from));
        }
    }
    Ok(Value::List(List::of_strings(out)))
}

fn pick(args: &[Value]) -> FuncResult {
    let src = arg_map(args, 0)?;
    let out = Map::new();
    for k in &args[1..] {
        let Some(k) = k.as_str() else { continue };
        if let Some(v) = src.and_then(|m| m.get(k)) {
            out.insert(k, v);
        }
    }
    Ok(Value::Map(out))
}

fn omit(args: &[Value]) -> FuncResult {
    let out = Map::new();
    if let Some(src) = arg_map(args, 0)? {
        let drop: Vec<&str> = args[1..].iter().filter_map(Value::as_str).collect();
        for (k, v) in src.entries() {
            if !drop.contains(&k.as_str()) {
                out.insert(k, v);
            }
        }
    }
    Ok(Value::Map(out))
}

fn values(args: &[Value]) -> FuncResult {
    let out = arg_map(args, 0)?
        .map(|m| m.entries().into_iter().map(|(_, v)| v).collect())
        .unwrap_or_default();
    Ok(Value::list(out))
}

/// Go's message for a failed `x.(T)` type assertion on an `interface{}`.
fn assertion_error(v: &Value, want: &str) -> FuncError {
    let have = if v.is_nil() {
        "nil".to_string()
    } else {
        v.type_name()
    };
    FuncError::Call(format!(
        "interface conversion: interface {{}} is {have}, not {want}"
    ))
}

/// `x.(map[string]interface{})`: only that exact type passes (not `chartutil.Values`).
fn as_plain_map(v: &Value) -> Result<&Map, FuncError> {
    match v {
        Value::Map(m) if m.ty() == MapType::Interface => Ok(m),
        other => Err(assertion_error(other, "map[string]interface {}")),
    }
}

fn dig(args: &[Value]) -> FuncResult {
    if args.len() < 3 {
        return Err(FuncError::call("dig needs at least three arguments"));
    }
    let mut cur = as_plain_map(&args[args.len() - 1])?.clone();
    let default = &args[args.len() - 2];
    let mut path = Vec::with_capacity(args.len() - 2);
    for k in &args[..args.len() - 2] {
        match k {
            Value::String(s) => path.push(s.clone()),
            other => return Err(assertion_error(other, "string")),
        }
    }
    for (i, k) in path.iter().enumerate() {
        let Some(step) = cur.get(k) else {
            return Ok(default.clone());
        };
        if i + 1 == path.len() {
            return Ok(step);
        }
        cur = as_plain_map(&step)?.clone();
    }
    Ok(default.clone())
}

fn deep_copy(args: &[Value]) -> FuncResult {
    let v = arg(args, 0)?;
    if v.is_nil() {
        return Err(FuncError::call(
            "reflect: call of reflect.Value.Type on zero Value",
        ));
    }
    Ok(v.deep_copy())
}

// ---- mergo ----------------------------------------------------------------------------

#[derive(Clone, Copy)]
struct MergeOpts {
    overwrite: bool,
    /// mergo ≥ 0.3.16: a source map replaces a non-map destination under overwrite.
    map_replaces_scalar: bool,
}

fn merge_with(args: &[Value], opts: MergeOpts) -> FuncResult {
    let dst = match arg_map(args, 0)? {
        Some(m) => m.retyped(MapType::Interface),
        None => Map::new(),
    };
    for src in &args[1..] {
        if let Value::Map(s) = src {
            merge_maps(&dst, s, opts);
        }
    }
    Ok(Value::Map(dst))
}

fn merge_0_3_13(args: &[Value]) -> FuncResult {
    merge_with(
        args,
        MergeOpts {
            overwrite: false,
            map_replaces_scalar: false,
        },
    )
}

fn merge_overwrite_0_3_13(args: &[Value]) -> FuncResult {
    merge_with(
        args,
        MergeOpts {
            overwrite: true,
            map_replaces_scalar: false,
        },
    )
}

fn merge_0_3_16(args: &[Value]) -> FuncResult {
    merge_with(
        args,
        MergeOpts {
            overwrite: false,
            map_replaces_scalar: true,
        },
    )
}

fn merge_overwrite_0_3_16(args: &[Value]) -> FuncResult {
    merge_with(
        args,
        MergeOpts {
            overwrite: true,
            map_replaces_scalar: true,
        },
    )
}

/// mergo's emptiness test (through interfaces): zero values and empty containers.
fn mergo_empty(v: &Value) -> bool {
    super::defaults::is_empty(v)
}

/// mergo's `deepMerge` for two maps, key by key.
fn merge_maps(dst: &Map, src: &Map, opts: MergeOpts) {
    if dst.same(src) {
        return;
    }
    let dst_was_empty = dst.is_empty();
    let src_empty = src.is_empty();
    for (key, s) in src.entries() {
        let d = dst.get(&key);
        if s.is_nil() {
            // A nil interface in the source: only overwrite copies it.
            if opts.overwrite {
                dst.insert(key, Value::Nil);
            }
            continue;
        }
        match &s {
            Value::Map(sm) => {
                if let Some(Value::Map(dm)) = &d {
                    merge_maps(dm, sm, opts);
                }
            }
            Value::List(_) | Value::Bytes(_) => {
                // mergo rebuilds the destination slice before deciding; the emptiness
                // tests here are of the two enclosing maps, not of the elements.
                let replace = !src_empty && (opts.overwrite || dst_was_empty);
                let new = if replace {
                    s.clone()
                } else {
                    match &d {
                        None | Some(Value::Nil) => empty_like(&s),
                        Some(v) => v.clone(),
                    }
                };
                dst.insert(key.clone(), new);
            }
            _ => {}
        }
        if let Some(dv) = &d {
            if !mergo_empty(dv) {
                match (&s, dv) {
                    (Value::List(_) | Value::Bytes(_), _) => continue,
                    (Value::Map(_), Value::Map(_)) => continue,
                    (Value::Map(_), _) if !opts.map_replaces_scalar => continue,
                    _ => {}
                }
            }
        }
        if opts.overwrite || d.is_none() || d.as_ref().is_some_and(mergo_empty) {
            dst.insert(key, s);
        }
    }
}

/// An empty slice of the same type as `v`.
fn empty_like(v: &Value) -> Value {
    match v {
        Value::Bytes(_) => Value::Bytes(std::sync::Arc::from(&[][..])),
        Value::List(l) => Value::List(List::new(Vec::new()).with_type(l.ty())),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::funcs::conversion::go_int;
    use crate::vmap;

    fn show(r: FuncResult) -> String {
        match r {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    fn sample() -> (Value, Value) {
        let a = vmap! {
            "x" => Value::int(1),
            "nested" => vmap!{"p" => Value::int(1), "q" => Value::int(1)},
            "l" => Value::list(vec![go_int(1), go_int(2)]),
            "e" => "",
            "f" => false,
            "z" => Value::int(0),
        };
        let b = vmap! {
            "x" => Value::int(2),
            "nested" => vmap!{"q" => Value::int(2), "r" => Value::int(2)},
            "l" => Value::list(vec![go_int(3)]),
            "e" => "set",
            "f" => true,
            "z" => Value::int(5),
        };
        (a, b)
    }

    #[test]
    fn merge_fills_empty_destination_values() {
        let (a, b) = sample();
        assert_eq!(
            show(merge_0_3_13(&[a, b])),
            r#"{"e": "set", "f": true, "l": [1, 2], "nested": {"p": 1, "q": 1, "r": 2}, "x": 1, "z": 5}"#
        );
    }

    #[test]
    fn merge_overwrite_replaces_and_keeps_nested() {
        let (a, b) = sample();
        assert_eq!(
            show(merge_overwrite_0_3_13(&[a, b])),
            r#"{"e": "set", "f": true, "l": [3], "nested": {"p": 1, "q": 2, "r": 2}, "x": 2, "z": 5}"#
        );
        let a = vmap! {"k" => "v", "n" => Value::int(1)};
        let b = vmap! {"k" => "", "n" => Value::int(0)};
        assert_eq!(
            show(merge_overwrite_0_3_13(&[a, b])),
            r#"{"k": "", "n": 0}"#
        );
    }

    #[test]
    fn mergo_versions_differ_on_map_over_scalar() {
        let mk = || {
            (
                vmap! {"a" => "x"},
                vmap! {"a" => vmap!{"b" => Value::int(1)}},
            )
        };
        let (a, b) = mk();
        assert_eq!(show(merge_overwrite_0_3_13(&[a, b])), r#"{"a": "x"}"#);
        let (a, b) = mk();
        assert_eq!(show(merge_overwrite_0_3_16(&[a, b])), r#"{"a": {"b": 1}}"#);
        let (a, b) = mk();
        assert_eq!(show(merge_0_3_16(&[a, b])), r#"{"a": "x"}"#);
    }

    #[test]
    fn merge_nil_and_list_corners() {
        let a = vmap! {"a" => "x"};
        let b = vmap! {"a" => Value::Nil, "b" => Value::Nil};
        assert_eq!(show(merge_0_3_13(&[a, b])), r#"{"a": "x"}"#);
        let a = vmap! {"a" => "x"};
        let b = vmap! {"a" => Value::Nil};
        assert_eq!(show(merge_overwrite_0_3_13(&[a, b])), r#"{"a": nil}"#);
        let a = vmap! {"a" => ""};
        let b = vmap! {"a" => Value::list(vec![go_int(1)])};
        assert_eq!(show(merge_0_3_13(&[a, b])), r#"{"a": [1]}"#);
        let a = vmap! {"a" => Value::list(vec![go_int(1), go_int(2)])};
        let b = vmap! {"a" => Value::list(vec![])};
        assert_eq!(show(merge_overwrite_0_3_13(&[a, b])), r#"{"a": []}"#);
        let a = vmap! {"a" => "x"};
        let b = vmap! {"a" => Value::list(vec![go_int(3)])};
        assert_eq!(show(merge_overwrite_0_3_13(&[a, b])), r#"{"a": [3]}"#);
    }

    #[test]
    fn dict_get_set_dig() {
        assert_eq!(show(dict(&[Value::str("a")])), r#"{"a": ""}"#);
        assert_eq!(show(dict(&[go_int(1), go_int(2)])), r#"{"1": 2}"#);
        let m = vmap! {"a" => vmap!{"b" => Value::int(1)}};
        assert_eq!(show(get(&[m.clone(), Value::str("zz")])), r#""""#);
        assert_eq!(
            show(set(&[m.clone(), Value::str("c"), go_int(2)])),
            r#"{"a": {"b": 1}, "c": 2}"#
        );
        assert_eq!(show(has_key(&[m.clone(), Value::str("c")])), "true");
        assert_eq!(
            show(dig(&[
                Value::str("a"),
                Value::str("b"),
                Value::str("d"),
                m.clone()
            ])),
            "1"
        );
        assert_eq!(
            show(dig(&[
                Value::str("a"),
                Value::str("zz"),
                Value::str("d"),
                m.clone()
            ])),
            r#""d""#
        );
        assert_eq!(
            show(dig(&[Value::str("c"), Value::str("x"), Value::str("d"), m])),
            "ERR interface conversion: interface {} is int, not map[string]interface {}"
        );
        assert_eq!(
            show(set(&[Value::Nil, Value::str("a"), go_int(1)])),
            "ERR assignment to entry in nil map"
        );
    }
}
