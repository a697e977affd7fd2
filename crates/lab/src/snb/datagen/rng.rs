//! The generator's random numbers: one small, seedable generator (xoshiro256**, seeded
//! through SplitMix64) whose sequence depends on nothing but its seed, so a seed names its
//! files on every build, and the few distributions the generator draws from.

/// A deterministic pseudo-random generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

/// SplitMix64's step: a well-mixed 64-bit value from a counter.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator for `seed` and a stream name, so the generator's phases draw independent
    /// sequences and a change in one phase's draws leaves the others' alone.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut z = mix(seed ^ mix(stream));
        let mut s = [0u64; 4];
        for slot in &mut s {
            z = mix(z);
            *slot = z;
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform index into a slice of length `n` (which must not be empty).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Uniform in `[lo, hi)` (`lo` when the range is empty).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below((hi - lo) as u64) as i64
    }

    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A standard normal deviate (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.unit();
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// An exponential deviate of the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -(1.0 - self.unit()).ln() * mean
    }

    /// A count with the given mean and a long right tail: a log-normal of spread `sigma`,
    /// rounded.
    pub fn skewed_count(&mut self, mean: f64, sigma: f64) -> usize {
        if mean <= 0.0 {
            return 0;
        }
        let x = (sigma * self.normal() - sigma * sigma / 2.0).exp() * mean;
        let whole = x.floor();
        let count = whole + if self.unit() < x - whole { 1.0 } else { 0.0 };
        count as usize
    }

    /// A rank in `[0, n)` drawn with a Zipf-like skew of exponent `s` (> 0, != 1), by
    /// inverting the continuous power law's distribution function.
    pub fn zipf(&mut self, n: usize, s: f64) -> usize {
        if n <= 1 {
            return 0;
        }
        let a = 1.0 - s;
        let top = (n as f64 + 1.0).powf(a);
        let x = (1.0 + self.unit() * (top - 1.0)).powf(1.0 / a) - 1.0;
        (x as usize).min(n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_sequence_and_streams_differ() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7, 1).next_u64()).collect();
        let mut r = Rng::new(7, 1);
        let b: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(a[0], b[0]);
        assert_ne!(Rng::new(7, 1).next_u64(), Rng::new(7, 2).next_u64());
    }

    #[test]
    fn draws_stay_in_their_ranges() {
        let mut r = Rng::new(1, 0);
        for _ in 0..10_000 {
            assert!(r.below(10) < 10);
            assert!((0.0..1.0).contains(&r.unit()));
            assert!(r.zipf(50, 1.3) < 50);
            let x = r.range(-5, 5);
            assert!((-5..5).contains(&x));
        }
        assert_eq!(r.below(0), 0);
        assert_eq!(r.range(3, 3), 3);
    }
}
