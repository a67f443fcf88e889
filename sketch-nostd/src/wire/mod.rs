//! The wire format: every sketch as compact, versioned, validated bytes, and frames for serial and
//! radio links (feature `wire`, on by default).
//!
//! Sketches are built on devices and merged on a host, so their bytes are a public interface. Every
//! sketch type implements serde's `Serialize` and `Deserialize` by hand (decoding validates
//! everything) and [`Wire`], whose [`MAX_ENCODED_LEN`](Wire::MAX_ENCODED_LEN) sizes a firmware buffer
//! at compile time. [`encode`] and [`decode`] use [postcard] without `alloc`; `decode` returns a typed
//! [`WireError`] and never panics or allocates, whatever the bytes. [`decode_into`] accepts the same
//! bytes with the same errors but writes straight into a sketch the caller owns, for devices whose
//! stack cannot hold a second copy of a large sketch.
//!
//! ```
//! use sketch_nostd::{wire::{self, Wire}, Bloom};
//!
//! type Seen = Bloom<16, 4>;
//! let mut device = Seen::with_seed(7);
//! device.insert("GET /a");
//!
//! // On the device: a buffer sized at compile time.
//! let mut buf = [0u8; Seen::MAX_ENCODED_LEN];
//! let bytes = wire::encode(&device, &mut buf)?;
//! assert!(bytes.len() < 30); // mostly empty, so sparse: not 8·16 bytes
//!
//! // On the host.
//! let mut host = Seen::with_seed(7);
//! host.merge(&wire::decode::<Seen>(bytes)?)?;
//! assert!(host.contains("GET /a"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Format, version 3
//!
//! A sketch is one postcard tuple of bytes (`u8`, written raw) and unsigned integers (written as
//! LEB128 varints, 7 bits per byte, least significant first, as postcard writes `u64`):
//!
//! | field | encoding |
//! | --- | --- |
//! | magic | the two bytes [`MAGIC`], `"SK"` (`53 4b`) |
//! | format version | one byte: the version the kind's body last changed in ([`SketchKind::format_version`]: 3 for count-min and top-k, 2 for the others); decoders accept [`SketchKind::min_format_version`] to [`FORMAT_VERSION`] |
//! | kind | one byte, a [`SketchKind`] |
//! | parameters | one varint each, in the order of [`SketchKind::param_names`] (for example `WORDS`, `K`) |
//! | seed | varint |
//! | body | per kind, below |
//!
//! Decoding into a type checks every field against the type: the magic, the version, the kind, every
//! parameter, and for types whose seed is a type parameter the seed. Bodies:
//!
//! * [`Bloom`](crate::Bloom): a tag byte, then whichever of three encodings is smallest (ties go to
//!   the lower tag):
//!   * `0` dense: every word as 8 little-endian bytes;
//!   * `1` zero runs: pairs (`zeros`, `literals`) of varints, each followed by `literals` words of 8
//!     little-endian bytes, until all words are covered; every pair covers at least one word;
//!   * `2` sparse: the number of set bits, then the gaps between consecutive set bit positions (the
//!     first position, then `position − previous − 1`), as varints; bit `i` is bit `i % 64` of word
//!     `i / 64`.
//! * [`BlockedBloom`](crate::BlockedBloom): its `8·BLOCKS` words, block after block, in the Bloom
//!   filter's three encodings.
//! * [`CountingBloom`](crate::CountingBloom): its words (16 four-bit counters each) in the Bloom
//!   filter's three encodings (a counter of 1 is a single set bit), or, when strictly smaller,
//!   * `3` two-bit: every counter as `min(count, 3)` in 2 bits, four to a byte (counter `4j + t` in
//!     bits `2t..2t + 2` of byte `j`), then `count − 3` of each counter coded 3, in order, as
//!     nibbles two to a byte (low first; an odd last nibble is padded with 0). A nibble above 12 is
//!     [`WireError::BadRegister`]. About 2.1 bits per counter at the design load instead of 4.
//! * [`CuckooFilter`](crate::CuckooFilter): the victim slot (varint: 0 for none, else bucket + 1,
//!   followed by its fingerprint), then a tag byte and the smaller of `0` every slot's fingerprint
//!   (bucket after bucket, slot after slot, `FINGERPRINT_BITS / 8` little-endian bytes, 0 for an
//!   empty slot) and `1` the number of occupied slots followed, for each, by the gap to the previous
//!   occupied slot's index (`4·bucket + slot`, varint) and its fingerprint. Slot positions are kept:
//!   they are part of the filter's state.
//! * [`MicroBloom`](crate::MicroBloom) / [`MicroBloom32`](crate::MicroBloom32): the word, 8 or 4
//!   little-endian bytes.
//! * [`HyperLogLog`](crate::HyperLogLog): a state byte (bit 0: dense, bit 1: single stream; the other
//!   bits 0), then
//!   * sparse: a tag byte, the number of coupons (varint, at most `SPARSE_CAPACITY`), and either `0`
//!     a Rice-coded list (a Rice parameter byte `k`, then per coupon, in increasing order, the gap to
//!     the previous index as a Rice code and `rank − 1` in unary) or `1` each coupon as 4
//!     little-endian bytes (`index << 6 | rank`), whichever is smaller. A coupon's index has
//!     [`SPARSE_INDEX_BITS`](crate::HyperLogLog::SPARSE_INDEX_BITS) `= P + 7` bits and its rank is
//!     in `1..=58 − P` (see [`HyperLogLog::coupons`](crate::HyperLogLog::coupons));
//!   * dense: for a single stream the martingale estimate (an `f64`, 8 little-endian bytes), then a
//!     tag byte and the smallest of `0` the packed 6-bit registers as in memory, `1` the non-zero
//!     registers as a Rice-coded list (count varint, `k`, then index gaps in Rice and `value − 1` in
//!     unary), and `2` every register as the Rice code of its zigzagged distance from a base value
//!     (base byte, `k` byte, then the codes).
//!
//!   Bit streams are packed least significant bit first and padded with zero bits to a whole byte.
//!   A Rice code of `v` with parameter `k` is `v >> k` in unary (ones ended by a zero) followed by
//!   the low `k` bits of `v`. A register above `65 − P` is [`WireError::BadRegister`]; coupons out of
//!   order, too many of them, or a NaN martingale estimate are [`WireError::Inconsistent`]. Decoding
//!   rebuilds exactly the sketch that was encoded, estimator state included.
//! * [`CountMin`](crate::CountMin): the total `N` (varint), then a tag byte and the smaller of
//!   * `0` dense: every counter, row after row, in its own width (`COUNTER_BYTES`), little-endian;
//!   * `1` zero runs: pairs (`zeros`, `literals`) of varints, each followed by `literals` counters as
//!     varints, until all `W·D` counters are covered.
//!
//!   A counter above the type's maximum is [`WireError::BadRegister`]; a row adding up to more than
//!   `N` is [`WireError::Inconsistent`].
//! * [`TopK`](crate::TopK): its count-min sketch's body (as above; the seed is the envelope's), the
//!   `overlong` counter (varint), the number of entries (varint, at most `K`), then each entry's key
//!   ([`WireKey`]) and count (varint), ordered by count descending, then key bytes ascending.
//!   A count above the sketch's estimate of its key, or a key listed twice, is
//!   [`WireError::Inconsistent`].
//! * [`SpaceSaving`](crate::SpaceSaving): the total `N`, `overlong`, the number of entries (varints),
//!   then each entry's key, count and error (varints), in the same order. An error above its count
//!   is [`WireError::Inconsistent`].
//!
//! * [`QuantileSketch`](crate::QuantileSketch): a state byte (bit 0: a counter saturated, bit 1:
//!   collapsed; the other bits 0), the collapse floor (a zigzag varint of its signed bucket key) if
//!   collapsed, the zero count (varint), then the negative and the positive bucket window: each its
//!   length in buckets (varint), and if not empty the magnitude of its lowest key (varint) and its
//!   counters in the count-min body's two encodings (a tag byte, `0` dense in `COUNTER_BYTES`
//!   little-endian bytes each or `1` zero runs, whichever is smaller); then, unless the sketch is
//!   empty, the minimum, maximum and sum as `f64`s (8 little-endian bytes each). A bucket's key is
//!   `±(e·SUB + j)` for a value `±2^(e − 1023)·m` with `2^(j/SUB) ≤ m < 2^((j+1)/SUB)`. Windows that
//!   start or end with an empty bucket, overlap the floor, hold more buckets than `BUCKETS` or keys out
//!   of range, or extremes outside the outer buckets are refused ([`WireError::BadEncoding`],
//!   [`WireError::Inconsistent`]).
//!
//! Frames ([`Frame`]) wrap a sketch for links that lose and corrupt bytes: the device id (varint),
//! the sequence number (varint), the sketch, a CRC-32 (ISO-HDLC, the zlib/Ethernet CRC) of those bytes
//! in 4 little-endian bytes, all COBS-encoded so that the only zero byte is the delimiter `00` that
//! ends the frame. [`FrameDecoder`] reassembles frames from a byte stream (UART) and resynchronises at
//! the next delimiter after any corruption; [`RawFrame::decode`] takes one frame (a UDP datagram).
//!
//! Changing an encoding means bumping [`FORMAT_VERSION`] and keeping the old decoder: the golden
//! tests in `tests/tests/wire_golden.rs` pin every byte, and keep the bytes of older versions as
//! decoding tests.
//!
//! # Format versions 1 and 2
//!
//! Version 2 differs from version 3 only in where count-min and top-k bodies put a key's counters
//! (its column in row `i` was probe `i` of double hashing, unmixed): those bytes are refused with
//! [`WireError::UnsupportedVersion`], since no decoder can move counts to the columns their keys have
//! now. Every other kind reads as in version 3.
//!
//! Version 1 was written by releases before version 2 and is still decoded
//! ([`MIN_FORMAT_VERSION`]) for every kind but count-min and top-k. Everything is as above except
//! the sparse [`HyperLogLog`](crate::HyperLogLog) body, whose coupons have 26 index bits
//! at every precision and ranks in `1..=39`. Decoding converts them exactly to this library's
//! sparse form: a version-1 coupon's index loses its low `d = 26 − (P + 7)` bits, and its rank
//! becomes (leading zeros of those `d` bits) + 1 if any is set, else `d` + its rank: the coupon the
//! same hash gives now. Coupons that end up with the same index keep the highest rank. The result
//! equals the sketch built from the same keys by this library; re-encoding it writes version 2.
//!
//! [postcard]: https://docs.rs/postcard

mod bits;
mod bloom;
pub(crate) mod codec;
mod counting;
mod countmin;
mod crc32;
mod cuckoo;
mod error;
mod frame;
mod heavy;
mod hll;
mod kind;
mod quantile;
mod send;
mod view;

pub use cuckoo::CuckooFilterRef;
pub use frame::{Frame, FrameDecoder, RawFrame};
pub use heavy::WireKey;
pub use send::encode_frame;
pub use view::{encode_view, BlockedBloomRef, BloomRef, CountingBloomRef, Viewable};

pub use codec::Wire;
use codec::{read_header, Counter, SketchVisitor, SliceSource};
pub use error::WireError;
pub use kind::{SketchKind, FORMAT_VERSION, MAGIC, MAX_PARAMS, MIN_FORMAT_VERSION};

/// Encodes `sketch` into `buf` and returns the bytes written.
///
/// ```
/// use sketch_nostd::{wire, MicroBloom};
/// let mut buf = [0u8; 32];
/// let bytes = wire::encode(&MicroBloom::<3>::from_parts(0x0102), &mut buf)?;
/// assert_eq!(bytes, [0x53, 0x4b, 2, 2, 3, 0, 2, 1, 0, 0, 0, 0, 0, 0]);
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
///
/// # Errors
/// [`WireError::BufferTooSmall`] if `buf` is shorter than the encoding
/// ([`Wire::MAX_ENCODED_LEN`] is always enough).
pub fn encode<'a, T: Wire>(sketch: &T, buf: &'a mut [u8]) -> Result<&'a mut [u8], WireError> {
    // Postcard's bytes, written directly (`send.rs`): no serde layers, no panicking index.
    send::encode_into(sketch, buf)
}

/// The number of bytes [`encode`] writes for `sketch`.
///
/// ```
/// use sketch_nostd::{wire, Bloom};
/// let empty = Bloom::<1_000, 7>::new();
/// assert_eq!(wire::encoded_len(&empty), 10); // 8,000 bytes of zeros in 10
/// ```
#[must_use]
pub fn encoded_len<T: Wire>(sketch: &T) -> usize {
    let mut count = Counter::default();
    let Ok(()) = codec::write_sketch(sketch, &mut count);
    count.bytes
}

/// Decodes exactly one sketch of type `T` from `bytes`.
///
/// ```
/// use sketch_nostd::{wire, Bloom, WireError};
/// let mut f = Bloom::<4, 2>::with_seed(1);
/// f.insert(&5u8);
/// let mut buf = [0u8; 64];
/// let bytes = wire::encode(&f, &mut buf)?;
/// assert_eq!(wire::decode::<Bloom<4, 2>>(bytes)?, f);
/// assert!(matches!(
///     wire::decode::<Bloom<4, 3>>(bytes),
///     Err(WireError::WrongParameter { name: "K", expected: 3, found: 2 })
/// ));
/// # Ok::<(), WireError>(())
/// ```
///
/// # Errors
/// Any [`WireError`] describing why the bytes are not exactly one valid `T`, including
/// [`WireError::TrailingBytes`] if bytes are left after it.
pub fn decode<T: Wire>(bytes: &[u8]) -> Result<T, WireError> {
    let (v, rest) = take::<T>(bytes)?;
    if rest.is_empty() {
        Ok(v)
    } else {
        Err(WireError::TrailingBytes)
    }
}

/// Decodes one sketch of type `T` from the front of `bytes` and returns it with the bytes after it.
///
/// ```
/// use sketch_nostd::{wire, MicroBloom32};
/// let mut buf = [0u8; 64];
/// let n = wire::encode(&MicroBloom32::<2>::from_parts(9), &mut buf)?.len();
/// buf[n] = 0xAA;
/// let (f, rest) = wire::take::<MicroBloom32<2>>(&buf[..n + 1])?;
/// assert_eq!((f.bits(), rest), (9, &[0xAA][..]));
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
///
/// # Errors
/// Any [`WireError`] describing why the bytes do not start with a valid `T`.
pub fn take<T: Wire>(bytes: &[u8]) -> Result<(T, &[u8]), WireError> {
    let mut de = postcard::Deserializer::from_bytes(bytes);
    let v = serde::Deserializer::deserialize_tuple(&mut de, usize::MAX, SketchVisitor::<T>::new())
        .map_err(codec::from_postcard)??;
    let rest = de.finalize().map_err(codec::from_postcard)?;
    Ok((v, rest))
}

/// Decodes exactly one sketch of type `T` from `bytes` into `sketch`, in place: the bytes that
/// [`decode`] accepts, with the same result, but written straight into the caller's sketch, so no
/// second sketch-sized value is ever made (decoding by value briefly holds a few copies of the sketch
/// on the stack: a p = 14 [`HyperLogLog`](crate::HyperLogLog), 12 KB, cannot be decoded that way on
/// a 64 KB microcontroller). Dense HyperLogLog registers, Bloom, blocked Bloom and counting Bloom
/// words, count-min counters and cuckoo buckets are decoded straight into the sketch's storage and
/// validated there; micro filters and the heavy-hitter summaries ([`TopK`](crate::TopK),
/// [`SpaceSaving`](crate::SpaceSaving)) are decoded by value and assigned.
///
/// On success `sketch` equals what [`decode`] returns, seed included (the envelope's seed replaces
/// `sketch`'s). On an error, `sketch` is always a valid sketch:
///
/// * an error in the envelope — [`WireError::BadMagic`], [`WireError::UnsupportedVersion`],
///   [`WireError::WrongKind`], [`WireError::WrongParameter`] (a parameter, or the seed of a type that
///   fixes it: [`MicroBloom`](crate::MicroBloom)'s `SEED`),
///   or the input ending or a varint overflowing before the envelope's end — leaves it **unchanged**;
/// * an error after the envelope — in the body, or [`WireError::TrailingBytes`] — leaves it
///   **empty, keeping its own seed** (as after its `clear`): the body may have been partly written
///   before the error was found.
///
/// ```
/// use sketch_nostd::{wire, Hll10, WireError};
///
/// let mut device = Hll10::with_seed(7);
/// for i in 0..5_000u32 { device.insert(&i); }
/// let mut buf = [0u8; 1_000];
/// let bytes = wire::encode(&device, &mut buf)?;
///
/// // One sketch, reused for every message (a static on a microcontroller).
/// let mut rx = Hll10::with_seed(1);
/// wire::decode_into(bytes, &mut rx)?;
/// assert!(rx == device && rx.seed() == 7);
///
/// // A refused envelope leaves the sketch as it was...
/// assert!(matches!(wire::decode_into(b"SK\x09", &mut rx), Err(WireError::UnsupportedVersion { .. })));
/// assert!(rx == device);
/// // ...a refused body leaves it empty, with its seed.
/// let n = bytes.len();
/// assert_eq!(wire::decode_into(&bytes[..n - 1], &mut rx), Err(WireError::Truncated));
/// assert!(rx.is_empty() && rx.seed() == 7);
/// # Ok::<(), WireError>(())
/// ```
///
/// # Errors
/// As [`decode`], with exactly the same error for the same bytes.
pub fn decode_into<T: Wire>(bytes: &[u8], sketch: &mut T) -> Result<(), WireError> {
    let own = sketch.wire_seed();
    let rest = take_into(bytes, sketch)?;
    if rest.is_empty() {
        Ok(())
    } else {
        sketch.clear_with_seed(own);
        Err(WireError::TrailingBytes)
    }
}

/// Decodes one sketch of type `T` from the front of `bytes` into `sketch`, in place, and returns the
/// bytes after it: [`take`] as [`decode_into`] is to [`decode`]. After an error `sketch` is unchanged
/// (envelope) or empty with its own seed (body), as for [`decode_into`].
///
/// ```
/// use sketch_nostd::{wire, Bloom};
/// let (mut a, mut b) = (Bloom::<4, 2>::with_seed(1), Bloom::<4, 2>::with_seed(2));
/// a.insert("a");
/// b.insert("b");
/// let mut buf = [0u8; 128];
/// let n = wire::encode(&a, &mut buf)?.len();
/// let m = wire::encode(&b, &mut buf[n..])?.len();
///
/// let mut rx = Bloom::<4, 2>::new();
/// let rest = wire::take_into(&buf[..n + m], &mut rx)?;
/// assert_eq!(rx, a);
/// assert!(wire::take_into(rest, &mut rx)?.is_empty());
/// assert_eq!(rx, b);
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
///
/// # Errors
/// As [`take`], with exactly the same error for the same bytes.
pub fn take_into<'a, T: Wire>(bytes: &'a [u8], sketch: &mut T) -> Result<&'a [u8], WireError> {
    let mut src = SliceSource::new(bytes);
    let result = codec::read_sketch_into(&mut src, sketch);
    // A failed read (whose error replaces the decoder's) left the sketch as the decoder's error
    // would have: unchanged in the envelope, empty in the body.
    src.finish(result).map(|((), rest)| rest)
}

/// An envelope read without decoding the body: enough for a host to choose the type to decode into.
///
/// ```
/// use sketch_nostd::{wire::{self, SketchKind}, Bloom};
/// let mut buf = [0u8; 64];
/// let bytes = wire::encode(&Bloom::<4, 2>::with_seed(300), &mut buf)?;
/// let h = wire::peek(bytes)?;
/// assert_eq!((h.kind, h.params(), h.seed), (SketchKind::Bloom, &[4, 2][..], 300));
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version the bytes were written in (from the kind's
    /// [`min_format_version`](SketchKind::min_format_version) to [`FORMAT_VERSION`]).
    pub version: u8,
    /// The kind of sketch.
    pub kind: SketchKind,
    /// The seed.
    pub seed: u64,
    params: [u64; MAX_PARAMS],
}

impl Header {
    /// The parameter values, in [`SketchKind::param_names`] order.
    ///
    /// ```
    /// use sketch_nostd::{wire, MicroBloom};
    /// let mut buf = [0u8; 32];
    /// let bytes = wire::encode(&MicroBloom::<5>::new(), &mut buf)?;
    /// assert_eq!(wire::peek(bytes)?.params(), &[5]);
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    #[must_use]
    pub fn params(&self) -> &[u64] {
        let n = self.kind.param_names().len();
        self.params.get(..n).unwrap_or(&self.params)
    }
}

/// Reads the envelope at the front of `bytes`.
///
/// ```
/// use sketch_nostd::{wire, WireError};
/// assert_eq!(wire::peek(b"nope"), Err(WireError::BadMagic));
/// assert_eq!(wire::peek(b"SK"), Err(WireError::Truncated));
/// ```
///
/// # Errors
/// [`WireError::BadMagic`], [`WireError::UnsupportedVersion`], [`WireError::UnknownKind`],
/// [`WireError::Truncated`] or a varint error.
pub fn peek(bytes: &[u8]) -> Result<Header, WireError> {
    struct HeaderVisitor;
    impl<'de> serde::de::Visitor<'de> for HeaderVisitor {
        type Value = Result<Header, WireError>;
        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("a sketch envelope")
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            codec::with_seq_source(seq, |src| {
                read_header(src).map(|h| Header {
                    version: h.version,
                    kind: h.kind,
                    seed: h.seed,
                    params: h.params,
                })
            })
        }
    }
    let mut de = postcard::Deserializer::from_bytes(bytes);
    serde::Deserializer::deserialize_tuple(&mut de, usize::MAX, HeaderVisitor)
        .map_err(codec::from_postcard)?
}
