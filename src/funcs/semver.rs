//! Sprig's `semver` and `semverCompare`, i.e. Masterminds/semver v3: version parsing,
//! the constraint language (`>= <= != ~ ^ x * - ||`, comma or space for "and") and
//! the `*semver.Version` object templates can call methods on.
//!
//! The library defines its grammar with Go regular expressions (including an empty
//! alternative among the operators and `|` inside character classes). Nearly every
//! chart parses a version (`Chart.yaml`) and a constraint (`kubeVersion:`,
//! `semverCompare`), and compiling those expressions cost about 5% of a typical
//! render, so both are scanned by hand here (`split_version`, `valid_constraints`,
//! `find_constraints`, `split_constraint`); the expressions themselves are kept for
//! the tests, which compare each scanner with its expression over a large generated
//! set of strings. Only the rarely used range form (`1.2 - 1.4`) still goes through
//! the Go-compatible regex engine.
//!
//! Helm 3 and Helmfile use v3.2.1; Helm 4 uses v3.5.0, where error texts are
//! lower-case and a prerelease version may satisfy every constraint of an "and"
//! group as soon as one of them names a prerelease (`>=1.20.0-0 <1.21.0` accepts
//! `1.20.5-rc.1` only in v3.5), and `!=` also refuses prereleases.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use super::conversion::arg_str;
use super::regex::GoRegex;
use crate::template::fmt::quote as go_quote;
use crate::template::{FuncDef, FuncError, FuncResult, Kind, Object, Ty, UintType, Value};

/// Sprig 3.2.3 / semver v3.2.1 (Helm 3, Helmfile).
pub static FUNCS_SEMVER_3_2: &[FuncDef] = &[
    FuncDef::plain("semver", &[Ty::String], semver_3_2),
    FuncDef::plain(
        "semverCompare",
        &[Ty::String, Ty::String],
        semver_compare_3_2,
    ),
];

/// Sprig 3.3.0 / semver v3.5.0 (Helm 4).
pub static FUNCS_SEMVER_3_5: &[FuncDef] = &[
    FuncDef::plain("semver", &[Ty::String], semver_3_5),
    FuncDef::plain(
        "semverCompare",
        &[Ty::String, Ty::String],
        semver_compare_3_5,
    ),
];

/// Which Masterminds/semver release to imitate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    V3_2,
    V3_5,
}

impl Lib {
    /// The library's error texts, which v3.4 lower-cased.
    fn msg(self, old: &str) -> String {
        match self {
            Lib::V3_2 => old.to_string(),
            Lib::V3_5 => old.to_lowercase(),
        }
    }

    /// `%s` in v3.2, `%q` in v3.5.
    fn show(self, s: &str) -> String {
        match self {
            Lib::V3_2 => s.to_string(),
            Lib::V3_5 => go_quote(s),
        }
    }
}

/// A parsed version (Masterminds `Version`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub metadata: String,
    pub original: String,
}

const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
#[cfg(test)]
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

/// One grammar regex, compiled on first use: outside the tests only a constraint
/// holding a range needs one, and a render should not pay for it otherwise.
struct LazyRegex {
    cell: OnceLock<Option<GoRegex>>,
    pattern: fn() -> String,
}

impl LazyRegex {
    const fn new(pattern: fn() -> String) -> LazyRegex {
        LazyRegex {
            cell: OnceLock::new(),
            pattern,
        }
    }

    fn get(&self) -> Result<&GoRegex, String> {
        self.cell
            .get_or_init(|| GoRegex::compile(&(self.pattern)()).ok())
            .as_ref()
            .ok_or_else(internal)
    }
}

/// The version grammar, which `split_version` follows by hand; its test compares them.
#[cfg(test)]
const V: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";

/// The constraint grammar, which `split_constraint`, `find_constraints` and
/// `valid_constraints` follow by hand; `constraint_scanners_agree_with_the_grammar`
/// compares them.
#[cfg(test)]
static CONSTRAINT: LazyRegex = LazyRegex::new(|| format!(r"^\s*({OPS})\s*({CV})\s*$"));
#[cfg(test)]
static FIND: LazyRegex = LazyRegex::new(|| format!(r"({OPS})\s*({CV})"));
#[cfg(test)]
static VALID: LazyRegex =
    LazyRegex::new(|| format!(r"^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$"));
/// Kept as an expression: it only compiles for a constraint holding ` - ` (no chart
/// of the corpus has one), and Go's leftmost match of it may start inside a version
/// (`1.2.3.4 - 5` rewrites `2.3.4 - 5`), which a simple scanner follows only by
/// retrying at every offset: quadratic on long input, where Go is linear.
static RANGE: LazyRegex = LazyRegex::new(|| format!(r"\s*({CV})\s+-\s+({CV})\s*"));

/// The parts of a version string that match `^{V}$`, without their `.`, `-` and
/// `+` leaders (empty when absent).
#[derive(Debug, PartialEq, Eq)]
struct VersionParts<'a> {
    major: &'a str,
    minor: &'a str,
    patch: &'a str,
    pre: &'a str,
    metadata: &'a str,
}

/// `^{V}$` without the regex engine, which every chart load would otherwise compile
/// for `Chart.yaml`'s version. The grammar has one way to match any string (each
/// optional part starts with its own leader, and every run is as long as it can
/// be), so one left-to-right scan finds the regex's groups; the unit test
/// `split_version_agrees_with_the_grammar` compares the two exhaustively.
fn split_version(v: &str) -> Option<VersionParts<'_>> {
    fn run(s: &str, ok: fn(u8) -> bool) -> usize {
        s.bytes().take_while(|b| ok(*b)).count()
    }
    fn digit(b: u8) -> bool {
        b.is_ascii_digit()
    }
    fn ident(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'-'
    }
    // Identifiers joined by dots, none empty; returns the length taken.
    fn dotted(s: &str) -> Option<usize> {
        let mut n = run(s, ident);
        if n == 0 {
            return None;
        }
        while s[n..].starts_with('.') {
            let k = run(&s[n + 1..], ident);
            if k == 0 {
                return None;
            }
            n += 1 + k;
        }
        Some(n)
    }
    let rest = v.strip_prefix('v').unwrap_or(v);
    let n = run(rest, digit);
    if n == 0 {
        return None;
    }
    let (major, mut rest) = rest.split_at(n);
    let mut numbers = ["", ""];
    for slot in &mut numbers {
        let Some(after) = rest.strip_prefix('.') else {
            break;
        };
        let n = run(after, digit);
        if n == 0 {
            return None;
        }
        (*slot, rest) = after.split_at(n);
    }
    let mut tail = |leader: char| -> Option<&str> {
        let Some(after) = rest.strip_prefix(leader) else {
            return Some("");
        };
        let n = dotted(after)?;
        let (part, left) = after.split_at(n);
        rest = left;
        Some(part)
    };
    let pre = tail('-')?;
    let metadata = tail('+')?;
    if !rest.is_empty() {
        return None;
    }
    Some(VersionParts {
        major,
        minor: numbers[0],
        patch: numbers[1],
        pre,
        metadata,
    })
}

/// Go's `\s` (ASCII only).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')
}

/// `[0-9|x|X|\*]`: the class holds a literal `|` (the library meant an alternation).
fn is_number(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'|' | b'x' | b'X' | b'*')
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// The first offset at or after `i` whose byte is not `ok`.
fn skip(b: &[u8], mut i: usize, ok: fn(u8) -> bool) -> usize {
    while i < b.len() && ok(b[i]) {
        i += 1;
    }
    i
}

/// The groups of `{CV}` that `parse_constraint` reads, as byte ranges; minor, patch
/// and prerelease include their `.`/`-` leader, as the expression's groups do, and
/// are empty when absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct CvSpans {
    start: usize,
    end: usize,
    major: (usize, usize),
    minor: (usize, usize),
    patch: (usize, usize),
    pre: (usize, usize),
}

/// Where `{CV}` matches at `i`, unanchored at its end. Every part of the grammar is
/// optional after the major number and each starts with its own leader (`.`, `-`,
/// `+`, none of them in the classes before it), so the leftmost-first match takes
/// each part whenever its leader is followed by at least one character of its class,
/// and each run as far as it goes; `v` is taken only before a number, since `v?`
/// falls back to empty and the number class has no `v`.
fn cv_at(b: &[u8], start: usize) -> Option<CvSpans> {
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    let mut i = start;
    if at(i, b'v') && b.get(i + 1).is_some_and(|&c| is_number(c)) {
        i += 1;
    }
    let major_end = skip(b, i, is_number);
    if major_end == i {
        return None;
    }
    let major = (i, major_end);
    // `(\.N+)?`: a dot without a number after it is left for what follows.
    let dotted_number = |i: usize| -> usize {
        if at(i, b'.') {
            let e = skip(b, i + 1, is_number);
            if e > i + 1 {
                return e;
            }
        }
        i
    };
    // `(L I+ (\.I+)*)?` for leader `L`.
    let dotted_idents = |i: usize, leader: u8| -> usize {
        if !at(i, leader) {
            return i;
        }
        let mut e = skip(b, i + 1, is_ident);
        if e == i + 1 {
            return i;
        }
        while at(e, b'.') {
            let f = skip(b, e + 1, is_ident);
            if f == e + 1 {
                break;
            }
            e = f;
        }
        e
    };
    let minor = (major_end, dotted_number(major_end));
    let patch = (minor.1, dotted_number(minor.1));
    let pre = (patch.1, dotted_idents(patch.1, b'-'));
    let end = dotted_idents(pre.1, b'+');
    Some(CvSpans {
        start,
        end,
        major,
        minor,
        patch,
        pre,
    })
}

/// `({OPS})\s*({CV})` at `i` (`i` not white space): the operator's end and the
/// version. An operator must be followed by white space or a version, neither of
/// which starts with an operator character, so the alternative that matches is
/// always the whole run of operator characters at `i` (empty for the `""`
/// alternative); a run that is no operator matches nothing here.
fn op_cv_at(b: &[u8], i: usize) -> Option<(usize, CvSpans)> {
    const OPERATORS: [&[u8]; 11] = [
        b"=", b"!=", b">", b"<", b">=", b"=>", b"<=", b"=<", b"~", b"~>", b"^",
    ];
    let is_op = |c: u8| matches!(c, b'=' | b'!' | b'>' | b'<' | b'~' | b'^');
    let op_end = skip(b, i, is_op);
    if op_end > i && !OPERATORS.contains(&&b[i..op_end]) {
        return None;
    }
    let cv = cv_at(b, skip(b, op_end, is_space))?;
    Some((op_end, cv))
}

/// `VALID.is_match` (`^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$`):
/// constraints separated by white space or a comma. A version can only end where
/// white space, a comma or the end follows (nothing else may come next), which is
/// where the leftmost-first match of `{CV}` ends, so one scan decides.
fn valid_constraints(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = skip(b, 0, is_space);
    loop {
        let Some((_, cv)) = op_cv_at(b, i) else {
            return false;
        };
        let j = skip(b, cv.end, is_space);
        if j == b.len() {
            return true;
        }
        if b[j] == b',' {
            i = skip(b, j + 1, is_space);
        } else if j > cv.end {
            i = j;
        } else {
            return false;
        }
    }
}

/// `FIND.find_all(s, -1)` (`({OPS})\s*({CV})`, Go's FindAllString): successive
/// leftmost matches. At white space only the `""` operator applies, whose `\s*` takes
/// the white space into the match; when no version follows it, the positions inside
/// that white space fail alike, so the search resumes after it. Matches are never
/// empty and start on an ASCII byte, so stepping by bytes past a failed position
/// finds what Go's step by runes finds.
fn find_constraints(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut found = Vec::new();
    let mut p = 0;
    while p < b.len() {
        if is_space(b[p]) {
            let q = skip(b, p, is_space);
            match cv_at(b, q) {
                Some(cv) => {
                    found.push(&s[p..cv.end]);
                    p = cv.end;
                }
                None => p = q,
            }
            continue;
        }
        match op_cv_at(b, p) {
            Some((_, cv)) => {
                found.push(&s[p..cv.end]);
                p = cv.end;
            }
            None => p += 1,
        }
    }
    found
}

/// The groups of `CONSTRAINT` that `parse_constraint` reads: `m[1]` to `m[6]`.
#[derive(Debug, PartialEq, Eq)]
struct ConstraintParts<'a> {
    op: &'a str,
    version: &'a str,
    major: &'a str,
    minor: &'a str,
    patch: &'a str,
    pre: &'a str,
}

/// `CONSTRAINT.captures` (`^\s*({OPS})\s*({CV})\s*$`). Anchored at both ends the
/// grammar has a single way to match (see `op_cv_at`, `cv_at`), so the scan's
/// groups are the expression's.
fn split_constraint(c: &str) -> Option<ConstraintParts<'_>> {
    let b = c.as_bytes();
    let i = skip(b, 0, is_space);
    let (op_end, cv) = op_cv_at(b, i)?;
    if skip(b, cv.end, is_space) != b.len() {
        return None;
    }
    let part = |(a, e): (usize, usize)| &c[a..e];
    Some(ConstraintParts {
        op: &c[i..op_end],
        version: part((cv.start, cv.end)),
        major: part(cv.major),
        minor: part(cv.minor),
        patch: part(cv.patch),
        pre: part(cv.pre),
    })
}

fn internal() -> String {
    "internal error: semver grammar failed to compile".to_string()
}

fn parse_segment(digits: &str, lib: Lib) -> Result<u64, String> {
    digits.parse::<u64>().map_err(|_| {
        format!(
            "{}: strconv.ParseUint: parsing {}: value out of range",
            lib.msg("Error parsing version segment"),
            go_quote(digits)
        )
    })
}

impl Version {
    /// semver.NewVersion.
    pub fn parse(v: &str, lib: Lib) -> Result<Version, String> {
        let m = split_version(v).ok_or_else(|| lib.msg("Invalid Semantic Version"))?;
        let major = parse_segment(m.major, lib)?;
        let minor = match m.minor {
            "" => 0,
            s => parse_segment(s, lib)?,
        };
        let patch = match m.patch {
            "" => 0,
            s => parse_segment(s, lib)?,
        };
        let pre = m.pre.to_string();
        for part in pre.split('.').filter(|_| !pre.is_empty()) {
            if part.bytes().all(|b| b.is_ascii_digit()) && part.len() > 1 && part.starts_with('0') {
                return Err(lib.msg("Version segment starts with 0"));
            }
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre,
            metadata: m.metadata.to_string(),
            original: v.to_string(),
        })
    }

    pub fn compare(&self, o: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(o.major, o.minor, o.patch))
            .then_with(|| match (self.pre.is_empty(), o.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &o.pre),
            })
    }

    fn v_prefix(&self) -> &'static str {
        if self.original.starts_with('v') {
            "v"
        } else {
            ""
        }
    }

    fn inc(&self, which: u8) -> Version {
        let mut n = self.clone();
        n.metadata.clear();
        match which {
            0 => {
                n.major += 1;
                n.minor = 0;
                n.patch = 0;
                n.pre.clear();
            }
            1 => {
                n.minor += 1;
                n.patch = 0;
                n.pre.clear();
            }
            _ => {
                if self.pre.is_empty() {
                    n.patch += 1;
                }
                n.pre.clear();
            }
        }
        n.original = format!("{}{n}", self.v_prefix());
        n
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let pa: Vec<&str> = a.split('.').collect();
    let pb: Vec<&str> = b.split('.').collect();
    for i in 0..pa.len().max(pb.len()) {
        let c = compare_pre_part(
            pa.get(i).copied().unwrap_or(""),
            pb.get(i).copied().unwrap_or(""),
        );
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (_, Err(_)) => Ordering::Less,
        (Err(_), _) => Ordering::Greater,
        (Ok(a), Ok(b)) => {
            if a > b {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

#[derive(Clone, Debug)]
struct Constraint {
    op: Op,
    con: Version,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

/// A parsed constraint string: OR groups of AND-ed constraints.
#[derive(Clone, Debug)]
pub struct Constraints {
    groups: Vec<Vec<Constraint>>,
    lib: Lib,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

fn parse_constraint(c: &str, lib: Lib) -> Result<Constraint, String> {
    let m = split_constraint(c).ok_or_else(|| format!("improper constraint: {}", lib.show(c)))?;
    let op = match m.op {
        "" | "=" => Op::TildeOrEqual,
        "!=" => Op::NotEqual,
        ">" => Op::Gt,
        "<" => Op::Lt,
        ">=" | "=>" => Op::Ge,
        "<=" | "=<" => Op::Le,
        "~" | "~>" => Op::Tilde,
        _ => Op::Caret,
    };
    let minor = m.minor.strip_prefix('.').unwrap_or(m.minor);
    let patch = m.patch.strip_prefix('.').unwrap_or(m.patch);
    let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
    let ver = if is_x(m.major) || m.major.is_empty() {
        dirty = true;
        format!("0.0.0{}", m.pre)
    } else if is_x(minor) || m.minor.is_empty() {
        minor_dirty = true;
        dirty = true;
        format!("{}.0.0{}", m.major, m.pre)
    } else if is_x(patch) || m.patch.is_empty() {
        dirty = true;
        patch_dirty = true;
        format!("{}{}.0{}", m.major, m.minor, m.pre)
    } else {
        m.version.to_string()
    };
    let con = Version::parse(&ver, lib).map_err(|_| lib.msg("Constraint Parser Error"))?;
    Ok(Constraint {
        op,
        con,
        minor_dirty,
        patch_dirty,
        dirty,
    })
}

/// Masterminds `rewriteRange`: `a - b` becomes `>= a, <= b `.
fn rewrite_range(s: &str) -> Result<Cow<'_, str>, String> {
    // A range needs a `-` with white space on both sides (`\s+-\s+`, Go's `\s`);
    // most constraints have none, and then the grammar need not be compiled at all.
    let b = s.as_bytes();
    if !(1..b.len().saturating_sub(1))
        .any(|i| b[i] == b'-' && is_space(b[i - 1]) && is_space(b[i + 1]))
    {
        return Ok(Cow::Borrowed(s));
    }
    let mut out = s.to_string();
    for m in RANGE.get()?.captures_all(s, -1) {
        let t = format!(">= {}, <= {} ", m[1], m[11]);
        out = out.replacen(m[0], &t, 1);
    }
    Ok(Cow::Owned(out))
}

impl Constraints {
    /// semver.NewConstraint.
    pub fn parse(c: &str, lib: Lib) -> Result<Constraints, String> {
        let c = rewrite_range(c)?;
        let mut groups = Vec::new();
        for part in c.split("||") {
            if !valid_constraints(part) {
                // "lower-case c" in both versions; only the quoting changed.
                return Err(format!("improper constraint: {}", lib.show(part)));
            }
            let mut found = find_constraints(part);
            if found.is_empty() {
                found.push(part);
            }
            let group = found
                .into_iter()
                .map(|s| parse_constraint(s, lib))
                .collect::<Result<Vec<_>, _>>()?;
            groups.push(group);
        }
        Ok(Constraints { groups, lib })
    }

    /// Constraints.Check.
    pub fn check(&self, v: &Version) -> bool {
        self.groups.iter().any(|group| {
            let include_pre = match self.lib {
                Lib::V3_2 => None,
                Lib::V3_5 => Some(group.iter().any(|c| !c.con.pre.is_empty())),
            };
            group.iter().all(|c| check_one(c, v, include_pre))
        })
    }
}

/// One constraint; `include_pre` is v3.5's group-wide prerelease opt-in (`None`:
/// v3.2's per-constraint rule).
fn check_one(c: &Constraint, v: &Version, include_pre: Option<bool>) -> bool {
    let pre_blocked = !v.pre.is_empty()
        && match include_pre {
            Some(inc) => !inc,
            None => c.con.pre.is_empty(),
        };
    let cmp = v.compare(&c.con);
    match c.op {
        Op::NotEqual => {
            if include_pre.is_some() && pre_blocked {
                return false;
            }
            if c.dirty {
                if include_pre.is_none() && pre_blocked {
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
            cmp != Ordering::Equal
        }
        _ if pre_blocked => false,
        Op::Gt => {
            if !c.dirty {
                return cmp == Ordering::Greater;
            }
            if v.major > c.con.major {
                true
            } else if v.major < c.con.major || c.minor_dirty {
                false
            } else if c.patch_dirty {
                v.minor > c.con.minor
            } else {
                cmp == Ordering::Greater
            }
        }
        Op::Lt => cmp == Ordering::Less,
        Op::Ge => cmp != Ordering::Less,
        Op::Le => {
            if !c.dirty {
                return cmp != Ordering::Greater;
            }
            !(v.major > c.con.major
                || (v.major == c.con.major && v.minor > c.con.minor && !c.minor_dirty))
        }
        Op::Tilde => tilde(c, v, cmp),
        Op::TildeOrEqual => {
            if c.dirty {
                tilde(c, v, cmp)
            } else {
                cmp == Ordering::Equal
            }
        }
        Op::Caret => {
            if cmp == Ordering::Less {
                return false;
            }
            if c.con.major > 0 || c.minor_dirty {
                return v.major == c.con.major;
            }
            if v.major > 0 {
                return false;
            }
            if c.con.minor > 0 || c.patch_dirty {
                return v.minor == c.con.minor;
            }
            if v.minor > 0 {
                return false;
            }
            c.con.patch == v.patch
        }
    }
}

fn tilde(c: &Constraint, v: &Version, cmp: Ordering) -> bool {
    if cmp == Ordering::Less {
        return false;
    }
    if c.con.major == 0 && c.con.minor == 0 && c.con.patch == 0 && !c.minor_dirty && !c.patch_dirty
    {
        return true;
    }
    if v.major != c.con.major {
        return false;
    }
    v.minor == c.con.minor || c.minor_dirty
}

/// Helm's `chartutil.IsCompatibleRange`: whether `version` satisfies `constraint`
/// (chart dependency versions, `kubeVersion:`); false when either does not parse.
pub fn is_compatible_range(constraint: &str, version: &str, lib: Lib) -> bool {
    let Ok(v) = Version::parse(version, lib) else {
        return false;
    };
    let Ok(c) = Constraints::parse(constraint, lib) else {
        return false;
    };
    c.check(&v)
}

// ---- the template object ----------------------------------------------------------------

/// `*semver.Version` (what `semver` returns) or `semver.Version` (what `IncMajor`
/// and friends return; Go then hides the pointer-receiver methods such as
/// `Original` and `Compare`).
#[derive(Clone, Debug)]
pub struct SemverObject {
    pub v: Version,
    pub pointer: bool,
    pub lib: Lib,
}

impl SemverObject {
    fn wrap(&self, v: Version) -> Value {
        Value::object(SemverObject {
            v,
            pointer: false,
            lib: self.lib,
        })
    }

    fn other<'a>(&self, name: &str, args: &'a [Value]) -> Result<&'a Version, String> {
        match args {
            [Value::Object(o)] => match o.as_any().downcast_ref::<SemverObject>() {
                Some(s) if s.pointer => Ok(&s.v),
                _ => Err(format!(
                    "wrong type for value; expected *semver.Version; got {}",
                    o.type_name()
                )),
            },
            // A nil *Version is a valid argument; the method then dereferences it.
            [Value::Nil] => {
                Err("runtime error: invalid memory address or nil pointer dereference".to_string())
            }
            [other] => Err(format!(
                "wrong type for value; expected *semver.Version; got {}",
                other.type_name()
            )),
            _ => Err(format!(
                "wrong number of args for {name}: want 1 got {}",
                args.len()
            )),
        }
    }

    fn set_part(&self, args: &[Value], meta: bool) -> Result<Value, String> {
        let s = match args {
            [Value::String(s)] => s.to_string(),
            _ => return Err("wrong type for value; expected string".to_string()),
        };
        let mut n = self.v.clone();
        for part in s.split('.').filter(|_| !s.is_empty()) {
            let digits = part.bytes().all(|b| b.is_ascii_digit());
            let allowed = part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
            if !meta && digits && part.len() > 1 && part.starts_with('0') {
                return Err(self.lib.msg("Version segment starts with 0"));
            }
            if !allowed || (meta && part.is_empty()) {
                return Err(self.lib.msg(if meta {
                    "Invalid Metadata string"
                } else {
                    "Invalid Prerelease string"
                }));
            }
        }
        if meta {
            n.metadata = s;
        } else {
            n.pre = s;
        }
        n.original = format!("{}{n}", self.v.v_prefix());
        Ok(self.wrap(n))
    }
}

const VALUE_METHODS: &[&str] = &[
    "String",
    "Major",
    "Minor",
    "Patch",
    "Prerelease",
    "Metadata",
    "IncPatch",
    "IncMinor",
    "IncMajor",
    "SetPrerelease",
    "SetMetadata",
    "MarshalJSON",
    "MarshalText",
    "Value",
];

const POINTER_METHODS: &[&str] = &["Original", "LessThan", "GreaterThan", "Equal", "Compare"];

impl Object for SemverObject {
    fn type_name(&self) -> String {
        if self.pointer {
            "*semver.Version".to_string()
        } else {
            "semver.Version".to_string()
        }
    }

    fn kind(&self) -> Kind {
        if self.pointer {
            Kind::Ptr
        } else {
            Kind::Struct
        }
    }

    fn has_method(&self, name: &str) -> bool {
        VALUE_METHODS.contains(&name)
            || (self.pointer
                && (POINTER_METHODS.contains(&name)
                    || (self.lib == Lib::V3_5
                        && matches!(name, "LessThanEqual" | "GreaterThanEqual"))))
    }

    /// Go checks a method call's arguments as a function's (count, then types,
    /// each at its argument) before the method runs.
    fn method_params(&self, name: &str) -> Option<&'static [Ty]> {
        if !self.has_method(name) {
            return None;
        }
        Some(match name {
            "SetPrerelease" | "SetMetadata" => &[Ty::String],
            "Compare" | "LessThan" | "GreaterThan" | "Equal" | "LessThanEqual"
            | "GreaterThanEqual" => &[Ty::Semver],
            _ => &[],
        })
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        if !self.has_method(name) {
            return Err(format!("can't call method/function {name:?}"));
        }
        let v = &self.v;
        let u = |x: u64| Value::Uint(x, UintType::Uint64);
        Ok(match name {
            "String" => Value::str(v.to_string()),
            "Major" => u(v.major),
            "Minor" => u(v.minor),
            "Patch" => u(v.patch),
            "Prerelease" => Value::str(v.pre.clone()),
            "Metadata" => Value::str(v.metadata.clone()),
            "Original" => Value::str(v.original.clone()),
            "IncPatch" => self.wrap(v.inc(2)),
            "IncMinor" => self.wrap(v.inc(1)),
            "IncMajor" => self.wrap(v.inc(0)),
            "SetPrerelease" => return self.set_part(args, false),
            "SetMetadata" => return self.set_part(args, true),
            "MarshalJSON" => Value::Bytes(Arc::from(
                go_quote(&v.to_string()).into_bytes().into_boxed_slice(),
            )),
            "MarshalText" => Value::Bytes(Arc::from(v.to_string().into_bytes().into_boxed_slice())),
            "Value" => Value::str(v.to_string()),
            "Compare" => Value::int(match v.compare(self.other(name, args)?) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            }),
            "LessThan" => Value::Bool(v.compare(self.other(name, args)?) == Ordering::Less),
            "GreaterThan" => Value::Bool(v.compare(self.other(name, args)?) == Ordering::Greater),
            "Equal" => Value::Bool(v.compare(self.other(name, args)?) == Ordering::Equal),
            "LessThanEqual" => Value::Bool(v.compare(self.other(name, args)?) != Ordering::Greater),
            "GreaterThanEqual" => Value::Bool(v.compare(self.other(name, args)?) != Ordering::Less),
            _ => return Err(format!("can't call method/function {name:?}")),
        })
    }

    fn fmt_v(&self, _plus: bool) -> String {
        self.v.to_string()
    }

    fn to_json_value(&self) -> Value {
        Value::str(self.v.to_string())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn semver_with(args: &[Value], lib: Lib) -> FuncResult {
    let v = Version::parse(arg_str(args, 0)?, lib).map_err(FuncError::Call)?;
    Ok(Value::object(SemverObject {
        v,
        pointer: true,
        lib,
    }))
}

fn compare_with(args: &[Value], lib: Lib) -> FuncResult {
    let c = Constraints::parse(arg_str(args, 0)?, lib).map_err(FuncError::Call)?;
    let v = Version::parse(arg_str(args, 1)?, lib).map_err(FuncError::Call)?;
    Ok(Value::Bool(c.check(&v)))
}

fn semver_3_2(args: &[Value]) -> FuncResult {
    semver_with(args, Lib::V3_2)
}

fn semver_3_5(args: &[Value]) -> FuncResult {
    semver_with(args, Lib::V3_5)
}

fn semver_compare_3_2(args: &[Value]) -> FuncResult {
    compare_with(args, Lib::V3_2)
}

fn semver_compare_3_5(args: &[Value]) -> FuncResult {
    compare_with(args, Lib::V3_5)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmp(lib: Lib, c: &str, v: &str) -> String {
        match compare_with(&[Value::str(c), Value::str(v)], lib) {
            Ok(b) => format!("{b:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn constraints_match_helm() {
        // (constraint, version, helm 3.15.3, helm 4.3.1), observed with the real binaries.
        let cases = [
            (">=1.20.0", "1.20.0-rc.1", "false", "false"),
            (">=1.20.0-0", "1.20.0-rc.1", "true", "true"),
            (">=1.20.0-0 <1.21.0", "1.20.5-rc.1", "false", "true"),
            ("^1.2", "1.9.0", "true", "true"),
            ("~1.2", "1.3.0", "false", "false"),
            ("1.x", "1.9.9", "true", "true"),
            ("1.2 - 1.4", "1.4.5", "true", "true"),
            (">1 || <0.5", "0.4.0", "true", "true"),
            ("!=1.2.3", "1.2.3-beta", "true", "false"),
            ("!=1.2.x", "1.2.3-beta", "false", "false"),
            (">= 1.2, < 2", "1.5.0", "true", "true"),
            ("x", "1.0.0", "true", "true"),
            ("^0.0.3", "0.0.4", "false", "false"),
            (">1.x", "2.0.0", "true", "true"),
            ("<=1.2", "1.2.9", "true", "true"),
            (">=v1.19.0-0", "v1.30.0", "true", "true"),
            (
                "foo",
                "1.0.0",
                "ERR improper constraint: foo",
                "ERR improper constraint: \"foo\"",
            ),
            (
                "",
                "1.0.0",
                "ERR improper constraint: ",
                "ERR improper constraint: \"\"",
            ),
            (
                ">1",
                "x",
                "ERR Invalid Semantic Version",
                "ERR invalid semantic version",
            ),
        ];
        for (c, v, v3, v4) in cases {
            assert_eq!(cmp(Lib::V3_2, c, v), v3, "v3 {c} {v}");
            assert_eq!(cmp(Lib::V3_5, c, v), v4, "v4 {c} {v}");
        }
    }

    /// Every string of up to 6 symbols over an alphabet holding each kind of
    /// character the grammar tells apart, and some longer versions, get the same
    /// groups from `split_version` as from the regex.
    #[test]
    fn split_version_agrees_with_the_grammar() {
        let re = GoRegex::compile(&format!("^{V}$")).expect("grammar compiles");
        let alphabet = ["v", "1", "0", ".", "-", "+", "a", "é"];
        let check = |w: &str| {
            let want = re.captures(w).map(|m| VersionParts {
                major: m[1],
                minor: m[2].get(1..).unwrap_or(""),
                patch: m[3].get(1..).unwrap_or(""),
                pre: m[5],
                metadata: m[8],
            });
            assert_eq!(split_version(w), want, "{w:?}");
        };
        let mut words = vec![String::new()];
        let mut checked = 0;
        for _ in 0..6 {
            let mut next = Vec::new();
            for w in &words {
                for a in alphabet {
                    let w = format!("{w}{a}");
                    check(&w);
                    checked += 1;
                    next.push(w);
                }
            }
            words = next;
        }
        assert!(checked > 250_000);
        for w in [
            "v1.25.1",
            "1.2.3-rc.1+build.5",
            "10.20.30-alpha-1.x-y+sha.0a1b",
            "1.2.3.4",
            "1.2.3-rc..1",
            "1.2.3-rc.1+",
            "1.2.3+a.b-c.d",
            "0.0.0-0",
            " 1.2.3",
            "1.2.3 ",
            "v",
            "vv1",
        ] {
            check(w);
        }
    }

    /// Compares `valid_constraints`, `find_constraints` and `split_constraint` with
    /// the expressions they follow, on one string and on each piece FIND cuts out.
    struct ConstraintGrammar {
        valid: &'static GoRegex,
        find: &'static GoRegex,
        constraint: &'static GoRegex,
    }

    impl ConstraintGrammar {
        fn new() -> ConstraintGrammar {
            let get = |r: &'static LazyRegex| r.get().unwrap_or_else(|e| panic!("{e}"));
            ConstraintGrammar {
                valid: get(&VALID),
                find: get(&FIND),
                constraint: get(&CONSTRAINT),
            }
        }

        fn split(&self, w: &str) {
            let want = self.constraint.captures(w).map(|m| ConstraintParts {
                op: m[1],
                version: m[2],
                major: m[3],
                minor: m[4],
                patch: m[5],
                pre: m[6],
            });
            assert_eq!(split_constraint(w), want, "CONSTRAINT {w:?}");
        }

        fn check(&self, w: &str) {
            assert_eq!(valid_constraints(w), self.valid.is_match(w), "VALID {w:?}");
            let found = find_constraints(w);
            assert_eq!(found, self.find.find_all(w, -1), "FIND {w:?}");
            self.split(w);
            for f in found {
                self.split(f);
            }
        }
    }

    /// A small deterministic generator (xorshift64*), enough to spread test strings.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }
    }

    /// Constraint strings the corpus charts use: `semverCompare` arguments and the
    /// values of `kubeVersion:` and `version:` lines (dependency ranges among them).
    fn corpus_constraints() -> Vec<String> {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    walk(&path, out);
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                for line in text.lines() {
                    let t = line.trim_start().trim_start_matches("- ");
                    for key in ["kubeVersion:", "version:"] {
                        if let Some(v) = t.strip_prefix(key) {
                            out.push(v.trim().trim_matches(|c| c == '"' || c == '\'').to_string());
                        }
                    }
                    for (i, _) in line.match_indices("semverCompare") {
                        let rest = line[i + "semverCompare".len()..].trim_start();
                        if let Some(arg) = rest.strip_prefix('"') {
                            if let Some(end) = arg.find('"') {
                                out.push(arg[..end].to_string());
                            }
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        if let Some(shared) = std::env::var_os("STACKPROOF_SHARED") {
            walk(
                &std::path::Path::new(&shared).join("corpus/charts"),
                &mut out,
            );
        }
        out.sort();
        out.dedup();
        out
    }

    /// Every string of up to 5 characters over an alphabet holding each kind of
    /// character the constraint grammar tells apart, random longer strings of those
    /// characters and of grammar-shaped pieces, and the corpus charts' constraints get
    /// the same answers from the scanners as from the expressions.
    #[test]
    fn constraint_scanners_agree_with_the_grammar() {
        let g = ConstraintGrammar::new();
        let alphabet: Vec<String> = " ,|=!<>~^v1.x*-+a".chars().map(String::from).collect();
        let mut words = vec![String::new()];
        let mut checked = 0;
        for _ in 0..5 {
            let mut next = Vec::new();
            for w in &words {
                for a in &alphabet {
                    let w = format!("{w}{a}");
                    g.check(&w);
                    checked += 1;
                    next.push(w);
                }
            }
            words = next;
        }
        assert!(checked > 1_400_000);

        let chars: Vec<char> = " ,|=!<>~^v1.x*-+a\t\n\x0c\r\x0b09XbZé\u{a0}_"
            .chars()
            .collect();
        let pieces = [
            " ", "  ", "\t", "\n", "\u{a0}", ",", ", ", " ,", "||", "|", "=", "!=", ">", "<", ">=",
            "=>", "<=", "=<", "~", "~>", "^", "!", "==", "v", "V", "1", "0", "12", "007", "x", "X",
            "*", ".", "-", "+", "rc", "a-b", "é", "1.2", "1.2.3", "v1.19", "1.x", "1.2.*", "-0",
            "-rc.1", "-rc..1", "+b.5", "+", ".x", " - ", "1.2.3.4",
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for _ in 0..100_000 {
            let w: String = (0..6 + rng.below(20))
                .map(|_| chars[rng.below(chars.len())])
                .collect();
            g.check(&w);
            let w: String = (0..1 + rng.below(12))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect();
            g.check(&w);
        }

        let corpus = corpus_constraints();
        eprintln!("constraint scanners: {} corpus strings", corpus.len());
        for c in &corpus {
            for part in c.split("||") {
                g.check(part);
            }
        }
    }

    #[test]
    fn versions_parse_and_print() {
        let v = Version::parse("v1.2.3-rc.1+b5", Lib::V3_2).ok();
        assert_eq!(
            v.as_ref().map(|v| v.to_string()).as_deref(),
            Some("1.2.3-rc.1+b5")
        );
        assert_eq!(v.map(|v| v.original).as_deref(), Some("v1.2.3-rc.1+b5"));
        assert_eq!(
            Version::parse("01.2.3", Lib::V3_2)
                .map(|v| v.to_string())
                .ok()
                .as_deref(),
            Some("1.2.3")
        );
        assert_eq!(
            Version::parse("1.2.3-01", Lib::V3_2).err().as_deref(),
            Some("Version segment starts with 0")
        );
        assert_eq!(
            Version::parse("1.2.3-01", Lib::V3_5).err().as_deref(),
            Some("version segment starts with 0")
        );
        assert_eq!(
            Version::parse("99999999999999999999.1.1", Lib::V3_2).err().as_deref(),
            Some("Error parsing version segment: strconv.ParseUint: parsing \"99999999999999999999\": value out of range")
        );
        let obj = SemverObject {
            v: Version::parse("1.2", Lib::V3_2).unwrap_or_else(|e| panic!("{e}")),
            pointer: true,
            lib: Lib::V3_2,
        };
        let inc = obj.call_method("IncMinor", &[]).ok();
        assert_eq!(
            inc.as_ref().map(Value::type_name).as_deref(),
            Some("semver.Version")
        );
        assert_eq!(
            inc.as_ref().and_then(|v| match v {
                Value::Object(o) => Some(o.has_method("Original")),
                _ => None,
            }),
            Some(false)
        );
        assert_eq!(
            obj.call_method("Major", &[])
                .ok()
                .map(|v| format!("{v:?}"))
                .as_deref(),
            Some("uint64(1)")
        );
    }

    #[test]
    fn compatible_ranges_as_helm_checks_them() {
        for lib in [Lib::V3_2, Lib::V3_5] {
            let t = |c: &str, v: &str| is_compatible_range(c, v, lib);
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
            assert!(!t(">=1.0.0", "not-a-version"));
        }
        // v3.5 lets one prerelease bound admit prereleases for the whole group.
        assert!(!is_compatible_range(
            ">=1.20.0-0 <1.21.0",
            "1.20.5-rc.1",
            Lib::V3_2
        ));
        assert!(is_compatible_range(
            ">=1.20.0-0 <1.21.0",
            "1.20.5-rc.1",
            Lib::V3_5
        ));
    }

    #[test]
    fn versions_print_normalized() {
        let p = |s: &str| Version::parse(s, Lib::V3_2).map(|v| v.to_string());
        assert_eq!(p("v1.30.0").as_deref(), Ok("1.30.0"));
        assert_eq!(p("1.2").as_deref(), Ok("1.2.0"));
        assert!(p("1.2.3.4").is_err());
        assert!(p("abc").is_err());
    }
}
