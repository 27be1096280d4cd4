//! File contents shared by everyone who reads them, and the text they hold.
//!
//! A chart's files are read once and then referred to by its templates, the parsed
//! trees and the rendered output, so contents are shared ([`Bytes`], [`Text`]),
//! never copied. Large files are not read at all but mapped from the page cache:
//! reading copied them into fresh heap memory, which the kernel zeroes first, and
//! charts of CRDs are megabytes of such files (NVCF's prometheus-operator-crds: 4.4
//! MB of templates for 150 KB of output).
//!
//! A mapped file that another program truncates while stackproof runs would fault
//! on access (`SIGBUS`). Inputs are only read, and editors replace files rather
//! than truncate them in place, but if it happens the run stops with exit code 2
//! and a message saying so ([`on_truncated_file`]) rather than a crash; nothing has
//! been written by then but what an error run writes.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, Once};

/// Files at least this large are mapped rather than read: below it, mapping and
/// unmapping cost more than the copy they spare.
pub const MAP_AT_LEAST: u64 = 64 << 10;

/// Shared, immutable bytes: a heap buffer, or a mapped file from some offset on.
/// Kept to three words, as source files (and so errors) carry it.
#[derive(Clone)]
pub struct Bytes(Store);

#[derive(Clone)]
enum Store {
    Heap(Arc<[u8]>),
    Mapped(Arc<Mapping>, usize),
}

impl Bytes {
    /// The contents of `file` (`len` bytes, its size), mapped read-only. `None`
    /// when the system refuses (a file system that cannot map, say): read it then.
    #[cfg(unix)]
    pub fn map(file: &std::fs::File, len: usize) -> Option<Bytes> {
        Mapping::new(file, len).map(|m| Bytes(Store::Mapped(Arc::new(m), 0)))
    }

    #[cfg(not(unix))]
    pub fn map(_: &std::fs::File, _: usize) -> Option<Bytes> {
        None
    }

    /// The bytes from `start` on (shared when mapped, else copied).
    pub fn slice_from(&self, start: usize) -> Bytes {
        match &self.0 {
            Store::Mapped(m, from) => {
                Bytes(Store::Mapped(Arc::clone(m), (from + start).min(m.len)))
            }
            Store::Heap(a) => Bytes::from(a.get(start..).unwrap_or_default()),
        }
    }

    /// The bytes as one heap buffer: shared when they are one already.
    pub fn to_arc(&self) -> Arc<[u8]> {
        match &self.0 {
            Store::Heap(a) => Arc::clone(a),
            Store::Mapped(..) => Arc::from(&**self),
        }
    }
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Store::Heap(a) => a,
            Store::Mapped(m, from) => m.bytes().get(*from..).unwrap_or_default(),
        }
    }
}

impl From<Arc<[u8]>> for Bytes {
    fn from(a: Arc<[u8]>) -> Bytes {
        Bytes(Store::Heap(a))
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Bytes {
        Bytes::from(Arc::<[u8]>::from(v))
    }
}

impl From<&[u8]> for Bytes {
    fn from(v: &[u8]) -> Bytes {
        Bytes::from(Arc::<[u8]>::from(v))
    }
}

impl From<&str> for Bytes {
    fn from(v: &str) -> Bytes {
        Bytes::from(v.as_bytes())
    }
}

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bytes({} bytes)", self.len())
    }
}

impl PartialEq for Bytes {
    fn eq(&self, other: &Bytes) -> bool {
        **self == **other
    }
}

impl Eq for Bytes {}

/// Shared, immutable UTF-8 text: a `str` over [`Bytes`].
#[derive(Clone, PartialEq, Eq)]
pub struct Text(Bytes);

impl Text {
    /// The bytes as text, when they are UTF-8.
    pub fn from_utf8(bytes: Bytes) -> Result<Text, Bytes> {
        match std::str::from_utf8(&bytes) {
            Ok(_) => Ok(Text(bytes)),
            Err(_) => Err(bytes),
        }
    }

    pub fn as_str(&self) -> &str {
        // SAFETY: every `Text` is made from bytes checked to be UTF-8 or from a
        // `str`, and the bytes cannot change: neither store hands out mutable
        // access.
        unsafe { std::str::from_utf8_unchecked(&self.0) }
    }
}

impl Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Bytes::from(s))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(Bytes::from(s.into_bytes()))
    }
}

impl From<Arc<str>> for Text {
    fn from(s: Arc<str>) -> Text {
        Text(Bytes::from(Arc::<[u8]>::from(s)))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A read-only private mapping of a whole file, unmapped when dropped.
struct Mapping {
    ptr: *const u8,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; sharing
// references to its bytes between threads is sharing `&[u8]`.
unsafe impl Send for Mapping {}
// SAFETY: as above: nothing writes through the mapping.
unsafe impl Sync for Mapping {}

impl Mapping {
    #[cfg(unix)]
    fn new(file: &std::fs::File, len: usize) -> Option<Mapping> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return None;
        }
        on_truncated_file();
        // The whole file is used (templates are lexed end to end): mapping every
        // page at once spares a fault per few pages.
        #[cfg(target_os = "linux")]
        let flags = libc::MAP_PRIVATE | libc::MAP_POPULATE;
        #[cfg(not(target_os = "linux"))]
        let flags = libc::MAP_PRIVATE;
        // SAFETY: a fresh read-only private mapping of an open file descriptor; the
        // kernel checks the arguments, and a failure is reported, not used.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                flags,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return None;
        }
        Some(Mapping {
            ptr: ptr.cast_const().cast(),
            len,
        })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is a live mapping of `len` readable bytes, unmapped only
        // when this value is dropped, which outlives the borrow.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.ptr.cast_mut().cast(), self.len);
        }
    }
}

/// Makes a file truncated under a mapping end the run with a message and exit
/// code 2 (the code of bad input), instead of a crash on `SIGBUS`. Installed once,
/// when the first file is mapped.
#[cfg(unix)]
fn on_truncated_file() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        extern "C" fn handler(_: libc::c_int) {
            const MSG: &[u8] =
                b"stackproof: an input file changed size while it was being read; run again\n";
            // SAFETY: `write` and `_exit` are async-signal-safe.
            unsafe {
                libc::write(2, MSG.as_ptr().cast(), MSG.len());
                libc::_exit(2);
            }
        }
        // SAFETY: a handler that only calls async-signal-safe functions, set for a
        // signal that the program does not otherwise handle.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    });
}

#[cfg(not(unix))]
fn on_truncated_file() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_file_reads_as_the_file() {
        let dir = std::env::temp_dir().join(format!("stackproof-bytes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("big.yaml");
        let body: Vec<u8> = (0..200_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &body).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let mapped = Bytes::map(&file, body.len()).unwrap();
        assert_eq!(&*mapped, &body[..]);
        assert_eq!(&*mapped.slice_from(3), &body[3..]);
        assert_eq!(&*mapped.slice_from(body.len() + 5), b"");
        assert_eq!(&*mapped.to_arc(), &body[..]);
        let text = Text::from_utf8(mapped.clone()).unwrap();
        assert_eq!(text.len(), body.len());
        assert!(text.starts_with("abc"));
        // Clones share the mapping; the last one unmaps it.
        drop(mapped);
        assert_eq!(text.as_bytes()[25], b'z');
        drop(text);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn text_is_only_utf8() {
        assert!(Text::from_utf8(Bytes::from(&b"ok \xE2\x9C\x93"[..])).is_ok());
        assert!(Text::from_utf8(Bytes::from(&b"bad \xFF"[..])).is_err());
        let t = Text::from(Arc::<str>::from("shared"));
        assert_eq!(&*t, "shared");
        assert_eq!(Text::from(String::from("x")), Text::from("x"));
    }
}
