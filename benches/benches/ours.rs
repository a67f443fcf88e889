//! sketch-nostd alone: what no peer crate offers, so it has no column in the comparison tables. The
//! groups start with `ours/`, which `bench-table` leaves out; `cargo bench -p sketch-benches -- ours/`
//! runs them alone.
//!
//! - `ours/heavy`: the heavy-hitter summaries (`TopK` on a count-min, `SpaceSaving`) and a 1 KB
//!   count-min (256 × 4 u8), per event of the reference Zipf stream;
//! - `ours/heavy/lines u64`: Space-Saving as tui-demo uses it (1,000 counters over 64-bit line
//!   hashes) on a stream like a web log's whole lines: 85% of the events a key never seen before,
//!   the rest the reference Zipf stream, so most events take over the smallest counter;
//! - `ours/countmin rows`: the count-min sketch against its former unmixed row probes (the cost of
//!   rows that collide independently), same shape as the `countmin/` tables;
//! - `ours/hll14`: HyperLogLog at p = 14 (12 KB): insert into the dense and the sparse form,
//!   `estimate()` with each estimator, bounds, and merge;
//! - `ours/merge`: one merge of each mergeable sketch of ours at its benchmark size, through the
//!   sealed `Sketch` trait (generic: the same code for every family);
//! - `ours/deletable`: the deletable filters of `deletable` with short string keys, and the cuckoo
//!   filter with 16-bit fingerprints (0.012% FP at 95% load, against 2.9% for 8-bit ones).

use crate::countmin::{estimate, fed, update, EVENTS};
use crate::deletable::{time, OPS};
use criterion::measurement::WallTime;
use criterion::{criterion_group, BatchSize, BenchmarkGroup, Criterion, Throughput};
use sketch_benches::adapters::{self, BenchKey, CM_D, CM_W, SEED};
use sketch_benches::keys::zipf::{zipf_stream, REFERENCE_KEYS, REFERENCE_SEED};
use sketch_benches::keys::{as_strs, string_keys, u64_keys, ABSENT_SEED, MEMBER_SEED, SMALL};
use sketch_nostd::countmin::{Conservative, Standard};
use sketch_nostd::hash::hash64;
use sketch_nostd::{CountMin, CuckooFilter, Hll14, Sketch, SpaceSaving, TopK};
use std::hint::black_box;

/// Times `add` over every event.
fn per_event(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    events: &[u32],
    mut add: impl FnMut(&u32) -> u64,
) {
    g.bench_function(name, |b| {
        b.iter(|| {
            for k in events {
                black_box(add(black_box(k)));
            }
        })
    });
}

fn heavy(c: &mut Criterion) {
    let events = zipf_stream(REFERENCE_KEYS, EVENTS, REFERENCE_SEED);
    let mut g = c.benchmark_group("ours/heavy/zipf u32/add");
    g.throughput(Throughput::Elements(events.len() as u64));
    crate::xxh3_floor(&mut g, &events);
    let mut big = Box::new(TopK::<u32, 10, CM_W, CM_D>::with_seed(SEED));
    let mut small = Box::new(TopK::<u32, 10, 512, 4>::with_seed(SEED));
    let mut ss = Box::new(SpaceSaving::<u32, 128>::new());
    per_event(&mut g, "TopK<10, 2719x5>", &events, |k| big.increment(k));
    per_event(&mut g, "TopK<10, 512x4>", &events, |k| small.increment(k));
    per_event(&mut g, "SpaceSaving<128>", &events, |k| ss.increment(k));
    g.finish();

    heavy_lines(c);

    // The 1 KB count-min (256 × 4 u8) beside the tables' ε = 0.001 one (2719 × 5 u32, 54 KB).
    let mut standard = fed(
        Box::new(CountMin::<256, 4, u8, Standard>::with_seed(SEED)),
        &events,
    );
    let mut conservative = fed(
        Box::new(CountMin::<256, 4, u8, Conservative>::with_seed(SEED)),
        &events,
    );
    let mut g = c.benchmark_group("ours/heavy/zipf u32/count-min 256x4xu8");
    g.throughput(Throughput::Elements(events.len() as u64));
    update(&mut g, "update standard", &mut standard, &events);
    update(&mut g, "update conservative", &mut conservative, &events);
    estimate(&mut g, "estimate", &standard, &events);
    g.finish();
}

/// Events of `ours/heavy/lines u64`: 200,000 64-bit keys, 85% of them new (a hash of the event's
/// position), the others the reference Zipf stream's key (weights 1/r over 50,000 keys).
fn line_like_stream() -> Vec<u64> {
    const EVENTS: usize = 200_000;
    zipf_stream(REFERENCE_KEYS, EVENTS, REFERENCE_SEED)
        .into_iter()
        .zip(0u64..)
        .map(|(rank, i)| {
            if hash64(&i, 7) % 100 < 85 {
                hash64(&i, 9)
            } else {
                u64::from(rank)
            }
        })
        .collect()
}

/// Space-Saving as tui-demo's heavy-hitter panel runs it, per event of [`line_like_stream`].
fn heavy_lines(c: &mut Criterion) {
    let events = line_like_stream();
    let mut g = c.benchmark_group("ours/heavy/lines u64/add");
    g.throughput(Throughput::Elements(events.len() as u64));
    crate::xxh3_floor(&mut g, &events);
    let mut ss = Box::new(SpaceSaving::<u64, 1_000>::new());
    g.bench_function("SpaceSaving<1000>", |b| {
        b.iter(|| {
            for k in &events {
                black_box(ss.increment(black_box(k)));
            }
        })
    });
    g.finish();
}

/// Count-min with mixed row probes (the sketch) against the former unmixed probes, same stream,
/// same shape (ε = 0.001, δ = 0.01): what independent row collisions cost per event.
fn countmin_rows(c: &mut Criterion) {
    let events = zipf_stream(REFERENCE_KEYS, EVENTS, REFERENCE_SEED);
    let mut mixed = fed(adapters::our_cm::<Standard>(), &events);
    let mut mixed_c = fed(adapters::our_cm::<Conservative>(), &events);
    let mut unmixed = fed(adapters::UnmixedCm::<CM_W, CM_D>::new(SEED, false), &events);
    let mut unmixed_c = fed(adapters::UnmixedCm::<CM_W, CM_D>::new(SEED, true), &events);
    let mut g = c.benchmark_group("ours/countmin rows/zipf u32");
    g.throughput(Throughput::Elements(events.len() as u64));
    update(&mut g, "update standard, mixed rows", &mut mixed, &events);
    update(
        &mut g,
        "update standard, unmixed rows (before)",
        &mut unmixed,
        &events,
    );
    update(
        &mut g,
        "update conservative, mixed rows",
        &mut mixed_c,
        &events,
    );
    update(
        &mut g,
        "update conservative, unmixed rows (before)",
        &mut unmixed_c,
        &events,
    );
    estimate(&mut g, "estimate, mixed rows", &mixed, &events);
    estimate(&mut g, "estimate, unmixed rows (before)", &unmixed, &events);
    g.finish();
}

/// A dense single-stream sketch of `n` keys.
fn filled(n: u64, offset: u64) -> Hll14 {
    let mut h = Hll14::with_seed(1);
    for i in offset..offset + n {
        h.insert(&i);
    }
    h
}

fn hll_insert(c: &mut Criterion) {
    let keys = u64_keys(10_000, 14);
    let mut g = c.benchmark_group("ours/hll14/insert");
    g.throughput(Throughput::Elements(keys.len() as u64));
    crate::xxh3_floor(&mut g, &keys);
    // Dense, 1M keys counted already: almost every insert leaves the registers as they are.
    let mut dense = filled(1_000_000, 1 << 40);
    g.bench_function("dense (u64 keys)", |b| {
        b.iter(|| {
            for k in &keys {
                dense.insert(black_box(k));
            }
        })
    });
    let hashes: Vec<u64> = keys.iter().map(|k| hash64(k, 1)).collect();
    g.bench_function("dense (insert_hash)", |b| {
        b.iter(|| {
            for &h in &hashes {
                dense.insert_hash(black_box(h));
            }
        })
    });
    // A fresh dense sketch: most inserts change a register and update the martingale estimate.
    g.bench_function("dense, empty (u64 keys)", |b| {
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
    });
    let few = &keys[..2_000];
    g.throughput(Throughput::Elements(few.len() as u64));
    g.bench_function("sparse, 2000 keys into a new sketch", |b| {
        b.iter(|| {
            let mut h = Hll14::with_seed(1);
            for k in few {
                h.insert(black_box(k));
            }
            h.coupon_count()
        })
    });
    g.finish();
}

fn hll_estimate(c: &mut Criterion) {
    let mut g = c.benchmark_group("ours/hll14/estimate");
    let single = filled(1_000_000, 0);
    let mut merged = single.clone();
    merged.merge(&filled(10, 5_000_000)).expect("same seed");
    let sparse = filled(2_000, 0);
    g.bench_function("histogram (merged)", |b| {
        b.iter(|| black_box(&merged).cardinality())
    });
    g.bench_function("martingale (single stream)", |b| {
        b.iter(|| black_box(&single).cardinality())
    });
    g.bench_function("sparse", |b| b.iter(|| black_box(&sparse).cardinality()));
    g.bench_function("bounds at 2 sigma (merged)", |b| {
        b.iter(|| {
            let h = black_box(&merged);
            (h.lower_bound(2), h.upper_bound(2))
        })
    });
    g.finish();
}

fn hll_merge(c: &mut Criterion) {
    let mut g = c.benchmark_group("ours/hll14/merge");
    let a = filled(1_000_000, 0);
    let other = filled(1_000_000, 500_000);
    let sparse = filled(2_000, 10_000_000);
    let other_sparse = filled(2_000, 20_000_000);
    g.bench_function("dense into dense", |b| {
        let mut target = a.clone();
        b.iter(|| target.merge(black_box(&other)))
    });
    g.bench_function("sparse (2000) into dense", |b| {
        let mut target = a.clone();
        b.iter(|| target.merge(black_box(&sparse)))
    });
    g.bench_function("sparse (2000) into sparse (2000)", |b| {
        b.iter_batched_ref(
            || sparse.clone(),
            |target| target.merge(black_box(&other_sparse)),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("to_dense (2000 coupons)", |b| {
        b.iter_batched_ref(|| sparse.clone(), |h| h.to_dense(), BatchSize::SmallInput)
    });
    g.finish();
}

/// Times [`adapters::merge_into`] of `other` into a copy of `a`, for any sketch of ours.
fn merge_one<S: Sketch + Clone>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    a: &S,
    other: &S,
) {
    g.bench_function(name, |b| {
        b.iter_batched_ref(
            || a.clone(),
            |target| adapters::merge_into(target, black_box(other)),
            BatchSize::LargeInput,
        )
    });
}

/// Two halves of [`SMALL`] keys in each family, merged through the `Sketch` trait.
fn merge(c: &mut Criterion) {
    use adapters::{Distinct, Filter, Frequency};
    let keys = u64_keys(SMALL, MEMBER_SEED);
    let (left, right) = keys.split_at(SMALL / 2);
    let mut g = c.benchmark_group("ours/merge");
    let (mut bloom_a, mut blocked_a) = adapters::our_blooms_small();
    let (mut bloom_b, mut blocked_b) = adapters::our_blooms_small();
    let mut counting_a = adapters::our_counting::<{ adapters::counting_words(SMALL) }>();
    let mut counting_b = adapters::our_counting::<{ adapters::counting_words(SMALL) }>();
    let (mut cm_a, mut cm_b) = (
        adapters::our_cm::<Standard>(),
        adapters::our_cm::<Standard>(),
    );
    let (mut hll_a, mut hll_b) = (adapters::our_hll(), adapters::our_hll());
    for (half, a) in [(left, true), (right, false)] {
        for k in half {
            if a {
                Filter::insert(&mut bloom_a, k);
                Filter::insert(&mut blocked_a, k);
                adapters::Deletable::insert(&mut counting_a, k);
                Frequency::add(&mut cm_a, k);
                Distinct::insert(&mut hll_a, k);
            } else {
                Filter::insert(&mut bloom_b, k);
                Filter::insert(&mut blocked_b, k);
                adapters::Deletable::insert(&mut counting_b, k);
                Frequency::add(&mut cm_b, k);
                Distinct::insert(&mut hll_b, k);
            }
        }
    }
    merge_one(&mut g, "bloom", &*bloom_a, &*bloom_b);
    merge_one(&mut g, "blocked", &*blocked_a, &*blocked_b);
    merge_one(&mut g, "counting", &*counting_a, &*counting_b);
    merge_one(&mut g, "countmin", &*cm_a, &*cm_b);
    merge_one(&mut g, "hll14", &*hll_a, &*hll_b);
    g.finish();
}

/// Buckets of a cuckoo filter for [`SMALL`] keys at 95% load.
const BUCKETS: usize = adapters::cuckoo_buckets(SMALL);

/// One operation of the deletable filters over [`SMALL`] keys; `all` adds the configurations that
/// `deletable` already times with u64 keys (the counting filter, 8-bit fingerprints).
fn deletable_scenario<K: BenchKey>(
    c: &mut Criterion,
    label: &str,
    all: bool,
    members: &[K],
    absent: &[K],
) {
    for op in OPS {
        let mut g = c.benchmark_group(format!("ours/deletable/{label}/{op}"));
        g.throughput(Throughput::Elements(members.len() as u64));
        crate::xxh3_floor(&mut g, members);
        if all {
            let make = adapters::our_counting::<{ adapters::counting_words(SMALL) }>;
            time(&mut g, op, "counting", make, members, absent);
            let make = adapters::our_cuckoo::<BUCKETS>;
            time(&mut g, op, "cuckoo u8", make, members, absent);
        }
        let make = || Box::new(CuckooFilter::<BUCKETS, u16>::with_seed(SEED));
        time(&mut g, op, "cuckoo u16", make, members, absent);
        g.finish();
    }
}

fn deletable(c: &mut Criterion) {
    let (members, absent) = (u64_keys(SMALL, MEMBER_SEED), u64_keys(SMALL, ABSENT_SEED));
    deletable_scenario(c, "10k u64", false, &members, &absent);
    let (members, absent) = (
        string_keys(SMALL, MEMBER_SEED),
        string_keys(SMALL, ABSENT_SEED),
    );
    deletable_scenario(c, "10k str", true, &as_strs(&members), &as_strs(&absent));
}

criterion_group!(
    benches,
    heavy,
    countmin_rows,
    hll_insert,
    hll_estimate,
    hll_merge,
    merge,
    deletable
);
