//! The machinery shared by every sketch encoding: the element-level writer and reader traits, their
//! serde adapters, the envelope, and the postcard entry points that turn serde errors into
//! [`WireError`]s.
//!
//! A sketch is written as one serde tuple of primitive elements: raw bytes (`u8`, one byte each in
//! postcard) and unsigned integers (`u64`, a LEB128 varint in postcard). The same code drives the
//! size-counting pass, the serde `Serialize` impl and, through [`SeqSource`], the `Deserialize` impl and
//! the typed decoder, so there is one description of each format.

use core::fmt;
use core::marker::PhantomData;

use serde::de::{self, SeqAccess, Visitor};
use serde::ser::{self, SerializeTuple};

use super::error::WireError;
use super::kind::{SketchKind, FORMAT_VERSION, MAGIC, MAX_PARAMS, MIN_FORMAT_VERSION};
use crate::error::PartsError;

/// A sketch type with a wire encoding. Implemented by every sketch in this crate (and only by them).
///
/// ```
/// use sketch_nostd::{wire::{SketchKind, Wire}, Bloom, MicroBloom};
///
/// assert_eq!(<Bloom<16, 4>>::KIND, SketchKind::Bloom);
/// assert_eq!(<Bloom<16, 4>>::PARAMS, &[("WORDS", 16), ("K", 4)]);
/// // Firmware sizes its buffers from these at compile time.
/// let _buf = [0u8; <MicroBloom<3>>::MAX_ENCODED_LEN];
/// ```
pub trait Wire: Codec + serde::Serialize + for<'de> serde::Deserialize<'de> {
    /// The kind byte in the envelope.
    const KIND: SketchKind;
    /// The parameters written in the envelope, by name, in [`SketchKind::param_names`] order.
    const PARAMS: &'static [(&'static str, u64)];
    /// The most bytes [`encode`](super::encode) can write for this type, whatever its content and seed.
    const MAX_ENCODED_LEN: usize;
}

/// Where an encoder writes its elements.
pub trait Sink {
    /// The error a write can fail with.
    type Error;
    /// One raw byte.
    fn byte(&mut self, b: u8) -> Result<(), Self::Error>;
    /// One unsigned integer (a varint in postcard).
    fn varint(&mut self, v: u64) -> Result<(), Self::Error>;
    /// The bytes `write` would write, if at most `most`; writes nothing. Encoders choose the
    /// smallest of a body's forms by measuring each with its own writer, so that no form has a
    /// second description of its size (a writer may stop at the first byte past `most`).
    ///
    /// Every sink that encodes sketches implements it (the send path's, the serde adapter's and
    /// the byte counter's); the default, for sinks of single elements in tests, measures nothing,
    /// so an encoder writes its first form there.
    fn measure(
        &mut self,
        most: usize,
        write: impl FnOnce(&mut Self) -> Result<(), Self::Error>,
    ) -> Option<usize> {
        let _ = (most, write);
        None
    }
    /// Calls `f` with `len ≤ SCRATCH_MAX` bytes of scratch memory (of any content), if the sink
    /// has them, and returns its result. An encoder that needs a table to choose its form (the
    /// HyperLogLog's register histogram) keeps it there, so that it is not on a device's stack.
    ///
    /// The default lends an array on the stack. The send path's sink lends the free part of the
    /// caller's buffer, the bytes it will write next, and has none (`None`) when fewer than `len`
    /// bytes are free: then nothing of `len` bytes or more still fits.
    fn with_scratch<R>(&mut self, len: usize, f: impl FnOnce(&mut [u8]) -> R) -> Option<R> {
        let mut scratch = [0u8; SCRATCH_MAX];
        scratch.get_mut(..len).map(f)
    }
    /// Raw bytes, one element each.
    fn bytes(&mut self, bytes: &[u8]) -> Result<(), Self::Error> {
        for &b in bytes {
            self.byte(b)?;
        }
        Ok(())
    }
    /// A `u64` as 8 raw little-endian bytes.
    fn u64_le(&mut self, v: u64) -> Result<(), Self::Error> {
        // Byte by byte, shifting two 32-bit halves: no array on the stack, no 64-bit shift.
        let (mut lo, mut hi) = (v as u32, (v >> 32) as u32);
        for _ in 0..8 {
            self.byte(lo as u8)?;
            lo = lo >> 8 | hi << 24;
            hi >>= 8;
        }
        Ok(())
    }
}

/// The most scratch memory [`Sink::with_scratch`] lends.
pub const SCRATCH_MAX: usize = 256;

/// Writes `len` items, each by `item`: every one in order (`runs` false: a dense body), or as zero
/// runs (`runs` true): pairs of varints (`zeros`, `literals`), maximal runs of zero items then of
/// non-zero ones, each pair followed by its literal items, until every item is covered; every pair
/// covers at least one item. One loop for both forms, as the Bloom filters' words and the count-min
/// counters are written.
pub fn write_items<S: Sink>(
    s: &mut S,
    len: usize,
    runs: bool,
    is_zero: impl Fn(usize) -> bool,
    mut item: impl FnMut(&mut S, usize) -> Result<(), S::Error>,
) -> Result<(), S::Error> {
    let mut i = 0;
    while i < len {
        let mut end = len;
        if runs {
            let zeros = i;
            while i < len && is_zero(i) {
                i += 1;
            }
            end = i;
            while end < len && !is_zero(end) {
                end += 1;
            }
            s.varint((i - zeros) as u64)?;
            s.varint((end - i) as u64)?;
        }
        while i < end {
            item(s, i)?;
            i += 1;
        }
    }
    Ok(())
}

/// Writes a body with tags `0..=last`: a tag byte, then the smallest form, each form measured by
/// its writer `form(tag, sink)`; form 0 is `first_len` bytes; ties go to the lower tag. Every body
/// with a choice of forms (Bloom filters, count-min counters, cuckoo slots) writes through it.
pub fn write_smallest<S: Sink>(
    s: &mut S,
    first_len: usize,
    last: u8,
    form: impl Fn(u8, &mut S) -> Result<(), S::Error>,
) -> Result<(), S::Error> {
    let (mut best, mut len) = (0, first_len);
    for tag in 1..=last {
        let beats = len.checked_sub(1);
        if let Some(n) = beats.and_then(|most| s.measure(most, |s| form(tag, s))) {
            (best, len) = (tag, n);
        }
    }
    s.byte(best)?;
    form(best, s)
}

/// Where a decoder reads its elements. Every read fails with a [`WireError`], never panics.
pub trait Source {
    /// One raw byte.
    fn byte(&mut self) -> Result<u8, WireError>;
    /// One unsigned integer (a varint in postcard).
    fn varint(&mut self) -> Result<u64, WireError>;
    /// `N` raw bytes.
    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let mut b = [0u8; N];
        for x in &mut b {
            *x = self.byte()?;
        }
        Ok(b)
    }
    /// A `u64` from 8 raw little-endian bytes.
    fn u64_le(&mut self) -> Result<u64, WireError> {
        self.array().map(u64::from_le_bytes)
    }
}

/// Zigzag: `d ≥ 0` as `2d`, `d < 0` as `−2d − 1` (0, −1, 1, −2, … as 0, 1, 2, 3, …), so that
/// small numbers of either sign take small varints and Rice codes. The one copy, for every
/// encoding with signed numbers (the HyperLogLog's register distances, the quantile sketch's floor).
#[must_use]
pub const fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

/// The inverse of [`zigzag`], defined for every `u64`.
#[must_use]
pub const fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

/// The number of bytes postcard uses for `v` as a varint (LEB128: 7 bits per byte).
#[must_use]
pub const fn varint_len(v: u64) -> usize {
    let bits = 64 - (v | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// The most bytes a varint takes (a full `u64`).
pub const VARINT_MAX: usize = 10;

/// Counts the elements and the postcard bytes an encoding takes, without writing anything.
#[derive(Default)]
pub struct Counter {
    /// Elements written (the serde tuple length).
    pub elements: usize,
    /// Bytes postcard will write.
    pub bytes: usize,
}

impl Sink for Counter {
    type Error = core::convert::Infallible;
    fn byte(&mut self, _: u8) -> Result<(), Self::Error> {
        self.elements += 1;
        self.bytes += 1;
        Ok(())
    }
    fn varint(&mut self, v: u64) -> Result<(), Self::Error> {
        self.elements += 1;
        self.bytes += varint_len(v);
        Ok(())
    }
    fn measure(
        &mut self,
        most: usize,
        write: impl FnOnce(&mut Self) -> Result<(), Self::Error>,
    ) -> Option<usize> {
        let (elements, bytes) = (self.elements, self.bytes);
        let Ok(()) = write(self);
        let n = self.bytes - bytes;
        (self.elements, self.bytes) = (elements, bytes);
        (n <= most).then_some(n)
    }
}

/// Writes elements into a serde tuple; while measuring, counts their postcard bytes instead.
struct TupleSink<'a, T> {
    tuple: &'a mut T,
    measured: Option<usize>,
}

impl<T: SerializeTuple> Sink for TupleSink<'_, T> {
    type Error = T::Error;
    fn byte(&mut self, b: u8) -> Result<(), Self::Error> {
        match &mut self.measured {
            Some(n) => *n += 1,
            None => self.tuple.serialize_element(&b)?,
        }
        Ok(())
    }
    fn varint(&mut self, v: u64) -> Result<(), Self::Error> {
        match &mut self.measured {
            Some(n) => *n += varint_len(v),
            None => self.tuple.serialize_element(&v)?,
        }
        Ok(())
    }
    fn measure(
        &mut self,
        most: usize,
        write: impl FnOnce(&mut Self) -> Result<(), Self::Error>,
    ) -> Option<usize> {
        self.measured = Some(0);
        let written = write(self);
        let n = self.measured.take();
        written.ok().and(n).filter(|&n| n <= most)
    }
}

/// Reads elements from a serde sequence. A failure of the underlying format is kept in `err` (and
/// reported as [`WireError::Truncated`] to the decoder, which stops at once).
pub struct SeqSource<'de, A: SeqAccess<'de>> {
    seq: A,
    err: Option<A::Error>,
    _de: PhantomData<&'de ()>,
}

impl<'de, A: SeqAccess<'de>> SeqSource<'de, A> {
    fn next<T: de::Deserialize<'de>>(&mut self) -> Result<T, WireError> {
        match self.seq.next_element::<T>() {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(WireError::Truncated),
            Err(e) => {
                self.err = Some(e);
                Err(WireError::Truncated)
            }
        }
    }
}

impl<'de, A: SeqAccess<'de>> Source for SeqSource<'de, A> {
    fn byte(&mut self) -> Result<u8, WireError> {
        self.next::<u8>()
    }
    fn varint(&mut self) -> Result<u64, WireError> {
        self.next::<u64>()
    }
}

/// Reads elements straight from a byte slice, accepting exactly the bytes postcard's deserializer
/// accepts (`u8` as one raw byte, `u64` as a LEB128 varint of at most 10 bytes whose last byte holds
/// at most the one remaining bit), without serde's layers: the in-place decoder reads through it.
///
/// It behaves as [`SeqSource`] over postcard does: a failed read is reported to the decoder as
/// [`WireError::Truncated`] and kept, and [`finish`](Self::finish) replaces the decoder's result by
/// the kept error (the last one), as postcard's error replaces it in [`with_seq_source`].
pub struct SliceSource<'a> {
    bytes: &'a [u8],
    err: Option<WireError>,
}

impl<'a> SliceSource<'a> {
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, err: None }
    }

    fn fail<T>(&mut self, e: WireError) -> Result<T, WireError> {
        self.err = Some(e);
        Err(WireError::Truncated)
    }

    /// The decoder's result, or the error of the input itself if a read failed; and the bytes left.
    pub fn finish<V>(self, value: Result<V, WireError>) -> Result<(V, &'a [u8]), WireError> {
        match self.err {
            Some(e) => Err(e),
            None => value.map(|v| (v, self.bytes)),
        }
    }
}

impl Source for SliceSource<'_> {
    fn byte(&mut self) -> Result<u8, WireError> {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                Ok(b)
            }
            None => self.fail(WireError::Truncated),
        }
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        // As postcard 1's `try_take_varint_u64`: 7 bits a byte, at most VARINT_MAX bytes, the last
        // of which may carry only the top bit of a u64.
        let mut out = 0u64;
        for i in 0..VARINT_MAX {
            let b = self.byte()?;
            out |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                if i == VARINT_MAX - 1 && b > 1 {
                    break;
                }
                return Ok(out);
            }
        }
        self.fail(WireError::BadEncoding {
            what: "over-long varint",
        })
    }
}

/// How a sketch type writes and reads its body (everything after the envelope). Sealed: only the
/// crate's sketches implement it.
pub trait Codec: Sized {
    /// The seed the type requires in the envelope, for types whose seed is fixed (a type parameter,
    /// or none at all); checked with the envelope by the in-place decoder.
    const FIXED_SEED: Option<u64> = None;
    /// The seed written in the envelope.
    fn wire_seed(&self) -> u64;
    /// Writes the body.
    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error>;
    /// Reads and validates a body of the current format version whose envelope (kind, parameters)
    /// has been checked; `seed` is the envelope's seed.
    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError>;
    /// Reads a body written in format `version` (`MIN_FORMAT_VERSION..=FORMAT_VERSION`, checked by the
    /// caller). Only kinds whose body changed between versions override this; the others read every
    /// version as the current one.
    fn read_body_version<R: Source>(r: &mut R, seed: u64, version: u8) -> Result<Self, WireError> {
        let _ = version;
        Self::read_body(r, seed)
    }
    /// Reads and validates a body of format `version` into `self`, which takes `seed` on success.
    /// On an error `self` is left empty with the seed it had before (as by
    /// [`clear_with_seed`](Self::clear_with_seed)). The default decodes by value and assigns;
    /// large sketches override it to write straight into their storage, so that no second
    /// sketch-sized value is made.
    fn read_body_into<R: Source>(
        &mut self,
        r: &mut R,
        seed: u64,
        version: u8,
    ) -> Result<(), WireError> {
        match Self::read_body_version(r, seed, version) {
            Ok(v) => {
                *self = v;
                Ok(())
            }
            Err(e) => {
                self.clear_with_seed(self.wire_seed());
                Err(e)
            }
        }
    }
    /// Makes the sketch empty, in place, with `seed` (ignored by types whose seed is fixed).
    fn clear_with_seed(&mut self, seed: u64);
}

/// [`Codec::read_body`] of the sketches that decode in place: `empty(seed)`, then
/// [`Codec::read_body_into`] on it, so that decoding by value and in place are one code path.
pub fn read_into_new<T: Codec, R: Source>(
    r: &mut R,
    seed: u64,
    empty: impl FnOnce(u64) -> T,
) -> Result<T, WireError> {
    let mut sketch = empty(seed);
    sketch.read_body_into(r, seed, FORMAT_VERSION)?;
    Ok(sketch)
}

/// Reads the format version byte, refusing versions this library does not read for any kind.
fn read_version<R: Source>(r: &mut R) -> Result<u8, WireError> {
    let version = r.byte()?;
    if (MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&version) {
        Ok(version)
    } else {
        Err(WireError::UnsupportedVersion { found: version })
    }
}

/// Refuses a version older than the kind reads (see [`SketchKind::min_format_version`]).
fn check_kind_version(kind: SketchKind, version: u8) -> Result<(), WireError> {
    if version < kind.min_format_version() {
        Err(WireError::UnsupportedVersion { found: version })
    } else {
        Ok(())
    }
}

/// How an owned key of a heavy-hitter summary is written and read. Sealed: implemented in
/// `heavy.rs` for the crate's `OwnedKey` types.
pub trait KeyCodec: Sized {
    /// The key type's code (an envelope parameter).
    const CODE: u64;
    /// The most bytes one key takes.
    const MAX_LEN: usize;
    /// Writes the key.
    fn write_key<S: Sink>(&self, s: &mut S) -> Result<(), S::Error>;
    /// Reads and validates a key.
    fn read_key<R: Source>(r: &mut R) -> Result<Self, WireError>;
}

/// The most bytes an envelope with these parameter values takes (seed at its widest).
#[must_use]
pub const fn envelope_max_len(params: &[(&str, u64)]) -> usize {
    let mut n = MAGIC.len() + 2 + VARINT_MAX;
    let mut i = 0;
    while i < params.len() {
        n += varint_len(params[i].1);
        i += 1;
    }
    n
}

/// Writes the envelope and the body of `v`.
pub fn write_sketch<T: Wire, S: Sink>(v: &T, s: &mut S) -> Result<(), S::Error> {
    write_envelope::<T, S>(s, v.wire_seed())?;
    v.write_body(s)
}

/// Writes the envelope of a `T` with `seed`. The parameters are written one statement each, so that
/// each is a constant in the code and the send path does not link the table of their names.
pub(crate) fn write_envelope<T: Wire, S: Sink>(s: &mut S, seed: u64) -> Result<(), S::Error> {
    let [m0, m1] = MAGIC;
    // The four fixed bytes shifted out of one constant: no array on the stack.
    let mut head = u32::from_le_bytes([m0, m1, T::KIND.format_version(), T::KIND as u8]);
    for _ in 0..4 {
        s.byte(head as u8)?;
        head >>= 8;
    }
    macro_rules! params {
        ($($i:literal)*) => {$(
            if let Some(&(_, p)) = T::PARAMS.get($i) {
                s.varint(p)?;
            }
        )*};
    }
    params!(0 1 2 3 4 5);
    const _: () = assert!(MAX_PARAMS == 6, "one statement per parameter");
    s.varint(seed)
}

/// The parsed envelope: version, kind, parameters (in the kind's order) and seed.
pub struct RawHeader {
    pub version: u8,
    pub kind: SketchKind,
    pub params: [u64; MAX_PARAMS],
    pub seed: u64,
}

/// Reads an envelope of any known kind.
pub fn read_header<R: Source>(r: &mut R) -> Result<RawHeader, WireError> {
    for m in MAGIC {
        if r.byte()? != m {
            return Err(WireError::BadMagic);
        }
    }
    let version = read_version(r)?;
    let found = r.byte()?;
    let kind = SketchKind::from_u8(found).ok_or(WireError::UnknownKind { found })?;
    check_kind_version(kind, version)?;
    let mut params = [0; MAX_PARAMS];
    for p in params.iter_mut().take(kind.param_names().len()) {
        *p = r.varint()?;
    }
    let seed = r.varint()?;
    Ok(RawHeader {
        version,
        kind,
        params,
        seed,
    })
}

/// Reads and checks the envelope for `T` (magic, version, kind, parameters); returns its seed and
/// format version.
fn read_envelope<T: Wire, R: Source>(r: &mut R) -> Result<(u64, u8), WireError> {
    for m in MAGIC {
        if r.byte()? != m {
            return Err(WireError::BadMagic);
        }
    }
    let version = read_version(r)?;
    let found = r.byte()?;
    if found != T::KIND as u8 {
        return Err(WireError::WrongKind {
            expected: T::KIND,
            found,
        });
    }
    check_kind_version(T::KIND, version)?;
    for &(name, expected) in T::PARAMS {
        let found = r.varint()?;
        if found != expected {
            return Err(WireError::WrongParameter {
                name,
                expected,
                found,
            });
        }
    }
    let seed = r.varint()?;
    Ok((seed, version))
}

/// Reads and checks the envelope for `T`, then its body.
pub fn read_sketch<T: Wire, R: Source>(r: &mut R) -> Result<T, WireError> {
    let (seed, version) = read_envelope::<T, R>(r)?;
    T::read_body_version(r, seed, version)
}

/// Reads and checks the envelope for `T`, then its body into `target`. An error in the envelope
/// (including a seed other than [`Codec::FIXED_SEED`]) leaves `target` unchanged; an error in the body
/// leaves it empty with its own seed (see [`Codec::read_body_into`]).
pub fn read_sketch_into<T: Wire, R: Source>(r: &mut R, target: &mut T) -> Result<(), WireError> {
    let (seed, version) = read_envelope::<T, R>(r)?;
    if let Some(expected) = T::FIXED_SEED.filter(|&s| s != seed) {
        return Err(WireError::WrongParameter {
            name: "SEED",
            expected,
            found: seed,
        });
    }
    target.read_body_into(r, seed, version)
}

/// `Serialize` for every sketch: one tuple of the envelope and body elements.
pub fn serialize<T: Wire, S: ser::Serializer>(v: &T, serializer: S) -> Result<S::Ok, S::Error> {
    let mut count = Counter::default();
    let Ok(()) = write_sketch(v, &mut count);
    let mut tuple = serializer.serialize_tuple(count.elements)?;
    let mut sink = TupleSink {
        tuple: &mut tuple,
        measured: None,
    };
    write_sketch(v, &mut sink)?;
    tuple.end()
}

/// The serde visitor behind every sketch's `Deserialize` and the typed decoder. Its value keeps
/// validation errors typed; failures of the underlying format come back as that format's error.
pub struct SketchVisitor<T>(PhantomData<T>);

impl<T> SketchVisitor<T> {
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<'de, T: Wire> Visitor<'de> for SketchVisitor<T> {
    type Value = Result<T, WireError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an encoded {} sketch", T::KIND.name())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        with_seq_source(seq, read_sketch::<T, _>)
    }
}

/// Runs a decoder over a serde sequence: its result if the format itself did not fail, else the
/// format's error.
pub fn with_seq_source<'de, A: SeqAccess<'de>, V>(
    seq: A,
    decode: impl FnOnce(&mut SeqSource<'de, A>) -> Result<V, WireError>,
) -> Result<Result<V, WireError>, A::Error> {
    let mut source = SeqSource {
        seq,
        err: None,
        _de: PhantomData,
    };
    let value = decode(&mut source);
    match source.err {
        Some(e) => Err(e),
        None => Ok(value),
    }
}

/// `Deserialize` for every sketch: validation failures become the format's custom error carrying the
/// [`WireError`] message.
pub fn deserialize<'de, T: Wire, D: de::Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    deserializer
        .deserialize_tuple(usize::MAX, SketchVisitor::<T>::new())?
        .map_err(de::Error::custom)
}

/// Maps a validating constructor's refusal onto the wire error that names the problem.
pub fn parts_error(e: PartsError) -> WireError {
    let what = match e {
        PartsError::RegisterOutOfRange { index, value, .. } => {
            return WireError::BadRegister {
                index: index as u32,
                value: u64::from(value),
            }
        }
        PartsError::InvalidCoupon { index, coupon } => {
            return WireError::BadRegister {
                index: index as u32,
                value: u64::from(coupon),
            }
        }
        PartsError::RowAboveTotal { .. } => "a count-min row adds up to more than the total",
        PartsError::UnsortedCoupons { .. } => "HLL coupons out of order",
        PartsError::TooManyCoupons { .. } => "more HLL coupons than the sparse form holds",
        PartsError::InvalidEstimatorState => "invalid HLL estimator state",
        PartsError::DuplicateKey { .. } => "a key is listed twice",
        PartsError::BadCount { .. } => "a listed count is impossible",
        PartsError::LengthMismatch { .. } => "more entries than the sketch holds",
        PartsError::BadVictim => "the cuckoo victim entry is out of range or empty",
    };
    WireError::Inconsistent { what }
}

/// Maps postcard's errors onto ours.
pub fn from_postcard(e: postcard::Error) -> WireError {
    match e {
        postcard::Error::DeserializeUnexpectedEnd => WireError::Truncated,
        postcard::Error::SerializeBufferFull => WireError::BufferTooSmall,
        postcard::Error::DeserializeBadVarint => WireError::BadEncoding {
            what: "over-long varint",
        },
        postcard::Error::DeserializeBadCrc => WireError::BadChecksum,
        _ => WireError::BadEncoding {
            what: "postcard could not decode the input",
        },
    }
}

/// Implements `Serialize` and `Deserialize` for a sketch type through [`serialize`] and
/// [`deserialize`].
macro_rules! serde_via_wire {
    (impl[$($gen:tt)*] $ty:ty) => {
        impl<$($gen)*> serde::Serialize for $ty {
            fn serialize<Ser: serde::Serializer>(
                &self,
                serializer: Ser,
            ) -> Result<Ser::Ok, Ser::Error> {
                $crate::wire::codec::serialize(self, serializer)
            }
        }

        impl<'de, $($gen)*> serde::Deserialize<'de> for $ty {
            fn deserialize<De: serde::Deserializer<'de>>(
                deserializer: De,
            ) -> Result<Self, De::Error> {
                $crate::wire::codec::deserialize(deserializer)
            }
        }
    };
}
pub(crate) use serde_via_wire;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_len_matches_leb128() {
        assert_eq!(varint_len(0), 1);
        assert_eq!(varint_len(127), 1);
        assert_eq!(varint_len(128), 2);
        assert_eq!(varint_len(16_383), 2);
        assert_eq!(varint_len(16_384), 3);
        assert_eq!(varint_len(u64::from(u32::MAX)), 5);
        assert_eq!(varint_len(u64::MAX), VARINT_MAX);
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut buf = [0u8; 16];
            let n = postcard::to_slice(&v, &mut buf).map(|b| b.len());
            assert_eq!(n, Ok(varint_len(v)), "{v}");
        }
    }
}
