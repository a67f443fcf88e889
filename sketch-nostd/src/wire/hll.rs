//! Encoding of [`HyperLogLog`]: the sparse form's exact coupons, or the dense registers, each in the
//! smallest of a few encodings. Decoding rebuilds exactly the same sketch (coupons, registers,
//! estimator state).
//!
//! Format version 1 differs only in the sparse body: its coupons have 26 index bits at every
//! precision (ranks `1..=39`), where version 2 has `P + 7` (the sketch's
//! [`SPARSE_INDEX_BITS`](HyperLogLog::SPARSE_INDEX_BITS)). A version-1 sparse body is converted
//! exactly to the sketch the same keys build now (see [`WireCoupons`]).

use super::bits::{
    best_list_k, bytes_for, list_bits, rice_len, write_list, BitReader, BitWriter, ListReader,
};
use super::codec::{
    envelope_max_len, parts_error, serde_via_wire, varint_len, Codec, Sink, Source,
};
use super::WireError;
use super::{SketchKind, Wire};
use crate::error::PartsError;
use crate::hll::HyperLogLog;

/// State bit: the sketch is dense (registers), not sparse (coupons).
const DENSE: u8 = 1;
/// State bit: the sketch is a single stream (its martingale estimate is valid).
const SINGLE_STREAM: u8 = 2;

/// Sparse body tag: coupons as a Rice-coded list of (index, rank).
const COUPONS_RICE: u8 = 0;
/// Sparse body tag: coupons as 4 little-endian bytes each.
const COUPONS_RAW: u8 = 1;

/// Dense body tag: the packed 6-bit registers as they are in memory.
const PACKED: u8 = 0;
/// Dense body tag: the non-zero registers as a Rice-coded list of (index, value).
const REGISTER_LIST: u8 = 1;
/// Dense body tag: every register as a Rice code of its zigzagged distance from a base value.
const COMPACT: u8 = 2;

/// Index bits of a coupon in format version 1 (the top 26 bits of the hash, at every precision).
const V1_INDEX_BITS: u32 = 26;
/// The largest Rice parameter the compact dense form uses.
const MAX_COMPACT_K: u32 = 7;

fn coupon_item(c: u32) -> (u64, u64) {
    (u64::from(c >> 6), u64::from(c & 63))
}

/// The largest coupon rank with `bits` index bits: `64 − bits` rank bits, plus one.
const fn max_coupon_rank(bits: u32) -> u32 {
    65 - bits
}

/// The coupon with `drop` fewer index bits that the same hash gives: the index loses its low `drop`
/// bits, and the rank counts the leading zeros of those bits (plus one) if any is set, else `drop`
/// plus the old rank. Exact: it is the coupon of the same hash at the coarser precision.
const fn narrow(coupon: u32, drop: u32) -> u32 {
    let key = coupon >> 6;
    let below = key & ((1 << drop) - 1);
    let rank = if below != 0 {
        below.leading_zeros() - (32 - drop) + 1
    } else {
        drop + (coupon & 63)
    };
    (key >> drop) << 6 | rank
}

/// The coupons of a sparse body as the sketch takes them, counting those read. Version 2 passes
/// them through (the sketch checks them). Version 1 (26 index bits, strictly increasing) is
/// converted to this library's sparse form ([`narrow`]ed to `P + 7` bits): still sorted, and
/// coupons whose new indexes are equal, which are adjacent, become one with the highest rank. It
/// checks what a version-1 decoder checked (ranks in `1..=39`, strictly increasing indexes),
/// keeping the first problem in `error` and ending there.
///
/// One adapter for both versions, so the decoder builds the sketch at a single place: every extra
/// sketch-sized value on the decoding path costs stack a Cortex-M0 does not have.
struct WireCoupons<I> {
    coupons: I,
    /// Version 1: convert, dropping this many index bits.
    v1: Option<u32>,
    /// The converted coupon not yet handed out (the next one may share its index).
    pending: Option<u32>,
    /// The index of the last version-1 coupon.
    previous: Option<u32>,
    /// Coupons read from the body.
    read: usize,
    error: Option<PartsError>,
}

impl<I: Iterator<Item = u32>> WireCoupons<I> {
    /// The coupons of a body of format `version` for a sketch with `index_bits` index bits.
    fn new(coupons: I, version: u8, index_bits: u32) -> Self {
        Self {
            coupons,
            v1: (version == 1).then_some(V1_INDEX_BITS - index_bits),
            pending: None,
            previous: None,
            read: 0,
            error: None,
        }
    }

    fn next_v1(&mut self, drop: u32) -> Option<u32> {
        loop {
            let Some(c) = self.coupons.next() else {
                return self.pending.take();
            };
            let (index, rank) = (self.read, c & 63);
            if rank == 0 || rank > max_coupon_rank(V1_INDEX_BITS) {
                self.error = Some(PartsError::InvalidCoupon { index, coupon: c });
                return None;
            }
            if self.previous.is_some_and(|p| p >= c >> 6) {
                self.error = Some(PartsError::UnsortedCoupons { index });
                return None;
            }
            self.previous = Some(c >> 6);
            self.read += 1;
            let new = narrow(c, drop);
            match self.pending {
                // Same index: the coupons differ only in their rank; keep the higher.
                Some(p) if p >> 6 == new >> 6 => self.pending = Some(p.max(new)),
                Some(p) => {
                    self.pending = Some(new);
                    return Some(p);
                }
                None => self.pending = Some(new),
            }
        }
    }
}

impl<I: Iterator<Item = u32>> Iterator for WireCoupons<I> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self.v1 {
            Some(drop) => self.next_v1(drop),
            None => {
                let c = self.coupons.next()?;
                self.read += 1;
                Some(c)
            }
        }
    }
}

/// Register `i` of packed 6-bit registers (bits `6i..6i + 6`, least significant first).
fn register(packed: &[u8], i: usize) -> u8 {
    let (byte, shift) = (6 * i / 8, 6 * i % 8);
    let lo = u16::from(packed.get(byte).copied().unwrap_or(0));
    let hi = u16::from(packed.get(byte + 1).copied().unwrap_or(0));
    ((lo | hi << 8) >> shift) as u8 & 63
}

/// Sets register `i`, which must be zero, to `v`.
fn set_register(packed: &mut [u8], i: usize, v: u8) {
    let (byte, shift) = (6 * i / 8, 6 * i % 8);
    let w = u16::from(v & 63) << shift;
    if let Some(b) = packed.get_mut(byte) {
        *b |= w as u8;
    }
    if let Some(b) = packed.get_mut(byte + 1) {
        *b |= (w >> 8) as u8;
    }
}

fn zigzag(d: i64) -> u64 {
    if d >= 0 {
        (d as u64) << 1
    } else {
        ((-d as u64) << 1) - 1
    }
}

fn unzigzag(z: u64) -> i64 {
    if z & 1 == 0 {
        (z >> 1) as i64
    } else {
        -(((z + 1) >> 1) as i64)
    }
}

impl<const P: u8, const BYTES: usize> HyperLogLog<P, BYTES> {
    fn write_coupons<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        let count = self.coupon_count() as u64;
        let items = || self.coupons().map(coupon_item);
        let k = best_list_k(items, count, 1 << Self::SPARSE_INDEX_BITS);
        let rice = 1 + bytes_for(list_bits(items(), k));
        let raw = 4 * count;
        if rice <= raw {
            s.byte(COUPONS_RICE)?;
            s.varint(count)?;
            s.byte(k as u8)?;
            write_list(s, k, items())
        } else {
            s.byte(COUPONS_RAW)?;
            s.varint(count)?;
            for c in self.coupons() {
                for b in c.to_le_bytes() {
                    s.byte(b)?;
                }
            }
            Ok(())
        }
    }

    fn write_registers<S: Sink>(packed: &[u8; BYTES], s: &mut S) -> Result<(), S::Error> {
        let n = Self::REGISTERS;
        let reg = |i: usize| register(packed, i);
        let mut hist = [0u64; 64];
        for i in 0..n {
            if let Some(h) = hist.get_mut(usize::from(reg(i))) {
                *h += 1;
            }
        }
        // The non-zero registers as a list.
        let count = n as u64 - hist[0];
        let items = || {
            (0..n).filter_map(move |i| {
                let v = reg(i);
                (v != 0).then_some((i as u64, u64::from(v)))
            })
        };
        let list_k = best_list_k(items, count, n as u64);
        let list = varint_len(count) as u64 + 1 + bytes_for(list_bits(items(), list_k));
        // Every register relative to the best base, with the best Rice parameter.
        let (mut compact_bits, mut base, mut compact_k) = (u64::MAX, 0u8, 0u32);
        for b in 0..=Self::MAX_RANK {
            for k in 0..=MAX_COMPACT_K {
                let bits = hist
                    .iter()
                    .enumerate()
                    .filter(|&(_, &c)| c > 0)
                    .map(|(v, &c)| c * rice_len(zigzag(v as i64 - i64::from(b)), k))
                    .sum();
                if bits < compact_bits {
                    (compact_bits, base, compact_k) = (bits, b, k);
                }
            }
        }
        let compact = 2 + bytes_for(compact_bits);
        let packed_len = BYTES as u64;
        if packed_len <= list && packed_len <= compact {
            s.byte(PACKED)?;
            for &b in packed {
                s.byte(b)?;
            }
            Ok(())
        } else if list <= compact {
            s.byte(REGISTER_LIST)?;
            s.varint(count)?;
            s.byte(list_k as u8)?;
            write_list(s, list_k, items())
        } else {
            s.byte(COMPACT)?;
            s.byte(base)?;
            s.byte(compact_k as u8)?;
            let mut w = BitWriter::new(s);
            for i in 0..n {
                w.rice(zigzag(i64::from(reg(i)) - i64::from(base)), compact_k)?;
            }
            w.finish()
        }
    }

    /// Reads a sparse body of format `version` (1: 26-bit coupons, converted; 2: this sketch's).
    fn read_coupons<R: Source>(
        &mut self,
        r: &mut R,
        seed: u64,
        single: bool,
        version: u8,
    ) -> Result<(), WireError> {
        let tag = r.byte()?;
        let count = r.varint()?;
        if count > Self::SPARSE_CAPACITY as u64 {
            return Err(WireError::Inconsistent {
                what: "more HLL coupons than the sparse form holds",
            });
        }
        let bits = u32::from(Self::SPARSE_INDEX_BITS);
        let wire_bits = if version == 1 { V1_INDEX_BITS } else { bits };
        let mut err = None;
        let (loaded, read, error) = match tag {
            COUPONS_RICE => {
                let k = u32::from(r.byte()?);
                let max_rank = u64::from(max_coupon_rank(wire_bits));
                let mut list = ListReader::new(r, count, k, 1 << wire_bits, max_rank)?;
                let list_items = core::iter::from_fn(|| match list.next_item() {
                    Ok(item) => item.map(|(key, rank)| (key as u32) << 6 | rank as u32),
                    Err(e) => {
                        err = Some(e);
                        None
                    }
                });
                let mut coupons = WireCoupons::new(list_items, version, bits);
                let loaded = self.set_coupons(&mut coupons, seed, single);
                let (read, error) = (coupons.read, coupons.error);
                if let Some(e) = err {
                    return Err(e);
                }
                if error.is_none() && loaded.is_ok() {
                    list.finish()?;
                }
                (loaded, read, error)
            }
            COUPONS_RAW => {
                let mut left = count;
                let raw = core::iter::from_fn(|| {
                    left = left.checked_sub(1)?;
                    let mut b = [0u8; 4];
                    for x in &mut b {
                        match r.byte() {
                            Ok(v) => *x = v,
                            Err(e) => {
                                err = Some(e);
                                return None;
                            }
                        }
                    }
                    Some(u32::from_le_bytes(b))
                });
                let mut coupons = WireCoupons::new(raw, version, bits);
                let loaded = self.set_coupons(&mut coupons, seed, single);
                let (read, error) = (coupons.read, coupons.error);
                if let Some(e) = err {
                    return Err(e);
                }
                (loaded, read, error)
            }
            _ => {
                return Err(WireError::BadEncoding {
                    what: "unknown HLL sparse encoding",
                })
            }
        };
        if let Some(e) = error {
            return Err(parts_error(e));
        }
        loaded.map_err(parts_error)?;
        if read as u64 != count {
            // The coupons ended early: only when the input did, which `err` reported.
            return Err(WireError::Truncated);
        }
        Ok(())
    }

    fn read_registers<R: Source>(
        &mut self,
        r: &mut R,
        seed: u64,
        single: bool,
    ) -> Result<(), WireError> {
        let martingale = if single {
            Some(f64::from_bits(r.u64_le()?))
        } else {
            None
        };
        let n = Self::REGISTERS;
        let max = Self::MAX_RANK;
        // Straight into the sketch's storage: `load_dense` also refuses a martingale estimate the
        // sketch would not report back unchanged (above its 2^64 clamp, negative zero). Decoding
        // into a staging array or a second sketch overflowed a Cortex-M0's stack.
        let fill = |packed: &mut [u8; BYTES]| {
            match r.byte()? {
                PACKED => {
                    for b in packed.iter_mut() {
                        *b = r.byte()?;
                    }
                }
                REGISTER_LIST => {
                    let count = r.varint()?;
                    let k = u32::from(r.byte()?);
                    let mut list = ListReader::new(r, count, k, n as u64, u64::from(max))?;
                    while let Some((i, v)) = list.next_item()? {
                        set_register(packed, i as usize, v as u8);
                    }
                    list.finish()?;
                }
                COMPACT => {
                    let base = r.byte()?;
                    let k = u32::from(r.byte()?);
                    if base > max || k > MAX_COMPACT_K {
                        return Err(WireError::BadEncoding {
                            what: "HLL compact base or Rice parameter out of range",
                        });
                    }
                    let mut bits = BitReader::new(r);
                    for i in 0..n {
                        let v = i64::from(base) + unzigzag(bits.rice(k, 2 * 64)?);
                        if !(0..=i64::from(max)).contains(&v) {
                            return Err(WireError::BadRegister {
                                index: i as u32,
                                value: v as u64,
                            });
                        }
                        set_register(packed, i, v as u8);
                    }
                    bits.finish()?;
                }
                _ => {
                    return Err(WireError::BadEncoding {
                        what: "unknown HLL dense encoding",
                    })
                }
            }
            Ok(())
        };
        self.load_dense(seed, martingale, fill, parts_error)
    }
}

impl<const P: u8, const BYTES: usize> Codec for HyperLogLog<P, BYTES> {
    fn wire_seed(&self) -> u64 {
        self.seed()
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        let single = if self.is_single_stream() {
            SINGLE_STREAM
        } else {
            0
        };
        match self.dense_registers() {
            None => {
                s.byte(single)?;
                self.write_coupons(s)
            }
            Some(packed) => {
                s.byte(DENSE | single)?;
                if single != 0 {
                    let m = self.martingale_estimate().unwrap_or(0.0);
                    s.u64_le(m.to_bits())?;
                }
                Self::write_registers(packed, s)
            }
        }
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        Self::read_body_version(r, seed, super::FORMAT_VERSION)
    }

    fn read_body_version<R: Source>(r: &mut R, seed: u64, version: u8) -> Result<Self, WireError> {
        let mut sketch = Self::with_seed(seed);
        sketch.read_body_into(r, seed, version)?;
        Ok(sketch)
    }

    fn read_body_into<R: Source>(
        &mut self,
        r: &mut R,
        seed: u64,
        version: u8,
    ) -> Result<(), WireError> {
        let own = self.seed();
        let state = r.byte();
        let result = state.and_then(|state| {
            if state & !(DENSE | SINGLE_STREAM) != 0 {
                return Err(WireError::BadEncoding {
                    what: "unknown HLL state bits",
                });
            }
            let single = state & SINGLE_STREAM != 0;
            if state & DENSE != 0 {
                self.read_registers(r, seed, single)
            } else {
                self.read_coupons(r, seed, single, version)
            }
        });
        if result.is_err() {
            self.reset(own);
        }
        result
    }

    fn clear_with_seed(&mut self, seed: u64) {
        self.reset(seed);
    }
}

/// The longest body: the state byte plus the larger of the dense bound (martingale, tag, packed
/// registers) and the sparse bound (tag, count, raw coupons); the encoder never writes more than
/// these fallbacks.
const fn body_max(bytes: usize, sparse_capacity: usize) -> usize {
    let dense = 8 + 1 + bytes;
    let sparse = 1 + varint_len(sparse_capacity as u64) + 4 * sparse_capacity;
    1 + if dense > sparse { dense } else { sparse }
}

impl<const P: u8, const BYTES: usize> Wire for HyperLogLog<P, BYTES> {
    const KIND: SketchKind = SketchKind::HyperLogLog;
    const PARAMS: &'static [(&'static str, u64)] = &[("P", P as u64)];
    const MAX_ENCODED_LEN: usize =
        envelope_max_len(Self::PARAMS) + body_max(BYTES, Self::SPARSE_CAPACITY);
}

serde_via_wire!(impl[const P: u8, const BYTES: usize] HyperLogLog<P, BYTES>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hll::{Hll14, Hll4};
    use crate::wire::{decode, encode, encoded_len};

    fn round_trip<const P: u8, const BYTES: usize>(h: &HyperLogLog<P, BYTES>) -> usize {
        let mut buf = [0u8; 13_000];
        let bytes = encode(h, &mut buf).unwrap();
        assert!(bytes.len() <= HyperLogLog::<P, BYTES>::MAX_ENCODED_LEN);
        assert_eq!(bytes.len(), encoded_len(h));
        let back = decode::<HyperLogLog<P, BYTES>>(bytes).unwrap();
        assert!(back == *h);
        assert_eq!(back.cardinality().to_bits(), h.cardinality().to_bits());
        bytes.len()
    }

    #[test]
    fn martingale_estimates_out_of_range_are_refused() {
        // Found by the `decode` fuzz target: a dense single-stream Hll10 whose martingale estimate
        // (about 1.5e77) is above what the sketch reports back (its clamp at 2^64), so it re-encoded
        // differently. Now refused.
        let mut h = crate::hll::Hll10::with_seed(7);
        for i in 0..3_000u32 {
            h.insert(&i);
        }
        let mut buf = [0u8; 1_000];
        let n = encode(&h, &mut buf).unwrap().len();
        assert_eq!(buf[6], DENSE | SINGLE_STREAM);
        for bad in [1e77f64, f64::INFINITY, -0.0, -1.0] {
            buf[7..15].copy_from_slice(&bad.to_bits().to_le_bytes());
            assert!(
                matches!(
                    decode::<crate::hll::Hll10>(&buf[..n]),
                    Err(WireError::Inconsistent { .. })
                ),
                "{bad}"
            );
        }
        buf[7..15].copy_from_slice(&3_000.5f64.to_bits().to_le_bytes());
        assert!(decode::<crate::hll::Hll10>(&buf[..n]).is_ok());
    }

    /// The coupon format version 1 kept for `hash`: 26 index bits, rank in `1..=39`.
    fn v1_coupon(hash: u64) -> u32 {
        let key = (hash >> 38) as u32;
        let rank = (hash << 26 | 1 << 25).leading_zeros() + 1;
        key << 6 | rank
    }

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn narrowing_a_v1_coupon_gives_the_coupon_of_the_same_hash() {
        fn check<const P: u8, const BYTES: usize>(hashes: &[u64]) {
            let bits = u32::from(HyperLogLog::<P, BYTES>::SPARSE_INDEX_BITS);
            for &hash in hashes {
                let mut h = HyperLogLog::<P, BYTES>::new();
                h.insert_hash(hash);
                let now = h.coupons().next().unwrap();
                assert_eq!(narrow(v1_coupon(hash), 26 - bits), now, "P={P} {hash:#x}");
            }
        }
        let mut x = 0x0123_4567_89ab_cdefu64;
        let mut hashes = vec![0, 1, u64::MAX, 1 << 38, 1 << 37, (1 << 38) - 1, 1 << 45];
        for _ in 0..3_000 {
            let v = xorshift(&mut x);
            hashes.extend([v, v >> (v & 63), v & !((1 << ((v & 31) + 32)) - 1)]);
        }
        check::<4, 12>(&hashes);
        check::<10, 768>(&hashes);
        check::<14, 12_288>(&hashes);
        check::<18, 196_608>(&hashes);
    }

    #[test]
    fn v1_coupons_sharing_a_new_index_become_one_with_the_highest_rank() {
        // Index bits 21..26 of the v1 index are dropped at p = 14 (d = 5).
        let v1 = [
            0b1_00001 << 6 | 7,  // new index 1, rank 5 (4 leading zeros in 00001, plus one)
            0b1_00100 << 6 | 2,  // new index 1, rank 3
            0b10_00000 << 6 | 1, // new index 2, rank 5 + 1
            0b10_00000 << 6 | 1, // repeated: refused
        ];
        let got: Vec<u32> = WireCoupons::new(v1[..3].iter().copied(), 1, 21).collect();
        assert_eq!(got, [1 << 6 | 5, 2 << 6 | 6]);
        let mut bad = WireCoupons::new(v1.iter().copied(), 1, 21);
        assert_eq!(bad.by_ref().count(), 1);
        assert_eq!(bad.error, Some(PartsError::UnsortedCoupons { index: 3 }));
        let mut bad = WireCoupons::new([3 << 6 | 40].into_iter(), 1, 21);
        assert_eq!(bad.next(), None);
        assert!(matches!(
            bad.error,
            Some(PartsError::InvalidCoupon { index: 0, .. })
        ));
    }

    #[test]
    fn v1_sparse_bodies_decode_to_the_sketch_the_same_keys_build_now() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [0usize, 1, 5, 100, 1_000, 2_304, 3_000] {
            let hashes: Vec<u64> = (0..n).map(|_| xorshift(&mut x)).collect();
            let mut now = Hll14::with_seed(3);
            for &h in &hashes {
                now.insert_hash(h);
            }
            // The v1 coupons of the same hashes, as a v1 encoder kept them.
            let mut v1: Vec<u32> = hashes.iter().map(|&h| v1_coupon(h)).collect();
            v1.sort_unstable();
            v1.dedup_by(|later, earlier| {
                let same = *later >> 6 == *earlier >> 6;
                if same {
                    *earlier = (*earlier).max(*later);
                }
                same
            });
            if v1.len() > Hll14::SPARSE_CAPACITY {
                continue; // a v1 sketch would have been dense
            }
            assert!(now.is_sparse());
            for raw in [false, true] {
                let mut bytes = vec![0x53, 0x4b, 1, 4, 14, 3, SINGLE_STREAM];
                let mut sink = VecSink(&mut bytes);
                if raw {
                    sink.byte(COUPONS_RAW).unwrap();
                    sink.varint(v1.len() as u64).unwrap();
                    for c in &v1 {
                        for b in c.to_le_bytes() {
                            sink.byte(b).unwrap();
                        }
                    }
                } else {
                    let items = || v1.iter().map(|&c| coupon_item(c));
                    let k = best_list_k(items, v1.len() as u64, 1 << 26);
                    sink.byte(COUPONS_RICE).unwrap();
                    sink.varint(v1.len() as u64).unwrap();
                    sink.byte(k as u8).unwrap();
                    write_list(&mut sink, k, items()).unwrap();
                }
                let back = decode::<Hll14>(&bytes).unwrap();
                assert!(back == now, "n = {n}, raw = {raw}");
                assert_eq!(crate::wire::peek(&bytes).unwrap().version, 1);
                // Truncated anywhere: an error, never a shorter sketch.
                for cut in 7..bytes.len() {
                    assert!(decode::<Hll14>(&bytes[..cut]).is_err(), "n = {n} cut {cut}");
                }
            }
        }
    }

    /// Writes elements as postcard would (bytes raw, varints LEB128).
    struct VecSink<'a>(&'a mut Vec<u8>);

    impl Sink for VecSink<'_> {
        type Error = ();
        fn byte(&mut self, b: u8) -> Result<(), ()> {
            self.0.push(b);
            Ok(())
        }
        fn varint(&mut self, mut v: u64) -> Result<(), ()> {
            while v >= 0x80 {
                self.0.push(v as u8 | 0x80);
                v >>= 7;
            }
            self.0.push(v as u8);
            Ok(())
        }
    }

    #[test]
    fn packing_matches_the_sketch() {
        let mut h = Hll4::new();
        h.to_dense();
        for i in 0..40u32 {
            h.insert(&i);
        }
        let packed = h.dense_registers().unwrap();
        let mut rebuilt = [0u8; 12];
        for (i, v) in h.registers().enumerate() {
            assert_eq!(register(packed, i), v);
            set_register(&mut rebuilt, i, v);
        }
        assert_eq!(&rebuilt, packed);
        for d in -70..70 {
            assert_eq!(unzigzag(zigzag(d)), d);
        }
    }

    #[test]
    fn every_state_round_trips_within_the_size_targets() {
        let mut h = Hll14::with_seed(9);
        assert!(round_trip(&h) < 16);
        for i in 0..100u32 {
            h.insert(&i);
        }
        // Issue 5's targets for the sparse form: half of a reference server's bytes.
        assert!(h.is_sparse() && round_trip(&h) <= 283);
        // The same registers once dense: a register list.
        let mut d = h.clone();
        d.to_dense();
        assert!(round_trip(&d) <= 283);
        for i in 100..1_000u32 {
            h.insert(&i);
        }
        assert!(h.is_sparse() && round_trip(&h) <= 1_903);
        let mut d = h.clone();
        d.to_dense();
        assert!(round_trip(&d) <= 1_903);
        for i in 1_000..200_000u32 {
            h.insert(&i);
        }
        assert!(!h.is_sparse());
        assert!(round_trip(&h) <= 12_300);
        let mut merged = h.clone();
        merged.merge(&d).unwrap();
        assert!(!merged.is_single_stream());
        round_trip(&merged);
    }
}
