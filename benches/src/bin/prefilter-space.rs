//! Bits per key at equal false-positive rates (the space table of `docs/prefilters.md`):
//! `cargo run --release -p sketch-benches --bin prefilter-space`.
//!
//! For 10^4 and 10^6 u64 keys: our binary fuse filters (8 and 16 bits) and `xorf`'s, against our
//! Bloom and blocked Bloom filters sized by `sizing` for the fuse filters' rates (2^−8 and 2^−16).
//! Each row also gives the rate measured on 10^6 keys never inserted, and the floor log2(1/p).

use sketch_benches::adapters::on_big_stack;
use sketch_benches::keys::{u64_keys, ABSENT_SEED, MEMBER_SEED};
use sketch_nostd::fuse::{BinaryFuse16, BinaryFuse8};
use sketch_nostd::sizing::{blocked_blocks_for, k_for, words_for};
use sketch_nostd::{BlockedBloom, Bloom};
use xorf::Filter as _;

const P8: f64 = 1.0 / 256.0;
const P16: f64 = 1.0 / 65_536.0;
const PROBES: usize = 1_000_000;

fn row(name: &str, n: usize, bytes: usize, contains: impl Fn(&u64) -> bool) {
    let absent = u64_keys(PROBES, ABSENT_SEED);
    let fp = absent.iter().filter(|k| contains(k)).count() as f64 / PROBES as f64;
    println!(
        "| {n} | {name} | {:.2} | {:.4}% |",
        8.0 * bytes as f64 / n as f64,
        100.0 * fp
    );
}

macro_rules! blooms {
    ($n:expr, $members:expr, $p:expr, $label:expr) => {{
        const N: u64 = $n;
        let members: &Vec<u64> = $members;
        let mut bloom = on_big_stack(|| {
            Box::new(Bloom::<{ words_for(N, $p) }, { k_for(N, $p) }>::with_seed(
                7,
            ))
        });
        let mut blocked = on_big_stack(|| {
            Box::new(BlockedBloom::<{ blocked_blocks_for(N, $p, 8) }, 8>::with_seed(7))
        });
        for k in members {
            bloom.insert(k);
            blocked.insert(k);
        }
        row(
            concat!("sketch-nostd Bloom at ", $label),
            N as usize,
            8 * bloom.as_words().len(),
            |k| bloom.contains(k),
        );
        row(
            concat!("sketch-nostd BlockedBloom (K = 8) at ", $label),
            N as usize,
            64 * blocked.as_blocks().len(),
            |k| blocked.contains(k),
        );
    }};
}

fn fuses(n: usize, members: &[u64]) {
    let f8 = BinaryFuse8::from_keys(members, 7).expect("built");
    let f16 = BinaryFuse16::from_keys(members, 7).expect("built");
    let x8 = xorf::BinaryFuse8::try_from(members).expect("built");
    let x16 = xorf::BinaryFuse16::try_from(members).expect("built");
    let view8 = f8.view();
    let view16 = f16.view();
    // Our sizes count the fingerprint array only (the envelope adds under 30 bytes), as xorf's do.
    row(
        "sketch-nostd BinaryFuse8",
        n,
        (view8.bits_per_key() * n as f64 / 8.0) as usize,
        |k| view8.contains(k),
    );
    row("xorf BinaryFuse8", n, x8.fingerprints.len(), |k| {
        x8.contains(k)
    });
    row(
        "sketch-nostd BinaryFuse16",
        n,
        (view16.bits_per_key() * n as f64 / 8.0) as usize,
        |k| view16.contains(k),
    );
    row("xorf BinaryFuse16", n, 2 * x16.fingerprints.len(), |k| {
        x16.contains(k)
    });
}

fn main() {
    println!("| keys | filter | bits per key | measured false positives |");
    println!("| -: | --- | -: | -: |");
    let small = u64_keys(10_000, MEMBER_SEED);
    fuses(10_000, &small);
    blooms!(10_000, &small, P8, "2^-8");
    blooms!(10_000, &small, P16, "2^-16");
    let large = u64_keys(1_000_000, MEMBER_SEED);
    fuses(1_000_000, &large);
    blooms!(1_000_000, &large, P8, "2^-8");
    blooms!(1_000_000, &large, P16, "2^-16");
    println!(
        "\nfloor log2(1/p): {:.1} bits at 2^-8, {:.1} at 2^-16; Bloom optimum 1.44·log2(1/p): {:.1} and {:.1}",
        8.0,
        16.0,
        1.44 * 8.0,
        1.44 * 16.0
    );
}
