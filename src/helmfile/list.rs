//! `helmfile list` output: the JSON form (one compact line, Go `encoding/json`
//! escaping) and the table form (`gosuri/uitable`: tab-separated cells, each padded
//! to its column's width, the last column included).

use serde::Serialize;

/// One row of `helmfile list`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ListedRelease {
    pub name: String,
    pub namespace: String,
    pub enabled: bool,
    pub installed: bool,
    /// `k:v` pairs sorted by key, joined with `,`.
    pub labels: String,
    pub chart: String,
    pub version: String,
}

/// Go's `encoding/json` string literal (HTML-safe escaping, as `json.Marshal` does),
/// from the one Go JSON encoder the template functions use.
pub fn go_json_string(s: &str) -> String {
    // Marshalling a string cannot fail; the fallback is never taken.
    crate::funcs::codec::yaml::go_json(&crate::template::Value::from(s))
        .unwrap_or_else(|_| format!("{s:?}"))
}

/// `helmfile list --output json` stdout, including the final newline. No releases
/// print as `null`, as Go marshals a nil slice.
pub fn format_json(releases: &[ListedRelease]) -> String {
    if releases.is_empty() {
        return "null\n".to_string();
    }
    let items: Vec<String> = releases
        .iter()
        .map(|r| {
            format!(
                "{{\"name\":{},\"namespace\":{},\"enabled\":{},\"installed\":{},\"labels\":{},\"chart\":{},\"version\":{}}}",
                go_json_string(&r.name),
                go_json_string(&r.namespace),
                r.enabled,
                r.installed,
                go_json_string(&r.labels),
                go_json_string(&r.chart),
                go_json_string(&r.version)
            )
        })
        .collect();
    format!("[{}]\n", items.join(","))
}

/// `helmfile list` (table) stdout, including the final newline.
pub fn format_table(releases: &[ListedRelease]) -> String {
    let mut rows: Vec<[String; 7]> = vec![[
        "NAME".into(),
        "NAMESPACE".into(),
        "ENABLED".into(),
        "INSTALLED".into(),
        "LABELS".into(),
        "CHART".into(),
        "VERSION".into(),
    ]];
    for r in releases {
        rows.push([
            r.name.clone(),
            r.namespace.clone(),
            r.enabled.to_string(),
            r.installed.to_string(),
            r.labels.clone(),
            r.chart.clone(),
            r.version.clone(),
        ]);
    }
    let mut widths = [0usize; 7];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let lines: Vec<String> = rows
        .iter()
        .map(|row| {
            row.iter()
                .zip(widths.iter())
                .map(|(cell, &w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
                .collect::<Vec<_>>()
                .join("\t")
        })
        .collect();
    format!("{}\n", lines.join("\n"))
}

/// The `labels` column: `k:v` pairs sorted by key, joined with `,`.
pub fn format_labels<'a>(labels: impl IntoIterator<Item = (&'a String, &'a String)>) -> String {
    let mut pairs: Vec<(&String, &String)> = labels.into_iter().collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}:{v}"))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(
        name: &str,
        ns: &str,
        enabled: bool,
        installed: bool,
        labels: &str,
        version: &str,
    ) -> ListedRelease {
        ListedRelease {
            name: name.into(),
            namespace: ns.into(),
            enabled,
            installed,
            labels: labels.into(),
            chart: "../_echo".into(),
            version: version.into(),
        }
    }

    #[test]
    fn table_matches_helmfile() {
        // fidelity lab: helmfile --state-values-set b.enabled=false list
        let rs = vec![
            rel("a", "tmplns", true, true, "tier:web", "0.1.0"),
            rel("b", "tmplns", false, true, "tier:web", ""),
            rel("c", "tmplns", true, false, "tier:web", ""),
            rel("d", "", true, false, "group:g2", ""),
        ];
        let want = "NAME\tNAMESPACE\tENABLED\tINSTALLED\tLABELS  \tCHART   \tVERSION\n\
a   \ttmplns   \ttrue   \ttrue     \ttier:web\t../_echo\t0.1.0  \n\
b   \ttmplns   \tfalse  \ttrue     \ttier:web\t../_echo\t       \n\
c   \ttmplns   \ttrue   \tfalse    \ttier:web\t../_echo\t       \n\
d   \t         \ttrue   \tfalse    \tgroup:g2\t../_echo\t       \n";
        assert_eq!(format_table(&rs), want);
    }

    #[test]
    fn json_matches_helmfile() {
        let rs = vec![rel("a", "tmplns", true, true, "tier:web", "0.1.0")];
        assert_eq!(
            format_json(&rs),
            "[{\"name\":\"a\",\"namespace\":\"tmplns\",\"enabled\":true,\"installed\":true,\"labels\":\"tier:web\",\"chart\":\"../_echo\",\"version\":\"0.1.0\"}]\n"
        );
        assert_eq!(format_json(&[]), "null\n");
        assert_eq!(go_json_string("<a&b>"), "\"\\u003ca\\u0026b\\u003e\"");
    }

    #[test]
    fn labels_sorted() {
        let l: std::collections::BTreeMap<String, String> = [
            ("z".to_string(), "1".to_string()),
            ("a".to_string(), "2".to_string()),
        ]
        .into();
        assert_eq!(format_labels(&l), "a:2,z:1");
    }
}
