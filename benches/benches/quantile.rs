//! Quantile sketches on 100,000 log-normal latencies (median 1,000 µs, σ = 1; `sketch_tests::dists`):
//! insert per value for `QuantileSketch` at α = 1% over 1 … 10^9 (1,047 buckets, `u32` and `u16`
//! counters), `sketches-ddsketch` at α = 1% (its defaults: 2,048 bins a side, growing as needed) and
//! exact sorting (push every value, then sort); then the p99 query. The bytes each holds in memory
//! and encoded after the same values are printed beside (`quantile/bytes`), not timed.

use criterion::measurement::WallTime;
use criterion::{criterion_group, BenchmarkGroup, Criterion, Throughput};
use sketch_nostd::wire::{self, Wire};
use sketch_nostd::QuantileSketch;
use sketch_tests::dists::Dist;
use std::hint::black_box;

/// Values per timed batch.
const VALUES: usize = 100_000;
const SEED: u64 = 0x9a11;

type Ours = QuantileSketch<35, 1_047, u32>;
type Ours16 = QuantileSketch<35, 1_047, u16>;

fn ddsketch() -> sketches_ddsketch::DDSketch {
    sketches_ddsketch::DDSketch::new(sketches_ddsketch::Config::defaults())
}

fn insert_f64(g: &mut BenchmarkGroup<'_, WallTime>, values: &[f64]) {
    let mut ours = Box::new(Ours::new());
    let mut ours16 = Box::new(Ours16::new());
    let mut dd = ddsketch();
    let mut exact: Vec<f64> = Vec::with_capacity(values.len());
    g.bench_function("sketch-nostd", |b| {
        b.iter(|| {
            for &v in values {
                ours.insert(black_box(v));
            }
        })
    });
    g.bench_function("sketch-nostd u16", |b| {
        b.iter(|| {
            // Start afresh each batch: 100,000 values stay below u16's 65,535 per bucket.
            ours16.clear();
            for &v in values {
                ours16.insert(black_box(v));
            }
        })
    });
    g.bench_function("sketches-ddsketch", |b| {
        b.iter(|| {
            for &v in values {
                dd.add(black_box(v));
            }
        })
    });
    g.bench_function("exact (sort)", |b| {
        b.iter(|| {
            exact.clear();
            for &v in values {
                exact.push(black_box(v));
            }
            exact.sort_unstable_by(f64::total_cmp);
        })
    });
}

fn insert_u32(g: &mut BenchmarkGroup<'_, WallTime>, values: &[u32]) {
    let mut ours = Box::new(Ours::new());
    let mut dd = ddsketch();
    let mut exact: Vec<u32> = Vec::with_capacity(values.len());
    g.bench_function("sketch-nostd", |b| {
        b.iter(|| {
            for &v in values {
                ours.insert(black_box(v));
            }
        })
    });
    g.bench_function("sketches-ddsketch", |b| {
        b.iter(|| {
            for &v in values {
                dd.add(f64::from(black_box(v)));
            }
        })
    });
    g.bench_function("exact (sort)", |b| {
        b.iter(|| {
            exact.clear();
            for &v in values {
                exact.push(black_box(v));
            }
            exact.sort_unstable();
        })
    });
}

fn query(g: &mut BenchmarkGroup<'_, WallTime>, values: &[f64]) {
    let mut ours = Box::new(Ours::new());
    let mut dd = ddsketch();
    for &v in values {
        ours.insert(v);
        dd.add(v);
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    g.bench_function("sketch-nostd", |b| {
        b.iter(|| black_box(&ours).quantile(0.99))
    });
    g.bench_function("sketches-ddsketch", |b| {
        b.iter(|| black_box(&dd).quantile(0.99).ok().flatten())
    });
    g.bench_function("exact (sorted)", |b| {
        b.iter(|| {
            let s = black_box(&sorted);
            s[(0.99 * (s.len() - 1) as f64) as usize]
        })
    });
}

/// Prints the bytes in memory and encoded of each after the same values.
fn bytes(values: &[f64]) {
    let mut ours = Box::new(Ours::new());
    let mut ours16 = Box::new(Ours16::new());
    let mut dd = ddsketch();
    for &v in values {
        ours.insert(v);
        ours16.insert(v);
        dd.add(v);
    }
    let mut buf = vec![0u8; Ours::MAX_ENCODED_LEN];
    let ours_wire = wire::encoded_len(&*ours);
    let ours16_wire = wire::encoded_len(&*ours16);
    assert!(wire::encode(&*ours, &mut buf).is_ok());
    // DDSketch keeps a Vec<u64> of bins per sign (length() counts both) beside its struct.
    let dd_memory = core::mem::size_of::<sketches_ddsketch::DDSketch>() + 8 * dd.length();
    let dd_wire = dd.to_java_bytes().len();
    let exact = 8 * values.len();
    println!("quantile/bytes after {} log-normal values:", values.len());
    println!("  {:<20} {:>10} {:>10}", "", "memory", "encoded");
    println!(
        "  {:<20} {:>10} {:>10}",
        "sketch-nostd",
        core::mem::size_of::<Ours>(),
        ours_wire
    );
    println!(
        "  {:<20} {:>10} {:>10}",
        "sketch-nostd u16",
        core::mem::size_of::<Ours16>(),
        ours16_wire
    );
    println!(
        "  {:<20} {:>10} {:>10}",
        "sketches-ddsketch", dd_memory, dd_wire
    );
    println!("  {:<20} {:>10} {:>10}", "exact (f64 each)", exact, exact);
}

fn quantile(c: &mut Criterion) {
    let values = Dist::LogNormal.values(VALUES, SEED);
    let ints: Vec<u32> = values.iter().map(|v| v.round().max(1.0) as u32).collect();
    bytes(&values);
    let mut g = c.benchmark_group("quantile/lognormal f64/insert");
    g.throughput(Throughput::Elements(VALUES as u64));
    insert_f64(&mut g, &values);
    g.finish();
    let mut g = c.benchmark_group("quantile/lognormal u32/insert");
    g.throughput(Throughput::Elements(VALUES as u64));
    insert_u32(&mut g, &ints);
    g.finish();
    let mut g = c.benchmark_group("quantile/lognormal f64/p99");
    query(&mut g, &values);
    g.finish();
}

criterion_group!(benches, quantile);
