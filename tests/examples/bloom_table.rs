//! Prints the Bloom reference table ([`sketch_tests::bloom_table`]): measured false-positive rates
//! for k = 1, 2, 4, 7, 10 and 14 next to the formula and an independent simulator's figures.
//!
//! `cargo run --release -p sketch-tests --example bloom_table`

use sketch_tests::bloom_table::{table, N, PROBES, WORDS};

/// The measured column of the reference table, from an independent simulator (FNV-1a + fmix32),
/// for comparison.
const REFERENCE_MEASURED: [f64; 6] = [0.09521, 0.03370, 0.01203, 0.00853, 0.01054, 0.01851];

fn main() {
    println!(
        "n = {N} keys, m = {} bits, {PROBES} never-inserted probes, seed 0",
        WORDS * 64
    );
    println!();
    println!("|  k | measured FP | formula | fill^k  | reference measured | members missed |");
    println!("| -: | ----------: | ------: | ------: | -----------------: | -------------: |");
    for (row, spec) in table(0).iter().zip(REFERENCE_MEASURED) {
        println!(
            "| {:>2} | {:>10.3}% | {:>6.3}% | {:>6.3}% | {:>17.3}% | {:>14} |",
            row.k,
            100.0 * row.measured(),
            100.0 * row.formula,
            100.0 * row.fill.powi(row.k as i32),
            100.0 * spec,
            row.missed
        );
    }
}
