//! Prefilters on the hot path: `cargo bench -p sketch-benches --bench main -- prefilter/`.
//!
//! * `prefilter/{n} u64/blocked …`: `BlockedBloom` (and its zero-copy view, over the encoded bytes
//!   as they come and placed with the body on a 64-byte boundary) against `sbbf-rs-safe`
//!   (a split-block filter that picks AVX2 at run time), both fed the same xxh3-64 hashes of the
//!   same keys, so the rows compare the filters, not their hashing. Run it once per build:
//!   default (x86-64 baseline, SSE2) and `RUSTFLAGS="-C target-cpu=x86-64-v3"` (AVX2, BMI2, FMA).
//! * `prefilter/{n} u64/fuse …`: lookups of our binary fuse filters (the owned filter and its view)
//!   against `xorf`'s, both given the
//!   key as its 64-bit hash (xorf's API takes `u64` keys; ours is `contains_hash`), so both do the
//!   same mix and three fingerprint reads.
//!
//! `docs/prefilters.md` has the table and the command of the run it quotes.

use criterion::{criterion_group, Criterion, Throughput};
use sketch_benches::adapters::{blocked_blocks, our_blocked, sbbf, SEED};
use sketch_benches::keys::{u64_keys, ABSENT_SEED, LARGE, MEMBER_SEED, SMALL};
use sketch_nostd::fuse::{BinaryFuse16, BinaryFuse8};
use sketch_nostd::hash::hash64;
use sketch_nostd::wire::{self, BlockedBloomRef, Wire};
use std::hint::black_box;
use xorf::Filter as _;

fn blocked<const B: usize>(c: &mut Criterion, label: &str, n: usize) {
    let members: Vec<u64> = u64_keys(n, MEMBER_SEED)
        .iter()
        .map(|k| hash64(k, SEED))
        .collect();
    let absent: Vec<u64> = u64_keys(n, ABSENT_SEED)
        .iter()
        .map(|k| hash64(k, SEED))
        .collect();
    let mut ours = our_blocked::<B>();
    let mut peer = sbbf(n);
    for &h in &members {
        ours.insert_hash(h);
        peer.insert_hash(h);
    }
    let mut bytes = vec![0u8; sketch_nostd::BlockedBloom::<B, 8>::MAX_ENCODED_LEN];
    let len = wire::encode_view(&*ours, &mut bytes).expect("fits").len();
    let view = BlockedBloomRef::new(&bytes[..len]).expect("valid");
    // The same bytes placed so that the body (after the envelope and tag) starts on a 64-byte
    // boundary, as a linker section or an aligned download buffer can place them: each block is
    // then one cache line, as in the owned filter, where `bytes` puts each across two.
    let body_at = len - 64 * B;
    let mut spare = vec![0u8; len + 128];
    let shift = (64 - (spare.as_ptr() as usize + body_at) % 64) % 64;
    spare[shift..shift + len].copy_from_slice(&bytes[..len]);
    let aligned = BlockedBloomRef::new(&spare[shift..shift + len]).expect("valid");

    let mut g = c.benchmark_group(format!("prefilter/{label}/blocked insert"));
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("sketch-nostd blocked", |b| {
        b.iter(|| {
            members.iter().for_each(|&h| {
                ours.insert_hash(black_box(h));
            })
        })
    });
    g.bench_function("sbbf-rs-safe", |b| {
        b.iter(|| {
            members.iter().for_each(|&h| {
                peer.insert_hash(black_box(h));
            })
        })
    });
    g.finish();
    for (op, keys) in [("contains member", &members), ("contains absent", &absent)] {
        let mut g = c.benchmark_group(format!("prefilter/{label}/blocked {op}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function("sketch-nostd blocked", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&h| ours.contains_hash(black_box(h)))
                    .count()
            })
        });
        g.bench_function("sketch-nostd BlockedBloomRef", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&h| view.contains_hash(black_box(h)))
                    .count()
            })
        });
        g.bench_function("sketch-nostd BlockedBloomRef, body 64-aligned", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&h| aligned.contains_hash(black_box(h)))
                    .count()
            })
        });
        g.bench_function("sbbf-rs-safe", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&h| peer.contains_hash(black_box(h)))
                    .count()
            })
        });
        g.finish();
    }
}

fn fuse(c: &mut Criterion, label: &str, n: usize) {
    let members = u64_keys(n, MEMBER_SEED);
    let absent = u64_keys(n, ABSENT_SEED);
    let ours8 = BinaryFuse8::from_hashes(members.clone(), SEED).expect("built");
    let ours16 = BinaryFuse16::from_hashes(members.clone(), SEED).expect("built");
    let view8 = ours8.view();
    let view16 = ours16.view();
    let xorf8 = xorf::BinaryFuse8::try_from(&members).expect("built");
    let xorf16 = xorf::BinaryFuse16::try_from(&members).expect("built");
    for (op, keys) in [("contains member", &members), ("contains absent", &absent)] {
        let mut g = c.benchmark_group(format!("prefilter/{label}/fuse {op}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function("sketch-nostd BinaryFuse8Ref", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&k| view8.contains_hash(black_box(k)))
                    .count()
            })
        });
        g.bench_function("sketch-nostd BinaryFuse8", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&k| ours8.contains_hash(black_box(k)))
                    .count()
            })
        });
        g.bench_function("xorf BinaryFuse8", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&k| xorf8.contains(black_box(k)))
                    .count()
            })
        });
        g.bench_function("sketch-nostd BinaryFuse16Ref", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&k| view16.contains_hash(black_box(k)))
                    .count()
            })
        });
        g.bench_function("sketch-nostd BinaryFuse16", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&&k| ours16.contains_hash(black_box(k)))
                    .count()
            })
        });
        g.bench_function("xorf BinaryFuse16", |b| {
            b.iter(|| {
                keys.iter()
                    .filter(|&k| xorf16.contains(black_box(k)))
                    .count()
            })
        });
        g.finish();
    }
}

fn prefilter(c: &mut Criterion) {
    blocked::<{ blocked_blocks(SMALL) }>(c, "10k u64", SMALL);
    blocked::<{ blocked_blocks(LARGE) }>(c, "1M u64", LARGE);
    fuse(c, "10k u64", SMALL);
    fuse(c, "1M u64", LARGE);
}

criterion_group!(benches, prefilter);
