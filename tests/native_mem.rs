//! Checks the memory functions of `native/mem.c` (which a musl build of stackproof
//! uses in place of libc's) against plain byte loops: every length up to a few
//! hundred bytes, some past the point where they switch to string instructions,
//! every alignment of both pointers within a word, overlaps in both directions, and
//! a difference at every position, including bytes above 127 (which compare
//! unsigned).
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

use std::ffi::c_void;

// The functions are compiled into the library (build.rs); naming the crate links it.
extern crate stackproof as _;

extern "C" {
    fn sp_memcpy(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void;
    fn sp_memmove(d: *mut c_void, s: *const c_void, n: usize) -> *mut c_void;
    fn sp_memset(d: *mut c_void, c: i32, n: usize) -> *mut c_void;
    fn sp_memcmp(a: *const c_void, b: *const c_void, n: usize) -> i32;
    fn sp_bcmp(a: *const c_void, b: *const c_void, n: usize) -> i32;
}

/// Lengths to try: all small ones, around each size class boundary, and large.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    v.extend([
        511, 512, 513, 1000, 2047, 2048, 2049, 4095, 4096, 4097, 10_007,
    ]);
    v
}

/// A buffer whose bytes are all distinct from their neighbours' (and span 0..=255).
fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

/// Asserts that `buf` still holds `guard` before `at` and from `at + n` on: a write
/// stayed inside its range.
fn assert_untouched_outside(buf: &[u8], at: usize, n: usize, guard: u8, what: &str) {
    assert!(
        buf[..at].iter().all(|&b| b == guard),
        "wrote before, {what}"
    );
    assert!(
        buf[at + n..].iter().all(|&b| b == guard),
        "wrote past, {what}"
    );
}

#[test]
fn memcpy_copies_exactly_the_range() {
    for n in lengths() {
        for da in 0..8 {
            for sa in [0, 1, 3, 7] {
                let src = pattern(n + 16, 5);
                let mut dst = vec![0xAAu8; n + 32];
                let r = unsafe {
                    sp_memcpy(
                        dst.as_mut_ptr().add(da).cast(),
                        src.as_ptr().add(sa).cast(),
                        n,
                    )
                };
                assert_eq!(
                    r,
                    unsafe { dst.as_mut_ptr().add(da).cast() },
                    "return value, n={n}"
                );
                assert_eq!(&dst[da..da + n], &src[sa..sa + n], "n={n} da={da} sa={sa}");
                assert_untouched_outside(&dst, da, n, 0xAA, &format!("memcpy n={n} da={da}"));
            }
        }
    }
}

#[test]
fn memmove_handles_overlap_both_ways() {
    for n in lengths() {
        let shifts: Vec<isize> = if n <= 300 {
            (-70..=70).collect()
        } else {
            vec![-2049, -64, -33, -32, -1, 0, 1, 31, 32, 33, 64, 2049]
        };
        for shift in shifts {
            let pad = 2100;
            let mut buf = pattern(n + 2 * pad, 9);
            let mut expect = buf.clone();
            let s = pad;
            let d = (pad as isize + shift) as usize;
            let moved: Vec<u8> = expect[s..s + n].to_vec();
            expect[d..d + n].copy_from_slice(&moved);
            let base = buf.as_mut_ptr();
            let r = unsafe { sp_memmove(base.add(d).cast(), base.add(s).cast(), n) };
            assert_eq!(r, unsafe { base.add(d).cast() });
            assert!(buf == expect, "memmove n={n} shift={shift}");
        }
    }
}

#[test]
fn memset_fills_exactly_the_range() {
    for n in lengths() {
        for da in 0..8 {
            for c in [0u8, 0x5A, 0xFF] {
                let mut dst = vec![0x11u8; n + 16];
                // Only the low byte of the int counts, as in C.
                let r = unsafe { sp_memset(dst.as_mut_ptr().add(da).cast(), 0x700 | c as i32, n) };
                assert_eq!(r, unsafe { dst.as_mut_ptr().add(da).cast() });
                assert!(dst[da..da + n].iter().all(|&b| b == c), "n={n} c={c}");
                assert_untouched_outside(&dst, da, n, 0x11, &format!("memset n={n} da={da}"));
            }
        }
    }
}

#[test]
fn memcmp_and_bcmp_order_and_equality() {
    for n in lengths() {
        let a = pattern(n + 8, 3);
        for off in [0usize, 1, 5] {
            let mut b = vec![0u8; n + 8];
            b[off..off + n].copy_from_slice(&a[..n]);
            let eq = unsafe { sp_memcmp(a.as_ptr().cast(), b.as_ptr().add(off).cast(), n) };
            assert_eq!(eq, 0, "equal ranges, n={n} off={off}");
            let beq = unsafe { sp_bcmp(a.as_ptr().cast(), b.as_ptr().add(off).cast(), n) };
            assert_eq!(beq, 0, "bcmp equal ranges, n={n}");
            // A difference at each position (every one for short lengths).
            let positions: Vec<usize> = if n <= 300 {
                (0..n).collect()
            } else {
                vec![0, 1, 31, 32, n / 2, n - 33, n - 1]
            };
            for p in positions {
                for delta in [1u8, 0x80] {
                    let mut c = b.clone();
                    c[off + p] = c[off + p].wrapping_add(delta);
                    let want = a[p].cmp(&c[off + p]);
                    let got =
                        unsafe { sp_memcmp(a.as_ptr().cast(), c.as_ptr().add(off).cast(), n) };
                    assert_eq!(got.cmp(&0), want, "memcmp n={n} at {p} delta={delta}");
                    let back =
                        unsafe { sp_memcmp(c.as_ptr().add(off).cast(), a.as_ptr().cast(), n) };
                    assert_eq!(back.cmp(&0), want.reverse(), "memcmp reversed n={n} at {p}");
                    let bc = unsafe { sp_bcmp(a.as_ptr().cast(), c.as_ptr().add(off).cast(), n) };
                    assert_ne!(bc, 0, "bcmp n={n} at {p}");
                }
            }
        }
    }
}
