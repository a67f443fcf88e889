//! Pre-generated keys shared by every benchmark module.

#[allow(dead_code)] // the benches use only part of the shared generator
#[path = "../../tests/src/rng.rs"]
mod rng;
pub use rng::SplitMix64;

/// `n` u64 keys from `seed` (distinct with overwhelming probability).
pub fn u64_keys(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

/// `n` short string keys such as `user:8412734`, from `seed`.
pub fn string_keys(n: usize, seed: u64) -> Vec<String> {
    u64_keys(n, seed)
        .into_iter()
        .map(|k| format!("user:{}", k % 100_000_000))
        .collect()
}

/// SPEC.md's seeded Zipf stream (weights 1/r), shared with the tests and examples.
#[allow(dead_code)]
#[path = "../../tests/src/zipf.rs"]
pub mod zipf;
