//! [`WireError`]: the one error type of the wire format, beside the sketch kinds it names.

use core::fmt;

use super::kind::SketchKind;

/// Why bytes could not become a sketch or a frame, or a sketch could not be written into a buffer.
///
/// Every decoder in [`wire`](crate::wire) returns this one type, so firmware and hosts can count and
/// log rejected input by cause. Decoding never panics and never allocates, whatever the bytes.
///
/// ```
/// use sketch_nostd::{wire, Bloom, MicroBloom, WireError};
///
/// let mut buf = [0u8; 64];
/// let bytes = wire::encode(&MicroBloom::<3>::new(), &mut buf)?;
/// // The same bytes are not a Bloom filter.
/// assert!(matches!(
///     wire::decode::<Bloom<4, 3>>(bytes),
///     Err(WireError::WrongKind { .. })
/// ));
/// // A byte short is a truncated sketch.
/// let short = &bytes[..bytes.len() - 1];
/// assert_eq!(wire::decode::<MicroBloom<3>>(short), Err(WireError::Truncated));
/// # Ok::<(), WireError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireError {
    /// The input ended in the middle of a sketch or frame (missing bytes).
    Truncated,
    /// Bytes were left over after a complete sketch or frame.
    TrailingBytes,
    /// The input does not start with the sketch magic bytes: it is not a sketch at all.
    BadMagic,
    /// The envelope's format version is one this decoder does not know.
    UnsupportedVersion {
        /// The version found in the envelope.
        found: u8,
    },
    /// The envelope names a kind of sketch this version of the library does not know.
    UnknownKind {
        /// The kind byte found in the envelope.
        found: u8,
    },
    /// The bytes hold another kind of sketch than the one asked for.
    WrongKind {
        /// The kind the caller asked for.
        expected: SketchKind,
        /// The kind byte found in the envelope.
        found: u8,
    },
    /// The bytes hold a sketch of the right kind with other parameters (size, hash count, seed of a
    /// seed-typed sketch, …): decoding it into this type would misread every cell.
    WrongParameter {
        /// The parameter's name, as in the type (`"WORDS"`, `"K"`, `"SEED"`, …).
        name: &'static str,
        /// The value this type has.
        expected: u64,
        /// The value found in the envelope.
        found: u64,
    },
    /// A register or cell holds a value the sketch can never hold (an HLL register above its maximum
    /// rank, for example).
    BadRegister {
        /// Index of the register or cell.
        index: u32,
        /// The value found.
        value: u64,
    },
    /// The body is malformed: an unknown encoding tag, an over-long varint, runs or positions that
    /// overflow the sketch or are out of order.
    BadEncoding {
        /// What was wrong.
        what: &'static str,
    },
    /// Every value is well formed but together they describe no sketch that could exist (a
    /// count-min row adding up to more than the total, HLL coupons out of order, …).
    Inconsistent {
        /// What contradicts what.
        what: &'static str,
    },
    /// A frame's CRC-32 does not match its contents.
    BadChecksum,
    /// A frame's COBS encoding is invalid (or it is empty).
    BadFraming,
    /// A frame is longer than the receiving buffer; it was dropped up to the next delimiter.
    FrameTooLong,
    /// The output buffer is too small for the encoding (size it with
    /// [`Wire::MAX_ENCODED_LEN`](crate::wire::Wire::MAX_ENCODED_LEN)).
    BufferTooSmall,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Truncated => f.write_str("input ended before the sketch or frame was complete"),
            Self::TrailingBytes => f.write_str("bytes left over after the sketch or frame"),
            Self::BadMagic => f.write_str("not a sketch: bad magic bytes"),
            Self::UnsupportedVersion { found } => {
                write!(f, "unsupported wire format version {found}")
            }
            Self::UnknownKind { found } => write!(f, "unknown sketch kind {found}"),
            Self::WrongKind { expected, found } => write!(
                f,
                "expected a {} sketch (kind {}), found kind {found}",
                expected.name(),
                expected as u8
            ),
            Self::WrongParameter {
                name: "KEY",
                expected,
                found,
            } => {
                f.write_str("key type differs: this type has ")?;
                key_type(expected, f)?;
                f.write_str(" keys, the bytes have ")?;
                key_type(found, f)?;
                f.write_str(" keys")
            }
            Self::WrongParameter {
                name,
                expected,
                found,
            } => write!(
                f,
                "parameter {name} differs: this type has {expected}, the bytes have {found}"
            ),
            Self::BadRegister { index, value } => {
                write!(
                    f,
                    "register or cell {index} holds an impossible value {value}"
                )
            }
            Self::BadEncoding { what } => write!(f, "malformed sketch body: {what}"),
            Self::Inconsistent { what } => write!(f, "inconsistent sketch: {what}"),
            Self::BadChecksum => f.write_str("frame checksum (CRC-32) mismatch"),
            Self::BadFraming => f.write_str("invalid COBS framing"),
            Self::FrameTooLong => f.write_str("frame longer than the receive buffer"),
            Self::BufferTooSmall => f.write_str("output buffer too small for the encoding"),
        }
    }
}

impl core::error::Error for WireError {}

/// Writes a key type's code in the envelope (the `KEY` parameter, [`WireKey::KEY_TYPE`]) as the
/// Rust type, where a bare number would say nothing.
///
/// [`WireKey::KEY_TYPE`]: super::WireKey::KEY_TYPE
fn key_type(code: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let n = code & 0xFFFF_FFFF;
    match (code >> 32, n) {
        (1, 8) => f.write_str("u64 (or usize)"),
        (2, 8) => f.write_str("i64 (or isize)"),
        (1, _) => write!(f, "u{}", n * 8),
        (2, _) => write!(f, "i{}", n * 8),
        (3, 1) => f.write_str("bool"),
        (4, 4) => f.write_str("char"),
        (5, _) => write!(f, "[u8; {n}]"),
        (6, _) => write!(f, "heapless::String<{n}>"),
        (7, _) => write!(f, "heapless::Vec<u8, {n}>"),
        _ => write!(f, "an unknown ({code:#x})"),
    }
}
