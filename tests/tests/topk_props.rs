//! Property tests of the heavy-hitter summaries: listed counts never under, Space-Saving's bounds,
//! merges, owned keys that do not fit, raw parts that are accepted or refused without a panic.

use std::collections::HashMap;

use proptest::prelude::*;
use sketch_nostd::Counted;
use sketch_nostd::{heapless, PartsError, SpaceSaving, TopK};

/// Small summaries so that keys compete for places: 4 listed keys over 32 × 3 counters.
type Top = TopK<u16, 4, 32, 3>;
type Ss = SpaceSaving<u16, 4>;

fn events() -> impl Strategy<Value = Vec<(u16, u16)>> {
    prop::collection::vec((0u16..40, 1u16..50), 0..300)
}

fn exact(events: &[(u16, u16)]) -> HashMap<u16, u64> {
    let mut m = HashMap::new();
    for &(k, c) in events {
        *m.entry(k).or_default() += u64::from(c);
    }
    m
}

fn top_of(events: &[(u16, u16)], seed: u64) -> Top {
    let mut t = Top::with_seed(seed);
    for &(k, c) in events {
        t.add(&k, u64::from(c));
    }
    t
}

fn ss_of(events: &[(u16, u16)]) -> Ss {
    let mut s = Ss::new();
    for &(k, c) in events {
        s.add(&k, u64::from(c));
    }
    s
}

/// Listed counts are at or above the truth and at or below the current estimate; keys are unique;
/// the list is full once 4 distinct keys were seen; it is sorted.
fn check_top(t: &Top, truth: &HashMap<u16, u64>) -> Result<(), TestCaseError> {
    let sorted = t.sorted();
    prop_assert_eq!(sorted.len(), truth.len().min(4));
    prop_assert!(sorted.windows(2).all(|w| w[0].count >= w[1].count));
    for (
        i,
        Counted {
            key: k, count: c, ..
        },
    ) in sorted.iter().enumerate()
    {
        prop_assert!(*c >= truth[*k], "key {}: {} < {}", k, c, truth[*k]);
        prop_assert!(*c <= t.estimate(k));
        prop_assert!(
            sorted[..i].iter().all(|Counted { key: l, .. }| l != k),
            "key {} twice",
            k
        );
    }
    Ok(())
}

/// Every key's bounds bracket its true count; listed keys' widths are at most the error bound; the
/// bound is at most N/K; any key above it is listed.
fn check_ss(s: &Ss, truth: &HashMap<u16, u64>) -> Result<(), TestCaseError> {
    let bound = s.error_bound();
    prop_assert!(bound <= s.total() / 4);
    check_brackets(s, truth)?;
    for k in 0u16..40 {
        let (lo, hi) = s.bounds(&k);
        prop_assert!(hi - lo <= bound); // an error is the minimum at takeover, which only grows
    }
    Ok(())
}

/// What `from_parts` made of `entries` arbitrary entries (at most 4 fit): a summary that keeps
/// working (`len_after_increment` counts one more event and returns its length), or a refusal that
/// names an entry.
fn check_parts<S>(
    parts: Result<S, PartsError>,
    entries: usize,
    len_after_increment: impl FnOnce(S) -> usize,
) -> Result<(), TestCaseError> {
    match parts {
        Ok(x) => prop_assert!(len_after_increment(x) <= 4),
        Err(PartsError::LengthMismatch { expected: 4, found }) => prop_assert_eq!(found, entries),
        Err(PartsError::DuplicateKey { index } | PartsError::BadCount { index }) => {
            prop_assert!(index < entries);
        }
        Err(e) => prop_assert!(false, "unexpected {e:?}"),
    }
    Ok(())
}

/// Every key's bounds bracket its count in `truth`, and every key above the error bound is listed.
fn check_brackets(s: &Ss, truth: &HashMap<u16, u64>) -> Result<(), TestCaseError> {
    let bound = s.error_bound();
    for k in 0u16..40 {
        let t = truth.get(&k).copied().unwrap_or(0);
        let (lo, hi) = s.bounds(&k);
        prop_assert!(
            lo <= t && t <= hi,
            "key {}: {} not in {}..={}",
            k,
            t,
            lo,
            hi
        );
        if t > bound {
            prop_assert!(
                s.sorted().iter().any(|c| *c.key == k),
                "key {} ({} > {})",
                k,
                t,
                bound
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn topk_never_under(events in events(), seed: u64) {
        let t = top_of(&events, seed);
        check_top(&t, &exact(&events))?;
        prop_assert_eq!(t.total(), events.iter().map(|&(_, c)| u64::from(c)).sum::<u64>());
    }

    #[test]
    fn topk_merge_never_under(a in events(), b in events(), seed: u64) {
        let mut left = top_of(&a, seed);
        left.merge(&top_of(&b, seed)).unwrap();
        let all: Vec<_> = a.iter().chain(&b).copied().collect();
        let truth = exact(&all);
        // After a merge the list holds keys listed on either side only, so it can be shorter than
        // the number of distinct keys; the rest of `check_top` holds.
        let sorted = left.sorted();
        prop_assert!(sorted.len() <= 4);
        for Counted { key: k, count: c, .. } in sorted.iter() {
            prop_assert!(*c >= truth[*k] && *c <= left.estimate(k));
        }
        drop(sorted);
        prop_assert_eq!(left.total(), top_of(&all, seed).total());
        prop_assert!(left.merge(&Top::with_seed(seed ^ 1)).is_err());
    }

    #[test]
    fn topk_halve_keeps_counts_at_or_above_halved_truth(events in events(), seed: u64) {
        let mut t = top_of(&events, seed);
        t.halve();
        let truth: HashMap<u16, u64> = exact(&events).into_iter().map(|(k, v)| (k, v / 2)).collect();
        for Counted { key: k, count: c, .. } in t.sorted().iter() {
            prop_assert!(*c >= truth[*k] && *c <= t.estimate(k));
        }
    }

    #[test]
    fn space_saving_brackets_the_truth(events in events()) {
        let s = ss_of(&events);
        check_ss(&s, &exact(&events))?;
        let sum: u64 = s.entries().map(|c| c.count).sum();
        prop_assert_eq!(sum, s.total()); // each event raises exactly one counter by its count
    }

    #[test]
    fn space_saving_merge_brackets_the_truth(a in events(), b in events(), c in events()) {
        let mut left = ss_of(&a);
        left.merge(&ss_of(&b)).unwrap();
        left.merge(&ss_of(&c)).unwrap();
        let all: Vec<_> = a.iter().chain(&b).chain(&c).copied().collect();
        prop_assert_eq!(left.total(), all.iter().map(|&(_, c)| u64::from(c)).sum::<u64>());
        // Still true after merging: a key unlisted on both sides is at most the sum of their
        // bounds, which every merged candidate's count reaches; a key dropped at the cut-off had a
        // count (an upper bound) at most the merged minimum.
        check_brackets(&left, &exact(&all))?;
    }

    /// Aging: with the true counts halved (rounding down) at every `halve`, every key's bounds still
    /// bracket its aged count, the error bound still covers every unlisted key and stays at most
    /// N/K, and a listed entry's own error exceeds the bound by at most one.
    #[test]
    fn space_saving_halve_ages_the_bounds_consistently(
        events in prop::collection::vec((0u16..40, 1u16..50, 0u8..20), 0..300),
    ) {
        let mut s = Ss::new();
        let mut aged: HashMap<u16, u64> = HashMap::new();
        let mut n = 0u64;
        for &(k, c, op) in &events {
            if op == 0 {
                s.halve();
                aged.values_mut().for_each(|v| *v /= 2);
                n /= 2;
            } else {
                s.add(&k, u64::from(c));
                *aged.entry(k).or_default() += u64::from(c);
                n += u64::from(c);
            }
            prop_assert_eq!(s.total(), n);
            let bound = s.error_bound();
            prop_assert!(bound <= n / 4, "bound {} above N/K = {}/4", bound, n);
            for e in s.sorted().iter() {
                prop_assert!(e.error <= e.count && e.error <= bound + 1, "{:?}, bound {}", e, bound);
            }
            check_brackets(&s, &aged)?;
        }
    }

    /// What a summary does next depends on its contents only, not on the heap layout its history
    /// left: a copy rebuilt from its entries in reverse order (another layout) adds, evicts, halves
    /// and merges exactly like the original, ties at the cut-off included.
    #[test]
    fn summaries_depend_only_on_contents(a in events(), b in events(), c in events(), seed: u64) {
        let t = top_of(&a, seed);
        let mut entries: Vec<_> = t.entries().map(|c| (*c.key, c.count)).collect();
        entries.reverse();
        let mut copy = Top::from_parts(t.sketch().clone(), entries, t.overlong()).unwrap();
        let mut t = t;
        prop_assert!(copy == t);
        for &(k, n) in &b {
            t.add(&k, u64::from(n));
            copy.add(&k, u64::from(n));
        }
        t.halve();
        copy.halve();
        t.merge(&top_of(&c, seed)).unwrap();
        copy.merge(&top_of(&c, seed)).unwrap();
        prop_assert_eq!(copy.sorted(), t.sorted());
        prop_assert!(copy == t);
        // The side merged in may be stored in any order too.
        let other = top_of(&b, seed);
        let mut entries: Vec<_> = other.entries().map(|c| (*c.key, c.count)).collect();
        entries.reverse();
        let reordered = Top::from_parts(other.sketch().clone(), entries, other.overlong()).unwrap();
        t.merge(&other).unwrap();
        copy.merge(&reordered).unwrap();
        prop_assert!(copy == t);

        let s = ss_of(&a);
        let mut entries: Vec<_> = s.entries().map(|c| (*c.key, c.count, c.error)).collect();
        entries.reverse();
        let mut copy = Ss::from_parts(entries, s.seed(), s.total(), s.overlong()).unwrap();
        let mut s = s;
        prop_assert!(copy == s);
        for &(k, n) in &b {
            s.add(&k, u64::from(n));
            copy.add(&k, u64::from(n));
        }
        s.halve();
        copy.halve();
        s.merge(&ss_of(&c)).unwrap();
        copy.merge(&ss_of(&c)).unwrap();
        prop_assert_eq!(copy.sorted(), s.sorted());
        prop_assert!(copy == s);
        // Merging the other way round gives the same contents too.
        let mut other = ss_of(&c);
        let mut mine = ss_of(&a);
        other.merge(&mine).unwrap();
        mine.merge(&ss_of(&c)).unwrap();
        prop_assert!(other == mine);
    }

    /// A string longer than its slot is counted by `TopK`'s sketch but never listed; Space-Saving
    /// cannot count it at all. Both report it.
    #[test]
    fn overlong_keys_are_reported(lens in prop::collection::vec(0usize..12, 1..50)) {
        let mut top = TopK::<heapless::String<6>, 3, 64, 3>::new();
        let mut ss = SpaceSaving::<heapless::String<6>, 3>::new();
        let mut long = 0u64;
        for len in &lens {
            let key = "abcdefghijkl".get(..*len).unwrap_or("");
            top.increment(key);
            ss.increment(key);
            long += u64::from(*len > 6);
        }
        prop_assert!(top.sorted().iter().all(|c| c.key.len() <= 6));
        prop_assert!(top.overlong() <= long);
        prop_assert_eq!(ss.overlong(), long);
        prop_assert_eq!(ss.total() + long, lens.len() as u64);
        prop_assert_eq!(top.total(), lens.len() as u64);
    }

    #[test]
    fn parts_round_trip_or_refuse(
        events in events(),
        entries in prop::collection::vec((0u16..40, 0u64..2000, 0u64..2000), 0..7),
        total: u64,
        seed: u64,
    ) {
        let t = top_of(&events, seed);
        let back = Top::from_parts(t.sketch().clone(), t.entries().map(|c| (*c.key, c.count)), t.overlong());
        prop_assert_eq!(back.map(|b| b.sorted().into_iter().map(|Counted { key: k, count: c, .. }| (*k, c)).collect::<Vec<_>>()),
            Ok(t.sorted().into_iter().map(|Counted { key: k, count: c, .. }| (*k, c)).collect::<Vec<_>>()));
        let s = ss_of(&events);
        let back = Ss::from_parts(s.entries().map(|c| (*c.key, c.count, c.error)), s.seed(), s.total(), 0).unwrap();
        prop_assert_eq!(back.sorted(), s.sorted());

        let pairs = entries.iter().map(|&(k, c, _)| (k, c));
        let top = Top::from_parts(t.sketch().clone(), pairs, 0);
        check_parts(top, entries.len(), |mut x| {
            x.increment(&1);
            x.len()
        })?;
        let ss = Ss::from_parts(entries.iter().copied(), 0, total, 0);
        check_parts(ss, entries.len(), |mut x| {
            x.increment(&1);
            x.len()
        })?;
    }
}

/// A merge depends only on the other summary's contents: a decoded copy of it (same contents,
/// another storage order) merges exactly like the original, and each key gets the smallest upper
/// bound known for it.
#[test]
fn topk_merge_ignores_the_other_sides_storage_order() {
    type T = TopK<u32, 2, 2, 1>;
    let (mut a, mut b) = (T::new(), T::new());
    a.add(&2, 8);
    b.add(&0, 4);
    b.add(&2, 2);
    a.add(&4, 3);
    let mut buf = [0u8; 256];
    let db: T =
        sketch_nostd::wire::decode(sketch_nostd::wire::encode(&b, &mut buf).unwrap()).unwrap();
    assert!(db == b);
    let mut with_b = a.clone();
    with_b.merge(&b).unwrap();
    let mut with_db = a.clone();
    with_db.merge(&db).unwrap();
    assert_eq!(with_b.sorted(), with_db.sorted());
    assert!(with_b == with_db);
    // Key 2's bound: a lists it with 8, b with its count there; both are upper bounds of the key's
    // count on each side, so their sum is one of the merged key, and so is the merged estimate.
    let bound_2 = (a
        .sorted()
        .iter()
        .find(|Counted { key: k, .. }| **k == 2)
        .unwrap()
        .count
        + b.sorted()
            .iter()
            .find(|Counted { key: k, .. }| **k == 2)
            .unwrap()
            .count)
        .min(with_b.estimate(&2));
    for Counted {
        key: k, count: c, ..
    } in with_b.sorted()
    {
        if *k == 2 {
            assert!(
                c <= bound_2,
                "key 2 listed with {c} above its known bound {bound_2}"
            );
        }
    }
}

/// Space-Saving cannot count a key longer than its slot, so adding one reports 0, whatever the
/// count (0 included), rather than the bound of an unlisted key.
#[test]
fn space_saving_reports_zero_for_an_overlong_key_even_when_adding_zero() {
    let mut ss = SpaceSaving::<heapless::String<2>, 1>::new();
    ss.add("ab", 5);
    assert_eq!(ss.add("abc", 1), 0);
    assert_eq!(ss.add("abc", 0), 0);
    assert_eq!(ss.add("ab", 0), 5);
    assert_eq!(ss.add("cd", 0), 5); // unlisted but countable: its upper bound
}
