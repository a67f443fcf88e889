//! Count-min at ε = 0.001, δ = 0.01 on the reference Zipf stream (weights 1/r over 50,000 keys): update
//! (standard and conservative) and estimate, per event.

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, Throughput};
use sketch_benches::adapters::{self, Frequency};
use sketch_benches::keys::zipf::{zipf_stream, REFERENCE_KEYS, REFERENCE_SEED};
use sketch_nostd::countmin::{Conservative, Standard};
use std::hint::black_box;

/// Events per timed batch.
pub(crate) const EVENTS: usize = 100_000;

pub(crate) fn update<F: Frequency<u32>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    f: &mut F,
    events: &[u32],
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            for k in events {
                f.add(black_box(k));
            }
        })
    });
}

pub(crate) fn estimate<F: Frequency<u32>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    f: &F,
    events: &[u32],
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            events
                .iter()
                .fold(0u64, |acc, k| acc.wrapping_add(f.estimate(black_box(k))))
        })
    });
}

pub(crate) fn fed<F: Frequency<u32>>(mut f: F, events: &[u32]) -> F {
    for k in events {
        f.add(k);
    }
    f
}

fn countmin(c: &mut Criterion) {
    let events = zipf_stream(REFERENCE_KEYS, EVENTS, REFERENCE_SEED);
    let mut ours = fed(adapters::our_cm::<Standard>(), &events);
    let mut ours_c = fed(adapters::our_cm::<Conservative>(), &events);
    let mut datasketches = fed(adapters::datasketches_cm(), &events);
    let mut cms = fed(adapters::count_min_sketch(), &events);
    let mut streaming = fed(adapters::streaming_cm(), &events);
    for op in ["update standard", "update conservative", "estimate"] {
        let mut g = c.benchmark_group(format!("countmin/zipf u32/{op}"));
        g.throughput(Throughput::Elements(events.len() as u64));
        crate::xxh3_floor(&mut g, &events);
        match op {
            "update standard" => {
                update(&mut g, "sketch-nostd", &mut ours, &events);
                update(&mut g, "datasketches", &mut datasketches, &events);
            }
            "update conservative" => {
                update(&mut g, "sketch-nostd conservative", &mut ours_c, &events);
                update(&mut g, "count-min-sketch", &mut cms, &events);
                update(&mut g, "streaming_algorithms", &mut streaming, &events);
            }
            _ => {
                estimate(&mut g, "sketch-nostd", &ours, &events);
                estimate(&mut g, "datasketches", &datasketches, &events);
                estimate(&mut g, "count-min-sketch", &cms, &events);
                estimate(&mut g, "streaming_algorithms", &streaming, &events);
            }
        }
        g.finish();
    }
}

criterion_group!(benches, countmin);
