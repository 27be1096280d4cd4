//! `--selector` label filters (`tier=web,name!=b`), parsed and matched as Helmfile
//! does: a release matches a filter when every positive pair is present with that
//! value and no negative pair is present with that value; it is selected when it
//! matches any one of the filters. While selectors are active, every release also
//! carries the labels `name`, `namespace` and `chart` (the last path segment of
//! its chart), then the state's `commonLabels`.

use std::collections::BTreeMap;

/// One `--selector` argument.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LabelFilter {
    positive: Vec<(String, String)>,
    negative: Vec<(String, String)>,
}

/// A malformed selector, with Helmfile's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed label: {0}. Expected label in form k=v or k!=v")]
pub struct MalformedLabel(pub String);

fn is_label_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '+' | '-')
}

fn is_label_word(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_label_char)
}

impl LabelFilter {
    /// Parses `k=v,k2!=v2`.
    pub fn parse(selector: &str) -> Result<LabelFilter, MalformedLabel> {
        let mut f = LabelFilter::default();
        for label in selector.split(',') {
            if let Some((k, v)) = label.split_once("!=") {
                if is_label_word(k) && is_label_word(v) {
                    f.negative.push((k.to_string(), v.to_string()));
                    continue;
                }
            }
            match label.split_once('=') {
                Some((k, v)) if is_label_word(k) && is_label_word(v) => {
                    f.positive.push((k.to_string(), v.to_string()));
                }
                _ => return Err(MalformedLabel(label.to_string())),
            }
        }
        Ok(f)
    }

    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.positive
            .iter()
            .all(|(k, v)| labels.get(k).is_some_and(|x| x == v))
            && self
                .negative
                .iter()
                .all(|(k, v)| labels.get(k).is_none_or(|x| x != v))
    }
}

/// The labels a release is matched with while selectors are active.
pub fn selector_labels(
    labels: &BTreeMap<String, String>,
    name: &str,
    namespace: &str,
    chart: &str,
    common: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut l = labels.clone();
    l.insert("name".into(), name.into());
    l.insert("namespace".into(), namespace.into());
    l.insert(
        "chart".into(),
        chart.rsplit('/').next().unwrap_or(chart).to_string(),
    );
    for (k, v) in common {
        l.insert(k.clone(), v.clone());
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn positive_and_negative() {
        let f = LabelFilter::parse("tier=web,name!=b").unwrap();
        assert!(f.matches(&labels(&[("tier", "web"), ("name", "a")])));
        assert!(!f.matches(&labels(&[("tier", "web"), ("name", "b")])));
        assert!(!f.matches(&labels(&[("name", "a")])));
        assert!(f.matches(&labels(&[("tier", "web")])));
    }

    #[test]
    fn malformed() {
        let e = LabelFilter::parse("tier").unwrap_err();
        assert_eq!(
            e.to_string(),
            "malformed label: tier. Expected label in form k=v or k!=v"
        );
        assert!(LabelFilter::parse("a=b=c").is_err());
        assert!(LabelFilter::parse("a=").is_err());
    }

    #[test]
    fn chart_label_is_last_segment() {
        let l = selector_labels(
            &BTreeMap::new(),
            "x",
            "ns",
            "repo/sub/chart",
            &BTreeMap::new(),
        );
        assert_eq!(l.get("chart").map(String::as_str), Some("chart"));
    }
}
