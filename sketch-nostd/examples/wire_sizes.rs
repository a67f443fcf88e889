//! Encoded size of every sketch type at several fill levels, as a Markdown table for the README.
//!
//! `cargo run --release -p sketch-nostd --example wire_sizes`
//!
//! Keys are `0..n` as `u64`, seed 7 (0 for the micro filters). "memory" is `size_of` the sketch;
//! "frame" adds the device id (1 byte here), sequence number (1), CRC-32 (4), COBS overhead and the
//! delimiter.

use sketch_nostd::hll::{Hll10, Hll14};
use sketch_nostd::wire::{self, Frame, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, HyperLogLog, MicroBloom,
    MicroBloom32, SpaceSaving, TopK,
};

/// The envelope of `bytes` and the offset of the body after it ("SK", version, kind, the
/// parameters and the seed as varints).
fn envelope(bytes: &[u8]) -> Option<(wire::Header, usize)> {
    let h = wire::peek(bytes).ok()?;
    let varint_len = |v: u64| (64 - (v | 1).leading_zeros() as usize).div_ceil(7);
    let at = 4 + h.params().iter().map(|&p| varint_len(p)).sum::<usize>() + varint_len(h.seed);
    Some((h, at))
}

/// The length of the varint at `bytes[at..]`.
fn varint_at(bytes: &[u8], at: usize) -> usize {
    bytes
        .iter()
        .skip(at)
        .take_while(|&&b| b & 0x80 != 0)
        .count()
        + 1
}

/// The body encoding chosen, named from the tag byte after the envelope.
fn body_name(bytes: &[u8], tag_names: &[&str]) -> String {
    let Some((h, mut at)) = envelope(bytes) else {
        return "?".into();
    };
    if h.kind == wire::SketchKind::CountMin {
        // The total N, a varint, comes before the tag.
        at += varint_at(bytes, at);
    }
    if h.kind == wire::SketchKind::CuckooFilter {
        // The victim slot: a varint (0: none), then its fingerprint.
        let victim = bytes.get(at).copied().unwrap_or(0);
        at += varint_at(bytes, at);
        if victim != 0 {
            at += h.params()[1] as usize / 8;
        }
    }
    match tag_names {
        [] => "raw".into(),
        names => bytes
            .get(at)
            .and_then(|&t| names.get(usize::from(t)))
            .map_or_else(|| "?".into(), |s| (*s).into()),
    }
}

fn row<T: Wire + Clone>(label: &str, n: &str, sketch: &T, tag_names: &[&str]) {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let name = body_name(wire::encode(sketch, &mut buf).unwrap(), tag_names);
    row_named(label, n, sketch, &name);
}

fn row_named<T: Wire + Clone>(label: &str, n: &str, sketch: &T, body: &str) {
    let mut buf = vec![0u8; Frame::<T>::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf).unwrap().to_vec();
    let frame = Frame {
        device: 1,
        seq: 1,
        sketch: sketch.clone(),
    };
    let frame_len = frame.encode(&mut buf).unwrap().len();
    println!(
        "| {label} | {n} | {} | {} | {body} | {frame_len} | {} |",
        size_of::<T>(),
        bytes.len(),
        T::MAX_ENCODED_LEN,
    );
}

/// A sketch the table fills with the keys `0..n`.
trait Fill: Wire + Clone {
    /// Adds key `i`.
    fn fill(&mut self, i: u64);
}

macro_rules! fill_by_insert {
    ($([$($generics:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($generics)*> Fill for $t {
            fn fill(&mut self, i: u64) {
                let _ = self.insert(&i);
            }
        }
    )*};
}
fill_by_insert!(
    [const W: usize, const K: u32] Bloom<W, K>,
    [const B: usize, const K: u32] BlockedBloom<B, K>,
    [const W: usize, const K: u32] CountingBloom<W, K>,
    [const B: usize] CuckooFilter<B>,
    [const K: u32] MicroBloom<K>,
    [const K: u32] MicroBloom32<K>,
);

impl<const W: usize, const D: usize> Fill for CountMin<W, D, u32> {
    /// Zipf-like: key i counted about 1000/(i+1) times.
    fn fill(&mut self, i: u64) {
        self.add(&i, 1 + 1_000 / (i + 1));
    }
}

/// A [`row`] per fill level `n`: `empty` after [`Fill::fill`] of every key in `0..n`.
fn filled_rows<T: Fill>(label: &str, ns: &[u64], tag_names: &[&str], empty: T) {
    for &n in ns {
        let mut sketch = empty.clone();
        for i in 0..n {
            sketch.fill(i);
        }
        row(label, &format!("{n}"), &sketch, tag_names);
    }
}

const BLOOM_TAGS: &[&str] = &["dense", "zero runs", "sparse"];

fn bloom_rows<const W: usize, const K: u32>(label: &str, ns: &[u64]) {
    filled_rows(label, ns, BLOOM_TAGS, Bloom::<W, K>::with_seed(7));
}

const CM_TAGS: &[&str] = &["dense", "zero runs"];

fn count_min_rows<const W: usize, const D: usize>(label: &str, ns: &[u64]) {
    filled_rows(label, ns, CM_TAGS, CountMin::<W, D, u32>::with_seed(7));
}

/// HLL state byte, then the tag.
fn hll_body(bytes: &[u8]) -> String {
    let Some((_, at)) = envelope(bytes) else {
        return "?".into();
    };
    let state = bytes.get(at).copied().unwrap_or(0);
    let dense = state & 1 != 0;
    let tag_at = at + 1 + if dense && state & 2 != 0 { 8 } else { 0 };
    let names: &[&str] = if dense {
        &["dense: packed", "dense: register list", "dense: compact"]
    } else {
        &["sparse: Rice coupons", "sparse: raw coupons"]
    };
    bytes
        .get(tag_at)
        .and_then(|&t| names.get(usize::from(t)))
        .map_or_else(|| "?".into(), |s| (*s).into())
}

fn hll_rows<const P: u8, const BYTES: usize>(label: &str, ns: &[u64]) {
    for &n in ns {
        let mut h = HyperLogLog::<P, BYTES>::with_seed(7);
        for i in 0..n {
            h.insert(&i);
        }
        let mut dense = h.clone();
        dense.to_dense();
        for (sketch, what) in [(&h, ""), (&dense, " (after `to_dense`)")] {
            if what.is_empty() || h.is_sparse() {
                let mut buf = vec![0u8; Frame::<HyperLogLog<P, BYTES>>::MAX_ENCODED_LEN];
                let bytes = wire::encode(sketch, &mut buf).unwrap().to_vec();
                let frame_len = Frame {
                    device: 1,
                    seq: 1,
                    sketch: sketch.clone(),
                }
                .encode(&mut buf)
                .unwrap()
                .len();
                println!(
                    "| {label}{what} | {n} | {} | {} | {} | {frame_len} | {} |",
                    size_of::<HyperLogLog<P, BYTES>>(),
                    bytes.len(),
                    hll_body(&bytes),
                    HyperLogLog::<P, BYTES>::MAX_ENCODED_LEN,
                );
            }
        }
    }
}

/// The count-min body encoding inside a top-k summary: the tag after the envelope and the total.
fn body_name_cm<T: Wire>(top: &T) -> String {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(top, &mut buf).unwrap();
    let Some((_, at)) = envelope(bytes) else {
        return "?".into();
    };
    match bytes.get(at + varint_at(bytes, at)) {
        Some(0) => "dense".into(),
        Some(1) => "zero runs".into(),
        _ => "?".into(),
    }
}

fn heavy_rows(ns: &[u64]) {
    for &n in ns {
        let mut top = TopK::<u64, 10, 272, 5>::with_seed(7);
        let mut ss = SpaceSaving::<u64, 128>::new();
        for i in 0..n {
            top.add(&i, 1 + 1_000 / (i + 1));
            ss.add(&i, 1 + 1_000 / (i + 1));
        }
        let body = format!("count-min ({}) + {} entries", body_name_cm(&top), top.len());
        row_named("`TopK<u64, 10, 272, 5>`", &format!("{n}"), &top, &body);
        let body = format!("{} entries", ss.len());
        row_named("`SpaceSaving<u64, 128>`", &format!("{n}"), &ss, &body);
    }
}

fn main() {
    println!("| sketch | keys | memory (B) | encoded (B) | body | frame (B) | max encoded (B) |");
    println!("| --- | ---: | ---: | ---: | --- | ---: | ---: |");
    bloom_rows::<1563, 7>(
        "`Bloom<1563, 7>` (10k keys at 1%)",
        &[0, 10, 100, 1_000, 5_000, 10_000],
    );
    bloom_rows::<16, 4>("`Bloom<16, 4>` (1 Kibit)", &[0, 10, 50, 200]);
    hll_rows::<14, 12_288>(
        "`Hll14`",
        &[0, 100, 1_000, 2_000, 10_000, 100_000, 1_000_000],
    );
    hll_rows::<10, 768>("`Hll10`", &[0, 100, 1_000, 10_000, 100_000]);
    let _ = (Hll10::new(), Hll14::new());
    count_min_rows::<272, 5>(
        "`CountMin<272, 5, u32>` (ε = 1%, δ = 1%)",
        &[0, 10, 100, 1_000, 10_000],
    );
    let label = "`BlockedBloom<24, 8>` (12 Kibit)";
    filled_rows(
        label,
        &[0, 10, 100, 1_000],
        BLOOM_TAGS,
        BlockedBloom::<24, 8>::with_seed(7),
    );
    heavy_rows(&[0, 10, 100, 10_000]);
    let label = "`CountingBloom<600, 7>` (1k keys at 1%)";
    let tags = &["dense", "zero runs", "sparse", "two-bit"];
    filled_rows(
        label,
        &[0, 10, 100, 1_000],
        tags,
        CountingBloom::<600, 7>::with_seed(7),
    );
    let label = "`CuckooFilter<512>` (2k slots, 16-bit)";
    let ns = &[0, 10, 100, 1_000, 2_000];
    filled_rows(
        label,
        ns,
        &["dense", "sparse"],
        CuckooFilter::<512>::with_seed(7),
    );
    // No tag names: the body is named "raw".
    filled_rows("`MicroBloom<3>`", &[0, 3, 8], &[], MicroBloom::<3>::new());
    filled_rows(
        "`MicroBloom32<2>`",
        &[0, 2, 4],
        &[],
        MicroBloom32::<2>::new(),
    );
}
