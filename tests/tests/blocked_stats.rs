//! `BlockedBloom`'s false-positive rate against the split-block Bloom filter theory, with tolerances
//! from the binomial and Poisson distributions.
//!
//! Theory (see `sizing::blocked_fp_rate`): a key's block holds a Poisson(λ = n/B) number `j` of keys
//! (Binomial(n, 1/B), which Poisson approximates to O(1/B)); each of them set one uniform bit in each
//! of the block's first `K` words, so a probe finds its bit set in one word with probability
//! 1 − (63/64)^j and in all `K` words with f(j) = (1 − (63/64)^j)^K. The rate is E[f(j)].

use sketch_nostd::sizing::{blocked_blocks_for, blocked_fp_rate};
use sketch_nostd::BlockedBloom;
use sketch_rng::SplitMix64;

/// A 4σ two-sided band: left with probability 6·10⁻⁵ per check, so with fixed seeds a failure means
/// the layout or the hashing is wrong, not luck.
const Z: f64 = 4.0;

/// Never-inserted keys probed per filter.
const PROBES: usize = 400_000;

/// The standard deviation of a filter's own false-positive rate around the theory, σ_f.
///
/// The filter's rate is the mean of f(j_b) over its `B` blocks; the block loads are (nearly)
/// independent Poisson(λ), so the mean has variance Var[f(j)]/B, with Var[f(j)] = E[f²] − E[f]²
/// summed over the Poisson distribution here.
fn sigma_filter(blocks: u64, n: u64, k: u32) -> f64 {
    let lambda = n as f64 / blocks as f64;
    let (mut term, mut clear) = ((-lambda).exp(), 1.0f64);
    let (mut e1, mut e2) = (0.0, 0.0);
    for j in 0..(4 * lambda as u64 + 200) {
        let f = (1.0 - clear).powi(k as i32);
        e1 += term * f;
        e2 += term * f * f;
        term *= lambda / (j + 1) as f64;
        clear *= 63.0 / 64.0;
    }
    ((e2 - e1 * e1) / blocks as f64).sqrt()
}

/// Inserts `n` keys of `seed`, checks them all, and returns (measured FP over [`PROBES`] absent keys,
/// the filter's exact current rate `estimated_fp_rate`).
fn measure<const B: usize, const K: u32>(n: usize, seed: u64) -> (f64, f64) {
    let mut f = Box::new(BlockedBloom::<B, K>::with_seed(seed));
    let mut rng = SplitMix64(seed);
    let members: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
    for k in &members {
        f.insert(k);
    }
    assert!(members.iter().all(|k| f.contains(k)), "a false negative");
    // Absent keys: a different stream (the member stream never repeats within 2^64 draws).
    let mut absent = SplitMix64(!seed);
    let hits = (0..PROBES)
        .filter(|_| f.contains(&absent.next_u64()))
        .count();
    (hits as f64 / PROBES as f64, f.estimated_fp_rate())
}

fn check<const B: usize, const K: u32>(n: usize) {
    let theory = blocked_fp_rate(B as u64, n as u64, K);
    let mut sum = 0.0;
    let seeds = [1u64, 2, 3, 4];
    for seed in seeds {
        let (measured, q) = measure::<B, K>(n, seed);
        sum += measured;
        // Given the filter, each probe is a false positive with probability q, independently: Binomial.
        let sigma_probe = (q * (1.0 - q) / PROBES as f64).sqrt();
        assert!(
            (measured - q).abs() <= Z * sigma_probe,
            "B = {B}, K = {K}, n = {n}, seed {seed}: measured {measured:.5} vs the filter's own rate {q:.5}"
        );
        // Around the theory, the filter's own rate varies too (σ_f), independently of the probes.
        let sigma = (sigma_probe.powi(2) + sigma_filter(B as u64, n as u64, K).powi(2)).sqrt();
        assert!(
            (measured - theory).abs() <= Z * sigma,
            "B = {B}, K = {K}, n = {n}, seed {seed}: measured {measured:.5} vs theory {theory:.5} (±{:.5})",
            Z * sigma
        );
    }
    // The mean over seeds has √4 = 2 times less spread: a bias of half the per-filter band shows here.
    let mean = sum / seeds.len() as f64;
    let sigma = ((theory * (1.0 - theory) / PROBES as f64)
        + sigma_filter(B as u64, n as u64, K).powi(2))
    .sqrt()
        / 2.0;
    assert!(
        (mean - theory).abs() <= Z * sigma,
        "B = {B}, K = {K}, n = {n}: mean over seeds {mean:.5} vs theory {theory:.5}"
    );
}

#[test]
fn sized_for_one_percent_at_ten_thousand_keys() {
    const B: usize = blocked_blocks_for(10_000, 0.01, 8);
    check::<B, 8>(10_000);
}

#[test]
fn sized_for_one_percent_at_a_million_keys() {
    const B: usize = blocked_blocks_for(1_000_000, 0.01, 8);
    check::<B, 8>(1_000_000);
}

#[test]
fn overloaded_and_fewer_bits_per_key() {
    // Twice the keys it was sized for (FP ≈ 12%), and K = 4 at 8 bits per key.
    const B: usize = blocked_blocks_for(10_000, 0.01, 8);
    check::<B, 8>(20_000);
    check::<125, 4>(8_000);
}

#[test]
fn blocked_costs_about_five_percent_more_memory_than_classic_at_one_percent() {
    // The sizing trade the docs state, for 10k and 1M keys.
    for n in [10_000u64, 1_000_000] {
        let blocked_bits = 512 * blocked_blocks_for(n, 0.01, 8) as u64;
        let classic_bits = sketch_nostd::sizing::bits_for(n, 0.01);
        let ratio = blocked_bits as f64 / classic_bits as f64;
        assert!((1.03..1.07).contains(&ratio), "n = {n}: {ratio}");
    }
}
