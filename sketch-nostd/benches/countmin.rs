//! Count-min: update (standard and conservative) and estimate, per event of SPEC.md's Zipf stream,
//! for the ε = 0.001, δ = 0.01 sketch (2,719 × 5 u32, 54 KB: beyond L1) and a 1 KB one (256 × 4 u8);
//! and the heavy-hitter summaries built on it (`TopK`) or beside it (`SpaceSaving`), per event.

use crate::keys::zipf::{zipf_stream, SPEC_KEYS, SPEC_SEED};
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use sketch_nostd::{
    countmin::{Conservative, Counter, Standard, UpdatePolicy},
    hash::hash64,
    sizing::{cm_depth, cm_width},
    CountMin, SpaceSaving, TopK,
};
use std::hint::black_box;

/// Events per timed batch.
const EVENTS: usize = 10_000;

fn add<const W: usize, const D: usize, C: Counter, U: UpdatePolicy>(
    c: &mut Criterion,
    label: &str,
    events: &[u32],
) {
    let mut group = c.benchmark_group(format!("countmin/{label}"));
    group.throughput(Throughput::Elements(events.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("xxh3 floor"), |b| {
        b.iter(|| {
            events
                .iter()
                .fold(0u64, |acc, k| acc ^ hash64(black_box(k), 0))
        })
    });
    let mut cm = Box::new(CountMin::<W, D, C, U>::with_seed(1));
    let rule = if cm.is_conservative() {
        "add conservative"
    } else {
        "add standard"
    };
    group.bench_function(BenchmarkId::from_parameter(rule), |b| {
        b.iter(|| {
            for k in events {
                cm.increment(black_box(k));
            }
        })
    });
    group.bench_function(BenchmarkId::from_parameter("estimate"), |b| {
        b.iter(|| {
            events
                .iter()
                .fold(0u64, |acc, k| acc.wrapping_add(cm.estimate(black_box(k))))
        })
    });
    group.finish();
}

fn countmin(c: &mut Criterion) {
    let events = zipf_stream(SPEC_KEYS, EVENTS, SPEC_SEED);
    const W: usize = cm_width(0.001);
    const D: usize = cm_depth(0.01);
    add::<W, D, u32, Standard>(c, "2719x5xu32/standard", &events);
    add::<W, D, u32, Conservative>(c, "2719x5xu32/conservative", &events);
    add::<256, 4, u8, Standard>(c, "256x4xu8/standard", &events);
    add::<256, 4, u8, Conservative>(c, "256x4xu8/conservative", &events);
}

fn heavy_hitters(c: &mut Criterion) {
    let events = zipf_stream(SPEC_KEYS, EVENTS, SPEC_SEED);
    let mut group = c.benchmark_group("topk/zipf");
    group.throughput(Throughput::Elements(events.len() as u64));
    let mut big = Box::new(TopK::<u32, 10, { cm_width(0.001) }, { cm_depth(0.01) }>::with_seed(1));
    group.bench_function(BenchmarkId::from_parameter("TopK<10, 2719x5> add"), |b| {
        b.iter(|| {
            for k in &events {
                big.increment(black_box(k));
            }
        })
    });
    let mut small = Box::new(TopK::<u32, 10, 512, 4>::with_seed(1));
    group.bench_function(BenchmarkId::from_parameter("TopK<10, 512x4> add"), |b| {
        b.iter(|| {
            for k in &events {
                small.increment(black_box(k));
            }
        })
    });
    let mut ss = Box::new(SpaceSaving::<u32, 128>::new());
    group.bench_function(BenchmarkId::from_parameter("SpaceSaving<128> add"), |b| {
        b.iter(|| {
            for k in &events {
                ss.increment(black_box(k));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, countmin, heavy_hitters);
