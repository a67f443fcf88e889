//! Errors, one type per concern.
//!
//! * [`MergeError`]: two sketches of the same type that cannot be combined (different seeds). Sketches
//!   of different sizes or parameters are different types, so combining them does not compile.
#![cfg_attr(
    feature = "wire",
    doc = " * [`WireError`](crate::WireError) (feature `wire`, in the `wire` module): bytes that could"
)]
#![cfg_attr(
    not(feature = "wire"),
    doc = " * `WireError` (feature `wire`, in the `wire` module): bytes that could"
)]
//!   not be encoded into a buffer or decoded into a sketch or a frame.
//! * [`PartsError`]: raw parts (counters, entries, totals, registers, coupons, estimator state, as a
//!   wire decoder hands them over) that no sequence of operations on a sketch could have produced.
//! * [`RemoveError`]: a deletable filter refused to remove a key (it was definitely never inserted).
//! * [`CapacityError`]: a cuckoo filter is too full to take another key (nothing was changed).
//! * [`RedisError`]: a Redis HyperLogLog string that could not be read or written ([`crate::redis`]).

use core::fmt;

/// Why two sketches could not be merged. The sketch that was asked to merge is left unchanged.
///
/// ```
/// use sketch_nostd::{Bloom, MergeError};
///
/// let mut a = Bloom::<4, 3>::with_seed(1);
/// let b = Bloom::<4, 3>::with_seed(2);
/// assert_eq!(a.merge(&b), Err(MergeError::SeedMismatch { ours: 1, theirs: 2 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MergeError {
    /// The sketches hash with different seeds, so their cells mean different things.
    SeedMismatch {
        /// The seed of the sketch that was asked to merge.
        ours: u64,
        /// The seed of the other sketch.
        theirs: u64,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SeedMismatch { ours, theirs } => write!(
                f,
                "cannot merge sketches with different seeds ({ours:#x} and {theirs:#x})"
            ),
        }
    }
}

impl core::error::Error for MergeError {}

/// Why a counting Bloom filter refused to remove a key. Nothing was changed.
///
/// ```
/// use sketch_nostd::{CountingBloom, RemoveError};
///
/// let mut f = CountingBloom::<16, 4>::new();
/// f.insert("present");
/// assert_eq!(f.remove("never inserted"), Err(RemoveError::Absent));
/// assert_eq!(f.remove("present"), Ok(()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RemoveError {
    /// One of the key's counters is zero: the key is definitely not in the filter, and decrementing
    /// its other counters would take counts away from keys that are.
    Absent,
}

impl fmt::Display for RemoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Absent => f.write_str("the key is not in the filter; nothing was removed"),
        }
    }
}

impl core::error::Error for RemoveError {}

/// A cuckoo filter is too full to take another key. The filter was left exactly as it was: every
/// key inserted before is still there.
///
/// ```
/// use sketch_nostd::{CapacityError, CuckooFilter};
///
/// // One bucket of 4 slots plus the one-entry victim slot.
/// let mut f = CuckooFilter::<1, u8>::new();
/// let results: Vec<_> = (0..10u32).map(|k| f.insert(&k)).collect();
/// assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 5);
/// assert_eq!(results[9], Err(CapacityError));
/// assert!((0..5u32).all(|k| f.contains(&k)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CapacityError;

impl fmt::Display for CapacityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the filter is full; the key was not inserted and nothing was changed")
    }
}

impl core::error::Error for CapacityError {}

/// Why raw parts were refused by a validating constructor such as
/// [`CountMin::from_parts`](crate::CountMin::from_parts) or
/// [`HyperLogLog::from_parts`](crate::HyperLogLog::from_parts): they do not describe a state the
/// sketch can reach, so trusting them would break its guarantees (for example "never an underestimate").
///
/// ```
/// use sketch_nostd::{CountMin, PartsError};
///
/// // Row 0 holds 9 but the total says only 4 were ever counted.
/// let cells = [[9u8, 0], [4, 0]];
/// assert_eq!(
///     CountMin::<2, 2, u8>::from_parts(cells, 0, 4),
///     Err(PartsError::RowAboveTotal { row: 0 })
/// );
///
/// // A HyperLogLog register holds 63, but at p = 4 a register never exceeds 64 − 4 + 1 = 61.
/// let mut registers = [0u8; 12];
/// registers[0] = 63;
/// assert_eq!(
///     sketch_nostd::Hll4::from_parts(&registers, 0, None).err(),
///     Some(PartsError::RegisterOutOfRange { index: 0, value: 63, max: 61 })
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartsError {
    /// A slice of counters or entries has the wrong length for the type.
    LengthMismatch {
        /// The length the type needs (or, for entries, the capacity).
        expected: usize,
        /// The length given.
        found: usize,
    },
    /// A count-min row adds up to more than the total of all counts.
    RowAboveTotal {
        /// The row, counted from 0.
        row: usize,
    },
    /// The same key appears twice among the entries of a heavy-hitter summary.
    DuplicateKey {
        /// Position of the second occurrence in the entries given.
        index: usize,
    },
    /// An entry's count is impossible: above the sketch's estimate for that key (top-k), or below the
    /// entry's error (Space-Saving).
    BadCount {
        /// Position of the entry in the entries given.
        index: usize,
    },
    /// A HyperLogLog register holds a value no hash can produce at this precision.
    RegisterOutOfRange {
        /// The register's index.
        index: usize,
        /// The value found.
        value: u8,
        /// The largest valid value, `64 − p + 1`.
        max: u8,
    },
    /// A HyperLogLog sparse coupon has a rank outside `1..=58 − p` or an index of more than
    /// `p + 7` bits (see `HyperLogLog::coupons`).
    InvalidCoupon {
        /// Position of the coupon in the input.
        index: usize,
        /// The coupon.
        coupon: u32,
    },
    /// HyperLogLog sparse coupons are not in strictly increasing order of their `p + 7` index bits.
    UnsortedCoupons {
        /// Position of the first coupon out of order.
        index: usize,
    },
    /// More HyperLogLog sparse coupons than the sparse form holds.
    TooManyCoupons {
        /// The sparse form's capacity.
        capacity: usize,
    },
    /// An estimator state that no sketch can be in: a martingale estimate that is NaN, negative
    /// (including −0) or above the largest estimate a sketch reports (2^64).
    InvalidEstimatorState,
    /// A cuckoo filter's victim entry names a bucket past the end of the filter or holds the empty
    /// fingerprint 0.
    BadVictim,
}

impl fmt::Display for PartsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::LengthMismatch { expected, found } => {
                write!(f, "expected {expected} values, found {found}")
            }
            Self::RowAboveTotal { row } => {
                write!(
                    f,
                    "count-min row {row} adds up to more than the total count"
                )
            }
            Self::DuplicateKey { index } => write!(f, "entry {index} repeats an earlier key"),
            Self::BadCount { index } => write!(f, "entry {index} has an impossible count"),
            Self::RegisterOutOfRange { index, value, max } => write!(
                f,
                "register {index} holds {value}, above the largest possible value {max}"
            ),
            Self::InvalidCoupon { index, coupon } => {
                write!(
                    f,
                    "sparse coupon {index} ({coupon:#010x}) has an invalid rank"
                )
            }
            Self::UnsortedCoupons { index } => {
                write!(f, "sparse coupon {index} is not above the one before it")
            }
            Self::TooManyCoupons { capacity } => {
                write!(f, "more sparse coupons than the capacity of {capacity}")
            }
            Self::InvalidEstimatorState => f.write_str("invalid estimator state"),
            Self::BadVictim => f.write_str("the cuckoo victim entry is out of range or empty"),
        }
    }
}

impl core::error::Error for PartsError {}

/// Checks that two seeds agree before a merge.
pub(crate) const fn check_seeds(ours: u64, theirs: u64) -> Result<(), MergeError> {
    if ours == theirs {
        Ok(())
    } else {
        Err(MergeError::SeedMismatch { ours, theirs })
    }
}
/// Why a Redis HyperLogLog string could not be read or written ([`crate::redis`]).
///
/// ```
/// use sketch_nostd::{redis::RedisHll, RedisError};
/// assert_eq!(RedisHll::decode(b"HYLL"), Err(RedisError::Truncated));
/// assert_eq!(RedisHll::decode(&[0u8; 16]), Err(RedisError::BadMagic));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedisError {
    /// Shorter than the 16-byte header, or a sparse string that ends inside an `XZERO` opcode.
    Truncated,
    /// The first four bytes are not `"HYLL"`.
    BadMagic,
    /// The encoding byte is neither 0 (dense) nor 1 (sparse).
    UnknownEncoding(u8),
    /// The three reserved header bytes are not zero.
    ReservedNotZero,
    /// A dense string whose length is not 12,304 bytes (Redis refuses it too).
    DenseLength {
        /// The string's length.
        len: usize,
    },
    /// Dense registers that no Redis HyperLogLog holds (a value above 51).
    Registers(PartsError),
    /// Sparse opcodes that cover more than 16,384 registers.
    OverCover {
        /// Byte offset, in the string, of the opcode that runs past the last register.
        offset: usize,
    },
    /// Sparse opcodes that end before covering all 16,384 registers.
    UnderCover {
        /// The number of registers they cover.
        covered: usize,
    },
    /// A register above 32, which the sparse form cannot hold (write the dense form).
    NotSparse {
        /// The register.
        index: usize,
        /// Its value.
        value: u8,
    },
    /// The output buffer is shorter than the string.
    BufferTooSmall {
        /// The string's length.
        needed: usize,
    },
}

impl fmt::Display for RedisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Truncated => f.write_str("Redis HyperLogLog string truncated"),
            Self::BadMagic => f.write_str("not a Redis HyperLogLog string (no \"HYLL\" magic)"),
            Self::UnknownEncoding(e) => write!(f, "unknown Redis HyperLogLog encoding {e}"),
            Self::ReservedNotZero => {
                f.write_str("Redis HyperLogLog header's reserved bytes not zero")
            }
            Self::DenseLength { len } => {
                write!(f, "dense Redis HyperLogLog of {len} bytes (12304 expected)")
            }
            Self::Registers(e) => write!(f, "dense Redis HyperLogLog registers refused: {e}"),
            Self::OverCover { offset } => write!(
                f,
                "sparse Redis HyperLogLog opcode at byte {offset} runs past register 16383"
            ),
            Self::UnderCover { covered } => write!(
                f,
                "sparse Redis HyperLogLog covers {covered} registers, not 16384"
            ),
            Self::NotSparse { index, value } => write!(
                f,
                "register {index} holds {value}, above the sparse form's 32"
            ),
            Self::BufferTooSmall { needed } => {
                write!(f, "buffer too small for the {needed}-byte Redis string")
            }
        }
    }
}

impl core::error::Error for RedisError {}

/// Why a binary fuse filter could not be built ([`fuse::BinaryFuse::from_keys`](crate::fuse::BinaryFuse::from_keys),
/// feature `alloc`). Building is the only fallible step: a built filter always answers.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use sketch_nostd::fuse::BinaryFuse8;
/// assert!(BinaryFuse8::from_keys(0..1_000u32, 0).is_ok());
/// # }
/// ```
#[cfg(feature = "alloc")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// More distinct keys than a filter indexed by 32 bits holds (about 3.8 billion).
    TooManyKeys,
    /// No construction seed out of 100 gave a filter. One attempt fails with a probability far
    /// below 1% beyond a few thousand keys, so this means the hashes are not independent (for
    /// example `from_hashes` given values that are not hashes).
    NotFound,
}

#[cfg(feature = "alloc")]
impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TooManyKeys => f.write_str("too many keys for a binary fuse filter"),
            Self::NotFound => {
                f.write_str("no binary fuse filter found for these hashes in 100 attempts")
            }
        }
    }
}

#[cfg(feature = "alloc")]
impl core::error::Error for BuildError {}
