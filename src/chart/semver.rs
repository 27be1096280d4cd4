//! Masterminds/semver v3 versions and constraints, as Helm uses them to match
//! dependency versions (`IsCompatibleRange`) and to check `kubeVersion:`.
//!
//! The library is lenient about versions (`v1`, `1.2` parse) and strict about
//! prereleases (a prerelease version only satisfies a constraint that itself names a
//! prerelease, which is why charts write `>=1.19.0-0`); both behaviours decide
//! whether a chart renders, so they are reproduced rule for rule.

use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub meta: String,
}

fn valid_ident_list(s: &str) -> bool {
    !s.is_empty()
        && s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
}

impl Version {
    /// `semver.NewVersion`: optional `v`, one to three numeric parts, optional
    /// `-prerelease` and `+metadata`.
    pub fn parse(s: &str) -> Result<Version, String> {
        let invalid = || "Invalid Semantic Version".to_string();
        let body = s.strip_prefix('v').unwrap_or(s);
        let (rest, meta) = match body.split_once('+') {
            Some((a, b)) => {
                if !valid_ident_list(b) {
                    return Err(invalid());
                }
                (a, b.to_string())
            }
            None => (body, String::new()),
        };
        let (nums, pre) = match rest.split_once('-') {
            Some((a, b)) => {
                if !valid_ident_list(b) {
                    return Err(invalid());
                }
                (a, b.to_string())
            }
            None => (rest, String::new()),
        };
        let parts: Vec<&str> = nums.split('.').collect();
        if parts.is_empty() || parts.len() > 3 {
            return Err(invalid());
        }
        let mut n = [0u64; 3];
        for (i, p) in parts.iter().enumerate() {
            if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
                return Err(invalid());
            }
            n[i] = p.parse().map_err(|_| invalid())?;
        }
        // Numeric prerelease identifiers may not have leading zeros.
        for id in pre.split('.').filter(|_| !pre.is_empty()) {
            if id.len() > 1 && id.starts_with('0') && id.chars().all(|c| c.is_ascii_digit()) {
                return Err("Version segment starts with 0".to_string());
            }
        }
        Ok(Version {
            major: n[0],
            minor: n[1],
            patch: n[2],
            pre,
            meta,
        })
    }

    pub fn compare(&self, o: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| compare_prerelease(&self.pre, &o.pre))
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.meta.is_empty() {
            write!(f, "+{}", self.meta)?;
        }
        Ok(())
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let pa: Vec<&str> = a.split('.').collect();
    let pb: Vec<&str> = b.split('.').collect();
    for i in 0..pa.len().max(pb.len()) {
        let (x, y) = match (pa.get(i), pb.get(i)) {
            (Some(x), Some(y)) => (*x, *y),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => break,
        };
        let xn = x.parse::<u64>().ok();
        let yn = y.parse::<u64>().ok();
        let c = match (xn, yn) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => x.cmp(y),
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    TildeOrEqual,
    NotEqual,
    Gt,
    Lt,
    Ge,
    Le,
    Tilde,
    Caret,
}

#[derive(Debug, Clone)]
struct Constraint {
    op: Op,
    con: Version,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

/// A parsed constraint: OR groups of AND-ed comparisons.
#[derive(Debug, Clone)]
pub struct Constraints {
    groups: Vec<Vec<Constraint>>,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

/// Splits one version token of a constraint into its parts; wildcard-aware.
fn parse_constraint(op: &str, ver: &str) -> Result<Constraint, String> {
    let op = match op {
        "" | "=" => Op::TildeOrEqual,
        "!=" => Op::NotEqual,
        ">" => Op::Gt,
        "<" => Op::Lt,
        ">=" | "=>" => Op::Ge,
        "<=" | "=<" => Op::Le,
        "~" | "~>" => Op::Tilde,
        "^" => Op::Caret,
        other => return Err(format!("improper constraint: {other}{ver}")),
    };
    let body = ver.strip_prefix('v').unwrap_or(ver);
    let (rest, _meta) = body.split_once('+').unwrap_or((body, ""));
    let (nums, pre) = match rest.split_once('-') {
        Some((a, b)) => (a, format!("-{b}")),
        None => (rest, String::new()),
    };
    let parts: Vec<&str> = nums.split('.').collect();
    let p = |i: usize| parts.get(i).copied().unwrap_or("");
    let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
    let text = if is_x(p(0)) || p(0).is_empty() {
        dirty = true;
        format!("0.0.0{pre}")
    } else if is_x(p(1)) || parts.len() < 2 {
        minor_dirty = true;
        dirty = true;
        format!("{}.0.0{pre}", p(0))
    } else if is_x(p(2)) || parts.len() < 3 {
        dirty = true;
        patch_dirty = true;
        format!("{}.{}.0{pre}", p(0), p(1))
    } else {
        ver.to_string()
    };
    let con = Version::parse(&text).map_err(|_| "constraint Parser Error".to_string())?;
    Ok(Constraint {
        op,
        con,
        minor_dirty,
        patch_dirty,
        dirty,
    })
}

/// Reads `op version` pairs from one OR segment (separated by spaces or commas).
fn parse_segment(seg: &str) -> Result<Vec<Constraint>, String> {
    let bad = || format!("improper constraint: {seg}");
    let chars: Vec<char> = seg.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    if i >= chars.len() {
        return Err(bad());
    }
    loop {
        let start = i;
        while i < chars.len() && matches!(chars[i], '=' | '!' | '>' | '<' | '~' | '^') {
            i += 1;
        }
        let op: String = chars[start..i].iter().collect();
        skip_ws(&mut i);
        let vstart = i;
        while i < chars.len() && !chars[i].is_whitespace() && chars[i] != ',' {
            i += 1;
        }
        let ver: String = chars[vstart..i].iter().collect();
        if ver.is_empty() || !constraint_version_ok(&ver) {
            return Err(bad());
        }
        out.push(parse_constraint(&op, &ver).map_err(|e| {
            if e.starts_with("improper") {
                bad()
            } else {
                e
            }
        })?);
        skip_ws(&mut i);
        if i < chars.len() && chars[i] == ',' {
            i += 1;
            skip_ws(&mut i);
        }
        if i >= chars.len() {
            break;
        }
    }
    Ok(out)
}

/// The shape check of the constraint regex for one version token.
fn constraint_version_ok(v: &str) -> bool {
    let body = v.strip_prefix('v').unwrap_or(v);
    let (rest, meta) = match body.split_once('+') {
        Some((a, b)) => (a, Some(b)),
        None => (body, None),
    };
    if let Some(m) = meta {
        if !valid_ident_list(m) {
            return false;
        }
    }
    let (nums, pre) = match rest.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (rest, None),
    };
    if let Some(p) = pre {
        if !valid_ident_list(p) {
            return false;
        }
    }
    let parts: Vec<&str> = nums.split('.').collect();
    parts.len() <= 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_digit() || matches!(c, 'x' | 'X' | '*'))
        })
}

/// Rewrites `a - b` hyphen ranges into `>= a, <= b`.
fn rewrite_ranges(s: &str) -> String {
    let toks: Vec<&str> = s.split_whitespace().collect();
    if !toks.contains(&"-") {
        return s.to_string();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if i + 2 < toks.len()
            && toks[i + 1] == "-"
            && constraint_version_ok(toks[i])
            && constraint_version_ok(toks[i + 2])
        {
            out.push(format!(">= {}, <= {}", toks[i], toks[i + 2]));
            i += 3;
        } else {
            out.push(toks[i].to_string());
            i += 1;
        }
    }
    out.join(" ")
}

impl Constraints {
    pub fn parse(s: &str) -> Result<Constraints, String> {
        let s = rewrite_ranges(s);
        let groups = s
            .split("||")
            .map(parse_segment)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Constraints { groups })
    }

    pub fn check(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|g| g.iter().all(|c| check_one(c, v)))
    }
}

fn check_one(c: &Constraint, v: &Version) -> bool {
    let pre_blocked = !v.pre.is_empty() && c.con.pre.is_empty();
    match c.op {
        Op::NotEqual => {
            if c.dirty {
                if pre_blocked {
                    return false;
                }
                if c.con.major != v.major {
                    return true;
                }
                if c.con.minor != v.minor && !c.minor_dirty {
                    return true;
                } else if c.minor_dirty {
                    return false;
                } else if c.con.patch != v.patch && !c.patch_dirty {
                    return true;
                } else if c.patch_dirty {
                    if !v.pre.is_empty() || !c.con.pre.is_empty() {
                        return compare_prerelease(&v.pre, &c.con.pre) != Ordering::Equal;
                    }
                    return false;
                }
            }
            v.compare(&c.con) != Ordering::Equal
        }
        Op::Gt => {
            if pre_blocked {
                return false;
            }
            if !c.dirty {
                return v.compare(&c.con) == Ordering::Greater;
            }
            if v.major > c.con.major {
                true
            } else if v.major < c.con.major || c.minor_dirty {
                false
            } else if c.patch_dirty {
                v.minor > c.con.minor
            } else {
                v.compare(&c.con) == Ordering::Greater
            }
        }
        Op::Lt => !pre_blocked && v.compare(&c.con) == Ordering::Less,
        Op::Ge => !pre_blocked && v.compare(&c.con) != Ordering::Less,
        Op::Le => {
            if pre_blocked {
                return false;
            }
            if !c.dirty {
                return v.compare(&c.con) != Ordering::Greater;
            }
            !(v.major > c.con.major
                || (v.major == c.con.major && v.minor > c.con.minor && !c.minor_dirty))
        }
        Op::Tilde => tilde(c, v),
        Op::TildeOrEqual => {
            if pre_blocked {
                return false;
            }
            if c.dirty {
                return tilde(c, v);
            }
            v.compare(&c.con) == Ordering::Equal
        }
        Op::Caret => {
            if pre_blocked || v.compare(&c.con) == Ordering::Less {
                return false;
            }
            if c.con.major > 0 || c.minor_dirty {
                return v.major == c.con.major;
            }
            if c.con.major == 0 && v.major > 0 {
                return false;
            }
            if c.con.minor > 0 || c.patch_dirty {
                return v.minor == c.con.minor;
            }
            if c.con.minor == 0 && v.minor > 0 {
                return false;
            }
            c.con.patch == v.patch
        }
    }
}

fn tilde(c: &Constraint, v: &Version) -> bool {
    if !v.pre.is_empty() && c.con.pre.is_empty() {
        return false;
    }
    if v.compare(&c.con) == Ordering::Less {
        return false;
    }
    if c.con.major == 0 && c.con.minor == 0 && c.con.patch == 0 && !c.minor_dirty && !c.patch_dirty
    {
        return true;
    }
    if v.major != c.con.major {
        return false;
    }
    !(v.minor != c.con.minor && !c.minor_dirty)
}

/// Helm's `chartutil.IsCompatibleRange`: false when either side does not parse.
pub fn is_compatible_range(constraint: &str, version: &str) -> bool {
    let Ok(v) = Version::parse(version) else {
        return false;
    };
    let Ok(c) = Constraints::parse(constraint) else {
        return false;
    };
    c.check(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(Version::parse("v1.30.0").unwrap().to_string(), "1.30.0");
        assert_eq!(Version::parse("1.2").unwrap().to_string(), "1.2.0");
        assert!(Version::parse("1.2.3.4").is_err());
        assert!(Version::parse("abc").is_err());
    }

    #[test]
    fn constraints() {
        let t = |c: &str, v: &str| is_compatible_range(c, v);
        assert!(t(">=1.19.0-0", "v1.30.0"));
        assert!(t(">=1.19.0", "v1.30.0"));
        assert!(!t(">=1.20.0", "1.20.0-rc.1"));
        assert!(t(">=1.20.0-0", "1.20.0-rc.1"));
        assert!(t("1.42.*", "1.42.0"));
        assert!(!t("1.42.*", "1.43.0"));
        assert!(t("~1.2", "1.2.9"));
        assert!(t("^1.2.0", "1.9.0"));
        assert!(!t("^1.2.0", "2.0.0"));
        assert!(t("1.x || 3.x", "3.1.0"));
        assert!(t(">= 1.2, < 2", "1.5.0"));
        assert!(t("1.0.0 - 2.0.0", "1.5.0"));
        assert!(t("*", "5.0.0"));
        assert!(!t("", "5.0.0"));
        assert!(!t("<1.25.0-0", "v1.30.0"));
        assert!(t(">=1.16.0-0 <1.40.0-0", "v1.37.0"));
    }
}
