//! The `format` checks Helm 4 asserts: those of its JSON-schema library
//! (santhosh-tekuri/jsonschema v6). The library asserts `format` only for schemas
//! of a draft before 2019-09 (a `$schema` of draft-04, -06 or -07); later drafts
//! treat it as an annotation. Each check answers the reason the library prints
//! after `'VALUE' is not valid FORMAT: `, reasons that quote Go's own parsers
//! (`net/netip`, `net/url`, `time`, `regexp`, `strconv`) where the library hands
//! their errors on. Formats the library does not know pass.

use crate::funcs::{dates, netip, regex::GoRegex, url};
use crate::template::fmt::quote_rune;

type Check = Result<(), String>;

/// The reason `text` is not of `format`, or `Ok` (also for an unknown format).
pub(super) fn check(format: &str, text: &str) -> Check {
    match format {
        "json-pointer" => json_pointer(text),
        "relative-json-pointer" => relative_json_pointer(text),
        "uuid" => uuid(text),
        "duration" => duration(text),
        "period" => period(text),
        "ipv4" => ipv4(text),
        "ipv6" => ipv6(text),
        "hostname" => hostname(text),
        "email" => email(text),
        "date" => date(text),
        "time" => time(text),
        "date-time" => date_time(text),
        "uri" | "iri" => uri(text),
        "uri-reference" | "iri-reference" => uri_reference(text),
        "uri-template" => uri_template(text),
        "semver" => semver(text),
        "regex" => GoRegex::compile(text)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}

fn json_pointer(s: &str) -> Check {
    if s.is_empty() {
        return Ok(());
    }
    let Some(rest) = s.strip_prefix('/') else {
        return Err("not starting with /".into());
    };
    for tok in rest.split('/') {
        let mut escape = false;
        for c in tok.chars() {
            if escape {
                escape = false;
                if c != '0' && c != '1' {
                    return Err("~ must be followed by 0 or 1".into());
                }
                continue;
            }
            if c == '~' {
                escape = true;
                continue;
            }
            if !matches!(c, '\0'..='\x2e' | '\x30'..='\x7d' | '\x7f'..=char::MAX) {
                return Err(format!("invalid character {}", quote_rune(c)));
            }
        }
        if escape {
            return Err("~ must be followed by 0 or 1".into());
        }
    }
    Ok(())
}

fn leading_digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

fn relative_json_pointer(s: &str) -> Check {
    let n = leading_digits(s);
    if n == 0 {
        return Err("must start with non-negative integer".into());
    }
    if n > 1 && s.starts_with('0') {
        return Err("starts with zero".into());
    }
    match &s[n..] {
        "#" => Ok(()),
        rest => json_pointer(rest),
    }
}

fn uuid(s: &str) -> Check {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    let groups: Vec<&str> = s.split('-').collect();
    if groups.len() != GROUPS.len() {
        return Err(format!("must have {} elements", GROUPS.len()));
    }
    for (i, (group, want)) in groups.iter().zip(GROUPS).enumerate() {
        if group.len() != want {
            return Err(format!("element {} must be {want} characters long", i + 1));
        }
        if let Some(c) = group.chars().find(|c| !c.is_ascii_hexdigit()) {
            return Err(format!("non-hex character {}", quote_rune(c)));
        }
    }
    Ok(())
}

fn duration(s: &str) -> Check {
    let Some(s) = s.strip_prefix('P') else {
        return Err("must start with P".into());
    };
    if s.is_empty() {
        return Err("nothing after P".into());
    }
    if let Some(weeks) = s.strip_suffix('W') {
        if weeks.is_empty() {
            return Err("no number in week".into());
        }
        if !weeks.bytes().all(|b| b.is_ascii_digit()) {
            return Err("invalid week".into());
        }
        return Ok(());
    }
    // Units are single bytes, read as Go reads `s[0]`; a byte of a longer
    // character is quoted as the character of that byte's value, as Go's `%q`
    // does with a byte.
    const ALL_UNITS: [&[u8]; 2] = [b"YMD", b"HMS"];
    for (i, part) in s.as_bytes().split(|&b| b == b'T').enumerate() {
        if i != 0 && part.is_empty() {
            return Err("no time elements".into());
        }
        let Some(all) = ALL_UNITS.get(i) else {
            return Err("more than one T".into());
        };
        let mut units: &[u8] = all;
        let mut rest = part;
        while !rest.is_empty() {
            let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            if n == 0 {
                return Err("missing number".into());
            }
            rest = &rest[n..];
            let Some((&unit, after)) = rest.split_first() else {
                return Err("missing unit".into());
            };
            match units.iter().position(|&u| u == unit) {
                Some(j) => units = &units[j + 1..],
                None if all.contains(&unit) => {
                    return Err(format!(
                        "unit {} out of order",
                        quote_rune(char::from(unit))
                    ));
                }
                None => return Err(format!("invalid unit {}", quote_rune(char::from(unit)))),
            }
            rest = after;
        }
    }
    Ok(())
}

fn period(s: &str) -> Check {
    let Some((start, end)) = s.split_once('/') else {
        return Err("missing slash".into());
    };
    if start.starts_with('P') {
        duration(start).map_err(|e| format!("invalid start duration: {e}"))?;
        date_time(end).map_err(|e| format!("invalid end date-time: {e}"))
    } else {
        date_time(start).map_err(|e| format!("invalid start date-time: {e}"))?;
        if end.starts_with('P') {
            duration(end).map_err(|e| format!("invalid end duration: {e}"))
        } else {
            date_time(end).map_err(|e| format!("invalid end date-time: {e}"))
        }
    }
}

fn ipv4(s: &str) -> Check {
    let groups: Vec<&str> = s.split('.').collect();
    if groups.len() != 4 {
        return Err("expected four decimals".into());
    }
    for group in groups {
        if group.len() > 1 && group.starts_with('0') {
            return Err("leading zeros".into());
        }
        let n = crate::chart::strvals::go_atoi(group)?;
        if !(0..=255).contains(&n) {
            return Err("decimal must be between 0 and 255".into());
        }
    }
    Ok(())
}

fn ipv6(s: &str) -> Check {
    if !s.contains(':') {
        return Err("missing colon".into());
    }
    if netip::parse_addr(s)?.zoned {
        return Err("zone id is not a part of ipv6 address".into());
    }
    Ok(())
}

fn hostname(s: &str) -> Check {
    let s = s.strip_suffix('.').unwrap_or(s);
    if s.len() > 253 {
        return Err("more than 253 characters long".into());
    }
    for label in s.split('.') {
        if label.is_empty() || label.len() > 63 {
            return Err("label must be 1 to 63 characters long".into());
        }
        if label.starts_with('-') {
            return Err("label starts with hyphen".into());
        }
        if label.ends_with('-') {
            return Err("label ends with hyphen".into());
        }
        if let Some(c) = label
            .chars()
            .find(|c| !c.is_ascii_alphanumeric() && *c != '-')
        {
            return Err(format!("invalid character {}", quote_rune(c)));
        }
    }
    Ok(())
}

fn email(s: &str) -> Check {
    // The library's limit is 254 bytes; its message says 255.
    if s.len() > 254 {
        return Err("more than 255 characters long".into());
    }
    let Some(at) = s.rfind('@') else {
        return Err("missing @".into());
    };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    if local.len() > 64 {
        return Err("local part more than 64 characters long".into());
    }
    // Quoted when it starts with a quote (the library never looks at the end).
    if local.len() > 1 && local.starts_with('"') {
        let inner = &local.as_bytes()[1..local.len() - 1];
        if inner.iter().any(|&b| b == b'\\' || b == b'"') {
            return Err("backslash and quote are not allowed within quoted local part".into());
        }
    } else {
        if local.starts_with('.') {
            return Err("starts with dot".into());
        }
        if local.ends_with('.') {
            return Err("ends with dot".into());
        }
        if local.contains("..") {
            return Err("consecutive dots".into());
        }
        if let Some(c) = local
            .chars()
            .find(|c| !c.is_ascii_alphanumeric() && !".!#$%&'*+-/=?^_`{|}~".contains(*c))
        {
            return Err(format!("invalid character {}", quote_rune(c)));
        }
    }
    if let Some(inner) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        if let Some(v6) = inner.strip_prefix("IPv6:") {
            return ipv6(v6).map_err(|e| format!("invalid ipv6 address: {e}"));
        }
        return ipv4(inner).map_err(|e| format!("invalid ipv4 address: {e}"));
    }
    hostname(domain).map_err(|e| format!("invalid domain: {e}"))
}

fn date(s: &str) -> Check {
    dates::check_layout("2006-01-02", s)
}

/// `s[range]` by bytes as Go slices a string, without splitting a character in
/// Rust: a cut character becomes U+FFFD (only messages can show it).
fn byte_slice(s: &str, from: usize, to: usize) -> String {
    String::from_utf8_lossy(s.as_bytes().get(from..to).unwrap_or_default()).into_owned()
}

/// The `N` colon-separated numbers of `text`, read with Go's `strconv.Atoi`:
/// `invalid` when one is not a number, `negative` when one is below zero.
fn numbers<const N: usize>(text: &str, invalid: &str, negative: &str) -> Result<[i64; N], String> {
    let mut out = [0i64; N];
    for (slot, tok) in out.iter_mut().zip(text.splitn(N, ':')) {
        let n = crate::chart::strvals::go_atoi(tok).map_err(|_| invalid.to_string())?;
        if n < 0 {
            return Err(negative.into());
        }
        *slot = n;
    }
    Ok(out)
}

fn time(s: &str) -> Check {
    let b = s.as_bytes();
    if b.len() < 9 {
        return Err("less than 9 characters long".into());
    }
    if b[2] != b':' || b[5] != b':' {
        return Err("missing colon in correct place".into());
    }
    let [mut h, mut m, sec] = numbers::<3>(
        &byte_slice(s, 0, 8),
        "invalid hour/min/sec",
        "non-positive hour/min/sec",
    )?;
    if h > 23 || m > 59 || sec > 60 {
        return Err("hour/min/sec out of range".into());
    }
    let mut rest = &b[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return Err("no digits in second fraction".into());
        }
        rest = &frac[n..];
    }
    if rest != b"z" && rest != b"Z" {
        if rest.len() != 6 {
            return Err("offset must be 6 characters long".into());
        }
        let sign = match rest[0] {
            b'+' => -1,
            b'-' => 1,
            _ => return Err("offset must begin with plus/minus".into()),
        };
        let off = &rest[1..];
        if off[2] != b':' {
            return Err("missing colon in offset in correct place".into());
        }
        let [zh, zm] = numbers::<2>(
            &String::from_utf8_lossy(off),
            "invalid hour/min in offset",
            "non-positive hour/min in offset",
        )?;
        if zh > 23 || zm > 59 {
            return Err("hour/min in offset out of range".into());
        }
        let mut hm = (h * 60 + m) + sign * (zh * 60 + zm);
        if hm < 0 {
            hm += 24 * 60;
        }
        (h, m) = (hm / 60, hm % 60);
    }
    if sec >= 60 && (h != 23 || m != 59) {
        return Err("invalid leap second".into());
    }
    Ok(())
}

fn date_time(s: &str) -> Check {
    let b = s.as_bytes();
    if b.len() < 20 {
        return Err("less than 20 characters long".into());
    }
    if b[10] != b't' && b[10] != b'T' {
        return Err("11th character must be t or T".into());
    }
    date(&byte_slice(s, 0, 10)).map_err(|e| format!("invalid date element: {e}"))?;
    time(&byte_slice(s, 11, b.len())).map_err(|e| format!("invalid time element: {e}"))
}

/// `url.Parse`, plus the check the library adds: a host name with a colon must
/// be a bracketed IPv6 address.
fn parse_url(s: &str) -> Result<url::ParsedUrl, String> {
    let u = url::parse(s, url::GoUrl::Go125)?;
    if u.hostname.contains(':') {
        if !u.host.contains('[') || !u.host.contains(']') {
            return Err("ipv6 address not enclosed in brackets".into());
        }
        ipv6(&u.hostname).map_err(|e| format!("invalid ipv6 address: {e}"))?;
    }
    Ok(u)
}

fn uri(s: &str) -> Check {
    if parse_url(s)?.scheme.is_empty() {
        return Err("relative url".into());
    }
    Ok(())
}

fn uri_reference(s: &str) -> Check {
    if s.contains('\\') {
        return Err("contains \\".into());
    }
    parse_url(s).map(|_| ())
}

fn uri_template(s: &str) -> Check {
    let u = parse_url(s)?;
    for tok in u.raw_path.split('/') {
        let tok = url::path_unescape(tok).map_err(|e| format!("percent decode failed: {e}"))?;
        let mut want_open = true;
        for c in tok.chars() {
            let open = match c {
                '{' => true,
                '}' => false,
                _ => continue,
            };
            if open != want_open {
                return Err("nested curly braces".into());
            }
            want_open = !want_open;
        }
        if !want_open {
            return Err("no matching closing brace".into());
        }
    }
    Ok(())
}

fn semver(s: &str) -> Check {
    let id_char = |c: char| c.is_ascii_alphanumeric() || c == '-';
    let mut s = s;
    if let Some((core, build)) = s.split_once('+') {
        if build.is_empty() {
            return Err("build is empty".into());
        }
        for id in build.split('.') {
            if id.is_empty() {
                return Err("build identifier is empty".into());
            }
            if let Some(c) = id.chars().find(|c| !id_char(*c)) {
                return Err(format!(
                    "invalid character {} in build identifier",
                    quote_rune(c)
                ));
            }
        }
        s = core;
    }
    if let Some((core, pre)) = s.split_once('-') {
        for id in pre.split('.') {
            if id.is_empty() {
                return Err("pre-release identifier is empty".into());
            }
            if let Some(c) = id.chars().find(|c| !id_char(*c)) {
                return Err(format!(
                    "invalid character {} in pre-release identifier",
                    quote_rune(c)
                ));
            }
            if id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()) {
                return Err("pre-release numeric identifier starts with zero".into());
            }
        }
        s = core;
    }
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 3 {
        return Err("versionCore must have 3 numbers separated by dot".into());
    }
    for (name, part) in ["major", "minor", "patch"].into_iter().zip(parts) {
        if part.is_empty() {
            return Err(format!("{name} is empty"));
        }
        if part.len() > 1 && part.starts_with('0') {
            return Err(format!("{name} starts with zero"));
        }
        if !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{name} contains non-digit"));
        }
    }
    Ok(())
}
