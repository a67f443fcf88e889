//! HyperLogLog at p = 14: insert (per key, into a sketch past its sparse phase) and estimate (one
//! call on a sketch holding 1,000,000 distinct keys), with u64 and short string keys.

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, Throughput};
use datasketches::hll::HllType;
use sketch_benches::adapters::{self, BenchKey, Distinct};
use sketch_benches::keys::{as_strs, string_keys, u64_keys, LARGE, MEMBER_SEED};
use std::hint::black_box;

/// Keys per timed insert batch (the sketch already holds all [`LARGE`] keys: dense registers).
const BATCH: usize = 100_000;

fn time<K: BenchKey, D: Distinct<K>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    op: &str,
    name: &str,
    mut d: D,
    keys: &[K],
) {
    for k in keys {
        d.insert(k);
    }
    if op == "insert" {
        let batch = &keys[..BATCH];
        g.bench_function(name, |b| {
            b.iter(|| {
                for k in batch {
                    d.insert(black_box(k));
                }
            })
        });
    } else {
        g.bench_function(name, |b| b.iter(|| black_box(&mut d).estimate()));
    }
}

fn scenario<K: BenchKey>(c: &mut Criterion, label: &str, keys: &[K]) {
    for op in ["insert", "estimate"] {
        let mut g = c.benchmark_group(format!("hll/{label}/{op}"));
        let per_iter = if op == "insert" { BATCH } else { 1 };
        g.throughput(Throughput::Elements(per_iter as u64));
        if op == "insert" {
            crate::xxh3_floor(&mut g, &keys[..BATCH]);
        }
        time(&mut g, op, "sketch-nostd", adapters::our_hll(), keys);
        time(
            &mut g,
            op,
            "hyperloglockless",
            adapters::hyperloglockless(),
            keys,
        );
        time(
            &mut g,
            op,
            "cardinality-estimator",
            adapters::CardinalityEstimator::<K>::new(),
            keys,
        );
        time(
            &mut g,
            op,
            "hyperloglogplus",
            adapters::hyperloglogplus::<K>(),
            keys,
        );
        time(
            &mut g,
            op,
            "datasketches Hll6",
            adapters::datasketches_hll(HllType::Hll6),
            keys,
        );
        time(
            &mut g,
            op,
            "datasketches Hll8",
            adapters::datasketches_hll(HllType::Hll8),
            keys,
        );
        g.finish();
    }
}

fn hll(c: &mut Criterion) {
    scenario(c, "u64", &u64_keys(LARGE, MEMBER_SEED));
    let strings = string_keys(LARGE, MEMBER_SEED);
    scenario(c, "str", &as_strs(&strings));
}

criterion_group!(benches, hll);
