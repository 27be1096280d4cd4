//! Go's `path/filepath` on strings (Clean, Join, Dir, Base, Ext, Match, Glob).
//!
//! Helmfile changes its working directory into each state file's folder and then
//! names files with relative Go paths (`../global.yaml.gotmpl`, `"."` as a base
//! path), and those strings appear in its messages (`does not exist in "."`). We never
//! change the process's directory: every state keeps the absolute directory Helmfile
//! would be in (its *cwd*), file access resolves Go path strings against it, and
//! messages use the Go strings unchanged.

use std::path::{Path, PathBuf};

use crate::source::Vfs;

/// Go `filepath.Clean` for `/`-separated paths.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let rooted = p.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|s| *s != "..") {
                    out.pop();
                } else if !rooted {
                    out.push("..");
                }
            }
            s => out.push(s),
        }
    }
    let body = out.join("/");
    match (rooted, body.is_empty()) {
        (true, _) => format!("/{body}"),
        (false, true) => ".".to_string(),
        (false, false) => body,
    }
}

/// Go `filepath.Join`: non-empty elements joined with `/`, then cleaned.
pub fn join(parts: &[&str]) -> String {
    let nonempty: Vec<&str> = parts.iter().copied().filter(|s| !s.is_empty()).collect();
    if nonempty.is_empty() {
        return String::new();
    }
    clean(&nonempty.join("/"))
}

/// Go `filepath.Dir`.
pub fn dir(p: &str) -> String {
    match p.rfind('/') {
        Some(i) => clean(&p[..=i]),
        None => ".".to_string(),
    }
}

/// Go `filepath.Base`.
pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".to_string();
    }
    let t = p.trim_end_matches('/');
    if t.is_empty() {
        return "/".to_string();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

/// Go `filepath.Ext`.
pub fn ext(p: &str) -> String {
    let b = p.rsplit('/').next().unwrap_or(p);
    match b.rfind('.') {
        Some(i) => b[i..].to_string(),
        None => String::new(),
    }
}

pub fn is_abs(p: &str) -> bool {
    p.starts_with('/')
}

/// Whether Helmfile treats a `helmfiles:` path as a remote (go-getter) source to
/// download, as its `remote.IsRemote` decides: not an absolute path, and either
/// `GETTER::URL` or anything that parses as a URL with a scheme
/// (`git::https://host/org/repo@dir/helmfile.yaml?ref=v1`, `https://...`).
pub fn is_remote(p: &str) -> bool {
    if is_abs(p) {
        return false;
    }
    let parts: Vec<&str> = p.split("::").collect();
    let url = if parts.len() == 2 { parts[1] } else { p };
    if is_abs(url) {
        return false;
    }
    // Go's url.Parse: a scheme is a letter, then letters, digits, `+`, `-`, `.`,
    // ended by `:`.
    let Some((scheme, _)) = url.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The absolute path for I/O of a Go path string seen from `cwd`.
pub fn resolve(cwd: &Path, p: &str) -> PathBuf {
    if is_abs(p) {
        PathBuf::from(clean(p))
    } else {
        PathBuf::from(clean(&format!("{}/{}", cwd.display(), p)))
    }
}

/// Lexical normalisation of an absolute or relative `PathBuf`.
pub fn normalize(p: &Path) -> PathBuf {
    PathBuf::from(clean(&p.to_string_lossy()))
}

fn has_meta(p: &str) -> bool {
    p.contains(['*', '?', '[', '\\'])
}

/// Go `filepath.Match` for one name (no `/` crossing). A malformed pattern matches
/// nothing, where Go would return `ErrBadPattern`.
pub fn match_pattern(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> Option<bool> {
        if p.is_empty() {
            return Some(n.is_empty());
        }
        match p[0] {
            '*' => {
                for i in 0..=n.len() {
                    if n[..i].contains(&'/') {
                        break;
                    }
                    if go(&p[1..], &n[i..])? {
                        return Some(true);
                    }
                }
                Some(false)
            }
            '?' => {
                if n.is_empty() || n[0] == '/' {
                    return Some(false);
                }
                go(&p[1..], &n[1..])
            }
            '[' => {
                if n.is_empty() || n[0] == '/' {
                    return Some(false);
                }
                let c = n[0];
                let mut i = 1;
                let negate = p.get(i) == Some(&'^');
                if negate {
                    i += 1;
                }
                let mut matched = false;
                let mut first = true;
                loop {
                    let &ch = p.get(i)?;
                    if ch == ']' && !first {
                        i += 1;
                        break;
                    }
                    first = false;
                    let (lo, adv) = if ch == '\\' {
                        (*p.get(i + 1)?, 2)
                    } else {
                        (ch, 1)
                    };
                    i += adv;
                    let mut hi = lo;
                    if p.get(i) == Some(&'-') && p.get(i + 1).is_some_and(|&x| x != ']') {
                        let h = *p.get(i + 1)?;
                        let (h, adv) = if h == '\\' {
                            (*p.get(i + 2)?, 3)
                        } else {
                            (h, 2)
                        };
                        hi = h;
                        i += adv;
                    }
                    if lo <= c && c <= hi {
                        matched = true;
                    }
                }
                if matched == negate {
                    return Some(false);
                }
                go(&p[i..], &n[1..])
            }
            '\\' => {
                let &lit = p.get(1)?;
                if n.first() != Some(&lit) {
                    return Some(false);
                }
                go(&p[2..], &n[1..])
            }
            c => {
                if n.first() != Some(&c) {
                    return Some(false);
                }
                go(&p[1..], &n[1..])
            }
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n).unwrap_or(false)
}

/// Go `filepath.Glob` on the view `vfs`, relative patterns seen from `cwd`. Results
/// keep the pattern's form (relative stays relative) and are in directory order
/// (byte order of names).
pub fn glob(vfs: &Vfs, cwd: &Path, pattern: &str) -> Vec<String> {
    if !has_meta(pattern) {
        let p = resolve(cwd, pattern);
        return if vfs.exists(&p) {
            vec![pattern.to_string()]
        } else {
            Vec::new()
        };
    }
    let (d, file) = match pattern.rfind('/') {
        Some(i) => (&pattern[..i], &pattern[i + 1..]),
        None => ("", pattern),
    };
    let d_clean = if d.is_empty() {
        ".".to_string()
    } else if d.len() > 1 {
        d.trim_end_matches('/').to_string()
    } else {
        d.to_string()
    };
    let dirs: Vec<String> = if has_meta(&d_clean) {
        glob(vfs, cwd, &d_clean)
    } else {
        vec![d_clean.clone()]
    };
    let mut out = Vec::new();
    for dd in dirs {
        let Ok(entries) = vfs.read_dir(&resolve(cwd, &dd)) else {
            continue;
        };
        let mut names: Vec<String> = entries.into_iter().map(|e| e.name).collect();
        names.sort();
        for name in names {
            if match_pattern(file, &name) {
                out.push(if d.is_empty() {
                    name
                } else {
                    join(&[&dd, &name])
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_paths_as_helmfile_tells_them() {
        for p in [
            "git::https://github.com/org/repo.git@helmfile.yaml?ref=v1.0.0",
            "git::ssh://git@github.com/org/repo.git@dir/helmfile.yaml",
            "s3::https://bucket.s3.amazonaws.com/helmfile.yaml",
            "https://example.com/helmfile.yaml",
        ] {
            assert!(is_remote(p), "{p}");
        }
        for p in [
            "helmfile.d/*.yaml",
            "../sub/helmfile.yaml",
            "/abs/helmfile.yaml",
            "git::/abs/helmfile.yaml",
            "sub dir/x:y.yaml",
            "1x:y.yaml",
        ] {
            assert!(!is_remote(p), "{p}");
        }
    }

    #[test]
    fn clean_join_dir_base() {
        assert_eq!(clean("./a/../b/"), "b");
        assert_eq!(clean("../../x"), "../../x");
        assert_eq!(clean("/../x"), "/x");
        assert_eq!(
            join(&[".", "../global.yaml.gotmpl"]),
            "../global.yaml.gotmpl"
        );
        assert_eq!(join(&["helmfile.d", "01.yaml"]), "helmfile.d/01.yaml");
        assert_eq!(dir("helmfile.d/01.yaml"), "helmfile.d");
        assert_eq!(dir("helmfile.yaml"), ".");
        assert_eq!(base("a/b.yaml.gotmpl"), "b.yaml.gotmpl");
        assert_eq!(ext("a/b.yaml.gotmpl"), ".gotmpl");
        assert_eq!(ext("a.d/b"), "");
    }

    #[test]
    fn matching() {
        assert!(match_pattern("*.y*ml", "a.yaml"));
        assert!(match_pattern("*.y*ml", "a.yml"));
        assert!(!match_pattern("*.y*ml", "a.yaml.gotmpl"));
        assert!(match_pattern("*.y*ml.gotmpl", "a.yaml.gotmpl"));
        assert!(match_pattern("_*.tpl", "_helpers.tpl"));
        assert!(match_pattern("[a-c]?", "bz"));
        assert!(!match_pattern("[^a-c]?", "bz"));
        assert!(!match_pattern("[", "["));
    }

    #[test]
    fn glob_keeps_relative_form() {
        let vfs = Vfs::with_overlays([
            ("/g/st/helmfile.d/10-a.yaml.gotmpl", b"x".to_vec()),
            ("/g/st/helmfile.d/00-b.yaml", b"x".to_vec()),
            ("/g/st/helmfile.d/notes.txt", b"x".to_vec()),
        ]);
        let cwd = Path::new("/g/st");
        assert_eq!(
            glob(&vfs, cwd, "helmfile.d/*.y*ml"),
            vec!["helmfile.d/00-b.yaml"]
        );
        assert_eq!(
            glob(&vfs, cwd, "helmfile.d/*.y*ml.gotmpl"),
            vec!["helmfile.d/10-a.yaml.gotmpl"]
        );
        assert_eq!(
            glob(&vfs, cwd, "helmfile.d/none.yaml"),
            Vec::<String>::new()
        );
        assert_eq!(
            glob(&vfs, Path::new("/g/st/helmfile.d"), "*.yaml"),
            vec!["00-b.yaml"]
        );
    }
}
