//! A read-only file system view with overlays.
//!
//! Real stacks expect files that repositories do not hold (a gitignored secrets file,
//! a registration values file that CI writes). NVCF's own tests copy the tree to a
//! temporary directory and write those files into it; stackproof instead layers
//! *overlay* files over the untouched tree, so the checked tree is never written to.
//! Overlay paths shadow real ones; directory listings include overlay entries.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, thiserror::Error)]
pub enum VfsError {
    #[error("open {path}: no such file or directory")]
    NotFound { path: String },
    #[error("read {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Read-only file access, rooted nowhere in particular: paths are used as given
/// (absolute, or relative to the process's working directory), after lexical
/// normalisation. Cloning is cheap. Two views are equal when their overlays are.
#[derive(Clone, Default, Debug, PartialEq, Eq, Hash)]
pub struct Vfs {
    overlays: Arc<BTreeMap<PathBuf, Arc<[u8]>>>,
}

impl Vfs {
    /// The plain file system with no overlays.
    pub fn real() -> Vfs {
        Vfs::default()
    }

    /// A view where each `(path, bytes)` shadows whatever the disk holds at `path`.
    pub fn with_overlays<I, P>(files: I) -> Vfs
    where
        I: IntoIterator<Item = (P, Vec<u8>)>,
        P: AsRef<Path>,
    {
        let overlays = files
            .into_iter()
            .map(|(p, b)| (normalize(&absolute(p.as_ref())), Arc::from(b)))
            .collect();
        Vfs {
            overlays: Arc::new(overlays),
        }
    }

    /// A copy of this view with one more overlay file.
    pub fn overlay(&self, path: impl AsRef<Path>, bytes: Vec<u8>) -> Vfs {
        let mut map = (*self.overlays).clone();
        map.insert(normalize(&absolute(path.as_ref())), Arc::from(bytes));
        Vfs {
            overlays: Arc::new(map),
        }
    }

    fn overlay_for(&self, path: &Path) -> Option<&Arc<[u8]>> {
        if self.overlays.is_empty() {
            return None;
        }
        self.overlays.get(&normalize(&absolute(path)))
    }

    pub fn read(&self, path: &Path) -> Result<Arc<[u8]>, VfsError> {
        if let Some(b) = self.overlay_for(path) {
            return Ok(b.clone());
        }
        match std::fs::read(path) {
            Ok(b) => Ok(Arc::from(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(VfsError::NotFound {
                path: path.display().to_string(),
            }),
            Err(e) => Err(VfsError::Io {
                path: path.display().to_string(),
                source: e,
            }),
        }
    }

    /// Reads a file as UTF-8 text, replacing invalid sequences (Go strings are bytes;
    /// templates with invalid UTF-8 still render).
    pub fn read_to_string(&self, path: &Path) -> Result<String, VfsError> {
        let b = self.read(path)?;
        Ok(match std::str::from_utf8(&b) {
            Ok(s) => s.to_string(),
            Err(_) => String::from_utf8_lossy(&b).into_owned(),
        })
    }

    pub fn is_file(&self, path: &Path) -> bool {
        self.overlay_for(path).is_some() || path.is_file()
    }

    pub fn is_dir(&self, path: &Path) -> bool {
        if path.is_dir() {
            return true;
        }
        let dir = normalize(&absolute(path));
        self.overlays
            .keys()
            .any(|k| k.starts_with(&dir) && k != &dir)
    }

    pub fn exists(&self, path: &Path) -> bool {
        self.is_file(path) || self.is_dir(path)
    }

    /// Entries directly inside `dir` (files and directories), sorted by name,
    /// including overlay files.
    pub fn read_dir(&self, dir: &Path) -> Result<Vec<DirEntry>, VfsError> {
        let mut out: BTreeMap<String, DirEntry> = BTreeMap::new();
        let mut found = false;
        match std::fs::read_dir(dir) {
            Ok(rd) => {
                found = true;
                for e in rd.flatten() {
                    let name = e.file_name().to_string_lossy().into_owned();
                    // The entry's type comes with the directory listing; only a
                    // symbolic link needs a stat to learn what it points at.
                    let ft = e.file_type().ok();
                    let link = ft.is_some_and(|t| t.is_symlink());
                    let path = dir.join(&name);
                    let (is_dir, is_file) = if link {
                        (path.is_dir(), path.is_file())
                    } else {
                        (
                            ft.is_some_and(|t| t.is_dir()),
                            ft.is_some_and(|t| t.is_file()),
                        )
                    };
                    out.insert(
                        name.clone(),
                        DirEntry {
                            path,
                            name,
                            is_dir,
                            is_file,
                        },
                    );
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(VfsError::Io {
                    path: dir.display().to_string(),
                    source: e,
                })
            }
        }
        let norm = normalize(&absolute(dir));
        for k in self.overlays.keys() {
            if let Ok(rest) = k.strip_prefix(&norm) {
                let mut comps = rest.components();
                if let Some(Component::Normal(first)) = comps.next() {
                    found = true;
                    let name = first.to_string_lossy().into_owned();
                    let is_dir = comps.next().is_some();
                    let entry = out.entry(name.clone()).or_insert(DirEntry {
                        path: dir.join(&name),
                        name,
                        is_dir,
                        is_file: false,
                    });
                    // An overlay file reads as a regular file, whatever the disk holds.
                    if !is_dir {
                        entry.is_file = true;
                    }
                }
            }
        }
        if !found {
            return Err(VfsError::NotFound {
                path: dir.display().to_string(),
            });
        }
        Ok(out.into_values().collect())
    }
}

/// One entry of [`Vfs::read_dir`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub path: PathBuf,
    pub is_dir: bool,
    /// What [`Vfs::is_file`] says of `path`: a regular file (or a link to one) on
    /// disk, or an overlay file.
    pub is_file: bool,
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

/// The text Go gives for the errno of an I/O error (`no such file or directory`,
/// `permission denied`): the C library's message, which Go's table repeats, with
/// Rust's ` (os error N)` suffix dropped and the first letter lowercased.
pub fn go_errno_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    let s = match s.find(" (os error") {
        Some(i) => &s[..i],
        None => &s,
    };
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Lexical normalisation (`a/./b/../c` → `a/c`), like Go's `filepath.Clean` without
/// touching the disk.
pub fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlay_shadows_and_lists() {
        let dir = std::env::temp_dir().join(format!("stackproof-vfs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("real.txt"), b"disk").unwrap();
        let vfs = Vfs::with_overlays([
            (dir.join("real.txt"), b"overlay".to_vec()),
            (dir.join("secrets/s.yaml"), b"{}".to_vec()),
        ]);
        assert_eq!(&*vfs.read(&dir.join("real.txt")).unwrap(), b"overlay");
        assert!(vfs.is_dir(&dir.join("secrets")));
        assert!(vfs.is_file(&dir.join("secrets/./s.yaml")));
        let names: Vec<_> = vfs
            .read_dir(&dir)
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.is_dir))
            .collect();
        assert_eq!(
            names,
            vec![
                ("real.txt".to_string(), false),
                ("secrets".to_string(), true)
            ]
        );
        // the disk is untouched
        assert_eq!(std::fs::read(dir.join("real.txt")).unwrap(), b"disk");
        assert!(!dir.join("secrets").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
    }
}
