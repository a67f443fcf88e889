//! The synthetic log's generator and Zipf sampler: the workspace's one copy (`sketch-rng`), seeded
//! as the demo always seeded it, so a seed still gives the same log byte for byte.

pub use sketch_rng::{mix, SplitMix64 as Rng, Zipf};

/// The demo's generator for `seed`: SplitMix64 from `seed ^ 0x853c_49e6_748f_ea9b`.
#[must_use]
pub fn rng(seed: u64) -> Rng {
    Rng(seed ^ 0x853c_49e6_748f_ea9b)
}
