//! Criterion benchmarks of sketch-nostd against peer crates, one module per family:
//! `cargo bench -p sketch-benches` (all), `cargo bench -p sketch-benches -- bloom/` (one family).
//!
//! Every group times one operation over the same pre-generated keys for every implementation, plus a
//! bare xxh3-64 of the keys (`xxh3 floor`): the lower bound of any sketch that hashes its keys. Group
//! names are `family/scenario/operation`, function names the implementation; `bench-table` turns the
//! results into the README tables (ratios within one run).
#![allow(missing_docs)]

mod bloom;
mod countmin;
mod deletable;
mod hll;

criterion::criterion_main!(
    bloom::benches,
    hll::benches,
    countmin::benches,
    deletable::benches
);
