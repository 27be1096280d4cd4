//! Helm's values coalescing (`chartutil/coalesce.go` in v3, `chart/common/util` in
//! v4): how user values, chart defaults, subchart defaults and globals combine.
//!
//! The rules are easy to state (higher level wins, maps merge, scalars and lists
//! replace) but the handling of `null` is subtle and changed in Helm 4, and charts
//! observe it (`hasKey`, `toYaml` of a subtree). So this is a step-by-step port of the
//! algorithm over the shared, mutable [`Map`]s of the value model — including where
//! Go shares nested maps between copies and where it deep-copies — with the two
//! versions' null rules side by side.

use super::tree::Node;
use super::HelmVersion;
use crate::template::{Map, Value};

/// Collects the warnings Helm logs while coalescing (it never fails on them).
#[derive(Default, Debug)]
pub struct Warnings(pub Vec<String>);

fn concat_prefix(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

fn is_table(v: &Value) -> bool {
    matches!(v, Value::Map(_))
}

/// `CoalesceValues` (merge = false) / `MergeValues` (merge = true): the chart's
/// defaults (and its subcharts') under a deep copy of `vals`.
pub fn coalesce_chart(
    ver: HelmVersion,
    node: &Node,
    vals: &Map,
    merge: bool,
    w: &mut Warnings,
) -> Result<Map, String> {
    let dest = vals.deep_copy();
    coalesce(ver, node, dest, "", merge, w)
}

fn coalesce(
    ver: HelmVersion,
    node: &Node,
    dest: Map,
    prefix: &str,
    merge: bool,
    w: &mut Warnings,
) -> Result<Map, String> {
    coalesce_values(ver, node, &dest, prefix, merge, w);
    coalesce_deps(ver, node, dest, prefix, merge, w)
}

fn coalesce_deps(
    ver: HelmVersion,
    node: &Node,
    dest: Map,
    prefix: &str,
    merge: bool,
    w: &mut Warnings,
) -> Result<Map, String> {
    for sub in &node.deps {
        let dvmap = match dest.get(&sub.name) {
            None => {
                let m = Map::new();
                dest.insert(sub.name.clone(), Value::Map(m.clone()));
                m
            }
            Some(Value::Map(m)) => m,
            Some(other) => {
                return Err(format!(
                    "type mismatch on {}: {}",
                    sub.name,
                    go_percent_t(&other)
                ))
            }
        };
        let sub_prefix = concat_prefix(prefix, &node.name);
        coalesce_globals(&dvmap, &dest, &sub_prefix, w);
        let out = coalesce(ver, sub, dvmap, &sub_prefix, merge, w)?;
        dest.insert(sub.name.clone(), Value::Map(out));
    }
    Ok(dest)
}

/// Go's `%t` verb applied to a non-bool, as in Helm's type-mismatch message.
fn go_percent_t(v: &Value) -> String {
    match v {
        Value::Bool(b) => b.to_string(),
        Value::Nil => "%!t(<nil>)".to_string(),
        other => format!(
            "%!t({}={})",
            other.type_name(),
            crate::template::fmt::sprint(std::slice::from_ref(other))
        ),
    }
}

/// Copies the parent's globals into the subchart's values, merging tables top-down.
fn coalesce_globals(dest: &Map, src: &Map, prefix: &str, w: &mut Warnings) {
    let dg = match dest.get("global") {
        None => Map::new(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            w.0.push("warning: skipping globals because destination global is not a table.".into());
            return;
        }
    };
    let sg = match src.get("global") {
        None => Map::new(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            w.0.push("warning: skipping globals because source global is not a table.".into());
            return;
        }
    };
    for (key, val) in sg.entries() {
        if let Value::Map(vm) = &val {
            let vv = vm.shallow_copy();
            match dg.get(&key) {
                None => {
                    dg.insert(key, Value::Map(vv));
                }
                Some(Value::Map(destv)) => {
                    coalesce_tables(
                        HelmVersion::V3,
                        &vv,
                        &destv,
                        &concat_prefix(prefix, &key),
                        true,
                        w,
                    );
                    dg.insert(key, Value::Map(vv));
                }
                Some(_) => {
                    w.0.push(format!(
                        "Conflict: cannot merge map onto non-map for {key:?}. Skipping."
                    ));
                }
            }
        } else if dg.get(&key).is_some_and(|d| is_table(&d)) {
            w.0.push(format!("key {key} is table. Skipping"));
        } else {
            dg.insert(key, val);
        }
    }
    dest.insert("global", Value::Map(dg));
}

/// Recursively removes nil entries (Helm 4, chart defaults only).
fn clean_nil_values(m: &Map) {
    for (k, v) in m.entries() {
        match v {
            Value::Nil => {
                m.remove(&k);
            }
            Value::Map(sub) => clean_nil_values(&sub),
            _ => {}
        }
    }
}

/// Builds the values for one chart: `v` (higher priority) over the chart's defaults.
fn coalesce_values(
    ver: HelmVersion,
    node: &Node,
    v: &Map,
    prefix: &str,
    merge: bool,
    w: &mut Warnings,
) {
    let sub_prefix = concat_prefix(prefix, &node.name);
    let vc = node.values.deep_copy();
    for (key, val) in vc.entries() {
        if let Some(value) = v.get(&key) {
            if value.is_nil() && !merge {
                v.remove(&key);
            } else if let Value::Map(dest) = &value {
                match &val {
                    Value::Map(src) => {
                        let mut merge = merge;
                        if ver == HelmVersion::V4 {
                            if node.deps.iter().any(|d| d.name == key) {
                                merge = true;
                            }
                            if !merge {
                                clean_nil_values(src);
                            }
                        }
                        coalesce_tables(
                            ver,
                            dest,
                            src,
                            &concat_prefix(&sub_prefix, &key),
                            merge,
                            w,
                        );
                    }
                    Value::Nil => {}
                    other => w.0.push(format!(
                        "warning: skipped value for {sub_prefix}.{key}: Not a table. ({other:?})"
                    )),
                }
            }
        } else {
            if ver == HelmVersion::V4 && !merge {
                if val.is_nil() {
                    continue;
                }
                if let Value::Map(sub) = &val {
                    clean_nil_values(sub);
                }
            }
            v.insert(key, val);
        }
    }
}

/// `CoalesceTables` (merge = false) / `MergeTables` (merge = true): `src` into
/// `dst`, `dst` authoritative.
pub fn coalesce_tables(
    ver: HelmVersion,
    dst: &Map,
    src: &Map,
    prefix: &str,
    merge: bool,
    w: &mut Warnings,
) {
    let mut src_original_non_nil = std::collections::HashSet::new();
    if ver == HelmVersion::V4 {
        for (k, v) in src.entries() {
            if !v.is_nil() {
                src_original_non_nil.insert(k);
            }
        }
        for (k, v) in dst.entries() {
            if v.is_nil() {
                src.insert(k, Value::Nil);
            }
        }
    }
    for (key, val) in src.entries() {
        let full_key = concat_prefix(prefix, &key);
        let dv = dst.get(&key);
        let dst_nil = dv.as_ref().is_some_and(Value::is_nil);
        let delete = match ver {
            HelmVersion::V3 => dst_nil && !merge,
            HelmVersion::V4 => dst_nil && !merge && src_original_non_nil.contains(&key),
        };
        if delete {
            dst.remove(&key);
            continue;
        }
        match dv {
            None => {
                dst.insert(key, val);
            }
            Some(dv) => {
                if let Value::Map(sv) = &val {
                    if let Value::Map(dm) = &dv {
                        coalesce_tables(ver, dm, sv, &full_key, merge, w);
                    } else {
                        w.0.push(format!(
                            "warning: cannot overwrite table with non table for {full_key} ({})",
                            crate::template::fmt::sprint(std::slice::from_ref(&val))
                        ));
                    }
                } else if is_table(&dv) && !val.is_nil() {
                    w.0.push(format!(
                        "warning: destination for {full_key} is a table. Ignoring non-table value ({})",
                        crate::template::fmt::sprint(std::slice::from_ref(&val))
                    ));
                }
            }
        }
    }
}

/// `Values.Table`: follows a dotted path of maps.
pub fn table(v: &Map, path: &str) -> Option<Map> {
    let mut cur = v.clone();
    for part in path.split('.') {
        match cur.get(part) {
            Some(Value::Map(m)) => cur = m,
            _ => return None,
        }
    }
    Some(cur)
}

/// `Values.PathValue`: the non-table value at a dotted path.
pub fn path_value(v: &Map, path: &str) -> Option<Value> {
    if path.is_empty() {
        return None;
    }
    let parts: Vec<&str> = path.split('.').collect();
    let (key, rest) = parts.split_last()?;
    let t = if rest.is_empty() {
        v.clone()
    } else {
        table(v, &rest.join("."))?
    };
    match t.get(key) {
        Some(x) if !is_table(&x) => Some(x),
        _ => None,
    }
}
