//! Property tests of the cuckoo filter against a multiset model (a `HashMap` of counts): no false
//! negatives under any sequence of inserts and removes of present keys, failed inserts that change
//! nothing, `len` equal to the model's size, refused removes that change nothing, and raw parts that
//! rebuild the same filter.

use std::collections::HashMap;

use proptest::prelude::*;
use sketch_nostd::{cuckoo::Fingerprint, CuckooFilter, PartsError};

#[derive(Clone, Debug)]
enum Op {
    Insert(u16),
    Remove(u16),
    /// Remove a key whether or not it is in the model (only applied when the filter proves it absent).
    RemoveAny(u16),
}

fn ops(keys: u16, len: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            4 => (0..keys).prop_map(Op::Insert),
            2 => (0..keys).prop_map(Op::Remove),
            1 => (0..keys).prop_map(Op::RemoveAny),
        ],
        0..len,
    )
}

fn check<const B: usize, F: Fingerprint>(ops: &[Op], seed: u64) -> Result<(), TestCaseError> {
    let mut f = CuckooFilter::<B, F>::with_seed(seed);
    let mut model: HashMap<u16, usize> = HashMap::new();
    let mut failures = 0;
    for op in ops {
        match *op {
            Op::Insert(k) => {
                let before = f.clone();
                match f.insert(&k) {
                    Ok(()) => *model.entry(k).or_default() += 1,
                    Err(_) => {
                        failures += 1;
                        prop_assert_eq!(&f, &before, "a failed insert changed the filter");
                        prop_assert!(f.victim().is_some());
                    }
                }
            }
            Op::Remove(k) => {
                let count = model.entry(k).or_default();
                if *count > 0 {
                    prop_assert!(f.remove(&k).is_ok(), "present key {} not removed", k);
                    *count -= 1;
                }
            }
            Op::RemoveAny(k) => {
                let present = model.get(&k).copied().unwrap_or(0) > 0;
                if !present && !f.contains(&k) {
                    let before = f.clone();
                    prop_assert!(f.remove(&k).is_err());
                    prop_assert_eq!(&f, &before);
                }
            }
        }
        prop_assert_eq!(f.len(), model.values().sum::<usize>());
        for (&k, &c) in &model {
            if c > 0 {
                prop_assert!(f.contains(&k), "false negative for {} (count {})", k, c);
            }
        }
        let rebuilt = CuckooFilter::<B, F>::from_parts(*f.as_buckets(), f.seed(), f.victim());
        prop_assert_eq!(rebuilt.as_ref(), Ok(&f));
    }
    let _ = failures;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// 8 buckets (32 slots) for up to 60 keys: the filter is full most of the time.
    #[test]
    fn crowded_8bit_filter_follows_the_multiset(ops in ops(60, 300), seed in any::<u64>()) {
        check::<8, u8>(&ops, seed)?;
    }

    /// One bucket: both buckets of every key are the same.
    #[test]
    fn one_bucket_follows_the_multiset(ops in ops(10, 100), seed in any::<u64>()) {
        check::<1, u8>(&ops, seed)?;
    }

    /// An odd bucket count with 16-bit fingerprints.
    #[test]
    fn crowded_16bit_filter_follows_the_multiset(ops in ops(80, 300), seed in any::<u64>()) {
        check::<13, u16>(&ops, seed)?;
    }

    #[test]
    fn roomy_filter_follows_the_multiset(ops in ops(300, 300), seed in any::<u64>()) {
        check::<128, u16>(&ops, seed)?;
    }

    /// Any raw parts give a filter that never panics; a bad victim is refused.
    #[test]
    fn raw_parts_never_panic(
        buckets in prop::array::uniform4(any::<u32>()),
        victim in prop::option::of((0usize..6, any::<u8>())),
        seed in any::<u64>(),
        keys in prop::collection::vec(any::<u32>(), 0..40),
    ) {
        match CuckooFilter::<4, u8>::from_parts(buckets, seed, victim) {
            Err(e) => {
                prop_assert_eq!(e, PartsError::BadVictim);
                let (b, fp) = victim.unwrap();
                prop_assert!(b >= 4 || fp == 0);
            }
            Ok(mut f) => {
                prop_assert_eq!(f.as_buckets(), &buckets);
                for k in &keys {
                    let _ = f.contains(k);
                    let _ = f.insert(k);
                    let _ = f.remove(k);
                    let _ = f.remove(k);
                    prop_assert!(f.len() <= 17);
                }
                let _ = f.estimated_fp_rate();
            }
        }
    }
}
