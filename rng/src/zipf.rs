//! Zipf's law by inverting a cumulative table.

use crate::SplitMix64;
use std::vec::Vec;

/// Zipf's law over ranks `0..n`: rank `r` is drawn with probability proportional to `1/(r+1)^s`.
///
/// Sampling inverts a precomputed cumulative table (4 bytes per rank) with a binary search on the
/// generator's top 32 bits.
///
/// ```
/// use sketch_rng::{SplitMix64, Zipf};
///
/// let zipf = Zipf::new(1_000, 1.0);
/// let mut rng = SplitMix64(1);
/// assert!(zipf.sample(&mut rng) < 1_000);
/// assert!(zipf.probability(0) > zipf.probability(1));
/// ```
#[derive(Clone, Debug)]
pub struct Zipf {
    /// `cumulative[r]` = P(rank ≤ r) scaled to `u32::MAX`.
    cumulative: Vec<u32>,
}

impl Zipf {
    /// A sampler over `n ≥ 1` ranks (0 counts as 1) with exponent `s`.
    #[must_use]
    pub fn new(n: usize, s: f64) -> Self {
        let n = n.max(1);
        let weights: Vec<f64> = (1..=n).map(|r| (r as f64).powf(-s)).collect();
        let total: f64 = weights.iter().sum();
        let mut acc = 0.0;
        let cumulative = weights
            .iter()
            .map(|w| {
                acc += w / total;
                (acc.min(1.0) * f64::from(u32::MAX)) as u32
            })
            .collect();
        Self { cumulative }
    }

    /// Number of ranks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.cumulative.len()
    }

    /// Always `false`: a sampler has at least one rank.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cumulative.is_empty()
    }

    /// Draws a rank in `0..len()`.
    pub fn sample(&self, rng: &mut SplitMix64) -> usize {
        let u = (rng.next_u64() >> 32) as u32;
        self.cumulative
            .partition_point(|&c| c < u)
            .min(self.cumulative.len() - 1)
    }

    /// The probability of rank `r` (as the table holds it).
    #[must_use]
    pub fn probability(&self, r: usize) -> f64 {
        let hi = self.cumulative.get(r).copied().unwrap_or(u32::MAX);
        let lo = r
            .checked_sub(1)
            .and_then(|i| self.cumulative.get(i).copied())
            .unwrap_or(0);
        f64::from(hi.saturating_sub(lo)) / f64::from(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    #[test]
    fn zipf_frequencies_follow_the_law() {
        let z = Zipf::new(1_000, 1.0);
        let mut rng = SplitMix64(1 ^ 0x853c_49e6_748f_ea9b);
        let mut counts = vec![0u32; 1_000];
        let draws = 200_000;
        for _ in 0..draws {
            counts[z.sample(&mut rng)] += 1;
        }
        // Rank 0 has p = 1/H(1000) ≈ 0.1336; binomial σ ≈ √(np(1−p)) ≈ 152, so ±5σ ≈ ±760.
        let expected = z.probability(0) * f64::from(draws);
        assert!((expected - 26_720.0).abs() < 100.0, "p0 {expected}");
        assert!(
            (f64::from(counts[0]) - expected).abs() < 760.0,
            "{}",
            counts[0]
        );
        // Rank 1 gets half of rank 0 under s = 1 (σ of the ratio is about 1%, allow 6%).
        let ratio = f64::from(counts[1]) / f64::from(counts[0]);
        assert!((ratio - 0.5).abs() < 0.03, "ratio {ratio}");
    }

    #[test]
    fn one_rank_always_draws_it() {
        let z = Zipf::new(0, 1.2);
        let mut rng = SplitMix64(5);
        assert_eq!(z.len(), 1);
        assert!((0..100).all(|_| z.sample(&mut rng) == 0));
    }
}
