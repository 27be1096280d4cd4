//! `.helmignore` rules, evaluated exactly as Helm's directory loader does.
//!
//! Helm's rules are not gitignore: `**` is refused, a rule without `/` matches the
//! base name only, a rule with `/` must match the whole relative path, and a negated
//! rule (`!x`) *ignores every path it does not match* and stops evaluation — an odd
//! semantics that charts nevertheless rely on, so it is reproduced. The default rule
//! `templates/.?*` (dot files under `templates/`) is appended after the chart's own.

use super::glob::path_match;

/// One parsed rule.
#[derive(Debug, Clone)]
struct Rule {
    pattern: String,
    shape: Shape,
    negate: bool,
    must_dir: bool,
    kind: RuleKind,
}

/// Most rules are a plain name (`.git`), a suffix (`*.swp`) or a prefix (`.project*`).
/// Those are matched without the general glob matcher, which a chart's walk would
/// otherwise run once per rule per file; a `*` never crosses a `/` either way.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    Literal,
    Suffix(String),
    Prefix(String),
    Glob,
}

impl Shape {
    fn of(pattern: &str) -> Shape {
        let meta = |s: &str| s.contains(['*', '?', '[', '\\']);
        if !meta(pattern) {
            Shape::Literal
        } else if let Some(rest) = pattern.strip_prefix('*').filter(|r| !meta(r)) {
            Shape::Suffix(rest.to_string())
        } else if let Some(rest) = pattern.strip_suffix('*').filter(|r| !meta(r)) {
            Shape::Prefix(rest.to_string())
        } else {
            Shape::Glob
        }
    }

    fn matches(&self, pattern: &str, name: &str) -> bool {
        match self {
            Shape::Literal => pattern == name,
            Shape::Suffix(lit) => name
                .strip_suffix(lit.as_str())
                .is_some_and(|head| !head.contains('/')),
            Shape::Prefix(lit) => name
                .strip_prefix(lit.as_str())
                .is_some_and(|tail| !tail.contains('/')),
            Shape::Glob => path_match(pattern, name).unwrap_or(false),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RuleKind {
    /// Starts with `/`: matched against the whole path, leading slash removed.
    Rooted,
    /// Contains `/`: matched against the whole path.
    Path,
    /// No slash: matched against the base name.
    Base,
}

/// An ordered rule set.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    pub fn empty() -> Rules {
        Rules::default()
    }

    /// Parses a `.helmignore` file. The error text is Helm's.
    pub fn parse(text: &str) -> Result<Rules, String> {
        let mut r = Rules::empty();
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for line in text.lines() {
            r.add(line)?;
        }
        Ok(r)
    }

    /// Adds Helm's default rule (ignore dot files in `templates/`).
    pub fn add_defaults(&mut self) {
        let _ = self.add("templates/.?*");
    }

    fn add(&mut self, line: &str) -> Result<(), String> {
        let rule = line.trim();
        if rule.is_empty() || rule.starts_with('#') {
            return Ok(());
        }
        if rule.contains("**") {
            return Err("double-star (**) syntax is not supported".to_string());
        }
        if path_match(rule, "abc").is_err() {
            return Err("syntax error in pattern".to_string());
        }
        let mut pattern = rule;
        let mut negate = false;
        if let Some(p) = pattern.strip_prefix('!') {
            negate = true;
            pattern = p;
        }
        let mut must_dir = false;
        if let Some(p) = pattern.strip_suffix('/') {
            must_dir = true;
            pattern = p;
        }
        let kind = if let Some(p) = pattern.strip_prefix('/') {
            pattern = p;
            RuleKind::Rooted
        } else if pattern.contains('/') {
            RuleKind::Path
        } else {
            RuleKind::Base
        };
        self.rules.push(Rule {
            shape: Shape::of(pattern),
            pattern: pattern.to_string(),
            negate,
            must_dir,
            kind,
        });
        Ok(())
    }

    /// Whether the chart-relative path (with `/` separators) is ignored.
    pub fn ignore(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." || path == "./" {
            return false;
        }
        for r in &self.rules {
            let matched = || {
                let subject = match r.kind {
                    RuleKind::Rooted | RuleKind::Path => path,
                    RuleKind::Base => base_name(path),
                };
                r.shape.matches(&r.pattern, subject)
            };
            if r.negate {
                if r.must_dir && !is_dir {
                    return true;
                }
                if !matched() {
                    return true;
                }
                continue;
            }
            if r.must_dir && !is_dir {
                continue;
            }
            if matched() {
                return true;
            }
        }
        false
    }
}

/// Go's `filepath.Base` for slash paths.
fn base_name(p: &str) -> &str {
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return if p.is_empty() { "." } else { "/" };
    }
    match t.rfind('/') {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_agree_with_the_glob_matcher() {
        let patterns = [
            "*.swp",
            ".git",
            "*~",
            ".project*",
            "a*b",
            "*.t?t",
            "x\\*",
            "*",
        ];
        let names = [
            "a.swp",
            "dir/a.swp",
            ".git",
            "x.git",
            "a~",
            ".projectile",
            ".project/x",
            "ab",
            "a.txt",
            "x*",
            "",
            "a/b",
        ];
        for p in patterns {
            for n in names {
                assert_eq!(
                    Shape::of(p).matches(p, n),
                    path_match(p, n).unwrap_or(false),
                    "{p} against {n}"
                );
            }
        }
        assert_eq!(Shape::of("*.swp"), Shape::Suffix(".swp".into()));
        assert_eq!(Shape::of(".project*"), Shape::Prefix(".project".into()));
        assert_eq!(Shape::of(".git"), Shape::Literal);
        assert_eq!(Shape::of("a*b"), Shape::Glob);
    }

    #[test]
    fn helm_rules() {
        let mut r = Rules::parse("# comment\n.git/\n*.swp\n/ci\ndocs/*.md\n").unwrap();
        r.add_defaults();
        assert!(r.ignore(".git", true));
        assert!(!r.ignore(".git", false));
        assert!(r.ignore("templates/x.swp", false));
        assert!(r.ignore("ci", true));
        assert!(!r.ignore("sub/ci", true));
        assert!(r.ignore("docs/a.md", false));
        assert!(!r.ignore("docs/x/a.md", false));
        assert!(r.ignore("templates/.hidden", false));
        assert!(!r.ignore("templates/x.yaml", false));
    }

    #[test]
    fn negation_ignores_non_matches() {
        let r = Rules::parse("!keep.txt\n").unwrap();
        assert!(r.ignore("other.txt", false));
        assert!(!r.ignore("keep.txt", false));
    }

    #[test]
    fn double_star_is_refused() {
        assert_eq!(
            Rules::parse("a/**/b").unwrap_err(),
            "double-star (**) syntax is not supported"
        );
    }
}
