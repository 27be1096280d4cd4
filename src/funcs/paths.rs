//! Sprig's path functions: `base`, `dir`, `clean`, `ext`, `isAbs` (Go's `path`, always
//! slash-separated) and `osBase`, `osDir`, `osClean`, `osExt`, `osIsAbs` (Go's
//! `path/filepath`, which on the Unix systems Helm runs on is the same algorithm).
//!
//! The lexical rules are Go's, not Rust's `Path`: `clean` collapses `..` without
//! touching the file system, `base ""` is `.`, `dir "a/"` is `a`, `ext` starts at the
//! last dot of the final element.

use super::conversion::arg_str;
use crate::template::{FuncDef, FuncResult, Ty, Value};

pub static FUNCS: &[FuncDef] = &[
    FuncDef::plain("base", &[Ty::String], base),
    FuncDef::plain("dir", &[Ty::String], dir),
    FuncDef::plain("clean", &[Ty::String], clean),
    FuncDef::plain("ext", &[Ty::String], ext),
    FuncDef::plain("isAbs", &[Ty::String], is_abs),
    FuncDef::plain("osBase", &[Ty::String], base),
    FuncDef::plain("osClean", &[Ty::String], clean),
    FuncDef::plain("osDir", &[Ty::String], dir),
    FuncDef::plain("osExt", &[Ty::String], ext),
    FuncDef::plain("osIsAbs", &[Ty::String], is_abs),
];

/// Go's path.Clean: the shortest equivalent path by purely lexical processing.
pub(crate) fn go_clean(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if matches!(parts.last(), Some(last) if *last != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Go's path.Base: the last element, trailing slashes removed; `.` for empty, `/`
/// for a path of only slashes.
pub(crate) fn go_base(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    match trimmed.rfind('/') {
        Some(i) => trimmed[i + 1..].to_string(),
        None => trimmed.to_string(),
    }
}

/// Go's path.Dir: everything up to the last slash, cleaned.
pub(crate) fn go_dir(p: &str) -> String {
    let cut = p.rfind('/').map_or(0, |i| i + 1);
    go_clean(&p[..cut])
}

/// Go's path.Ext: from the last dot of the final element, or empty.
pub(crate) fn go_ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        match c {
            '/' => break,
            '.' => return p[i..].to_string(),
            _ => {}
        }
    }
    String::new()
}

fn base(args: &[Value]) -> FuncResult {
    Ok(Value::str(go_base(arg_str(args, 0)?)))
}

fn dir(args: &[Value]) -> FuncResult {
    Ok(Value::str(go_dir(arg_str(args, 0)?)))
}

fn clean(args: &[Value]) -> FuncResult {
    Ok(Value::str(go_clean(arg_str(args, 0)?)))
}

fn ext(args: &[Value]) -> FuncResult {
    Ok(Value::str(go_ext(arg_str(args, 0)?)))
}

fn is_abs(args: &[Value]) -> FuncResult {
    Ok(Value::Bool(arg_str(args, 0)?.starts_with('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_path_semantics() {
        let clean_cases = [
            ("", "."),
            ("a/b/../c", "a/c"),
            ("/../a", "/a"),
            ("../../a/..", "../.."),
            ("a//b/./c/", "a/b/c"),
            ("/", "/"),
            ("./", "."),
            ("a/..", "."),
        ];
        for (i, want) in clean_cases {
            assert_eq!(go_clean(i), want, "clean {i:?}");
        }
        let base_cases = [
            ("", "."),
            ("/", "/"),
            ("a/b/", "b"),
            ("a/b.txt", "b.txt"),
            ("//", "/"),
        ];
        for (i, want) in base_cases {
            assert_eq!(go_base(i), want, "base {i:?}");
        }
        let dir_cases = [
            ("", "."),
            ("a/b", "a"),
            ("a/b/", "a/b"),
            ("/a", "/"),
            ("a", "."),
            ("//a//b", "/a"),
        ];
        for (i, want) in dir_cases {
            assert_eq!(go_dir(i), want, "dir {i:?}");
        }
        assert_eq!(go_ext("a/b.tar.gz"), ".gz");
        assert_eq!(go_ext("a.b/c"), "");
        assert_eq!(go_ext("x."), ".");
    }
}
