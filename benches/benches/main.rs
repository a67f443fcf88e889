//! Criterion benchmarks of sketch-nostd against peer crates, one module per family:
//! `cargo bench -p sketch-benches` (all), `cargo bench -p sketch-benches -- bloom/` (one family).
//!
//! Every group times one operation over the same pre-generated keys for every implementation, plus a
//! bare xxh3-64 of the keys (`xxh3 floor`): the lower bound of any sketch that hashes its keys. Group
//! names are `family/scenario/operation`, function names the implementation; `bench-table` turns the
//! results into the README tables (ratios within one run). What no peer crate offers (heavy-hitter
//! summaries, HyperLogLog's internals, 16-bit cuckoo fingerprints, ...) is in `ours`, under `ours/`
//! group names that `bench-table` leaves out: `cargo bench -p sketch-benches -- ours/`.
#![allow(missing_docs)]

use criterion::measurement::WallTime;
use criterion::BenchmarkGroup;
use sketch_nostd::hash::{hash64, Key};
use std::hint::black_box;

mod bloom;
mod countmin;
mod deletable;
mod hll;
mod ours;
mod prefilter;
mod quantile;

/// Times a bare xxh3-64 of every key (`xxh3 floor`): the lower bound of any sketch that hashes them.
fn xxh3_floor<K: Key>(g: &mut BenchmarkGroup<'_, WallTime>, keys: &[K]) {
    g.bench_function("xxh3 floor", |b| {
        b.iter(|| {
            keys.iter()
                .fold(0u64, |acc, k| acc ^ hash64(black_box(k), 0))
        })
    });
}

/// Where `bench-table` finds the load averages of the run (criterion writes beside it).
const LOAD_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/criterion/sketch-benches-load.txt"
);

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "unknown".into())
}

/// `criterion_main!` plus a record of the machine's load at the start and the end of the run, and of
/// the benchmark filter if there is one.
fn main() {
    let start = load_average();
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-') && a.parse::<f64>().is_err())
        .collect();
    let families: [(&str, fn()); 7] = [
        ("bloom", bloom::benches),
        ("hll", hll::benches),
        ("countmin", countmin::benches),
        ("deletable", deletable::benches),
        ("ours", ours::benches),
        ("prefilter", prefilter::benches),
        ("quantile", quantile::benches),
    ];
    // A run whose every filter begins with a family's name and `/` (`-- prefilter/`) sets up only
    // those families: building the others' filters (10M keys) takes minutes before the first
    // measurement. (So `-- deletable/` no longer runs `ours/deletable/…`; `-- deletable` does.)
    let family_of = |f: &str| {
        families
            .iter()
            .find(|(n, _)| f.starts_with(&format!("{n}/")))
    };
    let wanted = |family: &str| {
        filters.is_empty()
            || filters
                .iter()
                .any(|f| family_of(f).is_none_or(|(n, _)| *n == family))
    };
    for (family, benches) in families {
        if wanted(family) {
            benches();
        }
    }
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
    // A full run starts the record afresh; a filtered run (`-- countmin/`) adds its line, so the
    // table says which rows came from which run.
    let line = format!("{start} {} {}\n", load_average(), filters.join(","));
    let previous = if filters.is_empty() {
        String::new()
    } else {
        std::fs::read_to_string(LOAD_FILE).unwrap_or_default()
    };
    let _ = std::fs::write(LOAD_FILE, previous + &line);
}
