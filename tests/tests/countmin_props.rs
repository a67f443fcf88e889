//! Property tests of the count-min sketch: never an underestimate, merge equals one sketch fed both
//! streams, saturation instead of wrap-around, no panic on any parts.

use std::collections::HashMap;

use proptest::prelude::*;
use sketch_nostd::countmin::{Conservative, Counter, Standard, UpdatePolicy};
use sketch_nostd::{CountMin, PartsError};

/// Small sketches so that keys collide a lot: 8 counters × 3 rows.
type Small<C, U> = CountMin<8, 3, C, U>;

fn events() -> impl Strategy<Value = Vec<(u16, u16)>> {
    prop::collection::vec((0u16..64, 0u16..300), 0..200)
}

fn exact(events: &[(u16, u16)]) -> HashMap<u16, u64> {
    let mut m = HashMap::new();
    for &(k, c) in events {
        *m.entry(k).or_default() += u64::from(c);
    }
    m
}

/// A sketch with `seed` fed every stream of `streams`, in order.
fn fed<C: Counter, U: UpdatePolicy>(seed: u64, streams: &[&[(u16, u16)]]) -> Small<C, U> {
    let mut cm = Small::with_seed(seed);
    for &(k, c) in streams.iter().copied().flatten() {
        cm.add(&k, u64::from(c));
    }
    cm
}

fn check_never_under<U: UpdatePolicy>(
    events: &[(u16, u16)],
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut cm = Small::<u32, U>::with_seed(seed);
    for &(k, c) in events {
        let est = cm.add(&k, u64::from(c));
        prop_assert_eq!(est, cm.estimate(&k));
    }
    for (k, t) in exact(events) {
        prop_assert!(
            cm.estimate(&k) >= t,
            "key {}: {} < {}",
            k,
            cm.estimate(&k),
            t
        );
    }
    prop_assert_eq!(
        cm.total(),
        events.iter().map(|&(_, c)| u64::from(c)).sum::<u64>()
    );
    Ok(())
}

fn check_aging<U: UpdatePolicy>(ops: &[(u16, u16, u8)], seed: u64) -> Result<(), TestCaseError> {
    let mut cm = Small::<u32, U>::with_seed(seed);
    let mut truth: HashMap<u16, u64> = HashMap::new();
    for &(k, c, op) in ops {
        if op == 0 {
            cm.halve();
            truth.values_mut().for_each(|t| *t /= 2);
        } else {
            cm.add(&k, u64::from(c));
            *truth.entry(k).or_default() += u64::from(c);
        }
        for (k, &t) in &truth {
            prop_assert!(cm.estimate(k) >= t);
        }
    }
    Ok(())
}

fn check_saturation<U: UpdatePolicy>(
    events: &[(u16, u16)],
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut cm = Small::<u8, U>::with_seed(seed);
    let mut truth: HashMap<u16, u64> = HashMap::new();
    for &(k, c) in events {
        let before = cm.estimate(&k);
        let after = cm.add(&k, u64::from(c));
        prop_assert!(after >= before && after <= 255);
        *truth.entry(k).or_default() += u64::from(c);
    }
    for (k, &t) in &truth {
        prop_assert!(cm.estimate(k) >= t.min(255));
    }
    if truth.values().any(|&t| t >= 255) {
        prop_assert!(cm.is_saturated());
    }
    if !cm.is_saturated() {
        for (k, &t) in &truth {
            prop_assert!(cm.estimate(k) >= t);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn never_under_standard(events in events(), seed: u64) {
        check_never_under::<Standard>(&events, seed)?;
    }

    #[test]
    fn never_under_conservative(events in events(), seed: u64) {
        check_never_under::<Conservative>(&events, seed)?;
    }

    /// Halvings between additions: estimates stay at or above the exact counts aged the same way
    /// (halved, rounded down, at the same moments), for both rules.
    #[test]
    fn never_under_with_aging(
        ops in prop::collection::vec((0u16..64, 0u16..300, 0u8..10), 0..200),
        seed: u64,
    ) {
        check_aging::<Standard>(&ops, seed)?;
        check_aging::<Conservative>(&ops, seed)?;
    }

    #[test]
    fn merge_equals_one_sketch_fed_both(a in events(), b in events(), seed: u64) {
        let mut left = fed::<u16, Standard>(seed, &[&a]);
        left.merge(&fed(seed, &[&b])).unwrap();
        prop_assert_eq!(left, fed(seed, &[&a, &b]));
    }

    /// Merged conservative sketches never underestimate, and never exceed a standard sketch of the
    /// concatenated stream cell by cell (so the ε·N bound carries over).
    #[test]
    fn conservative_merge_is_bounded(a in events(), b in events(), seed: u64) {
        let mut left = fed::<u32, Conservative>(seed, &[&a]);
        left.merge(&fed(seed, &[&b])).unwrap();
        let standard = fed::<u32, Standard>(seed, &[&a, &b]);
        prop_assert!(left.cells_flat().iter().zip(standard.cells_flat()).all(|(l, s)| l <= s));
        let all: Vec<_> = a.iter().chain(&b).copied().collect();
        for (k, t) in exact(&all) {
            prop_assert!(left.estimate(&k) >= t);
        }
    }

    /// u8 counters stop at 255: estimates never fall when counts are added (a wrap would make them
    /// fall), never drop below min(true, 255), and saturation is reported.
    #[test]
    fn u8_saturates_instead_of_wrapping(events in events(), seed: u64) {
        check_saturation::<Standard>(&events, seed)?;
        check_saturation::<Conservative>(&events, seed)?;
    }

    /// Parts from a real sketch round-trip; arbitrary parts are accepted or refused, never a panic,
    /// and an accepted sketch works.
    #[test]
    fn parts_round_trip_or_refuse(
        events in events(),
        cells in prop::collection::vec(any::<u8>(), 0..40),
        total: u64,
        seed: u64,
    ) {
        let mut cm = Small::<u8, Conservative>::with_seed(seed);
        for &(k, c) in &events {
            cm.add(&k, u64::from(c));
        }
        let back = Small::<u8, Conservative>::from_flat_cells(cm.cells_flat(), seed, cm.total());
        prop_assert_eq!(back.as_ref(), Ok(&cm));
        match Small::<u8, Conservative>::from_flat_cells(&cells, seed, total) {
            Ok(mut s) => {
                prop_assert_eq!(cells.len(), 24);
                s.increment("x");
                prop_assert!(s.estimate("x") >= 1);
            }
            Err(PartsError::LengthMismatch { expected: 24, found }) => prop_assert_eq!(found, cells.len()),
            Err(PartsError::RowAboveTotal { row }) => prop_assert!(row < 3),
            Err(e) => prop_assert!(false, "unexpected {e:?}"),
        }
    }
}

/// `from_parts` promises that every sequence of additions, halvings and merges gives parts it
/// accepts. With `u64` counters the total saturates at `u64::MAX` while two cells of one row can
/// together pass 2^64; halving then rounds each cell down separately, and the row used to end above
/// the halved total, so the sketch could not decode its own encoding.
#[test]
fn u64_counters_survive_halving_past_the_total() {
    let mut cm = CountMin::<2, 1, u64>::new();
    cm.add(&0u64, 1 << 63);
    cm.add(&2u64, 1 << 63);
    cm.halve();
    let back = CountMin::<2, 1, u64>::from_parts(*cm.cells(), cm.seed(), cm.total());
    assert_eq!(back.as_ref(), Ok(&cm));
    let mut buf = [0u8; 64];
    let bytes = sketch_nostd::wire::encode(&cm, &mut buf).unwrap();
    let decoded: CountMin<2, 1, u64> = sketch_nostd::wire::decode(bytes).unwrap();
    assert_eq!(decoded, cm);
    // The same through merges and a conservative sketch, halved repeatedly.
    let mut c = CountMin::<3, 2, u64, Conservative>::with_seed(9);
    for k in 0..6u64 {
        c.add(&k, u64::MAX / 3);
    }
    for _ in 0..3 {
        let copy = c.clone();
        c.merge(&copy).unwrap();
        c.halve();
        assert_eq!(
            CountMin::<3, 2, u64, Conservative>::from_parts(*c.cells(), 9, c.total()).as_ref(),
            Ok(&c)
        );
    }
}
