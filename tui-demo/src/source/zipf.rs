//! A small seeded random generator and a Zipf sampler, enough for a believable synthetic log.

/// SplitMix64: a tiny, fast, seedable generator (not for cryptography).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator; equal seeds give equal sequences.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x853c_49e6_748f_ea9b)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(self.0)
    }

    /// A uniform value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < p
    }
}

/// SplitMix64's finaliser: turns a counter into well-mixed bits (for deriving stable fake data
/// such as a client's address from its rank).
#[must_use]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Zipf's law over ranks `0..n`: rank `r` is drawn with probability proportional to `1/(r+1)^s`.
///
/// Sampling inverts a precomputed cumulative table (4 bytes per rank) with a binary search.
#[derive(Clone, Debug)]
pub struct Zipf {
    /// `cumulative[r]` = P(rank ≤ r) scaled to `u32::MAX`.
    cumulative: Vec<u32>,
}

impl Zipf {
    /// A sampler over `n ≥ 1` ranks with exponent `s`.
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

    /// Draws a rank.
    pub fn sample(&self, rng: &mut Rng) -> usize {
        let u = (rng.next_u64() >> 32) as u32;
        self.cumulative
            .partition_point(|&c| c < u)
            .min(self.cumulative.len() - 1)
    }

    /// The probability of rank `r`.
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

    #[test]
    fn zipf_frequencies_follow_the_law() {
        let z = Zipf::new(1_000, 1.0);
        let mut rng = Rng::new(1);
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
    fn below_stays_in_range() {
        let mut rng = Rng::new(9);
        assert!((0..1_000).all(|_| rng.below(7) < 7));
        assert_eq!(rng.below(0), 0);
    }
}
