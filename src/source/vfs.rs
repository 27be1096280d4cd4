//! A read-only file system view with overlays.
//!
//! Real stacks expect files that repositories do not hold (a gitignored secrets file,
//! a registration values file that CI writes). NVCF's own tests copy the tree to a
//! temporary directory and write those files into it; stackproof instead layers
//! *overlay* files over the untouched tree, so the checked tree is never written to.
//! Overlay paths shadow real ones; directory listings include overlay entries.
//!
//! Reads land in the shared buffer callers keep (no second copy; large files are
//! mapped rather than read, see `source::bytes`), and
//! [`Vfs::may_read`] tells a caller that postpones a read whether it would fail.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::Bytes;

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

impl VfsError {
    /// The same error naming the file as `shown`: the path as the failing program
    /// had it (Go's `open nope.yaml: ...` for a path relative to its directory).
    pub fn with_path(self, shown: &str) -> VfsError {
        match self {
            VfsError::NotFound { .. } => VfsError::NotFound {
                path: shown.to_string(),
            },
            VfsError::Io { source, .. } => VfsError::Io {
                path: shown.to_string(),
                source,
            },
        }
    }
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

    pub fn read(&self, path: &Path) -> Result<Bytes, VfsError> {
        if let Some(b) = self.overlay_for(path) {
            return Ok(Bytes::from(b.clone()));
        }
        match read_shared(path) {
            Ok(b) => Ok(b),
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

    /// Whether reading the regular file at `path` (one [`Vfs::read_dir`] listed) is
    /// expected to succeed, judged without opening it, for callers that postpone a
    /// read and want a failure to show up now rather than later (whether the file
    /// still exists is not checked). An overlay file is always readable. On disk, a process whose
    /// credentials bypass file permissions (root's usual `CAP_DAC_OVERRIDE`) needs
    /// no look; any other pays one `stat` and gets the kernel's owner, group and
    /// other mode-bit check. `false` means only "not known to succeed": the caller
    /// reads now. What the mode bits cannot show (an ACL entry that denies, a
    /// security module, a FUSE or NFS server refusing) reads as readable.
    pub fn may_read(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        if self.overlay_for(path).is_some() {
            return true;
        }
        let Some(creds) = Creds::of_process() else {
            return false;
        };
        if creds.bypasses_permissions {
            return true;
        }
        std::fs::metadata(path)
            .is_ok_and(|m| m.is_file() && creds.mode_grants_read(m.uid(), m.gid(), m.mode()))
    }

    /// The size of the regular file at `path`, if there is one.
    pub fn file_len(&self, path: &Path) -> Option<u64> {
        if let Some(b) = self.overlay_for(path) {
            return u64::try_from(b.len()).ok();
        }
        std::fs::metadata(path)
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len())
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
                        // One `stat` of the target answers both.
                        std::fs::metadata(&path)
                            .map_or((false, false), |m| (m.is_dir(), m.is_file()))
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
        // Without overlays, spare the working directory look-up (a system call for
        // every directory of a chart).
        let norm = if self.overlays.is_empty() {
            PathBuf::new()
        } else {
            normalize(&absolute(dir))
        };
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

/// Reads a file straight into the shared buffer callers keep: `Arc::from(Vec)`
/// would allocate and copy once more, and on large charts (megabytes of CRDs) the
/// fresh pages of that copy cost more than the copying.
///
/// A regular file of [`MAP_AT_LEAST`](super::bytes::MAP_AT_LEAST) bytes or more is
/// mapped instead (see `source::bytes`). A smaller regular file is read to the size
/// `fstat` gave, without the extra `read` that finds its end: a chart reads dozens
/// of files, and every system call counts at these sizes (a file that grows while
/// it is read is read as it was). Anything else (a file reporting size 0, such as
/// those under `/proc`, or a pipe) is read to its end, as `std::fs::read` does.
fn read_shared(path: &Path) -> std::io::Result<Bytes> {
    let file = open_read_only(path)?;
    let meta = file.metadata().ok();
    let size = meta.as_ref().map_or(0, |m| m.len());
    let sized_file = size > 0 && meta.is_some_and(|m| m.is_file());
    if sized_file && size >= super::bytes::MAP_AT_LEAST {
        if let Some(mapped) = usize::try_from(size)
            .ok()
            .and_then(|len| Bytes::map(&file, len))
        {
            return Ok(mapped);
        }
    }
    read_sized(file, size, !sized_file).map(Bytes::from)
}

/// Opens `path` for reading. musl's `open` follows the kernel's own close-on-exec
/// flag with an `fcntl` that sets it again (for kernels before 2.6.23): one more
/// system call per file, and a Helmfile stack reads hundreds (NVCF: 906).
#[cfg(all(target_os = "linux", target_env = "musl"))]
fn open_read_only(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    loop {
        // SAFETY: `openat` with a NUL-terminated path that lives across the call.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                c.as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC | libc::O_LARGEFILE,
            )
        };
        if let Ok(fd) = i32::try_from(fd) {
            if fd >= 0 {
                // SAFETY: a descriptor just opened and owned by nothing else.
                return Ok(unsafe { std::fs::File::from_raw_fd(fd) });
            }
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "musl")))]
fn open_read_only(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Reads `r` to its end into one shared buffer, sized by `size_hint` (exact for a
/// regular file or an archive member, so nothing is copied; a short or long read
/// still gives exactly the bytes read).
pub fn read_to_shared(r: impl Read, size_hint: u64) -> std::io::Result<Arc<[u8]>> {
    read_sized(r, size_hint, true)
}

/// [`read_to_shared`]; `find_end: false` trusts a size that was read in full to be
/// the whole of it.
fn read_sized(mut r: impl Read, size_hint: u64, find_end: bool) -> std::io::Result<Arc<[u8]>> {
    let n = usize::try_from(size_hint).unwrap_or(0);
    // An iterator of known length is collected into one allocation.
    let mut buf: Arc<[u8]> = std::iter::repeat_n(0, n).collect();
    let mut filled = 0;
    if let Some(dst) = Arc::get_mut(&mut buf) {
        while filled < n {
            match r.read(&mut dst[filled..]) {
                Ok(0) => break,
                Ok(k) => filled += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
    if filled < n {
        return Ok(Arc::from(&buf[..filled]));
    }
    if !find_end {
        return Ok(buf);
    }
    // The end of the file, as `read_to_end` checks it: a hint that was too small
    // (a file that grew, a pipe or a `/proc` file of size 0) continues in a `Vec`.
    let mut probe = [0u8; 32];
    loop {
        match r.read(&mut probe) {
            Ok(0) => return Ok(buf),
            Ok(k) => {
                let mut rest = buf.to_vec();
                rest.extend_from_slice(&probe[..k]);
                r.read_to_end(&mut rest)?;
                return Ok(Arc::from(rest));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// What the kernel checks file access against: the effective user and group ids
/// (taken for the file-system ids, which only `setfsuid` sets apart), the
/// supplementary groups, and whether permissions are bypassed. Learnt once, by a
/// few cheap system calls (`/proc/self/status` says the same, but reading it costs
/// more than the `stat`s it would spare on a chart).
struct Creds {
    uid: u32,
    gid: u32,
    groups: Vec<u32>,
    /// `CAP_DAC_OVERRIDE` or `CAP_DAC_READ_SEARCH` is effective in the initial user
    /// namespace (where every file's owner is mapped, which the kernel requires
    /// too): any read of a regular file is granted without looking at its mode.
    bypasses_permissions: bool,
}

impl Creds {
    /// `None` when the groups cannot be listed: then nothing is judged readable.
    fn of_process() -> Option<&'static Creds> {
        static CREDS: OnceLock<Option<Creds>> = OnceLock::new();
        CREDS.get_or_init(Creds::current).as_ref()
    }

    /// The kernel's check of a file's mode bits: the owner's when this process
    /// owns the file, else the group's when it is in the file's group, else the
    /// others'.
    fn mode_grants_read(&self, uid: u32, gid: u32, mode: u32) -> bool {
        let bit = if uid == self.uid {
            0o400
        } else if gid == self.gid || self.groups.contains(&gid) {
            0o040
        } else {
            0o004
        };
        mode & bit != 0
    }

    fn current() -> Option<Creds> {
        // SAFETY: these calls take no arguments and only report the caller's ids.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        // SAFETY: with a size of 0, `getgroups` writes nothing and returns the count.
        let count = unsafe { libc::getgroups(0, std::ptr::null_mut()) };
        let mut groups = vec![0; usize::try_from(count).ok()?];
        // SAFETY: `groups` has room for `count` ids, the most `getgroups` writes.
        let got = unsafe { libc::getgroups(count, groups.as_mut_ptr()) };
        groups.truncate(usize::try_from(got).ok()?);
        Some(Creds {
            uid,
            gid,
            groups,
            bypasses_permissions: dac_capable() && in_initial_user_namespace(),
        })
    }
}

/// Whether `CAP_DAC_OVERRIDE` or `CAP_DAC_READ_SEARCH` is in the effective set.
#[cfg(target_os = "linux")]
fn dac_capable() -> bool {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    const DAC_OVERRIDE: u32 = 1 << 1;
    const DAC_READ_SEARCH: u32 = 1 << 2;
    let mut header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let mut data = [Data::default(); 2];
    // SAFETY: `capget` reads the header and, for version 3, writes two `Data`
    // records, which `data` holds; both have the kernel's C layout.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_capget,
            std::ptr::from_mut(&mut header),
            data.as_mut_ptr(),
        )
    };
    rc == 0 && data[0].effective & (DAC_OVERRIDE | DAC_READ_SEARCH) != 0
}

#[cfg(not(target_os = "linux"))]
fn dac_capable() -> bool {
    false
}

/// Whether this process lives in the initial user namespace, whose nsfs inode
/// number is fixed (`PROC_USER_INIT_INO`); in a child namespace (a rootless
/// container) capabilities do not cover files of unmapped owners.
fn in_initial_user_namespace() -> bool {
    use std::os::unix::fs::MetadataExt;
    const PROC_USER_INIT_INO: u64 = 0xEFFF_FFFD;
    std::fs::metadata("/proc/self/ns/user").is_ok_and(|m| m.ino() == PROC_USER_INIT_INO)
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
    fn mode_bits_of_the_matching_class_decide() {
        let c = Creds {
            uid: 1000,
            gid: 100,
            groups: vec![20],
            bypasses_permissions: false,
        };
        assert!(c.mode_grants_read(1000, 1, 0o400));
        // The owner's bits decide for the owner, even when others may read.
        assert!(!c.mode_grants_read(1000, 100, 0o044));
        assert!(c.mode_grants_read(2, 100, 0o040));
        assert!(!c.mode_grants_read(2, 20, 0o004));
        assert!(c.mode_grants_read(2, 20, 0o040));
        assert!(c.mode_grants_read(2, 3, 0o004));
        assert!(!c.mode_grants_read(2, 3, 0o440));
    }

    #[test]
    fn shared_reads_follow_the_data_not_the_hint() {
        let text = b"abcdefgh".to_vec();
        for hint in [0, 3, 8, 20] {
            let got = read_to_shared(&text[..], hint).unwrap();
            assert_eq!(&*got, &text[..], "hint {hint}");
        }
        let big = vec![7u8; 100_000];
        assert_eq!(&*read_to_shared(&big[..], 0).unwrap(), &big[..]);
    }

    #[test]
    fn overlays_are_readable() {
        let vfs = Vfs::with_overlays([("/nowhere/x.txt", b"x".to_vec())]);
        assert!(vfs.may_read(Path::new("/nowhere/x.txt")));
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
    }
}
