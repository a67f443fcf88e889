//! Reproduces SPEC.md's Bloom reference table: n = 10,000 keys in m ≈ 100,000 bits, 100,000 probes
//! that were never inserted, for k = 1, 2, 4, 7, 10 and 14, next to the formula (1 − e^(−kn/m))^k.
//!
//! `cargo run --release -p sketch-nostd --example bloom_table`
//!
//! The statistical test `tests/tests/bloom_stats.rs` includes this file and asserts on the same rows.
#![allow(dead_code)] // `measure` is also used by the statistical tests, which have their own `main`

use sketch_nostd::{sizing::fp_rate, Bloom};

/// Keys inserted (as in SPEC.md).
pub const N: u64 = 10_000;
/// Never-inserted probes.
pub const PROBES: u64 = 100_000;
/// 1,563 words = 100,032 bits, the smallest whole number of words with at least 100,000 bits.
pub const WORDS: usize = 1_563;

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// Number of hashes.
    pub k: u32,
    /// Bits in the filter.
    pub m: u64,
    /// Fraction of bits set after the inserts.
    pub fill: f64,
    /// False positives among the probes.
    pub false_positives: u64,
    /// Inserted keys the filter failed to report.
    pub missed: u64,
    /// (1 − e^(−kn/m))^k.
    pub formula: f64,
}

impl Row {
    /// Measured false-positive rate.
    pub fn measured(&self) -> f64 {
        self.false_positives as f64 / PROBES as f64
    }
}

/// Inserts keys `0..N` and probes `N..N + PROBES` (u64 keys, hashed with `seed`).
pub fn measure<const K: u32>(seed: u64) -> Row {
    let mut filter = Bloom::<WORDS, K>::with_seed(seed);
    for key in 0..N {
        filter.insert(&key);
    }
    let missed = (0..N).filter(|key| !filter.contains(key)).count() as u64;
    let false_positives = (N..N + PROBES).filter(|key| filter.contains(key)).count() as u64;
    let m = Bloom::<WORDS, K>::BITS as u64;
    Row {
        k: K,
        m,
        fill: filter.fill_ratio(),
        false_positives,
        missed,
        formula: fp_rate(m, N, K),
    }
}

/// The table's rows for one seed.
pub fn table(seed: u64) -> [Row; 6] {
    [
        measure::<1>(seed),
        measure::<2>(seed),
        measure::<4>(seed),
        measure::<7>(seed),
        measure::<10>(seed),
        measure::<14>(seed),
    ]
}

/// SPEC.md's measured column (its own simulator: FNV-1a + fmix32), for comparison.
const SPEC_MEASURED: [f64; 6] = [0.09521, 0.03370, 0.01203, 0.00853, 0.01054, 0.01851];

fn main() {
    println!(
        "n = {N} keys, m = {} bits, {PROBES} never-inserted probes, seed 0",
        WORDS * 64
    );
    println!();
    println!("|  k | measured FP | formula | fill^k  | SPEC.md measured | members missed |");
    println!("| -: | ----------: | ------: | ------: | ---------------: | -------------: |");
    for (row, spec) in table(0).iter().zip(SPEC_MEASURED) {
        println!(
            "| {:>2} | {:>10.3}% | {:>6.3}% | {:>6.3}% | {:>15.3}% | {:>14} |",
            row.k,
            100.0 * row.measured(),
            100.0 * row.formula,
            100.0 * row.fill.powi(row.k as i32),
            100.0 * spec,
            row.missed
        );
    }
}
