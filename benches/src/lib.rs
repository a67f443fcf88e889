//! Side-by-side benchmarks of `sketch-nostd` against the strongest crates of each sketch family.
//!
//! This crate is never a dependency of `sketch-nostd`: the peer crates are its own dependencies only.
//! It holds what the criterion suite (`benches/main.rs`), the accuracy binary and the performance table
//! tool share, so all three build the same configurations over the same keys:
//!
//! - [`keys`]: the pre-generated keys (SplitMix64 from `sketch-rng`, u64 and short strings, and
//!   the reference Zipf stream);
//! - [`adapters`]: one small trait per family ([`adapters::Filter`], [`adapters::Distinct`],
//!   [`adapters::Frequency`], [`adapters::Deletable`]) implemented for our sketches and each peer, with
//!   the constructors that size them for the same target error;
//! - [`accuracy`]: the deterministic accuracy and memory figures (measured false-positive rate, RMS
//!   error, worst overestimate, bytes);
//! - [`table`]: reads criterion's `target/criterion/**/new/estimates.json` and renders the performance
//!   performance tables.
//!
//! Commands: `cargo bench -p sketch-benches` (timings), `cargo run --release -p sketch-benches --bin
//! accuracy` (figures), `cargo run --release -p sketch-benches --bin bench-table` (the tables of docs/performance.md).

pub mod accuracy;
pub mod adapters;
pub mod keys;
pub mod table;
