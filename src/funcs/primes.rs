//! A fast first test for RSA prime candidates: one Miller–Rabin round to base 2 in
//! variable-time Montgomery arithmetic of fixed width.
//!
//! Why it exists: `genCA`, `genSelfSignedCert` and `genPrivateKey "rsa"` draw
//! 2048-bit keys, and nearly all of that time is spent rejecting composite
//! candidates that survive the small-prime sieve, about thirty per prime. The
//! full test (`crypto_primes::is_prime`: base-2 Miller–Rabin plus a strong Lucas
//! test) runs in constant time, which a key nobody will use does not need. This
//! round rejects those composites at a fraction of the cost and the full test then
//! confirms the survivor. A base-2 round never rejects a prime, so the primes found,
//! and therefore every key drawn from a given seed, are the same as without it.

/// `None` when the candidate's width has no fixed-width implementation (there are
/// ones for 512, 1024, 1536 and 2048 bits, the primes of 1024- to 4096-bit keys);
/// otherwise `Some(false)` for a certain composite and `Some(true)` for a probable
/// prime. `be` is the candidate, big-endian, and must be odd.
pub(crate) fn base2_round(be: &[u8]) -> Option<bool> {
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
        8 => Some(round::<8>(&words)),
        16 => Some(round::<16>(&words)),
        24 => Some(round::<24>(&words)),
        32 => Some(round::<32>(&words)),
        _ => None,
    }
}

fn round<const N: usize>(words: &[u64]) -> bool {
    let mut m = [0u64; N];
    m.copy_from_slice(&words[..N]);
    match Mont::new(m) {
        Some(mont) => mont.miller_rabin_base2(),
        None => false,
    }
}

/// Arithmetic modulo an odd `m` of `N` little-endian limbs, in Montgomery form
/// (`x` stands for `x·R mod m`, `R = 2^(64N)`).
struct Mont<const N: usize> {
    m: [u64; N],
    /// `-m⁻¹ mod 2^64`.
    minv: u64,
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

    /// `a²·R⁻¹ mod m`, for `a < m`: the full square first, each cross product
    /// computed once and doubled, then `N` reduction rows (separated operand
    /// scanning). Squaring is all the base-2 round does, and this takes about three
    /// quarters of the multiplications of a general product.
    fn sqr(&self, a: &[u64; N]) -> [u64; N] {
        // Room for the 2N-limb square of the widest modulus (32 limbs).
        let mut buf = [0u64; 64];
        let t = &mut buf[..2 * N];
        for i in 0..N {
            let mut carry: u64 = 0;
            for j in i + 1..N {
                let s =
                    u128::from(t[i + j]) + u128::from(a[i]) * u128::from(a[j]) + u128::from(carry);
                t[i + j] = s as u64;
                carry = (s >> 64) as u64;
            }
            t[i + N] = carry;
        }
        let mut top = 0u64;
        for x in t.iter_mut() {
            let next = *x >> 63;
            *x = (*x << 1) | top;
            top = next;
        }
        let mut carry = false;
        for i in 0..N {
            let sq = u128::from(a[i]) * u128::from(a[i]);
            let (lo, c1) = t[2 * i].overflowing_add(sq as u64);
            let (lo, c2) = lo.overflowing_add(u64::from(carry));
            t[2 * i] = lo;
            let (hi, c3) = t[2 * i + 1].overflowing_add((sq >> 64) as u64);
            let (hi, c4) = hi.overflowing_add(u64::from(c1 | c2));
            t[2 * i + 1] = hi;
            carry = c3 | c4;
        }
        // a < m < R, so a² < R² fits in 2N limbs: neither `top` nor `carry` is set.
        let mut extra: u64 = 0;
        for i in 0..N {
            let q = t[i].wrapping_mul(self.minv);
            let mut carry: u64 = 0;
            for j in 0..N {
                let s = u128::from(t[i + j])
                    + u128::from(q) * u128::from(self.m[j])
                    + u128::from(carry);
                t[i + j] = s as u64;
                carry = (s >> 64) as u64;
            }
            // The row's carry lands on limb i + N; what overflows from there is
            // owed to limb i + N + 1, which the next row adds.
            let s = u128::from(t[i + N]) + u128::from(carry) + u128::from(extra);
            t[i + N] = s as u64;
            extra = (s >> 64) as u64;
        }
        let mut r = [0u64; N];
        r.copy_from_slice(&t[N..]);
        if extra != 0 || self.at_least_m(&r) {
            self.sub_m(&mut r);
        }
        r
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
    /// `2^d ≡ 1` or `2^(d·2^r) ≡ -1 (mod m)` for some `r < s`.
    fn miller_rabin_base2(&self) -> bool {
        let bits = 64 * N - self.m[N - 1].leading_zeros() as usize;
        // s: trailing zero bits of m - 1 (m > 1 here, so m - 1 has a set bit).
        let Some(s) = (1..bits).find(|&k| self.m_minus_one_bit(k)) else {
            return false;
        };
        // R mod m: 1 doubled 64N times.
        let mut one = [0u64; N];
        one[0] = 1;
        for _ in 0..64 * N {
            self.double(&mut one);
        }
        let mut minus_one = self.m;
        let mut borrow = false;
        for (x, o) in minus_one.iter_mut().zip(&one) {
            let (d, b1) = x.overflowing_sub(*o);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            *x = d;
            borrow = b1 | b2;
        }
        // 2^d by left-to-right square-and-double over the bits of d = (m-1) >> s.
        let mut y = one;
        for k in (s..bits).rev() {
            y = self.sqr(&y);
            if self.m_minus_one_bit(k) {
                self.double(&mut y);
            }
        }
        if y == one || y == minus_one {
            return true;
        }
        for _ in 1..s {
            y = self.sqr(&y);
            if y == minus_one {
                return true;
            }
            if y == one {
                return false;
            }
        }
        false
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

    /// `sqr(a)·R ≡ a² (mod m)` at every width, with operands up to `m - 1`.
    #[test]
    fn squaring_is_montgomery_squaring() {
        fn check<const N: usize>(rng: &mut ChaCha20Rng) {
            let mut b = vec![0u8; 8 * N];
            rng.fill_bytes(&mut b);
            b[0] |= 0x80;
            b[8 * N - 1] |= 1;
            let m = BigUint::from_bytes_be(&b);
            let mut limbs = [0u64; N];
            for (i, chunk) in b.rchunks(8).enumerate() {
                limbs[i] = u64::from_be_bytes(chunk.try_into().expect("8 bytes"));
            }
            let mont = Mont::new(limbs).expect("odd, full width");
            let r = BigUint::from(1u32) << (64 * N);
            let mut operands: Vec<BigUint> = vec![&m - 1u32, BigUint::from(1u32), &m >> 1u32];
            for _ in 0..5 {
                rng.fill_bytes(&mut b);
                operands.push(BigUint::from_bytes_be(&b) % &m);
            }
            for a in operands {
                let mut words = [0u64; N];
                for (i, d) in a.iter_u64_digits().enumerate() {
                    words[i] = d;
                }
                let got = mont.sqr(&words);
                let got = got
                    .iter()
                    .rev()
                    .fold(BigUint::from(0u32), |acc, w| (acc << 64u32) + *w);
                assert!(got < m, "reduced");
                assert_eq!((&got * &r) % &m, (&a * &a) % &m, "m = {m:x}, a = {a:x}");
            }
        }
        let mut rng = ChaCha20Rng::from_seed([5u8; 32]);
        for _ in 0..10 {
            check::<8>(&mut rng);
            check::<16>(&mut rng);
            check::<24>(&mut rng);
            check::<32>(&mut rng);
        }
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
}
