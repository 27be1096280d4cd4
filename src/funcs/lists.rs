//! Sprig's list functions (`list`, `append`, `first`, `slice`, `chunk`, ...) and their
//! `must*` twins.
//!
//! Sprig works on any Go slice through reflection and returns `[]interface{}`, so the
//! result type is observable (`typeOf`, `toJson` of a nil slice is `null`): `rest` of
//! an empty list is a nil `[]interface {}`, `first` of one is untyped nil, `slice`
//! keeps the input's slice type, `chunk` returns `[][]interface {}`. The plain forms
//! panic where the `must*` forms return an error; `text/template` turns both into the
//! same `error calling X: ...`, so they share one implementation and one message. A
//! nil list panics inside `reflect.TypeOf(nil).Kind()`, which Go reports as a nil
//! pointer dereference.

use super::conversion::{arg, arg_int, slice_items, strslice, strval, to_int64};
use super::defaults::is_empty;
use super::strings::runtime;
use crate::template::{FuncDef, FuncError, FuncResult, List, ListType, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::variadic("list", &[], Ty::Any, list),
    FuncDef::variadic("tuple", &[], Ty::Any, list),
    FuncDef::plain("append", &[Ty::Any, Ty::Any], push),
    FuncDef::plain("push", &[Ty::Any, Ty::Any], push),
    FuncDef::plain("mustAppend", &[Ty::Any, Ty::Any], push),
    FuncDef::plain("mustPush", &[Ty::Any, Ty::Any], push),
    FuncDef::plain("prepend", &[Ty::Any, Ty::Any], prepend),
    FuncDef::plain("mustPrepend", &[Ty::Any, Ty::Any], prepend),
    FuncDef::plain("first", &[Ty::Any], first),
    FuncDef::plain("mustFirst", &[Ty::Any], first),
    FuncDef::plain("rest", &[Ty::Any], rest),
    FuncDef::plain("mustRest", &[Ty::Any], rest),
    FuncDef::plain("last", &[Ty::Any], last),
    FuncDef::plain("mustLast", &[Ty::Any], last),
    FuncDef::plain("initial", &[Ty::Any], initial),
    FuncDef::plain("mustInitial", &[Ty::Any], initial),
    FuncDef::plain("reverse", &[Ty::Any], reverse),
    FuncDef::plain("mustReverse", &[Ty::Any], reverse),
    FuncDef::plain("uniq", &[Ty::Any], uniq),
    FuncDef::plain("mustUniq", &[Ty::Any], uniq),
    FuncDef::variadic("without", &[Ty::Any], Ty::Any, without),
    FuncDef::variadic("mustWithout", &[Ty::Any], Ty::Any, without),
    FuncDef::plain("has", &[Ty::Any, Ty::Any], has),
    FuncDef::plain("mustHas", &[Ty::Any, Ty::Any], has),
    FuncDef::variadic("slice", &[Ty::Any], Ty::Any, slice),
    FuncDef::variadic("mustSlice", &[Ty::Any], Ty::Any, slice),
    FuncDef::variadic("concat", &[], Ty::Any, concat),
    FuncDef::plain("chunk", &[Ty::Int, Ty::Any], chunk),
    FuncDef::plain("mustChunk", &[Ty::Int, Ty::Any], chunk),
    FuncDef::plain("compact", &[Ty::Any], compact),
    FuncDef::plain("mustCompact", &[Ty::Any], compact),
    FuncDef::plain("sortAlpha", &[Ty::Any], sort_alpha),
];

/// What `reflect.TypeOf(nil).Kind()` does.
pub(crate) fn nil_deref() -> FuncError {
    runtime("invalid memory address or nil pointer dereference".to_string())
}

/// The elements of a slice argument, or Sprig's error naming the reflect kind
/// (`what` completes "Cannot find X on type K").
fn items_or(v: &Value, err: impl FnOnce(&str) -> String) -> Result<Vec<Value>, FuncError> {
    if v.is_nil() {
        return Err(nil_deref());
    }
    slice_items(v).ok_or_else(|| FuncError::Call(err(&v.kind_name())))
}

fn find_err(what: &'static str) -> impl FnOnce(&str) -> String {
    move |k| format!("Cannot find {what} on type {k}")
}

fn ilist(items: Vec<Value>) -> Value {
    Value::List(List::new(items))
}

fn list(args: &[Value]) -> FuncResult {
    Ok(ilist(args.to_vec()))
}

fn push(args: &[Value]) -> FuncResult {
    let mut items = items_or(arg(args, 0)?, |k| format!("Cannot push on type {k}"))?;
    items.push(arg(args, 1)?.clone());
    Ok(ilist(items))
}

fn prepend(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, |k| format!("Cannot prepend on type {k}"))?;
    let mut out = Vec::with_capacity(items.len() + 1);
    out.push(arg(args, 1)?.clone());
    out.extend(items);
    Ok(ilist(out))
}

fn first(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, find_err("first"))?;
    Ok(items.into_iter().next().unwrap_or(Value::Nil))
}

fn last(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, find_err("last"))?;
    Ok(items.into_iter().next_back().unwrap_or(Value::Nil))
}

fn rest(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, find_err("rest"))?;
    if items.is_empty() {
        return Ok(Value::List(List::nil(ListType::Interface)));
    }
    Ok(ilist(items[1..].to_vec()))
}

fn initial(args: &[Value]) -> FuncResult {
    let mut items = items_or(arg(args, 0)?, find_err("initial"))?;
    if items.is_empty() {
        return Ok(Value::List(List::nil(ListType::Interface)));
    }
    items.pop();
    Ok(ilist(items))
}

fn reverse(args: &[Value]) -> FuncResult {
    let mut items = items_or(arg(args, 0)?, find_err("reverse"))?;
    items.reverse();
    Ok(ilist(items))
}

fn contains_deep(haystack: &[Value], needle: &Value) -> bool {
    haystack.iter().any(|h| needle.deep_equal(h))
}

fn uniq(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, find_err("uniq"))?;
    let mut out: Vec<Value> = Vec::new();
    for it in items {
        if !contains_deep(&out, &it) {
            out.push(it);
        }
    }
    Ok(ilist(out))
}

fn without(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, find_err("without"))?;
    let omit = &args[1..];
    Ok(ilist(
        items
            .into_iter()
            .filter(|it| !contains_deep(omit, it))
            .collect(),
    ))
}

fn has(args: &[Value]) -> FuncResult {
    let needle = arg(args, 0)?;
    let haystack = arg(args, 1)?;
    if haystack.is_nil() {
        return Ok(Value::Bool(false));
    }
    let items = items_or(haystack, find_err("has"))?;
    Ok(Value::Bool(contains_deep(&items, needle)))
}

fn slice(args: &[Value]) -> FuncResult {
    let v = arg(args, 0)?;
    let items = items_or(v, |k| {
        format!("list should be type of slice or array but {k}")
    })?;
    let len = items.len() as i64;
    if len == 0 {
        return Ok(Value::Nil);
    }
    let start = args.get(1).map_or(0, to_int64);
    let end = args.get(2).map_or(len, to_int64);
    if start < 0 || end < start || end > len {
        return Err(FuncError::call(
            "reflect.Value.Slice: slice index out of bounds",
        ));
    }
    let (a, b) = (start as usize, end as usize);
    // reflect's Slice keeps the slice type.
    Ok(match v {
        Value::Bytes(bytes) => Value::Bytes(std::sync::Arc::from(&bytes[a..b])),
        Value::List(l) => Value::List(List::new(items[a..b].to_vec()).with_type(l.ty())),
        _ => ilist(items[a..b].to_vec()),
    })
}

fn concat(args: &[Value]) -> FuncResult {
    let mut out: Vec<Value> = Vec::new();
    for l in args {
        if l.is_nil() {
            return Err(nil_deref());
        }
        match slice_items(l) {
            Some(items) => out.extend(items),
            None => {
                return Err(FuncError::Call(format!(
                    "Cannot concat type {} as list",
                    l.kind_name()
                )))
            }
        }
    }
    if out.is_empty() {
        return Ok(Value::List(List::nil(ListType::Interface)));
    }
    Ok(ilist(out))
}

fn chunk(args: &[Value]) -> FuncResult {
    let size = arg_int(args, 0)?;
    let items = items_or(arg(args, 1)?, |k| format!("Cannot chunk type {k}"))?;
    let l = items.len() as i64;
    // Sprig computes the chunk count in float64; a zero or negative size gives
    // infinities or negative counts that Go's make() rejects.
    let count = ((l - 1) as f64 / size as f64).floor() + 1.0;
    let count = super::conversion::go_f64_to_i64(count);
    if count < 0 {
        return Err(runtime("makeslice: len out of range".to_string()));
    }
    let mut chunks = Vec::with_capacity(count as usize);
    for i in 0..count {
        let mut clen = size;
        if i == count - 1 {
            clen = super::conversion::go_f64_to_i64((l as f64 % size as f64).floor());
            if clen == 0 {
                clen = size;
            }
        }
        let mut c = Vec::with_capacity(clen.max(0) as usize);
        for j in 0..clen {
            let ix = i * size + j;
            match usize::try_from(ix).ok().and_then(|ix| items.get(ix)) {
                Some(v) => c.push(v.clone()),
                None => {
                    return Err(runtime(format!(
                        "index out of range [{ix}] with length {l}"
                    )))
                }
            }
        }
        chunks.push(ilist(c));
    }
    Ok(Value::List(
        List::new(chunks).with_type(ListType::Named("[][]interface {}")),
    ))
}

fn compact(args: &[Value]) -> FuncResult {
    let items = items_or(arg(args, 0)?, |k| format!("Cannot compact on type {k}"))?;
    Ok(ilist(items.into_iter().filter(|v| !is_empty(v)).collect()))
}

fn sort_alpha(args: &[Value]) -> FuncResult {
    let v = arg(args, 0)?;
    if slice_items(v).is_none() {
        return Ok(Value::List(List::of_strings(vec![Value::str(strval(v))])));
    }
    let mut strs: Vec<String> = strslice(v).iter().map(strval).collect();
    strs.sort_unstable();
    Ok(Value::List(List::of_strings(
        strs.into_iter().map(Value::from).collect(),
    )))
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

    fn l(items: Vec<Value>) -> Value {
        Value::list(items)
    }

    #[test]
    fn element_access() {
        let abc = l(vec![go_int(1), go_int(2), go_int(3)]);
        assert_eq!(show(first(std::slice::from_ref(&abc))), "1");
        assert_eq!(show(last(std::slice::from_ref(&abc))), "3");
        assert_eq!(show(rest(std::slice::from_ref(&abc))), "[2, 3]");
        assert_eq!(show(initial(std::slice::from_ref(&abc))), "[1, 2]");
        assert_eq!(show(first(&[l(vec![])])), "nil");
        assert_eq!(show(rest(&[l(vec![])])), "nil[]");
        assert_eq!(
            show(first(&[Value::Nil])),
            "ERR runtime error: invalid memory address or nil pointer dereference"
        );
        assert_eq!(
            show(first(&[Value::str("abc")])),
            "ERR Cannot find first on type string"
        );
        assert_eq!(show(push(&[abc.clone(), go_int(4)])), "[1, 2, 3, 4]");
        assert_eq!(show(prepend(&[abc.clone(), go_int(0)])), "[0, 1, 2, 3]");
        assert_eq!(show(reverse(&[abc])), "[3, 2, 1]");
    }

    #[test]
    fn slicing_and_chunking() {
        let abc = l(vec![go_int(1), go_int(2), go_int(3)]);
        assert_eq!(show(slice(&[abc.clone(), go_int(1)])), "[2, 3]");
        assert_eq!(show(slice(&[abc.clone(), go_int(1), go_int(2)])), "[2]");
        assert_eq!(
            show(slice(&[abc.clone(), go_int(2), go_int(1)])),
            "ERR reflect.Value.Slice: slice index out of bounds"
        );
        assert_eq!(show(slice(&[l(vec![]), go_int(1)])), "nil");
        assert_eq!(
            show(slice(&[Value::str("abc"), go_int(1)])),
            "ERR list should be type of slice or array but string"
        );
        assert_eq!(
            show(chunk(&[go_int(2), abc.clone()])),
            "[][]interface {}[[1, 2], [3]]"
        );
        assert_eq!(show(chunk(&[go_int(2), l(vec![])])), "[][]interface {}[]");
        assert_eq!(
            show(chunk(&[go_int(0), abc])),
            "ERR runtime error: makeslice: len out of range"
        );
    }

    #[test]
    fn set_like_operations() {
        let v = l(vec![
            go_int(1),
            Value::str("a"),
            go_int(1),
            Value::Float(1.0),
        ]);
        assert_eq!(
            show(uniq(std::slice::from_ref(&v))),
            "[1, \"a\", float64(1.0)]"
        );
        assert_eq!(
            show(without(&[v.clone(), go_int(1)])),
            "[\"a\", float64(1.0)]"
        );
        assert_eq!(show(has(&[go_int(1), v.clone()])), "true");
        assert_eq!(show(has(&[Value::int64(1), v])), "false");
        assert_eq!(show(has(&[go_int(1), Value::Nil])), "false");
        let c = l(vec![
            go_int(0),
            Value::str(""),
            go_int(1),
            Value::Nil,
            Value::Bool(false),
        ]);
        assert_eq!(show(compact(&[c])), "[1]");
        assert_eq!(
            show(concat(&[l(vec![go_int(1)]), l(vec![go_int(2)])])),
            "[1, 2]"
        );
        assert_eq!(show(concat(&[])), "nil[]");
        assert_eq!(
            show(concat(&[l(vec![]), go_int(2)])),
            "ERR Cannot concat type int as list"
        );
        let s = l(vec![
            Value::str("b"),
            Value::str("B"),
            Value::str("a"),
            go_int(10),
            go_int(9),
        ]);
        assert_eq!(
            show(sort_alpha(&[s])),
            r#"[]string["10", "9", "B", "a", "b"]"#
        );
        assert_eq!(show(sort_alpha(&[Value::Nil])), r#"[]string["<nil>"]"#);
    }
}
