//! Per-component random number streams.
//!
//! Each stochastic component draws from its own stream seeded from
//! (run seed, component name), so adding or removing a component never
//! perturbs the draws of the others, and a run is reproducible from its seed.
//! The generator is PCG-64 (MCG variant, O'Neill 2014): fast, small state,
//! and its output for a given seed is fixed by the crate's portability promise.

#[cfg(test)]
use rand::Rng;
use rand::RngExt;
use rand_distr::{Distribution, Exp1, Gamma, Geometric, Poisson};
use rand_pcg::Pcg64Mcg;

/// One component's stream of random numbers, seeded from the run seed and
/// the component's name.
#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Pcg64Mcg,
}

/// 64-bit FNV-1a: a fixed, documented string hash (std's hasher may change
/// between Rust releases, which would change every result).
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser: spreads nearby seeds over the whole state space.
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RngStream {
    /// The stream of component `name` in a run with `seed`.
    pub fn new(seed: u64, name: &str) -> RngStream {
        let hi = splitmix64(seed ^ fnv1a(name));
        let lo = splitmix64(hi ^ 0x5851_f42d_4c95_7f2d);
        let state = ((hi as u128) << 64) | lo as u128;
        RngStream {
            rng: Pcg64Mcg::new(state | 1),
        }
    }

    /// Uniform on [0, 1).
    pub(crate) fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// Exponential with the given mean.
    pub fn exp(&mut self, mean: f64) -> f64 {
        let e: f64 = Exp1.sample(&mut self.rng);
        e * mean
    }

    /// Uniform on {0, ..., n − 1} (n > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.rng.random_range(0..n)
    }

    /// True with probability p.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }

    /// Poisson with the given mean (> 0).
    pub(crate) fn poisson(&mut self, mean: f64) -> u64 {
        let d = Poisson::new(mean).expect("a positive, finite Poisson mean");
        d.sample(&mut self.rng) as u64
    }

    /// Gamma with integer shape `k` (> 0) and the given scale: the sum of
    /// `k` exponentials with mean `scale`, drawn at once.
    pub(crate) fn gamma(&mut self, k: u64, scale: f64) -> f64 {
        let d = Gamma::new(k as f64, scale).expect("a positive shape and scale");
        d.sample(&mut self.rng)
    }

    /// The number of trials up to and including the first success, each a
    /// success with probability `p` (0 < p ≤ 1): at least 1, mean 1/p.
    pub(crate) fn trials_to_success(&mut self, p: f64) -> u64 {
        let d = Geometric::new(p).expect("a success probability in (0, 1]");
        1 + d.sample(&mut self.rng)
    }

    #[cfg(test)]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a1: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(1, "a"), |r, _| Some(r.next_u64()))
            .collect();
        let a2: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(1, "a"), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(1, "b"), |r, _| Some(r.next_u64()))
            .collect();
        let a_seed2: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(RngStream::new(2, "a"), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, a_seed2);
    }

    #[test]
    fn exponential_mean_and_variance() {
        let mut r = RngStream::new(42, "exp");
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| r.exp(2.0)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.02, "mean {mean}");
        assert!((var - 4.0).abs() < 0.1, "var {var}");
    }
}
