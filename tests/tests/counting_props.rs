//! Property tests of the counting Bloom filter against a multiset model (a `HashMap` of counts):
//! no false negatives under any sequence of inserts and removes of present keys, count estimates never
//! below the true count (up to 15), refused removes change nothing, and without saturation the filter
//! is exactly the filter of the model's multiset.

use std::collections::HashMap;

use proptest::prelude::*;
use sketch_nostd::{CountingBloom, RemoveError};

#[derive(Clone, Debug)]
enum Op {
    Insert(u8),
    Remove(u8),
    /// Remove a key whether or not it is in the model (only applied when the filter proves it absent).
    RemoveAny(u8),
}

fn ops(keys: u8) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => (0..keys).prop_map(Op::Insert),
            2 => (0..keys).prop_map(Op::Remove),
            1 => (0..keys).prop_map(Op::RemoveAny),
        ],
        0..300,
    )
}

/// Runs `ops` on a filter and on the model and checks the properties after every step.
fn check<const W: usize, const K: u32>(ops: &[Op], seed: u64) -> Result<(), TestCaseError> {
    let mut f = CountingBloom::<W, K>::with_seed(seed);
    let mut model: HashMap<u8, u32> = HashMap::new();
    let mut ever_saturated = false;
    for op in ops {
        match *op {
            Op::Insert(k) => {
                f.insert(&k);
                *model.entry(k).or_default() += 1;
            }
            Op::Remove(k) => {
                let count = model.entry(k).or_default();
                if *count > 0 {
                    prop_assert_eq!(f.remove(&k), Ok(()), "removing present key {}", k);
                    *count -= 1;
                }
            }
            Op::RemoveAny(k) => {
                let present = model.get(&k).copied().unwrap_or(0) > 0;
                if !present && !f.contains(&k) {
                    let before = f.clone();
                    prop_assert_eq!(f.remove(&k), Err(RemoveError::Absent));
                    prop_assert_eq!(&f, &before);
                }
                // A never-inserted key that looks present (false positive) is not removed: that
                // is the documented way to break the filter, tested in counting_stats.rs.
            }
        }
        ever_saturated |= f.is_saturated();
        for (&k, &c) in &model {
            if c > 0 {
                prop_assert!(f.contains(&k), "false negative for {} (count {})", k, c);
            }
            prop_assert!(
                f.estimate(&k) >= u64::from(c.min(15)),
                "estimate {} below count {} for {}",
                f.estimate(&k),
                c,
                k
            );
        }
    }
    if !ever_saturated {
        // Counters that never saturated are exact sums: the filter is that of the model's multiset.
        let mut fresh = CountingBloom::<W, K>::with_seed(seed);
        for (&k, &c) in &model {
            for _ in 0..c {
                fresh.insert(&k);
            }
        }
        prop_assert_eq!(&f, &fresh);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// 64 counters for up to 40 keys: crowded, so false positives, shared counters and saturation
    /// all happen.
    #[test]
    fn tiny_filter_follows_the_multiset(ops in ops(40), seed in any::<u64>()) {
        check::<4, 3>(&ops, seed)?;
    }

    /// One counter word, many hashes: probes of one key often share a counter.
    #[test]
    fn repeated_counters_follow_the_multiset(ops in ops(8), seed in any::<u64>()) {
        check::<1, 9>(&ops, seed)?;
    }

    #[test]
    fn roomy_filter_follows_the_multiset(ops in ops(200), seed in any::<u64>()) {
        check::<64, 7>(&ops, seed)?;
    }

    #[test]
    fn union_contains_both_and_adds_counts(a in ops(30), b in ops(30), seed in any::<u64>()) {
        let build = |ops: &[Op]| {
            let mut f = CountingBloom::<8, 4>::with_seed(seed);
            let mut keys = Vec::new();
            for op in ops {
                if let Op::Insert(k) = *op {
                    f.insert(&k);
                    keys.push(k);
                }
            }
            (f, keys)
        };
        let ((mut fa, ka), (fb, kb)) = (build(&a), build(&b));
        let mut both = CountingBloom::<8, 4>::with_seed(seed);
        for k in ka.iter().chain(&kb) {
            both.insert(k);
        }
        fa.merge(&fb).unwrap();
        for k in ka.iter().chain(&kb) {
            prop_assert!(fa.contains(k));
        }
        if !both.is_saturated() {
            prop_assert_eq!(&fa, &both);
        }
        // Union is commutative, saturated or not.
        let (fa2, fb2) = (build(&a).0, build(&b).0);
        let mut ba = fb2.clone();
        ba.merge(&fa2).unwrap();
        prop_assert_eq!(fa, ba);
    }

    #[test]
    fn raw_parts_round_trip_and_never_panic(words in prop::array::uniform4(any::<u64>()), seed in any::<u64>(), key in any::<u32>()) {
        let mut f = CountingBloom::<4, 5>::from_parts(words, seed);
        prop_assert_eq!(f.as_words(), &words);
        // Any counter state is usable: nothing here may panic.
        let _ = f.contains(&key);
        let _ = f.estimate(&key);
        let _ = f.estimated_fp_rate();
        let _ = f.cardinality();
        f.insert(&key);
        prop_assert!(f.contains(&key));
        let _ = f.remove(&key);
        let _ = f.remove(&key);
    }
}
