//! Encoding of [`HyperLogLog`]: the sparse form's exact coupons, or the dense registers, each in the
//! smallest of a few encodings. Decoding rebuilds exactly the same sketch (coupons, registers,
//! estimator state).
//!
//! Format version 1 differs only in the sparse body: its coupons have 26 index bits at every
//! precision (ranks `1..=39`), where version 2 has `P + 7` (the sketch's
//! [`SPARSE_INDEX_BITS`](HyperLogLog::SPARSE_INDEX_BITS)). A version-1 sparse body is converted
//! exactly to the sketch the same keys build now (see [`WireCoupons`]).

use super::bits::{best_list, bytes_for, list_bits, BitReader, BitWriter, ListReader};
use super::codec::{
    envelope_max_len, parts_error, serde_via_wire, unzigzag, varint_len, zigzag, Codec, Sink,
    Source,
};
use super::WireError;
use super::{SketchKind, Wire};
use crate::error::PartsError;
use crate::hll::{registers, DeviceHll, HyperLogLog};

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

fn coupon_item(c: u32) -> (u32, u32) {
    (c >> 6, c & 63)
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

/// `v − base` zigzagged ([`zigzag`]) for two register values.
const fn distance(v: u32, base: u32) -> u32 {
    zigzag(v as i64 - base as i64) as u32
}

/// Writes dense packed registers (`2^P` of them, values at most `max_rank`) as the smallest of the
/// three dense encodings: the body after the state byte and martingale estimate. Shared by
/// [`HyperLogLog`] and [`DeviceHll`], so equal registers give equal bytes.
///
/// The compact form's size comes from a histogram of the register values ([`compact_size`]), 64
/// counts of 2 bytes (4 above `P = 15`), kept in the sink's scratch memory
/// ([`Sink::with_scratch`]): on the send path, the free part of the caller's buffer, so it is not
/// on a device's stack. From `P = 10` on, every compact body is longer than the histogram (it
/// takes at least 3 bytes and a bit per register, `3 + 2^P/8 > 64·2`), so a buffer without room
/// for the histogram has none for a compact body either: the encoder then chooses between the
/// other two as if the compact one were infinitely long, which chooses as before whenever the
/// result fits. Below `P = 10` the histogram is on the stack (the registers take at most 384 B).
fn write_registers<S: Sink, const P: u8, const BYTES: usize>(
    packed: &[u8; BYTES],
    max_rank: u8,
    s: &mut S,
) -> Result<(), S::Error> {
    let (n, max_rank) = (1 << P, u32::from(max_rank));
    let sizes = if P < 10 {
        Some(compact_size(packed, n, max_rank, &mut [0; 128]))
    } else {
        let len = if P <= 15 { 128 } else { 256 };
        s.with_scratch(len, |hist| compact_size(packed, n, max_rank, hist))
    };
    write_dense(packed, n, sizes, s)
}

/// Register `i` as a `u32`: one copy for the encoder's passes.
#[inline(never)]
fn reg(packed: &[u8], i: u32) -> u32 {
    u32::from(registers::get(packed, i as usize))
}

/// The compact form's best base and Rice parameter for `n` registers (values at most
/// `max_rank`), the first of the smallest in the order (base, k), from a histogram of the register
/// values: for base `b` and parameter `k` the form takes `Σ_v count(v)·((zigzag(v − b) >> k) + 1 + k)`
/// bits, a sum over 64 bins, not `m` registers. Returns the bits and `8·base + k` (two values: they
/// are returned in registers, not through the caller's stack).
///
/// The histogram is `hist` (its content is overwritten), `hist.len() / 64` bytes a count, each
/// count's bytes 64 apart, least significant first: a count is incremented with a carry from one
/// byte to the next, so one loop serves any width. Not inlined: its frame is gone before anything
/// is written.
#[inline(never)]
fn compact_size(packed: &[u8], n: u32, max_rank: u32, hist: &mut [u8]) -> (u32, u32) {
    for b in hist.iter_mut() {
        // Through `black_box`: a plain loop becomes a call of `memset` for unaligned memory, which
        // costs 192 B of Cortex-M0 code where nothing else links it.
        *core::hint::black_box(b) = 0;
    }
    for i in 0..n {
        let mut at = reg(packed, i) as usize;
        while let Some(b) = hist.get_mut(at) {
            *b = b.wrapping_add(1);
            if *b != 0 {
                break;
            }
            at += 64;
        }
    }
    let count = |v: u32| {
        let (mut c, mut at) = (0, v as usize + hist.len());
        while at >= 64 {
            at -= 64;
            c = c << 8 | u32::from(hist.get(at).copied().unwrap_or(0));
        }
        c
    };
    let mut best = (u32::MAX, 0);
    for b in 0..max_rank + 1 {
        for k in 0..MAX_COMPACT_K + 1 {
            let mut bits = n * (1 + k);
            for v in 0..64 {
                bits += count(v) * (distance(v, b) >> k);
            }
            if bits < best.0 {
                best = (bits, b << 3 | k);
            }
        }
    }
    best
}

/// Writes the bits of a dense body of `n` registers: as a list, each non-zero register's gap from
/// the one after the previous (Rice, parameter `k`) and its value − 1 (unary), the bits
/// [`list_bits`] counts; else every register's zigzagged distance from `base` (Rice, parameter `k`). One
/// loop over the registers for writing both.
fn dense_bits<S: Sink>(
    w: &mut BitWriter<'_, S>,
    packed: &[u8],
    n: u32,
    list: bool,
    k: u32,
    base: u32,
) -> Result<(), S::Error> {
    let mut next = 0;
    for i in 0..n {
        let v = reg(packed, i);
        if !list {
            w.rice(distance(v, base), k)?;
        } else if v != 0 {
            w.rice(i - next, k)?;
            w.rice(v - 1, 0)?;
            next = i + 1;
        }
    }
    Ok(())
}

/// The bits [`dense_bits`] writes for the list form with parameter `k`: for each non-zero register
/// `v`, the Rice code of its gap (`(gap >> k) + 1 + k` bits) and `v − 1` in unary (`v` bits).
#[inline(never)]
fn dense_list_bits(packed: &[u8], n: u32, k: u32) -> u32 {
    let (mut bits, mut next) = (0, 0);
    for i in 0..n {
        let v = reg(packed, i);
        if v != 0 {
            bits += ((i - next) >> k) + 1 + k + v;
            next = i + 1;
        }
    }
    bits
}

/// [`write_registers`] for `n` registers, with the compact form's bits and `8·base + k` from
/// [`compact_size`] (`None`: no compact body fits). Every size is counted before anything is
/// written, in `u32` arithmetic: the list's for the candidate parameters of [`best_list`] by
/// [`dense_list_bits`]. Then only the chosen form is written, straight into the sink.
fn write_dense<S: Sink>(
    packed: &[u8],
    n: u32,
    compact: Option<(u32, u32)>,
    s: &mut S,
) -> Result<(), S::Error> {
    let (compact_bits, base_k) = compact.unwrap_or((u32::MAX, 0));
    // The non-zero registers: a list's bits with parameters 31 and 30 differ by one bit for each
    // (every gap is below 2^30, so its Rice code is its parameter's bits and a stop bit).
    let count = dense_list_bits(packed, n, 31) - dense_list_bits(packed, n, 30);
    let compact = 2 + bytes_for(compact_bits);
    // The non-zero registers as a list: tag, count (a varint of up to 3 bytes: `count ≤ n ≤ 2^18`,
    // so the third is possible only from `n = 2^14` on, which the compiler sees), k, the bits.
    let (list_k, list_bits) = best_list(count, n, |k| Ok(dense_list_bits(packed, n, k)))?;
    let varint3 = n >= 1 << 14 && count >= 1 << 14;
    let list = 2 + u32::from(count >= 1 << 7) + u32::from(varint3) + bytes_for(list_bits);
    let packed_len = packed.len() as u32;
    // The form's tag, and the head of the other two: the list's count (a varint) or the compact
    // form's base (a byte), then the Rice parameter (a byte).
    let (tag, head, k) = if packed_len <= list && packed_len <= compact {
        (PACKED, 0, 0)
    } else if list <= compact {
        (REGISTER_LIST, count, list_k)
    } else {
        (COMPACT, base_k >> 3, base_k & 7)
    };
    s.byte(tag)?;
    if tag == PACKED {
        return s.bytes(packed);
    }
    if tag == REGISTER_LIST {
        s.varint(u64::from(head))?;
    } else {
        s.byte(head as u8)?;
    }
    s.byte(k as u8)?;
    let mut w = BitWriter::new(s);
    dense_bits(&mut w, packed, n, tag == REGISTER_LIST, k, head)?;
    w.finish().map(drop)
}

/// Reads a dense body's registers (after the state byte and martingale estimate) into `packed`,
/// which must be zero: `n` registers of at most `max` each.
fn read_registers_into<R: Source>(
    r: &mut R,
    packed: &mut [u8],
    n: usize,
    max: u8,
) -> Result<(), WireError> {
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
                registers::raise(packed, i as usize, v as u8);
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
                registers::raise(packed, i, v as u8);
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
}

impl<const P: u8, const BYTES: usize> HyperLogLog<P, BYTES> {
    fn write_coupons<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        let count = self.coupon_count() as u32;
        let items = || self.coupons().map(coupon_item);
        let span = 1 << Self::SPARSE_INDEX_BITS;
        let (k, bits) = best_list(count, span, |k| Ok(list_bits(items(), k)))?;
        // The tag and the count, then k and the list (`1 + bytes`), or the raw coupons (4 bytes
        // each); ties go to the list.
        let rice = bytes_for(bits) < 4 * count;
        s.byte(if rice { COUPONS_RICE } else { COUPONS_RAW })?;
        s.varint(u64::from(count))?;
        if rice {
            s.byte(k as u8)?;
        }
        // One loop for both forms: a raw coupon is its 32 bits from a byte boundary, its four
        // little-endian bytes.
        let mut w = BitWriter::new(s);
        let mut next = 0;
        for (index, rank) in items() {
            if rice {
                w.rice(index - next, k)?;
                w.rice(rank - 1, 0)?;
                next = index + 1;
            } else {
                w.bits(index << 6 | rank, 32)?;
            }
        }
        w.finish().map(drop)
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
        // Straight into the sketch's storage: `load_dense` also refuses a martingale estimate the
        // sketch would not report back unchanged (above its 2^64 clamp, negative zero). Decoding
        // into a staging array or a second sketch overflowed a Cortex-M0's stack.
        let fill = |packed: &mut [u8; BYTES]| {
            read_registers_into(r, packed, Self::REGISTERS, Self::MAX_RANK)
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
        let packed = self.dense_registers();
        s.byte(if packed.is_some() { DENSE } else { 0 } | single)?;
        match packed {
            None => self.write_coupons(s),
            Some(packed) => {
                if single != 0 {
                    let m = self.martingale_estimate().unwrap_or(0.0);
                    s.u64_le(m.to_bits())?;
                }
                write_registers::<S, P, BYTES>(packed, Self::MAX_RANK, s)
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

/// A [`DeviceHll`] is written as the dense, not single-stream [`HyperLogLog`] with its registers (the
/// same bytes), so the host reads it as a `HyperLogLog`. It reads dense bodies (a single stream's
/// martingale estimate is checked as the `HyperLogLog` decoder checks it, then dropped: a device
/// keeps none) and refuses sparse ones, which only a `HyperLogLog` can hold exactly.
impl<const P: u8, const BYTES: usize> Codec for DeviceHll<P, BYTES> {
    fn wire_seed(&self) -> u64 {
        self.seed()
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        if self.is_empty() {
            // An empty HyperLogLog's bytes (a sparse single stream without coupons): shorter than
            // any dense body, and decoded to exactly the empty sketch.
            s.byte(SINGLE_STREAM)?;
            s.byte(COUPONS_RAW)?;
            return s.varint(0);
        }
        s.byte(DENSE)?;
        write_registers::<S, P, BYTES>(self.dense_registers(), Self::MAX_RANK, s)
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        super::codec::read_into_new(r, seed, Self::with_seed)
    }

    fn read_body_into<R: Source>(
        &mut self,
        r: &mut R,
        seed: u64,
        _version: u8,
    ) -> Result<(), WireError> {
        let own = self.seed();
        self.clear();
        let result = (|| {
            let state = r.byte()?;
            if state & !(DENSE | SINGLE_STREAM) != 0 {
                return Err(WireError::BadEncoding {
                    what: "unknown HLL state bits",
                });
            }
            if state & DENSE == 0 {
                // Only the empty sparse body: a device sketch cannot hold exact coupons.
                let tag = r.byte()?;
                let count = r.varint()?;
                if count != 0 {
                    return Err(WireError::BadEncoding {
                        what: "a sparse HLL body: only a HyperLogLog holds its exact coupons",
                    });
                }
                return match tag {
                    COUPONS_RAW => Ok(()),
                    COUPONS_RICE => {
                        let k = u32::from(r.byte()?);
                        ListReader::new(r, 0, k, 1 << (Self::PRECISION + 7), 1)?.finish()
                    }
                    _ => Err(WireError::BadEncoding {
                        what: "unknown HLL sparse encoding",
                    }),
                };
            }
            let martingale = if state & SINGLE_STREAM != 0 {
                Some(f64::from_bits(r.u64_le()?))
            } else {
                None
            };
            let packed = self.parts_mut();
            read_registers_into(r, packed, Self::REGISTERS, Self::MAX_RANK)?;
            HyperLogLog::<P, BYTES>::check_dense(packed, martingale).map_err(parts_error)
        })();
        match result {
            Ok(()) => self.set_seed(seed),
            Err(_) => {
                self.parts_mut().fill(0);
                self.set_seed(own);
            }
        }
        result
    }

    fn clear_with_seed(&mut self, seed: u64) {
        self.parts_mut().fill(0);
        self.set_seed(seed);
    }
}

impl<const P: u8, const BYTES: usize> Wire for DeviceHll<P, BYTES> {
    const KIND: SketchKind = SketchKind::HyperLogLog;
    const PARAMS: &'static [(&'static str, u64)] = &[("P", P as u64)];
    /// The state byte, the tag and the packed registers: the encoder never writes more.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS) + 2 + BYTES;
}

serde_via_wire!(impl[const P: u8, const BYTES: usize] DeviceHll<P, BYTES>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hll::{Hll14, Hll4};
    use crate::wire::bits::write_list;
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
                    let size = |k| Ok::<_, ()>(list_bits(items(), k));
                    let (k, _) = best_list(v1.len() as u32, 1 << 26, size).unwrap();
                    sink.byte(COUPONS_RICE).unwrap();
                    sink.varint(v1.len() as u64).unwrap();
                    sink.byte(k as u8).unwrap();
                    let mut w = BitWriter::new(&mut sink);
                    write_list(&mut w, k, items()).unwrap();
                    w.finish().unwrap();
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

    /// The dense encoder as first written (every candidate's size by a pass over the registers,
    /// in 64-bit arithmetic): the reference the histogram encoder must match byte for byte.
    fn reference_dense(packed: &[u8], n: usize, max_rank: u8) -> Vec<u8> {
        let reg = |i: usize| u64::from(registers::get(packed, i));
        let items = || (0..n).filter(|&i| reg(i) != 0).map(|i| (i as u64, reg(i)));
        let list_bits = |k: u32| {
            let (mut next, mut bits) = (0, 0);
            for (index, value) in items() {
                bits += ((index - next) >> k) + 1 + u64::from(k) + value;
                next = index + 1;
            }
            bits
        };
        let count = items().count() as u64;
        let mut guess = 0u32; // ⌊log2(n / count)⌋
        while guess < 63 && count.max(1) << (guess + 1) <= n as u64 {
            guess += 1;
        }
        let guess = guess.min(crate::wire::bits::MAX_RICE_K);
        let mut best = (u64::MAX, guess);
        for k in guess.saturating_sub(1)..=(guess + 1).min(crate::wire::bits::MAX_RICE_K) {
            if list_bits(k) < best.0 {
                best = (list_bits(k), k);
            }
        }
        let list_k = best.1;
        let list = varint_len(count) as u64 + 1 + list_bits(list_k).div_ceil(8);
        let zz = |d: i64| {
            if d >= 0 {
                (d as u64) << 1
            } else {
                ((-d as u64) << 1) - 1
            }
        };
        let (mut compact_bits, mut base, mut compact_k) = (u64::MAX, 0u8, 0u32);
        for b in 0..=max_rank {
            for k in 0..=MAX_COMPACT_K {
                let bits = (0..n)
                    .map(|i| (zz(reg(i) as i64 - i64::from(b)) >> k) + 1 + u64::from(k))
                    .sum();
                if bits < compact_bits {
                    (compact_bits, base, compact_k) = (bits, b, k);
                }
            }
        }
        let compact = 2 + compact_bits.div_ceil(8);
        let mut out = Vec::new();
        let mut sink = VecSink(&mut out);
        let packed_len = packed.len() as u64;
        if packed_len <= list && packed_len <= compact {
            sink.byte(PACKED).unwrap();
            sink.bytes(packed).unwrap();
        } else if list <= compact {
            sink.byte(REGISTER_LIST).unwrap();
            sink.varint(count).unwrap();
            sink.byte(list_k as u8).unwrap();
            let items = items().map(|(i, v)| (i as u32, v as u32));
            let mut w = BitWriter::new(&mut sink);
            write_list(&mut w, list_k, items).unwrap();
            w.finish().unwrap();
        } else {
            sink.byte(COMPACT).unwrap();
            sink.byte(base).unwrap();
            sink.byte(compact_k as u8).unwrap();
            let mut w = BitWriter::new(&mut sink);
            for i in 0..n {
                let z = zz(reg(i) as i64 - i64::from(base));
                w.rice(z as u32, compact_k).unwrap();
            }
            w.finish().unwrap();
        }
        out
    }

    #[test]
    fn dense_bytes_equal_the_exhaustive_searchs() {
        fn check<const P: u8, const BYTES: usize>(x: &mut u64, tags: &mut [u32; 3]) {
            let max = 65 - P;
            let n = 1usize << P;
            let mut packed = [0u8; BYTES];
            let mut fills: Vec<usize> =
                vec![0, 1, 2, 3, n / 64, n / 8, n / 3, n / 2, n, 3 * n, 30 * n];
            // Large precisions (the reference is slow): the list/compact boundary and a full sketch.
            fills.retain(|&f| P <= 12 || f == n / 8 || f == 3 * n);
            for (round, &fill) in fills.iter().enumerate() {
                packed.fill(0);
                for _ in 0..fill {
                    let h = xorshift(x);
                    let rank = (h << P | 1 << (P - 1)).leading_zeros() as u8 + 1;
                    registers::raise(&mut packed, (h >> (64 - P)) as usize, rank);
                }
                // Equal and near-equal registers: the ties of the base and parameter search.
                if round % 3 == 2 {
                    let v = (xorshift(x) % u64::from(max)) as u8 + 1;
                    for i in 0..n {
                        let r = registers::get(&packed, i);
                        let _ = registers::raise(&mut packed, i, v.max(r.min(max)));
                    }
                }
                let mut ours = Vec::new();
                write_registers::<_, P, BYTES>(&packed, max, &mut VecSink(&mut ours)).unwrap();
                assert_eq!(
                    ours,
                    reference_dense(&packed, n, max),
                    "P = {P}, fill {fill}, round {round}"
                );
                tags[usize::from(ours[0])] += 1;
            }
            // Registers of any value (packed wins).
            packed.fill(0);
            for i in 0..n {
                registers::raise(&mut packed, i, (xorshift(x) % u64::from(max + 1)) as u8);
            }
            let mut ours = Vec::new();
            write_registers::<_, P, BYTES>(&packed, max, &mut VecSink(&mut ours)).unwrap();
            assert_eq!(ours, reference_dense(&packed, n, max), "P = {P}, uniform");
            assert_eq!(ours[0], PACKED);
            // Every register at its largest value and every register equal.
            for v in [1, 2, max / 2, max]
                .into_iter()
                .skip(if P > 12 { 3 } else { 0 })
            {
                packed.fill(0);
                for i in 0..n {
                    registers::raise(&mut packed, i, v);
                }
                let mut ours = Vec::new();
                write_registers::<_, P, BYTES>(&packed, max, &mut VecSink(&mut ours)).unwrap();
                assert_eq!(ours, reference_dense(&packed, n, max), "P = {P}, all {v}");
            }
        }
        let mut x = 0x5151_7a7a_0f0f_3c3cu64;
        // Sketches written packed (besides the uniform ones), as a list, compact.
        let mut tags = [0; 3];
        for _ in 0..4 {
            check::<4, 12>(&mut x, &mut tags);
            check::<5, 24>(&mut x, &mut tags);
            check::<7, 96>(&mut x, &mut tags);
            check::<10, 768>(&mut x, &mut tags);
        }
        check::<14, 12_288>(&mut x, &mut tags);
        check::<16, 49_152>(&mut x, &mut tags);
        assert!(tags[1] > 3 && tags[2] > 3, "{tags:?}");
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
            assert_eq!(registers::get(packed, i), v);
            registers::raise(&mut rebuilt, i, v);
        }
        assert_eq!(&rebuilt, packed);
        for v in 0..64u32 {
            for base in 0..64u32 {
                let z = distance(v, base);
                assert_eq!(unzigzag(u64::from(z)), i64::from(v) - i64::from(base));
                // The order 0, −1, 1, −2, 2, …
                let d = i64::from(v) - i64::from(base);
                assert_eq!(i64::from(z), if d >= 0 { 2 * d } else { -2 * d - 1 });
            }
        }
    }

    #[test]
    fn every_state_round_trips_within_the_size_targets() {
        let mut h = Hll14::with_seed(9);
        assert!(round_trip(&h) < 16);
        for i in 0..100u32 {
            h.insert(&i);
        }
        // The sparse form's target: half of a reference server's bytes.
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

    #[test]
    fn device_bytes_are_a_merged_hlls_and_never_more_than_the_full_sketchs() {
        use crate::hll::{DeviceHll10, DeviceHll14, Hll10};
        let mut x = 0x0bad_cafe_f00d_1234u64;
        let mut buf = [0u8; 13_000];
        let mut full_buf = [0u8; 13_000];
        let (mut d, mut h) = (DeviceHll10::with_seed(11), Hll10::with_seed(11));
        let mut n = 0u32;
        for target in [
            0u32, 1, 2, 5, 10, 50, 100, 144, 145, 300, 1_000, 3_000, 10_000, 100_000,
        ] {
            while n < target {
                let v = xorshift(&mut x);
                d.insert_hash(v);
                h.insert_hash(v);
                n += 1;
            }
            let bytes = encode(&d, &mut buf).unwrap();
            assert_eq!(bytes.len(), encoded_len(&d));
            assert!(bytes.len() <= DeviceHll10::MAX_ENCODED_LEN);
            // The host's decoder reads it: the registers, the seed, the merged form.
            let host = decode::<Hll10>(bytes).unwrap();
            assert!(host == Hll10::from(&d), "n = {n}");
            // The same bytes as the full sketch with these registers in the merged form.
            let merged = Hll10::from(&d);
            assert_eq!(encode(&merged, &mut full_buf).unwrap(), &*bytes, "n = {n}");
            // Back into a device sketch, in place and by value.
            let mut back = DeviceHll10::with_seed(99);
            crate::wire::decode_into(bytes, &mut back).unwrap();
            assert!(back == d);
            assert!(decode::<DeviceHll10>(bytes).unwrap() == d);
            // Never more bytes than the full sketch fed the same keys.
            let full = encoded_len(&h);
            assert!(bytes.len() <= full, "n = {n}: {} > {full}", bytes.len());
            // Truncated anywhere: an error, and the in-place target is left empty with its seed.
            for cut in 0..bytes.len() {
                let mut t = DeviceHll10::with_seed(5);
                t.insert(&1u8);
                let r = crate::wire::decode_into(&bytes[..cut], &mut t);
                assert!(r.is_err(), "n = {n} cut {cut}");
            }
        }
        // A full sketch's dense single-stream bytes decode into a device sketch (estimate dropped);
        // sparse ones are refused.
        let full = encode(&h, &mut full_buf).unwrap();
        assert!(!h.is_sparse() && h.is_single_stream());
        let d = decode::<DeviceHll10>(full).unwrap();
        assert!(d.registers().eq(h.registers()) && d.seed() == 11);
        let mut small = Hll10::with_seed(11);
        small.insert(&1u8);
        let sparse = encode(&small, &mut full_buf).unwrap();
        assert!(matches!(
            decode::<DeviceHll10>(sparse),
            Err(WireError::BadEncoding { .. })
        ));
        small.clear();
        let empty = encode(&small, &mut full_buf).unwrap();
        assert!(decode::<DeviceHll10>(empty).unwrap() == DeviceHll10::with_seed(11));
        // A large precision (u32 histogram) round trips too.
        let mut big = DeviceHll14::with_seed(2);
        for i in 0..50_000u32 {
            big.insert(&i);
        }
        let bytes = encode(&big, &mut buf).unwrap();
        assert!(decode::<DeviceHll14>(bytes).unwrap() == big);
        assert!(decode::<Hll14>(bytes).unwrap() == Hll14::from(&big));
    }

    #[test]
    fn device_golden_bytes() {
        use crate::hll::DeviceHll4;
        let mut d = DeviceHll4::with_seed(3);
        // Empty: the bytes of an empty HyperLogLog.
        assert_eq!(
            encode(&d, &mut [0u8; 64]).unwrap(),
            [0x53, 0x4b, 2, 4, 4, 3, SINGLE_STREAM, COUPONS_RAW, 0]
        );
        assert_eq!(
            encode(&d, &mut [0u8; 64]).unwrap(),
            encode(&HyperLogLog::<4, 12>::with_seed(3), &mut [0u8; 64]).unwrap()
        );
        d.insert_hash(0x3200_0000_0000_0000); // register 3, rank 3
        d.insert_hash(0xa800_0000_0000_0000); // register 10, rank 1
                                              // Two registers: a list (count 2, k = 2, then bits LSB first: gap 3 as Rice `0 11`, value
                                              // 3 − 1 in unary `110`, gap 6 as `10 01`, value 1 − 1 as `0`: 0x5e 0x02).
        assert_eq!(
            encode(&d, &mut [0u8; 64]).unwrap(),
            [
                0x53,
                0x4b,
                2,
                4,
                4,
                3,
                DENSE,
                REGISTER_LIST,
                2,
                2,
                0x5e,
                0x02
            ]
        );
        for i in 0..16u64 {
            d.insert_hash(i << 60 | 1 << 57); // rank 3 in every register
        }
        // Every register 3: compact, base 3, k = 0, sixteen `0` bits.
        assert_eq!(
            encode(&d, &mut [0u8; 64]).unwrap(),
            [0x53, 0x4b, 2, 4, 4, 3, DENSE, COMPACT, 3, 0, 0, 0]
        );
        assert!(
            decode::<HyperLogLog<4, 12>>(encode(&d, &mut [0u8; 64]).unwrap())
                .unwrap()
                .registers()
                .all(|r| r == 3)
        );
    }
}
