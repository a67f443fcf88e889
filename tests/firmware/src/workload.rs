//! The firmware's workload, shared with the host test (`tests/tests/firmware.rs` includes this file),
//! so that both run exactly the same key stream through exactly the same sketches.
//!
//! Each family function builds its sketches, feeds a fixed key stream, checks its own results, and
//! hands each sketch's wire encoding (and some frames) to a [`Sink`], after checking that it decodes
//! back to the same sketch on the device: in place ([`wire::decode_into`]) into a sketch the family
//! no longer needs, as a firmware receiving sketches would, so that no extra sketch-sized value is
//! made. It must stay `no_std` and allocation-free.

use sketch_nostd::{
    countmin::Conservative,
    cuckoo::Fingerprint,
    hll::DeviceHll10,
    sizing::{blocked_fp_rate, fp_rate},
    wire::{self, Frame, RawFrame, Wire},
    BlockedBloom, Bloom, CountMin, Counted, CountingBloom, CuckooFilter, Hll10, Hll14, MicroBloom,
    MicroBloom32, RemoveError, SpaceSaving, TopK,
};

/// Receives the bytes of each finished sketch.
pub trait Sink {
    /// Starts the sketch called `name`.
    fn begin(&mut self, name: &str);
    /// Appends bytes to the current sketch.
    fn bytes(&mut self, bytes: &[u8]);
    /// Ends the current sketch.
    fn end(&mut self);
    /// Whether to check that every encoding decodes back (the receive path). A firmware built
    /// without its `receive` feature sets it to `false`, so its size shows what sending alone costs.
    const RECEIVE: bool = true;
}

/// A failed self-check, with what went wrong.
pub type Check = Result<(), &'static str>;

fn emit_bytes(sink: &mut impl Sink, name: &str, bytes: &[u8]) {
    sink.begin(name);
    sink.bytes(bytes);
    sink.end();
}

/// Encodes `sketch` into `buf`, checks it decodes back, in place into `back` (whose content is
/// lost), to an equal sketch, and emits the bytes.
pub(crate) fn emit<T: Wire + PartialEq, S: Sink>(
    sink: &mut S,
    name: &str,
    sketch: &T,
    buf: &mut [u8],
    back: &mut T,
) -> Check {
    let bytes = wire::encode(sketch, buf).map_err(|_| "wire: encode failed")?;
    if !S::RECEIVE {
        emit_bytes(sink, name, bytes);
        return Ok(());
    }
    if wire::decode_into(bytes, back).is_err() || back != sketch {
        return Err("wire: decoding the encoded sketch gave another sketch");
    }
    emit_bytes(sink, name, bytes);
    Ok(())
}

/// Encodes a frame of `sketch` (by reference: nothing is cloned to send it) from device `0xd1`
/// with sequence number `seq` into `buf`, emits the bytes, and checks that they decode back (the
/// framing in place in `buf`, the sketch in place into `back`, whose content is lost) to the same
/// frame.
pub(crate) fn emit_frame<T: Wire + PartialEq, S: Sink>(
    sink: &mut S,
    name: &str,
    (seq, sketch): (u32, &T),
    buf: &mut [u8],
    back: &mut T,
) -> Check {
    const DEVICE: u64 = 0xd1;
    let bytes = wire::encode_frame(DEVICE, seq, sketch, buf).map_err(|_| "frame: encode failed")?;
    emit_bytes(sink, name, bytes);
    if !S::RECEIVE {
        return Ok(());
    }
    let raw = RawFrame::decode(bytes).map_err(|_| "frame: decoding the framing failed")?;
    if (raw.device, raw.seq) != (DEVICE, seq)
        || raw.decode_sketch_into(back).is_err()
        || *back != *sketch
    {
        return Err("frame: decoding the encoded frame gave another frame");
    }
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
    let mut back = MicroBloom::new();
    emit(sink, "micro64", &m64, &mut buf, &mut back)?;
    emit(sink, "micro32", &m32, &mut buf, &mut MicroBloom32::new())?;
    emit_frame(sink, "micro64-frame", (1, &m64), &mut buf, &mut back)
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
    if low.merge(&high).is_err() || low != all {
        return Err("bloom: union of halves differs from the whole");
    }
    if wire {
        bloom_wire(sink, &all, &mut high)?;
    }
    Ok(())
}

#[inline(never)]
fn bloom_wire(sink: &mut impl Sink, all: &Bloom<64, 7>, spare: &mut Bloom<64, 7>) -> Check {
    let mut buf = [0u8; Frame::<Bloom<64, 7>>::MAX_ENCODED_LEN];
    emit(sink, "bloom", all, &mut buf, spare)?;
    emit_frame(sink, "bloom-frame", (2, all), &mut buf, spare)
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
        countmin_wire(sink, &standard, &conservative, &mut second_half)?;
    }
    Ok(())
}

#[inline(never)]
fn countmin_wire(
    sink: &mut impl Sink,
    standard: &CountMin<64, 4, u16>,
    conservative: &CountMin<64, 4, u16, Conservative>,
    spare: &mut CountMin<64, 4, u16>,
) -> Check {
    let mut buf = [0u8; Frame::<CountMin<64, 4, u16>>::MAX_ENCODED_LEN];
    emit(sink, "countmin", standard, &mut buf, spare)?;
    let mut back = CountMin::new();
    emit(
        sink,
        "countmin-conservative",
        conservative,
        &mut buf,
        &mut back,
    )?;
    emit_frame(sink, "countmin-frame", (3, standard), &mut buf, spare)
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
    let mut device = DeviceHll10::with_seed(0x4c);
    for key in 0..N {
        whole.insert(&key);
        device.insert(&key);
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
    // Both are dense (20,000 keys fill the sparse form many times over): the same registers are the
    // same packed bytes.
    let whole_registers = whole.dense_registers();
    if a.merge(&b).is_err() || whole_registers.is_none() || a.dense_registers() != whole_registers {
        return Err("hll: merged registers differ from the single stream's");
    }
    // The registers-only device sketch: the same registers, and the merged sketch's estimate.
    if Some(device.dense_registers()) != whole_registers
        || device.cardinality().to_bits() != a.cardinality().to_bits()
    {
        return Err("hll: the device sketch differs from the full one");
    }
    // 3σ bands from the sketch's own relative standard error (martingale for the single stream,
    // histogram after the merge): a fixed key stream, so this is deterministic; it fails only if the
    // estimators are wrong.
    let n = f64::from(N);
    for sketch in [&whole, &a] {
        if !within(sketch.lower_bound(3), n, sketch.upper_bound(3)) {
            return Err("hll: estimate outside its 3-sigma band");
        }
    }
    // 100 keys stay in the sparse form: linear counting over 2^17 (p + 7 bits) coupon indexes, exact
    // or off by one.
    if !small.is_sparse() || !within(99.0, small.cardinality(), 101.0) {
        return Err("hll: small count not near-exact");
    }
    if wire {
        hll_wire(sink, (&whole, &a, &small), &mut b, &device)?;
    }
    Ok(())
}

/// `low ≤ x ≤ high` for estimates and bounds, which are never negative and never NaN: compared by
/// their bits, which order such `f64` values as their values do, so the checks link no soft-float
/// comparison routine (about 350 B on a Cortex-M0) that no sketch operation needs.
fn within(low: f64, x: f64, high: f64) -> bool {
    low.to_bits() <= x.to_bits() && x.to_bits() <= high.to_bits()
}

/// Emits the three `Hll10` encodings (dense single stream, dense merged, sparse) and a frame, then
/// the device sketch's ([`device_hll_wire`]). One buffer for all six, sized for the larger type, as
/// a firmware sending both types would have.
#[inline(never)]
fn hll_wire(
    sink: &mut impl Sink,
    (whole, merged, small): (&Hll10, &Hll10, &Hll10),
    spare: &mut Hll10,
    device: &DeviceHll10,
) -> Check {
    const LEN: usize = max(
        Frame::<Hll10>::MAX_ENCODED_LEN,
        Frame::<DeviceHll10>::MAX_ENCODED_LEN,
    );
    let mut buf = [0u8; LEN];
    emit(sink, "hll10", whole, &mut buf, spare)?;
    emit(sink, "hll10-merged", merged, &mut buf, spare)?;
    emit(sink, "hll10-small", small, &mut buf, spare)?;
    emit_frame(sink, "hll10-frame", (4, small), &mut buf, spare)?;
    device_hll_wire(sink, device, &mut buf)
}

/// Emits the device sketch's encoding and a frame of it into `buf`, each checked against the full
/// sketch the host decodes (the frame's in place into `DeviceHll10`). Its own function: the sketch
/// it decodes into is on the stack only while it runs.
#[inline(never)]
fn device_hll_wire(sink: &mut impl Sink, device: &DeviceHll10, buf: &mut [u8]) -> Check {
    let mut back = DeviceHll10::new();
    emit(sink, "devicehll10", device, buf, &mut back)?;
    emit_frame(sink, "devicehll10-frame", (11, device), buf, &mut back)
}

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// The `hll` family's code by operation, for the Cortex-M0 budget report: the first `OPS` operations
/// of [`HLL_OPS`] (the firmware's `hll-*` features): a single-stream `Hll10` fed 20,000 keys, a merge
/// with a second sketch, the estimate of the union, its 3σ bounds. Each operation is checked, so none
/// is optimised away; `OPS` is a constant, so the others are not compiled in.
#[allow(dead_code)] // unused without `hll-insert`
pub fn hll_ops<const OPS: usize>(_sink: &mut impl Sink, _wire: bool) -> Check {
    const N: u32 = 20_000;
    let mut a = Hll10::with_seed(0x4c);
    let mut b = Hll10::with_seed(0x4c);
    let mut changed = 0u32;
    for key in 0..N {
        changed += u32::from(a.insert(&key));
        if OPS >= 2 && key >= N / 2 {
            b.insert(&key);
        }
    }
    // At most one register rise per key, and at least one per register that is not zero.
    if changed == 0 || changed > N || a.is_sparse() {
        return Err("hll-ops: insert");
    }
    if OPS >= 2 && (a.merge(&b).is_err() || a.is_single_stream()) {
        return Err("hll-ops: merge");
    }
    // 3σ with the histogram estimator's 1.04/√m at m = 1,024 registers: 9.75%.
    const N64: f64 = N as f64;
    if OPS >= 3 && !within(0.9025 * N64, a.cardinality(), 1.0975 * N64) {
        return Err("hll-ops: estimate");
    }
    if OPS >= 4 && !within(a.lower_bound(3), N64, a.upper_bound(3)) {
        return Err("hll-ops: bounds");
    }
    Ok(())
}

/// HyperLogLog at p = 14 (12,288 bytes of registers), 100,000 distinct keys: for targets with the
/// RAM for it (not the 16 KB micro:bit). With `wire`, emits the encoding and decodes it back on the
/// device, in place into a second p = 14 sketch (three 12 KB values: the sketch, the buffer and the
/// copy; decoding by value needed ~120 KB of stack).
#[allow(dead_code)] // unused on targets without `big_ram`
pub fn hll14(sink: &mut impl Sink, wire: bool) -> Check {
    const N: u32 = 100_000;
    let mut sketch = Hll14::with_seed(0x4c);
    for key in 0..N {
        sketch.insert(&key);
    }
    if !within(sketch.lower_bound(3), f64::from(N), sketch.upper_bound(3)) {
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
    let mut buf = [0u8; Hll14::MAX_ENCODED_LEN];
    emit(sink, "hll14", sketch, &mut buf, &mut Hll14::new())
}

/// The counting Bloom filter of the `counting` family: 256 four-bit counters, 5 hashes (136 bytes).
type Counting = CountingBloom<16, 5>;

/// Counting Bloom: 60 keys inserted (keys 0..20 twice), 0..40 removed once, 1,000 absent probes, a
/// refused removal of an absent key, and the union of two halves. With `wire`, emits the encoding and
/// a frame.
///
/// Every operation has one call site (a firmware pays for each inlined hash), so the checks are
/// folded into shared loops.
pub fn counting(sink: &mut impl Sink, wire: bool) -> Check {
    let mut f = Counting::with_seed(0xde1);
    let mut low = Counting::with_seed(0xde1);
    let mut high = Counting::with_seed(0xde1);
    for key in 0..60u32 {
        let key = key % 40; // 0..40, then 0..20 again
        let half = if key < 20 { &mut low } else { &mut high };
        for g in [&mut f, half] {
            g.insert(&key);
        }
    }
    if low.merge(&high).is_err() || low != f {
        return Err("counting: union of halves differs from the whole");
    }
    for key in 0..40u32 {
        // Keys 0..20 were inserted twice, 20..40 once: the estimate is never below that.
        if f.estimate(&key) < 1 + u64::from(key < 20) || f.remove(&key).is_err() {
            return Err("counting: count estimate too low, or a present key refused");
        }
    }
    // Keys 0..20 are still there once; 1,000..2,000 were never inserted. Expected false positives
    // of 20 keys in 256 counters, k = 5: 1,000 · (1 − e^(−100/256))^5 ≈ 3.5 (at compile time);
    // Poisson(3.5) exceeds 15 with probability ~10⁻⁵.
    const EXPECTED: f64 = fp_rate(256, 20, 5) * 1_000.0;
    const _: () = assert!(EXPECTED > 2.0 && EXPECTED < 5.0);
    let (mut fp, mut absent) = (0, None);
    for key in (0..20u32).chain(1_000..2_000) {
        match (f.contains(&key), key < 20) {
            (false, true) => return Err("counting: false negative after removals"),
            (true, false) => fp += 1,
            (false, false) => absent = absent.or(Some(key)),
            (true, true) => {}
        }
    }
    if fp > 15 {
        return Err("counting: too many false positives");
    }
    // An absent key is refused and nothing changes.
    let Some(absent) = absent else {
        return Err("counting: every probe is a false positive");
    };
    let before = f.clone();
    if f.remove(&absent) != Err(RemoveError::Absent) || f != before || f.is_saturated() {
        return Err("counting: removing an absent key changed the filter, or saturated");
    }
    if wire {
        counting_wire(sink, &f, &mut high)?;
    }
    Ok(())
}

#[inline(never)]
fn counting_wire(sink: &mut impl Sink, f: &Counting, spare: &mut Counting) -> Check {
    let mut buf = [0u8; Frame::<Counting>::MAX_ENCODED_LEN];
    emit(sink, "counting", f, &mut buf, spare)?;
    emit_frame(sink, "counting-frame", (5, f), &mut buf, spare)
}

/// The cuckoo filter of the `cuckoo` family: 32 buckets of 16-bit fingerprints (280 bytes).
type Cuckoo16 = CuckooFilter<32>;
/// The cuckoo filter of the `cuckoo8` family: 16 buckets of 8-bit fingerprints (88 bytes).
type Cuckoo8 = CuckooFilter<16, u8>;

/// Inserts `keys` in order until one fails; returns how many went in.
#[inline(never)]
fn fill<F: Fingerprint, const B: usize>(
    f: &mut CuckooFilter<B, F>,
    keys: core::ops::Range<u32>,
) -> u32 {
    let (start, end) = (keys.start, keys.end);
    for key in keys {
        if f.insert(&key).is_err() {
            return key - start;
        }
    }
    end - start
}

/// How many of `start, start + step, …` below `end` the filter reports present.
#[inline(never)]
fn present<F: Fingerprint, const B: usize>(
    f: &CuckooFilter<B, F>,
    start: u32,
    end: u32,
    step: usize,
) -> usize {
    (start..end).step_by(step).filter(|k| f.contains(k)).count()
}

/// The cuckoo workload on `f` (empty, seed 0xc0c) and `g` (a second empty one): fills `f` until an
/// insert fails, checks that the failure changed nothing (against `g`, filled with the same keys:
/// the filter is a function of its operations) and lost nothing, removes every other key, checks
/// the rest and `1,000` absent probes (at most `max_fp` false positives), and inserts `refill` more.
///
/// Every operation has one call site (shared helpers): a firmware pays for each inlined hash.
fn cuckoo_run<F: Fingerprint, const B: usize>(
    f: &mut CuckooFilter<B, F>,
    g: &mut CuckooFilter<B, F>,
    min_full: u32,
    max_fp: usize,
    refill: u32,
) -> Check {
    let inserted = fill(f, 0..u32::MAX);
    if fill(g, 0..inserted) != inserted || fill(f, inserted..inserted + 1) != 0 || f != g {
        return Err("cuckoo: a failed insert changed the filter");
    }
    let n = inserted as usize;
    if inserted < min_full
        || f.victim().is_none()
        || f.len() != n
        || present(f, 0, inserted, 1) != n
    {
        return Err("cuckoo: filled too early, or a key was lost at full load");
    }
    for key in (0..inserted).step_by(2) {
        if f.remove(&key).is_err() {
            return Err("cuckoo: a present key was not removed");
        }
    }
    if present(f, 1, inserted, 2) != n / 2 || present(f, 10_000, 11_000, 1) > max_fp {
        return Err("cuckoo: false negative after removals, or too many false positives");
    }
    if fill(f, 1_000..1_000 + refill) != refill {
        return Err("cuckoo: insert failed at half load");
    }
    Ok(())
}

/// Cuckoo, 16-bit fingerprints: 128 slots filled until an insert fails (124 keys with this seed,
/// 97%), half removed, 40 more. ~62 fingerprints give 1,000 absent probes 1,000 · 8 · 0.48 / 65,535
/// ≈ 0.06 expected false positives (at most 3 allowed). With `wire`, emits the encoding and a frame.
pub fn cuckoo(sink: &mut impl Sink, wire: bool) -> Check {
    let (mut f, mut g) = (Cuckoo16::with_seed(0xc0c), Cuckoo16::with_seed(0xc0c));
    cuckoo_run(&mut f, &mut g, 116, 3, 40)?;
    if wire {
        cuckoo_wire(sink, ("cuckoo16", "cuckoo16-frame"), &f, &mut g, 6)?;
    }
    Ok(())
}

/// Cuckoo, 8-bit fingerprints: 64 slots filled until an insert fails, half removed, 16 more. ~30
/// fingerprints give 1,000 absent probes about 1,000 · 8 · 0.47 / 255 ≈ 15 expected false positives
/// (at most 40 allowed: Poisson(15) exceeds it with probability ~10⁻⁸). With `wire`, emits the
/// encoding and a frame.
pub fn cuckoo8(sink: &mut impl Sink, wire: bool) -> Check {
    let (mut f, mut g) = (Cuckoo8::with_seed(0xc0c), Cuckoo8::with_seed(0xc0c));
    cuckoo_run(&mut f, &mut g, 54, 40, 16)?;
    if wire {
        cuckoo_wire(sink, ("cuckoo8", "cuckoo8-frame"), &f, &mut g, 7)?;
    }
    Ok(())
}

/// Emits a cuckoo filter's encoding as `name` and a frame of it as `frame_name`.
#[inline(never)]
fn cuckoo_wire<F: Fingerprint, const B: usize>(
    sink: &mut impl Sink,
    (name, frame_name): (&str, &str),
    f: &CuckooFilter<B, F>,
    spare: &mut CuckooFilter<B, F>,
    seq: u32,
) -> Check {
    // Large enough for both families' frames (a const generic cannot size an array here).
    let mut buf = [0u8; 320];
    if buf.len() < Frame::<CuckooFilter<B, F>>::MAX_ENCODED_LEN {
        return Err("cuckoo: wire buffer too small");
    }
    emit(sink, name, f, &mut buf, spare)?;
    emit_frame(sink, frame_name, (seq, f), &mut buf, spare)
}

/// The blocked Bloom filter of the `blocked` family: 8 cache-line blocks (4,096 bits), k = 8.
type Blocked = BlockedBloom<8, 8>;

/// Blocked Bloom: 300 keys into 8 blocks of 512 bits with k = 8, 1,000 absent probes, and a union
/// of two halves. With `wire`, emits the encoding and a frame.
pub fn blocked(sink: &mut impl Sink, wire: bool) -> Check {
    const N: u32 = 300;
    let mut all = Blocked::with_seed(0xb10c);
    let mut low = Blocked::with_seed(0xb10c);
    let mut high = Blocked::with_seed(0xb10c);
    for key in 0..N {
        all.insert(&key);
        let half = if key < N / 2 { &mut low } else { &mut high };
        half.insert(&key);
    }
    // Expected false positives: 1,000 · blocked_fp_rate(8, 300, 8) ≈ 2.1 (at compile time: the
    // Poisson mix of block loads); Poisson(2.1) exceeds 12 with probability ~10⁻⁶.
    const EXPECTED: f64 = blocked_fp_rate(8, N as u64, 8) * 1_000.0;
    const _: () = assert!(EXPECTED > 1.0 && EXPECTED < 4.0);
    let (mut fp, mut missed) = (0, false);
    for key in 0..N + 1_000 {
        match (all.contains(&key), key < N) {
            (false, true) => missed = true,
            (true, false) => fp += 1,
            _ => {}
        }
    }
    if missed {
        return Err("blocked: false negative");
    }
    if fp > 12 {
        return Err("blocked: too many false positives");
    }
    if low.merge(&high).is_err() || low != all {
        return Err("blocked: union of halves differs from the whole");
    }
    if wire {
        blocked_wire(sink, &all, &mut high)?;
    }
    Ok(())
}

#[inline(never)]
fn blocked_wire(sink: &mut impl Sink, all: &Blocked, spare: &mut Blocked) -> Check {
    let mut buf = [0u8; Frame::<Blocked>::MAX_ENCODED_LEN];
    emit(sink, "blocked", all, &mut buf, spare)?;
    emit_frame(sink, "blocked-frame", (8, all), &mut buf, spare)
}

/// The true count of key `r` in the heavy-hitter stream: ⌊1000/r⌋ for `r` in `1..=50` (Zipf-like,
/// 4,479 events), as in the `countmin` family.
fn zipf_weight(r: u32) -> u32 {
    if (1..=50).contains(&r) {
        1000 / r
    } else {
        0
    }
}

/// The heavy-hitter stream: round `i` (of 1,000) has one event of every key whose weight is above
/// `i`, keys in increasing order; so every key keeps arriving until its count is reached, and the
/// light keys compete for the slots all along.
#[inline(never)]
fn zipf_stream(mut event: impl FnMut(u32)) {
    for round in 0..1_000 {
        for r in 1..=50u32 {
            if round < zipf_weight(r) {
                event(r);
            }
        }
    }
}

/// The Space-Saving summary of the `spacesaving` family: 16 counters, `u32` keys.
type Ss = SpaceSaving<u32, 16>;

/// Space-Saving with 16 counters over the Zipf-like stream (50 keys, 4,479 events). Checks: `N`,
/// the error bound at most `N/16`, every listed key's bounds contain its true count
/// (`count − error ≤ true ≤ count`), and the top keys in order: all 16 counters hold keys 1..=16
/// with strictly decreasing counts (here the 16 heaviest keys keep their slots: each arrives while
/// the light keys evict one another). The order is checked without sorting: `sorted` would link a
/// sort (~5 KB on a Cortex-M0) that a firmware does not need. With `wire`, emits the encoding and a
/// frame.
pub fn spacesaving(sink: &mut impl Sink, wire: bool) -> Check {
    let mut ss = Ss::new();
    zipf_stream(|r| {
        ss.increment(&r);
    });
    if ss.total() != 4_479 || ss.error_bound() > ss.total() / 16 || ss.len() != 16 {
        return Err("spacesaving: wrong total or length, or error bound above N/K");
    }
    let mut counts = [0u64; 17];
    for c in ss.entries() {
        let truth = u64::from(zipf_weight(*c.key));
        if !(c.guaranteed() <= truth && truth <= c.count) {
            return Err("spacesaving: a true count outside its bounds");
        }
        match counts.get_mut(*c.key as usize) {
            Some(slot) if *c.key > 0 => *slot = c.count,
            _ => return Err("spacesaving: a key outside the top 16 listed"),
        }
    }
    if counts[1..].windows(2).any(|w| w[0] <= w[1]) {
        return Err("spacesaving: top keys not found in order");
    }
    if wire {
        spacesaving_wire(sink, &ss)?;
    }
    Ok(())
}

#[inline(never)]
fn spacesaving_wire(sink: &mut impl Sink, ss: &Ss) -> Check {
    let mut buf = [0u8; Frame::<Ss>::MAX_ENCODED_LEN];
    let mut back = Ss::new();
    emit(sink, "spacesaving", ss, &mut buf, &mut back)?;
    emit_frame(sink, "spacesaving-frame", (9, ss), &mut buf, &mut back)
}

/// The top-k summary of the `topk` family: 8 keys over a conservative count-min of 4 rows × 64 `u16`
/// counters.
type Top = TopK<u32, 8, 64, 4, u16>;

/// Top-k (count-min, conservative update) over the Zipf-like stream. Checks: `N`, no key's estimate
/// below its true count (count-min never underestimates), and the top keys in order: the list holds
/// keys 1..=8 with strictly decreasing counts, each at or above its key's true count (a listed count
/// is the estimate at the key's last event, after which its true count no longer changes). Checked
/// without sorting, as for `spacesaving`. With `wire`, emits the encoding and a frame.
pub fn topk(sink: &mut impl Sink, wire: bool) -> Check {
    let mut top = Top::with_seed(0x70);
    zipf_stream(|r| {
        top.increment(&r);
    });
    if top.total() != 4_479 || top.len() != 8 {
        return Err("topk: wrong total or length");
    }
    if (1..=50).any(|r| top.estimate(&r) < u64::from(zipf_weight(r))) {
        return Err("topk: an estimate below the true count");
    }
    let mut counts = [0u64; 9];
    for Counted {
        key: &key, count, ..
    } in top.entries()
    {
        if count < u64::from(zipf_weight(key)) {
            return Err("topk: a listed count below the true count");
        }
        match counts.get_mut(key as usize) {
            Some(slot) if key > 0 => *slot = count,
            _ => return Err("topk: a key outside the top 8 listed"),
        }
    }
    if counts[1..].windows(2).any(|w| w[0] <= w[1]) {
        return Err("topk: top keys not found in order");
    }
    if wire {
        topk_wire(sink, &top)?;
    }
    Ok(())
}

#[inline(never)]
fn topk_wire(sink: &mut impl Sink, top: &Top) -> Check {
    let mut buf = [0u8; Frame::<Top>::MAX_ENCODED_LEN];
    let mut back = Top::new();
    emit(sink, "topk", top, &mut buf, &mut back)?;
    emit_frame(sink, "topk-frame", (10, top), &mut buf, &mut back)
}

/// The device path (the firmware's `device-*` features, for the budget test): one sketch fed
/// `keys` keys (hidden from the optimiser), then, with `send`, framed into a buffer by reference and
/// emitted; without, only kept alive, so that the difference is what encoding and framing cost.
#[allow(dead_code)] // each firmware uses one
#[inline(never)]
fn device_path<T: Wire>(
    sink: &mut impl Sink,
    name: &str,
    sketch: &mut T,
    insert: impl Fn(&mut T, u32),
    keys: u32,
    buf: &mut [u8],
    send: bool,
) -> Check {
    for key in 0..keys {
        insert(sketch, core::hint::black_box(key));
    }
    if !send {
        core::hint::black_box(&*sketch);
        return Ok(());
    }
    let bytes = wire::encode_frame(0xd1, 1, sketch, buf).map_err(|_| "device: framing failed")?;
    emit_bytes(sink, name, bytes);
    Ok(())
}

/// Device path: 8 keys into a `MicroBloom<3>`, one frame.
#[allow(dead_code)]
pub fn device_micro(sink: &mut impl Sink, send: bool) -> Check {
    let mut buf = [0u8; Frame::<MicroBloom<3>>::MAX_ENCODED_LEN];
    let mut s = MicroBloom::<3>::new();
    device_path(
        sink,
        "device-micro",
        &mut s,
        |s, k| {
            s.insert(&k);
        },
        8,
        &mut buf,
        send,
    )
}

/// Device path: 300 keys into a `Bloom<64, 7>`, one frame.
#[allow(dead_code)]
pub fn device_bloom(sink: &mut impl Sink, send: bool) -> Check {
    let mut buf = [0u8; Frame::<Bloom<64, 7>>::MAX_ENCODED_LEN];
    let mut s = Bloom::<64, 7>::with_seed(0x5eed);
    device_path(
        sink,
        "device-bloom",
        &mut s,
        |s, k| {
            s.insert(&k);
        },
        300,
        &mut buf,
        send,
    )
}

/// Device path: 1,000 events of 50 keys into a `CountMin<64, 4, u16>`, one frame.
#[allow(dead_code)]
pub fn device_countmin(sink: &mut impl Sink, send: bool) -> Check {
    let mut buf = [0u8; Frame::<CountMin<64, 4, u16>>::MAX_ENCODED_LEN];
    let mut s = CountMin::<64, 4, u16>::with_seed(0xc0);
    device_path(
        sink,
        "device-countmin",
        &mut s,
        |s, k| {
            s.increment(&(k % 50));
        },
        1_000,
        &mut buf,
        send,
    )
}

/// Device path: 20,000 keys into a `DeviceHll10` (registers only), one frame.
#[allow(dead_code)]
pub fn device_hll(sink: &mut impl Sink, send: bool) -> Check {
    let mut buf = [0u8; Frame::<DeviceHll10>::MAX_ENCODED_LEN];
    let mut s = DeviceHll10::with_seed(0x4c);
    device_path(
        sink,
        "device-hll",
        &mut s,
        |s, k| {
            s.insert(&k);
        },
        20_000,
        &mut buf,
        send,
    )
}

/// Device path with the full `Hll10` (sparse form, martingale): what `device_hll` replaces.
#[allow(dead_code)]
pub fn device_hll_full(sink: &mut impl Sink, send: bool) -> Check {
    let mut buf = [0u8; Frame::<Hll10>::MAX_ENCODED_LEN];
    let mut s = Hll10::with_seed(0x4c);
    device_path(
        sink,
        "device-hll-full",
        &mut s,
        |s, k| {
            s.insert(&k);
        },
        20_000,
        &mut buf,
        send,
    )
}

/// The device paths: firmware feature, the bytes of its sketch and of its frame buffer (both on
/// the stack, the caller's), and the code and stack targets of the issue for the whole path.
#[allow(dead_code)]
pub const DEVICE_PATHS: [(&str, usize, usize); 5] = [
    (
        "device-micro",
        core::mem::size_of::<MicroBloom<3>>(),
        Frame::<MicroBloom<3>>::MAX_ENCODED_LEN,
    ),
    (
        "device-bloom",
        core::mem::size_of::<Bloom<64, 7>>(),
        Frame::<Bloom<64, 7>>::MAX_ENCODED_LEN,
    ),
    (
        "device-countmin",
        core::mem::size_of::<CountMin<64, 4, u16>>(),
        Frame::<CountMin<64, 4, u16>>::MAX_ENCODED_LEN,
    ),
    (
        "device-hll",
        core::mem::size_of::<DeviceHll10>(),
        Frame::<DeviceHll10>::MAX_ENCODED_LEN,
    ),
    (
        "device-hll-full",
        core::mem::size_of::<Hll10>(),
        Frame::<Hll10>::MAX_ENCODED_LEN,
    ),
];

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

/// Bytes of sketches the `hll` family keeps (without `wire`): four p = 10 sketches and a device one.
#[allow(dead_code)]
pub const HLL_SKETCH_BYTES: usize =
    4 * core::mem::size_of::<Hll10>() + core::mem::size_of::<DeviceHll10>();

/// Bytes of sketches the `counting` family keeps (without `wire`): three filters and a copy.
#[allow(dead_code)]
pub const COUNTING_SKETCH_BYTES: usize = 4 * core::mem::size_of::<Counting>();

/// Bytes of sketches the `cuckoo` family keeps (without `wire`): two 16-bit filters.
#[allow(dead_code)]
pub const CUCKOO_SKETCH_BYTES: usize = 2 * core::mem::size_of::<Cuckoo16>();

/// Bytes of sketches the `cuckoo8` family keeps (without `wire`): two 8-bit filters.
#[allow(dead_code)]
pub const CUCKOO8_SKETCH_BYTES: usize = 2 * core::mem::size_of::<Cuckoo8>();

/// Bytes of sketches the `blocked` family keeps (without `wire`): three filters.
#[allow(dead_code)]
pub const BLOCKED_SKETCH_BYTES: usize = 3 * core::mem::size_of::<Blocked>();

/// Bytes of sketches the `spacesaving` family keeps (without `wire`): one summary.
#[allow(dead_code)]
pub const SPACESAVING_SKETCH_BYTES: usize = core::mem::size_of::<Ss>();

/// Bytes of sketches the `topk` family keeps (without `wire`): one summary.
#[allow(dead_code)]
pub const TOPK_SKETCH_BYTES: usize = core::mem::size_of::<Top>();

/// The operations of [`hll_ops`]: the firmware feature that adds each (it enables the ones before)
/// and what it adds.
#[allow(dead_code)]
pub const HLL_OPS: [(&str, &str); 4] = [
    (
        "hll-insert",
        "insert (single stream: sparse form, dense registers, martingale update)",
    ),
    ("hll-merge", "+ merge"),
    ("hll-estimate", "+ estimate of the union (Ertl's estimator)"),
    (
        "hll-bounds",
        "+ both 3σ bounds (linear counting's error, square root)",
    ),
];

/// Every family: its name (also the cargo feature that builds it alone) and the bytes of its sketches.
#[allow(dead_code)]
///
/// `hll14` is not here: it runs only on targets with more RAM than the Cortex-M0 budget target.
/// `prefilter` (the router example, `src/prefilter.rs`) keeps no sketch in RAM: both its filters are
/// read in place from flash; its `send` is the view encoding of the static filter, its `receive` a
/// `BlockedBloomRef` made of those bytes and queried (the device's "receive" of a filter is a view).
pub const FAMILIES: [(&str, usize); 12] = [
    ("micro", MICRO_SKETCH_BYTES),
    ("bloom", BLOOM_SKETCH_BYTES),
    ("countmin", COUNTMIN_SKETCH_BYTES),
    ("hll", HLL_SKETCH_BYTES),
    ("counting", COUNTING_SKETCH_BYTES),
    ("cuckoo", CUCKOO_SKETCH_BYTES),
    ("cuckoo8", CUCKOO8_SKETCH_BYTES),
    ("blocked", BLOCKED_SKETCH_BYTES),
    ("spacesaving", SPACESAVING_SKETCH_BYTES),
    ("topk", TOPK_SKETCH_BYTES),
    ("quantile", crate::quantile::QUANTILE_SKETCH_BYTES),
    ("prefilter", 0),
];
