//! Shared helpers of the integration, statistical and comparison tests of `sketch-nostd`.
//!
//! The tests themselves live in `tests/tests/`; this library holds what several of them use, so that
//! every test draws its keys the same reproducible way.

pub mod bloom_table;
pub mod dists;
pub mod prefilter;
pub mod qemu;
pub mod wire;
pub mod zipf;
