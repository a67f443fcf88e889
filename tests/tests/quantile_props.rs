//! Properties of the quantile sketch: every quantile within ±α of the exact one (same rank
//! definition), above the collapse floor when the range overflows; merge order does not matter;
//! merging after the wire equals merging before; the wire refuses malformed bytes and never panics.

use proptest::prelude::*;
use sketch_nostd::wire::{self, Frame, Wire};
use sketch_nostd::{QuantileSketch, WireError};

/// Enough buckets for ±(10^-6 … 10^9) at α ≈ 1% (50 octaves a side) without collapsing.
type Wide = QuantileSketch<35, 4_096>;
/// Two octaves: collapses on most inputs.
type Narrow = QuantileSketch<35, 70, u16>;

/// Values: integers of either sign, zeros, and floats over 15 decades of either sign.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1_000_000_000i64..=1_000_000_000).prop_map(|v| v as f64),
        Just(0.0),
        (-6.0f64..9.0, any::<bool>()).prop_map(|(e, neg)| {
            let v = 10f64.powf(e);
            if neg {
                -v
            } else {
                v
            }
        }),
    ]
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// The element of rank ⌊q·(n − 1)⌋ of the sorted values: the sketch's definition.
fn exact(sorted: &[f64], q: f64) -> f64 {
    sorted[(q * (sorted.len() - 1) as f64) as usize]
}

const GRID: usize = 100;

fn build<const S: usize, const B: usize, C: sketch_nostd::countmin::Counter>(
    values: &[f64],
) -> QuantileSketch<S, B, C> {
    let mut q = QuantileSketch::new();
    for &v in values {
        q.insert(v);
    }
    q
}

fn bytes_of<T: Wire>(sketch: &T) -> Vec<u8> {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    wire::encode(sketch, &mut buf).unwrap().to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_outside_alpha(values in prop::collection::vec(value(), 1..400)) {
        let q: Box<Wide> = Box::new(build(&values));
        prop_assert!(!q.is_collapsed());
        let s = sorted(&values);
        for i in 0..=GRID {
            let p = i as f64 / GRID as f64;
            let (est, truth) = (q.quantile(p).unwrap(), exact(&s, p));
            prop_assert!((est - truth).abs() <= q.error_bound() * truth.abs(), "q {}: {} vs {}", p, est, truth);
        }
        // rank counts every value at or below x, and never one beyond x's bucket.
        for &x in &s {
            let r = q.rank(x);
            let at_or_below = s.iter().filter(|&&v| v <= x).count() as u64;
            let within = s.iter().filter(|&&v| v <= x + q.error_bound() * 2.5 * x.abs()).count() as u64;
            prop_assert!(r >= at_or_below && r <= within, "rank {}: {} not in {}..={}", x, r, at_or_below, within);
        }
    }

    #[test]
    fn collapsed_keeps_the_guarantee_above_the_floor(values in prop::collection::vec(value(), 1..400)) {
        let q: Narrow = build(&values);
        let s = sorted(&values);
        prop_assert_eq!(q.count(), s.len() as u64);
        prop_assert_eq!((q.min(), q.max()), (Some(s[0]), Some(s[s.len() - 1])));
        let floor = q.collapsed_below();
        for i in 0..=GRID {
            let p = i as f64 / GRID as f64;
            let (est, truth) = (q.quantile(p).unwrap(), exact(&s, p));
            if floor.is_none_or(|f| est > f) {
                prop_assert!((est - truth).abs() <= q.error_bound() * truth.abs(), "q {}: {} vs {}", p, est, truth);
            }
        }
    }

    #[test]
    fn merge_order_does_not_matter(
        values in prop::collection::vec(-1_000_000i32..1_000_000, 1..300),
        parts in 2usize..7,
        rotate in 0usize..7,
    ) {
        // Integers, so that sums are exact in any order and whole sketches compare equal.
        fn check<const B: usize>(values: &[i32], parts: usize, rotate: usize) -> Result<(), TestCaseError> {
            let mut sketches = vec![QuantileSketch::<35, B>::new(); parts];
            for (i, &v) in values.iter().enumerate() {
                sketches[i % parts].insert(v);
            }
            let mut forward = QuantileSketch::<35, B>::new();
            for s in &sketches {
                forward.merge(s).unwrap();
            }
            let mut backward = QuantileSketch::<35, B>::new();
            for s in sketches.iter().rev() {
                backward.merge(s).unwrap();
            }
            sketches.rotate_left(rotate % parts);
            let mut tree = sketches[0].clone();
            let mut rest = sketches[1].clone();
            for s in &sketches[2..] {
                rest.merge(s).unwrap();
            }
            tree.merge(&rest).unwrap();
            prop_assert!(forward == backward, "{:?} vs {:?}", forward, backward);
            prop_assert!(forward == tree, "{:?} vs {:?}", forward, tree);
            Ok(())
        }
        check::<2_048>(&values, parts, rotate)?;
        check::<40>(&values, parts, rotate)?;
    }

    #[test]
    fn merging_parts_equals_one_sketch(values in prop::collection::vec(value(), 1..300), parts in 1usize..5) {
        let mut sketches = vec![Wide::new(); parts];
        for (i, &v) in values.iter().enumerate() {
            sketches[i % parts].insert(v);
        }
        let mut merged = Wide::new();
        for s in &sketches {
            merged.merge(s).unwrap();
        }
        let one: Wide = build(&values);
        prop_assert_eq!(bytes_of(&merged).len(), bytes_of(&one).len());
        for i in 0..=GRID {
            let p = i as f64 / GRID as f64;
            prop_assert_eq!(merged.quantile(p), one.quantile(p));
        }
    }

    #[test]
    fn merge_after_the_wire_equals_merge_before(
        a in prop::collection::vec(value(), 0..200),
        b in prop::collection::vec(value(), 0..200),
    ) {
        fn check<const B: usize>(a: &[f64], b: &[f64]) -> Result<(), TestCaseError> {
            let (qa, qb): (QuantileSketch<35, B>, QuantileSketch<35, B>) = (build(a), build(b));
            let mut before = qa.clone();
            before.merge(&qb).unwrap();
            let mut after: QuantileSketch<35, B> = wire::decode(&bytes_of(&qa)).unwrap();
            let mut rx = QuantileSketch::<35, B>::new();
            wire::decode_into(&bytes_of(&qb), &mut rx).unwrap();
            after.merge(&rx).unwrap();
            prop_assert!(before == after);
            prop_assert_eq!(bytes_of(&before), bytes_of(&after));
            Ok(())
        }
        check::<4_096>(&a, &b)?;
        check::<40>(&a, &b)?;
    }

    #[test]
    fn corrupted_bytes_are_refused_or_a_valid_sketch(
        values in prop::collection::vec(value(), 0..100),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let q: Narrow = build(&values);
        let good = bytes_of(&q);
        let mut bad = good.clone();
        for (i, x) in &flips {
            let i = i.index(bad.len());
            bad[i] ^= x;
        }
        for bytes in [&bad[..], &good[..cut.index(good.len())]] {
            let mut rx: Narrow = build(&[1.0, 2.0]);
            let by_value = wire::decode::<Narrow>(bytes);
            let in_place = wire::decode_into(bytes, &mut rx);
            match by_value {
                Ok(d) => {
                    prop_assert!(in_place.is_ok());
                    prop_assert!(d == rx);
                    // A valid sketch: canonical, and its quantiles within its extremes.
                    prop_assert_eq!(wire::decode::<Narrow>(&bytes_of(&d)).unwrap(), d.clone());
                    for i in 0..=10 {
                        if let Some(v) = d.quantile(i as f64 / 10.0) {
                            prop_assert!(v >= d.min().unwrap() && v <= d.max().unwrap());
                        }
                    }
                }
                Err(e) => prop_assert_eq!(in_place, Err(e)),
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut bytes = vec![0x53, 0x4b, 2, 11, 35, 70, 2, 0];
        bytes.extend(tail);
        let _ = wire::decode::<Narrow>(&bytes);
        let mut rx = Narrow::new();
        let _ = wire::decode_into(&bytes, &mut rx);
        let _ = rx.quantile(0.5);
    }
}

#[test]
fn frames_carry_quantile_sketches() {
    let mut q = Box::new(QuantileSketch::<35, 1_047>::new());
    for v in 1..=5_000u32 {
        q.insert(v * 7);
    }
    let frame = Frame {
        device: 3,
        seq: 9,
        sketch: *q.clone(),
    };
    let mut buf = vec![0u8; Frame::<QuantileSketch<35, 1_047>>::MAX_ENCODED_LEN];
    let mut bytes = frame.encode(&mut buf).unwrap().to_vec();
    let back = Frame::<QuantileSketch<35, 1_047>>::decode(&mut bytes).unwrap();
    assert!(back.sketch == *q && back.device == 3 && back.seq == 9);
}

#[test]
fn malformed_bodies_are_refused() {
    type Q = QuantileSketch<35, 8>;
    // Envelope: magic, version 2, kind 11, SUB 35, BUCKETS 8, COUNTER_BYTES 4, seed 0.
    let env = [0x53u8, 0x4b, 2, 11, 35, 8, 4, 0];
    let with = |body: &[u8]| [&env[..], body].concat();
    // Empty: state 0, zero 0, no windows.
    assert_eq!(wire::decode::<Q>(&with(&[0, 0, 0, 0])).unwrap(), Q::new());
    let refused = |body: &[u8]| wire::decode::<Q>(&with(body)).unwrap_err();
    // Unknown state bits.
    assert!(matches!(
        refused(&[4, 0, 0, 0]),
        WireError::BadEncoding { .. }
    ));
    // Nine buckets in an eight-bucket sketch.
    assert!(matches!(
        refused(&[0, 0, 0, 9]),
        WireError::BadEncoding { .. }
    ));
    // A positive window at key 10 (below SUB: no such bucket).
    assert!(matches!(
        refused(&[0, 0, 0, 1, 10, 1, 0, 1]),
        WireError::BadEncoding { .. }
    ));
    // A window of two buckets whose last is empty (zero runs: 0 zeros, 1 literal 5, 1 zero).
    let key = [0xa5, 0x8b, 0x02]; // 35,237 = 1,006·35 + 27: about 1.3·10^-5
    let mut body = vec![0, 0, 0, 2];
    body.extend(key);
    body.extend([1, 0, 1, 5, 1, 0]);
    assert!(matches!(refused(&body), WireError::Inconsistent { .. }));
    // The zero count alone, then extremes that are not zero.
    let mut body = vec![0, 3, 0, 0];
    body.extend(1f64.to_bits().to_le_bytes());
    body.extend(1f64.to_bits().to_le_bytes());
    body.extend(3f64.to_bits().to_le_bytes());
    assert!(matches!(refused(&body), WireError::Inconsistent { .. }));
    // The same with zeros as extremes is a sketch of three zeros.
    let mut body = vec![0, 3, 0, 0];
    body.extend([0u8; 24]);
    let z = wire::decode::<Q>(&with(&body)).unwrap();
    assert_eq!((z.count(), z.quantile(0.5)), (3, Some(0.0)));
    // A NaN minimum.
    let mut body = vec![0, 3, 0, 0];
    body.extend(f64::NAN.to_bits().to_le_bytes());
    body.extend([0u8; 16]);
    assert!(matches!(refused(&body), WireError::Inconsistent { .. }));
    // Collapsed at floor 0 with a negative window left.
    assert!(matches!(
        refused(&[2, 0, 0, 1, 0xa5, 0x8b, 0x02, 1, 0, 1, 1, 0]),
        WireError::Inconsistent { .. }
    ));
    // Truncated in the middle of a window.
    assert_eq!(
        refused(&[0, 0, 0, 1, 0xa5, 0x8b, 0x02]),
        WireError::Truncated
    );
}
