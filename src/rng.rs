//! A small seeded random number generator (SplitMix64) for the tools and the tests: runs that
//! reproduce from a seed, without a crate. The search itself draws no random numbers.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`, salted so that users of different salts draw different streams
    /// from the same seed.
    pub fn salted(seed: u64, salt: u64) -> Rng {
        Rng(seed ^ salt)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        // Rejection sampling keeps the distribution exactly uniform.
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let v = self.next_u64();
            if v < zone {
                return (v % n) as usize;
            }
        }
    }

    /// A uniform integer in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_in_range() {
        let mut a = Rng::salted(7, 1);
        let mut b = Rng::salted(7, 1);
        let mut other = Rng::salted(7, 2);
        let mut differs = false;
        for _ in 0..1000 {
            let x = a.range(-3, 3);
            assert_eq!(x, b.range(-3, 3));
            assert!((-3..=3).contains(&x));
            differs |= other.range(-3, 3) != x;
            let u = a.unit();
            assert_eq!(u, b.unit());
            assert!((0.0..1.0).contains(&u));
        }
        assert!(differs, "another salt draws another stream");
    }

    #[test]
    fn shuffle_keeps_the_elements() {
        let mut v: Vec<u32> = (0..50).collect();
        Rng::salted(3, 0).shuffle(&mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}
