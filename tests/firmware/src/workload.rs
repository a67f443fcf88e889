//! The firmware's workload, shared with the host test (`tests/tests/firmware.rs` includes this file),
//! so that both run exactly the same key stream through exactly the same sketches.
//!
//! Each family function builds its sketches, feeds a fixed key stream, checks its own results, and
//! hands each sketch's wire encoding (and some frames) to a [`Sink`], after checking that it decodes
//! back to the same sketch on the device. It must stay `no_std` and allocation-free.

use sketch_nostd::{
    countmin::Conservative,
    sizing::fp_rate,
    wire::{self, Frame, Wire},
    Bloom, CountMin, Hll10, Hll14, MicroBloom, MicroBloom32,
};

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

fn emit_bytes(sink: &mut impl Sink, name: &str, bytes: &[u8]) {
    sink.begin(name);
    sink.bytes(bytes);
    sink.end();
}

/// Encodes `sketch` into `buf`, checks it decodes back to an equal sketch, and emits the bytes.
fn emit<T: Wire + PartialEq>(
    sink: &mut impl Sink,
    name: &str,
    sketch: &T,
    buf: &mut [u8],
) -> Check {
    let bytes = wire::encode(sketch, buf).map_err(|_| "wire: encode failed")?;
    if wire::decode::<T>(bytes).ok().as_ref() != Some(sketch) {
        return Err("wire: decoding the encoded sketch gave another sketch");
    }
    emit_bytes(sink, name, bytes);
    Ok(())
}

/// Micro filters: 8 keys in a `MicroBloom<3>`, 3 keys in a `MicroBloom32<2, 7>`. With `wire`, emits
/// both encodings and a frame.
pub fn micro(sink: &mut impl Sink, wire: bool) -> Check {
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
    if wire {
        micro_wire(sink, m64, m32)?;
    }
    Ok(())
}

#[inline(never)]
fn micro_wire(sink: &mut impl Sink, m64: MicroBloom<3>, m32: MicroBloom32<2, 7>) -> Check {
    let mut buf = [0u8; Frame::<MicroBloom<3>>::MAX_ENCODED_LEN];
    emit(sink, "micro64", &m64, &mut buf)?;
    emit(sink, "micro32", &m32, &mut buf)?;
    let frame = Frame {
        device: 0xd1,
        seq: 1,
        sketch: m64,
    };
    let bytes = frame.encode(&mut buf).map_err(|_| "frame: encode failed")?;
    emit_bytes(sink, "micro64-frame", bytes);
    Ok(())
}

/// Bloom: 300 keys into 4,096 bits with k = 7, 1,000 absent probes, and a union of two halves. With
/// `wire`, emits the encoding and a frame.
pub fn bloom(sink: &mut impl Sink, wire: bool) -> Check {
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
    if wire {
        bloom_wire(sink, &all)?;
    }
    Ok(())
}

#[inline(never)]
fn bloom_wire(sink: &mut impl Sink, all: &Bloom<64, 7>) -> Check {
    let mut buf = [0u8; Frame::<Bloom<64, 7>>::MAX_ENCODED_LEN];
    emit(sink, "bloom", all, &mut buf)?;
    let frame = Frame {
        device: 0xd1,
        seq: 2,
        sketch: all.clone(),
    };
    let bytes = frame.encode(&mut buf).map_err(|_| "frame: encode failed")?;
    emit_bytes(sink, "bloom-frame", bytes);
    Ok(())
}

/// Count-min, 4 rows × 64 `u16` counters, standard and conservative update: 50 keys with Zipf weights
/// ⌊1000/r⌋, fed as two halves merged into one sketch. With `wire`, emits both encodings and a frame.
pub fn countmin(sink: &mut impl Sink, wire: bool) -> Check {
    let weight = |r: u32| 1000 / r;
    let mut standard = CountMin::<64, 4, u16>::with_seed(0xc0);
    let mut conservative = CountMin::<64, 4, u16, Conservative>::with_seed(0xc0);
    let mut second_half = CountMin::<64, 4, u16>::with_seed(0xc0);
    for r in 1..=50u32 {
        for _ in 0..weight(r) {
            conservative.increment(&r);
        }
        let half = weight(r) / 2;
        standard.add(&r, u64::from(weight(r) - half));
        second_half.add(&r, u64::from(half));
    }
    if standard.merge(&second_half).is_err() {
        return Err("countmin: merge refused");
    }
    for r in 1..=50u32 {
        let (s, c) = (standard.estimate(&r), conservative.estimate(&r));
        if s < u64::from(weight(r)) || c < u64::from(weight(r)) {
            return Err("countmin: an underestimate");
        }
        if c > s {
            return Err("countmin: conservative update above standard");
        }
    }
    if standard.total() != conservative.total() || standard.is_saturated() {
        return Err("countmin: totals differ or saturated");
    }
    if wire {
        countmin_wire(sink, &standard, &conservative)?;
    }
    Ok(())
}

#[inline(never)]
fn countmin_wire(
    sink: &mut impl Sink,
    standard: &CountMin<64, 4, u16>,
    conservative: &CountMin<64, 4, u16, Conservative>,
) -> Check {
    let mut buf = [0u8; Frame::<CountMin<64, 4, u16>>::MAX_ENCODED_LEN];
    emit(sink, "countmin", standard, &mut buf)?;
    emit(sink, "countmin-conservative", conservative, &mut buf)?;
    let frame = Frame {
        device: 0xd1,
        seq: 3,
        sketch: standard.clone(),
    };
    let bytes = frame.encode(&mut buf).map_err(|_| "frame: encode failed")?;
    emit_bytes(sink, "countmin-frame", bytes);
    Ok(())
}

/// HyperLogLog at p = 10 (768 bytes of registers): 20,000 distinct keys fed as two overlapping
/// streams (0..12,000 and 8,000..20,000) merged, plus the single-stream sketch of all of them, and a
/// small sketch with 300 keys that stays in the exact sparse form. With `wire`, emits all three and a
/// frame.
pub fn hll(sink: &mut impl Sink, wire: bool) -> Check {
    const N: u32 = 20_000;
    let mut whole = Hll10::with_seed(0x4c);
    let mut a = Hll10::with_seed(0x4c);
    let mut b = Hll10::with_seed(0x4c);
    let mut small = Hll10::with_seed(0x4c);
    for key in 0..N {
        whole.insert(&key);
        if key < 12_000 {
            a.insert(&key);
        }
        if key >= 8_000 {
            b.insert(&key);
        }
        if key < 100 {
            small.insert(&key);
        }
    }
    if a.merge(&b).is_err() || !a.registers().eq(whole.registers()) {
        return Err("hll: merged registers differ from the single stream's");
    }
    // 3σ bands from the sketch's own relative standard error (martingale for the single stream,
    // histogram after the merge): a fixed key stream, so this is deterministic; it fails only if the
    // estimators are wrong.
    let n = f64::from(N);
    for sketch in [&whole, &a] {
        if !(sketch.lower_bound(3) <= n && n <= sketch.upper_bound(3)) {
            return Err("hll: estimate outside its 3-sigma band");
        }
    }
    // 100 keys stay in the sparse form: linear counting over 2^26 coupon indexes, exact or off by one.
    let e = small.estimate();
    if !small.is_sparse() || !(99.0..=101.0).contains(&e) {
        return Err("hll: small count not near-exact");
    }
    if wire {
        hll_wire(sink, &whole, &a, &small)?;
    }
    Ok(())
}

#[inline(never)]
fn hll_wire(sink: &mut impl Sink, whole: &Hll10, merged: &Hll10, small: &Hll10) -> Check {
    let mut buf = [0u8; Frame::<Hll10>::MAX_ENCODED_LEN];
    emit(sink, "hll10", whole, &mut buf)?;
    emit(sink, "hll10-merged", merged, &mut buf)?;
    emit(sink, "hll10-small", small, &mut buf)?;
    let frame = Frame {
        device: 0xd1,
        seq: 4,
        sketch: small.clone(),
    };
    let bytes = frame.encode(&mut buf).map_err(|_| "frame: encode failed")?;
    emit_bytes(sink, "hll10-frame", bytes);
    Ok(())
}

/// HyperLogLog at p = 14 (12,288 bytes of registers), 100,000 distinct keys: for targets with the
/// RAM for it (not the 16 KB micro:bit). With `wire`, emits the encoding.
#[allow(dead_code)] // unused on targets without `big_ram`
pub fn hll14(sink: &mut impl Sink, wire: bool) -> Check {
    const N: u32 = 100_000;
    let mut sketch = Hll14::with_seed(0x4c);
    for key in 0..N {
        sketch.insert(&key);
    }
    let n = f64::from(N);
    if !(sketch.lower_bound(3) <= n && n <= sketch.upper_bound(3)) {
        return Err("hll14: estimate outside its 3-sigma band");
    }
    if wire {
        hll14_wire(sink, &sketch)?;
    }
    Ok(())
}

#[inline(never)]
#[allow(dead_code)] // unused on targets without `big_ram`
fn hll14_wire(sink: &mut impl Sink, sketch: &Hll14) -> Check {
    // Encode only: decoding returns the 12 KB sketch by value through several layers, which needs
    // more stack than a 64 KB part has (measured ~120 KB); devices send large sketches, hosts decode.
    let mut buf = [0u8; Hll14::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf).map_err(|_| "wire: encode failed")?;
    emit_bytes(sink, "hll14", bytes);
    Ok(())
}

// The constants below are read by the host test (which measures the firmware), not by the firmware.

/// Bytes of sketches the `micro` family keeps (without `wire`) on the stack at once.
#[allow(dead_code)]
pub const MICRO_SKETCH_BYTES: usize =
    core::mem::size_of::<MicroBloom<3>>() + core::mem::size_of::<MicroBloom32<2, 7>>();
/// Bytes of sketches the `bloom` family keeps (without `wire`) on the stack at once (three filters).
#[allow(dead_code)]
pub const BLOOM_SKETCH_BYTES: usize = 3 * core::mem::size_of::<Bloom<64, 7>>();

/// Bytes of sketches the `countmin` family keeps (without `wire`): three sketches.
#[allow(dead_code)]
pub const COUNTMIN_SKETCH_BYTES: usize = 2 * core::mem::size_of::<CountMin<64, 4, u16>>()
    + core::mem::size_of::<CountMin<64, 4, u16, Conservative>>();

/// Bytes of sketches the `hll` family keeps (without `wire`): four p = 10 sketches.
#[allow(dead_code)]
pub const HLL_SKETCH_BYTES: usize = 4 * core::mem::size_of::<Hll10>();

/// Every family: its name (also the cargo feature that builds it alone) and the bytes of its sketches.
#[allow(dead_code)]
///
/// `hll14` is not here: it runs only on targets with more RAM than the Cortex-M0 budget target.
pub const FAMILIES: [(&str, usize); 4] = [
    ("micro", MICRO_SKETCH_BYTES),
    ("bloom", BLOOM_SKETCH_BYTES),
    ("countmin", COUNTMIN_SKETCH_BYTES),
    ("hll", HLL_SKETCH_BYTES),
];
