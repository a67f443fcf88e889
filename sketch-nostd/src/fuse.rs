//! Binary fuse filters (Graf & Lemire 2022): static membership filters near the space floor, built
//! on a host and queried in place from their bytes.
//!
//! A Bloom filter needs 1.44·log2(1/p) bits per key for a false-positive rate `p`; no filter can use
//! fewer than log2(1/p). A binary fuse filter stores one `F`-bit fingerprint per slot in an array of
//! about 1.13·n slots (for a million keys or more), so it needs about
//! 1.125·F bits per key for `p = 2^−F`: 9.0 bits per key at 0.39% with 8-bit fingerprints
//! (`BinaryFuse8`), 18 at 0.0015% with 16-bit ones (`BinaryFuse16`), where a Bloom filter
//! needs 11.5 and 23.0. Smaller sets need relatively more slots (as in the reference
//! implementation): 9.04 bits per key at 8 bits for 10^6 keys, 9.50 for 10^5, 10.24 for 10^4. The price: the key set is fixed when the filter is built (no insert), and
//! building needs the whole set in memory, so construction is behind the `alloc` feature, while
//! querying ([`BinaryFuseRef`]) is `no_std`, heap-free and zero-copy.
//!
//! A key is hashed with [`hash64`] and the filter's seed, as every filter of this crate does, then
//! mixed with the filter's construction seed ([`mix64`] of their sum). Three array positions, one in
//! each of three consecutive segments of `SEGMENT_LENGTH` slots, come from that value, and the key is
//! "maybe present" if the XOR of the three fingerprints there equals its own fingerprint (the value
//! XOR its upper half, truncated to `F` bits). Construction finds an assignment by peeling the
//! 3-hypergraph; it fails with a probability that falls quickly with `n` and is retried with the
//! next construction seed.
//!
//! # Wire format
//!
//! The envelope of the [wire format](crate::wire) (version 2 onwards) with kind
//! [`BinaryFuse8`](crate::wire::SketchKind::BinaryFuse8) (12) or
//! [`BinaryFuse16`](crate::wire::SketchKind::BinaryFuse16) (13), parameters `SEGMENT_LENGTH` (a
//! power of two, at most 2^18), `SEGMENT_COUNT` (at least 1) and `KEYS` (the number of distinct key
//! hashes, at most the array length), and the key hash seed; then the body:
//!
//! | field | encoding |
//! | --- | --- |
//! | construction seed | 8 bytes, little-endian |
//! | fingerprints | `(SEGMENT_COUNT + 2)·SEGMENT_LENGTH` of them, 1 byte (kind 12) or 2 little-endian bytes (kind 13) each |
//!
//! The body has a fixed layout so that a view reads fingerprint `i` at byte `8 + i·F/8` of the body;
//! nothing needs alignment.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use sketch_nostd::fuse::{BinaryFuse8, BinaryFuse8Ref};
//!
//! // On the host: a million URL prefixes would do; three here.
//! let filter = BinaryFuse8::from_keys(["https://ads.example/", "https://bad.example/", "x"], 7)
//!     .expect("built");
//! let bytes: &[u8] = filter.as_bytes(); // ship this file
//!
//! // On the device or in the browser: no copy, no heap.
//! let view = BinaryFuse8Ref::new(bytes)?;
//! assert!(view.contains("https://ads.example/"));
//! assert_eq!(view.contains("https://ok.example/"), filter.contains("https://ok.example/"));
//! # }
//! # Ok::<(), sketch_nostd::WireError>(())
//! ```

use core::marker::PhantomData;

use crate::hash::{hash64, mix64, Key};
use crate::wire::codec::{read_header, SliceSource};
use crate::wire::SketchKind;
use crate::wire::WireError;

/// The longest segment, as in the reference implementation.
pub const MAX_SEGMENT_LENGTH: u32 = 1 << 18;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
}

/// A fingerprint width: `u8` (8 bits, false-positive rate 2^−8 ≈ 0.39%) or `u16` (2^−16 ≈
/// 0.0015%). Sealed.
///
/// ```
/// use sketch_nostd::fuse::Fingerprint;
/// assert_eq!(<u16 as Fingerprint>::BYTES, 2);
/// ```
pub trait Fingerprint: sealed::Sealed + Copy + 'static {
    /// Bytes per fingerprint in the body.
    const BYTES: usize;
    /// The wire kind of a filter with these fingerprints.
    const KIND: SketchKind;
    /// Keeps the low `8·BYTES` bits.
    fn truncate(x: u64) -> u32;
}

impl Fingerprint for u8 {
    const BYTES: usize = 1;
    const KIND: SketchKind = SketchKind::BinaryFuse8;
    #[inline(always)]
    fn truncate(x: u64) -> u32 {
        u32::from(x as u8)
    }
}

impl Fingerprint for u16 {
    const BYTES: usize = 2;
    const KIND: SketchKind = SketchKind::BinaryFuse16;
    #[inline(always)]
    fn truncate(x: u64) -> u32 {
        u32::from(x as u16)
    }
}

/// Reads fingerprint `i` (little-endian, `F::BYTES` bytes) from a fingerprint array; `None` past
/// the end, which a validated view never reads.
#[inline(always)]
fn read_fp<F: Fingerprint>(fps: &[u8], i: usize) -> Option<u32> {
    if F::BYTES == 1 {
        fps.get(i).map(|&b| u32::from(b))
    } else {
        // As pairs of bytes: one range check of `i` and one unaligned 16-bit load (x86-64, wasm).
        fps.as_chunks::<2>()
            .0
            .get(i)
            .map(|&b| u32::from(u16::from_le_bytes(b)))
    }
}

/// The answer for a position past the end of the array, which a view's `new` rules out: `false`.
/// `#[cold]`, so the three reads are the straight path and each range check a branch never taken
/// (as an indexing panic's would be), not a jump around every load.
#[cold]
#[inline(never)]
fn past_the_end() -> bool {
    false
}

/// What a lookup reads: on 64-bit targets the fingerprint array as three windows, elsewhere
/// the array itself. The windows save the lookup two additions on its critical path (see
/// [`Layout::offsets`]) but take three slices where the array takes one; on a 32-bit MCU the
/// registers they need cost more code than the additions (Cortex-M0 router firmware: +364 B), so
/// 32-bit targets keep the one array and the positions.
#[cfg(target_pointer_width = "64")]
type Array<'a> = [&'a [u8]; 3];
/// What a lookup reads: on 64-bit targets the fingerprint array as three windows, elsewhere (here)
/// the array itself.
#[cfg(not(target_pointer_width = "64"))]
type Array<'a> = &'a [u8];

/// The fingerprint array (`(SEGMENT_COUNT + 2)·L` fingerprints of `F::BYTES` bytes) as three
/// windows of `SEGMENT_COUNT·L` fingerprints each, starting at positions 0, `L` and `2·L`: a key's
/// `k`-th fingerprint is at its `k`-th [offset](Layout::offsets) in window `k`, so the `+ k·L` is in
/// the window's start, computed once, not in every lookup. `None` if `fps` is too short (a
/// validated array never is).
#[cfg(target_pointer_width = "64")]
#[inline(always)]
fn array<'a, F: Fingerprint>(fps: &'a [u8], layout: &Layout) -> Option<Array<'a>> {
    // No overflow where it matters: a window that fits in `fps` ends below `fps.len()`.
    let n = (layout.segment_count_length as usize).checked_mul(F::BYTES)?;
    let l = layout.segment_length as usize * F::BYTES;
    Some([
        fps.get(..n)?,
        fps.get(l..l.checked_add(n)?)?,
        fps.get(2 * l..(2 * l).checked_add(n)?)?,
    ])
}

/// The fingerprint array as it is (32-bit targets; see [`Array`]).
#[cfg(not(target_pointer_width = "64"))]
#[inline(always)]
#[allow(clippy::unnecessary_wraps, clippy::extra_unused_type_parameters)] // the 64-bit form's signature
fn array<'a, F: Fingerprint>(fps: &'a [u8], _layout: &Layout) -> Option<Array<'a>> {
    Some(fps)
}

/// The lookup of a key hash in a filter's [`array()`].
#[inline(always)]
fn lookup<F: Fingerprint>(layout: &Layout, array: Array<'_>, hash: u64) -> bool {
    let h = layout.mix(hash);
    let fp = F::truncate(Layout::fingerprint(h));
    // 64-bit: offsets into the three windows, each one XOR after the multiply.
    #[cfg(target_pointer_width = "64")]
    let ([a, b, c], [w0, w1, w2]) = (layout.offsets(h), array);
    // 32-bit: the positions in the one array.
    #[cfg(not(target_pointer_width = "64"))]
    let ([a, b, c], [w0, w1, w2]) = (layout.positions(h).map(|p| p as usize), [array; 3]);
    let Some(x) = read_fp::<F>(w0, a) else {
        return past_the_end();
    };
    let Some(y) = read_fp::<F>(w1, b) else {
        return past_the_end();
    };
    let Some(z) = read_fp::<F>(w2, c) else {
        return past_the_end();
    };
    fp == x ^ y ^ z
}

/// ⌊h·c / 2^64⌋ with 64-bit products only, for 32-bit targets (no 128-bit multiply helper on an
/// MCU): the high word of (hi·2^32 + lo)·c, which is hi·c + (lo·c >> 32) shifted down by 32 (the sum
/// is below 2^64 since c < 2^32).
#[cfg_attr(target_pointer_width = "64", allow(dead_code))] // 64-bit targets: in the tests only
#[inline(always)]
fn high_word(h: u64, c: u32) -> u32 {
    let c = u64::from(c);
    (((h >> 32) * c + (((h & 0xffff_ffff) * c) >> 32)) >> 32) as u32
}

/// The shape of a filter: everything a query needs besides the fingerprints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// The seed keys are hashed with ([`hash64`]).
    seed: u64,
    /// The construction seed mixed into every key hash.
    mix_seed: u64,
    segment_length: u32,
    /// `SEGMENT_COUNT · SEGMENT_LENGTH`: the range of the first position.
    segment_count_length: u32,
    /// Distinct keys the filter was built from.
    keys: u32,
}

impl Layout {
    /// The number of fingerprints, `(SEGMENT_COUNT + 2)·SEGMENT_LENGTH`.
    fn array_len(&self) -> u32 {
        self.segment_count_length + 2 * self.segment_length
    }

    /// The mixed hash of a key hash.
    #[inline(always)]
    fn mix(&self, hash: u64) -> u64 {
        mix64(hash.wrapping_add(self.mix_seed))
    }

    /// The first position of a mixed hash, `⌊h·SEGMENT_COUNT_LENGTH / 2^64⌋`: one widening multiply
    /// on a 64-bit CPU, [`high_word`] (three 64-bit multiplies) elsewhere; the same number.
    #[inline(always)]
    fn first(&self, h: u64) -> u32 {
        let c = self.segment_count_length;
        #[cfg(target_pointer_width = "64")]
        let h0 = ((u128::from(h) * u128::from(c)) >> 64) as u32;
        #[cfg(not(target_pointer_width = "64"))]
        let h0 = high_word(h, c);
        h0
    }

    /// The three positions of a mixed hash: one in each of three consecutive segments (the
    /// reference's form; construction uses it, lookups [`offsets`](Self::offsets)).
    #[cfg(any(feature = "alloc", not(target_pointer_width = "64")))]
    #[inline(always)]
    fn positions(&self, h: u64) -> [u32; 3] {
        let h0 = self.first(h);
        // `h0 + L`, then `+ L` again (as the reference does): no `2·L` to keep in a register.
        let mask = self.segment_length - 1;
        let next = h0 + self.segment_length;
        let h1 = next ^ ((h >> 18) as u32 & mask);
        let h2 = (next + self.segment_length) ^ (h as u32 & mask);
        [h0, h1, h2]
    }

    /// The three positions less `0`, `L` and `2·L`: where a lookup reads in the three windows of
    /// the [`array()`] (64-bit targets). `L` is a power of two and the masked bits are below it,
    /// so adding `L` (which changes no bit below it) and the XOR (which changes no bit above)
    /// commute: `(h0 + k·L) ^ m = (h0 ^ m) + k·L`. Each offset is then one XOR after the multiply
    /// (the positions take one or two additions more), and lies below `SEGMENT_COUNT_LENGTH` (a
    /// multiple of `L` above `h0`).
    #[cfg(target_pointer_width = "64")]
    #[inline(always)]
    fn offsets(&self, h: u64) -> [usize; 3] {
        // In `usize`: the reads index with these as they are (the bits above 32 are 0).
        let h0 = self.first(h) as usize;
        let mask = (self.segment_length - 1) as usize;
        [
            h0,
            h0 ^ ((h >> 18) as usize & mask),
            h0 ^ (h as usize & mask),
        ]
    }

    /// A mixed hash's fingerprint (not yet truncated).
    #[inline(always)]
    fn fingerprint(h: u64) -> u64 {
        h ^ (h >> 32)
    }
}

/// A binary fuse filter read in place from its encoding: validated once by [`new`](Self::new), then
/// queried without copying (three fingerprint reads per lookup). `no_std`, no heap.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use sketch_nostd::fuse::{BinaryFuse16, BinaryFuse16Ref};
/// let f = BinaryFuse16::from_keys((0..1_000u64).map(|i| i * 3), 0).expect("built");
/// let view = BinaryFuse16Ref::new(f.as_bytes())?;
/// assert!((0..1_000u64).all(|i| view.contains(&(i * 3))));
/// assert_eq!(view.len(), 1_000);
/// # }
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BinaryFuseRef<'a, F: Fingerprint> {
    layout: Layout,
    /// The fingerprint array as lookups read it.
    array: Array<'a>,
    _f: PhantomData<F>,
}

/// A view of a filter with 8-bit fingerprints (false-positive rate 2^−8 ≈ 0.39%).
pub type BinaryFuse8Ref<'a> = BinaryFuseRef<'a, u8>;
/// A view of a filter with 16-bit fingerprints (false-positive rate 2^−16 ≈ 0.0015%).
pub type BinaryFuse16Ref<'a> = BinaryFuseRef<'a, u16>;

impl<F: Fingerprint> core::fmt::Debug for BinaryFuseRef<'_, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BinaryFuseRef")
            .field("fingerprint_bits", &(8 * F::BYTES))
            .field("keys", &self.layout.keys)
            .field("slots", &self.layout.array_len())
            .field("seed", &self.layout.seed)
            .finish()
    }
}

impl<'a, F: Fingerprint> BinaryFuseRef<'a, F> {
    /// A view of the encoded filter in `bytes` (exactly one filter).
    ///
    /// ```
    /// use sketch_nostd::{fuse::BinaryFuse8Ref, WireError};
    /// assert_eq!(BinaryFuse8Ref::new(b"SK"), Err(WireError::Truncated));
    /// ```
    ///
    /// # Errors
    /// Envelope errors as for [`wire::decode`](crate::wire::decode) ([`WireError::BadMagic`],
    /// [`WireError::UnsupportedVersion`], [`WireError::WrongKind`] for another sketch or the other
    /// fingerprint width, …); [`WireError::BadEncoding`] for a segment length that is not a power of
    /// two up to 2^18, no segment, or an array longer than 2^32 − 1; [`WireError::Inconsistent`]
    /// for more keys than slots; [`WireError::Truncated`] or [`WireError::TrailingBytes`] if the
    /// body is not exactly the construction seed and the array.
    pub fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut src = SliceSource::new(bytes);
        let header = read_header(&mut src);
        let (header, body) = src.finish(header)?;
        if header.kind != F::KIND {
            return Err(WireError::WrongKind {
                expected: F::KIND,
                found: header.kind as u8,
            });
        }
        let [segment_length, segment_count, keys, ..] = header.params;
        if !segment_length.is_power_of_two() || segment_length > u64::from(MAX_SEGMENT_LENGTH) {
            return Err(WireError::BadEncoding {
                what: "binary fuse segment length is not a power of two up to 2^18",
            });
        }
        let array_len = segment_count
            .checked_add(2)
            .and_then(|s| s.checked_mul(segment_length))
            .filter(|&n| segment_count > 0 && n <= u64::from(u32::MAX))
            .ok_or(WireError::BadEncoding {
                what: "binary fuse segment count out of range",
            })?;
        if keys > array_len {
            return Err(WireError::Inconsistent {
                what: "more binary fuse keys than slots",
            });
        }
        let (seed_bytes, fingerprints) =
            body.split_first_chunk::<8>().ok_or(WireError::Truncated)?;
        // array_len < 2^32 and BYTES ≤ 2: no overflow in u64; compared in u64.
        let want = array_len * F::BYTES as u64;
        match (fingerprints.len() as u64).cmp(&want) {
            core::cmp::Ordering::Less => return Err(WireError::Truncated),
            core::cmp::Ordering::Greater => return Err(WireError::TrailingBytes),
            core::cmp::Ordering::Equal => {}
        }
        let layout = Layout {
            seed: header.seed,
            mix_seed: u64::from_le_bytes(*seed_bytes),
            segment_length: segment_length as u32,
            segment_count_length: (segment_count * segment_length) as u32,
            keys: keys as u32,
        };
        // The array is exactly (SEGMENT_COUNT + 2)·L fingerprints: the windows fit.
        let array = array::<F>(fingerprints, &layout).ok_or(WireError::Truncated)?;
        Ok(Self {
            layout,
            array,
            _f: PhantomData,
        })
    }

    /// `false` if the key is definitely not in the set the filter was built from, `true` if it may
    /// be (always for the keys it was built from).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use sketch_nostd::fuse::BinaryFuse8;
    /// let f = BinaryFuse8::from_keys(["a", "b"], 1).expect("built");
    /// assert!(f.view().contains("a"));
    /// # }
    /// ```
    #[inline]
    #[must_use]
    pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
        self.contains_hash(hash64(key, self.layout.seed))
    }

    /// [`contains`](Self::contains) for a key hashed by the caller with [`hash64`] and
    /// [`seed`](Self::seed).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// use sketch_nostd::{fuse::BinaryFuse8, hash::hash64};
    /// let f = BinaryFuse8::from_hashes(vec![hash64("a", 0)], 0).expect("built");
    /// assert!(f.view().contains_hash(hash64("a", 0)));
    /// # }
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        lookup::<F>(&self.layout, self.array, hash)
    }

    /// The seed keys are hashed with.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// let f = sketch_nostd::fuse::BinaryFuse8::from_keys(["a"], 9).expect("built");
    /// assert_eq!(f.view().seed(), 9);
    /// # }
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.layout.seed
    }

    /// The number of distinct keys (key hashes) the filter was built from.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// let f = sketch_nostd::fuse::BinaryFuse8::from_keys(["a", "a", "b"], 0).expect("built");
    /// assert_eq!(f.view().len(), 2);
    /// # }
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        self.layout.keys as usize
    }

    /// `true` if the filter was built from no key (it still answers "maybe" for 2^−F of all keys).
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// let f = sketch_nostd::fuse::BinaryFuse8::from_keys(core::iter::empty::<u64>(), 0).expect("built");
    /// assert!(f.view().is_empty());
    /// # }
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.layout.keys == 0
    }

    /// The fingerprint array's size in bits divided by the number of keys: the filter's cost per
    /// key (9.04 for 8-bit and 18.1 for 16-bit fingerprints and a million keys; more for smaller sets). Infinite for an
    /// empty filter.
    ///
    /// ```
    /// # #[cfg(feature = "alloc")] {
    /// let f = sketch_nostd::fuse::BinaryFuse8::from_keys(0..100_000u64, 0).expect("built");
    /// assert!(f.view().bits_per_key() < 9.6);
    /// # }
    /// ```
    #[must_use]
    pub fn bits_per_key(&self) -> f64 {
        f64::from(self.layout.array_len()) * (8 * F::BYTES) as f64 / f64::from(self.layout.keys)
    }
}

#[cfg(feature = "alloc")]
pub use build::{BinaryFuse, BinaryFuse16, BinaryFuse8};

#[cfg(feature = "alloc")]
mod build {
    use alloc::vec;
    use alloc::vec::Vec;
    use core::marker::PhantomData;

    use super::{BinaryFuseRef, Fingerprint, Layout, MAX_SEGMENT_LENGTH};
    use crate::error::BuildError;
    use crate::hash::{hash64, Key};
    use crate::wire::codec::{varint_len, Sink};
    use crate::wire::WireError;
    use crate::wire::MAGIC;

    /// Construction attempts before giving up. One attempt fails with a probability well below
    /// 1% beyond a few thousand keys (and about 10–20% for tiny sets), so 100 failures in a row
    /// do not happen by chance.
    const ATTEMPTS: u32 = 100;

    /// The first construction seed's SplitMix64 state (the reference implementation's), so the same
    /// keys always give the same bytes.
    const SEED_STATE: u64 = 0x726b_2b9d_438b_9d4d;

    /// A binary fuse filter built on a host (feature `alloc`): its encoding, held in one `Vec`, and
    /// the view that queries it. [`as_bytes`](Self::as_bytes) is what a device or a web page
    /// receives and reads in place with [`BinaryFuseRef`].
    ///
    /// ```
    /// use sketch_nostd::fuse::BinaryFuse8;
    /// let urls = ["https://a.example/", "https://b.example/"];
    /// let f = BinaryFuse8::from_keys(urls, 42).expect("built");
    /// assert!(urls.iter().all(|u| f.contains(*u)));
    /// assert_eq!(f.len(), 2);
    /// ```
    #[derive(Clone, PartialEq, Eq)]
    pub struct BinaryFuse<F: Fingerprint> {
        bytes: Vec<u8>,
        /// Where the fingerprints start in `bytes`.
        fingerprints_at: usize,
        layout: Layout,
        _f: PhantomData<F>,
    }

    /// A filter with 8-bit fingerprints: about 9 bits per key, false-positive rate 2^−8 ≈ 0.39%.
    pub type BinaryFuse8 = BinaryFuse<u8>;
    /// A filter with 16-bit fingerprints: about 18 bits per key, false-positive rate 2^−16.
    pub type BinaryFuse16 = BinaryFuse<u16>;

    impl<F: Fingerprint> core::fmt::Debug for BinaryFuse<F> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("BinaryFuse")
                .field("fingerprint_bits", &(8 * F::BYTES))
                .field("keys", &self.layout.keys)
                .field("slots", &self.layout.array_len())
                .field("seed", &self.layout.seed)
                .finish()
        }
    }

    /// Segment length and segment count for `n` keys, as in the reference implementation (Graf
    /// and Lemire's `binary_fuse_calculate_segment_length` and `_size_factor`, arity 3).
    fn shape(n: u32) -> Result<(u32, u32), BuildError> {
        let nf = f64::from(n);
        let segment_length = if n == 0 {
            4
        } else {
            let log = libm::floor(libm::log(nf) / libm::log(3.33) + 2.25) as u32;
            (1u32 << log.min(18)).min(MAX_SEGMENT_LENGTH)
        };
        let size_factor = if n <= 1 {
            0.0
        } else {
            libm::fmax(1.125, 0.875 + 0.25 * libm::log(1_000_000.0) / libm::log(nf))
        };
        let capacity = libm::round(nf * size_factor) as u64;
        let segments = capacity
            .div_ceil(u64::from(segment_length))
            .saturating_sub(2)
            .max(1);
        let slots = (segments + 2) * u64::from(segment_length);
        if slots > u64::from(u32::MAX) {
            return Err(BuildError::TooManyKeys);
        }
        Ok((segment_length, segments as u32))
    }

    /// SplitMix64's step: the construction seeds, one per attempt.
    fn next_seed(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        crate::hash::mix64(*state)
    }

    /// Writes the envelope into a `Vec`.
    struct VecSink<'a>(&'a mut Vec<u8>);

    impl Sink for VecSink<'_> {
        type Error = core::convert::Infallible;
        fn byte(&mut self, b: u8) -> Result<(), Self::Error> {
            self.0.push(b);
            Ok(())
        }
        fn varint(&mut self, mut v: u64) -> Result<(), Self::Error> {
            while v >= 0x80 {
                self.0.push(v as u8 | 0x80);
                v >>= 7;
            }
            self.0.push(v as u8);
            Ok(())
        }
    }

    impl<F: Fingerprint> BinaryFuse<F> {
        /// Builds a filter of `keys` (duplicates count once), hashed with `seed`.
        ///
        /// ```
        /// use sketch_nostd::fuse::BinaryFuse16;
        /// let f = BinaryFuse16::from_keys((0..10_000u32).map(|i| i * 2), 5).expect("built");
        /// assert!(f.contains(&4_000u32));
        /// assert!(f.bits_per_key() < 20.5);
        /// ```
        ///
        /// # Errors
        /// [`BuildError::TooManyKeys`] past about 3.8 billion distinct keys (the array is indexed
        /// by 32 bits), [`BuildError::NotFound`] if no attempt succeeded (see [`BuildError`]).
        pub fn from_keys<Q: Key>(
            keys: impl IntoIterator<Item = Q>,
            seed: u64,
        ) -> Result<Self, BuildError> {
            Self::from_hashes(keys.into_iter().map(|k| hash64(&k, seed)).collect(), seed)
        }

        /// Builds a filter of the keys whose [`hash64`] with `seed` are `hashes` (equal hashes count
        /// once).
        ///
        /// ```
        /// use sketch_nostd::{fuse::BinaryFuse8, hash::hash64};
        /// let f = BinaryFuse8::from_hashes(vec![hash64(&1u8, 3), hash64(&2u8, 3)], 3).expect("built");
        /// assert!(f.contains(&2u8));
        /// ```
        ///
        /// # Errors
        /// As [`from_keys`](Self::from_keys).
        pub fn from_hashes(mut hashes: Vec<u64>, seed: u64) -> Result<Self, BuildError> {
            hashes.sort_unstable();
            hashes.dedup();
            let n = u32::try_from(hashes.len()).map_err(|_| BuildError::TooManyKeys)?;
            let (segment_length, segment_count) = shape(n)?;
            let mut layout = Layout {
                seed,
                mix_seed: 0,
                segment_length,
                segment_count_length: segment_count * segment_length,
                keys: n,
            };
            let slots = layout.array_len() as usize;
            let mut count = vec![0u32; slots];
            let mut xor = vec![0u64; slots];
            let mut queue: Vec<u32> = Vec::new();
            let mut stack: Vec<(u64, u32)> = Vec::with_capacity(hashes.len());
            let mut state = SEED_STATE;
            for _ in 0..ATTEMPTS {
                layout.mix_seed = next_seed(&mut state);
                count.fill(0);
                xor.fill(0);
                queue.clear();
                stack.clear();
                for &hash in &hashes {
                    let h = layout.mix(hash);
                    for p in layout.positions(h) {
                        count[p as usize] += 1;
                        xor[p as usize] ^= h;
                    }
                }
                queue.extend((0..slots as u32).filter(|&p| count[p as usize] == 1));
                while let Some(p) = queue.pop() {
                    if count[p as usize] != 1 {
                        continue;
                    }
                    let h = xor[p as usize];
                    stack.push((h, p));
                    for q in layout.positions(h) {
                        let q = q as usize;
                        count[q] -= 1;
                        xor[q] ^= h;
                        if count[q] == 1 {
                            queue.push(q as u32);
                        }
                    }
                }
                if stack.len() == hashes.len() {
                    return Ok(Self::assign(layout, &stack));
                }
            }
            Err(BuildError::NotFound)
        }

        /// The encoding of the filter whose peeling order is `stack`: each key's slot gets the value
        /// that makes the XOR of its three slots its fingerprint, last peeled first.
        fn assign(layout: Layout, stack: &[(u64, u32)]) -> Self {
            let mut bytes = Vec::new();
            let mut s = VecSink(&mut bytes);
            let Ok(()) = (|| {
                s.bytes(&MAGIC)?;
                s.byte(F::KIND.format_version())?;
                s.byte(F::KIND as u8)?;
                s.varint(u64::from(layout.segment_length))?;
                s.varint(u64::from(
                    layout.segment_count_length / layout.segment_length,
                ))?;
                s.varint(u64::from(layout.keys))?;
                s.varint(layout.seed)?;
                s.bytes(&layout.mix_seed.to_le_bytes())
            })();
            let fingerprints_at = bytes.len();
            debug_assert_eq!(
                fingerprints_at,
                4 + [
                    u64::from(layout.segment_length),
                    u64::from(layout.segment_count_length / layout.segment_length),
                    u64::from(layout.keys),
                    layout.seed
                ]
                .map(varint_len)
                .iter()
                .sum::<usize>()
                    + 8
            );
            bytes.resize(fingerprints_at + layout.array_len() as usize * F::BYTES, 0);
            let fps = &mut bytes[fingerprints_at..];
            for &(h, p) in stack.iter().rev() {
                let [a, b, c] = layout.positions(h);
                // Slot `p` is one of the three and still 0.
                // (`fps` holds every position: the `unwrap_or` never applies.)
                let v = F::truncate(Layout::fingerprint(h))
                    ^ super::read_fp::<F>(fps, a as usize).unwrap_or(0)
                    ^ super::read_fp::<F>(fps, b as usize).unwrap_or(0)
                    ^ super::read_fp::<F>(fps, c as usize).unwrap_or(0);
                let at = p as usize * F::BYTES;
                for (i, byte) in fps[at..at + F::BYTES].iter_mut().enumerate() {
                    *byte = (v >> (8 * i)) as u8;
                }
            }
            Self {
                bytes,
                fingerprints_at,
                layout,
                _f: PhantomData,
            }
        }

        /// A copy of the encoded filter in `bytes` (as [`BinaryFuseRef::new`] validates it).
        ///
        /// ```
        /// use sketch_nostd::fuse::BinaryFuse8;
        /// let f = BinaryFuse8::from_keys(["a"], 0).expect("built");
        /// assert_eq!(BinaryFuse8::from_bytes(f.as_bytes())?, f);
        /// # Ok::<(), sketch_nostd::WireError>(())
        /// ```
        ///
        /// # Errors
        /// As [`BinaryFuseRef::new`].
        pub fn from_bytes(bytes: &[u8]) -> Result<Self, WireError> {
            let view = BinaryFuseRef::<F>::new(bytes)?;
            Ok(Self {
                bytes: bytes.to_vec(),
                fingerprints_at: bytes.len() - view.layout.array_len() as usize * F::BYTES,
                layout: view.layout,
                _f: PhantomData,
            })
        }

        /// The filter's encoding: what a device or a web page reads with [`BinaryFuseRef::new`].
        ///
        /// ```
        /// use sketch_nostd::fuse::BinaryFuse8;
        /// let f = BinaryFuse8::from_keys(["a"], 0).expect("built");
        /// assert_eq!(&f.as_bytes()[..4], b"SK\x02\x0c");
        /// ```
        #[must_use]
        pub fn as_bytes(&self) -> &[u8] {
            &self.bytes
        }

        /// The view that answers this filter's queries.
        ///
        /// ```
        /// use sketch_nostd::fuse::BinaryFuse8;
        /// let f = BinaryFuse8::from_keys(["a"], 0).expect("built");
        /// assert!(f.view().contains("a"));
        /// ```
        #[must_use]
        pub fn view(&self) -> BinaryFuseRef<'_, F> {
            let fps = self.bytes.get(self.fingerprints_at..).unwrap_or_default();
            BinaryFuseRef {
                layout: self.layout,
                // The array is exactly (SEGMENT_COUNT + 2)·L fingerprints: the windows fit.
                array: super::array::<F>(fps, &self.layout).unwrap_or_default(),
                _f: PhantomData,
            }
        }

        /// [`BinaryFuseRef::contains`].
        ///
        /// ```
        /// let f = sketch_nostd::fuse::BinaryFuse8::from_keys([1u64, 2], 0).expect("built");
        /// assert!(f.contains(&1u64));
        /// ```
        #[inline]
        #[must_use]
        pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
            self.contains_hash(hash64(key, self.layout.seed))
        }

        /// [`BinaryFuseRef::contains_hash`].
        ///
        /// ```
        /// use sketch_nostd::{fuse::BinaryFuse8, hash::hash64};
        /// let f = BinaryFuse8::from_keys([1u64], 0).expect("built");
        /// assert!(f.contains_hash(hash64(&1u64, 0)));
        /// ```
        #[inline]
        #[must_use]
        pub fn contains_hash(&self, hash: u64) -> bool {
            // Not through `view()`, whose fallback (empty windows, never taken) a lookup loop
            // would select on every key: here the fallback is the whole answer, a branch on
            // values the loop does not change, which the compiler takes out of the loop.
            let Some(array) = self
                .bytes
                .get(self.fingerprints_at..)
                .and_then(|fps| super::array::<F>(fps, &self.layout))
            else {
                return super::past_the_end();
            };
            super::lookup::<F>(&self.layout, array, hash)
        }

        /// [`BinaryFuseRef::len`].
        ///
        /// ```
        /// assert_eq!(sketch_nostd::fuse::BinaryFuse8::from_keys([1u64, 2], 0).expect("built").len(), 2);
        /// ```
        #[must_use]
        pub fn len(&self) -> usize {
            self.layout.keys as usize
        }

        /// [`BinaryFuseRef::is_empty`].
        ///
        /// ```
        /// assert!(!sketch_nostd::fuse::BinaryFuse8::from_keys([1u64], 0).expect("built").is_empty());
        /// ```
        #[must_use]
        pub fn is_empty(&self) -> bool {
            self.layout.keys == 0
        }

        /// [`BinaryFuseRef::seed`].
        ///
        /// ```
        /// assert_eq!(sketch_nostd::fuse::BinaryFuse8::from_keys([1u64], 3).expect("built").seed(), 3);
        /// ```
        #[must_use]
        pub fn seed(&self) -> u64 {
            self.layout.seed
        }

        /// [`BinaryFuseRef::bits_per_key`].
        ///
        /// ```
        /// let f = sketch_nostd::fuse::BinaryFuse16::from_keys(0..50_000u64, 0).expect("built");
        /// assert!(f.bits_per_key() < 19.7);
        /// ```
        #[must_use]
        pub fn bits_per_key(&self) -> f64 {
            self.view().bits_per_key()
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::high_word;
        use super::*;
        use crate::wire::WireError;

        #[test]
        fn first_position_is_the_high_word_of_the_product() {
            let mut layout = Layout {
                seed: 0,
                mix_seed: 0,
                segment_length: 1 << 18,
                segment_count_length: u32::MAX - (1 << 19),
                keys: 0,
            };
            for c in [1u32, 3, 1_000, 1 << 31, u32::MAX - (1 << 19)] {
                layout.segment_count_length = c;
                for h in [
                    0u64,
                    1,
                    u64::MAX,
                    0x8000_0000_0000_0000,
                    0xdead_beef_cafe_f00d,
                ] {
                    let want = ((u128::from(h) * u128::from(c)) >> 64) as u32;
                    assert_eq!(layout.positions(h)[0], want, "{h:#x} {c}");
                    assert_eq!(high_word(h, c), want, "32-bit form, {h:#x} {c}");
                }
            }
        }

        #[test]
        fn offsets_are_the_positions_less_whole_segments() {
            // Lookups read offset k in window k (which starts at position k·L); construction
            // writes at the positions. Small, middling and the largest segment lengths, with
            // one to 14,000 segments (3.7·10^9 slots, near the 32-bit limit); mixed hashes from
            // SplitMix64.
            let mut state = 1u64;
            for (l, count) in [
                (4u32, 1u32),
                (4, 3),
                (1 << 10, 7),
                (1 << 13, 139),
                (1 << 18, 1),
                (1 << 18, 14_000),
            ] {
                let layout = Layout {
                    seed: 0,
                    mix_seed: 0,
                    segment_length: l,
                    segment_count_length: count * l,
                    keys: 0,
                };
                for _ in 0..10_000 {
                    let h = next_seed(&mut state);
                    let [a, b, c] = layout.offsets(h);
                    let [a, b, c] = [a, b, c].map(|o| o as u32);
                    assert_eq!(
                        layout.positions(h),
                        [a, b + l, c + 2 * l],
                        "{h:#x} {l} {count}"
                    );
                    assert!(a.max(b).max(c) < count * l, "{h:#x} {l} {count}");
                }
            }
        }

        #[test]
        fn shape_follows_the_reference() {
            // Values of the reference C implementation (binaryfusefilter.h) for these sizes.
            assert_eq!(shape(0), Ok((4, 1)));
            assert_eq!(shape(1), Ok((4, 1)));
            for n in [2u32, 10, 100, 1_000, 10_000, 1_000_000] {
                let (l, c) = shape(n).unwrap();
                let slots = f64::from((c + 2) * l);
                assert!(l.is_power_of_two() && l <= MAX_SEGMENT_LENGTH);
                assert!(slots >= 1.125 * f64::from(n), "{n}: {slots}");
            }
            let (l, c) = shape(1_000_000).unwrap();
            assert_eq!(l, 1 << 13);
            // 1.125·10^6 rounded up to segments: 9.0 bits per key at 8 bits.
            assert!(f64::from((c + 2) * l) < 1.135e6);
        }

        #[test]
        fn every_key_is_found_and_the_rate_is_two_to_the_minus_f() {
            for n in [0u64, 1, 2, 3, 10, 100, 1_000, 20_000] {
                let f = BinaryFuse8::from_keys((0..n).map(|i| i * 3 + 1), 11).unwrap();
                assert_eq!(f.len(), n as usize);
                assert!((0..n).all(|i| f.contains(&(i * 3 + 1))), "{n}");
                let g = BinaryFuse16::from_keys((0..n).map(|i| i * 3 + 1), 11).unwrap();
                assert!((0..n).all(|i| g.contains(&(i * 3 + 1))), "{n}");
            }
            // 200,000 non-members of a 20,000-key filter: the false-positive count is
            // Binomial(200,000, 2^−8), mean 781, σ 28; ±5σ.
            let f = BinaryFuse8::from_keys((0..20_000u64).map(|i| i * 3 + 1), 11).unwrap();
            let fp = (0..200_000u64).filter(|i| f.contains(&(i * 3 + 2))).count();
            assert!((640..=922).contains(&fp), "{fp}");
            // 16 bits: mean 3.05; at most 15 (P(X ≥ 16) < 10⁻⁶ for Poisson(3.05)).
            let g = BinaryFuse16::from_keys((0..20_000u64).map(|i| i * 3 + 1), 11).unwrap();
            let fp = (0..200_000u64).filter(|i| g.contains(&(i * 3 + 2))).count();
            assert!(fp <= 15, "{fp}");
        }

        #[test]
        fn bytes_round_trip_and_views_refuse_other_widths() {
            let f = BinaryFuse16::from_keys(["x", "y", "z"], 1).unwrap();
            assert_eq!(BinaryFuse16::from_bytes(f.as_bytes()).unwrap(), f);
            assert!(matches!(
                BinaryFuse8::from_bytes(f.as_bytes()),
                Err(WireError::WrongKind { .. })
            ));
        }
    }
}
