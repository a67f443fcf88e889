//! Criterion benchmarks of the library's sketches: `cargo bench -p sketch-nostd`.
//!
//! One module per sketch family. Every group also times a bare xxh3-64 hash of the same keys
//! (`xxh3 floor`), the lower bound any hashed sketch chases: report figures as ratios to it.
#![allow(missing_docs)]

mod bloom;
mod counting;
mod countmin;
mod cuckoo;
mod hll;
mod keys;

criterion::criterion_main!(
    bloom::benches,
    countmin::benches,
    counting::benches,
    cuckoo::benches,
    hll::benches
);
