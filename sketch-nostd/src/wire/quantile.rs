//! Encoding of [`QuantileSketch`].

use super::codec::{
    envelope_max_len, read_into_new, serde_via_wire, unzigzag, zigzag, Codec, Sink, Source,
    VARINT_MAX,
};
use super::countmin::{read_counters, write_counters};
use super::{SketchKind, Wire};
use crate::quantile::{Counter, NO_FLOOR};
use crate::wire::WireError;
use crate::QuantileSketch;

/// State bit: a counter reached its maximum.
const SATURATED: u8 = 1;
/// State bit: the lowest buckets were collapsed; the floor follows.
const COLLAPSED: u8 = 2;

const fn inconsistent(what: &'static str) -> WireError {
    WireError::Inconsistent { what }
}

const fn malformed(what: &'static str) -> WireError {
    WireError::BadEncoding { what }
}

impl<const SUB: usize, const BUCKETS: usize, C: Counter> Codec for QuantileSketch<SUB, BUCKETS, C> {
    const FIXED_SEED: Option<u64> = Some(0);

    fn wire_seed(&self) -> u64 {
        0
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        let collapsed = self.floor != NO_FLOOR;
        s.byte(u8::from(self.saturated) * SATURATED + u8::from(collapsed) * COLLAPSED)?;
        if collapsed {
            s.varint(zigzag(i64::from(self.floor)))?;
        }
        s.varint(self.zero)?;
        // The negative window, then the positive one: length, then lowest key's magnitude and
        // counters if not empty.
        let nn = self.neg_len as usize;
        let windows = [
            (0, nn, self.neg_lo),
            (nn, self.pos_len as usize, self.pos_lo),
        ];
        for (start, len, lo) in windows {
            s.varint(len as u64)?;
            if len > 0 {
                s.varint(u64::from(lo.unsigned_abs()))?;
                write_counters(s, self.counts.get(start..start + len).unwrap_or(&[]))?;
            }
        }
        if self.count > 0 {
            for v in [self.min, self.max, self.sum] {
                s.u64_le(v.to_bits())?;
            }
        }
        Ok(())
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        if seed != 0 {
            return Err(WireError::WrongParameter {
                name: "SEED",
                expected: 0,
                found: seed,
            });
        }
        read_into_new(r, seed, |_| Self::new())
    }

    fn read_body_into<R: Source>(&mut self, r: &mut R, _: u64, _: u8) -> Result<(), WireError> {
        self.clear();
        let result = read_into(self, r);
        if result.is_err() {
            self.clear();
        }
        result
    }

    fn clear_with_seed(&mut self, _: u64) {
        self.clear();
    }
}

/// Reads a body into `q` (empty beforehand) and validates it.
fn read_into<R: Source, const SUB: usize, const BUCKETS: usize, C: Counter>(
    q: &mut QuantileSketch<SUB, BUCKETS, C>,
    r: &mut R,
) -> Result<(), WireError> {
    let max_key = QuantileSketch::<SUB, BUCKETS, C>::MAX_KEY;
    let state = r.byte()?;
    if state & !(SATURATED | COLLAPSED) != 0 {
        return Err(malformed("unknown quantile state bits"));
    }
    let floor = if state & COLLAPSED != 0 {
        let f = unzigzag(r.varint()?);
        if f != 0 && !(SUB as i64..=max_key).contains(&f.abs()) {
            return Err(inconsistent("the collapse floor is not a bucket"));
        }
        Some(f)
    } else {
        None
    };
    let zero = r.varint()?;
    // The negative window, then the positive one: (lowest key, length).
    let mut windows = [(0i64, 0usize); 2];
    let mut used = 0usize;
    for (side, w) in windows.iter_mut().enumerate() {
        let len = r.varint()?;
        if len > (BUCKETS - used) as u64 {
            return Err(malformed("more buckets than the sketch has"));
        }
        let len = len as usize;
        if len == 0 {
            continue;
        }
        let m = r.varint()?;
        let lo = if side == 0 {
            -(m.min(1 << 40) as i64)
        } else {
            m.min(1 << 40) as i64
        };
        let hi = lo + len as i64 - 1;
        let valid = if side == 0 {
            lo >= -max_key && hi <= -(SUB as i64)
        } else {
            lo >= SUB as i64 && hi <= max_key
        };
        if !valid {
            return Err(malformed("bucket keys out of range"));
        }
        let cells = q
            .counts
            .get_mut(used..used + len)
            .ok_or(malformed("more buckets than the sketch has"))?;
        read_counters(r, cells).map_err(|e| match e {
            WireError::BadRegister { index, value } => WireError::BadRegister {
                index: index + used as u32,
                value,
            },
            e => e,
        })?;
        if cells.first() == Some(&C::ZERO) || cells.last() == Some(&C::ZERO) {
            return Err(inconsistent("a bucket window starts or ends empty"));
        }
        *w = (lo, len);
        used += len;
    }
    let [(neg_lo, nn), (pos_lo, np)] = windows;
    if let Some(f) = floor {
        let below =
            (nn > 0 && (neg_lo < f || f >= 0)) || (f > 0 && (zero > 0 || (np > 0 && pos_lo < f)));
        if below {
            return Err(inconsistent("buckets below the collapse floor"));
        }
    }
    let mut count = zero;
    for c in q.counts.iter().take(used) {
        count = count
            .checked_add(c.to_u64())
            .ok_or(inconsistent("the counts add up to more than 2^64 - 1"))?;
    }
    q.zero = zero;
    q.count = count;
    q.neg_lo = neg_lo as i32;
    q.neg_len = nn as u32;
    q.pos_lo = pos_lo as i32;
    q.pos_len = np as u32;
    q.floor = floor.map_or(NO_FLOOR, |f| f as i32);
    q.saturated = state & SATURATED != 0;
    if count > 0 {
        let min = f64::from_bits(r.u64_le()?);
        let max = f64::from_bits(r.u64_le()?);
        q.sum = f64::from_bits(r.u64_le()?);
        if min.is_nan() || max.is_nan() || min > max {
            return Err(inconsistent("the minimum is above the maximum or NaN"));
        }
        // The extremes lie in the lowest and highest buckets (or the next one: an integer beyond
        // 2^53 rounds to an f64 that may cross a bucket bound).
        let f = floor.unwrap_or(i64::from(NO_FLOOR));
        let lowest = if nn > 0 {
            neg_lo
        } else if zero > 0 {
            0
        } else {
            pos_lo
        };
        let highest = if np > 0 {
            pos_lo + np as i64 - 1
        } else if zero > 0 {
            0
        } else {
            neg_lo + nn as i64 - 1
        };
        let near = |v: f64, k: i64| {
            QuantileSketch::<SUB, BUCKETS, C>::key_of_value(v)
                .is_some_and(|kv| kv.max(f).abs_diff(k) <= 1)
        };
        if !near(min, lowest) || !near(max, highest) {
            return Err(inconsistent(
                "the minimum or maximum is outside the lowest or highest bucket",
            ));
        }
        q.min = min;
        q.max = max;
    }
    Ok(())
}

impl<const SUB: usize, const BUCKETS: usize, C: Counter> Wire for QuantileSketch<SUB, BUCKETS, C> {
    const KIND: SketchKind = SketchKind::QuantileSketch;
    const PARAMS: &'static [(&'static str, u64)] = &[
        ("SUB", SUB as u64),
        ("BUCKETS", BUCKETS as u64),
        ("COUNTER_BYTES", core::mem::size_of::<C>() as u64),
    ];
    /// Envelope, state, floor, zero count, two windows (length, first key, tag) with dense counters
    /// (never larger than zero runs: the encoder picks the smaller), and three `f64`s.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS)
        + 1
        + 2 * VARINT_MAX
        + 2 * (2 * VARINT_MAX + 1)
        + BUCKETS * core::mem::size_of::<C>()
        + 24;
}

serde_via_wire!(impl[const SUB: usize, const BUCKETS: usize, C: Counter] QuantileSketch<SUB, BUCKETS, C>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{decode, decode_into, encode, encoded_len};

    fn round_trip<const S: usize, const B: usize, C: Counter>(
        q: &QuantileSketch<S, B, C>,
    ) -> usize {
        let mut buf = vec![0u8; QuantileSketch::<S, B, C>::MAX_ENCODED_LEN];
        let bytes = encode(q, &mut buf).unwrap();
        assert_eq!(bytes.len(), encoded_len(q));
        assert!(decode::<QuantileSketch<S, B, C>>(bytes).unwrap() == *q);
        let mut rx = QuantileSketch::<S, B, C>::new();
        rx.insert(5u8);
        decode_into(bytes, &mut rx).unwrap();
        assert!(rx == *q);
        bytes.len()
    }

    #[test]
    fn round_trips_small_and_bounded() {
        let mut q = QuantileSketch::<35, 1_047>::new();
        assert!(round_trip(&q) < 14);
        q.insert(3u32);
        q.insert(-1.5f64);
        q.insert(0u8);
        assert!(round_trip(&q) < 60); // 24 of them the minimum, maximum and sum
        for i in 0..100_000u64 {
            q.insert(i * i);
        }
        let n = round_trip(&q);
        assert!(n < QuantileSketch::<35, 1_047>::MAX_ENCODED_LEN, "{n}");
        // Saturated, collapsed, every counter full: within the bound.
        let mut full = QuantileSketch::<1, 8, u16>::new();
        for b in 0..8u32 {
            full.add(-(1i64 << b), 70_000);
            full.add(1u64 << (b + 40), 70_000);
        }
        full.add(0u8, 3);
        assert!(full.is_saturated() && full.is_collapsed());
        assert!(round_trip(&full) <= QuantileSketch::<1, 8, u16>::MAX_ENCODED_LEN);
        // Counts that reach 2^64 − 1 in all: what they could not count was turned away, so the
        // bytes decode (the buckets once held more than the count, which the decoder refuses).
        for counts in [[u64::MAX, 1], [u64::MAX - 5, 100], [1 << 63, 1 << 63]] {
            let mut q = QuantileSketch::<35, 1_047, u64>::new();
            let mut w = QuantileSketch::<35, 64, u64>::new();
            q.add(0.0f64, counts[0]);
            w.add(3u32, counts[0]);
            q.insert(1.0f64);
            q.add(2.0f64, counts[1]);
            w.add(9u32, counts[1]);
            round_trip(&q);
            round_trip(&w);
            assert_eq!((q.count(), w.count()), (u64::MAX, u64::MAX));
            assert!(q.is_saturated() && w.is_saturated());
        }
    }
}
