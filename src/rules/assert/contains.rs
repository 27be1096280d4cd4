//! `contains`: every selected value holds the given entries (a map superset, a list
//! holding the given elements), compared recursively.

use serde_json::Value as Json;

use super::{json_eq, schema_of, show, with_value, Assertion, Ctx, KindDef, Violation};

pub(super) static KIND: KindDef = KindDef {
    name: "contains",
    summary: "Every selected value contains the given entries (map keys, list elements).",
    what: "A map parameter requires each of its keys in the selected map, with a value that \
in turn contains the parameter's value (so nested maps are partial too); a list parameter \
requires each of its elements to be contained by some element of the selected list; any \
other parameter must equal the selected value (as `equals` compares). Entries the parameter \
does not mention are ignored.",
    why: "Wiring checks name the few entries that matter in a large map: the environment \
variables a chart must receive, the annotations a hook needs. Pinning the whole map with \
`equals` would break on every unrelated addition.",
    example: r#"rules:
  - id: autoscaler-env
    title: The autoscaler reads the bundled metrics backend
    layer: values
    select:
      release: function-autoscaler
      path: $.functionautoscaler.env
    assert:
      - contains:
          TIMESERIES_DB__AUTH_MODE: none
          TIMESERIES_DB__IGNORE_ENV: "true"
"#,
    empty_ok: false,
    missing_ok: false,
    on_failed_layer: false,
    schema: schema_of::<Json>,
    build: |node| with_value(node, Contains),
};

/// The entries the selected values must hold.
struct Contains(Json);

/// The first part of `want` that `have` lacks, as a JSONPath-like suffix and the wanted
/// value; `None` when `have` contains all of `want`.
fn missing(have: &Json, want: &Json, at: String) -> Option<(String, Json)> {
    match (have, want) {
        (Json::Object(h), Json::Object(w)) => w.iter().find_map(|(k, wv)| match h.get(k) {
            Some(hv) => missing(hv, wv, format!("{at}['{k}']")),
            None => Some((format!("{at}['{k}']"), wv.clone())),
        }),
        (Json::Array(h), Json::Array(w)) => w
            .iter()
            .find(|wv| !h.iter().any(|hv| missing(hv, wv, String::new()).is_none()))
            .map(|wv| (format!("{at}[*]"), wv.clone())),
        _ if json_eq(have, want) => None,
        _ => Some((at, want.clone())),
    }
}

impl Assertion for Contains {
    fn check(&self, cx: &Ctx<'_, '_>) -> Vec<Violation> {
        cx.sel
            .nodes
            .iter()
            .filter_map(|n| {
                let (at, want) = missing(n.value, &self.0, String::new())?;
                let found = if at.is_empty() {
                    format!("expected {}, found {}", show(&want), show(n.value))
                } else if at.ends_with("[*]") {
                    format!("{at} has no element matching {}", show(&want))
                } else {
                    format!("expected {at} to be {}", show(&want))
                };
                let mut v = Violation::at(n, found);
                // Point at the entry that differs (its line, when it exists).
                let inner = at.trim_end_matches("[*]");
                if !inner.is_empty() {
                    v.path = Some(format!("{}{inner}", n.path));
                }
                Some(v)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_maps_and_lists() {
        let have = json!({"a": 1, "b": {"c": [1, 2, {"d": "x", "e": 1}]}});
        assert!(missing(&have, &json!({"a": 1.0}), String::new()).is_none());
        assert!(missing(&have, &json!({"b": {"c": [2, {"d": "x"}]}}), String::new()).is_none());
        assert_eq!(
            missing(&have, &json!({"b": {"c": [3]}}), String::new()),
            Some(("['b']['c'][*]".into(), json!(3)))
        );
        assert_eq!(
            missing(&have, &json!({"z": true}), String::new()),
            Some(("['z']".into(), json!(true)))
        );
        assert_eq!(
            missing(&json!("x"), &json!("y"), String::new()),
            Some((String::new(), json!("y")))
        );
    }
}
