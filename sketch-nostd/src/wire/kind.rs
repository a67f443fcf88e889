//! The envelope's constants and the kinds of sketch it names: what the encoder, the decoder and
//! the error type share, with no dependency on any of them.

/// The first two bytes of every encoded sketch: `"SK"`.
pub const MAGIC: [u8; 2] = *b"SK";

/// The newest version of the format, the one this library writes for kinds whose body changed last
/// in it ([`CountMin`](crate::CountMin) and [`TopK`](crate::TopK)); every kind writes
/// [`SketchKind::format_version`], the version its body last changed in.
///
/// Version 3 changed how count-min rows pick their columns (each probe is mixed, so that the rows
/// collide independently): the same key has other columns, so count-min and top-k bytes of earlier
/// versions cannot be read into a sketch of this version and are refused with
/// [`WireError::UnsupportedVersion`](super::WireError::UnsupportedVersion). Version 2 changed only the sparse
/// [`HyperLogLog`](crate::HyperLogLog) body (coupons with `P + 7` index bits instead of 26); see the
/// [module documentation](crate::wire#format-version-1).
///
/// ```
/// use sketch_nostd::{wire, CountMin, MicroBloom};
/// let mut buf = [0u8; 64];
/// let bytes = wire::encode(&CountMin::<4, 2>::new(), &mut buf)?;
/// assert_eq!(wire::peek(bytes)?.version, wire::FORMAT_VERSION);
/// let bytes = wire::encode(&MicroBloom::<3>::new(), &mut buf)?;
/// assert_eq!(wire::peek(bytes)?.version, 2); // unchanged since version 2
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
pub const FORMAT_VERSION: u8 = 3;

/// The oldest format version this library reads for any kind. Every version from a kind's
/// [`SketchKind::min_format_version`] to [`FORMAT_VERSION`] decodes, into the sketch the same keys
/// build with this library.
///
/// ```
/// use sketch_nostd::{wire, MicroBloom};
/// // A MicroBloom written by a version-1 device (the body is the same in every version).
/// let v1 = [0x53, 0x4b, 1, 2, 3, 0, 2, 1, 0, 0, 0, 0, 0, 0];
/// assert_eq!(wire::peek(&v1)?.version, wire::MIN_FORMAT_VERSION);
/// assert_eq!(wire::decode::<MicroBloom<3>>(&v1)?.bits(), 0x0102);
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
pub const MIN_FORMAT_VERSION: u8 = 1;

/// The most parameters any kind has.
pub const MAX_PARAMS: usize = 6;

/// What kind of sketch an envelope holds: the third byte after the magic.
///
/// ```
/// use sketch_nostd::wire::SketchKind;
/// assert_eq!(SketchKind::from_u8(1), Some(SketchKind::Bloom));
/// assert_eq!(SketchKind::Bloom.param_names(), &["WORDS", "K"]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(u8)]
pub enum SketchKind {
    /// [`Bloom`](crate::Bloom): parameters `WORDS`, `K`.
    Bloom = 1,
    /// [`MicroBloom`](crate::MicroBloom): parameter `K`; the seed must equal `SEED`.
    MicroBloom = 2,
    /// [`MicroBloom32`](crate::MicroBloom32): parameter `K`; the seed must equal `SEED`.
    MicroBloom32 = 3,
    /// [`HyperLogLog`](crate::HyperLogLog): parameter `P` (the byte count follows from it).
    HyperLogLog = 4,
    /// [`CountMin`](crate::CountMin): parameters `W`, `D`, `COUNTER_BYTES` (1, 2, 4 or 8) and
    /// `CONSERVATIVE` (0 for standard update, 1 for conservative).
    CountMin = 5,
    /// [`CountingBloom`](crate::CountingBloom): parameters `WORDS`, `K`.
    CountingBloom = 8,
    /// [`CuckooFilter`](crate::CuckooFilter): parameters `BUCKETS`, `FINGERPRINT_BITS`.
    CuckooFilter = 9,
    /// [`TopK`](crate::TopK): parameters `K`, `W`, `D`, `COUNTER_BYTES`, `CONSERVATIVE` and `KEY`
    /// (the key type, [`WireKey::KEY_TYPE`](super::WireKey::KEY_TYPE)).
    TopK = 6,
    /// [`SpaceSaving`](crate::SpaceSaving): parameters `K`, `COUNTER_BYTES` and `KEY`; the seed is
    /// the index hash's.
    SpaceSaving = 7,
    /// [`BlockedBloom`](crate::BlockedBloom): parameters `BLOCKS`, `K`.
    BlockedBloom = 10,
    /// [`QuantileSketch`](crate::QuantileSketch): parameters `SUB`, `BUCKETS` and `COUNTER_BYTES`
    /// (2, 4 or 8); the seed is always 0.
    QuantileSketch = 11,
    /// A binary fuse filter with 8-bit fingerprints ([`fuse`](crate::fuse)): parameters
    /// `SEGMENT_LENGTH`, `SEGMENT_COUNT`, `KEYS`.
    BinaryFuse8 = 12,
    /// A binary fuse filter with 16-bit fingerprints ([`fuse`](crate::fuse)): parameters as
    /// [`BinaryFuse8`](Self::BinaryFuse8).
    BinaryFuse16 = 13,
}

impl SketchKind {
    /// The kind with this byte, if it is one.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::wire::SketchKind::from_u8(0), None);
    /// ```
    #[must_use]
    pub const fn from_u8(b: u8) -> Option<Self> {
        match b {
            1 => Some(Self::Bloom),
            2 => Some(Self::MicroBloom),
            3 => Some(Self::MicroBloom32),
            4 => Some(Self::HyperLogLog),
            5 => Some(Self::CountMin),
            8 => Some(Self::CountingBloom),
            9 => Some(Self::CuckooFilter),
            6 => Some(Self::TopK),
            7 => Some(Self::SpaceSaving),
            10 => Some(Self::BlockedBloom),
            11 => Some(Self::QuantileSketch),
            12 => Some(Self::BinaryFuse8),
            13 => Some(Self::BinaryFuse16),
            _ => None,
        }
    }

    /// The type's name.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::wire::SketchKind::MicroBloom.name(), "MicroBloom");
    /// ```
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Bloom => "Bloom",
            Self::MicroBloom => "MicroBloom",
            Self::MicroBloom32 => "MicroBloom32",
            Self::HyperLogLog => "HyperLogLog",
            Self::CountMin => "CountMin",
            Self::CountingBloom => "CountingBloom",
            Self::CuckooFilter => "CuckooFilter",
            Self::TopK => "TopK",
            Self::SpaceSaving => "SpaceSaving",
            Self::BlockedBloom => "BlockedBloom",
            Self::QuantileSketch => "QuantileSketch",
            Self::BinaryFuse8 => "BinaryFuse8",
            Self::BinaryFuse16 => "BinaryFuse16",
        }
    }

    /// The format version this library writes for this kind: the version its body last changed in.
    /// Kinds keep writing their version when another kind's body changes, so that their bytes stay
    /// the same from release to release.
    ///
    /// ```
    /// use sketch_nostd::wire::{SketchKind, FORMAT_VERSION};
    /// assert_eq!(SketchKind::CountMin.format_version(), FORMAT_VERSION);
    /// assert_eq!(SketchKind::Bloom.format_version(), 2);
    /// ```
    #[must_use]
    pub const fn format_version(self) -> u8 {
        match self {
            Self::CountMin | Self::TopK => 3,
            _ => 2,
        }
    }

    /// The oldest format version this library reads for this kind: 3 for count-min and top-k (whose
    /// earlier bytes put keys in other columns, see [`FORMAT_VERSION`]), else
    /// [`MIN_FORMAT_VERSION`]. Older bytes are refused with [`WireError::UnsupportedVersion`](super::WireError::UnsupportedVersion).
    ///
    /// ```
    /// use sketch_nostd::wire::SketchKind;
    /// assert_eq!(SketchKind::TopK.min_format_version(), 3);
    /// assert_eq!(SketchKind::HyperLogLog.min_format_version(), 1);
    /// ```
    #[must_use]
    pub const fn min_format_version(self) -> u8 {
        match self {
            Self::CountMin | Self::TopK => 3,
            _ => MIN_FORMAT_VERSION,
        }
    }

    /// The names of the parameters the envelope carries for this kind, in order.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::wire::SketchKind::MicroBloom32.param_names(), &["K"]);
    /// ```
    #[must_use]
    pub const fn param_names(self) -> &'static [&'static str] {
        match self {
            Self::Bloom | Self::CountingBloom => &["WORDS", "K"],
            Self::MicroBloom | Self::MicroBloom32 => &["K"],
            Self::HyperLogLog => &["P"],
            Self::CountMin => &["W", "D", "COUNTER_BYTES", "CONSERVATIVE"],
            Self::CuckooFilter => &["BUCKETS", "FINGERPRINT_BITS"],
            Self::TopK => &["K", "W", "D", "COUNTER_BYTES", "CONSERVATIVE", "KEY"],
            Self::SpaceSaving => &["K", "COUNTER_BYTES", "KEY"],
            Self::BlockedBloom => &["BLOCKS", "K"],
            Self::QuantileSketch => &["SUB", "BUCKETS", "COUNTER_BYTES"],
            Self::BinaryFuse8 | Self::BinaryFuse16 => &["SEGMENT_LENGTH", "SEGMENT_COUNT", "KEYS"],
        }
    }
}
