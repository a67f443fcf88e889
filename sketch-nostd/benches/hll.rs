//! HyperLogLog at p = 14 (12 KB): insert into the dense and the sparse form, `estimate()` with each
//! estimator, bounds, and merge.

use crate::keys::u64_keys;
use criterion::{criterion_group, BatchSize, BenchmarkId, Criterion, Throughput};
use sketch_nostd::{hash::hash64, Hll14};
use std::hint::black_box;

/// A dense single-stream sketch of `n` keys.
fn filled(n: u64, offset: u64) -> Hll14 {
    let mut h = Hll14::with_seed(1);
    for i in offset..offset + n {
        h.insert(&i);
    }
    h
}

fn insert(c: &mut Criterion) {
    let keys = u64_keys(10_000, 14);
    let mut group = c.benchmark_group("hll14/insert");
    group.throughput(Throughput::Elements(keys.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("xxh3 floor"), |b| {
        b.iter(|| {
            keys.iter()
                .fold(0u64, |acc, k| acc ^ hash64(black_box(k), 1))
        })
    });
    // Dense, 1M keys counted already: almost every insert leaves the registers as they are.
    let mut dense = filled(1_000_000, 1 << 40);
    group.bench_function(BenchmarkId::from_parameter("dense (u64 keys)"), |b| {
        b.iter(|| {
            for k in &keys {
                dense.insert(black_box(k));
            }
        })
    });
    let hashes: Vec<u64> = keys.iter().map(|k| hash64(k, 1)).collect();
    group.bench_function(BenchmarkId::from_parameter("dense (insert_hash)"), |b| {
        b.iter(|| {
            for &h in &hashes {
                dense.insert_hash(black_box(h));
            }
        })
    });
    // A fresh dense sketch: most inserts change a register and update the martingale estimate.
    group.bench_function(
        BenchmarkId::from_parameter("dense, empty (u64 keys)"),
        |b| {
            b.iter_batched_ref(
                || {
                    let mut h = Hll14::with_seed(1);
                    h.to_dense();
                    h
                },
                |h| {
                    for k in &keys {
                        h.insert(black_box(k));
                    }
                },
                BatchSize::SmallInput,
            )
        },
    );
    let few = &keys[..2_000];
    group.throughput(Throughput::Elements(few.len() as u64));
    group.bench_function(
        BenchmarkId::from_parameter("sparse, 2000 keys into a new sketch"),
        |b| {
            b.iter(|| {
                let mut h = Hll14::with_seed(1);
                for k in few {
                    h.insert(black_box(k));
                }
                h.coupon_count()
            })
        },
    );
    group.finish();
}

fn estimate(c: &mut Criterion) {
    let mut group = c.benchmark_group("hll14/estimate");
    let single = filled(1_000_000, 0);
    let mut merged = single.clone();
    merged.merge(&filled(10, 5_000_000)).expect("same seed");
    let sparse = filled(2_000, 0);
    group.bench_function(BenchmarkId::from_parameter("histogram (merged)"), |b| {
        b.iter(|| black_box(&merged).estimate())
    });
    group.bench_function(
        BenchmarkId::from_parameter("martingale (single stream)"),
        |b| b.iter(|| black_box(&single).estimate()),
    );
    group.bench_function(BenchmarkId::from_parameter("sparse"), |b| {
        b.iter(|| black_box(&sparse).estimate())
    });
    group.bench_function(
        BenchmarkId::from_parameter("bounds at 2 sigma (merged)"),
        |b| {
            b.iter(|| {
                let h = black_box(&merged);
                (h.lower_bound(2), h.upper_bound(2))
            })
        },
    );
    group.finish();
}

fn merge(c: &mut Criterion) {
    let mut group = c.benchmark_group("hll14/merge");
    let a = filled(1_000_000, 0);
    let other = filled(1_000_000, 500_000);
    let sparse = filled(2_000, 10_000_000);
    let other_sparse = filled(2_000, 20_000_000);
    group.bench_function(BenchmarkId::from_parameter("dense into dense"), |b| {
        let mut target = a.clone();
        b.iter(|| target.merge(black_box(&other)))
    });
    group.bench_function(
        BenchmarkId::from_parameter("sparse (2000) into dense"),
        |b| {
            let mut target = a.clone();
            b.iter(|| target.merge(black_box(&sparse)))
        },
    );
    group.bench_function(
        BenchmarkId::from_parameter("sparse (2000) into sparse (2000)"),
        |b| {
            b.iter_batched_ref(
                || sparse.clone(),
                |target| target.merge(black_box(&other_sparse)),
                BatchSize::SmallInput,
            )
        },
    );
    group.bench_function(
        BenchmarkId::from_parameter("to_dense (2000 coupons)"),
        |b| b.iter_batched_ref(|| sparse.clone(), |h| h.to_dense(), BatchSize::SmallInput),
    );
    group.finish();
}

criterion_group!(benches, insert, estimate, merge);
