//! Deletable filters next to the Bloom filter: memory per key and measured false-positive rate for
//! n = 10,000 keys at a 1% and a 0.1% target, as a Markdown table for the README.
//!
//! `cargo run --release -p sketch-nostd --example deletable_table`
//!
//! Keys `0..n` (u64), 1,000,000 never-inserted probes `n..n + 1,000,000`, seed 0. "theory" is the
//! formula for the filter as built: (1 − e^(−kn/m))^k for the Bloom filters, 1 − (1 − 1/(2^f − 1))^(8α)
//! for the cuckoo filters at load α. A cuckoo filter's rate is set by its fingerprint width, not by
//! its size: 16-bit fingerprints give 0.012% whatever the target, 8-bit ones reach 1% only at a load
//! of 32% or less.

use sketch_nostd::{
    cuckoo::Fingerprint,
    sizing::{
        counting_words_for, cuckoo_buckets_for, cuckoo_fp_rate, fp_rate, k_for, words_for,
        CUCKOO_MAX_LOAD,
    },
    Bloom, CountingBloom, CuckooFilter,
};

const N: u64 = 10_000;
const PROBES: u64 = 1_000_000;

fn print_row(target: &str, label: &str, bytes: usize, fp: u64, theory: f64) {
    println!(
        "| {target} | {label} | {bytes} | {:.2} | {:.1} | {:.4}% | {:.4}% |",
        bytes as f64 / N as f64,
        8.0 * bytes as f64 / N as f64,
        100.0 * fp as f64 / PROBES as f64,
        100.0 * theory
    );
}

fn bloom<const W: usize, const K: u32>(target: &str) {
    let mut f = Box::new(Bloom::<W, K>::new());
    (0..N).for_each(|k| {
        f.insert(&k);
    });
    assert!((0..N).all(|k| f.contains(&k)));
    let fp = (N..N + PROBES).filter(|k| f.contains(k)).count() as u64;
    let label = format!("`Bloom<{W}, {K}>`");
    print_row(
        target,
        &label,
        size_of::<Bloom<W, K>>(),
        fp,
        fp_rate(64 * W as u64, N, K),
    );
}

fn counting<const W: usize, const K: u32>(target: &str) {
    let mut f = Box::new(CountingBloom::<W, K>::new());
    (0..N).for_each(|k| {
        f.insert(&k);
    });
    assert!((0..N).all(|k| f.contains(&k)) && !f.is_saturated());
    let fp = (N..N + PROBES).filter(|k| f.contains(k)).count() as u64;
    let label = format!("`CountingBloom<{W}, {K}>`");
    let bytes = size_of::<CountingBloom<W, K>>();
    print_row(target, &label, bytes, fp, fp_rate(16 * W as u64, N, K));
}

fn cuckoo<const B: usize, F: Fingerprint>(target: &str, width: &str) {
    let mut f = Box::new(CuckooFilter::<B, F>::new());
    for k in 0..N {
        f.insert(&k).expect("sized for n keys");
    }
    assert!((0..N).all(|k| f.contains(&k)));
    let fp = (N..N + PROBES).filter(|k| f.contains(k)).count() as u64;
    let label = format!("`CuckooFilter<{B}, {width}>` (load {:.2})", f.load_factor());
    let theory = cuckoo_fp_rate(F::BITS, f.load_factor());
    print_row(target, &label, size_of::<CuckooFilter<B, F>>(), fp, theory);
}

fn main() {
    println!("n = {N} keys (0..n), {PROBES} never-inserted probes, seed 0");
    println!();
    println!("| target | filter | bytes | bytes/key | bits/key | measured FP | theory |");
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: |");
    for (target, p) in [("1%", 0.01), ("0.1%", 0.001)] {
        if p == 0.01 {
            bloom::<{ words_for(N, 0.01) }, { k_for(N, 0.01) }>(target);
            counting::<{ counting_words_for(N, 0.01) }, { k_for(N, 0.01) }>(target);
            // 8-bit fingerprints reach 1% only at load ≤ 0.32: 8α/255 ≤ 0.01.
            cuckoo::<{ cuckoo_buckets_for(N, 0.31) }, u8>(target, "u8");
        } else {
            bloom::<{ words_for(N, 0.001) }, { k_for(N, 0.001) }>(target);
            counting::<{ counting_words_for(N, 0.001) }, { k_for(N, 0.001) }>(target);
        }
        cuckoo::<{ cuckoo_buckets_for(N, CUCKOO_MAX_LOAD) }, u16>(target, "u16");
    }
    // Where 16-bit cuckoo filters win: a Bloom filter at the cuckoo filter's own rate.
    let target = "0.0116%";
    bloom::<{ words_for(N, 0.000_116) }, { k_for(N, 0.000_116) }>(target);
    cuckoo::<{ cuckoo_buckets_for(N, CUCKOO_MAX_LOAD) }, u16>(target, "u16");
    cuckoo::<{ cuckoo_buckets_for(N, CUCKOO_MAX_LOAD) }, u8>("2.9%", "u8");
    bloom::<{ words_for(N, 0.029) }, { k_for(N, 0.029) }>("2.9%");
}
