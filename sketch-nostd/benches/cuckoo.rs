//! Cuckoo filter sized for n keys at 95% load (16-bit fingerprints: 0.012% FP, 8-bit: 2.9%):
//! insert + remove, positive and negative lookup, for n = 10,000 (21 KB) and 100,000 (210 KB), with
//! u64 and short string keys, against the xxh3 floor.

use crate::keys::{string_keys, u64_keys};
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use sketch_nostd::{
    cuckoo::Fingerprint,
    hash::{hash64, Key},
    sizing::{cuckoo_buckets_for, CUCKOO_MAX_LOAD},
    CuckooFilter,
};
use std::hint::black_box;

const SMALL: u64 = 10_000;
const LARGE: u64 = 100_000;

fn run<const B: usize, F: Fingerprint, T: Key>(
    c: &mut Criterion,
    label: &str,
    members: &[T],
    absent: &[T],
) {
    let mut group = c.benchmark_group(format!("cuckoo/{label}"));
    group.throughput(Throughput::Elements(members.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("xxh3 floor"), |b| {
        b.iter(|| {
            members
                .iter()
                .fold(0u64, |acc, k| acc ^ hash64(black_box(k), 0))
        })
    });
    let mut filter = Box::new(CuckooFilter::<B, F>::new());
    // Per operation: fill to 95% (kicks included) and empty again, so every batch starts the same.
    group.throughput(Throughput::Elements(2 * members.len() as u64));
    group.bench_function(BenchmarkId::from_parameter("insert + remove"), |b| {
        b.iter(|| {
            for k in members {
                let _ = black_box(filter.insert(black_box(k)));
            }
            for k in members {
                black_box(filter.remove(black_box(k)));
            }
        })
    });
    group.throughput(Throughput::Elements(members.len() as u64));
    for k in members {
        filter.insert(k).expect("sized for these keys");
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

const fn buckets(n: u64) -> usize {
    cuckoo_buckets_for(n, CUCKOO_MAX_LOAD)
}

fn cuckoo(c: &mut Criterion) {
    let (members, absent) = (u64_keys(SMALL as usize, 1), u64_keys(SMALL as usize, 2));
    let (s_members, s_absent) = (
        string_keys(SMALL as usize, 1),
        string_keys(SMALL as usize, 3),
    );
    let (s_members, s_absent) = (as_strs(&s_members), as_strs(&s_absent));
    run::<{ buckets(SMALL) }, u16, _>(c, "10k/u16fp/u64", &members, &absent);
    run::<{ buckets(SMALL) }, u16, _>(c, "10k/u16fp/str", &s_members, &s_absent);
    run::<{ buckets(SMALL) }, u8, _>(c, "10k/u8fp/u64", &members, &absent);

    let (members, absent) = (u64_keys(LARGE as usize, 11), u64_keys(LARGE as usize, 12));
    let (s_members, s_absent) = (
        string_keys(LARGE as usize, 11),
        string_keys(LARGE as usize, 13),
    );
    let (s_members, s_absent) = (as_strs(&s_members), as_strs(&s_absent));
    run::<{ buckets(LARGE) }, u16, _>(c, "100k/u16fp/u64", &members, &absent);
    run::<{ buckets(LARGE) }, u16, _>(c, "100k/u16fp/str", &s_members, &s_absent);
}

fn as_strs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

criterion_group!(benches, cuckoo);
