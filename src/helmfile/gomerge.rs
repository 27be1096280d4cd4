//! Helmfile's map merging, which is `mergo.Merge` (v0.3.16) on `map[string]any`.
//!
//! Helmfile merges state values, environment values and the values files that
//! `write-values` prints with mergo, not with Helm's coalescing or Sprig's `merge`, and
//! the difference is visible: with `WithOverride` a nil in the source *writes* a nil
//! (`del: null` survives), an empty string or `false` replaces a non-empty value, lists
//! replace lists, and two maps merge key by key *into the destination map in place*
//! (so a destination map that other values share is changed for all of them, as in
//! Go). Without `WithOverride` a key is only filled when the destination lacks it or
//! holds an empty value.

use crate::template::{Map, Value};

/// `mergo.Merge(&dst, src, mergo.WithOverride)` for two `map[string]any`.
pub fn merge_override(dst: &Map, src: &Map) {
    if dst.same(src) {
        return;
    }
    for (key, sv) in src.entries() {
        if let Value::Map(sm) = &sv {
            if let Some(Value::Map(dm)) = dst.get(&key) {
                // Both maps: merged in place; an emptied destination is then replaced
                // (mergo's "empty destination" rule, which gives the same content).
                merge_override(&dm, sm);
                if !dm.is_empty() {
                    continue;
                }
            }
        }
        dst.insert(key, sv);
    }
}

/// `mergo.Merge(&dst, src)` (no override) for two `map[string]any`: only missing or
/// empty destination entries are filled; nested maps merge recursively; a nil source
/// entry never writes.
pub fn merge_fill(dst: &Map, src: &Map) {
    if dst.same(src) {
        return;
    }
    for (key, sv) in src.entries() {
        if sv.is_nil() {
            continue;
        }
        let dv = dst.get(&key);
        if let (Value::Map(sm), Some(Value::Map(dm))) = (&sv, &dv) {
            merge_fill(dm, sm);
            if !dm.is_empty() {
                continue;
            }
        }
        match dv {
            Some(d) if !is_empty(&d) => {}
            _ => {
                dst.insert(key, sv);
            }
        }
    }
}

/// mergo's `isEmptyValue` with dereferencing, as seen through an `interface{}`:
/// on plain data it is Sprig's `empty` (nil, zero numbers, `false`, zero-length
/// strings, lists and maps), so the one implementation serves both.
pub(crate) use crate::funcs::defaults::is_empty;

/// Helmfile's `maputil.MergeMaps(a, b)`: a new map with `b` deep-merged over `a`
/// (maps merge recursively, anything else from `b` wins). Used to combine repeated
/// `--state-values-set` flags.
pub fn merge_maps(a: &Map, b: &Map) -> Map {
    let out = a.shallow_copy();
    for (k, bv) in b.entries() {
        if let Value::Map(bm) = &bv {
            if let Some(Value::Map(am)) = out.get(&k) {
                out.insert(k, Value::Map(merge_maps(&am, bm)));
                continue;
            }
        }
        out.insert(k, bv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    fn m(v: Value) -> Map {
        match v {
            Value::Map(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn override_deep_merges_maps_and_replaces_lists() {
        let dst = m(
            vmap! {"a" => vmap!{"x" => 1.0, "y" => 2.0}, "l" => vec![Value::int(1)], "s" => "keep"},
        );
        let src = m(vmap! {"a" => vmap!{"y" => 3.0}, "l" => vec![Value::int(9)], "s" => ""});
        merge_override(&dst, &src);
        let a = dst
            .get("a")
            .and_then(|v| v.as_map().cloned())
            .unwrap_or_default();
        assert_eq!(
            a.get("x").map(|v| v.deep_equal(&Value::Float(1.0))),
            Some(true)
        );
        assert_eq!(
            a.get("y").map(|v| v.deep_equal(&Value::Float(3.0))),
            Some(true)
        );
        assert!(dst
            .get("l")
            .is_some_and(|v| v.deep_equal(&Value::list(vec![Value::int(9)]))));
        // an empty string overrides (mergo's override does not test the source)
        assert!(dst.get("s").is_some_and(|v| v.deep_equal(&Value::str(""))));
    }

    #[test]
    fn override_writes_nil() {
        let dst = m(vmap! {"del" => "x"});
        let src = Map::new();
        src.insert("del", Value::Nil);
        merge_override(&dst, &src);
        assert!(dst.get("del").is_some_and(|v| v.is_nil()));
    }

    #[test]
    fn nested_merge_mutates_shared_destination() {
        let inner = m(vmap! {"a" => 1.0});
        let dst = Map::new();
        dst.insert("n", Value::Map(inner.clone()));
        merge_override(&dst, &m(vmap! {"n" => vmap!{"b" => 2.0}}));
        assert!(inner.contains_key("b"));
    }

    #[test]
    fn fill_only_sets_missing_or_empty() {
        let dst = m(vmap! {"a" => "x", "e" => ""});
        merge_fill(&dst, &m(vmap! {"a" => "y", "e" => "z", "n" => "new"}));
        assert_eq!(
            dst.get("a").and_then(|v| v.as_str().map(String::from)),
            Some("x".into())
        );
        assert_eq!(
            dst.get("e").and_then(|v| v.as_str().map(String::from)),
            Some("z".into())
        );
        assert!(dst.contains_key("n"));
    }

    #[test]
    fn merge_maps_is_deep_and_fresh() {
        let a = m(vmap! {"x" => vmap!{"p" => 1.0}});
        let b = m(vmap! {"x" => vmap!{"q" => 2.0}});
        let c = merge_maps(&a, &b);
        let x = c
            .get("x")
            .and_then(|v| v.as_map().cloned())
            .unwrap_or_default();
        assert!(x.contains_key("p") && x.contains_key("q"));
        assert!(!a
            .get("x")
            .and_then(|v| v.as_map().cloned())
            .unwrap_or_default()
            .contains_key("q"));
    }
}
