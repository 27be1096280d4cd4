//! Montgomery products in radix 2^52 with AVX-512 IFMA, for the widths of 2048-
//! and 4096-bit keys (primes of 16 and 32 words).
//!
//! `vpmadd52luq`/`vpmadd52huq` add the low and high 52 bits of eight 52×52-bit
//! products to eight accumulators at once, with room above bit 52 to add dozens
//! before carrying; the 64-bit rows multiply one word pair at a time. Measured
//! (`product_timing` below; a busy two-core VM, so ranges): 136–176 against
//! 303–471 ns per product at 16 words, 305–470 against 1143–1746 at 32.
//!
//! Neither test needs `Mont`'s radix: a base-2 round keeps its values in this
//! form from the first squaring to the last, and the Lucas test converts its
//! canonical operands around each product (which costs at 16 words: 256–423 ns
//! a product, still below the rows). Both compare canonical residues, so they
//! decide every candidate as [`Mont`]'s form does.
//!
//! The form: `L` limbs of 52 bits (21 for 16 words, 41 for 32), radix
//! `R' = 2^(52L)`. The reduction runs modulo `M' = k·m`, `k = -m⁻¹ mod 2^52`,
//! rather than `m`: then `M' ≡ -1 (mod 2^52)`, so the digit `q` that clears a
//! column is that column's low 52 bits, with no multiplication by `k`, and
//! clearing it leaves `q` plus the column's carry in the next column. Those
//! digits are the one chain of dependent instructions through a product, one
//! link per limb. Residues modulo `M'` are residues modulo `m`; only the
//! comparisons reduce modulo `m`. Values stay below `4M'` without any final
//! subtraction: for inputs below `4M'` the product is below
//! `M'·(1 + 16M'/R') < 1.001·M'`, and its double below `4M'`.
//!
//! One product (the kernel, in assembly: AVX-512 intrinsics and target features
//! are stable only from Rust 1.89, after this crate's minimum version, while
//! `asm!` may use any register it declares clobbered):
//!
//! 1. `a·b` as column sums in twelve to twenty-two accumulators (eight columns
//!    each, low and high halves apart so that no accumulator waits on itself
//!    twice per row). Row `i` adds `a_i·b` from column `i`: `b` rotated by
//!    `i mod 8` lanes, built once per product, lines its limbs up with the
//!    accumulators.
//! 2. The reduction: scalar code walks the columns, taking `q_n` from column `n`
//!    and adding to column `n` what the vector cannot deliver in time: the
//!    carry out of column `n - 1` (`q_(n-1)` and that column's bits above 52,
//!    as `μ_0 = 2^52 - 1`), `q_(n-1)·μ_1` whole and the low half of
//!    `q_(n-2)·μ_2` (`μ_j` the limbs of `M'`). The vector adds the rest of each
//!    `q_n·M'`, from tables of `M'` rotated per modulus, and hands each column
//!    over three digits before it is needed.
//! 3. The result's columns, shifted down to lane 0, carried to 52-bit limbs (and
//!    doubled first when a round doubles).
//!
//! Tried and dropped, no faster within the noise: squarings with each cross
//! product once (2%), the rotations of `b` kept in registers, four scalar
//! limbs instead of three, separate accumulators for `a·b` and `q·M'`.

use super::{Form, Lucas, Mont};
use std::sync::OnceLock;

const MASK: u64 = (1 << 52) - 1;

/// Whether this processor runs the kernels: AVX-512 F with VL and DQ for the
/// 128- and 256-bit forms of a few instructions, IFMA, and BMI2 for `mulx`.
pub(super) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512ifma")
            && std::arch::is_x86_feature_detected!("bmi2")
    })
}

/// Where a kernel of `l` limbs keeps things, in `u64` offsets: in the tables of
/// the modulus, the low-half and high-half rotations of `M'` (`mhi`), `1 + μ_1`,
/// `μ_2` and the 52-bit mask; in the scratch space, the rotations of `b` (from
/// 0), the column buffer (`y`), the doubling flag and the reduction digits (`qb`).
#[derive(Clone, Copy)]
struct Layout {
    l: usize,
    /// Chunks (eight lanes) in one rotation of an operand.
    cr: usize,
    mhi: usize,
    mu1p: usize,
    mu2: usize,
    mask: usize,
    y: usize,
    dbl: usize,
    qb: usize,
}

const fn layout(l: usize) -> Layout {
    let cr = (l + 14) / 8;
    let rot = 8 * cr * 8;
    Layout {
        l,
        cr,
        mhi: rot,
        mu1p: 2 * rot,
        mu2: 2 * rot + 1,
        mask: 2 * rot + 2,
        y: rot,
        dbl: rot + l + 3,
        qb: rot + l + 4,
    }
}

/// Limbs of 52 bits for `n` words, one more than the words need: `4M'` (up
/// to `2^(64n + 54)`) must stay below `R' = 2^(52L)` by a margin (16M' < R'·2^-12).
const fn limbs_for(n: usize) -> usize {
    (64 * n).div_ceil(52) + 1
}

const L16: Layout = layout(limbs_for(16));
const L32: Layout = layout(limbs_for(32));
const TABLES: usize = L32.mask + 1;
const SCRATCH: usize = L32.qb + L32.l;
/// Limbs of an operand: `8·ceil(L/8)`, the lanes the kernel loads and stores.
const LANES: usize = 48;

#[repr(C, align(64))]
struct Tables([u64; TABLES]);

#[repr(C, align(64))]
struct Scratch([u64; SCRATCH]);

/// A value in the kernel's form: `L` limbs of 52 bits, zero above.
#[repr(C, align(64))]
#[derive(Clone)]
struct Limbs([u64; LANES]);

type Kernel = unsafe fn(*const u64, *const u64, *const u64, *mut u64, *mut u64);

/// Products modulo `M'` for one modulus.
struct Ifma<'a, const N: usize> {
    mont: &'a Mont<N>,
    lay: Layout,
    kernel: Kernel,
    tables: Box<Tables>,
    scratch: Box<Scratch>,
    /// `2^127 / (m_(N-1) + 1)`, for the quotients of [`Form::residue`].
    recip: u64,
}

impl<'a, const N: usize> Ifma<'a, N> {
    /// `None` without the instructions, at other widths, or when the top bit of
    /// the modulus is clear (every RSA candidate has it set; [`Ifma::residue`]
    /// relies on it).
    fn new(mont: &'a Mont<N>) -> Option<Self> {
        let (lay, kernel): (Layout, Kernel) = match N {
            16 => (L16, amm21),
            32 => (L32, amm41),
            _ => return None,
        };
        if mont.m[N - 1] >> 63 == 0 || !available() {
            return None;
        }
        let l = lay.l;
        // M' = k·m, k = -m⁻¹ mod 2^52 (the low bits of -m⁻¹ mod 2^64).
        let k = mont.minv & MASK;
        let m52 = to52(&mont.m);
        let mut mu = [0u64; L32.l];
        let mut carry = 0u128;
        for (mj, &x) in mu.iter_mut().zip(&m52.0).take(l) {
            let t = u128::from(x) * u128::from(k) + carry;
            *mj = t as u64 & MASK;
            carry = t >> 52;
        }
        debug_assert!(mu[0] == MASK && carry == 0);
        let mut tables = Box::new(Tables([0; TABLES]));
        // Rotation r, chunk c, lane i holds μ_j for j = 8c + i - r: the limb of
        // `q_n·M'` that lands in that lane when n ≡ r (mod 8). Limbs 0 to 2
        // (high halves: 0 and 1) are the scalar code's.
        for r in 0..8 {
            for c in 0..lay.cr {
                for i in 0..8 {
                    let at = (lay.cr * r + c) * 8 + i;
                    let Some(j) = (8 * c + i).checked_sub(r).filter(|j| *j < l) else {
                        continue;
                    };
                    if j >= 3 {
                        tables.0[at] = mu[j];
                    }
                    if j >= 2 {
                        tables.0[lay.mhi + at] = mu[j];
                    }
                }
            }
        }
        tables.0[lay.mu1p] = 1 + mu[1];
        tables.0[lay.mu2] = mu[2];
        tables.0[lay.mask] = MASK;
        Some(Ifma {
            mont,
            lay,
            kernel,
            tables,
            scratch: Box::new(Scratch([0; SCRATCH])),
            recip: ((1u128 << 127) / (u128::from(mont.m[N - 1]) + 1)) as u64,
        })
    }

    /// `out ← a·b/R'` modulo `M'` (doubled if `double`), for `a, b` below `4M'`;
    /// the result is below `4M'` again.
    ///
    /// # Safety
    ///
    /// The pointers must be valid for reading `a` and `b` and writing `out`;
    /// they may be equal (every read comes before the writes).
    unsafe fn run(&mut self, a: *const Limbs, b: *const Limbs, out: *mut Limbs, double: bool) {
        self.scratch.0[self.lay.dbl] = u64::from(double);
        // SAFETY: `new` found the instructions the kernel uses. It reads `L` limbs
        // of `a`, `8·ceil(L/8)` of `b`, the tables and scratch space of this
        // width (all within their types, 64-byte aligned as its aligned loads
        // and stores need) and writes `8·ceil(L/8)` limbs to `out`, which the
        // caller vouches for.
        unsafe {
            (self.kernel)(
                a.cast(),
                b.cast(),
                self.tables.0.as_ptr(),
                self.scratch.0.as_mut_ptr(),
                out.cast(),
            );
        }
    }

    #[cfg(test)]
    fn product(&mut self, a: &Limbs, b: &Limbs, out: &mut Limbs, double: bool) {
        // SAFETY: three live references.
        unsafe { self.run(a, b, out, double) }
    }
}

/// `x` as `limbs_for(N)` limbs of 52 bits. (The bounds are constants, so the
/// loop unrolls into shifts by constants.)
fn to52<const N: usize>(x: &[u64; N]) -> Limbs {
    let mut out = Limbs([0; LANES]);
    for j in 0..limbs_for(N) {
        let (w, sh) = (52 * j / 64, 52 * j % 64);
        if w >= N {
            break;
        }
        let mut v = x[w] >> sh;
        if sh > 12 && w + 1 < N {
            v |= x[w + 1] << (64 - sh);
        }
        out.0[j] = v & MASK;
    }
    out
}

/// `x` (below `2^(64N + 64)`) as `N` words and the word above them.
fn from52<const N: usize>(x: &Limbs) -> ([u64; N], u64) {
    let mut out = [0u64; N];
    let mut top = 0;
    for w in 0..=N {
        // Word w takes the top of limb j and the limbs above it.
        let j = 64 * w / 52;
        let sh = 64 * w - 52 * j;
        let mut v = (x.0[j] >> sh) | (x.0[j + 1] << (52 - sh));
        if 104 - sh < 64 {
            v |= x.0[j + 2] << (104 - sh);
        }
        match out.get_mut(w) {
            Some(o) => *o = v,
            None => top = v,
        }
    }
    (out, top)
}

/// One Miller–Rabin round to base 2 in the 52-bit domain, exactly as
/// [`Mont::miller_rabin_base2`] does it: `None` where there is no kernel.
pub(super) fn miller_rabin_base2<const N: usize>(mont: &Mont<N>) -> Option<bool> {
    let mut ifma = Ifma::new(mont)?;
    Some(mont.base2_round_with(&mut ifma))
}

/// The Lucas test with the kernel's products, exactly as [`Mont::lucas_bpsw21`]
/// does it: `None` where there is no kernel. Its values stay canonical residues,
/// for the additions between the products.
pub(super) fn lucas_bpsw21<const N: usize>(mont: &Mont<N>) -> Option<Lucas> {
    let mut ifma = Ifma::new(mont)?;
    Some(mont.lucas_with(&mut ifma))
}

impl<const N: usize> Form<N> for Ifma<'_, N> {
    type Value = Limbs;

    fn mul(&mut self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let (a, b) = (to52(a), to52(b));
        let mut out = Limbs([0; LANES]);
        // SAFETY: three live references.
        unsafe { self.run(&a, &b, &mut out, false) };
        self.residue(&out)
    }

    /// `R' mod m`, the domain's 1: `R mod m` doubled `52L - 64N` times.
    fn one(&self) -> [u64; N] {
        let mut one = self.mont.one();
        for _ in 0..52 * self.lay.l - 64 * N {
            self.mont.double(&mut one);
        }
        one
    }

    fn value_of(&self, x: &[u64; N]) -> Limbs {
        to52(x)
    }

    fn square(&mut self, x: &mut Limbs, double: bool) {
        let p: *mut Limbs = x;
        // SAFETY: `p` comes from a live exclusive reference.
        unsafe { self.run(p, p, p, double) }
    }

    /// `x mod m` as `N` words, for `x` below `4M'` (so below `2^(64N + 54)`).
    fn residue(&self, x: &Limbs) -> [u64; N] {
        let (mut r, mut hi) = from52::<N>(x);
        let m = &self.mont.m;
        // The quotient from the top 128 bits and the reciprocal of the top word
        // of m (at least 2^63) plus one: at most the true quotient, and at most
        // 2 below it.
        let low = (u128::from(r[N - 1]) * u128::from(self.recip)) >> 64;
        let q = ((u128::from(hi) * u128::from(self.recip) + low) >> 63) as u64;
        let (mut carry, mut borrow) = (0u64, false);
        for (ri, mi) in r.iter_mut().zip(m) {
            let p = u128::from(q) * u128::from(*mi) + u128::from(carry);
            carry = (p >> 64) as u64;
            let (d, b1) = ri.overflowing_sub(p as u64);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            *ri = d;
            borrow = b1 | b2;
        }
        hi = hi.wrapping_sub(carry).wrapping_sub(u64::from(borrow));
        while hi != 0 || self.mont.at_least_m(&r) {
            let mut b = false;
            for (ri, mi) in r.iter_mut().zip(m) {
                let (d, b1) = ri.overflowing_sub(*mi);
                let (d, b2) = d.overflowing_sub(u64::from(b));
                *ri = d;
                b = b1 | b2;
            }
            hi -= u64::from(b);
        }
        r
    }
}

/// The kernel for the limbs of a [`Layout`] (see the module comment). The
/// program is written in the assembler's macro language, which computes the
/// registers and offsets of each row from its index: `zmm0..` hold the low-half
/// accumulators of columns `8c..8c + 7`, `zmm(cw + c)` the high-half ones,
/// `zmm22..` the chunks of `b` while its rotations are built, `zmm25` the mask,
/// `zmm26` the doubling shift, `zmm27`/`zmm28` temporaries, `zmm29`/`zmm30` the
/// broadcast `q_n` and `a_i`, `zmm31` zero. A macro argument `%(e)` is the value
/// of `e`; in this mode (`.altmacro`) a bare word equal to a macro parameter is
/// replaced too, so no parameter is named like a register or a mnemonic. Every
/// macro is purged at the end, so that the block may be emitted more than once.
///
/// # Safety
///
/// The processor must have the instructions [`available`] checks; the pointers
/// must be valid as [`Ifma::run`] describes, with `b`, `tab`, `scr` and `out`
/// 64-byte aligned.
macro_rules! amm_kernel {
    ($name:ident, $lay:expr) => {
        unsafe fn $name(a: *const u64, b: *const u64, tab: *const u64, scr: *mut u64, out: *mut u64) {
            const LAY: Layout = $lay;
            std::arch::asm!(
                ".altmacro",
                ".set ifma_l, {L}",
                ".set ifma_cr, {CR}",
                ".set ifma_cb, (ifma_l + 7) / 8",
                ".set ifma_cw, (2 * ifma_l + 1) / 8 + 1",
                // Whether chunk c of a rotation by r holds some limb j of an
                // operand with lo <= j < l (the others are zero: no instruction).
                ".macro ifma_rows_chunk r, c, lo, op, src, acc, mem",
                ".if (\\c < ifma_cr) && (8 * \\c + 7 - \\r >= \\lo) && (8 * \\c - \\r < ifma_l)",
                "\\op zmm\\acc, zmm\\src, zmmword ptr \\mem",
                ".endif",
                ".endm",
                ".macro ifma_valign dst, hi, lo, n",
                "valignq zmm\\dst, zmm\\hi, zmm\\lo, \\n",
                ".endm",
                ".macro ifma_add dst, x, y",
                "vpaddq zmm\\dst, zmm\\x, zmm\\y",
                ".endm",
                ".macro ifma_zero r",
                "vpxorq zmm\\r, zmm\\r, zmm\\r",
                ".endm",
                ".macro ifma_load_b c, v",
                "vmovdqa64 zmm\\v, zmmword ptr [{b} + 64 * \\c]",
                ".endm",
                // Chunk c of b rotated up by r lanes, to the scratch space.
                ".macro ifma_rotate_b r, c",
                ".if (\\c < ifma_cr) && (8 * \\c + 7 - \\r >= 0) && (8 * \\c - \\r < ifma_l)",
                ".if \\c == 0",
                "ifma_valign 28, 22, 31, %(8 - \\r)",
                ".elseif \\c < ifma_cb",
                "ifma_valign 28, %(22 + \\c), %(21 + \\c), %(8 - \\r)",
                ".else",
                "ifma_valign 28, 31, %(21 + \\c), %(8 - \\r)",
                ".endif",
                "vmovdqa64 zmmword ptr [{scr} + 64 * (ifma_cr * \\r + \\c)], zmm28",
                ".endif",
                ".endm",
                ".macro ifma_b_chunk op, r, c, acc",
                ".if \\r == 0",
                "ifma_rows_chunk 0, \\c, 0, \\op, 30, \\acc, <[{b} + 64 * \\c]>",
                ".else",
                "ifma_rows_chunk \\r, \\c, 0, \\op, 30, \\acc, <[{scr} + 64 * (ifma_cr * \\r + \\c)]>",
                ".endif",
                ".endm",
                // Row i of a·b: low halves of a_i·b_j into column i + j, high
                // halves into column i + j + 1.
                ".macro ifma_a_row i",
                "vpbroadcastq zmm30, qword ptr [{a} + 8 * \\i]",
                ".irp c, 0, 1, 2, 3, 4, 5",
                "ifma_b_chunk vpmadd52luq, %(\\i % 8), \\c, %(\\i / 8 + \\c)",
                ".endr",
                ".irp c, 0, 1, 2, 3, 4, 5",
                "ifma_b_chunk vpmadd52huq, %((\\i + 1) % 8), \\c, %(ifma_cw + (\\i + 1) / 8 + \\c)",
                ".endr",
                ".endm",
                // Row n of q·M': low halves of limbs 3.., high halves of limbs 2..
                ".macro ifma_q_chunk op, at, r, c, lo, acc",
                "ifma_rows_chunk \\r, \\c, \\lo, \\op, 29, \\acc, <[{tab} + 8 * \\at + 64 * (ifma_cr * \\r + \\c)]>",
                ".endm",
                ".macro ifma_q_row n",
                "vpbroadcastq zmm29, {q}",
                ".irp c, 0, 1, 2, 3, 4, 5",
                "ifma_q_chunk vpmadd52luq, 0, %(\\n % 8), \\c, 3, %(\\n / 8 + \\c)",
                ".endr",
                ".irp c, 0, 1, 2, 3, 4, 5",
                "ifma_q_chunk vpmadd52huq, {MHI}, %((\\n + 1) % 8), \\c, 2, %(ifma_cw + (\\n + 1) / 8 + \\c)",
                ".endr",
                ".endm",
                // The vector's part of column col, to the column buffer.
                ".macro ifma_extract col",
                "ifma_add 27, %(\\col / 8), %(ifma_cw + \\col / 8)",
                ".if \\col % 8",
                "ifma_valign 27, 27, 27, %(\\col % 8)",
                ".endif",
                "vmovq qword ptr [{scr} + 8 * ({Y} + \\col)], xmm27",
                ".endm",
                // Column n: z_n = (vector's part) + (z_(n-1) >> 52) + q_(n-1)·(1 + μ_1)
                // + low half of q_(n-2)·μ_2, in zhi:zlo; q_n = z_n mod 2^52.
                // Past the last digit, the corrections of the result's lanes 0..2.
                ".macro ifma_column n",
                ".if \\n == 0",
                "mov {zlo}, qword ptr [{scr} + 8 * {Y}]",
                "xor {zhi:e}, {zhi:e}",
                ".else",
                "mov {t1}, qword ptr [{scr} + 8 * ({Y} + \\n)]",
                ".if \\n >= 2",
                "mov {t2}, qword ptr [{scr} + 8 * ({QB} + \\n - 2)]",
                "imul {t2}, qword ptr [{tab} + 8 * {MU2}]",
                "and {t2}, qword ptr [{tab} + 8 * {MASK}]",
                "add {t1}, {t2}",
                ".endif",
                "shr {zlo}, 52",
                "shl {zhi}, 12",
                "or {zlo}, {zhi}",
                "add {t1}, {zlo}",
                ".if \\n <= ifma_l",
                "mov rdx, {q}",
                "mulx {zhi}, {t2}, qword ptr [{tab} + 8 * {MU1P}]",
                "mov {zlo}, {q}",
                "imul {zlo}, qword ptr [{tab} + 8 * {MU1P}]",
                "add {zlo}, {t1}",
                "adc {zhi}, 0",
                ".else",
                "mov {zlo}, {t1}",
                ".endif",
                ".endif",
                ".if \\n < ifma_l",
                "mov {q}, {zlo}",
                "and {q}, qword ptr [{tab} + 8 * {MASK}]",
                "mov qword ptr [{scr} + 8 * ({QB} + \\n)], {q}",
                "ifma_q_row \\n",
                "ifma_extract %(\\n + 3)",
                ".elseif \\n == ifma_l",
                "mov {q}, {zlo}",
                "and {q}, qword ptr [{tab} + 8 * {MASK}]",
                "sub {q}, qword ptr [{scr} + 8 * ({Y} + ifma_l)]",
                ".else",
                "mov {t1}, {zlo}",
                "and {t1}, qword ptr [{tab} + 8 * {MASK}]",
                "sub {t1}, qword ptr [{scr} + 8 * ({Y} + ifma_l + 1)]",
                "shr {zlo}, 52",
                ".endif",
                ".endm",
                // Lane j of the result: columns l + 8j.. of the sums.
                ".macro ifma_result j",
                ".if \\j < ifma_cb",
                ".if ifma_l / 8 + \\j + 1 < ifma_cw",
                "ifma_valign %(ifma_cw + \\j), %(ifma_l / 8 + \\j + 1), %(ifma_l / 8 + \\j), %(ifma_l % 8)",
                ".else",
                "ifma_valign %(ifma_cw + \\j), 31, %(ifma_l / 8 + \\j), %(ifma_l % 8)",
                ".endif",
                ".endif",
                ".endm",
                ".macro ifma_split h, v",
                "vpsrlq zmm\\h, zmm\\v, 52",
                "vpandq zmm\\v, zmm\\v, zmm25",
                ".endm",
                // One carry step over the result: each lane keeps 52 bits and
                // passes the rest one lane up.
                ".macro ifma_carry",
                ".irp j, 0, 1, 2, 3, 4, 5",
                ".if \\j < ifma_cb",
                "ifma_split \\j, %(ifma_cw + \\j)",
                ".endif",
                ".endr",
                ".irp j, 5, 4, 3, 2, 1",
                ".if \\j < ifma_cb",
                "ifma_valign \\j, \\j, %(\\j - 1), 7",
                ".endif",
                ".endr",
                "ifma_valign 0, 0, 31, 7",
                ".irp j, 0, 1, 2, 3, 4, 5",
                ".if \\j < ifma_cb",
                "ifma_add %(ifma_cw + \\j), %(ifma_cw + \\j), \\j",
                ".endif",
                ".endr",
                ".endm",
                ".macro ifma_over kk, v",
                "vpcmpuq k\\kk, zmm\\v, zmm25, 6",
                ".endm",
                ".macro ifma_shift v",
                "vpsllvq zmm\\v, zmm\\v, zmm26",
                ".endm",
                ".macro ifma_store j, v",
                "vmovdqa64 zmmword ptr [{out} + 64 * \\j], zmm\\v",
                ".endm",
                // 1. The rotations of b.
                "ifma_zero 31",
                ".irp c, 0, 1, 2, 3, 4, 5",
                ".if \\c < ifma_cb",
                "ifma_load_b \\c, %(22 + \\c)",
                ".endif",
                ".endr",
                ".irp r, 1, 2, 3, 4, 5, 6, 7",
                ".irp c, 0, 1, 2, 3, 4, 5",
                "ifma_rotate_b \\r, \\c",
                ".endr",
                ".endr",
                // 2. a·b.
                ".set ifma_n, 0",
                ".rept 2 * ifma_cw",
                "ifma_zero %(ifma_n)",
                ".set ifma_n, ifma_n + 1",
                ".endr",
                ".set ifma_n, 0",
                ".rept ifma_l",
                "ifma_a_row %(ifma_n)",
                ".set ifma_n, ifma_n + 1",
                ".endr",
                // 3. The reduction, column by column.
                "ifma_extract 0",
                "ifma_extract 1",
                "ifma_extract 2",
                ".set ifma_n, 0",
                ".rept ifma_l + 2",
                "ifma_column %(ifma_n)",
                ".set ifma_n, ifma_n + 1",
                ".endr",
                // 4. The result from column l: lanes 0..2 corrected by the scalar
                // columns, doubled on request, carried, stored.
                ".set ifma_n, ifma_l / 8",
                ".rept ifma_cw - ifma_l / 8",
                "ifma_add %(ifma_n), %(ifma_n), %(ifma_cw + ifma_n)",
                ".set ifma_n, ifma_n + 1",
                ".endr",
                ".irp j, 0, 1, 2, 3, 4, 5",
                "ifma_result \\j",
                ".endr",
                "vmovq xmm27, {q}",
                "vpinsrq xmm27, xmm27, {t1}, 1",
                "vmovq xmm28, {zlo}",
                "vinserti32x4 ymm27, ymm27, xmm28, 1",
                "ifma_add %(ifma_cw), %(ifma_cw), 27",
                "vpbroadcastq zmm26, qword ptr [{scr} + 8 * {DBL}]",
                "vpbroadcastq zmm25, qword ptr [{tab} + 8 * {MASK}]",
                ".irp j, 0, 1, 2, 3, 4, 5",
                ".if \\j < ifma_cb",
                "ifma_shift %(ifma_cw + \\j)",
                ".endif",
                ".endr",
                // Two carry steps leave every lane below 2^52 but for a lane of
                // 2^52 - 1 that took a carry (about 2^-45 per product): repeat.
                "ifma_carry",
                "2:",
                "ifma_carry",
                ".irp j, 0, 1, 2, 3, 4, 5",
                ".if \\j < ifma_cb",
                "ifma_over %(\\j + 1), %(ifma_cw + \\j)",
                ".endif",
                ".endr",
                ".irp j, 2, 3, 4, 5, 6",
                ".if \\j <= ifma_cb",
                "korw k1, k1, k\\j",
                ".endif",
                ".endr",
                "kortestw k1, k1",
                "jnz 2b",
                ".irp j, 0, 1, 2, 3, 4, 5",
                ".if \\j < ifma_cb",
                "ifma_store \\j, %(ifma_cw + \\j)",
                ".endif",
                ".endr",
                "vzeroupper",
                ".purgem ifma_rows_chunk",
                ".purgem ifma_valign",
                ".purgem ifma_add",
                ".purgem ifma_zero",
                ".purgem ifma_load_b",
                ".purgem ifma_rotate_b",
                ".purgem ifma_b_chunk",
                ".purgem ifma_a_row",
                ".purgem ifma_q_chunk",
                ".purgem ifma_q_row",
                ".purgem ifma_extract",
                ".purgem ifma_column",
                ".purgem ifma_result",
                ".purgem ifma_split",
                ".purgem ifma_carry",
                ".purgem ifma_over",
                ".purgem ifma_shift",
                ".purgem ifma_store",
                ".noaltmacro",
                a = in(reg) a,
                b = in(reg) b,
                tab = in(reg) tab,
                scr = in(reg) scr,
                out = in(reg) out,
                q = out(reg) _,
                zlo = out(reg) _,
                zhi = out(reg) _,
                t1 = out(reg) _,
                t2 = out(reg) _,
                out("rdx") _,
                L = const LAY.l,
                CR = const LAY.cr,
                MHI = const LAY.mhi,
                MU1P = const LAY.mu1p,
                MU2 = const LAY.mu2,
                MASK = const LAY.mask,
                Y = const LAY.y,
                DBL = const LAY.dbl,
                QB = const LAY.qb,
                out("zmm0") _, out("zmm1") _, out("zmm2") _, out("zmm3") _,
                out("zmm4") _, out("zmm5") _, out("zmm6") _, out("zmm7") _,
                out("zmm8") _, out("zmm9") _, out("zmm10") _, out("zmm11") _,
                out("zmm12") _, out("zmm13") _, out("zmm14") _, out("zmm15") _,
                out("zmm16") _, out("zmm17") _, out("zmm18") _, out("zmm19") _,
                out("zmm20") _, out("zmm21") _, out("zmm22") _, out("zmm23") _,
                out("zmm24") _, out("zmm25") _, out("zmm26") _, out("zmm27") _,
                out("zmm28") _, out("zmm29") _, out("zmm30") _, out("zmm31") _,
                out("k1") _, out("k2") _, out("k3") _, out("k4") _,
                out("k5") _, out("k6") _, out("k7") _,
                options(nostack),
            );
        }
    };
}

amm_kernel!(amm21, L16);
amm_kernel!(amm41, L32);

#[cfg(test)]
mod tests {
    use super::super::{Form, InMont, Mont};
    use super::*;
    use num_bigint::BigUint;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    /// Whether to skip: the kernels need AVX-512 IFMA.
    fn skip(test: &str) -> bool {
        if available() {
            return false;
        }
        println!("{test}: skipped, this processor lacks AVX-512 IFMA (or VL, DQ, BMI2)");
        true
    }

    fn big(words: &[u64]) -> BigUint {
        words
            .iter()
            .rev()
            .fold(BigUint::from(0u32), |acc, w| (acc << 64u32) + *w)
    }

    fn words<const N: usize>(x: &BigUint) -> [u64; N] {
        let mut w = [0u64; N];
        for (i, d) in x.iter_u64_digits().enumerate() {
            w[i] = d;
        }
        w
    }

    fn big52(x: &Limbs) -> BigUint {
        x.0.iter()
            .rev()
            .fold(BigUint::from(0u32), |acc, w| (acc << 52u32) + *w)
    }

    fn limbs(x: &BigUint) -> Limbs {
        let mut out = Limbs([0; LANES]);
        let mut v = x.clone();
        for o in out.0.iter_mut() {
            *o = (&v & BigUint::from(MASK))
                .iter_u64_digits()
                .next()
                .unwrap_or(0);
            v >>= 52u32;
        }
        assert_eq!(v, BigUint::from(0u32));
        out
    }

    fn random_below(rng: &mut ChaCha20Rng, bound: &BigUint) -> BigUint {
        let mut b = vec![0u8; bound.bits().div_ceil(8) as usize + 8];
        rng.fill_bytes(&mut b);
        BigUint::from_bytes_be(&b) % bound
    }

    /// A prime of `bits` bits, top two set, from the crate's search.
    fn prime(rng: &mut ChaCha20Rng, bits: u32) -> BigUint {
        use crypto_primes::hazmat::{SetBits, SmallFactorsSieveFactory};
        use crypto_primes::{is_prime, sieve_and_find, Flavor};
        let factory =
            SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb).expect("valid sieve");
        let p: rsa::BoxedUint = sieve_and_find(rng, factory, |_, c| is_prime(Flavor::Any, c))
            .expect("search runs")
            .expect("a prime");
        BigUint::from_bytes_be(&p.to_be_bytes())
    }

    /// Moduli of `N` words with the top bit set: random, all ones, the smallest
    /// (2^(64N-1) + 1), and top bits set over zeros.
    fn moduli<const N: usize>(rng: &mut ChaCha20Rng) -> Vec<BigUint> {
        let top = BigUint::from(1u32) << (64 * N - 1);
        let mut out: Vec<BigUint> = (0..3)
            .map(|_| random_below(rng, &top) | &top | BigUint::from(1u32))
            .collect();
        out.push((BigUint::from(1u32) << (64 * N)) - 1u32);
        out.push(&top + 1u32);
        out.push(&top | (&top >> 1u32) | BigUint::from(1u32));
        out
    }

    /// The kernel's product against big integers, at both widths: normalized
    /// limbs, below `4M'`, and `out·R' ≡ a·b (·2) (mod M')`, for operands at the
    /// edges (0, 1, m - 1, m, M' - 1, 4M' - 1) and between.
    #[test]
    fn products_match_big_integers() {
        if skip("products_match_big_integers") {
            return;
        }
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            for m in moduli::<N>(rng) {
                let mont = Mont::new(words::<N>(&m)).expect("odd, full width");
                let mut ifma = Ifma::new(&mont).expect("IFMA at this width");
                let l = ifma.lay.l;
                let mp = &m * (mont.minv & MASK);
                assert_eq!(
                    (&mp + 1u32) % (BigUint::from(1u32) << 52),
                    BigUint::from(0u32)
                );
                let r = BigUint::from(1u32) << (52 * l);
                let four = &mp * 4u32;
                let mut operands = vec![
                    BigUint::from(0u32),
                    BigUint::from(1u32),
                    &m - 1u32,
                    m.clone(),
                    &mp - 1u32,
                    &four - 1u32,
                ];
                for _ in 0..6 {
                    operands.push(random_below(rng, &four));
                }
                for a in &operands {
                    for b in &operands {
                        for double in [false, true] {
                            let (la, lb) = (limbs(a), limbs(b));
                            let mut out = Limbs([0; LANES]);
                            ifma.product(&la, &lb, &mut out, double);
                            assert!(out.0.iter().all(|x| *x <= MASK), "normalized");
                            assert!(out.0[l..].iter().all(|x| *x == 0), "zero above");
                            let got = big52(&out);
                            assert!(got < four, "below 4M'");
                            let want = (a * b * (1u32 + u32::from(double))) % &mp;
                            assert_eq!((&got * &r) % &mp, want, "m = {m:x}, a = {a:x}, b = {b:x}");
                        }
                    }
                }
            }
        }
        let mut rng = ChaCha20Rng::from_seed([21u8; 32]);
        check::<16>(&mut rng);
        check::<32>(&mut rng);
    }

    /// The canonical residue of a product is the portable Montgomery product once
    /// one operand carries the radices' ratio: `a·(b·R'/R)/R' = a·b/R`.
    #[test]
    fn products_agree_with_the_portable_product() {
        if skip("products_agree_with_the_portable_product") {
            return;
        }
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            for m in moduli::<N>(rng) {
                let mont = Mont::new(words::<N>(&m)).expect("odd, full width");
                let mut ifma = Ifma::new(&mont).expect("IFMA at this width");
                let l = ifma.lay.l;
                let ratio = BigUint::from(1u32) << (52 * l - 64 * N);
                let mut operands = vec![BigUint::from(0u32), BigUint::from(1u32), &m - 1u32];
                for _ in 0..5 {
                    operands.push(random_below(rng, &m));
                }
                for a in &operands {
                    for b in &operands {
                        let mut out = Limbs([0; LANES]);
                        ifma.product(&limbs(a), &limbs(&((b * &ratio) % &m)), &mut out, false);
                        let want = mont.mul_portable(&words::<N>(a), &words::<N>(b));
                        assert_eq!(ifma.residue(&out), want, "m = {m:x}, a = {a:x}, b = {b:x}");
                    }
                }
            }
        }
        let mut rng = ChaCha20Rng::from_seed([22u8; 32]);
        check::<16>(&mut rng);
        check::<32>(&mut rng);
    }

    /// `residue` reduces anything below `4M'` to `x mod m`.
    #[test]
    fn residues_are_reduced_modulo_m() {
        if skip("residues_are_reduced_modulo_m") {
            return;
        }
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            for m in moduli::<N>(rng) {
                let mont = Mont::new(words::<N>(&m)).expect("odd, full width");
                let ifma = Ifma::new(&mont).expect("IFMA at this width");
                let four = &m * (mont.minv & MASK) * 4u32;
                let mut values = vec![
                    BigUint::from(0u32),
                    &m - 1u32,
                    m.clone(),
                    &m * 3u32 - 1u32,
                    &four - 1u32,
                ];
                for _ in 0..20 {
                    values.push(random_below(rng, &four));
                }
                for y in &values {
                    let got = ifma.residue(&limbs(y));
                    assert_eq!(big(&got), y % &m, "m = {m:x}, y = {y:x}");
                }
            }
        }
        let mut rng = ChaCha20Rng::from_seed([23u8; 32]);
        check::<16>(&mut rng);
        check::<32>(&mut rng);
    }

    /// The round decides as the 64-bit rows do: random odd numbers, numbers with
    /// long runs of zeros at the bottom of `m - 1`, primes, and strong base-2
    /// pseudoprimes `p(2p - 1)`.
    #[test]
    fn base2_rounds_agree_with_the_rows() {
        if skip("base2_rounds_agree_with_the_rows") {
            return;
        }
        fn agree<const N: usize>(n: &BigUint) -> bool {
            let mont = Mont::new(words::<N>(n)).expect("odd, full width");
            let rows = mont.base2_round_with(&mut InMont(&mont));
            assert_eq!(miller_rabin_base2(&mont), Some(rows), "{n:x}");
            rows
        }
        fn check<const N: usize>(rng: &mut ChaCha20Rng, count: usize) {
            let top = BigUint::from(1u32) << (64 * N - 1);
            for k in 0..count {
                let mut n = random_below(rng, &top) | &top | BigUint::from(1u32);
                if k % 4 == 0 {
                    // m - 1 = d·2^s with s up to 300.
                    let s = 1 + k % 300;
                    n = ((n >> s) << s) | BigUint::from(1u32);
                }
                agree::<N>(&n);
            }
            // Primes, and their products with 3 (kept odd and of this width).
            for _ in 0..2 {
                let p = prime(rng, 64 * N as u32);
                assert!(agree::<N>(&p), "a prime passes");
                let c = ((&p >> 2u32) * 3u32) | BigUint::from(1u32);
                agree::<N>(&c);
            }
        }
        let mut rng = ChaCha20Rng::from_seed([24u8; 32]);
        check::<16>(&mut rng, 400);
        check::<32>(&mut rng, 60);
        let hex = |s: &str| BigUint::parse_bytes(s.as_bytes(), 16).expect("hex");
        for p in super::super::tests::SPRP_P {
            let p = hex(p);
            let n = &p * ((&p << 1u32) - 1u32);
            let passes = match n.bits() {
                1024 => agree::<16>(&n),
                2048 => agree::<32>(&n),
                _ => continue,
            };
            assert!(passes, "{n:x} is a strong base-2 pseudoprime");
        }
    }

    /// The Lucas test decides as with the 64-bit rows (and reaches the same
    /// stage): random odd numbers, primes, and products of two primes.
    #[test]
    fn lucas_tests_agree_with_the_rows() {
        if skip("lucas_tests_agree_with_the_rows") {
            return;
        }
        fn agree<const N: usize>(n: &BigUint) -> Lucas {
            let mont = Mont::new(words::<N>(n)).expect("odd, full width");
            let rows = mont.lucas_with(&mut InMont(&mont));
            let mut ifma = Ifma::new(&mont).expect("IFMA at this width");
            assert_eq!(mont.lucas_with(&mut ifma), rows, "{n:x}");
            assert_eq!(lucas_bpsw21(&mont), Some(rows), "{n:x}");
            rows
        }
        fn check<const N: usize>(rng: &mut ChaCha20Rng, count: usize) {
            let top = BigUint::from(1u32) << (64 * N - 1);
            let mut composites = 0;
            for _ in 0..count {
                let n = random_below(rng, &top) | &top | BigUint::from(1u32);
                composites += usize::from(agree::<N>(&n) != Lucas::ProbablyPrime);
            }
            assert!(composites > 0);
            let bits = 64 * N as u32;
            assert_eq!(agree::<N>(&prime(rng, bits)), Lucas::ProbablyPrime);
            let pq = prime(rng, bits / 2) * prime(rng, bits / 2);
            assert_ne!(agree::<N>(&pq), Lucas::ProbablyPrime);
        }
        let mut rng = ChaCha20Rng::from_seed([26u8; 32]);
        check::<16>(&mut rng, 40);
        check::<32>(&mut rng, 10);
    }

    /// Nanoseconds per product (squarings in a chain) and milliseconds per
    /// base-2 round and Lucas test, old and new, each the best of rounds that
    /// take turns (so that a change of clock speed hits all alike):
    /// `cargo test --profile quick-release --lib funcs::primes::ifma::tests::product_timing -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn product_timing() {
        use std::time::Instant;
        if skip("product_timing") {
            return;
        }
        fn width<const N: usize>(rng: &mut ChaCha20Rng) {
            let m = moduli::<N>(rng).swap_remove(0);
            let mont = Mont::new(words::<N>(&m)).expect("odd, full width");
            let x0 = words::<N>(&random_below(rng, &m));
            // A Lucas test runs its whole ladder on a prime.
            let p = prime(rng, 64 * N as u32);
            let prime_mont = Mont::new(words::<N>(&p)).expect("odd, full width");
            let mut ifma = Ifma::new(&mont).expect("IFMA at this width");
            let y0 = ifma.value_of(&x0);
            let chain = 200;
            let mut best = [f64::MAX; 8];
            let mut time = |k: usize, per: usize, f: &mut dyn FnMut()| {
                let t = Instant::now();
                f();
                best[k] = best[k].min(t.elapsed().as_secs_f64() / per as f64);
            };
            for _ in 0..30 {
                time(0, chain, &mut || {
                    let mut x = x0;
                    for _ in 0..chain {
                        x = mont.mul_portable(&x, &x);
                    }
                    std::hint::black_box(x);
                });
                time(1, chain, &mut || {
                    let mut x = x0;
                    for _ in 0..chain {
                        x = mont.mul(&x, &x);
                    }
                    std::hint::black_box(x);
                });
                time(2, chain, &mut || {
                    let mut y = y0.clone();
                    for _ in 0..chain {
                        ifma.square(&mut y, false);
                    }
                    std::hint::black_box(&y);
                });
                time(3, chain, &mut || {
                    let mut x = x0;
                    for _ in 0..chain {
                        x = ifma.mul(&x, &x);
                    }
                    std::hint::black_box(x);
                });
                time(4, 1, &mut || {
                    std::hint::black_box(mont.base2_round_with(&mut InMont(&mont)));
                });
                time(5, 1, &mut || {
                    std::hint::black_box(miller_rabin_base2(&mont));
                });
                time(6, 1, &mut || {
                    std::hint::black_box(prime_mont.lucas_with(&mut InMont(&prime_mont)));
                });
                time(7, 1, &mut || {
                    std::hint::black_box(lucas_bpsw21(&prime_mont));
                });
            }
            let [portable, rows, kernel, canonical, round_rows, round_ifma, lucas_rows, lucas_ifma] =
                best;
            println!(
                "{N} limbs: ns per product: portable {:.0}, rows {:.0}, IFMA {:.0} \
                 (canonical operands {:.0}); ms per base-2 round: rows {:.3}, IFMA {:.3}; \
                 ms per Lucas test: rows {:.3}, IFMA {:.3}",
                portable * 1e9,
                rows * 1e9,
                kernel * 1e9,
                canonical * 1e9,
                round_rows * 1e3,
                round_ifma * 1e3,
                lucas_rows * 1e3,
                lucas_ifma * 1e3,
            );
        }
        let mut rng = ChaCha20Rng::from_seed([25u8; 32]);
        width::<16>(&mut rng);
        width::<32>(&mut rng);
    }
}
