//! The two glob dialects Helm uses, reimplemented.
//!
//! `.helmignore` rules and `helm template --show-only` use Go's `filepath.Match`
//! (`*` stops at `/`, character classes, backslash escapes, and an error for a
//! malformed pattern), while `.Files.Glob` uses gobwas/glob with `/` as separator
//! (`**` crosses directories, `{a,b}` alternatives, `[!x]` negation). Charts depend on
//! the exact differences, so each dialect gets its own matcher.

/// The error Go's `filepath.Match` returns for a malformed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPattern;

impl std::fmt::Display for BadPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("syntax error in pattern")
    }
}

/// Go's `filepath.Match(pattern, name)` on a Unix system.
pub fn path_match(pattern: &str, name: &str) -> Result<bool, BadPattern> {
    let mut pattern = pattern.as_bytes();
    let mut name = name.as_bytes();
    'outer: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing star matches the rest of the name unless it holds a separator.
            return Ok(!name.contains(&b'/'));
        }
        let (t, ok, err) = match_chunk(chunk, name);
        // A match is only accepted when it uses up the name or more pattern follows.
        if ok && (t.is_empty() || !pattern.is_empty()) {
            name = t;
            continue;
        }
        if err {
            return Err(BadPattern);
        }
        if star {
            // Try every split point up to the next separator.
            let mut i = 0;
            while i < name.len() && name[i] != b'/' {
                let (t, ok, err) = match_chunk(chunk, &name[i + 1..]);
                if ok {
                    if pattern.is_empty() && !t.is_empty() {
                        i += 1;
                        continue;
                    }
                    name = t;
                    continue 'outer;
                }
                if err {
                    return Err(BadPattern);
                }
                i += 1;
            }
        }
        // Report syntax errors in the unread rest of the pattern even when failing.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            let (_, _, err) = match_chunk(chunk, b"");
            if err {
                return Err(BadPattern);
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Splits off the leading stars and the following chunk (up to the next unbracketed
/// star).
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let Some(b'*') = pattern.first() {
        pattern = &pattern[1..];
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// Decodes one UTF-8 character at the start of `s` (invalid bytes count as one).
fn first_char(s: &[u8]) -> (char, usize) {
    let max = s.len().min(4);
    for n in 1..=max {
        if let Ok(t) = std::str::from_utf8(&s[..n]) {
            if let Some(c) = t.chars().next() {
                return (c, n);
            }
        }
    }
    ('\u{FFFD}', 1)
}

/// Matches one chunk against the start of `s`; returns the rest of `s`, whether it
/// matched, and whether the chunk is malformed.
fn match_chunk<'a>(mut chunk: &[u8], mut s: &'a [u8]) -> (&'a [u8], bool, bool) {
    // Keep scanning after a failure so syntax errors are still reported.
    let mut failed = false;
    while !chunk.is_empty() {
        if !failed && s.is_empty() {
            failed = true;
        }
        match chunk[0] {
            b'[' => {
                let mut r = '\0';
                if !failed {
                    let (c, n) = first_char(s);
                    r = c;
                    s = &s[n..];
                }
                chunk = &chunk[1..];
                let mut negated = false;
                if let Some(b'^') = chunk.first() {
                    negated = true;
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut nrange = 0;
                loop {
                    if !chunk.is_empty() && chunk[0] == b']' && nrange > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let Some((lo, rest)) = get_esc(chunk) else {
                        return (b"", false, true);
                    };
                    chunk = rest;
                    let mut hi = lo;
                    if let Some(b'-') = chunk.first() {
                        let Some((h, rest)) = get_esc(&chunk[1..]) else {
                            return (b"", false, true);
                        };
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    nrange += 1;
                }
                if matched == negated {
                    failed = true;
                }
            }
            b'?' => {
                if !failed {
                    if s[0] == b'/' {
                        failed = true;
                    }
                    let (_, n) = first_char(s);
                    s = &s[n..];
                }
                chunk = &chunk[1..];
            }
            b'\\' => {
                chunk = &chunk[1..];
                if chunk.is_empty() {
                    return (b"", false, true);
                }
                if !failed {
                    if chunk[0] != s[0] {
                        failed = true;
                    }
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
            c => {
                if !failed {
                    if c != s[0] {
                        failed = true;
                    }
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    if failed {
        return (b"", false, false);
    }
    (s, true, false)
}

/// One possibly escaped character of a character class.
fn get_esc(chunk: &[u8]) -> Option<(char, &[u8])> {
    if chunk.is_empty() || chunk[0] == b'-' || chunk[0] == b']' {
        return None;
    }
    let mut chunk = chunk;
    if chunk[0] == b'\\' {
        chunk = &chunk[1..];
        if chunk.is_empty() {
            return None;
        }
    }
    let (c, n) = first_char(chunk);
    let rest = &chunk[n..];
    if rest.is_empty() {
        return None;
    }
    Some((c, rest))
}

/// A compiled gobwas/glob pattern with `/` as the only separator.
#[derive(Debug, Clone)]
pub struct Glob {
    tokens: Vec<Tok>,
}

#[derive(Debug, Clone)]
enum Tok {
    Lit(char),
    /// `*`: any run of non-separator characters.
    Star,
    /// `**`: any run of characters.
    Super,
    /// `?`: one non-separator character.
    Any,
    /// `[...]` / `[!...]`
    Class {
        negated: bool,
        items: Vec<(char, char)>,
    },
    /// `{a,b}`
    Alt(Vec<Vec<Tok>>),
}

impl Glob {
    /// Compiles a pattern; `None` when gobwas/glob would reject it.
    pub fn compile(pattern: &str) -> Option<Glob> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut pos = 0;
        let tokens = parse_seq(&chars, &mut pos, false)?;
        if pos != chars.len() {
            return None;
        }
        Some(Glob { tokens })
    }

    /// A pattern matching everything (`**`), which Helm substitutes for a bad one.
    pub fn match_all() -> Glob {
        Glob {
            tokens: vec![Tok::Super],
        }
    }

    pub fn is_match(&self, name: &str) -> bool {
        let chars: Vec<char> = name.chars().collect();
        match_seq(&self.tokens, &chars, &[])
    }
}

fn parse_seq(chars: &[char], pos: &mut usize, in_alt: bool) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    while *pos < chars.len() {
        let c = chars[*pos];
        match c {
            ',' | '}' if in_alt => return Some(out),
            '*' => {
                if chars.get(*pos + 1) == Some(&'*') {
                    *pos += 2;
                    out.push(Tok::Super);
                } else {
                    *pos += 1;
                    out.push(Tok::Star);
                }
            }
            '?' => {
                *pos += 1;
                out.push(Tok::Any);
            }
            '\\' => {
                let next = *chars.get(*pos + 1)?;
                *pos += 2;
                out.push(Tok::Lit(next));
            }
            '[' => {
                *pos += 1;
                let mut negated = false;
                if chars.get(*pos) == Some(&'!') {
                    negated = true;
                    *pos += 1;
                }
                let mut items = Vec::new();
                loop {
                    let c = *chars.get(*pos)?;
                    if c == ']' {
                        *pos += 1;
                        break;
                    }
                    let lo = if c == '\\' {
                        *pos += 1;
                        *chars.get(*pos)?
                    } else {
                        c
                    };
                    *pos += 1;
                    if chars.get(*pos) == Some(&'-') && chars.get(*pos + 1) != Some(&']') {
                        let hi = *chars.get(*pos + 1)?;
                        *pos += 2;
                        items.push((lo, hi));
                    } else {
                        items.push((lo, lo));
                    }
                }
                if items.is_empty() {
                    return None;
                }
                out.push(Tok::Class { negated, items });
            }
            '{' => {
                *pos += 1;
                let mut alts = Vec::new();
                loop {
                    let alt = parse_seq(chars, pos, true)?;
                    alts.push(alt);
                    match chars.get(*pos) {
                        Some(',') => *pos += 1,
                        Some('}') => {
                            *pos += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
                out.push(Tok::Alt(alts));
            }
            _ => {
                *pos += 1;
                out.push(Tok::Lit(c));
            }
        }
    }
    if in_alt {
        // An alternative group that never closes.
        return None;
    }
    Some(out)
}

/// Backtracking match of `toks` followed by `tail` (the tokens after an enclosing
/// alternative) against `s`.
fn match_seq(toks: &[Tok], s: &[char], tail: &[&[Tok]]) -> bool {
    let Some((first, rest)) = toks.split_first() else {
        return match tail.split_first() {
            Some((next, more)) => match_seq(next, s, more),
            None => s.is_empty(),
        };
    };
    match first {
        Tok::Lit(c) => s.first() == Some(c) && match_seq(rest, &s[1..], tail),
        Tok::Any => s.first().is_some_and(|c| *c != '/') && match_seq(rest, &s[1..], tail),
        Tok::Class { negated, items } => match s.first() {
            Some(&c) => {
                let inside = items.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                inside != *negated && match_seq(rest, &s[1..], tail)
            }
            None => false,
        },
        Tok::Star => {
            let mut i = 0;
            loop {
                if match_seq(rest, &s[i..], tail) {
                    return true;
                }
                if i >= s.len() || s[i] == '/' {
                    return false;
                }
                i += 1;
            }
        }
        Tok::Super => (0..=s.len()).any(|i| match_seq(rest, &s[i..], tail)),
        Tok::Alt(alts) => {
            let mut t: Vec<&[Tok]> = Vec::with_capacity(tail.len() + 1);
            t.push(rest);
            t.extend_from_slice(tail);
            alts.iter().any(|a| match_seq(a, s, &t))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_path_match() {
        let cases = [
            ("abc", "abc", true),
            ("*", "abc", true),
            ("*c", "abc", true),
            ("a*", "a", true),
            ("a*", "ab/c", false),
            ("a*/b", "abc/b", true),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", true),
            ("a*b?c*x", "abxbbxdbxebxczzx", true),
            ("ab[c]", "abc", true),
            ("ab[b-d]", "abc", true),
            ("ab[^c]", "abc", false),
            ("a\\*b", "a*b", true),
            ("a?b", "a/b", false),
            ("*.yaml", "templates/x.yaml", false),
            ("templates/*", "templates/x.yaml", true),
        ];
        for (p, n, want) in cases {
            assert_eq!(path_match(p, n), Ok(want), "{p} {n}");
        }
        assert_eq!(path_match("[", "a"), Err(BadPattern));
        assert_eq!(path_match("a[", "x"), Err(BadPattern));
        assert_eq!(path_match("*x\\", "abc"), Err(BadPattern));
    }

    #[test]
    fn gobwas_glob() {
        let g = |p: &str, n: &str| Glob::compile(p).map(|g| g.is_match(n));
        assert_eq!(g("files/*", "files/a.txt"), Some(true));
        assert_eq!(g("files/*", "files/sub/c.txt"), Some(false));
        assert_eq!(g("files/**", "files/sub/c.txt"), Some(true));
        assert_eq!(g("**.yaml", "a/b/c.yaml"), Some(true));
        assert_eq!(g("*.{yaml,json}", "x.json"), Some(true));
        assert_eq!(g("[!a]*", "abc"), Some(false));
        assert_eq!(g("dash*/*.json", "dashboards/x.json"), Some(true));
        assert_eq!(g("{a", "a"), None);
    }
}
