//! Bloom filters at 1% FP for n = 10,000 (in L1/L2), 1,000,000 (about 1.2 MB: in this machine's
//! 2 MB L2) and 10,000,000 (about 12 MB: beyond L2, u64 keys only): insert, lookup of members and of
//! absent keys, with u64 and short string keys.

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use sketch_benches::adapters::{
    self, our_blooms_huge, our_blooms_large, our_blooms_small, BenchKey, Filter, FuseKey,
};
use sketch_benches::keys::{
    as_strs, string_keys, u64_keys, ABSENT_SEED, HUGE, LARGE, MEMBER_SEED, SMALL,
};
use std::hint::black_box;
use xorf::Filter as _;

#[derive(Clone, Copy)]
enum Op {
    Insert,
    Member,
    Absent,
}

const OPS: [(Op, &str); 3] = [
    (Op::Insert, "insert"),
    (Op::Member, "contains member"),
    (Op::Absent, "contains absent"),
];

/// Times one operation of one implementation over every key.
fn time<K: BenchKey, F: Filter<K>>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    op: Op,
    name: &str,
    f: &mut F,
    members: &[K],
    absent: &[K],
) {
    match op {
        Op::Insert => g.bench_function(name, |b| {
            b.iter(|| {
                for k in members {
                    f.insert(black_box(k));
                }
            })
        }),
        Op::Member | Op::Absent => {
            let keys = if matches!(op, Op::Member) {
                members
            } else {
                absent
            };
            g.bench_function(name, |b| {
                b.iter(|| keys.iter().filter(|k| f.contains(black_box(*k))).count())
            })
        }
    };
}

fn filled<K: BenchKey, F: Filter<K>>(mut f: F, members: &[K]) -> F {
    for k in members {
        f.insert(k);
    }
    f
}

fn scenario<K: BenchKey + FuseKey, F0: Filter<K>, F1: Filter<K>>(
    c: &mut Criterion,
    label: &str,
    (ours, blocked): (F0, F1),
    members: &[K],
    absent: &[K],
) {
    let n = members.len();
    // Every filter holds the members before any group runs, so a group run alone (`-- contains`)
    // times the same filled filters; timed inserts re-insert the same keys.
    let mut ours = filled(ours, members);
    let mut blocked = filled(blocked, members);
    let mut fastbloom = filled(adapters::fastbloom(n), members);
    let mut bloomfilter = filled(adapters::bloomfilter::<K>(n), members);
    let mut sbbf = filled(adapters::sbbf(n), members);
    let mut datasketches = filled(adapters::datasketches_bloom(n), members);
    let fuse = adapters::binary_fuse8(members);
    for (op, op_name) in OPS {
        let mut g = c.benchmark_group(format!("bloom/{label}/{op_name}"));
        g.throughput(Throughput::Elements(n as u64));
        if n > 100_000 {
            g.sample_size(10).sampling_mode(SamplingMode::Flat);
        }
        crate::xxh3_floor(&mut g, members);
        time(&mut g, op, "sketch-nostd", &mut ours, members, absent);
        time(
            &mut g,
            op,
            "sketch-nostd blocked",
            &mut blocked,
            members,
            absent,
        );
        time(&mut g, op, "fastbloom", &mut fastbloom, members, absent);
        time(&mut g, op, "bloomfilter", &mut bloomfilter, members, absent);
        time(&mut g, op, "sbbf-rs-safe", &mut sbbf, members, absent);
        time(
            &mut g,
            op,
            "datasketches",
            &mut datasketches,
            members,
            absent,
        );
        // The static reference: built once from every key (its "insert" is the build, per key).
        match op {
            Op::Insert => g.bench_function("xorf BinaryFuse8", |b| {
                b.iter(|| adapters::binary_fuse8(black_box(members)))
            }),
            Op::Member | Op::Absent => {
                let keys = if matches!(op, Op::Member) {
                    members
                } else {
                    absent
                };
                g.bench_function("xorf BinaryFuse8", |b| {
                    b.iter(|| {
                        keys.iter()
                            .filter(|k| fuse.contains(&black_box(*k).fuse_key()))
                            .count()
                    })
                })
            }
        };
        g.finish();
    }
}

/// [`scenario`] with `n` u64 keys, then with `n` short string keys, into new filters from `ours`.
fn u64_and_str<F0, F1>(c: &mut Criterion, (size, n): (&str, usize), ours: impl Fn() -> (F0, F1))
where
    F0: Filter<u64> + for<'a> Filter<&'a str>,
    F1: Filter<u64> + for<'a> Filter<&'a str>,
{
    let (members, absent) = (u64_keys(n, MEMBER_SEED), u64_keys(n, ABSENT_SEED));
    scenario(c, &format!("{size} u64"), ours(), &members, &absent);
    let (members, absent) = (string_keys(n, MEMBER_SEED), string_keys(n, ABSENT_SEED));
    let (members, absent) = (as_strs(&members), as_strs(&absent));
    scenario(c, &format!("{size} str"), ours(), &members, &absent);
}

fn bloom(c: &mut Criterion) {
    u64_and_str(c, ("10k", SMALL), our_blooms_small);
    u64_and_str(c, ("1M", LARGE), our_blooms_large);
    // Beyond L2: u64 keys only (10M strings would take 1 GB of key storage for one more row).
    let (members, absent) = (u64_keys(HUGE, MEMBER_SEED), u64_keys(HUGE, ABSENT_SEED));
    scenario(c, "10M u64", our_blooms_huge(), &members, &absent);
}

criterion_group!(benches, bloom);
