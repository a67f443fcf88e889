//! The quantile family of the firmware workload: the same shape as the families in
//! `workload.rs` (`pub fn quantile(sink, wire) -> Check`), `no_std` and allocation-free. The host
//! test includes this file beside `workload.rs` and compares the bytes it emits.

use crate::workload::{emit, emit_frame, Check, Sink};
use sketch_nostd::{wire::Frame, QuantileSketch};

/// α = 0.99% (35 buckets per octave), 512 `u16` counters: 1,088 bytes, room for 1 … 2,000 (11
/// octaves, 385 buckets) and −1 … −8 (3 octaves) without collapsing.
type Q = QuantileSketch<35, 512, u16>;

/// Bytes of sketches the `quantile` family keeps (without `wire`): two sketches.
#[allow(dead_code)]
pub const QUANTILE_SKETCH_BYTES: usize = 2 * core::mem::size_of::<Q>();

const N: u32 = 2_000;
const NEG: i32 = 8;

/// The quantiles checked, with the element of rank `⌊q·(n − 1)⌋` (from 0, `n = 2,009`) of the sorted
/// values −8 … −1, 0, 1 … 2,000 (rank `r` is the value `r − 8`), written out.
const CHECKED: [(f64, i32); 4] = [(0.5, 1_004), (0.9, 1_807), (0.99, 1_987), (0.999, 2_005)];

/// The `q`s of [`CHECKED`] alone: what the device reads at run time.
const QS: [f64; 4] = [CHECKED[0].0, CHECKED[1].0, CHECKED[2].0, CHECKED[3].0];

/// The bits of the lowest and highest `f64` within ±α of each checked (positive) value, computed at
/// compile time: for positive `f64`s the bits order as the values, so the device checks the
/// guarantee with integer comparisons and no floating-point code.
const WITHIN: [(u64, u64); 4] = {
    let mut w = [(0, 0); 4];
    let mut i = 0;
    while i < 4 {
        let truth = (CHECKED[i].1 - NEG) as f64;
        w[i] = (
            (truth * (1.0 - Q::ALPHA)).to_bits(),
            (truth * (1.0 + Q::ALPHA)).to_bits(),
        );
        i += 1;
    }
    w
};

/// Quantile sketch: −8 … −1, zero and 1 … 2,000 in a scrambled order, fed as two sketches merged;
/// checks count, extremes, and p50/p90/p99/p999 within ±α of the exact values. With `wire`, emits
/// the encoding and a frame.
pub fn quantile(sink: &mut impl Sink, wire: bool) -> Check {
    let mut a = Q::new();
    let mut b = Q::new();
    for i in 0..N {
        // 7,919 is prime to 2,000: every value once, out of order.
        let v = (i * 7_919) % N + 1;
        if i % 2 == 0 {
            a.insert(v);
        } else {
            b.insert(v);
        }
    }
    for v in -NEG..=0 {
        b.insert(v);
    }
    if a.merge(&b).is_err() {
        return Err("quantile: merge refused");
    }
    let n = u64::from(N) + NEG as u64 + 1;
    let (min, max) = (a.min().map(f64::to_bits), a.max().map(f64::to_bits));
    if a.count() != n
        || min != Some((-8.0f64).to_bits())
        || max != Some(2_000.0f64.to_bits())
        || a.is_collapsed()
    {
        return Err("quantile: count, extremes or collapse wrong");
    }
    for (&q, &(lo, hi)) in QS.iter().zip(&WITHIN) {
        let est = a.quantile(q).map_or(u64::MAX, f64::to_bits);
        if est < lo || est > hi {
            return Err("quantile: a quantile missing or outside ±α");
        }
    }
    if wire {
        quantile_wire(sink, &a, &mut b)?;
    }
    Ok(())
}

#[inline(never)]
fn quantile_wire(sink: &mut impl Sink, q: &Q, spare: &mut Q) -> Check {
    let mut buf = [0u8; Frame::<Q>::MAX_ENCODED_LEN];
    emit(sink, "quantile", q, &mut buf, spare)?;
    emit_frame(sink, "quantile-frame", (12, q), &mut buf, spare)
}
