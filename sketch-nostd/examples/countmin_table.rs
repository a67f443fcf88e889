//! SPEC.md's count-min table: true counts against estimates on a Zipf stream (weights 1/r over
//! 50,000 keys, 200,000 events), with ε = 0.001 and δ = 0.01, for standard and conservative update.
//!
//! `cargo run --release -p sketch-nostd --example countmin_table`

#[allow(dead_code)] // the example uses part of the shared test helpers
#[path = "../../tests/src/rng.rs"]
mod rng;
#[allow(dead_code)]
#[path = "../../tests/src/zipf.rs"]
mod zipf;

use sketch_nostd::countmin::{Conservative, Standard, UpdatePolicy};
use sketch_nostd::sizing::{cm_depth, cm_width};
use sketch_nostd::CountMin;
use zipf::{exact_counts, zipf_stream, Overestimates, SPEC_EVENTS, SPEC_KEYS, SPEC_SEED};

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
    let stream = zipf_stream(SPEC_KEYS, SPEC_EVENTS, SPEC_SEED);
    let truth = exact_counts(&stream, SPEC_KEYS);
    let standard = feed::<Standard>(&stream);
    let conservative = feed::<Conservative>(&stream);
    let n = standard.total();

    println!(
        "Zipf stream: weights 1/r over {SPEC_KEYS} keys, {n} events (stream seed {SPEC_SEED})"
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
    println!("over all {SPEC_KEYS} keys | standard | conservative");
    println!("--- | ---: | ---:");
    println!(
        "worst overestimate (bound ε·N = {}) | {} | {}",
        standard.error_bound(),
        es.worst,
        ec.worst
    );
    println!(
        "keys above the bound | {} | {}",
        es.above_bound, ec.above_bound
    );
    println!(
        "mean overestimate per event | {:.2} | {:.2}",
        es.mean_per_event, ec.mean_per_event
    );
    println!(
        "mean overestimate per key seen | {:.2} | {:.2}",
        es.mean_per_seen_key, ec.mean_per_seen_key
    );
    println!(
        "mean overestimate per key (all) | {:.2} | {:.2}",
        es.mean_per_key, ec.mean_per_key
    );
    println!("underestimates | {} | {}", es.under, ec.under);
}
