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

/// Collects the warnings Helm logs while preparing values (it never fails on
/// them), each as Helm 3 and Helm 4 print it: Helm 3's standard logger prefixes
/// the Go file and line (`coalesce.go:237: warning: ...`); Helm 4 sends that logger
/// through slog at INFO, and logs dependency problems with its own slog calls.
#[derive(Default, Debug)]
pub struct Warnings(Vec<Logged>);

#[derive(Debug)]
struct Logged {
    v3: String,
    /// `None`: Helm 4 does not log it.
    v4: Option<String>,
}

impl Warnings {
    /// A `log.Printf` of Helm's `coalesce.go` (`line` as in Helm 3.15).
    pub fn coalesce(&mut self, line: u32, msg: String) {
        self.0.push(Logged {
            v3: format!("coalesce.go:{line}: {msg}"),
            v4: Some(format!("level=INFO msg={}", slog_text(&msg))),
        });
    }

    /// A warning of Helm's `dependencies.go`: Helm 3's `log.Printf` at `line`, and
    /// Helm 4's `slog.Warn` with its attributes.
    pub fn dependencies(&mut self, line: u32, msg: String, v4_msg: &str, attrs: &[(&str, &str)]) {
        let mut v4 = format!("level=WARN msg={}", slog_text(v4_msg));
        for (k, v) in attrs {
            v4.push_str(&format!(" {k}={}", slog_text(v)));
        }
        self.0.push(Logged {
            v3: format!("dependencies.go:{line}: {msg}"),
            v4: Some(v4),
        });
    }

    /// The lines the given Helm version prints, in order.
    pub fn lines(self, ver: HelmVersion) -> Vec<String> {
        self.0
            .into_iter()
            .filter_map(|l| match ver {
                HelmVersion::V3 => Some(l.v3),
                HelmVersion::V4 => l.v4,
            })
            .collect()
    }
}

/// A value as slog's text handler writes it: quoted (Go `strconv.Quote`) when
/// empty or when it holds a space, `=`, `"` or a character that is not printable.
/// Also used for Helm 4's other log lines (the manifest sorter's).
pub(super) fn slog_text(s: &str) -> String {
    let plain = !s.is_empty()
        && !s
            .chars()
            .any(|c| c.is_whitespace() || c == '=' || c == '"' || c.is_control());
    if plain {
        s.to_string()
    } else {
        crate::template::fmt::quote(s)
    }
}

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
            w.coalesce(
                138,
                "warning: skipping globals because destination global is not a table.".into(),
            );
            return;
        }
    };
    let sg = match src.get("global") {
        None => Map::new(),
        Some(Value::Map(m)) => m,
        Some(_) => {
            w.coalesce(
                145,
                "warning: skipping globals because source global is not a table.".into(),
            );
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
                    w.coalesce(
                        161,
                        format!(
                            "Conflict: cannot merge map onto non-map for {}. Skipping.",
                            crate::template::fmt::quote(&key)
                        ),
                    );
                }
            }
        } else if dg.get(&key).is_some_and(|d| is_table(&d)) {
            w.coalesce(175, format!("key {key} is table. Skipping"));
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
                    _ => w.coalesce(
                        237,
                        format!("warning: skipped value for {sub_prefix}.{key}: Not a table."),
                    ),
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
                        w.coalesce(
                            286,
                            format!(
                                "warning: cannot overwrite table with non table for {full_key} ({})",
                                crate::template::fmt::sprint(std::slice::from_ref(&val))
                            ),
                        );
                    }
                } else if is_table(&dv) && !val.is_nil() {
                    w.coalesce(
                        289,
                        format!(
                            "warning: destination for {full_key} is a table. Ignoring non-table value ({})",
                            crate::template::fmt::sprint(std::slice::from_ref(&val))
                        ),
                    );
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
