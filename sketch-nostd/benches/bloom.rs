//! Bloom filter: insert, positive and negative lookup at 1% FP, for n = 10,000 (in cache) and
//! 1,000,000 (1.2 MB, out of L2), with u64 and short string keys.

use crate::keys::{string_keys, u64_keys};
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use sketch_nostd::{
    hash::{hash64, Key},
    sizing::{k_for, words_for},
    Bloom,
};
use std::hint::black_box;

const SMALL: u64 = 10_000;
const LARGE: u64 = 1_000_000;

fn run<const W: usize, const K: u32, T: Key>(
    c: &mut Criterion,
    label: &str,
    members: &[T],
    absent: &[T],
) {
    let mut group = c.benchmark_group(format!("bloom/{label}"));
    group.throughput(Throughput::Elements(members.len() as u64));
    if members.len() > 100_000 {
        group.sample_size(10);
    }
    group.bench_function(BenchmarkId::from_parameter("xxh3 floor"), |b| {
        b.iter(|| {
            members
                .iter()
                .fold(0u64, |acc, k| acc ^ hash64(black_box(k), 0))
        })
    });
    // A boxed filter: the 1M-key filter is 1.2 MB.
    let mut filter = Box::new(Bloom::<W, K>::new());
    group.bench_function(BenchmarkId::from_parameter("insert"), |b| {
        b.iter(|| {
            for k in members {
                filter.insert(black_box(k));
            }
        })
    });
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

fn bloom(c: &mut Criterion) {
    let (members, absent) = (u64_keys(SMALL as usize, 1), u64_keys(SMALL as usize, 2));
    let (s_members, s_absent) = (
        string_keys(SMALL as usize, 1),
        string_keys(SMALL as usize, 3),
    );
    let (s_members, s_absent) = (as_strs(&s_members), as_strs(&s_absent));
    run::<{ words_for(SMALL, 0.01) }, { k_for(SMALL, 0.01) }, _>(c, "10k/u64", &members, &absent);
    run::<{ words_for(SMALL, 0.01) }, { k_for(SMALL, 0.01) }, _>(
        c, "10k/str", &s_members, &s_absent,
    );

    let (members, absent) = (u64_keys(LARGE as usize, 1), u64_keys(LARGE as usize, 2));
    let (s_members, s_absent) = (
        string_keys(LARGE as usize, 1),
        string_keys(LARGE as usize, 3),
    );
    let (s_members, s_absent) = (as_strs(&s_members), as_strs(&s_absent));
    run::<{ words_for(LARGE, 0.01) }, { k_for(LARGE, 0.01) }, _>(c, "1M/u64", &members, &absent);
    run::<{ words_for(LARGE, 0.01) }, { k_for(LARGE, 0.01) }, _>(
        c, "1M/str", &s_members, &s_absent,
    );
}

fn as_strs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

criterion_group!(benches, bloom);
