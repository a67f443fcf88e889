//! Runs one operation of one implementation over the benchmark keys, for instruction counts under
//! callgrind (steadier than time on a shared machine):
//!
//! ```sh
//! cargo build --release -p sketch-benches --bin profile
//! valgrind --tool=callgrind --toggle-collect='*timed*' target/release/profile hll insert sketch-nostd
//! ```
//!
//! Only the `timed` function is counted: divide callgrind's total by the operations printed. An
//! optional fourth argument repeats the loop, for `perf stat -e cycles,instructions`.

use sketch_benches::adapters::{self, Distinct, Filter, Frequency};
use sketch_benches::keys::{u64_keys, ABSENT_SEED, MEMBER_SEED, SMALL};
use sketch_nostd::countmin::{Conservative, Standard};
use std::hint::black_box;

/// Times the keys go through the measured loop (the optional fourth argument; default 1), so that
/// `perf stat` can see the loop above the set-up.
fn repeats() -> usize {
    std::env::args()
        .nth(4)
        .and_then(|r| r.parse().ok())
        .unwrap_or(1)
}

/// The measured loop: callgrind collects inside this function only.
#[inline(never)]
fn timed(keys: &[u64], mut op: impl FnMut(&u64)) {
    for _ in 0..repeats() {
        for k in keys {
            op(black_box(k));
        }
    }
}

fn filter<F: Filter<u64>>(mut f: F, op: &str, members: &[u64], absent: &[u64]) {
    for k in members {
        f.insert(k);
    }
    match op {
        "insert" => timed(members, |k| f.insert(k)),
        "member" => timed(members, |k| {
            black_box(f.contains(k));
        }),
        _ => timed(absent, |k| {
            black_box(f.contains(k));
        }),
    }
}

fn distinct<D: Distinct<u64>>(mut d: D, keys: &[u64]) {
    for k in keys {
        d.insert(k);
    }
    timed(keys, |k| d.insert(k));
}

fn frequency<F: Frequency<u64>>(mut f: F, op: &str, keys: &[u64]) {
    for k in keys {
        f.add(k);
    }
    match op {
        "update" => timed(keys, |k| f.add(k)),
        _ => timed(keys, |k| {
            black_box(f.estimate(k));
        }),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [family, op, name] = [0, 1, 2].map(|i| args.get(i).map_or("", String::as_str));
    let (members, absent) = (u64_keys(SMALL, MEMBER_SEED), u64_keys(SMALL, ABSENT_SEED));
    match (family, name) {
        ("bloom", "sketch-nostd") => filter(
            adapters::our_bloom::<{ adapters::words_for_small() }, 7>(),
            op,
            &members,
            &absent,
        ),
        ("bloom", "sketch-nostd blocked") => filter(
            adapters::our_blocked::<{ adapters::blocked_blocks(SMALL) }>(),
            op,
            &members,
            &absent,
        ),
        ("bloom", "fastbloom") => filter(adapters::fastbloom(SMALL), op, &members, &absent),
        ("bloom", "sbbf-rs-safe") => filter(adapters::sbbf(SMALL), op, &members, &absent),
        ("hll", "sketch-nostd") => distinct(adapters::our_hll(), &members),
        ("hll", "hyperloglockless") => distinct(adapters::hyperloglockless(), &members),
        ("hll", "cardinality-estimator") => {
            distinct(adapters::CardinalityEstimator::<u64>::new(), &members);
        }
        ("hll", "datasketches Hll8") => distinct(
            adapters::datasketches_hll(datasketches::hll::HllType::Hll8),
            &members,
        ),
        ("countmin", "sketch-nostd") => frequency(adapters::our_cm::<Standard>(), op, &members),
        ("countmin", "sketch-nostd conservative") => {
            frequency(adapters::our_cm::<Conservative>(), op, &members);
        }
        ("countmin", "datasketches") => frequency(adapters::datasketches_cm(), op, &members),
        ("xxh3", _) => timed(&members, |k| {
            black_box(sketch_nostd::hash::hash64(k, 0));
        }),
        _ => {
            eprintln!(
                "usage: profile bloom|hll|countmin|xxh3 insert|member|absent|update|estimate IMPL"
            );
            std::process::exit(2);
        }
    }
    println!("{} operations", SMALL * repeats());
}
