//! Go's `net/netip.ParseAddr`: whether a string is an IP address, and when it is
//! not, Go's exact reason (`ParseAddr("1:2"): address string too short`). Newer
//! Go's `net/url` and the JSON-schema `ipv6` format hand that reason on in their
//! own messages, so the checks follow Go's parser step by step rather than a
//! generic address parser, whose verdicts and reasons differ at the edges.

use crate::template::fmt::quote_bytes_with;

fn fail(input: &str, msg: &str, at: Option<&[u8]>) -> String {
    let q = |s: &[u8]| quote_bytes_with(s, b'"', false);
    match at.filter(|a| !a.is_empty()) {
        Some(a) => format!("ParseAddr({}): {msg} (at {})", q(input.as_bytes()), q(a)),
        None => format!("ParseAddr({}): {msg}", q(input.as_bytes())),
    }
}

/// What callers ask of a parsed address.
pub(crate) struct Addr {
    /// An IPv4 address (not an IPv4-mapped IPv6 one).
    pub is4: bool,
    /// An IPv6 address with a `%zone`.
    pub zoned: bool,
}

/// `netip.ParseAddr(s)`, or its error text.
pub(crate) fn parse_addr(s: &str) -> Result<Addr, String> {
    for &c in s.as_bytes() {
        match c {
            b'.' => {
                return ipv4_fields(s, 0, s.len()).map(|_| Addr {
                    is4: true,
                    zoned: false,
                })
            }
            b':' => return ipv6(s).map(|zoned| Addr { is4: false, zoned }),
            b'%' => return Err(fail(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(fail(s, "unable to parse IP", None))
}

fn ipv4_fields(input: &str, off: usize, end: usize) -> Result<(), String> {
    let s = &input.as_bytes()[off..end];
    let (mut val, mut pos, mut digits) = (0u32, 0, 0);
    for (i, &c) in s.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 1 && val == 0 {
                return Err(fail(input, "IPv4 field has octet with leading zero", None));
            }
            val = val * 10 + u32::from(c - b'0');
            digits += 1;
            if val > 255 {
                return Err(fail(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(fail(
                    input,
                    "IPv4 field must have at least one digit",
                    Some(&s[i..]),
                ));
            }
            if pos == 3 {
                return Err(fail(input, "IPv4 address too long", None));
            }
            pos += 1;
            val = 0;
            digits = 0;
        } else {
            return Err(fail(input, "unexpected character", Some(&s[i..])));
        }
    }
    if pos < 3 {
        return Err(fail(input, "IPv4 address too short", None));
    }
    Ok(())
}

fn ipv6(input: &str) -> Result<bool, String> {
    let mut s = input.as_bytes();
    let mut zone: &[u8] = &[];
    if let Some(i) = s.iter().position(|&c| c == b'%') {
        zone = &s[i + 1..];
        s = &s[..i];
        if zone.is_empty() {
            return Err(fail(input, "zone must be a non-empty string", None));
        }
    }
    let mut ellipsis: Option<usize> = None;
    if s.starts_with(b"::") {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Ok(!zone.is_empty());
        }
    }
    let mut i = 0;
    while i < 16 {
        let mut off = 0;
        let mut acc = 0u32;
        while let Some(d) = s.get(off).and_then(|c| char::from(*c).to_digit(16)) {
            // Four hex digits cannot pass 0xffff, so this is the only overflow.
            if off > 3 {
                return Err(fail(
                    input,
                    "each group must have 4 or less digits",
                    Some(s),
                ));
            }
            acc = (acc << 4) + d;
            off += 1;
        }
        if off == 0 {
            return Err(fail(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if s.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return Err(fail(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(fail(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            let end = input.len() - if zone.is_empty() { 0 } else { zone.len() + 1 };
            ipv4_fields(input, end - s.len(), end)?;
            s = &[];
            i += 4;
            break;
        }
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' {
            return Err(fail(input, "unexpected character, want colon", Some(s)));
        }
        if s.len() == 1 {
            return Err(fail(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return Err(fail(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(fail(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        if ellipsis.is_none() {
            return Err(fail(input, "address string too short", None));
        }
    } else if ellipsis.is_some() {
        return Err(fail(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
    }
    Ok(!zone.is_empty())
}
