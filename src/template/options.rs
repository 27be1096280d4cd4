//! Execution options: what happens on a missing map key, and which Go release the
//! template language imitates.
//!
//! Helm 3.15 and Helmfile 0.166 were built with Go 1.22, Helm 4 with a much newer Go;
//! the language grew in between (`{{else with}}`, `range` over integers) and a few
//! error texts changed, so the level is an explicit option rather than a guess.

/// Go's `missingkey=` template option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingKey {
    /// `missingkey=default` / `missingkey=invalid`: a missing key yields "no value",
    /// printed as `<no value>`.
    #[default]
    Default,
    /// `missingkey=zero`: the zero value of the map's element type (for
    /// `map[string]interface {}` that is a nil interface, which still prints as
    /// `<no value>`; Helm uses this).
    Zero,
    /// `missingkey=error`: execution stops with `map has no entry for key "x"`
    /// (Helmfile's final pass).
    Error,
}

impl MissingKey {
    /// Parses the value part of Go's `missingkey=VALUE` option.
    pub fn parse(s: &str) -> Option<MissingKey> {
        match s {
            "default" | "invalid" => Some(MissingKey::Default),
            "zero" => Some(MissingKey::Zero),
            "error" => Some(MissingKey::Error),
            _ => None,
        }
    }
}

/// The Go release whose `text/template` behaviour is imitated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum LanguageLevel {
    /// Go 1.22 (Helm 3.15, Helmfile 0.166): no `{{else with}}`, no `range` over
    /// integers, `incompatible types for comparison` without the type names.
    #[default]
    Go122,
    /// A current Go (Helm 4 was built with Go 1.27): all of the above work, and
    /// comparison errors name both types.
    Go127,
}

impl LanguageLevel {
    /// Parses `1.22`, `go1.22`, `1.27`, ... Any version from 1.23 on selects the newest
    /// behaviour this engine knows, any version up to 1.22 the oldest.
    pub fn parse(s: &str) -> Option<LanguageLevel> {
        let s = s.strip_prefix("go").unwrap_or(s);
        let (major, minor) = s.split_once('.')?;
        if major != "1" {
            return None;
        }
        let minor: u32 = minor.split('.').next()?.parse().ok()?;
        Some(if minor <= 22 {
            LanguageLevel::Go122
        } else {
            LanguageLevel::Go127
        })
    }

    /// Whether `{{else with ...}}` is part of the language (Go 1.23).
    pub fn else_with(self) -> bool {
        self >= LanguageLevel::Go127
    }

    /// Whether `range` iterates over integers (Go 1.24).
    pub fn range_int(self) -> bool {
        self >= LanguageLevel::Go127
    }

    /// Whether comparison errors name the two types (Go 1.23).
    pub fn typed_comparison_errors(self) -> bool {
        self >= LanguageLevel::Go127
    }
}

/// Options that apply to parsing and executing a template set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub missing_key: MissingKey,
    pub level: LanguageLevel,
    /// Action delimiters; Go's defaults are `{{` and `}}`.
    pub left_delim: String,
    pub right_delim: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            missing_key: MissingKey::Default,
            level: LanguageLevel::Go122,
            left_delim: "{{".to_string(),
            right_delim: "}}".to_string(),
        }
    }
}

impl Options {
    pub fn new(level: LanguageLevel, missing_key: MissingKey) -> Options {
        Options {
            missing_key,
            level,
            ..Options::default()
        }
    }

    /// Sets the delimiters; empty strings mean Go's defaults, as in `Template.Delims`.
    pub fn with_delims(mut self, left: &str, right: &str) -> Options {
        self.left_delim = if left.is_empty() { "{{" } else { left }.to_string();
        self.right_delim = if right.is_empty() { "}}" } else { right }.to_string();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_parse() {
        assert_eq!(LanguageLevel::parse("1.22"), Some(LanguageLevel::Go122));
        assert_eq!(LanguageLevel::parse("go1.22.5"), Some(LanguageLevel::Go122));
        assert_eq!(LanguageLevel::parse("1.27"), Some(LanguageLevel::Go127));
        assert_eq!(LanguageLevel::parse("2.0"), None);
        assert_eq!(MissingKey::parse("invalid"), Some(MissingKey::Default));
        assert_eq!(MissingKey::parse("nope"), None);
    }
}
