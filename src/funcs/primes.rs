//! Variable-time primality tests for RSA prime candidates, in Montgomery arithmetic
//! of fixed width: one Miller–Rabin round to base 2, and the Lucas half of the
//! Baillie–PSW test exactly as `crypto_primes` runs it.
//!
//! Why they exist: `genCA`, `genSelfSignedCert` and `genPrivateKey "rsa"` draw
//! 2048-bit keys. `crypto_primes::is_prime` (a base-2 round plus a strong Lucas
//! test) runs in generic constant-time arithmetic, which a key nobody will use does
//! not need. The base-2 round rejects the composites that survive the small-prime
//! sieve, about thirty per prime, at a fraction of the cost. The Lucas test then
//! runs about once per prime, on the survivor: in the crate's arithmetic it cost
//! as much as seven base-2 rounds, here a little over three. Both must decide
//! every candidate exactly as the crate would, or the seeded keys (and the
//! snapshots holding them) would change: a base-2 round never rejects a prime, and
//! [`lucas_bpsw21`] reproduces the crate's base search, checks and order, so it
//! rejects precisely the candidates the crate's Lucas test rejects.
//!
//! Squarings use the general product: a dedicated squaring (each cross product
//! once, then the reduction) measured no faster at these widths (421 against
//! 400 ns at 16 limbs). On x86-64 with BMI2 and ADX, the product of the two
//! widths keys use (16 and 32 limbs) runs its rows in assembly: `mulx` leaves the
//! flags alone, so the low and high halves add up on two independent carry chains
//! (`adcx`, `adox`), which the portable code cannot express; 1.7 times faster at 16
//! limbs (272 against 462 ns on the benchmark machine).
//!
//! With AVX-512 IFMA (detected at run time), both tests at those widths take
//! their products from [`ifma`] instead, eight 52-bit limb products per
//! instruction (the rows' product was about a quarter of the CPU time of
//! rendering the NVCF stack): a base-2 round 2.3 to 2.8 times faster at 16 limbs
//! (0.137 against 0.321 ms), 3.6 to 3.9 at 32; a 1024-bit prime
//! (`rsa_prime_timing`) 8.7 against 19.7 ms, median of nine runs, and a 2048-bit
//! one 35–56 against 134–170 ms. The round keeps its values in that form
//! throughout; every test compares canonical residues, which decide alike in any
//! Montgomery form ([`Form`]).

pub(crate) mod sieve;

/// `None` when the candidate's width has no fixed-width implementation (there are
/// ones for 512, 1024, 1536 and 2048 bits, the primes of 1024- to 4096-bit keys);
/// otherwise `Some(false)` for a certain composite and `Some(true)` for a probable
/// prime. `be` is the candidate, big-endian, and must be odd.
pub(crate) fn base2_round(be: &[u8]) -> Option<bool> {
    fixed_width::<Base2>(be)
}

/// The decision of `crypto_primes::hazmat::lucas_test(n, AStarBase,
/// LucasCheck::Bpsw21)`: `Some(true)` unless the crate reports a composite, for the
/// same widths as [`base2_round`] and `None` at other widths. Also `None` wherever
/// the crate would panic (no `D` among its first 10 000 tries), so that the
/// caller's fallback to the crate behaves as the crate does. `be` is big-endian and
/// odd.
pub(crate) fn lucas_bpsw21(be: &[u8]) -> Option<bool> {
    fixed_width::<LucasBpsw21>(be)
}

/// A test of an odd modulus of any supported width.
trait OddTest {
    fn run<const N: usize>(mont: &Mont<N>) -> Option<bool>;
}

struct Base2;

impl OddTest for Base2 {
    fn run<const N: usize>(mont: &Mont<N>) -> Option<bool> {
        Some(mont.miller_rabin_base2())
    }
}

struct LucasBpsw21;

impl OddTest for LucasBpsw21 {
    fn run<const N: usize>(mont: &Mont<N>) -> Option<bool> {
        match mont.lucas_bpsw21() {
            Lucas::ProbablyPrime => Some(true),
            Lucas::Composite(_) => Some(false),
            Lucas::Unknown => None,
        }
    }
}

fn fixed_width<T: OddTest>(be: &[u8]) -> Option<bool> {
    let bytes = be.len() - be.iter().take_while(|b| **b == 0).count();
    let limbs = bytes.div_ceil(8);
    let mut words = vec![0u64; limbs];
    for (i, chunk) in be.rchunks(8).enumerate() {
        if i >= limbs {
            break;
        }
        let mut w = [0u8; 8];
        w[8 - chunk.len()..].copy_from_slice(chunk);
        words[i] = u64::from_be_bytes(w);
    }
    match limbs {
        8 => run::<T, 8>(&words),
        16 => run::<T, 16>(&words),
        24 => run::<T, 24>(&words),
        32 => run::<T, 32>(&words),
        _ => None,
    }
}

fn run<T: OddTest, const N: usize>(words: &[u64]) -> Option<bool> {
    let mut m = [0u64; N];
    m.copy_from_slice(&words[..N]);
    match Mont::new(m) {
        Some(mont) => T::run(&mont),
        // Even, and wider than 2: composite.
        None => Some(false),
    }
}

/// Arithmetic modulo an odd `m` of `N` little-endian limbs, in Montgomery form
/// (`x` stands for `x·R mod m`, `R = 2^(64N)`).
struct Mont<const N: usize> {
    m: [u64; N],
    /// `-m⁻¹ mod 2^64`.
    minv: u64,
    /// Whether [`Mont::mul`] takes the assembly rows (see the module comment).
    fast_rows: bool,
}

impl<const N: usize> Mont<N> {
    fn new(m: [u64; N]) -> Option<Mont<N>> {
        if m[0] & 1 == 0 || m[N - 1] == 0 {
            return None;
        }
        // Newton's iteration doubles the number of correct low bits each step.
        let mut inv: u64 = 1;
        for _ in 0..6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m[0].wrapping_mul(inv)));
        }
        Some(Mont {
            m,
            minv: inv.wrapping_neg(),
            fast_rows: rows::available::<N>(),
        })
    }

    fn at_least_m(&self, x: &[u64; N]) -> bool {
        for i in (0..N).rev() {
            if x[i] != self.m[i] {
                return x[i] > self.m[i];
            }
        }
        true
    }

    fn sub_m(&self, x: &mut [u64; N]) {
        let mut borrow = false;
        for (xi, mi) in x.iter_mut().zip(&self.m) {
            let (d, b1) = xi.overflowing_sub(*mi);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            *xi = d;
            borrow = b1 | b2;
        }
    }

    /// `x ← 2x mod m`, for `x < m` (doubling commutes with the Montgomery form).
    fn double(&self, x: &mut [u64; N]) {
        let mut carry = 0u64;
        for xi in x.iter_mut() {
            let top = *xi >> 63;
            *xi = (*xi << 1) | carry;
            carry = top;
        }
        if carry != 0 || self.at_least_m(x) {
            self.sub_m(x);
        }
    }

    /// `R mod m`, the Montgomery form of 1: 1 doubled 64N times, which needs no
    /// division and is small next to the 64N-odd squarings of either test. With
    /// the top bit of `m` set (every RSA candidate), `m < R < 2m`, so it is
    /// `R - m`, the two's complement of `m`, without the 64N doublings (a
    /// twentieth of a base-2 round).
    fn one(&self) -> [u64; N] {
        if self.m[N - 1] >> 63 == 1 {
            let mut one = [0u64; N];
            let mut borrow = false;
            for (o, mi) in one.iter_mut().zip(&self.m) {
                let (d, b1) = 0u64.overflowing_sub(*mi);
                let (d, b2) = d.overflowing_sub(u64::from(borrow));
                *o = d;
                borrow = b1 | b2;
            }
            return one;
        }
        let mut one = [0u64; N];
        one[0] = 1;
        for _ in 0..64 * N {
            self.double(&mut one);
        }
        one
    }

    /// `a + b mod m`, for `a, b < m`.
    fn add(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let mut r = [0u64; N];
        let mut carry = false;
        for i in 0..N {
            let (s, c1) = a[i].overflowing_add(b[i]);
            let (s, c2) = s.overflowing_add(u64::from(carry));
            r[i] = s;
            carry = c1 | c2;
        }
        if carry || self.at_least_m(&r) {
            self.sub_m(&mut r);
        }
        r
    }

    /// `a - b mod m`, for `a, b < m`.
    fn sub(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        let mut r = [0u64; N];
        let mut borrow = false;
        for i in 0..N {
            let (d, b1) = a[i].overflowing_sub(b[i]);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            r[i] = d;
            borrow = b1 | b2;
        }
        if borrow {
            // The difference wrapped around 2^(64N); adding m wraps it back.
            let mut carry = false;
            for (ri, mi) in r.iter_mut().zip(&self.m) {
                let (s, c1) = ri.overflowing_add(*mi);
                let (s, c2) = s.overflowing_add(u64::from(carry));
                *ri = s;
                carry = c1 | c2;
            }
        }
        r
    }

    fn neg(&self, a: &[u64; N]) -> [u64; N] {
        self.sub(&[0u64; N], a)
    }

    /// `c·a mod m` for a small `c > 0` and `a < m`, by doubling and adding: the
    /// multipliers of the Lucas test (P, |Q|) are single digits nearly always, where
    /// this costs a few linear passes instead of a Montgomery product.
    fn mul_small(&self, a: &[u64; N], c: u64) -> [u64; N] {
        let mut r = *a;
        for bit in (0..63 - c.leading_zeros()).rev() {
            self.double(&mut r);
            if (c >> bit) & 1 == 1 {
                r = self.add(&r, a);
            }
        }
        r
    }

    /// `a·b·R⁻¹ mod m`, for `a, b < m`.
    fn mul(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        if self.fast_rows {
            if let Some(r) = rows::mul(a, b, &self.m, self.minv) {
                return self.reduce_once(r);
            }
        }
        self.mul_portable(a, b)
    }

    /// The last step of a Montgomery product: `t` is below `2m`.
    fn reduce_once(&self, (mut r, carry): ([u64; N], bool)) -> [u64; N] {
        if carry || self.at_least_m(&r) {
            self.sub_m(&mut r);
        }
        r
    }

    /// [`Mont::mul`] in portable code: coarsely integrated operand scanning, one
    /// row of the product and one of the reduction per limb of `a`.
    fn mul_portable(&self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        // N + 2 limbs of the widest modulus (32 limbs).
        let mut buf = [0u64; 34];
        let t = &mut buf[..N + 2];
        for &ai in a {
            let mut carry: u64 = 0;
            for j in 0..N {
                let s = u128::from(t[j]) + u128::from(ai) * u128::from(b[j]) + u128::from(carry);
                t[j] = s as u64;
                carry = (s >> 64) as u64;
            }
            let s = u128::from(t[N]) + u128::from(carry);
            t[N] = s as u64;
            t[N + 1] = (s >> 64) as u64;
            // Add q·m with q chosen to clear limb 0, and shift down by a limb.
            let q = t[0].wrapping_mul(self.minv);
            let s = u128::from(t[0]) + u128::from(q) * u128::from(self.m[0]);
            let mut carry = (s >> 64) as u64;
            for j in 1..N {
                let s =
                    u128::from(t[j]) + u128::from(q) * u128::from(self.m[j]) + u128::from(carry);
                t[j - 1] = s as u64;
                carry = (s >> 64) as u64;
            }
            let s = u128::from(t[N]) + u128::from(carry);
            t[N - 1] = s as u64;
            t[N] = t[N + 1] + ((s >> 64) as u64);
        }
        // The result is below 2m, so at most one subtraction reduces it.
        let mut r = [0u64; N];
        r.copy_from_slice(&t[..N]);
        self.reduce_once((r, t[N] != 0))
    }

    /// Bit `k` of `m - 1`.
    fn m_minus_one_bit(&self, k: usize) -> bool {
        let w = k / 64;
        if w >= N {
            return false;
        }
        // m is odd, so m - 1 only clears bit 0 of the lowest limb.
        let v = if w == 0 { self.m[0] - 1 } else { self.m[w] };
        (v >> (k % 64)) & 1 == 1
    }

    /// One Miller–Rabin round to base 2: with `m - 1 = d·2^s`, `m` passes when
    /// `2^d ≡ 1` or `2^(d·2^r) ≡ -1 (mod m)` for some `r < s`. With AVX-512 IFMA
    /// the squarings run in radix 2^52 (see [`ifma`]), elsewhere in this form.
    fn miller_rabin_base2(&self) -> bool {
        if let Some(passes) = ifma::miller_rabin_base2(self) {
            return passes;
        }
        self.base2_round_with(&mut InMont(self))
    }

    /// The round, with its squarings done by `sq` (any Montgomery form: the
    /// comparisons are between canonical residues, which every form maps to
    /// the same decision).
    fn base2_round_with<F: Form<N>>(&self, sq: &mut F) -> bool {
        let bits = 64 * N - self.m[N - 1].leading_zeros() as usize;
        // s: trailing zero bits of m - 1 (m > 1 here, so m - 1 has a set bit).
        let Some(s) = (1..bits).find(|&k| self.m_minus_one_bit(k)) else {
            return false;
        };
        let one = sq.one();
        let minus_one = self.neg(&one);
        // 2^d by left-to-right square-and-double over the bits of d = (m-1) >> s.
        let mut y = sq.value_of(&one);
        for k in (s..bits).rev() {
            sq.square(&mut y, self.m_minus_one_bit(k));
        }
        let r = sq.residue(&y);
        if r == one || r == minus_one {
            return true;
        }
        for _ in 1..s {
            sq.square(&mut y, false);
            let r = sq.residue(&y);
            if r == minus_one {
                return true;
            }
            if r == one {
                return false;
            }
        }
        false
    }

    /// Is `m` a perfect square? Only asked when the first 30 choices of `D` found
    /// none with `(D/m) = -1`, as the crate asks, so speed does not matter here.
    fn is_square(&self) -> bool {
        let le: Vec<u8> = self.m.iter().flat_map(|w| w.to_le_bytes()).collect();
        let n = num_bigint::BigUint::from_bytes_le(&le);
        let root = n.sqrt();
        &root * &root == n
    }

    /// The crate's "method A*" base: Selfridge's search over `D = 5, -7, 9, -11, …`
    /// for the first `D` with `(D/m) = -1`, giving `P = 1, Q = (1 - D)/4`, except
    /// that `Q = -1` (`D = 5`) becomes `P = Q = 5`. A Jacobi symbol 0 means `m`
    /// shares a factor with `D` (at these widths `m` is never `|D|` itself, the
    /// crate's one exception); a square `m` has no such `D`, which the crate checks
    /// after 30 tries and we check at the same point.
    fn a_star_base(&self) -> LucasBase {
        for attempt in 0..10_000u64 {
            if attempt == 30 && self.is_square() {
                return LucasBase::Composite;
            }
            let abs_d = 5 + 2 * attempt;
            let d_negative = attempt % 2 == 1;
            match jacobi(abs_d, d_negative, &self.m) {
                -1 => {
                    // D ≡ 1 (mod 4) throughout, so Q = (1 - D)/4 is exact.
                    let q = if d_negative {
                        (abs_d + 1) as i64 / 4
                    } else {
                        -((abs_d - 1) as i64 / 4)
                    };
                    return if q == -1 {
                        LucasBase::Found { p: 5, q: 5 }
                    } else {
                        LucasBase::Found { p: 1, q }
                    };
                }
                0 => return LucasBase::Composite,
                _ => {}
            }
        }
        // The crate panics here; the caller's fallback to it will too.
        LucasBase::Unknown
    }

    /// `crypto_primes`' Lucas test with the A* base and the `Bpsw21` check
    /// (Baillie, Fiori, Wagstaff 2021). With `m + 1 = d·2^s`, `d` odd, `m` passes
    /// when (1) `U_d = 0` or `V_(d·2^r) = 0` for some `r < s`, and (2)
    /// `V_(m+1) = 2Q`, and (3) `Q^((m+1)/2) = Q·(Q/m)`, all mod `m`.
    ///
    /// The crate steps `U_k, V_k, Q^k` up the bits of `d`; this climbs the
    /// ladder of `V_k, V_(k+1), Q^k` instead (one product and two squarings a bit,
    /// small multiples by P and Q being additions), and recovers `U_d` from
    /// `D·U_d = 2V_(d+1) - P·V_d`. Both are the same integers mod `m`, and `D` is
    /// invertible mod `m` (`(D/m) = -1`), so `U_d = 0` exactly when
    /// `2V_(d+1) = P·V_d`: the decision cannot differ. With AVX-512 IFMA the
    /// products run in radix 2^52 (see [`ifma`]), elsewhere in this form.
    fn lucas_bpsw21(&self) -> Lucas {
        if let Some(outcome) = ifma::lucas_bpsw21(self) {
            return outcome;
        }
        self.lucas_with(&mut InMont(self))
    }

    /// The Lucas test with its products done by `form` (any Montgomery form: all
    /// else is additions and comparisons of canonical residues, which every form
    /// maps to the same decision).
    fn lucas_with<F: Form<N>>(&self, form: &mut F) -> Lucas {
        let (p, q) = match self.a_star_base() {
            LucasBase::Found { p, q } => (p, q),
            LucasBase::Composite => return Lucas::Composite(Stage::Base),
            LucasBase::Unknown => return Lucas::Unknown,
        };
        let abs_q = q.unsigned_abs();
        // The crate's gcd(m, Q) = 1 requirement. No A* base can fail it (each odd
        // prime factor of Q divides this D or an earlier one, whose symbol would
        // have been 0), but the crate checks, so we do too.
        if gcd(rem_small(&self.m, abs_q), abs_q) != 1 {
            return Lucas::Composite(Stage::Gcd);
        }

        // m + 1 = d·2^s: s is the count of trailing one bits of m, and
        // d = (m >> s) + 1, whose bit 0 is the zero bit just above those ones.
        let s = self
            .m
            .iter()
            .position(|w| *w != u64::MAX)
            .map_or(64 * N, |i| 64 * i + self.m[i].trailing_ones() as usize);
        let mut d = [0u64; N];
        if s < 64 * N {
            let (limbs, bits) = (s / 64, s % 64);
            for (i, di) in d.iter_mut().enumerate().take(N - limbs) {
                *di = self.m[i + limbs] >> bits;
                if bits > 0 && i + limbs + 1 < N {
                    *di |= self.m[i + limbs + 1] << (64 - bits);
                }
            }
        }
        d[0] |= 1;
        let d_bits = (0..N)
            .rev()
            .find(|&i| d[i] != 0)
            .map_or(0, |i| 64 * i + 64 - d[i].leading_zeros() as usize);

        let zero = [0u64; N];
        let one = form.one();
        let two = self.add(&one, &one);
        let times_q = |x: &[u64; N]| {
            let a = self.mul_small(x, abs_q);
            if q < 0 {
                self.neg(&a)
            } else {
                a
            }
        };
        let big_q = times_q(&one);

        // V_(2k) = V_k² - 2Q^k and V_(2k+1) = V_k·V_(k+1) - P·Q^k, from k = 0.
        let (mut v, mut v_next, mut qk) = (two, self.mul_small(&one, p), one);
        for i in (0..d_bits).rev() {
            let pqk = self.mul_small(&qk, p);
            let odd = self.sub(&form.mul(&v, &v_next), &pqk);
            let qk_sq = form.mul(&qk, &qk);
            if (d[i / 64] >> (i % 64)) & 1 == 1 {
                let mut q2 = times_q(&qk);
                self.double(&mut q2);
                v_next = self.sub(&form.mul(&v_next, &v_next), &q2);
                v = odd;
                qk = times_q(&qk_sq);
            } else {
                let mut q2 = qk;
                self.double(&mut q2);
                v = self.sub(&form.mul(&v, &v), &q2);
                v_next = odd;
                qk = qk_sq;
            }
        }

        let mut two_v_next = v_next;
        self.double(&mut two_v_next);
        let u_d_zero = two_v_next == self.mul_small(&v, p);
        // Up to V_((m+1)/2) and Q^((m+1)/2). The crate's early exit at V = ±2 only
        // applies when Q = 1, which the A* base never gives.
        let mut some_v_zero = v == zero;
        for _ in 1..s {
            let mut q2 = qk;
            self.double(&mut q2);
            v = self.sub(&form.mul(&v, &v), &q2);
            some_v_zero |= v == zero;
            qk = form.mul(&qk, &qk);
        }
        if !u_d_zero && !some_v_zero {
            return Lucas::Composite(Stage::Strong);
        }
        let mut q2 = qk;
        self.double(&mut q2);
        let v_m1 = self.sub(&form.mul(&v, &v), &q2);
        let mut two_q = big_q;
        self.double(&mut two_q);
        if v_m1 != two_q {
            return Lucas::Composite(Stage::LucasV);
        }
        // Euler's criterion for Q. The symbol cannot be 0 after the gcd check
        // (the crate would panic; so does its fallback).
        let euler = match jacobi(abs_q, q < 0, &self.m) {
            1 => big_q,
            -1 => self.neg(&big_q),
            _ => return Lucas::Unknown,
        };
        if qk == euler {
            Lucas::ProbablyPrime
        } else {
            Lucas::Composite(Stage::Euler)
        }
    }
}

/// The rows of a Montgomery product in x86-64 assembly (BMI2 `mulx`, ADX `adcx` and
/// `adox`), for 16 and 32 limbs.
#[cfg(target_arch = "x86_64")]
mod rows {
    use std::arch::asm;

    /// Whether this processor runs the rows, and they exist for `N` limbs.
    pub(super) fn available<const N: usize>() -> bool {
        (N == 16 || N == 32)
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("adx")
    }

    /// `a·b + q·m` accumulated row by row and divided by `R`, unreduced (below
    /// `2m`): the `N` low limbs and whether limb `N` is set. `None` for a width
    /// without rows. The caller checks [`available`] first.
    pub(super) fn mul<const N: usize>(
        a: &[u64; N],
        b: &[u64; N],
        m: &[u64; N],
        minv: u64,
    ) -> Option<([u64; N], bool)> {
        let mut r = [0u64; N];
        let carry = match N {
            16 => {
                let mut t = [0u64; 18];
                let (b, m) = (b[..].try_into().ok()?, m[..].try_into().ok()?);
                for &ai in a {
                    // SAFETY: `available` found BMI2 and ADX; the rows touch only
                    // the arrays they are given, whose sizes their types fix.
                    unsafe { mul_row16(ai, b, &mut t) };
                    let q = t[0].wrapping_mul(minv);
                    // SAFETY: as above.
                    unsafe { red_row16(q, m, &mut t) };
                }
                r.copy_from_slice(&t[..N]);
                t[N] != 0
            }
            32 => {
                let mut t = [0u64; 34];
                let (b, m) = (b[..].try_into().ok()?, m[..].try_into().ok()?);
                for &ai in a {
                    // SAFETY: as for 16 limbs.
                    unsafe { mul_row32(ai, b, &mut t) };
                    let q = t[0].wrapping_mul(minv);
                    // SAFETY: as for 16 limbs.
                    unsafe { red_row32(q, m, &mut t) };
                }
                r.copy_from_slice(&t[..N]);
                t[N] != 0
            }
            _ => return None,
        };
        Some((r, carry))
    }

    // Two limbs `j`, `j + 1` of `t += x·b`: each product's low half goes onto the
    // CF chain with `t[j]`, the previous product's high half onto the OF chain.
    // `{hi1}` holds the high half carried in and out.
    macro_rules! mul_limbs {
        ($j:literal, $jn:literal) => {
            concat!(
                "mulx {hi2}, {lo}, qword ptr [{b} + 8*",
                $j,
                "]\n",
                "adcx {lo}, qword ptr [{t} + 8*",
                $j,
                "]\n",
                "adox {lo}, {hi1}\n",
                "mov qword ptr [{t} + 8*",
                $j,
                "], {lo}\n",
                "mulx {hi1}, {lo}, qword ptr [{b} + 8*",
                $jn,
                "]\n",
                "adcx {lo}, qword ptr [{t} + 8*",
                $jn,
                "]\n",
                "adox {lo}, {hi2}\n",
                "mov qword ptr [{t} + 8*",
                $jn,
                "], {lo}\n",
            )
        };
    }

    // The same for `t += q·m`, stored a limb lower (`$jm` is `$j - 1`): limb 0,
    // zero by the choice of `q`, drops out, which is the division by 2^64.
    macro_rules! red_limbs {
        ($j:literal, $jm:literal, $jn:literal) => {
            concat!(
                "mulx {hi2}, {lo}, qword ptr [{b} + 8*",
                $j,
                "]\n",
                "adcx {lo}, qword ptr [{t} + 8*",
                $j,
                "]\n",
                "adox {lo}, {hi1}\n",
                "mov qword ptr [{t} + 8*",
                $jm,
                "], {lo}\n",
                "mulx {hi1}, {lo}, qword ptr [{b} + 8*",
                $jn,
                "]\n",
                "adcx {lo}, qword ptr [{t} + 8*",
                $jn,
                "]\n",
                "adox {lo}, {hi2}\n",
                "mov qword ptr [{t} + 8*",
                $j,
                "], {lo}\n",
            )
        };
    }

    // Limbs 0 and 1 of a reduction row: limb 0's sum is dropped.
    macro_rules! red_first {
        () => {
            concat!(
                "mulx {hi2}, {lo}, qword ptr [{b}]\n",
                "adcx {lo}, qword ptr [{t}]\n",
                "adox {lo}, {hi1}\n",
                "mulx {hi1}, {lo}, qword ptr [{b} + 8]\n",
                "adcx {lo}, qword ptr [{t} + 8]\n",
                "adox {lo}, {hi2}\n",
                "mov qword ptr [{t}], {lo}\n",
            )
        };
    }

    // The two limbs above the row (`$n` is the width, `$n1` one more): the last
    // high half and both carries go into `t[n]`, their carries into `t[n + 1]`;
    // stored at `$dn` and `$dn1` (a limb lower in a reduction row).
    macro_rules! row_tail {
        ($n:literal, $n1:literal, $dn:literal, $dn1:literal) => {
            concat!(
                "mov {lo}, qword ptr [{t} + 8*",
                $n,
                "]\n",
                "mov {hi2}, 0\n",
                "adcx {lo}, {hi1}\n",
                "adox {lo}, {hi2}\n",
                "mov qword ptr [{t} + 8*",
                $dn,
                "], {lo}\n",
                "mov {lo}, qword ptr [{t} + 8*",
                $n1,
                "]\n",
                "adcx {lo}, {hi2}\n",
                "adox {lo}, {hi2}\n",
                "mov qword ptr [{t} + 8*",
                $dn1,
                "], {lo}\n",
            )
        };
    }

    /// `t += x·b` over 16 limbs (`t` has two more).
    #[inline(always)]
    unsafe fn mul_row16(x: u64, b: &[u64; 16], t: &mut [u64; 18]) {
        asm!(
            // Clears CF and OF.
            "xor {hi1:e}, {hi1:e}",
            mul_limbs!(0, 1), mul_limbs!(2, 3), mul_limbs!(4, 5), mul_limbs!(6, 7),
            mul_limbs!(8, 9), mul_limbs!(10, 11), mul_limbs!(12, 13), mul_limbs!(14, 15),
            row_tail!(16, 17, 16, 17),
            in("rdx") x,
            b = in(reg) b.as_ptr(),
            t = in(reg) t.as_mut_ptr(),
            lo = out(reg) _,
            hi1 = out(reg) _,
            hi2 = out(reg) _,
            options(nostack),
        );
    }

    /// `t ← (t + q·m) / 2^64` over 16 limbs, for the `q` that makes it exact.
    #[inline(always)]
    unsafe fn red_row16(q: u64, m: &[u64; 16], t: &mut [u64; 18]) {
        asm!(
            "xor {hi1:e}, {hi1:e}",
            red_first!(),
            red_limbs!(2, 1, 3), red_limbs!(4, 3, 5), red_limbs!(6, 5, 7),
            red_limbs!(8, 7, 9), red_limbs!(10, 9, 11), red_limbs!(12, 11, 13),
            red_limbs!(14, 13, 15),
            row_tail!(16, 17, 15, 16),
            "mov qword ptr [{t} + 8*17], {hi2}",
            in("rdx") q,
            b = in(reg) m.as_ptr(),
            t = in(reg) t.as_mut_ptr(),
            lo = out(reg) _,
            hi1 = out(reg) _,
            hi2 = out(reg) _,
            options(nostack),
        );
    }

    /// `t += x·b` over 32 limbs.
    #[inline(always)]
    unsafe fn mul_row32(x: u64, b: &[u64; 32], t: &mut [u64; 34]) {
        asm!(
            "xor {hi1:e}, {hi1:e}",
            mul_limbs!(0, 1), mul_limbs!(2, 3), mul_limbs!(4, 5), mul_limbs!(6, 7),
            mul_limbs!(8, 9), mul_limbs!(10, 11), mul_limbs!(12, 13), mul_limbs!(14, 15),
            mul_limbs!(16, 17), mul_limbs!(18, 19), mul_limbs!(20, 21), mul_limbs!(22, 23),
            mul_limbs!(24, 25), mul_limbs!(26, 27), mul_limbs!(28, 29), mul_limbs!(30, 31),
            row_tail!(32, 33, 32, 33),
            in("rdx") x,
            b = in(reg) b.as_ptr(),
            t = in(reg) t.as_mut_ptr(),
            lo = out(reg) _,
            hi1 = out(reg) _,
            hi2 = out(reg) _,
            options(nostack),
        );
    }

    /// `t ← (t + q·m) / 2^64` over 32 limbs.
    #[inline(always)]
    unsafe fn red_row32(q: u64, m: &[u64; 32], t: &mut [u64; 34]) {
        asm!(
            "xor {hi1:e}, {hi1:e}",
            red_first!(),
            red_limbs!(2, 1, 3), red_limbs!(4, 3, 5), red_limbs!(6, 5, 7),
            red_limbs!(8, 7, 9), red_limbs!(10, 9, 11), red_limbs!(12, 11, 13),
            red_limbs!(14, 13, 15), red_limbs!(16, 15, 17), red_limbs!(18, 17, 19),
            red_limbs!(20, 19, 21), red_limbs!(22, 21, 23), red_limbs!(24, 23, 25),
            red_limbs!(26, 25, 27), red_limbs!(28, 27, 29), red_limbs!(30, 29, 31),
            row_tail!(32, 33, 31, 32),
            "mov qword ptr [{t} + 8*33], {hi2}",
            in("rdx") q,
            b = in(reg) m.as_ptr(),
            t = in(reg) t.as_mut_ptr(),
            lo = out(reg) _,
            hi1 = out(reg) _,
            hi2 = out(reg) _,
            options(nostack),
        );
    }
}

/// Elsewhere there are no assembly rows.
#[cfg(not(target_arch = "x86_64"))]
mod rows {
    pub(super) fn available<const N: usize>() -> bool {
        false
    }

    pub(super) fn mul<const N: usize>(
        _: &[u64; N],
        _: &[u64; N],
        _: &[u64; N],
        _: u64,
    ) -> Option<([u64; N], bool)> {
        None
    }
}

/// Products in some Montgomery form of the residues modulo `m`: the form of `x`
/// is `x·R mod m` for the form's radix `R`. Canonical residues (`[u64; N]`,
/// below `m`) go in and come out; a base-2 round keeps its own values between
/// squarings.
trait Form<const N: usize> {
    type Value;
    /// The form of 1, canonical.
    fn one(&self) -> [u64; N];
    /// `a·b/R mod m`, for canonical `a` and `b`.
    fn mul(&mut self, a: &[u64; N], b: &[u64; N]) -> [u64; N];
    fn value_of(&self, x: &[u64; N]) -> Self::Value;
    /// `x ← x²/R`, doubled if `double`.
    fn square(&mut self, x: &mut Self::Value, double: bool);
    /// `x` as a canonical residue.
    fn residue(&self, x: &Self::Value) -> [u64; N];
}

/// [`Mont`]'s own form (radix `2^(64N)`, values kept reduced).
struct InMont<'a, const N: usize>(&'a Mont<N>);

impl<const N: usize> Form<N> for InMont<'_, N> {
    type Value = [u64; N];

    fn one(&self) -> [u64; N] {
        self.0.one()
    }

    fn mul(&mut self, a: &[u64; N], b: &[u64; N]) -> [u64; N] {
        self.0.mul(a, b)
    }

    fn value_of(&self, x: &[u64; N]) -> [u64; N] {
        *x
    }

    fn square(&mut self, x: &mut [u64; N], double: bool) {
        *x = self.0.mul(x, x);
        if double {
            self.0.double(x);
        }
    }

    fn residue(&self, x: &[u64; N]) -> [u64; N] {
        *x
    }
}

#[cfg(target_arch = "x86_64")]
mod ifma;

/// Elsewhere there is no IFMA kernel.
#[cfg(not(target_arch = "x86_64"))]
mod ifma {
    pub(super) fn miller_rabin_base2<const N: usize>(_: &super::Mont<N>) -> Option<bool> {
        None
    }

    pub(super) fn lucas_bpsw21<const N: usize>(_: &super::Mont<N>) -> Option<super::Lucas> {
        None
    }
}

/// The outcome of [`Mont::lucas_bpsw21`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lucas {
    ProbablyPrime,
    Composite(Stage),
    /// Where the crate would panic: no base found, or a Jacobi symbol it rules out.
    Unknown,
}

/// The check that found a composite, in the order the crate applies them (kept
/// apart so the tests can show which checks their numbers reach).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The base search: a square, or a factor shared with some `D`.
    Base,
    /// A factor shared with `Q`.
    Gcd,
    /// Neither `U_d` nor any `V_(d·2^r)` is 0.
    Strong,
    /// `V_(m+1) ≠ 2Q`.
    LucasV,
    /// `Q^((m+1)/2) ≠ Q·(Q/m)`.
    Euler,
}

/// What the A* search for a Lucas base found.
enum LucasBase {
    Found {
        p: u64,
        q: i64,
    },
    /// `m` is a square or shares a factor with some `D`.
    Composite,
    /// No `D` in the crate's 10 000 tries.
    Unknown,
}

/// `n mod c` for little-endian limbs `n` and `c > 0`.
fn rem_small(n: &[u64], c: u64) -> u64 {
    n.iter().rev().fold(0u64, |r, w| {
        (((u128::from(r) << 64) | u128::from(*w)) % u128::from(c)) as u64
    })
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The Jacobi symbol `(±abs_a / n)` for `abs_a > 0` and odd `n > 1`, given as
/// little-endian limbs.
fn jacobi(abs_a: u64, negative: bool, n: &[u64]) -> i8 {
    let n8 = n[0] & 7;
    let mut j: i8 = 1;
    // (-1/n) = -1 exactly when n ≡ 3 (mod 4).
    if negative && n8 & 3 == 3 {
        j = -j;
    }
    // (2/n) = -1 exactly when n ≡ 3, 5 (mod 8).
    let twos = abs_a.trailing_zeros();
    let a = abs_a >> twos;
    if twos % 2 == 1 && (n8 == 3 || n8 == 5) {
        j = -j;
    }
    if a == 1 {
        return j;
    }
    // Reciprocity turns (a/n) into ((n mod a)/a); from there all is single words.
    if a & 3 == 3 && n8 & 3 == 3 {
        j = -j;
    }
    let (mut x, mut y) = (rem_small(n, a), a);
    loop {
        if x == 0 {
            return if y == 1 { j } else { 0 };
        }
        let twos = x.trailing_zeros();
        x >>= twos;
        if twos % 2 == 1 && matches!(y & 7, 3 | 5) {
            j = -j;
        }
        if x == 1 {
            return j;
        }
        if x & 3 == 3 && y & 3 == 3 {
            j = -j;
        }
        (x, y) = (y % x, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    /// The same round computed with general big-integer arithmetic.
    fn reference(n: &BigUint) -> bool {
        let one = BigUint::from(1u32);
        let n1 = n - &one;
        let s = n1.trailing_zeros().unwrap_or(0);
        let d = &n1 >> s;
        let mut y = BigUint::from(2u32).modpow(&d, n);
        if y == one || y == n1 {
            return true;
        }
        for _ in 1..s {
            y = (&y * &y) % n;
            if y == n1 {
                return true;
            }
            if y == one {
                return false;
            }
        }
        false
    }

    #[test]
    fn agrees_with_big_integer_arithmetic() {
        let mut rng = ChaCha20Rng::from_seed([3u8; 32]);
        let mut passed = 0;
        for k in 0..120 {
            let bytes = [64usize, 128, 192, 256][k % 4];
            let mut b = vec![0u8; bytes];
            rng.fill_bytes(&mut b);
            b[0] |= 0x80;
            b[bytes - 1] |= 1;
            if k % 3 == 0 {
                // Many trailing zeros in m - 1 exercise the squaring tail.
                b[bytes - 1] = 1;
                b[bytes - 2] = 0;
            }
            let n = BigUint::from_bytes_be(&b);
            let got = base2_round(&b);
            assert_eq!(got, Some(reference(&n)), "{n:x}");
            passed += usize::from(got == Some(true));
        }
        assert!(passed < 120);
    }

    #[test]
    fn passes_primes_and_rejects_pseudoprime_free_composites() {
        // 2^521 - 1 is prime but 9 limbs wide: no fast width.
        let p521: BigUint = (BigUint::from(1u32) << 521u32) - 1u32;
        assert_eq!(base2_round(&p521.to_bytes_be()), None);
        // 2^1279 - 1 is prime, 20 limbs: no fast width either.
        let p1279: BigUint = (BigUint::from(1u32) << 1279u32) - 1u32;
        assert_eq!(base2_round(&p1279.to_bytes_be()), None);
        // Primes found by the full test at each fast width pass; their products
        // with small odd numbers (still of that width) do not.
        for bits in [512u32, 1024, 1536, 2048] {
            use crypto_primes::hazmat::{SetBits, SmallFactorsSieveFactory};
            use crypto_primes::{is_prime, sieve_and_find, Flavor};
            let mut rng = ChaCha20Rng::from_seed([bits as u8; 32]);
            let factory = SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb)
                .expect("valid sieve");
            let p: rsa::BoxedUint =
                sieve_and_find(&mut rng, factory, |_, c| is_prime(Flavor::Any, c))
                    .expect("search runs")
                    .expect("a prime");
            let be = p.to_be_bytes();
            assert_eq!(base2_round(&be), Some(true), "{bits}-bit prime");
            let n = BigUint::from_bytes_be(&be);
            let composite = (&n >> 2u32) * 3u32;
            let composite = if composite.bit(0) {
                composite
            } else {
                composite + 1u32
            };
            assert_eq!(
                base2_round(&composite.to_bytes_be()),
                Some(reference(&composite)),
            );
        }
    }

    // The Lucas test. Every number below goes through `agrees`, which holds our
    // base search and decision to the crate's; the groups differ in which part of
    // the test their numbers reach.

    use crypto_bigint::{BoxedUint, Odd};
    use crypto_primes::hazmat::{
        lucas_test, AStarBase, LucasBase as _, LucasCheck, Primality, SetBits,
        SmallFactorsSieveFactory,
    };
    use crypto_primes::{is_prime, sieve_and_find, Flavor};

    const WIDTHS: [u32; 4] = [512, 1024, 1536, 2048];

    fn limbs_of<const N: usize>(n: &BigUint) -> [u64; N] {
        let mut m = [0u64; N];
        for (i, d) in n.iter_u64_digits().enumerate() {
            m[i] = d;
        }
        m
    }

    fn big(words: &[u64]) -> BigUint {
        words
            .iter()
            .rev()
            .fold(BigUint::from(0u32), |acc, w| (acc << 64u32) + *w)
    }

    /// Our base search, in the crate's terms, and our outcome for `n`.
    fn ours(n: &BigUint) -> (Base, Lucas) {
        fn at<const N: usize>(n: &BigUint) -> (Base, Lucas) {
            let mont = Mont::new(limbs_of::<N>(n)).expect("odd, full width");
            let base = match mont.a_star_base() {
                LucasBase::Found { p, q } => Ok((p, q.unsigned_abs(), q < 0)),
                LucasBase::Composite => Err(Primality::Composite),
                LucasBase::Unknown => panic!("no base for {n:x}"),
            };
            (base, mont.lucas_bpsw21())
        }
        match n.iter_u64_digits().len() {
            8 => at::<8>(n),
            16 => at::<16>(n),
            24 => at::<24>(n),
            32 => at::<32>(n),
            _ => panic!("not a fixed width: {n:x}"),
        }
    }

    /// Asserts that our base search and decision on `n` are the crate's, and that
    /// `lucas_bpsw21` reports that decision; returns our outcome.
    fn agrees(n: &BigUint, what: &str) -> Lucas {
        agreed_base_and_outcome(n, what).1
    }

    type Base = Result<(u64, u64, bool), Primality>;

    fn agreed_base_and_outcome(n: &BigUint, what: &str) -> (Base, Lucas) {
        let odd: Odd<BoxedUint> =
            Option::from(Odd::new(BoxedUint::from_be_slice_vartime(&n.to_bytes_be())))
                .expect("odd");
        let (base, outcome) = ours(n);
        assert_eq!(base, AStarBase.generate(&odd), "{what}: base for {n:x}");
        let theirs = !lucas_test(odd, AStarBase, LucasCheck::Bpsw21).is_composite();
        assert_eq!(
            outcome == Lucas::ProbablyPrime,
            theirs,
            "{what}: {n:x} ({outcome:?})"
        );
        assert_eq!(
            lucas_bpsw21(&n.to_bytes_be()),
            Some(theirs),
            "{what}: {n:x}"
        );
        (base, outcome)
    }

    /// An odd number of exactly `bits` bits.
    fn random_odd(rng: &mut ChaCha20Rng, bits: u32) -> BigUint {
        let mut b = vec![0u8; bits.div_ceil(8) as usize];
        rng.fill_bytes(&mut b);
        let n = BigUint::from_bytes_be(&b) >> (8 * b.len() as u32 - bits);
        n | (BigUint::from(1u32) << (bits - 1)) | BigUint::from(1u32)
    }

    /// A prime found by the crate's own search and test, top two bits set.
    fn crate_prime(rng: &mut ChaCha20Rng, bits: u32) -> BigUint {
        let factory =
            SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb).expect("valid sieve");
        let p: BoxedUint = sieve_and_find(rng, factory, |_, c| is_prime(Flavor::Any, c))
            .expect("search runs")
            .expect("a prime");
        BigUint::from_bytes_be(&p.to_be_bytes())
    }

    /// The first `start + k·step` (k = 0, 1, …) with no factor below 1000 that
    /// passes the base-2 round: what the key search would hand the Lucas test.
    fn next_probable_prime(start: &BigUint, step: &BigUint) -> BigUint {
        let mut n = start.clone();
        loop {
            let small_factor = (3u32..1000)
                .step_by(2)
                .any(|f| (&n % f) == BigUint::from(0u32));
            if !small_factor && base2_round(&n.to_bytes_be()) == Some(true) {
                return n;
            }
            n += step;
        }
    }

    /// The product of the odd primes up to `limit`.
    fn odd_primorial(limit: u32) -> BigUint {
        (3..=limit)
            .filter(|k| (2..*k).take_while(|f| f * f <= *k).all(|f| k % f != 0))
            .fold(BigUint::from(1u32), |acc, p| acc * p)
    }

    /// `c + M·x` for a random `x`, of exactly `bits` bits and odd (`M` odd).
    fn in_class(rng: &mut ChaCha20Rng, bits: u32, c: &BigUint, m: &BigUint) -> BigUint {
        let top = BigUint::from(1u32) << (bits - 1);
        let low = &top / m + 1u32;
        let x = random_odd(rng, bits) % (&low - 4u32) + &low;
        let n = c + m * &x;
        let n = if n.bit(0) { n } else { n + m };
        assert_eq!(n.bits(), u64::from(bits));
        n
    }

    /// `mul(a, b)·R ≡ a·b (mod m)` at every width, with operands up to `m - 1`,
    /// in the assembly rows (where this processor has them) and the portable code.
    #[test]
    fn multiplication_is_montgomery_multiplication() {
        fn check_modulus<const N: usize>(rng: &mut ChaCha20Rng, m: &BigUint) {
            let mont = Mont::new(limbs_of::<N>(m)).expect("odd, full width");
            let r = BigUint::from(1u32) << (64 * N);
            let mut operands: Vec<BigUint> = vec![m - 1u32, BigUint::from(1u32), m >> 1u32];
            for _ in 0..4 {
                operands.push(random_odd(rng, 64 * N as u32) % m);
            }
            for a in &operands {
                for b in &operands {
                    let (la, lb) = (limbs_of::<N>(a), limbs_of::<N>(b));
                    let got = big(&mont.mul(&la, &lb));
                    assert!(&got < m, "reduced");
                    assert_eq!(
                        (&got * &r) % m,
                        (a * b) % m,
                        "m = {m:x}, a = {a:x}, b = {b:x}"
                    );
                    assert_eq!(big(&mont.mul_portable(&la, &lb)), got, "portable");
                }
            }
        }
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            let m = random_odd(rng, 64 * N as u32);
            check_modulus::<N>(rng, &m);
            // All ones: every row carries into the limbs above it.
            let ones = (BigUint::from(1u32) << (64 * N)) - 1u32;
            check_modulus::<N>(rng, &ones);
        }
        let mut rng = ChaCha20Rng::from_seed([7u8; 32]);
        for _ in 0..4 {
            check::<8>(&mut rng);
            check::<16>(&mut rng);
            check::<24>(&mut rng);
            check::<32>(&mut rng);
        }
    }

    /// `one()` is `R mod m`, whether or not the top bit of `m` is set.
    #[test]
    fn one_is_r_mod_m() {
        fn check<const N: usize>(m: &BigUint) {
            let mont = Mont::new(limbs_of::<N>(m)).expect("odd, full width");
            let r = BigUint::from(1u32) << (64 * N);
            assert_eq!(big(&mont.one()), &r % m, "m = {m:x}");
        }
        let mut rng = ChaCha20Rng::from_seed([13u8; 32]);
        for _ in 0..8 {
            let m = random_odd(&mut rng, 1024);
            check::<16>(&m);
            // The top limb below 2^63 (and so the doubling path).
            check::<16>(&((&m >> 1u32) | BigUint::from(1u32)));
            check::<16>(&((&m >> 60u32) | BigUint::from(1u32) | (BigUint::from(1u32) << 960u32)));
        }
    }

    /// Long chains of squarings agree between the assembly rows and the portable
    /// code, from random starting points (the shape of a base-2 round).
    #[test]
    fn assembly_rows_agree_with_portable_code() {
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            let m = random_odd(rng, 64 * N as u32);
            let mont = Mont::new(limbs_of::<N>(&m)).expect("odd, full width");
            let x = limbs_of::<N>(&(random_odd(rng, 64 * N as u32) % &m));
            let (mut fast, mut portable) = (x, x);
            for _ in 0..2000 {
                fast = mont.mul(&fast, &fast);
                portable = mont.mul_portable(&portable, &portable);
                assert_eq!(fast, portable, "m = {m:x}");
            }
        }
        let mut rng = ChaCha20Rng::from_seed([11u8; 32]);
        for _ in 0..3 {
            check::<16>(&mut rng);
            check::<32>(&mut rng);
        }
    }

    /// Addition, subtraction, negation and small multiples against big integers,
    /// at the edges (0, 1, m - 1) and between.
    #[test]
    fn modular_helpers_match_big_integers() {
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            let m = random_odd(rng, 64 * N as u32);
            let mont = Mont::new(limbs_of::<N>(&m)).expect("odd, full width");
            let mut operands = vec![BigUint::from(0u32), BigUint::from(1u32), &m - 1u32];
            for _ in 0..3 {
                operands.push(random_odd(rng, 64 * N as u32) % &m);
            }
            for a in &operands {
                let wa = limbs_of::<N>(a);
                assert_eq!(big(&mont.neg(&wa)), (&m - a) % &m, "-{a:x} mod {m:x}");
                for c in [1u64, 2, 3, 5, 17, 20_003, u64::MAX >> 1] {
                    assert_eq!(big(&mont.mul_small(&wa, c)), (a * c) % &m, "{c}·{a:x}");
                }
                for b in &operands {
                    let wb = limbs_of::<N>(b);
                    assert_eq!(big(&mont.add(&wa, &wb)), (a + b) % &m, "{a:x} + {b:x}");
                    assert_eq!(big(&mont.sub(&wa, &wb)), (a + &m - b) % &m, "{a:x} - {b:x}");
                }
            }
        }
        let mut rng = ChaCha20Rng::from_seed([8u8; 32]);
        for _ in 0..3 {
            check::<8>(&mut rng);
            check::<16>(&mut rng);
            check::<24>(&mut rng);
            check::<32>(&mut rng);
        }
    }

    /// Against Euler's criterion `(a/p) ≡ a^((p-1)/2) (mod p)` for primes, and
    /// multiplicativity in the modulus for a product that shares factors with some
    /// `a` (symbol 0); `a` covers both signs, powers of 2 and odd composites.
    #[test]
    fn jacobi_symbol_matches_eulers_criterion() {
        let mut rng = ChaCha20Rng::from_seed([9u8; 32]);
        let primes: Vec<BigUint> = (0..4).map(|_| crate_prime(&mut rng, 256)).collect();
        let euler = |a: i64, p: &BigUint| -> i8 {
            let r = BigUint::from(a.unsigned_abs()) % p;
            let r = if a < 0 { (p - r) % p } else { r };
            let e = r.modpow(&((p - 1u32) >> 1u32), p);
            if e == BigUint::from(0u32) {
                0
            } else if e == BigUint::from(1u32) {
                1
            } else {
                -1
            }
        };
        let small = BigUint::from(3u32 * 5 * 7 * 11);
        let n = &primes[2] * &primes[3] * &small;
        let values: Vec<i64> = (1..=80)
            .flat_map(|a| [a, -a])
            .chain([1024, -4096, 20_003, -19_999, i64::from(u32::MAX)])
            .collect();
        for a in values {
            for p in &primes[..2] {
                let got = jacobi(a.unsigned_abs(), a < 0, &p.to_u64_digits());
                assert_eq!(got, euler(a, p), "({a}/{p:x})");
            }
            let want = euler(a, &primes[2])
                * euler(a, &primes[3])
                * [3u32, 5, 7, 11]
                    .iter()
                    .map(|f| euler(a, &BigUint::from(*f)))
                    .product::<i8>();
            let got = jacobi(a.unsigned_abs(), a < 0, &n.to_u64_digits());
            assert_eq!(got, want, "({a}/{n:x})");
        }
    }

    /// Random odd numbers (most rejected by the base search's symbol 0 or by the
    /// strong check), the numbers the key search hands the Lucas test (passing the
    /// base-2 round after the crate's sieve), primes found by the crate, and
    /// products of two of its primes. The primes between them use both kinds of
    /// A* base.
    #[test]
    fn lucas_agrees_with_the_crate_on_candidates_primes_and_products() {
        let mut rng = ChaCha20Rng::from_seed([11u8; 32]);
        let mut bases = Vec::new();
        for bits in WIDTHS {
            let mut outcomes = Vec::new();
            for _ in 0..12 {
                outcomes.push(agrees(&random_odd(&mut rng, bits), "random odd"));
            }
            assert!(outcomes.contains(&Lucas::Composite(Stage::Base)), "{bits}");
            assert!(
                outcomes.contains(&Lucas::Composite(Stage::Strong)),
                "{bits}"
            );
            for _ in 0..3 {
                let factory = SmallFactorsSieveFactory::new(Flavor::Any, bits, SetBits::TwoMsb)
                    .expect("valid sieve");
                let c: BoxedUint = sieve_and_find(&mut rng, factory, |_, c: &BoxedUint| {
                    base2_round(&c.to_be_bytes()) == Some(true)
                })
                .expect("search runs")
                .expect("a candidate");
                let c = BigUint::from_bytes_be(&c.to_be_bytes());
                let (base, outcome) = agreed_base_and_outcome(&c, "base-2 survivor");
                assert_eq!(outcome, Lucas::ProbablyPrime);
                bases.push(base.expect("a prime has a base"));
            }
            let p = crate_prime(&mut rng, bits);
            let (base, outcome) = agreed_base_and_outcome(&p, "crate prime");
            assert_eq!(outcome, Lucas::ProbablyPrime);
            bases.push(base.expect("a prime has a base"));
            for _ in 0..2 {
                let pq = crate_prime(&mut rng, bits / 2) * crate_prime(&mut rng, bits / 2);
                assert_ne!(agrees(&pq, "p·q"), Lucas::ProbablyPrime);
            }
        }
        // Both kinds of A* base: P = Q = 5 (for D = 5) and P = 1 with Q of either sign.
        assert!(bases.contains(&(5, 5, false)), "{bases:?}");
        assert!(bases.iter().any(|b| b.0 == 1 && b.2), "{bases:?}");
        assert!(bases.iter().any(|b| b.0 == 1 && !b.2), "{bases:?}");
    }

    /// Primes with exactly `s` trailing one bits (`n + 1 = d·2^s`): `s = 1` skips
    /// the squaring tail, large `s` runs it long; `s = 64` and `65` put `d`'s
    /// lowest bit at a limb edge.
    #[test]
    fn lucas_agrees_with_the_crate_on_primes_with_long_squaring_tails() {
        let mut rng = ChaCha20Rng::from_seed([12u8; 32]);
        for bits in WIDTHS {
            let tails: &[u32] = match bits {
                512 => &[1, 2, 3, 17, 63, 64, 65, 200],
                1024 => &[1, 64, 130],
                1536 => &[2, 65],
                _ => &[3, 129],
            };
            for &s in tails {
                // x·2^(s+1) + 2^s - 1 has exactly s trailing ones.
                let step = BigUint::from(1u32) << (s + 1);
                let low = (BigUint::from(1u32) << s) - 1u32;
                let x = random_odd(&mut rng, bits - s - 1);
                let n = next_probable_prime(&(x * &step + low), &step);
                assert_eq!(n.bits(), u64::from(bits));
                let ones = (0..).take_while(|i| n.bit(*i)).count();
                assert_eq!(ones, s as usize);
                assert_eq!(
                    agrees(&n, "s trailing ones"),
                    Lucas::ProbablyPrime,
                    "s = {s}"
                );
            }
        }
    }

    /// Where the base search ends early or late. A square has no `D` with symbol
    /// -1: a prime's square is caught by the square check at the 31st try, a
    /// random square usually by a symbol 0 first. For `n ≡ 1` modulo every odd prime
    /// to 61, each of the first 30 `D` (|D| ≤ 63) has `(D/n) = (n/|D|) = 1`, so the
    /// square check runs on a non-square and `D` (and `Q`) come out large; making `n`
    /// divisible by 61, 67 or 71 instead (and 1 modulo the smaller odd primes) ends
    /// the search with a symbol 0 just before or after that check.
    #[test]
    fn lucas_agrees_with_the_crate_where_the_base_search_ends_early_or_late() {
        let mut rng = ChaCha20Rng::from_seed([13u8; 32]);
        let one = BigUint::from(1u32);
        for bits in WIDTHS {
            // Squares.
            let p = crate_prime(&mut rng, bits / 2);
            assert_eq!(
                agrees(&(&p * &p), "prime squared"),
                Lucas::Composite(Stage::Base)
            );
            let r = random_odd(&mut rng, bits / 2);
            assert_eq!(
                agrees(&(&r * &r), "odd squared"),
                Lucas::Composite(Stage::Base)
            );

            // Late bases: composites, and a prime.
            let m = odd_primorial(61);
            let mut qs = Vec::new();
            for _ in 0..4 {
                let n = in_class(&mut rng, bits, &one, &m);
                let (base, outcome) = ours(&n);
                let (_, abs_q, _) = base.expect("a non-square with a base");
                assert!(abs_q > 15, "|D| > 63 gives |Q| > 15, got {abs_q}");
                qs.push(abs_q);
                assert_eq!(agrees(&n, "1 mod primes to 61"), outcome);
            }
            let start = in_class(&mut rng, bits, &one, &m);
            let prime = next_probable_prime(&start, &(&m << 1u32));
            assert_eq!(agrees(&prime, "late-base prime"), Lucas::ProbablyPrime);

            // A symbol 0 at try 29 (D = 61), 32 (D = -67) and 34 (D = -71).
            for f in [61u32, 67, 71] {
                let rest = odd_primorial(f - 1);
                // n ≡ 1 (mod rest) and n ≡ 0 (mod f).
                let t = (BigUint::from(f) - 1u32)
                    * rest.modpow(&BigUint::from(f - 2), &BigUint::from(f))
                    % f;
                let c = &one + &rest * t;
                assert_eq!(&c % f, BigUint::from(0u32));
                let n = in_class(&mut rng, bits, &c, &(&rest * f));
                assert_eq!(
                    agrees(&n, "late symbol 0"),
                    Lucas::Composite(Stage::Base),
                    "{f}"
                );
            }
        }
    }

    /// Composites built to get past the first checks. `n = p·q` with `p`, `q = 2p - 1`
    /// prime and `p ≡ 1 (mod 4)` has `p - 1 | q - 1`, and `n - 1 = (2p + 1)(p - 1)`; those
    /// below are strong base-2 pseudoprimes, the composites the base-2 round lets
    /// through to the Lucas test. Twin-prime products `q(q + 2)` are Lucas pseudoprimes
    /// (`U_(n+1) ≡ 0`) when `(D/q) = -1`; some also pass the strong check and are
    /// rejected only by `V_(n+1) = 2Q`. The factors were found offline by a search
    /// over random starts (each `n` is exactly 512, 1024, 1536 or 2048 bits).
    #[test]
    fn lucas_agrees_with_the_crate_on_pseudoprimes() {
        let hex = |s: &str| BigUint::parse_bytes(s.as_bytes(), 16).expect("hex");
        for p in SPRP_P {
            let p = hex(p);
            let n = &p * ((&p << 1u32) - 1u32);
            assert_eq!(
                base2_round(&n.to_bytes_be()),
                Some(true),
                "{n:x} is a base-2 sprp"
            );
            assert!(reference(&n));
            assert_ne!(agrees(&n, "p(2p - 1)"), Lucas::ProbablyPrime);
        }
        for (q, stage) in TWIN_Q {
            let q = hex(q);
            let n = &q * (&q + 2u32);
            assert_eq!(agrees(&n, "q(q + 2)"), Lucas::Composite(*stage), "{n:x}");
        }
    }

    /// `p` with `p` and `2p - 1` prime and `p(2p - 1)` a strong base-2 pseudoprime
    /// of 512, 1024, 1536 and 2048 bits.
    pub(super) const SPRP_P: [&str; 4] = [
        "878bfae2414c343c1027c4d1c386bbc4cd613e30d8f16adf91b7584a2266d831",
        "b3511f8db8b6d8fe442e3d437204e52db2221a58008a05a6c4647159c324c9859b810e766ec9d28663ca828dd5f4b3b2e4b06ce60741c7a87ce42c821807d305",
        "a6e0439d6ec9d28663ca828dd5f4b3b2e4b06ce60741c7a87ce42c8218072e8c35bf992dc9e9c616612e7696a6cecc1b78e510617311d8a3c2ce6f447ed4d57b1e2feb89414c343c1027c4d1c386bbc4cd613e30d8f16adf91b7584a226ac755",
        "b3511f8db8b6d8fe442e3d437204e52db2221a58008a05a6c4647159c324c9859b810e766ec9d28663ca828dd5f4b3b2e4b06ce60741c7a87ce42c8218072e8c35bf992dc9e9c616612e7696a6cecc1b78e510617311d8a3c2ce6f447ed4d57b1e2feb89414c343c1027c4d1c386bbc4cd613e30d8f16adf91b7584a22698ce5",
    ];

    /// `q` with `q` and `q + 2` prime, and the check that rejects `q(q + 2)`.
    const TWIN_Q: &[(&str, Stage)] = &[
        ("f1b2bc839478e58243f8e5a8d40020433ed2c424148e439784cefd17c01f6f1b", Stage::Strong),
        ("f1b2bc839478e58243f8e5a8d40020433ed2c424148e439784cefd17c022833d", Stage::LucasV),
        ("f114c160d042c42e4225dc5278a9b8c4b877f2f79a02282681ca65832362cdbbc45815a2d55323c1932d5a653b393cdd30d80bc7ceef16950fbbd7c87ae7ccc5", Stage::Strong),
        ("ba7f0f9d9130b1ef4e9c10d637661f31463dcfde99a0059eb41086c42f15386d4edd2b17f87b515d0c84e30062730f69fc78361321d4b2ce9ed5407ae0819f89", Stage::LucasV),
        ("fa43950e724194f911148d3a742d53154e8584e1c538c5807a17e571c5989f59c31c1f5d111d026d915a510edfe2d55eaa7d3a9b5462fb240cb74033de295c0f4b7bc125dd49a04c3d80f8557071951fec151ffaa1dae0d4ddc20d046c68776d", Stage::LucasV),
        ("fa43950e724194f911148d3a742d53154e8584e1c538c5807a17e571c5989f59c31c1f5d111d026d915a510edfe2d55eaa7d3a9b5462fb240cb74033de295c0f4b7bc125dd49a04c3d80f8557071951fec151ffaa1dae0d4ddc20d046c69105b", Stage::Strong),
        ("ebaac0a1e5ab83e3233f0a242c1bef2880a9b1a96a358885d8a70ed53b387135e33e041bb3beb859edab77bcba170c99e24a2ca14b8cde193fb79f0f8b1a0807dd146759da016cb948242382d3d7940df3802bb526eca2dc0d0396b0db5ded8bcab650b7497a98762efd47d3b7e2fc7ee2329fc461a68fb3117559ce32c70653", Stage::Strong),
        ("b927f37732b954d6111bcdf862b3567819ca19ad7c796b577c29e04cf2654fa7cd951871375f02524818abc7bdca1c6de495f8be35167b75f2384db23f2bab4c0537455f6a9e9919bcd16331fd69744bd3cb2a357f5eb698d788f5889af26df9112d3b55f6723ecc6d83f83f8a9e74cf6c270347c8da094ac43c67815b7dcf4d", Stage::LucasV),
    ];

    #[test]
    fn lucas_has_no_fixed_width_for_other_sizes() {
        let p521: BigUint = (BigUint::from(1u32) << 521u32) - 1u32;
        assert_eq!(lucas_bpsw21(&p521.to_bytes_be()), None);
        let p1279: BigUint = (BigUint::from(1u32) << 1279u32) - 1u32;
        assert_eq!(lucas_bpsw21(&p1279.to_bytes_be()), None);
    }
}
