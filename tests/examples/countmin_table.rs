//! The count-min reference table: true counts against estimates on a Zipf stream (weights 1/r over
//! 50,000 keys, 200,000 events), with ε = 0.001 and δ = 0.01, for standard and conservative update;
//! then the top 10 as listed by `TopK` (count-min + heap) and `SpaceSaving`, with the bytes each used.
//!
//! The tests `tests/tests/countmin_targets.rs` and `tests/tests/topk_targets.rs` assert on the same
//! stream (`sketch_tests::zipf`).
//!
//! `cargo run --release -p sketch-tests --example countmin_table`

use sketch_nostd::countmin::{Conservative, Standard, UpdatePolicy};
use sketch_nostd::sizing::{cm_depth, cm_width};
use sketch_nostd::{CountMin, SpaceSaving, TopK};
use sketch_tests::zipf::{
    exact_counts, true_top, zipf_stream, Overestimates, TopCheck, REFERENCE_EVENTS, REFERENCE_KEYS,
    REFERENCE_SEED,
};

const W: usize = cm_width(0.001);
const D: usize = cm_depth(0.01);
const SKETCH_SEED: u64 = 1;

fn feed<U: UpdatePolicy>(stream: &[u32]) -> Box<CountMin<W, D, u32, U>> {
    let mut cm = Box::new(CountMin::with_seed(SKETCH_SEED));
    for key in stream {
        cm.increment(key);
    }
    cm
}

fn main() {
    let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, REFERENCE_SEED);
    let truth = exact_counts(&stream, REFERENCE_KEYS);
    let standard = feed::<Standard>(&stream);
    let conservative = feed::<Conservative>(&stream);
    let n = standard.total();

    println!(
        "Zipf stream: weights 1/r over {REFERENCE_KEYS} keys, {n} events (stream seed {REFERENCE_SEED})"
    );
    println!(
        "CountMin<{W}, {D}, u32>: ε = {:.6}, δ = {:.4}, {} bytes; ε·N = {:.2}, error_bound() = {}",
        standard.epsilon(),
        standard.delta(),
        core::mem::size_of_val(&*standard),
        standard.epsilon() * n as f64,
        standard.error_bound()
    );
    println!();
    println!("| rank | true | standard | over | conservative | over |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    for rank in [1u32, 2, 3, 10, 100, 1000] {
        let t = truth[rank as usize];
        let (s, c) = (standard.estimate(&rank), conservative.estimate(&rank));
        println!(
            "| {rank} | {t} | {s} | {} | {c} | {} |",
            s as i64 - t as i64,
            c as i64 - t as i64
        );
    }
    let bound = standard.error_bound();
    let es = Overestimates::measure(&truth, bound, |k| standard.estimate(&k));
    let ec = Overestimates::measure(&truth, bound, |k| conservative.estimate(&k));
    println!();
    println!("| over all {REFERENCE_KEYS} keys | standard | conservative |");
    println!("| --- | ---: | ---: |");
    println!(
        "| worst overestimate (bound ε·N = {}) | {} | {} |",
        standard.error_bound(),
        es.worst,
        ec.worst
    );
    println!(
        "| keys above the bound | {} | {} |",
        es.above_bound, ec.above_bound
    );
    println!(
        "| mean overestimate per event | {:.2} | {:.2} |",
        es.mean_per_event, ec.mean_per_event
    );
    println!(
        "| mean overestimate per key seen | {:.2} | {:.2} |",
        es.mean_per_seen_key, ec.mean_per_seen_key
    );
    println!(
        "| mean overestimate per key (all) | {:.2} | {:.2} |",
        es.mean_per_key, ec.mean_per_key
    );
    println!("| underestimates | {} | {} |", es.under, ec.under);

    top_ten(&stream, &truth);
}

/// The top 10 by three summaries, beside the true counts.
fn top_ten(stream: &[u32], truth: &[u64]) {
    let mut big = Box::new(TopK::<u32, 10, W, D>::with_seed(SKETCH_SEED));
    let mut small = Box::new(TopK::<u32, 10, 512, 4>::with_seed(SKETCH_SEED));
    let mut ss = Box::new(SpaceSaving::<u32, 128>::new());
    for key in stream {
        big.increment(key);
        small.increment(key);
        ss.increment(key);
    }
    let big_list: Vec<(u32, u64)> = big.sorted().iter().map(|c| (*c.key, c.count)).collect();
    let small_list: Vec<(u32, u64)> = small.sorted().iter().map(|c| (*c.key, c.count)).collect();
    let ss_sorted = ss.sorted();
    let ss_list: Vec<(u32, u64)> = ss_sorted.iter().map(|c| (*c.key, c.count)).collect();

    println!();
    println!("Top 10 (conservative update in both TopK sketches):");
    println!();
    println!("| true rank | key | true | TopK<{W}×{D}> | TopK<512×4> | SpaceSaving<128> (error) |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let cell = |list: &[(u32, u64)], i: usize| {
        list.get(i)
            .map_or("-".to_string(), |(k, c)| format!("{k}: {c}"))
    };
    for (i, key) in true_top(truth, 10).iter().enumerate() {
        let ss_error = ss_sorted.get(i).map_or(0, |c| c.error);
        println!(
            "| {} | {key} | {} | {} | {} | {} ({ss_error}) |",
            i + 1,
            truth[*key as usize],
            cell(&big_list, i),
            cell(&small_list, i),
            cell(&ss_list, i),
        );
    }
    println!();
    println!("| summary | bytes | top-10 recall | true order | worst count error |");
    println!("| --- | ---: | ---: | --- | ---: |");
    for (name, bytes, list) in [
        (
            format!("TopK<u32, 10, {W}, {D}>"),
            core::mem::size_of_val(&*big),
            &big_list,
        ),
        (
            "TopK<u32, 10, 512, 4>".to_string(),
            core::mem::size_of_val(&*small),
            &small_list,
        ),
        (
            "SpaceSaving<u32, 128>".to_string(),
            core::mem::size_of_val(&*ss),
            &ss_list,
        ),
    ] {
        let check = TopCheck::measure(truth, list, 10);
        println!(
            "| {name} | {bytes} | {}/10 | {} | {:+.3}% |",
            check.recall,
            if check.in_order { "yes" } else { "no" },
            100.0 * check.worst_relative_error
        );
    }
}
