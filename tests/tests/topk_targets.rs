//! The top-k targets on the reference Zipf stream (weights 1/r over 50,000 keys, 200,000 events):
//! the true top 10, all of them, in the true order, with counts within 0.5% — and the bytes it took.
//!
//! Why these summaries can be held to it (expected counts f_r ≈ 17,550 / r):
//! * `TopK` with conservative update: a heavy key owns its counters, since lighter keys only raise a
//!   shared counter up to their own (small) estimate, so its estimate is its true count plus what
//!   the other keys of its counters had already put there when it arrived, a few events at most. The
//!   10th key (~1,750 events) is then within 0.5% (~9 events) as long as a row has ≥ ~100 counters per
//!   key heavier than the ~175-event noise floor; 512 × 4 gives that, 256 × 4 fails on some seeds.
//! * `SpaceSaving` with 128 counters: a key's excess is the smallest count when it last took a
//!   counter. The top 10 (each ≥ 0.85% of events) arrive within the first few hundred events, when
//!   the smallest count is a handful, and never leave; 96 counters fail on some seeds.
//!
//! Measured on the seeds below and 5 others: every configuration asserted here met the targets on all.

use sketch_nostd::countmin::{Conservative, Standard, UpdatePolicy};
use sketch_nostd::sizing::{cm_depth, cm_width};
use sketch_nostd::Counted;
use sketch_nostd::{SpaceSaving, TopK};
use sketch_tests::zipf::{
    exact_counts, zipf_stream, TopCheck, REFERENCE_EVENTS, REFERENCE_KEYS, REFERENCE_SEED,
};

const W: usize = cm_width(0.001);
const D: usize = cm_depth(0.01);
const SEEDS: [u64; 3] = [REFERENCE_SEED, 1, 2];
const TOLERANCE: f64 = 0.005;

/// Feeds a `TopK` with 10 slots and returns its size and its list, largest first.
fn top_k<const W: usize, const D: usize, U: UpdatePolicy>(
    stream: &[u32],
    seed: u64,
) -> (usize, Vec<(u32, u64)>) {
    let mut top = Box::new(TopK::<u32, 10, W, D, u32, U>::with_seed(seed));
    for key in stream {
        top.increment(key);
    }
    for Counted {
        key: k, count: c, ..
    } in top.sorted().iter()
    {
        assert!(
            *c <= top.estimate(k),
            "a listed count is an earlier estimate"
        );
    }
    let list = top
        .sorted()
        .iter()
        .map(
            |Counted {
                 key: k, count: c, ..
             }| (**k, *c),
        )
        .collect();
    (core::mem::size_of_val(&*top), list)
}

fn assert_meets(name: &str, stream_seed: u64, bytes: usize, truth: &[u64], list: &[(u32, u64)]) {
    let check = TopCheck::measure(truth, list, 10);
    assert!(
        check.meets(10, TOLERANCE),
        "{name} ({bytes} bytes), stream seed {stream_seed}: {check:?}\n{list:?}"
    );
}

#[test]
fn topk_with_the_spec_sketch_lists_the_true_top_10() {
    for seed in SEEDS {
        let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, seed);
        let truth = exact_counts(&stream, REFERENCE_KEYS);
        let (bytes, list) = top_k::<W, D, Conservative>(&stream, 1);
        assert_eq!(bytes, 54_648);
        assert_meets("TopK<u32, 10, 2719, 5>", seed, bytes, &truth, &list);
    }
}

#[test]
fn topk_with_an_8_kb_sketch_lists_the_true_top_10() {
    for seed in SEEDS {
        let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, seed);
        let truth = exact_counts(&stream, REFERENCE_KEYS);
        let (bytes, list) = top_k::<512, 4, Conservative>(&stream, 1);
        assert_eq!(bytes, 8_456);
        assert_meets("TopK<u32, 10, 512, 4>", seed, bytes, &truth, &list);
    }
}

/// Standard update finds the same 10 keys in the same order, but its counts carry the ~16 events of
/// noise per counter that the minimum over 5 rows leaves (0.8–1.1% of the 10th key's count): the
/// reason `TopK` defaults to conservative update.
#[test]
fn standard_update_misses_the_count_tolerance() {
    let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, REFERENCE_SEED);
    let truth = exact_counts(&stream, REFERENCE_KEYS);
    let (_, list) = top_k::<W, D, Standard>(&stream, 1);
    let check = TopCheck::measure(&truth, &list, 10);
    assert_eq!((check.recall, check.in_order, check.under), (10, true, 0));
    assert!(check.worst_relative_error > TOLERANCE, "{check:?}");
    assert!(check.worst_relative_error < 0.02, "{check:?}");
}

#[test]
fn space_saving_lists_the_true_top_10_in_3_kb() {
    for seed in SEEDS {
        let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, seed);
        let truth = exact_counts(&stream, REFERENCE_KEYS);
        let mut ss = SpaceSaving::<u32, 128>::new();
        for key in &stream {
            ss.increment(key);
        }
        assert_eq!(core::mem::size_of_val(&ss), 3_376);
        let sorted = ss.sorted();
        for c in &sorted {
            let t = truth[*c.key as usize];
            assert!(
                c.guaranteed() <= t && t <= c.count,
                "key {}: {t} vs {c:?}",
                c.key
            );
        }
        let list: Vec<(u32, u64)> = sorted.iter().map(|c| (*c.key, c.count)).collect();
        assert_meets("SpaceSaving<u32, 128>", seed, 3_376, &truth, &list);
        // The guarantee behind it: every key counted more than error_bound() ≤ N/K is listed.
        let bound = ss.error_bound();
        assert!(bound <= REFERENCE_EVENTS as u64 / 128);
        for (k, &t) in truth.iter().enumerate().skip(1) {
            if t > bound {
                assert!(
                    list.iter().any(|(l, _)| *l == k as u32),
                    "key {k} ({t} > {bound})"
                );
            }
        }
    }
}

/// Devices summarise parts of the stream; the host merges. The merged lists still meet the targets.
#[test]
fn merged_summaries_list_the_true_top_10() {
    let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, REFERENCE_SEED);
    let truth = exact_counts(&stream, REFERENCE_KEYS);
    let parts: Vec<&[u32]> = stream.chunks(REFERENCE_EVENTS / 4).collect();

    let mut top = Box::new(TopK::<u32, 10, 512, 4>::with_seed(3));
    let mut ss = SpaceSaving::<u32, 128>::new();
    for part in &parts {
        let mut t = Box::new(TopK::<u32, 10, 512, 4>::with_seed(3));
        let mut s = SpaceSaving::<u32, 128>::new();
        for key in *part {
            t.increment(key);
            s.increment(key);
        }
        top.merge(&t).unwrap();
        ss.merge(&s).unwrap();
    }
    assert_eq!(
        (top.total(), ss.total()),
        (REFERENCE_EVENTS as u64, REFERENCE_EVENTS as u64)
    );
    let list: Vec<(u32, u64)> = top.sorted().iter().map(|c| (*c.key, c.count)).collect();
    assert_meets(
        "merged TopK<u32, 10, 512, 4>",
        REFERENCE_SEED,
        8_456,
        &truth,
        &list,
    );
    let list: Vec<(u32, u64)> = ss.sorted().iter().map(|c| (*c.key, c.count)).collect();
    assert_meets(
        "merged SpaceSaving<u32, 128>",
        REFERENCE_SEED,
        3_376,
        &truth,
        &list,
    );
}
