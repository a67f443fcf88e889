//! The firmware's workload, shared with the host test (`tests/tests/firmware.rs` includes this file),
//! so that both run exactly the same key stream through exactly the same sketches.
//!
//! Each family function builds its sketches, feeds a fixed key stream, checks its own results and
//! hands each sketch's bytes to a [`Sink`]. It must stay `no_std` and allocation-free.

use sketch_nostd::{sizing::fp_rate, Bloom, MicroBloom, MicroBloom32};

/// Receives the bytes of each finished sketch.
pub trait Sink {
    /// Starts the sketch called `name`.
    fn begin(&mut self, name: &str);
    /// Appends bytes to the current sketch.
    fn bytes(&mut self, bytes: &[u8]);
    /// Ends the current sketch.
    fn end(&mut self);
}

/// A failed self-check, with what went wrong.
pub type Check = Result<(), &'static str>;

fn emit_words(sink: &mut impl Sink, name: &str, words: &[u64], seed: u64) {
    sink.begin(name);
    for w in words {
        sink.bytes(&w.to_le_bytes());
    }
    sink.bytes(&seed.to_le_bytes());
    sink.end();
}

/// Micro filters: 8 keys in a `MicroBloom<3>`, 3 keys in a `MicroBloom32<2, 7>`.
pub fn micro(sink: &mut impl Sink) -> Check {
    let mut m64 = MicroBloom::<3>::new();
    let mut m32 = MicroBloom32::<2, 7>::new();
    for key in 0..8u32 {
        m64.insert(&key);
    }
    for key in 0..3u32 {
        m32.insert(&key);
    }
    if !(0..8u32).all(|k| m64.contains(&k)) || !(0..3u32).all(|k| m32.contains(&k)) {
        return Err("micro: false negative");
    }
    emit_words(sink, "micro64", &[m64.bits()], 0);
    emit_words(sink, "micro32", &[u64::from(m32.bits())], 7);
    Ok(())
}

/// Bloom: 300 keys into 4,096 bits with k = 7, 1,000 absent probes, and a union of two halves.
pub fn bloom(sink: &mut impl Sink) -> Check {
    const N: u32 = 300;
    const PROBES: u32 = 1_000;
    let mut all = Bloom::<64, 7>::with_seed(0x5eed);
    let mut low = Bloom::<64, 7>::with_seed(0x5eed);
    let mut high = Bloom::<64, 7>::with_seed(0x5eed);
    for key in 0..N {
        all.insert(&key);
        if key < N / 2 {
            low.insert(&key);
        } else {
            high.insert(&key);
        }
    }
    if !(0..N).all(|k| all.contains(&k)) {
        return Err("bloom: false negative");
    }
    // Expected false positives: 1,000 · (1 − e^(−7·300/4096))^7 ≈ 1.7 (computed at compile time, so
    // the firmware carries no float code for it); Poisson(1.7) exceeds 10 with probability ~10⁻⁶.
    const EXPECTED: f64 = fp_rate(4096, N as u64, 7) * PROBES as f64;
    const _: () = assert!(EXPECTED > 1.0 && EXPECTED < 2.0);
    let fp = (N..N + PROBES).filter(|k| all.contains(k)).count();
    if fp > 10 {
        return Err("bloom: too many false positives");
    }
    if low.union(&high).is_err() || low != all {
        return Err("bloom: union of halves differs from the whole");
    }
    emit_words(sink, "bloom", all.as_words(), all.seed());
    Ok(())
}

// The constants below are read by the host test (which measures the firmware), not by the firmware.

/// Bytes of sketches the `micro` family keeps on the stack at once.
#[allow(dead_code)]
pub const MICRO_SKETCH_BYTES: usize =
    core::mem::size_of::<MicroBloom<3>>() + core::mem::size_of::<MicroBloom32<2, 7>>();
/// Bytes of sketches the `bloom` family keeps on the stack at once (three filters).
#[allow(dead_code)]
pub const BLOOM_SKETCH_BYTES: usize = 3 * core::mem::size_of::<Bloom<64, 7>>();

/// Every family: its name (also the cargo feature that builds it alone) and the bytes of its sketches.
#[allow(dead_code)]
pub const FAMILIES: [(&str, usize); 2] =
    [("micro", MICRO_SKETCH_BYTES), ("bloom", BLOOM_SKETCH_BYTES)];
