//! Encodings of the heavy-hitter summaries, [`TopK`] and [`SpaceSaving`], and of their owned keys
//! ([`WireKey`]).
//!
//! Entries are written in a canonical order (count descending, then key bytes ascending), so the
//! bytes depend only on the summary's content, not on the layout of its heap.

use core::cmp::Ordering;

use super::codec::{envelope_max_len, serde_via_wire, Codec, Sink, Source, VARINT_MAX};
use super::WireError;
use super::{SketchKind, Wire};
use crate::countmin::{Counter, UpdatePolicy, UpdateRule};
use crate::error::PartsError;
use crate::{CountMin, Key, OwnedKey, SpaceSaving, TopK};

/// An owned key type with a wire encoding: every [`OwnedKey`] the crate implements. Its
/// [`KEY_TYPE`](Self::KEY_TYPE) is an envelope parameter, so a summary of `u32` keys does not decode
/// as one of `u64` keys.
///
/// | key | `KEY_TYPE` | bytes |
/// | --- | --- | --- |
/// | `u8` … `u64`, `usize` | `0x1_00000000` + width in bytes (`usize`: 8) | varint |
/// | `u128` | `0x1_00000010` | 16 bytes, little-endian |
/// | `i8` … `i64`, `isize` | `0x2_00000000` + width (`isize`: 8) | zigzag varint |
/// | `i128` | `0x2_00000010` | 16 bytes, little-endian |
/// | `bool` | `0x3_00000001` | one byte, 0 or 1 |
/// | `char` | `0x4_00000004` | varint of the scalar value |
/// | `[u8; N]` | `0x5_00000000 + N` | `N` bytes |
/// | `heapless::String<N>` | `0x6_00000000 + N` | varint length, UTF-8 bytes |
/// | `heapless::Vec<u8, N>` | `0x7_00000000 + N` | varint length, bytes |
///
/// ```
/// use sketch_nostd::wire::WireKey;
/// assert_eq!(<u32 as WireKey>::KEY_TYPE, 0x1_0000_0004);
/// assert_eq!(<sketch_nostd::heapless::String<16> as WireKey>::MAX_ENCODED_LEN, 1 + 16);
/// ```
pub trait WireKey: OwnedKey + super::codec::KeyCodec {
    /// The key type's code in the envelope.
    const KEY_TYPE: u64;
    /// The most bytes one key takes.
    const MAX_ENCODED_LEN: usize;
}

impl<T: super::codec::KeyCodec + OwnedKey> WireKey for T {
    const KEY_TYPE: u64 = T::CODE;
    const MAX_ENCODED_LEN: usize = T::MAX_LEN;
}

fn bad_key(what: &'static str) -> WireError {
    WireError::BadEncoding { what }
}

macro_rules! unsigned_key {
    ($($t:ty => $width:expr),*) => {$(
        impl super::codec::KeyCodec for $t {
            const CODE: u64 = 0x1_0000_0000 + $width;
            const MAX_LEN: usize = VARINT_MAX;
            fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
                s.varint(*self as u64)
            }
            fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
                <$t>::try_from(r.varint()?).map_err(|_| bad_key("key out of range for its type"))
            }
        }
    )*};
}
unsigned_key!(u8 => 1, u16 => 2, u32 => 4, u64 => 8, usize => 8);

macro_rules! signed_key {
    ($($t:ty => $width:expr),*) => {$(
        impl super::codec::KeyCodec for $t {
            const CODE: u64 = 0x2_0000_0000 + $width;
            const MAX_LEN: usize = VARINT_MAX;
            fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
                let v = *self as i64;
                s.varint(((v << 1) ^ (v >> 63)) as u64)
            }
            fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
                let z = r.varint()?;
                let v = (z >> 1) as i64 ^ -((z & 1) as i64);
                <$t>::try_from(v).map_err(|_| bad_key("key out of range for its type"))
            }
        }
    )*};
}
signed_key!(i8 => 1, i16 => 2, i32 => 4, i64 => 8, isize => 8);

macro_rules! wide_key {
    ($($t:ty => $code:expr),*) => {$(
        impl super::codec::KeyCodec for $t {
            const CODE: u64 = $code;
            const MAX_LEN: usize = 16;
            fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
                s.bytes(&self.to_le_bytes())
            }
            fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
                r.array().map(<$t>::from_le_bytes)
            }
        }
    )*};
}
wide_key!(u128 => 0x1_0000_0010, i128 => 0x2_0000_0010);

impl super::codec::KeyCodec for bool {
    const CODE: u64 = 0x3_0000_0001;
    const MAX_LEN: usize = 1;
    fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        s.byte(u8::from(*self))
    }
    fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
        match r.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(bad_key("a bool key is neither 0 nor 1")),
        }
    }
}

impl super::codec::KeyCodec for char {
    const CODE: u64 = 0x4_0000_0004;
    const MAX_LEN: usize = 5;
    fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        s.varint(u64::from(u32::from(*self)))
    }
    fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
        u32::try_from(r.varint()?)
            .ok()
            .and_then(char::from_u32)
            .ok_or(bad_key("a char key is not a Unicode scalar value"))
    }
}

impl<const N: usize> super::codec::KeyCodec for [u8; N] {
    const CODE: u64 = 0x5_0000_0000 + N as u64;
    const MAX_LEN: usize = N;
    fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        s.bytes(self)
    }
    fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
        r.array()
    }
}

/// Writes a length-prefixed byte string (what [`read_bytes`] reads).
fn write_bytes<S: Sink>(s: &mut S, bytes: &[u8]) -> Result<(), S::Error> {
    s.varint(bytes.len() as u64)?;
    s.bytes(bytes)
}

/// Reads a length-prefixed byte string of at most `N` bytes.
fn read_bytes<R: Source, const N: usize>(r: &mut R) -> Result<heapless::Vec<u8, N>, WireError> {
    let len = r.varint()?;
    if len > N as u64 {
        return Err(bad_key("key longer than its slot"));
    }
    let mut v = heapless::Vec::new();
    for _ in 0..len {
        v.push(r.byte()?)
            .map_err(|_| bad_key("key longer than its slot"))?;
    }
    Ok(v)
}

impl<const N: usize, L: heapless::LenType> super::codec::KeyCodec for heapless::String<N, L> {
    const CODE: u64 = 0x6_0000_0000 + N as u64;
    const MAX_LEN: usize = super::codec::varint_len(N as u64) + N;
    fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        write_bytes(s, self.as_bytes())
    }
    fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
        let bytes = read_bytes::<R, N>(r)?;
        let text =
            core::str::from_utf8(&bytes).map_err(|_| bad_key("a string key is not UTF-8"))?;
        Self::try_from(text).map_err(|_| bad_key("key longer than its slot"))
    }
}

impl<const N: usize, L: heapless::LenType> super::codec::KeyCodec for heapless::Vec<u8, N, L> {
    const CODE: u64 = 0x7_0000_0000 + N as u64;
    const MAX_LEN: usize = super::codec::varint_len(N as u64) + N;
    fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        write_bytes(s, self)
    }
    fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError> {
        let bytes = read_bytes::<R, N>(r)?;
        Self::from_slice(&bytes).map_err(|_| bad_key("key longer than its slot"))
    }
}

/// Orders entries canonically: count descending, then key bytes ascending (keys are distinct).
fn canonical<T: OwnedKey>(a: (&T, u64), b: (&T, u64)) -> Ordering {
    b.1.cmp(&a.1).then_with(|| {
        a.0.as_borrowed()
            .with_key_bytes(|x| b.0.as_borrowed().with_key_bytes(|y| x.cmp(y)))
    })
}

/// Writes the number of entries, then each entry (by `write`) in the canonical order, without a
/// sorted copy: each pass over the entries takes the least one after the last written (keys are
/// distinct, so the order is total). Quadratic in the entries, at most `K` (a summary lists a few
/// hundred at most), for no list on the stack and no sort on a device's send path.
fn write_entries<'k, S: Sink, T: OwnedKey + 'k, E: Copy, I: Iterator<Item = E>>(
    s: &mut S,
    entries: impl Fn() -> I,
    rank: impl Fn(E) -> (&'k T, u64),
    mut write: impl FnMut(&mut S, E) -> Result<(), S::Error>,
) -> Result<(), S::Error> {
    let n = entries().count();
    s.varint(n as u64)?;
    let before = |a: E, b: E| canonical(rank(a), rank(b)) == Ordering::Less;
    let mut last = None;
    loop {
        let mut next = None;
        for e in entries() {
            if last.is_none_or(|l| before(l, e)) && next.is_none_or(|x| before(e, x)) {
                next = Some(e);
            }
        }
        // After the last entry, no entry follows it.
        let Some(e) = next else {
            return Ok(());
        };
        write(s, e)?;
        last = next;
    }
}

fn parts_error(e: PartsError) -> WireError {
    match e {
        PartsError::DuplicateKey { .. } => WireError::Inconsistent {
            what: "a key is listed twice",
        },
        PartsError::BadCount { .. } => WireError::Inconsistent {
            what: "a listed count is impossible (above the sketch's estimate, or below its error)",
        },
        PartsError::LengthMismatch { .. } => WireError::Inconsistent {
            what: "more entries than the summary holds",
        },
        _ => WireError::Inconsistent {
            what: "summary parts rejected",
        },
    }
}

/// Reads an entry count of at most `K`.
fn read_len<R: Source, const K: usize>(r: &mut R) -> Result<u64, WireError> {
    let n = r.varint()?;
    if n > K as u64 {
        return Err(WireError::Inconsistent {
            what: "more entries than the summary holds",
        });
    }
    Ok(n)
}

/// A summary's entries as they are read, for its `from_parts`: the entry count (at most `K`), then
/// entries read by `read` (given the entry's index) until that count or the first read error, which
/// is kept in `err` for [`finish`].
fn entries<'a, const K: usize, R: Source, E>(
    r: &'a mut R,
    err: &'a mut Option<WireError>,
    mut read: impl FnMut(&mut R, u64) -> Result<E, WireError> + 'a,
) -> Result<impl Iterator<Item = E> + 'a, WireError> {
    let n = read_len::<R, K>(r)?;
    let mut i = 0;
    Ok(core::iter::from_fn(move || {
        if i == n || err.is_some() {
            return None;
        }
        let entry = read(r, i);
        i += 1;
        entry.map_err(|e| *err = Some(e)).ok()
    }))
}

/// The read error [`entries`] kept, else `parts` with its refusal as a [`WireError`].
fn finish<V>(err: Option<WireError>, parts: Result<V, PartsError>) -> Result<V, WireError> {
    match err {
        Some(e) => Err(e),
        None => parts.map_err(parts_error),
    }
}

/// Reads a count that fits counter type `C`.
fn read_count<R: Source, C: Counter>(r: &mut R, index: u64) -> Result<u64, WireError> {
    let v = r.varint()?;
    if v > C::MAX.to_u64() {
        return Err(WireError::BadRegister {
            index: index as u32,
            value: v,
        });
    }
    Ok(v)
}

const fn rule_param(rule: UpdateRule) -> u64 {
    match rule {
        UpdateRule::Standard => 0,
        UpdateRule::Conservative => 1,
    }
}

impl<T: WireKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy> Codec
    for TopK<T, K, W, D, C, U>
{
    fn wire_seed(&self) -> u64 {
        self.sketch().seed()
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        self.sketch().write_body(s)?;
        s.varint(self.overlong())?;
        write_entries(
            s,
            || self.listed(),
            |e| e,
            |s, (key, count)| {
                key.write_key(s)?;
                s.varint(count)
            },
        )
    }

    fn clear_with_seed(&mut self, seed: u64) {
        *self = Self::with_seed(seed);
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        let sketch = CountMin::<W, D, C, U>::read_body(r, seed)?;
        let overlong = r.varint()?;
        let mut err = None;
        let read = |r: &mut R, i| Ok((T::read_key(r)?, read_count::<R, C>(r, i)?));
        let top = Self::from_parts(sketch, entries::<K, _, _>(r, &mut err, read)?, overlong);
        finish(err, top)
    }
}

impl<T: WireKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy> Wire
    for TopK<T, K, W, D, C, U>
{
    const KIND: SketchKind = SketchKind::TopK;
    const PARAMS: &'static [(&'static str, u64)] = &[
        ("K", K as u64),
        ("W", W as u64),
        ("D", D as u64),
        ("COUNTER_BYTES", core::mem::size_of::<C>() as u64),
        ("CONSERVATIVE", rule_param(U::RULE)),
        ("KEY", T::KEY_TYPE),
    ];
    /// Envelope, the count-min body at its largest, `overlong`, the entry count, and `K` entries at
    /// their largest.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS)
        + (<CountMin<W, D, C, U> as Wire>::MAX_ENCODED_LEN
            - envelope_max_len(<CountMin<W, D, C, U> as Wire>::PARAMS))
        + 2 * VARINT_MAX
        + K * (<T as WireKey>::MAX_ENCODED_LEN + VARINT_MAX);
}

serde_via_wire!(impl[T: WireKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy] TopK<T, K, W, D, C, U>);

impl<T: WireKey, const K: usize, C: Counter> Codec for SpaceSaving<T, K, C> {
    fn wire_seed(&self) -> u64 {
        self.seed()
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        s.varint(self.total())?;
        s.varint(self.overlong())?;
        let entries = || self.entries().map(|c| (c.key, c.count, c.error));
        write_entries(
            s,
            entries,
            |(key, count, _)| (key, count),
            |s, (key, count, error)| {
                key.write_key(s)?;
                s.varint(count)?;
                s.varint(error)
            },
        )
    }

    fn clear_with_seed(&mut self, seed: u64) {
        *self = Self::with_seed(seed);
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        let total = r.varint()?;
        let overlong = r.varint()?;
        let mut err = None;
        let read = |r: &mut R, i| {
            let key = T::read_key(r)?;
            let count = read_count::<R, C>(r, i)?;
            Ok((key, count, read_count::<R, C>(r, i)?))
        };
        let summary = Self::from_parts(
            entries::<K, _, _>(r, &mut err, read)?,
            seed,
            total,
            overlong,
        );
        finish(err, summary)
    }
}

impl<T: WireKey, const K: usize, C: Counter> Wire for SpaceSaving<T, K, C> {
    const KIND: SketchKind = SketchKind::SpaceSaving;
    const PARAMS: &'static [(&'static str, u64)] = &[
        ("K", K as u64),
        ("COUNTER_BYTES", core::mem::size_of::<C>() as u64),
        ("KEY", T::KEY_TYPE),
    ];
    /// Envelope, total, `overlong`, the entry count, and `K` entries at their largest.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS)
        + 3 * VARINT_MAX
        + K * (<T as WireKey>::MAX_ENCODED_LEN + 2 * VARINT_MAX);
}

serde_via_wire!(impl[T: WireKey, const K: usize, C: Counter] SpaceSaving<T, K, C>);
