//! Sprig's `urlParse` and `urlJoin`, which expose Go's `net/url` parsing and printing.
//!
//! The dictionary keys carry Go's field semantics: `path` and `fragment` are
//! percent-decoded, `query` and `opaque` are raw, `userinfo` is re-escaped, and
//! `hostname` drops the port and IPv6 brackets. `urlJoin` prints with Go's escaping
//! rules, which differ per URL component (a path keeps `:@&=+$`, a fragment keeps
//! `!()*`), so this is a port of those rules rather than a generic URL library, whose
//! normalisation (lower-casing hosts, resolving dot segments) Go does not do.

use super::conversion::arg_str;
use super::lists::nil_deref;
use crate::template::fmt::quote as go_quote;
use crate::template::{FuncDef, FuncError, FuncResult, Map, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("urlParse", &[Ty::String], url_parse),
    FuncDef::plain("urlJoin", &[Ty::Map], url_join),
];

/// Helm 4 is built with a newer Go, whose `net/url` refuses more hosts.
pub static FUNCS_GO125: &[FuncDef] = &[FuncDef::plain("urlParse", &[Ty::String], url_parse_go125)];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    Fragment,
    /// A key or value of a query (`url.QueryUnescape`): `+` is a space.
    Query,
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::Fragment => return false,
            Mode::Query => return true,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

/// Go's `escape` for one component.
fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if should_escape(b, mode) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Go's `unescape`, with its per-component validity rules and error texts.
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    let end = (i + 3).min(b.len());
                    return Err(format!(
                        "invalid URL escape {}",
                        go_quote(&String::from_utf8_lossy(&b[i..end]))
                    ));
                }
                let v = hex(b[i + 1]) << 4 | hex(b[i + 2]);
                let seq = &s[i..i + 3];
                if mode == Mode::Host && hex(b[i + 1]) < 8 && seq != "%25" {
                    return Err(format!("invalid URL escape {}", go_quote(seq)));
                }
                if mode == Mode::Zone && seq != "%25" && v != b' ' && should_escape(v, Mode::Host) {
                    return Err(format!("invalid URL escape {}", go_quote(seq)));
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        go_quote(&s[i..i + 1])
                    ));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(hex(b[i + 1]) << 4 | hex(b[i + 2]));
            i += 3;
        } else if b[i] == b'+' && mode == Mode::Query {
            out.push(b' ');
            i += 1;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn hex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()))
}

/// The parts of a Go `url.URL` that Sprig reads or writes.
#[derive(Default, Debug)]
struct Url {
    scheme: String,
    opaque: String,
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_path: String,
    omit_host: bool,
    force_query: bool,
    raw_query: String,
    fragment: String,
}

/// Which Go's `net/url` to imitate: the hosts they accept differ.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum GoUrl {
    /// Go 1.22 (Helm 3, Helmfile): a port is what follows the last colon, and a
    /// bracketed host is taken as written.
    Go122,
    /// Go 1.25 (Helm 4): in an `http`/`https` URL a port is what follows the
    /// first colon, and brackets must open the host and hold an IPv6 address.
    Go125,
}

fn parse_host(scheme: &str, host: &str, go: GoUrl) -> Result<String, String> {
    if go == GoUrl::Go125 {
        return parse_host_go125(scheme, host);
    }
    if host.starts_with('[') {
        let (name, port) = bracketed(host)?;
        return Ok(format!("[{name}]{port}"));
    }
    if let Some(i) = host.rfind(':') {
        check_port(&host[i..])?;
    }
    unescape(host, Mode::Host)
}

fn check_port(colon_port: &str) -> Result<(), String> {
    if valid_optional_port(colon_port) {
        Ok(())
    } else {
        Err(format!("invalid port {} after host", go_quote(colon_port)))
    }
}

/// A host that opens with `[`: what the brackets hold, unescaped (a `%25` starts
/// a zone, which has its own escaping rules), and the `:port` after them.
fn bracketed(host: &str) -> Result<(String, String), String> {
    let Some(close) = host.rfind(']') else {
        return Err("missing ']' in host".to_string());
    };
    let colon_port = &host[close + 1..];
    check_port(colon_port)?;
    let inner = &host[1..close];
    let name = match inner.find("%25") {
        Some(zone) => {
            unescape(&inner[..zone], Mode::Host)? + &unescape(&inner[zone..], Mode::Zone)?
        }
        None => unescape(inner, Mode::Host)?,
    };
    Ok((name, unescape(colon_port, Mode::Host)?))
}

fn parse_host_go125(scheme: &str, host: &str) -> Result<String, String> {
    let Some(open) = host.rfind('[') else {
        if let Some(first) = host.find(':') {
            // Only web URLs are held to one colon: other schemes (database URLs
            // listing several hosts) keep the port after the last one.
            let i = match host.rfind(':') {
                Some(last) if !matches!(scheme, "http" | "https") => last,
                _ => first,
            };
            check_port(&host[i..])?;
        }
        return unescape(host, Mode::Host);
    };
    if open != 0 {
        return Err("invalid IP-literal".to_string());
    }
    let (name, port) = bracketed(host)?;
    let addr = super::netip::parse_addr(&name).map_err(|e| format!("invalid host: {e}"))?;
    if addr.is4 {
        return Err("invalid IP-literal".to_string());
    }
    Ok(format!("[{name}]{port}"))
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|r| {
        r.is_ascii_alphanumeric()
            || matches!(
                r,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

type User = Option<(String, Option<String>)>;

fn parse_authority(scheme: &str, authority: &str, go: GoUrl) -> Result<(User, String), String> {
    let at = authority.rfind('@');
    let host = parse_host(scheme, at.map_or(authority, |i| &authority[i + 1..]), go)?;
    let Some(i) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..i];
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".to_string());
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo, Mode::UserPassword)?, None),
        Some((u, p)) => (
            unescape(u, Mode::UserPassword)?,
            Some(unescape(p, Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

/// Go's `getScheme`.
fn get_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".to_string());
                }
                return Ok((&raw[..i], &raw[i + 1..]));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

impl Url {
    /// Go's `url.Parse`, with its `parse "URL": reason` error.
    fn parse(raw: &str, go: GoUrl) -> Result<Url, String> {
        let (u, frag) = raw.split_once('#').unwrap_or((raw, ""));
        let mut url =
            Url::parse_no_fragment(u, go).map_err(|e| format!("parse {}: {e}", go_quote(u)))?;
        if !frag.is_empty() {
            url.fragment = unescape(frag, Mode::Fragment)
                .map_err(|e| format!("parse {}: {e}", go_quote(raw)))?;
        }
        Ok(url)
    }

    fn parse_no_fragment(raw: &str, go: GoUrl) -> Result<Url, String> {
        if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
            return Err("net/url: invalid control character in URL".to_string());
        }
        let mut url = Url::default();
        if raw == "*" {
            url.path = "*".to_string();
            return Ok(url);
        }
        let (scheme, rest) = get_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();
        let mut rest = rest.to_string();
        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            url.force_query = true;
            rest.pop();
        } else if let Some((a, q)) = rest.split_once('?') {
            url.raw_query = q.to_string();
            rest = a.to_string();
        }
        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                url.opaque = rest;
                return Ok(url);
            }
            let segment = rest.split('/').next().unwrap_or("");
            if segment.contains(':') {
                return Err("first path segment in URL cannot contain colon".to_string());
            }
        }
        if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
            let authority_and_path = &rest[2..];
            let (authority, path) = match authority_and_path.find('/') {
                Some(i) => (&authority_and_path[..i], &authority_and_path[i..]),
                None => (authority_and_path, ""),
            };
            let (user, host) = parse_authority(&url.scheme, authority, go)?;
            url.user = user;
            url.host = host;
            rest = path.to_string();
        } else if !url.scheme.is_empty() && rest.starts_with('/') {
            url.omit_host = true;
        }
        url.path = unescape(&rest, Mode::Path)?;
        if escape(&url.path, Mode::Path) != rest {
            url.raw_path = rest;
        }
        Ok(url)
    }

    fn hostname(&self) -> String {
        let mut host = self.host.as_str();
        if let Some(colon) = host.rfind(':') {
            if valid_optional_port(&host[colon..]) {
                host = &host[..colon];
            }
        }
        if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
            host = &host[1..host.len() - 1];
        }
        host.to_string()
    }

    fn userinfo(&self) -> String {
        match &self.user {
            None => String::new(),
            Some((u, p)) => {
                let mut s = escape(u, Mode::UserPassword);
                if let Some(p) = p {
                    s.push(':');
                    s.push_str(&escape(p, Mode::UserPassword));
                }
                s
            }
        }
    }

    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty() {
            if let Ok(p) = unescape(&self.raw_path, Mode::Path) {
                if p == self.path {
                    return self.raw_path.clone();
                }
            }
        }
        if self.path == "*" {
            return "*".to_string();
        }
        escape(&self.path, Mode::Path)
    }

    /// Go's `URL.String`.
    fn to_go_string(&self) -> String {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            let has_authority =
                !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            // An empty authority parsed from `scheme:/path` stays omitted.
            if has_authority && !(self.omit_host && self.host.is_empty() && self.user.is_none()) {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.push_str("//");
                }
                if self.user.is_some() {
                    buf.push_str(&self.userinfo());
                    buf.push('@');
                }
                if !self.host.is_empty() {
                    buf.push_str(&escape(&self.host, Mode::Host));
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() && path.split('/').next().unwrap_or("").contains(':') {
                buf.push_str("./");
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push('#');
            buf.push_str(&escape(&self.fragment, Mode::Fragment));
        }
        buf
    }
}

/// What other modules read from Go's `url.Parse` (JSON-schema `format` checks,
/// Helmfile's vals references): the scheme, the host with and without port and
/// brackets, the decoded path and the raw path (empty when the path's escaping is
/// the default one), the raw query and the decoded fragment; or the parse error's
/// text.
pub(crate) struct ParsedUrl {
    pub scheme: String,
    pub host: String,
    pub hostname: String,
    pub path: String,
    pub raw_path: String,
    pub raw_query: String,
    pub fragment: String,
}

pub(crate) fn parse(raw: &str, go: GoUrl) -> Result<ParsedUrl, String> {
    let u = Url::parse(raw, go)?;
    Ok(ParsedUrl {
        hostname: u.hostname(),
        scheme: u.scheme,
        host: u.host,
        path: u.path,
        raw_path: u.raw_path,
        raw_query: u.raw_query,
        fragment: u.fragment,
    })
}

/// `url.ParseQuery(raw).Get(key)`: the first value of `key`, pairs that do not
/// decode (or hold a `;`) skipped as Go skips them.
pub(crate) fn query_get(raw: &str, key: &str) -> Option<String> {
    raw.split('&')
        .filter(|pair| !pair.is_empty() && !pair.contains(';'))
        .find_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let k = unescape(k, Mode::Query).ok()?;
            (k == key).then(|| unescape(v, Mode::Query).ok()).flatten()
        })
}

/// Go's `url.PathUnescape`, with its `invalid URL escape "%zz"` error.
pub(crate) fn path_unescape(s: &str) -> Result<String, String> {
    unescape(s, Mode::Path)
}

fn url_parse(args: &[Value]) -> FuncResult {
    url_parse_with(args, GoUrl::Go122)
}

fn url_parse_go125(args: &[Value]) -> FuncResult {
    url_parse_with(args, GoUrl::Go125)
}

fn url_parse_with(args: &[Value], go: GoUrl) -> FuncResult {
    let u = Url::parse(arg_str(args, 0)?, go)
        .map_err(|e| FuncError::Call(format!("unable to parse url: {e}")))?;
    let m = Map::new();
    m.insert("scheme", Value::str(u.scheme.clone()));
    m.insert("host", Value::str(u.host.clone()));
    m.insert("hostname", Value::str(u.hostname()));
    m.insert("path", Value::str(u.path.clone()));
    m.insert("query", Value::str(u.raw_query.clone()));
    m.insert("opaque", Value::str(u.opaque.clone()));
    m.insert("fragment", Value::str(u.fragment.clone()));
    m.insert("userinfo", Value::str(u.userinfo()));
    Ok(Value::Map(m))
}

/// Sprig's `dictGetOrEmpty`: missing is `""`, a non-string is a panic.
fn dict_string(d: Option<&Map>, key: &str) -> Result<String, FuncError> {
    match d.and_then(|m| m.get(key)) {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.to_string()),
        Some(Value::Nil) => Err(nil_deref()),
        Some(other) => Err(FuncError::Call(format!(
            "unable to parse {key} key, must be of type string, but {} found",
            other.kind_name()
        ))),
    }
}

fn url_join(args: &[Value]) -> FuncResult {
    let d = super::conversion::arg_map(args, 0)?;
    let mut u = Url {
        scheme: dict_string(d, "scheme")?,
        host: dict_string(d, "host")?,
        path: dict_string(d, "path")?,
        raw_query: dict_string(d, "query")?,
        opaque: dict_string(d, "opaque")?,
        fragment: dict_string(d, "fragment")?,
        ..Url::default()
    };
    let userinfo = dict_string(d, "userinfo")?;
    if !userinfo.is_empty() {
        let parsed = Url::parse(&format!("proto://{userinfo}@host"), GoUrl::Go122)
            .map_err(|e| FuncError::Call(format!("unable to parse userinfo in dict: {e}")))?;
        u.user = parsed.user;
    }
    Ok(Value::str(u.to_go_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vmap;

    fn parsed(s: &str) -> String {
        match url_parse(&[Value::str(s)]) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    fn joined(v: Value) -> String {
        match url_join(&[v]) {
            Ok(Value::String(s)) => s.to_string(),
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn parse_like_go() {
        assert_eq!(
            parsed("https://u:p%40@Example.com:8443/a%20b/c?x=1&y=%20#frag%21"),
            r#"{"fragment": "frag!", "host": "Example.com:8443", "hostname": "Example.com", "opaque": "", "path": "/a b/c", "query": "x=1&y=%20", "scheme": "https", "userinfo": "u:p%40"}"#
        );
        assert_eq!(
            parsed("mailto:joe@x.org"),
            r#"{"fragment": "", "host": "", "hostname": "", "opaque": "joe@x.org", "path": "", "query": "", "scheme": "mailto", "userinfo": ""}"#
        );
        assert_eq!(
            parsed("%zz"),
            r#"ERR unable to parse url: parse "%zz": invalid URL escape "%zz""#
        );
        assert_eq!(
            parsed("a:b:c/d"),
            r#"{"fragment": "", "host": "", "hostname": "", "opaque": "b:c/d", "path": "", "query": "", "scheme": "a", "userinfo": ""}"#
        );
        assert_eq!(
            parsed("http://[::1]:80/"),
            r#"{"fragment": "", "host": "[::1]:80", "hostname": "::1", "opaque": "", "path": "/", "query": "", "scheme": "http", "userinfo": ""}"#
        );
        assert_eq!(
            parsed("http://x:y z/"),
            r#"ERR unable to parse url: parse "http://x:y z/": invalid port ":y z" after host"#
        );
    }

    #[test]
    fn join_like_go() {
        assert_eq!(
            joined(
                vmap! {"scheme" => "https", "host" => "example.com", "path" => "/a b?", "query" => "q=1", "fragment" => "f g!", "userinfo" => "u:p"}
            ),
            "https://u:p@example.com/a%20b%3F?q=1#f%20g!"
        );
        assert_eq!(joined(vmap! {"path" => "a:b"}), "./a:b");
        assert_eq!(joined(vmap! {"host" => "h", "path" => "p"}), "//h/p");
        assert_eq!(
            joined(vmap! {"host" => Value::int(1)}),
            "ERR unable to parse host key, must be of type string, but int found"
        );
    }
}
