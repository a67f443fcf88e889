//! Deletable filters for n = 10,000 and 1,000,000 at about 1% FP: insert, lookup (members, absent)
//! and remove, with u64 keys.

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use sketch_benches::adapters::{self, BenchKey, Deletable};
use sketch_benches::keys::{u64_keys, ABSENT_SEED, LARGE, MEMBER_SEED, SMALL};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn filled<K: BenchKey, F: Deletable<K>>(mut f: F, members: &[K]) -> F {
    for k in members {
        f.insert(k);
    }
    f
}

/// Times `timed` over every member, then runs `undo` over them untimed, so every iteration starts
/// from the same filter.
fn round_trip<K: BenchKey, F: Deletable<K>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    mut f: F,
    members: &[K],
    timed: impl Fn(&mut F, &K),
    undo: impl Fn(&mut F, &K),
) {
    g.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                for k in members {
                    timed(&mut f, black_box(k));
                }
                total += start.elapsed();
                for k in members {
                    undo(&mut f, k);
                }
            }
            total
        })
    });
}

/// The timed operations, in table order.
pub(crate) const OPS: [&str; 4] = ["insert", "contains member", "contains absent", "remove"];

/// Times one operation of one implementation over every key.
pub(crate) fn time<K: BenchKey, F: Deletable<K>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    op: &str,
    name: &str,
    make: impl Fn() -> F,
    members: &[K],
    absent: &[K],
) {
    let insert = |f: &mut F, k: &K| {
        f.insert(k);
    };
    match op {
        "insert" => {
            // Insert every member into the empty filter (timed), remove them again (untimed): the
            // same allocation each time, so the figure is not the page faults of a fresh table.
            round_trip(g, name, make(), members, insert, F::remove);
        }
        "remove" => {
            // Remove every member (timed), put them back (untimed): the same filled filter each time.
            round_trip(g, name, filled(make(), members), members, F::remove, insert);
        }
        _ => {
            let f = filled(make(), members);
            let keys = if op == "contains member" {
                members
            } else {
                absent
            };
            g.bench_function(name, |b| {
                b.iter(|| keys.iter().filter(|k| f.contains(black_box(*k))).count())
            });
        }
    }
}

fn deletable(c: &mut Criterion) {
    for (n, size) in [(SMALL, "10k"), (LARGE, "1M")] {
        let (members, absent) = (u64_keys(n, MEMBER_SEED), u64_keys(n, ABSENT_SEED));
        for op in OPS {
            let mut g = c.benchmark_group(format!("deletable/{size} u64/{op}"));
            g.throughput(Throughput::Elements(n as u64));
            if n > 100_000 {
                g.sample_size(10).sampling_mode(SamplingMode::Flat);
            }
            crate::xxh3_floor(&mut g, &members);
            if n == SMALL {
                let make = adapters::our_counting::<{ adapters::counting_words(SMALL) }>;
                time(&mut g, op, "sketch-nostd counting", make, &members, &absent);
                let make = adapters::our_cuckoo::<{ adapters::cuckoo_buckets(SMALL) }>;
                time(&mut g, op, "sketch-nostd cuckoo", make, &members, &absent);
            } else {
                let make = adapters::our_counting::<{ adapters::counting_words(LARGE) }>;
                time(&mut g, op, "sketch-nostd counting", make, &members, &absent);
                let make = adapters::our_cuckoo::<{ adapters::cuckoo_buckets(LARGE) }>;
                time(&mut g, op, "sketch-nostd cuckoo", make, &members, &absent);
            }
            time(
                &mut g,
                op,
                "cuckoofilter",
                || adapters::cuckoofilter(n),
                &members,
                &absent,
            );
            time(
                &mut g,
                op,
                "bloom (counting)",
                || adapters::counting_bloom(n),
                &members,
                &absent,
            );
            g.finish();
        }
    }
}

criterion_group!(benches, deletable);
