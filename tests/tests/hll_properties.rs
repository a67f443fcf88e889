//! Property tests of the HyperLogLog sketches: merge laws for every mix of sparse and dense forms,
//! merged registers equal to one sketch fed both streams, raw-part round trips, and estimates that
//! are never NaN or negative whatever the register content.

use proptest::prelude::*;
use sketch_nostd::{
    hll::Estimator,
    wire::{self, Wire},
    Hll10, Hll14, Hll4, Hll6, PartsError,
};
use sketch_tests::wire::pack;

/// A stream of hashes. Half of the streams are short enough for Hll10's sparse form (144 coupons),
/// the others overflow it; some hashes have many leading zeros so high ranks occur.
fn stream() -> impl Strategy<Value = Vec<u64>> {
    let hash = prop_oneof![
        4 => any::<u64>(),
        1 => (any::<u64>(), 0u32..64).prop_map(|(h, s)| h >> s),
    ];
    prop_oneof![
        prop::collection::vec(hash.clone(), 0..120),
        prop::collection::vec(hash, 100..600),
    ]
}

/// Hll10 fed `hashes`, converted to dense first if `dense`.
fn sketch(hashes: &[u64], dense: bool) -> Hll10 {
    let mut h = Hll10::with_seed(11);
    if dense {
        h.to_dense();
    }
    for &x in hashes {
        h.insert_hash(x);
    }
    h
}

fn merged(a: &Hll10, b: &Hll10) -> Hll10 {
    let mut out = a.clone();
    out.merge(b).expect("same seed");
    out
}

/// Every number a sketch reports is finite (or the 2^64 cap) and ordered.
fn check_numbers<const P: u8, const BYTES: usize>(h: &sketch_nostd::HyperLogLog<P, BYTES>) {
    let e = h.cardinality();
    assert!(e.is_finite() && e >= 0.0, "estimate {e}");
    let hist = h.histogram_estimate();
    assert!(hist.is_finite() && hist >= 0.0, "histogram estimate {hist}");
    let rse = h.relative_standard_error();
    assert!(rse.is_finite() && rse >= 0.0, "rse {rse}");
    for k in 1..=3 {
        let (lo, hi) = (h.lower_bound(k), h.upper_bound(k));
        assert!(lo.is_finite() && hi.is_finite(), "bounds {lo} {hi}");
        assert!(0.0 <= lo && lo <= e && e <= hi, "{lo} ≤ {e} ≤ {hi}");
    }
}

proptest! {
    #[test]
    fn merge_is_commutative(a in stream(), b in stream(), da: bool, db: bool) {
        let (x, y) = (sketch(&a, da), sketch(&b, db));
        let (xy, yx) = (merged(&x, &y), merged(&y, &x));
        prop_assert!(xy.registers().eq(yx.registers()));
        prop_assert_eq!(xy.histogram_estimate(), yx.histogram_estimate());
        if !x.is_empty() && !y.is_empty() {
            // Same form, same coupons or registers, same estimator state.
            prop_assert!(xy == yx, "{:?} vs {:?}", xy, yx);
        }
    }

    #[test]
    fn merge_is_associative(a in stream(), b in stream(), c in stream(), forms in 0u8..8) {
        let x = sketch(&a, forms & 1 != 0);
        let y = sketch(&b, forms & 2 != 0);
        let z = sketch(&c, forms & 4 != 0);
        let left = merged(&merged(&x, &y), &z);
        let right = merged(&x, &merged(&y, &z));
        prop_assert!(left.registers().eq(right.registers()));
        if !x.is_empty() && !y.is_empty() && !z.is_empty() {
            prop_assert!(left == right, "{:?} vs {:?}", left, right);
        }
        let mut all = x.clone();
        all.merge_all([&y, &z]).expect("same seed");
        prop_assert!(all.registers().eq(left.registers()));
    }

    #[test]
    fn merge_is_idempotent(a in stream(), b in stream(), dense: bool) {
        let x = sketch(&a, dense);
        let xx = merged(&x, &x);
        prop_assert!(xx.registers().eq(x.registers()));
        prop_assert_eq!(xx.is_sparse(), x.is_sparse());
        // Merging the same sketch again changes nothing at all.
        let y = merged(&xx, &sketch(&b, false));
        prop_assert!(merged(&y, &x) == y);
        prop_assert!(merged(&y, &y) == y);
    }

    #[test]
    fn merged_registers_equal_one_sketch_fed_both(a in stream(), b in stream(), da: bool, db: bool) {
        let both: Vec<u64> = a.iter().chain(&b).copied().collect();
        let one = sketch(&both, false);
        let union = merged(&sketch(&a, da), &sketch(&b, db));
        prop_assert!(one.registers().eq(union.registers()));
        if !da && !db {
            // Both sparse: the union is sparse exactly when the single sketch is, with the same coupons.
            prop_assert_eq!(one.is_sparse(), union.is_sparse());
            prop_assert!(one.coupons().eq(union.coupons()));
        }
        let mut one_dense = one.clone();
        one_dense.to_dense();
        let mut union_dense = union.clone();
        union_dense.to_dense();
        prop_assert_eq!(one_dense.dense_registers(), union_dense.dense_registers());
        // Insertion order does not matter either (except to the martingale estimate, which is a
        // property of the stream).
        let reversed: Vec<u64> = both.iter().rev().copied().collect();
        let backwards = sketch(&reversed, false);
        prop_assert!(backwards.registers().eq(one.registers()));
        prop_assert!(backwards.coupons().eq(one.coupons()));
        prop_assert_eq!(backwards.dense_registers(), one.dense_registers());
    }

    #[test]
    fn raw_parts_round_trip(a in stream(), dense: bool, merge: bool) {
        let mut x = sketch(&a, dense);
        if merge {
            x.merge(&sketch(&[1, 2, 3], false)).expect("same seed");
        }
        let back = match x.dense_registers() {
            Some(regs) => Hll10::from_parts(regs, x.seed(), x.martingale_estimate()),
            None => Hll10::from_coupons(x.coupons(), x.seed(), x.is_single_stream()),
        };
        prop_assert_eq!(back.as_ref(), Ok(&x));
        // The in-place setters give the same sketch, whatever the target held before.
        let mut target = sketch(&[7, 8, 9], !dense);
        match x.dense_registers() {
            Some(regs) => target.set_parts(regs, x.seed(), x.martingale_estimate()),
            None => target.set_coupons(x.coupons(), x.seed(), x.is_single_stream()),
        }
        .expect("valid parts");
        prop_assert!(target == x);
    }

    #[test]
    fn estimate_is_sane_for_any_register_content(
        values in prop::collection::vec(0u8..=55, 1024),
        // Any martingale estimate a sketch accepts: 0 ..= 2^64 (its clamp), subnormals included
        // (the decode fuzz target found bounds that did not bracket a subnormal estimate).
        martingale in prop::option::of(prop_oneof![
            0.0f64..=18_446_744_073_709_551_616.0,
            (0u64..1 << 52).prop_map(f64::from_bits),
            Just(f64::MIN_POSITIVE),
        ]),
        above in f64::from_bits(18_446_744_073_709_551_616.0f64.to_bits() + 1)..1e300,
        more in prop::collection::vec(any::<u64>(), 0..50),
    ) {
        // Anything above the clamp is a state no sketch reports: refused.
        prop_assert_eq!(
            Hll10::from_parts(&pack::<768>(&values), 0, Some(above)).err(),
            Some(PartsError::InvalidEstimatorState)
        );
        let mut h = Hll10::from_parts(&pack::<768>(&values), 0, martingale)
            .expect("values ≤ 55 are valid at p = 10");
        prop_assert!(h.registers().eq(values.iter().copied()));
        prop_assert_eq!(
            h.estimator(),
            if martingale.is_some() { Estimator::Martingale } else { Estimator::Histogram }
        );
        check_numbers(&h);
        for x in more {
            h.insert_hash(x);
        }
        check_numbers(&h);
        h.merge(&Hll10::from_parts(&pack::<768>(&values), 0, None).expect("valid"))
            .expect("same seed");
        check_numbers(&h);
    }

    #[test]
    fn extreme_register_mixes_are_sane(values in prop::collection::vec(prop_oneof![Just(0u8), Just(61), 0u8..=61], 16)) {
        // p = 4: registers range up to 61, histograms are tiny and dominated by the extremes.
        let h = Hll4::from_parts(&pack::<12>(&values), 0, None).expect("valid");
        check_numbers(&h);
    }

    #[test]
    fn arbitrary_bytes_are_rejected_or_sane(bytes in prop::collection::vec(any::<u8>(), 48)) {
        let bytes: [u8; 48] = bytes.try_into().expect("48 bytes");
        match Hll6::from_parts(&bytes, 3, Some(1.0)) {
            Ok(h) => check_numbers(&h),
            Err(PartsError::RegisterOutOfRange { value, max, .. }) => prop_assert!(value > max),
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }

    #[test]
    fn arbitrary_coupons_are_rejected_or_sane(coupons in prop::collection::vec(any::<u32>(), 0..200)) {
        let mut sorted = coupons.clone();
        sorted.sort_unstable_by_key(|c| c >> 6);
        sorted.dedup_by_key(|c| *c >> 6);
        for list in [coupons, sorted] {
            if let Ok(h) = Hll10::from_coupons(list, 0, true) {
                check_numbers(&h);
                prop_assert!(h.registers().all(|r| r <= Hll10::MAX_RANK));
            }
        }
    }

    /// Valid coupons bunched in a window of the index space overflow the sparse table before the
    /// count reaches the capacity, so the sketch turns dense part-way through the list. Found by the
    /// `frames` fuzz target: the coupons after that point were written into the packed registers as
    /// if they were still sparse slots (register values up to 63, which then re-encoded to bytes the
    /// decoder refused).
    #[test]
    fn bunched_coupons_give_the_registers_they_stand_for(
        start in 0u32..1 << 17,
        span in 1u32..4_096,
        picks in prop::collection::vec((0u32..4_096, 1u32..=48), 1..144),
        single: bool,
    ) {
        // Coupons at p = 10: 17 index bits (register = top 10, then 7 more), rank 1..=48.
        let mut coupons: Vec<u32> = picks
            .iter()
            .map(|&(offset, rank)| (start + offset % span).min((1 << 17) - 1) << 6 | rank)
            .collect();
        coupons.sort_unstable_by_key(|c| c >> 6);
        coupons.dedup_by_key(|c| *c >> 6);
        let h = Hll10::from_coupons(coupons.iter().copied(), 3, single).expect("valid coupons");
        let mut expected = [0u8; 1024];
        for &c in &coupons {
            let key = c >> 6;
            let below = key & 127;
            let rank = if below != 0 { below.leading_zeros() - 25 + 1 } else { 7 + (c & 63) };
            let register = (key >> 7) as usize;
            expected[register] = expected[register].max(rank as u8);
        }
        prop_assert!(h.registers().eq(expected.iter().copied()));
        check_numbers(&h);
        let mut buf = [0u8; Hll10::MAX_ENCODED_LEN];
        let bytes = wire::encode(&h, &mut buf).expect("fits");
        let back = wire::decode::<Hll10>(bytes);
        prop_assert_eq!(back.as_ref(), Ok(&h));
    }

    #[test]
    fn seed_mismatch_changes_nothing(a in stream(), seed in 1u64..) {
        let mut x = sketch(&a, false);
        let before = x.clone();
        let other = Hll10::with_seed(seed ^ 11);
        prop_assume!(other.seed() != x.seed());
        prop_assert!(x.merge(&other).is_err());
        prop_assert!(x.merge_all([&Hll10::with_seed(11), &other]).is_err());
        prop_assert!(x == before);
    }
}

#[test]
fn invalid_martingale_states_are_rejected() {
    let regs = [0u8; 12_288];
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        assert_eq!(
            Hll14::from_parts(&regs, 0, Some(bad)),
            Err(PartsError::InvalidEstimatorState)
        );
    }
    let too_many = (0..=Hll10::SPARSE_CAPACITY as u32).map(|k| k << 6 | 1);
    assert_eq!(
        Hll10::from_coupons(too_many, 0, true),
        Err(PartsError::TooManyCoupons {
            capacity: Hll10::SPARSE_CAPACITY
        })
    );
    // At p = 10 a coupon has 17 index bits and a rank in 1..=48.
    assert!(Hll10::from_coupons([5 << 6 | 48, ((1 << 17) - 1) << 6 | 1], 0, true).is_ok());
    for bad in [5 << 6 | 49, 5 << 6, (1 << 17) << 6 | 1] {
        assert_eq!(
            Hll10::from_coupons([bad], 0, true),
            Err(PartsError::InvalidCoupon {
                index: 0,
                coupon: bad
            })
        );
    }
}

/// Found by the `decode` fuzz target: a dense single-stream sketch whose martingale estimate is a
/// subnormal number. Its bounds, computed in the integer arithmetic of `hll/num.rs`, flushed it to
/// 0, so the upper bound was below the estimate. Subnormals now convert exactly.
#[test]
fn subnormal_martingale_estimates_are_bracketed() {
    let regs = [0u8; 768];
    for x in [
        f64::from_bits(0x01ca_c084_12f2),
        5e-324,
        f64::MIN_POSITIVE / 3.0,
    ] {
        let h = Hll10::from_parts(&regs, 0, Some(x)).expect("a valid state");
        assert_eq!(h.cardinality(), x);
        check_numbers(&h);
    }
}
