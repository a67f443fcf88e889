//! The quantile family of the firmware workload (issue 17), kept in its own file while
//! `workload.rs` is reworked: the same shape as the families there (`pub fn quantile(sink, wire) ->
//! Check`), `no_std` and allocation-free, using only `workload`'s `Check` and `Sink`.
//!
//! Wiring (for the lead): in `main.rs`, `mod quantile;` and
//! `#[cfg(feature = "quantile")] family("quantile", quantile::quantile)?;`; in the host test,
//! include this file beside `workload.rs` and add `"quantile"` to the families it compares, so the
//! device's bytes are checked against the host's. `emit` below is `workload::emit` (private there):
//! once that is `pub(crate)`, use it instead.

use crate::workload::{Check, Sink};
use sketch_nostd::{
    wire::{self, Frame, RawFrame, Wire},
    QuantileSketch,
};

/// α = 0.99% (35 buckets per octave), 512 `u16` counters: 1,088 bytes, room for 1 … 2,000 (11
/// octaves, 385 buckets) and −1 … −8 (3 octaves) without collapsing.
type Q = QuantileSketch<35, 512, u16>;

const N: u32 = 2_000;
const NEG: i32 = 8;

/// The element of rank `r` (from 0) of the sorted values −8 … −1, 0, 1 … 2,000.
fn exact(r: u64) -> f64 {
    f64::from(r as i32 - NEG)
}

/// Quantile sketch: −8 … −1, zero and 1 … 2,000 in a scrambled order, fed as two sketches merged;
/// checks count, extremes, and p50/p90/p99/p999 within α of the exact values. With `wire`, emits the
/// encoding and a frame.
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
    if a.count() != n || a.min() != Some(-8.0) || a.max() != Some(2_000.0) || a.is_collapsed() {
        return Err("quantile: count, extremes or collapse wrong");
    }
    for (q, rank) in [(0.5, 1_004u64), (0.9, 1_807), (0.99, 1_987), (0.999, 2_005)] {
        // ⌊q·(n − 1)⌋ for n = 2,009, written out so that the check itself needs no float rounding.
        let truth = exact(rank);
        let Some(est) = a.quantile(q) else {
            return Err("quantile: no quantile");
        };
        if (est - truth).abs() > Q::ALPHA * truth.abs() {
            return Err("quantile: a quantile outside ±α");
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
    let bytes = wire::encode(q, &mut buf).map_err(|_| "wire: encode failed")?;
    if wire::decode_into(bytes, spare).is_err() || spare != q {
        return Err("wire: decoding the encoded sketch gave another sketch");
    }
    sink.begin("quantile");
    sink.bytes(bytes);
    sink.end();
    let frame = Frame {
        device: 0xd1,
        seq: 11,
        sketch: q.clone(),
    };
    let bytes = frame.encode(&mut buf).map_err(|_| "frame: encode failed")?;
    sink.begin("quantile-frame");
    sink.bytes(bytes);
    sink.end();
    let raw = RawFrame::decode(bytes).map_err(|_| "frame: decoding the framing failed")?;
    if (raw.device, raw.seq) != (frame.device, frame.seq)
        || raw.decode_sketch_into(spare).is_err()
        || spare != q
    {
        return Err("frame: decoding the encoded frame gave another frame");
    }
    Ok(())
}
