//! The `format` checks Helm 3 asserts (gojsonschema's built-in checkers, which
//! lean on Go's `net/mail`, `net`, `net/url` and `time` parsers). Unknown formats
//! pass; a number fails every known one (other non-strings are never checked).
//! Helm 4's checks are in `format4`.

use super::Regexes;

const HOSTNAME: &str = r"^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\-]{0,61}[a-zA-Z0-9]))*$";
const UUID: &str = "^(?i)[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$";
const JSON_POINTER: &str = "^(?:/(?:[^~/]|~0|~1)*)*$";
const REL_JSON_POINTER: &str = "^(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~0|~1)*)*)$";
const URI_TEMPLATE: &str = "^([^{]*({[^}]*})?)*$";

/// The formats gojsonschema has a checker for; any other passes.
const KNOWN: [&str; 17] = [
    "date",
    "time",
    "date-time",
    "hostname",
    "email",
    "idn-email",
    "ipv4",
    "ipv6",
    "uri",
    "iri",
    "uri-reference",
    "iri-reference",
    "uri-template",
    "uuid",
    "regex",
    "json-pointer",
    "relative-json-pointer",
];

/// Whether a value passes the checker gojsonschema has for `format`: `text` for a
/// string, `None` for a number, which every checker refuses.
pub(super) fn check(format: &str, text: Option<&str>, re: &mut Regexes) -> bool {
    if !KNOWN.contains(&format) {
        return true;
    }
    let Some(text) = text else {
        return false;
    };
    match format {
        "date" => date(text),
        "time" => time_zoned(text).is_some_and(|rest| rest.is_empty()) || time(text) == Some(""),
        "date-time" => date_time(text),
        "hostname" => re.is_match(HOSTNAME, text) == Some(true) && text.len() < 256,
        "email" | "idn-email" => email(text),
        "ipv4" => ip(text) && text.contains('.'),
        "ipv6" => ip(text) && text.contains(':'),
        "uri" | "iri" => uri_parts(text).is_some_and(|scheme| scheme) && !text.contains('\\'),
        "uri-reference" | "iri-reference" => uri_parts(text).is_some() && !text.contains('\\'),
        "uri-template" => {
            uri_parts(text).is_some()
                && !text.contains('\\')
                && re.is_match(URI_TEMPLATE, uri_path(text)) == Some(true)
        }
        "uuid" => re.is_match(UUID, text) == Some(true),
        "regex" => text.is_empty() || regex::Regex::new(text).is_ok(),
        "json-pointer" => re.is_match(JSON_POINTER, text) == Some(true),
        "relative-json-pointer" => re.is_match(REL_JSON_POINTER, text) == Some(true),
        _ => true,
    }
}

/// `net.ParseIP`: dotted IPv4 without leading zeros, or IPv6 (with an embedded
/// IPv4 tail allowed).
fn ip(s: &str) -> bool {
    s.parse::<std::net::Ipv4Addr>().is_ok() || s.parse::<std::net::Ipv6Addr>().is_ok()
}

fn digits(s: &str, n: usize) -> Option<(u32, &str)> {
    let head = s.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &s[n..]))
}

fn lit(s: &str, c: char) -> Option<&str> {
    s.strip_prefix(c)
}

/// `2006-01-02`, with a day that exists in that month.
fn date_prefix(s: &str) -> Option<&str> {
    let (y, s) = digits(s, 4)?;
    let (m, s) = digits(lit(s, '-')?, 2)?;
    let (d, s) = digits(lit(s, '-')?, 2)?;
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    (1..=days).contains(&d).then_some(s)
}

fn date(s: &str) -> bool {
    date_prefix(s) == Some("")
}

/// `15:04:05` with an optional fraction (Go accepts one after seconds); the rest.
fn time(s: &str) -> Option<&str> {
    let (h, s) = digits(s, 2)?;
    let (m, s) = digits(lit(s, ':')?, 2)?;
    let (sec, mut s) = digits(lit(s, ':')?, 2)?;
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    if let Some(rest) = s.strip_prefix(['.', ',']) {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return None;
        }
        s = &rest[n..];
    }
    Some(s)
}

/// `15:04:05Z07:00`: a time then `Z` or `±hh:mm`; the rest.
fn time_zoned(s: &str) -> Option<&str> {
    let s = time(s)?;
    if let Some(rest) = s.strip_prefix('Z') {
        return Some(rest);
    }
    let rest = s.strip_prefix(['+', '-'])?;
    let (h, rest) = digits(rest, 2)?;
    let (m, rest) = digits(lit(rest, ':')?, 2)?;
    (h < 24 && m < 60).then_some(rest)
}

fn date_time(s: &str) -> bool {
    if time(s) == Some("") || time_zoned(s) == Some("") || date(s) {
        return true;
    }
    date_prefix(s)
        .and_then(|rest| rest.strip_prefix('T'))
        .and_then(time_zoned)
        == Some("")
}

/// `mail.ParseAddress`, for the shapes charts use: `local@domain` or
/// `Name <local@domain>`.
fn email(s: &str) -> bool {
    let s = s.trim();
    let addr = match (s.rfind('<'), s.strip_suffix('>')) {
        (Some(i), Some(_)) => &s[i + 1..s.len() - 1],
        _ => s,
    };
    let Some((local, domain)) = addr.rsplit_once('@') else {
        return false;
    };
    let atext = |c: char| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || !c.is_ascii();
    let dot_atom =
        |p: &str| !p.is_empty() && p.split('.').all(|a| !a.is_empty() && a.chars().all(atext));
    let local_ok =
        dot_atom(local) || (local.len() >= 2 && local.starts_with('"') && local.ends_with('"'));
    let domain_ok = dot_atom(domain) || (domain.starts_with('[') && domain.ends_with(']'));
    local_ok && domain_ok
}

/// Roughly `url.Parse`: `Some(has_scheme)` when it parses.
fn uri_parts(s: &str) -> Option<bool> {
    if s.chars().any(|c| (c as u32) < 0x20 || c as u32 == 0x7f) {
        return None;
    }
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let ok =
                b.len() > i + 2 && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit();
            if !ok {
                return None;
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    // Go's getScheme, then its "colon in first path segment" rule.
    let head = s.split('#').next().unwrap_or(s);
    let head = head.split('?').next().unwrap_or(head);
    let first_segment = head.split('/').next().unwrap_or(head);
    let has_scheme = match first_segment.find(':') {
        Some(0) => return None,
        Some(n) => {
            let sch = &s[..n];
            let valid = sch.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && sch
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
            if !valid {
                return None;
            }
            true
        }
        None => false,
    };
    Some(has_scheme)
}

/// The path part of a URI reference, for the `uri-template` brace check.
fn uri_path(s: &str) -> &str {
    let s = s.split(['?', '#']).next().unwrap_or(s);
    let s = match s.find(':') {
        Some(n) if !s[..n].contains('/') => &s[n + 1..],
        _ => s,
    };
    match s.strip_prefix("//") {
        Some(rest) => rest.find('/').map_or("", |i| &rest[i..]),
        None => s,
    }
}
