//! A second sieve over the RSA prime search: it rejects candidates with a prime
//! factor between the last prime of `crypto_primes`' own sieve (17863) and
//! [`BOUND`], before they reach the base-2 Miller–Rabin round.
//!
//! Why: about forty candidates per 1024-bit prime survive the crate's sieve, and
//! each costs a modular exponentiation, nearly always to learn that it is
//! composite. A fifth to a quarter of them have a factor below `BOUND`, which a
//! bitmap finds for almost nothing. The seeded keys must not change, so this sieve
//! only ever answers "certainly composite" (a proper factor ≤ `BOUND` divides the
//! candidate, so the crate's test would reject it too); every other candidate goes
//! on to the same test as before, and the first one accepted, the prime, is the
//! same.
//!
//! The crate's candidates in one search are `base + incr` for a fixed base and an
//! increment that grows by 2, so the residues of the first candidate modulo the
//! sieving primes are computed once ([`DeepSieve::restart`]) and each later
//! candidate is a bit lookup at its distance from the first. Candidates that do
//! not fit that pattern (the crate drew a new base) simply start over.

use std::sync::OnceLock;

/// The largest prime that divides no candidate the crate hands out: its sieve
/// already removes multiples of every prime up to it.
const CRATE_LAST_PRIME: u32 = 17863;

/// Sieving primes go up to this bound. The survivors fall only like 1/ln `BOUND`
/// while the residue work grows with the number of primes: over 200 seeds of
/// 1024-bit primes, 2^18 left 33.6 of the 42.6 base-2 rounds per prime, 2^19 31.8,
/// 2^20 30.3 and 2^21 28.8, and the time per prime was lowest at 2^19 and 2^20
/// (2^20 doubles the tables built on the first key).
pub(crate) const BOUND: u32 = 1 << 19;

/// Odd offsets per window. Below [`CRATE_LAST_PRIME`], so each sieving prime marks
/// at most one slot per window; a 1024-bit search almost never walks past the
/// first window (the mean distance between primes is about 710, i.e. 355 slots).
const SLOTS: u64 = 16384;

/// How many windows a search may slide ahead before starting over is cheaper.
const MAX_SLIDE: u64 = 4;

/// The sieving primes, and the products of consecutive ones that fit a word: a
/// residue of a long candidate costs one word division per limb, so dividing by
/// a product of three primes and then reducing the word per prime is about three
/// times cheaper than dividing by each prime.
struct Tables {
    primes: Vec<u32>,
    /// `floor(2^64 / p)` per prime, to reduce a word modulo `p` with two products.
    magic: Vec<u64>,
    groups: Vec<Group>,
}

/// A product of consecutive sieving primes `primes[first..first + len]`, shifted
/// so its top bit is set (the division below wants a normalised divisor; a
/// residue modulo the shifted product still reduces to the right one modulo each
/// prime, since the product divides it).
#[derive(Clone, Copy)]
struct Group {
    divisor: u64,
    /// `floor((2^128 - 1) / divisor) - 2^64` (Möller and Granlund, "Improved
    /// division by invariant integers", 2011).
    reciprocal: u64,
    first: u32,
    len: u32,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let primes = odd_primes_up_to(BOUND)
            .into_iter()
            .filter(|p| *p > CRATE_LAST_PRIME)
            .collect::<Vec<_>>();
        let magic = primes.iter().map(|p| magic_of(*p)).collect();
        let mut groups = Vec::new();
        let mut first = 0;
        while first < primes.len() {
            let mut product = 1u64;
            let mut len = 0;
            while let Some(p) = primes.get(first + len) {
                match product.checked_mul(u64::from(*p)) {
                    Some(next) => product = next,
                    None => break,
                }
                len += 1;
            }
            let divisor = product << product.leading_zeros();
            let reciprocal =
                ((u128::from(!divisor) << 64) | u128::from(u64::MAX)) / u128::from(divisor);
            groups.push(Group {
                divisor,
                // Below 2^64 because the divisor's top bit is set.
                reciprocal: reciprocal as u64,
                first: first as u32,
                len: len as u32,
            });
            first += len;
        }
        Tables {
            primes,
            magic,
            groups,
        }
    })
}

/// Odd primes up to `limit`, by the sieve of Eratosthenes over odd numbers. The
/// bits fit the first-level cache where a byte per number would not, which makes
/// this several times faster; it runs once per process, on the first key's path.
fn odd_primes_up_to(limit: u32) -> Vec<u32> {
    let limit = limit as usize;
    // Bit i stands for 2i + 1.
    let n = limit / 2 + 1;
    let mut composite = vec![0u64; n.div_ceil(64)];
    let mut p = 3;
    while p * p <= limit {
        if composite[p / 128] >> (p / 2 % 64) & 1 == 0 {
            let mut i = p * p / 2;
            while i < n {
                composite[i / 64] |= 1 << (i % 64);
                i += p;
            }
        }
        p += 2;
    }
    let mut primes = Vec::with_capacity(limit / 12);
    for (w, word) in composite.iter().enumerate() {
        let mut free = !word;
        while free != 0 {
            let i = w * 64 + free.trailing_zeros() as usize;
            free &= free - 1;
            if i >= 1 && 2 * i < limit {
                primes.push((2 * i + 1) as u32);
            }
        }
    }
    primes
}

/// `floor(2^64 / p)` for an odd `p > 1`, from a floating-point estimate (a
/// division per prime would cost more than the rest of the tables).
fn magic_of(p: u32) -> u64 {
    let p128 = u128::from(p);
    let mut m = (18_446_744_073_709_551_616.0 / f64::from(p)) as u64;
    // The estimate is within one of the quotient for the primes sieved here.
    while u128::from(m) * p128 > u128::from(u64::MAX) {
        m -= 1;
    }
    while (u128::from(m) + 1) * p128 <= u128::from(u64::MAX) {
        m += 1;
    }
    m
}

/// The remainder of the two-word `(hi, lo)` by a normalised `divisor`, `hi <
/// divisor` (Algorithm 4 of Möller and Granlund).
#[inline(always)]
fn rem_2by1(hi: u64, lo: u64, divisor: u64, reciprocal: u64) -> u64 {
    let q = (u128::from(reciprocal) * u128::from(hi))
        .wrapping_add((u128::from(hi) << 64) | u128::from(lo));
    let q1 = ((q >> 64) as u64).wrapping_add(1);
    let q0 = q as u64;
    let mut r = lo.wrapping_sub(q1.wrapping_mul(divisor));
    if r > q0 {
        r = r.wrapping_add(divisor);
    }
    if r >= divisor {
        r -= divisor;
    }
    r
}

/// `x mod p` given `magic = floor(2^64 / p)`: the estimated quotient is at most
/// one short.
#[inline(always)]
fn rem_word(x: u64, p: u32, magic: u64) -> u32 {
    let q = ((u128::from(x) * u128::from(magic)) >> 64) as u64;
    let mut r = x.wrapping_sub(q.wrapping_mul(u64::from(p)));
    if r >= u64::from(p) {
        r -= u64::from(p);
    }
    r as u32
}

/// The sieve state of one prime search.
pub(crate) struct DeepSieve {
    /// The candidate the slots count from (little-endian limbs); empty before
    /// the first candidate.
    origin: Vec<u64>,
    /// The slot of the window's first bit; slot `k` is `origin + 2k`.
    window: u64,
    /// Bit `k - window` is set when slot `k` has a sieving prime as a factor.
    marks: Vec<u64>,
    /// Per sieving prime, its next multiple's slot, counted from the end of the
    /// current window.
    next: Vec<u32>,
}

impl Default for DeepSieve {
    fn default() -> Self {
        Self::new()
    }
}

impl DeepSieve {
    pub(crate) fn new() -> DeepSieve {
        DeepSieve {
            origin: Vec::new(),
            window: 0,
            marks: vec![0; (SLOTS / 64) as usize],
            next: Vec::new(),
        }
    }

    /// Whether the odd candidate `c` (little-endian limbs) certainly has a prime
    /// factor in `(17863, BOUND]` and is larger than it, hence is composite.
    /// `false` says nothing.
    pub(crate) fn rejects(&mut self, c: &[u64]) -> bool {
        // Below 2^64 a candidate could be a sieving prime itself; RSA primes
        // never are, so the sieve simply stays out of the way there.
        if c.iter().skip(1).all(|w| *w == 0) || c.first().is_none_or(|w| w & 1 == 0) {
            return false;
        }
        let slot = match self.slot_of(c) {
            Some(slot) if slot >= self.window && slot < self.window + SLOTS * MAX_SLIDE => slot,
            _ => {
                self.restart(c);
                0
            }
        };
        while slot >= self.window + SLOTS {
            self.slide();
        }
        let bit = slot - self.window;
        self.marks[(bit / 64) as usize] >> (bit % 64) & 1 == 1
    }

    /// `(c - origin) / 2` when `c` is a little above the origin.
    fn slot_of(&self, c: &[u64]) -> Option<u64> {
        if self.origin.is_empty() {
            return None;
        }
        let mut borrow = false;
        let mut low = 0;
        for i in 0..c.len().max(self.origin.len()) {
            let a = c.get(i).copied().unwrap_or(0);
            let b = self.origin.get(i).copied().unwrap_or(0);
            let (d, b1) = a.overflowing_sub(b);
            let (d, b2) = d.overflowing_sub(u64::from(borrow));
            borrow = b1 || b2;
            if i == 0 {
                low = d;
            } else if d != 0 {
                return None;
            }
        }
        (!borrow && low & 1 == 0).then_some(low / 2)
    }

    /// Makes `c` the origin: its residues modulo every sieving prime give each
    /// prime's first slot, and the first window gets marked.
    fn restart(&mut self, c: &[u64]) {
        let t = tables();
        self.origin.clear();
        self.origin.extend_from_slice(c);
        self.window = 0;
        self.marks.fill(0);
        self.next.resize(t.primes.len(), 0);

        // Four groups at a time: one group's division chain is latency-bound,
        // four independent ones keep the multiplier busy.
        let mut chunks = t.groups.chunks_exact(4);
        for quad in chunks.by_ref() {
            let mut r = [0u64; 4];
            for &limb in c.iter().rev() {
                for j in 0..4 {
                    r[j] = rem_2by1(r[j], limb, quad[j].divisor, quad[j].reciprocal);
                }
            }
            for j in 0..4 {
                self.mark_group(t, quad[j], r[j]);
            }
        }
        for g in chunks.remainder() {
            let mut r = 0;
            for &limb in c.iter().rev() {
                r = rem_2by1(r, limb, g.divisor, g.reciprocal);
            }
            self.mark_group(t, *g, r);
        }
    }

    /// `r` is the origin modulo (a multiple of) the group's product.
    #[inline(always)]
    fn mark_group(&mut self, t: &Tables, g: Group, r: u64) {
        let range = g.first as usize..(g.first + g.len) as usize;
        for i in range {
            let p = t.primes[i];
            let rp = rem_word(r, p, t.magic[i]);
            // The slot k with origin + 2k ≡ 0 (mod p): 2k ≡ -rp, and halving
            // modulo an odd p is a halving of the even one of -rp and -rp + p.
            let minus = if rp == 0 { 0 } else { p - rp };
            let k = if minus & 1 == 0 {
                minus / 2
            } else {
                (minus + p) / 2
            };
            self.next[i] = self.mark(k, p);
        }
    }

    /// Marks slot `k` (relative to the window, `k < p`) if the window holds it;
    /// returns the prime's next slot counted from the window's end.
    #[inline(always)]
    fn mark(&mut self, k: u32, p: u32) -> u32 {
        let mut k = u64::from(k);
        if k < SLOTS {
            self.marks[(k / 64) as usize] |= 1 << (k % 64);
            k += u64::from(p);
        }
        // p > SLOTS, so one mark per window at most and k ≥ SLOTS here.
        (k - SLOTS) as u32
    }

    fn slide(&mut self) {
        let t = tables();
        self.window += SLOTS;
        self.marks.fill(0);
        for i in 0..self.next.len() {
            self.next[i] = self.mark(self.next[i], t.primes[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{Rng, SeedableRng};

    fn limbs(n: &BigUint, len: usize) -> Vec<u64> {
        let mut v = n.to_u64_digits();
        v.resize(len, 0);
        v
    }

    #[test]
    fn primes_and_groups_cover_the_range_once() {
        let t = tables();
        assert_eq!(t.primes.first(), Some(&17881));
        assert_eq!(t.primes.last(), Some(&524287));
        // π(2^19) = 43390, π(17863) = 2048 (with 2).
        assert_eq!(t.primes.len(), 43390 - 2048);
        let mut next = 0;
        for g in &t.groups {
            assert_eq!(g.first as usize, next);
            let product: u128 = t.primes[next..next + g.len as usize]
                .iter()
                .map(|p| u128::from(*p))
                .product();
            assert!(product < 1 << 64);
            assert_eq!(u128::from(g.divisor) % product, 0);
            assert!(g.divisor >> 63 == 1);
            next += g.len as usize;
        }
        assert_eq!(next, t.primes.len());
    }

    #[test]
    fn helpers_reduce_like_the_remainder_operator() {
        let mut rng = ChaCha20Rng::from_seed([5u8; 32]);
        let t = tables();
        for g in t.groups.iter().step_by(97) {
            for _ in 0..20 {
                let hi = rng.next_u64() % g.divisor;
                let lo = rng.next_u64();
                let want =
                    (((u128::from(hi) << 64) | u128::from(lo)) % u128::from(g.divisor)) as u64;
                assert_eq!(rem_2by1(hi, lo, g.divisor, g.reciprocal), want);
            }
        }
        for (i, p) in t.primes.iter().enumerate().step_by(31) {
            assert_eq!(t.magic[i], u64::MAX / u64::from(*p));
            for x in [0, 1, u64::MAX, u64::MAX - 1, rng.next_u64(), u64::from(*p)] {
                assert_eq!(u64::from(rem_word(x, *p, t.magic[i])), x % u64::from(*p));
            }
        }
    }

    /// Walks odd numbers from random bases, as the crate's sieve does (with
    /// gaps, and now and then a jump past several windows or to a new base), and
    /// checks every answer against trial division by the sieving primes: the
    /// base's remainders come from num-bigint, a candidate's from its offset.
    #[test]
    fn window_sieve_agrees_with_trial_division() {
        let mut rng = ChaCha20Rng::from_seed([9u8; 32]);
        let primes = &tables().primes;
        for (bits, walk) in [(1024u64, 1200u64), (512, 500), (2048, 400), (65, 300)] {
            let len = bits.div_ceil(64) as usize;
            let mut sieve = DeepSieve::new();
            let mut rejected = 0;
            for _base in 0..2 {
                let mut bytes = vec![0u8; (bits / 8 + 1) as usize];
                rng.fill_bytes(&mut bytes);
                let mut base = BigUint::from_bytes_le(&bytes) % (BigUint::from(1u32) << bits);
                base |= BigUint::from(1u32) << (bits - 1);
                base |= BigUint::from(1u32);
                let residues: Vec<u64> = primes
                    .iter()
                    .map(|p| {
                        (&base % BigUint::from(*p))
                            .iter_u64_digits()
                            .next()
                            .unwrap_or(0)
                    })
                    .collect();
                let mut offset = 0u64;
                for _ in 0..walk {
                    offset += 2 * if rng.next_u32() % 50 == 0 {
                        u64::from(rng.next_u32() % 40_000)
                    } else {
                        u64::from(rng.next_u32() % 8)
                    };
                    let c = &base + offset;
                    let want = primes
                        .iter()
                        .zip(&residues)
                        .any(|(p, r)| (r + offset) % u64::from(*p) == 0);
                    let got = sieve.rejects(&limbs(&c, len));
                    assert_eq!(got, want, "{bits} bits, offset {offset}");
                    rejected += usize::from(got);
                }
            }
            assert!(rejected > 0, "{bits} bits: nothing rejected");
        }
    }

    #[test]
    fn candidates_at_or_below_a_word_pass() {
        let mut sieve = DeepSieve::new();
        // 17881 and 17881 * 17891 are (products of) sieving primes.
        assert!(!sieve.rejects(&[17881, 0]));
        assert!(!sieve.rejects(&[17881 * 17891]));
        assert!(!sieve.rejects(&[]));
        // Even numbers never come from the crate; leave them to the real test.
        assert!(!sieve.rejects(&[2 * 17881, 1]));
        assert!(sieve.rejects(&[17881 * 17891, 17881]));
    }
}
