//! The one seeded random generator of the workspace (SplitMix64) and its Zipf sampler.
//!
//! The library's unit tests, the integration and statistical tests, the benchmarks and the demo's
//! synthetic log all draw from here, so a seed means the same stream everywhere and no target pulls
//! a RNG crate. Not for cryptography. The generator is `no_std`; [`Zipf`] needs the `std` feature (on
//! by default).
//!
//! ```
//! use sketch_rng::SplitMix64;
//!
//! let mut a = SplitMix64(7);
//! let mut b = SplitMix64(7);
//! assert_eq!(a.next_u64(), b.next_u64());
//! assert!(a.below(10) < 10);
//! ```

#![no_std]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
mod zipf;
#[cfg(feature = "std")]
pub use zipf::Zipf;

/// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state advanced by a Weyl sequence and mixed by
/// [`mix`]. Every state is valid (0 included); equal states give equal streams.
///
/// ```
/// let mut rng = sketch_rng::SplitMix64(1);
/// let u = rng.next_f64();
/// assert!((0.0..1.0).contains(&u));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 pseudo-random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// A uniform float in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform value in `0..n` by multiply-shift (0 when `n` is 0).
    ///
    /// ```
    /// let mut rng = sketch_rng::SplitMix64(9);
    /// assert!((0..1_000).all(|_| rng.below(7) < 7));
    /// assert_eq!(rng.below(0), 0);
    /// ```
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// `true` with probability `p`.
    ///
    /// ```
    /// let mut rng = sketch_rng::SplitMix64(3);
    /// assert!(!rng.chance(0.0));
    /// assert!(rng.chance(1.0));
    /// ```
    pub fn chance(&mut self, p: f64) -> bool {
        self.next_f64() < p
    }
}

/// SplitMix64's finaliser: turns a counter into well-mixed bits (also used alone to derive stable
/// fake data, such as a client's address from its rank).
///
/// ```
/// assert_eq!(sketch_rng::mix(0), 0);
/// assert_ne!(sketch_rng::mix(1), sketch_rng::mix(2));
/// ```
#[must_use]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_splitmix64() {
        // The first outputs from state 0 in the authors' reference implementation (splitmix64.c).
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(rng.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn below_is_uniform_enough() {
        // 60,000 draws over 6 values: each count is Binomial(60,000, 1/6), σ ≈ 91; allow 5σ.
        let mut rng = SplitMix64(11);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[rng.below(6) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 455),
            "{counts:?}"
        );
    }
}
