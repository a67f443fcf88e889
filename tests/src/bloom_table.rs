//! The Bloom reference table: n = 10,000 keys in m ≈ 100,000 bits, 100,000 probes that were never
//! inserted, for k = 1, 2, 4, 7, 10 and 14, next to the formula (1 − e^(−kn/m))^k. The example
//! `bloom_table` prints it (`cargo run --release -p sketch-tests --example bloom_table`) and the
//! statistical test `tests/tests/bloom_stats.rs` asserts on the same rows.

use sketch_nostd::{sizing::fp_rate, Bloom};

/// Keys inserted.
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
