//! Property tests of the Bloom filters: no false negatives, union and intersection laws.

use proptest::prelude::*;
use sketch_nostd::{Bloom, MicroBloom, MicroBloom32};

fn keys() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 0..200)
}

/// Runs the Bloom properties for several shapes, including odd word counts and the extreme k values.
macro_rules! bloom_props {
    ($($name:ident: $words:literal, $k:literal;)*) => {$(
        mod $name {
            use super::*;
            type F = Bloom<$words, $k>;

            proptest! {
                #[test]
                fn never_a_false_negative(keys in keys(), seed in any::<u64>()) {
                    let mut f = F::with_seed(seed);
                    for key in &keys {
                        f.insert(key.as_slice());
                    }
                    for key in &keys {
                        prop_assert!(f.contains(key.as_slice()));
                    }
                }

                #[test]
                fn union_is_the_filter_of_the_union(a in keys(), b in keys(), seed in any::<u64>()) {
                    let (mut fa, mut fb, mut both) = (F::with_seed(seed), F::with_seed(seed), F::with_seed(seed));
                    for key in &a {
                        fa.insert(key.as_slice());
                        both.insert(key.as_slice());
                    }
                    for key in &b {
                        fb.insert(key.as_slice());
                        both.insert(key.as_slice());
                    }
                    fa.merge(&fb).unwrap();
                    prop_assert_eq!(fa, both);
                }

                #[test]
                fn intersection_keeps_every_common_key(a in keys(), b in keys(), common in keys(), seed in any::<u64>()) {
                    let (mut fa, mut fb) = (F::with_seed(seed), F::with_seed(seed));
                    for key in a.iter().chain(&common) {
                        fa.insert(key.as_slice());
                    }
                    for key in b.iter().chain(&common) {
                        fb.insert(key.as_slice());
                    }
                    fa.intersect(&fb).unwrap();
                    for key in &common {
                        prop_assert!(fa.contains(key.as_slice()));
                    }
                }

                #[test]
                fn other_seeds_are_refused_without_change(a in keys(), s1 in any::<u64>(), s2 in any::<u64>()) {
                    prop_assume!(s1 != s2);
                    let mut fa = F::with_seed(s1);
                    for key in &a {
                        fa.insert(key.as_slice());
                    }
                    let before = fa.clone();
                    prop_assert!(fa.merge(&F::with_seed(s2)).is_err());
                    prop_assert!(fa.intersect(&F::with_seed(s2)).is_err());
                    prop_assert_eq!(fa, before);
                }

                #[test]
                fn insert_reports_new_keys(key in prop::collection::vec(any::<u8>(), 0..24), seed in any::<u64>()) {
                    let mut f = F::with_seed(seed);
                    prop_assert!(f.insert(key.as_slice()));
                    prop_assert!(!f.insert(key.as_slice()));
                    prop_assert!(f.count_ones() >= 1 && f.count_ones() <= $k);
                }
            }
        }
    )*};
}

bloom_props! {
    one_word_one_hash: 1, 1;
    three_words_seven_hashes: 3, 7;
    odd_size: 17, 4;
    max_hashes: 64, 32;
}

proptest! {
    #[test]
    fn micro_filters_never_miss_and_union_is_or(a in keys(), b in keys()) {
        let (mut fa, mut fb, mut both) = (MicroBloom::<3, 9>::new(), MicroBloom::<3, 9>::new(), MicroBloom::<3, 9>::new());
        let mut small = MicroBloom32::<2>::new();
        for key in &a {
            fa.insert(key.as_slice());
            both.insert(key.as_slice());
            small.insert(key.as_slice());
        }
        for key in &b {
            fb.insert(key.as_slice());
            both.insert(key.as_slice());
        }
        for key in &a {
            prop_assert!(fa.contains(key.as_slice()));
            prop_assert!(small.contains(key.as_slice()));
        }
        prop_assert!(both.may_contain_all(&fa));
        fa.merge(&fb).unwrap();
        prop_assert_eq!(fa, both);
    }
}
