//! The keys every benchmark and accuracy figure uses: generated once from fixed seeds, identical for
//! every implementation.

pub use sketch_rng::SplitMix64;
pub use sketch_tests::zipf;

/// Small filters: 10,000 keys (the filter fits in L1/L2).
pub const SMALL: usize = 10_000;
/// Large filters: 1,000,000 keys (about 1.2 MB at 1% FP: inside this machine's 2 MB L2, beyond L1).
pub const LARGE: usize = 1_000_000;
/// Huge filters: 10,000,000 keys (about 12 MB at 1% FP: beyond L2, so a lookup waits on L3 or DRAM).
pub const HUGE: usize = 10_000_000;

/// Seed of the keys inserted into filters.
pub const MEMBER_SEED: u64 = 1;
/// Seed of the keys never inserted (negative lookups and false-positive counts).
pub const ABSENT_SEED: u64 = 2;

/// `n` u64 keys from `seed` (distinct with overwhelming probability: 2^64 values).
#[must_use]
pub fn u64_keys(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

/// `n` short string keys like `user:9e3779b97f4a7c15`, from `seed`: the u64 keys of the same seed in
/// hex (at most 21 bytes, the size of a user id or a short path), so they are distinct exactly when
/// the u64 keys are (SplitMix64 never repeats within 2^64 draws, and the streams of small seeds do not
/// overlap for any practical `n`).
#[must_use]
pub fn string_keys(n: usize, seed: u64) -> Vec<String> {
    u64_keys(n, seed)
        .into_iter()
        .map(|k| format!("user:{k:x}"))
        .collect()
}

/// Borrowed views of string keys (`&str` hashes the same for every implementation: its bytes).
#[must_use]
pub fn as_strs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_reproducible_and_distinct_between_seeds() {
        assert_eq!(u64_keys(3, 1), u64_keys(3, 1));
        let members = string_keys(1000, MEMBER_SEED);
        let absent = string_keys(1000, ABSENT_SEED);
        assert!(members.iter().all(|m| !absent.contains(m)));
        assert!(members.iter().all(|k| (6..=21).contains(&k.len())));
    }
}
