//! Counting Bloom filter at 1% FP: insert + remove, positive and negative lookup, for n = 10,000
//! (48 KB, in L2) and 100,000 (480 KB), with u64 and short string keys, against the xxh3 floor.

use crate::keys::{string_keys, u64_keys};
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use sketch_nostd::{
    hash::{hash64, Key},
    sizing::{counting_words_for, k_for},
    CountingBloom,
};
use std::hint::black_box;

const SMALL: u64 = 10_000;
const LARGE: u64 = 100_000;

fn run<const W: usize, const K: u32, T: Key>(
    c: &mut Criterion,
    label: &str,
    members: &[T],
    absent: &[T],
) {
    let mut group = c.benchmark_group(format!("counting/{label}"));
    group.throughput(Throughput::Elements(members.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("xxh3 floor"), |b| {
        b.iter(|| {
            members
                .iter()
                .fold(0u64, |acc, k| acc ^ hash64(black_box(k), 0))
        })
    });
    let mut filter = Box::new(CountingBloom::<W, K>::new());
    // Per operation: every member inserted then removed, so the filter is the same after each batch.
    group.throughput(Throughput::Elements(2 * members.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("insert + remove"), |b| {
        b.iter(|| {
            for k in members {
                filter.insert(black_box(k));
            }
            for k in members {
                let _ = black_box(filter.remove(black_box(k)));
            }
        })
    });
    group.throughput(Throughput::Elements(members.len() as u64));
    for k in members {
        filter.insert(k);
    }
    group.bench_function(BenchmarkId::from_parameter("contains (members)"), |b| {
        b.iter(|| {
            members
                .iter()
                .filter(|k| filter.contains(black_box(*k)))
                .count()
        })
    });
    group.bench_function(BenchmarkId::from_parameter("contains (absent)"), |b| {
        b.iter(|| {
            absent
                .iter()
                .filter(|k| filter.contains(black_box(*k)))
                .count()
        })
    });
    group.finish();
}

fn counting(c: &mut Criterion) {
    for (n, seed) in [(SMALL, 1), (LARGE, 11)] {
        let (members, absent) = (u64_keys(n as usize, seed), u64_keys(n as usize, seed + 1));
        let (s_members, s_absent) = (
            string_keys(n as usize, seed),
            string_keys(n as usize, seed + 2),
        );
        let (s_members, s_absent) = (as_strs(&s_members), as_strs(&s_absent));
        if n == SMALL {
            run::<{ counting_words_for(SMALL, 0.01) }, { k_for(SMALL, 0.01) }, _>(
                c, "10k/u64", &members, &absent,
            );
            run::<{ counting_words_for(SMALL, 0.01) }, { k_for(SMALL, 0.01) }, _>(
                c, "10k/str", &s_members, &s_absent,
            );
        } else {
            run::<{ counting_words_for(LARGE, 0.01) }, { k_for(LARGE, 0.01) }, _>(
                c, "100k/u64", &members, &absent,
            );
            run::<{ counting_words_for(LARGE, 0.01) }, { k_for(LARGE, 0.01) }, _>(
                c, "100k/str", &s_members, &s_absent,
            );
        }
    }
}

fn as_strs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

criterion_group!(benches, counting);
