//! Zero-copy views: Bloom, blocked Bloom and counting Bloom filters queried straight from their
//! encoded bytes.
//!
//! A filter built on a host and shipped as bytes (in flash, in a downloaded file) can answer without
//! being decoded into a value: [`BloomRef`], [`BlockedBloomRef`] and [`CountingBloomRef`] borrow the
//! encoding, check its
//! envelope and length once when they are made, and then read one byte per probe. A 1 MB filter in
//! a microcontroller's flash costs no RAM, and a view answers every query exactly as the filter it
//! was encoded from.
//!
//! Views need the **dense** body (tag `0`: every word as 8 little-endian bytes), the only one whose
//! bit `i` sits at a fixed place (byte `i / 8`, bit `i % 8` of the body). [`wire::encode`](super::encode)
//! writes whichever body is smallest, which for a filter at its design load (about half the bits
//! set) is the dense one, but for an emptier filter is the zero-run or sparse body (for a counting
//! filter, usually the two-bit body); [`encode_view`]
//! always writes the dense body. Its bytes are an ordinary version-2 encoding that every decoder
//! reads ([`wire::decode`](super::decode) gives the same filter back), so no new format version was
//! needed; a view of another body is refused with [`WireError::BadEncoding`].
//!
//! A view and the owned filter run the same test (`crate::lookup` for the Bloom and counting
//! filters, `blocked::kernel` for the blocked one) over their own storage, words or bytes.
//! [`CuckooFilterRef`](super::CuckooFilterRef) (in `wire/cuckoo.rs`, next to its codec) does the
//! same for a cuckoo filter's dense body.
//!
//! ```
//! use sketch_nostd::{wire::{self, BloomRef, Wire}, Bloom};
//!
//! type Urls = Bloom<64, 5>;
//! let mut host = Urls::with_seed(3);
//! host.insert("https://bad.example/");
//! let mut buf = [0u8; Urls::MAX_ENCODED_LEN];
//! let bytes = wire::encode_view(&host, &mut buf)?; // shipped as a file, burnt into flash, …
//!
//! let view = BloomRef::new(bytes)?; // checked once, nothing copied
//! assert!(view.contains("https://bad.example/"));
//! assert_eq!(view.contains("https://good.example/"), host.contains("https://good.example/"));
//! assert!(BloomRef::new(&bytes[..bytes.len() - 1]).is_err()); // truncated: refused
//! # Ok::<(), sketch_nostd::WireError>(())
//! ```

use super::codec::{read_header, write_envelope, Sink, SliceSource};
use super::send::Out;
use super::{SketchKind, Wire};
use crate::blocked::block_contains_le;
use crate::hash::{hash64, Key};
use crate::lookup::{bloom_contains, counting_contains};
use crate::wire::WireError;
use crate::{BlockedBloom, Bloom, CountingBloom};

/// The dense body tag (as in `wire/bloom.rs`).
const DENSE: u8 = 0;

/// The most words a Bloom filter has (`WORDS < 2^26`), and the most blocks a blocked one has.
const MAX_UNITS: u64 = (1 << 26) - 1;
/// The most words a counting Bloom filter has (`WORDS < 2^28`).
const MAX_COUNTING_WORDS: u64 = (1 << 28) - 1;

/// A filter type a view can be made of, for [`encode_view`]: [`Bloom`], [`BlockedBloom`],
/// [`CountingBloom`] and [`CuckooFilter`](crate::CuckooFilter). Sealed (its method writes into the
/// crate's own sink).
pub trait Viewable: Wire {
    /// Writes the body a view reads (everything after the envelope): for the Bloom filters the
    /// dense tag and every word as 8 little-endian bytes, for the cuckoo filter the victim, the
    /// dense tag and every slot.
    #[doc(hidden)]
    fn write_view_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error>;
}

/// The dense body of the Bloom filters: the tag, then every word as 8 little-endian bytes.
fn dense_words<S: Sink>(s: &mut S, mut words: impl Iterator<Item = u64>) -> Result<(), S::Error> {
    s.byte(DENSE)?;
    words.try_for_each(|w| s.u64_le(w))
}

impl<const WORDS: usize, const K: u32> Viewable for Bloom<WORDS, K> {
    fn write_view_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        dense_words(s, self.as_words().iter().copied())
    }
}

impl<const BLOCKS: usize, const K: u32> Viewable for BlockedBloom<BLOCKS, K> {
    fn write_view_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        dense_words(s, self.as_blocks().iter().flat_map(|b| b.0))
    }
}

impl<const WORDS: usize, const K: u32> Viewable for CountingBloom<WORDS, K> {
    fn write_view_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        dense_words(s, self.as_words().iter().copied())
    }
}

/// Encodes a [`Bloom`], [`BlockedBloom`], [`CountingBloom`] or [`CuckooFilter`](crate::CuckooFilter)
/// with the dense body, the encoding that [`BloomRef`], [`BlockedBloomRef`], [`CountingBloomRef`] and
/// [`CuckooFilterRef`](super::CuckooFilterRef) query in place, and returns the bytes written
/// ([`Wire::MAX_ENCODED_LEN`] bytes at most, the envelope's seed being a varint). The bytes are a
/// valid encoding for every decoder: [`decode`](super::decode) gives the filter back.
///
/// ```
/// use sketch_nostd::{wire::{self, Wire}, Bloom};
/// let f = Bloom::<4, 2>::with_seed(9); // empty: `encode` would write 1 body byte
/// let mut buf = [0u8; Bloom::<4, 2>::MAX_ENCODED_LEN];
/// let bytes = wire::encode_view(&f, &mut buf)?;
/// assert_eq!(bytes.len(), 7 + 1 + 32); // envelope ("SK", version, kind, WORDS, K, seed), tag, 4 words
/// assert_eq!(wire::decode::<Bloom<4, 2>>(bytes)?, f);
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
///
/// # Errors
/// [`WireError::BufferTooSmall`] if `buf` is shorter than the encoding.
pub fn encode_view<'a, T: Viewable>(sketch: &T, buf: &'a mut [u8]) -> Result<&'a [u8], WireError> {
    let mut s = Out::new(buf);
    write_envelope::<T, _>(&mut s, sketch.wire_seed())?;
    sketch.write_view_body(&mut s)?;
    Ok(s.finish()?)
}

/// Reads the envelope of a `kind` filter with two parameters (`units`, `K`) and a dense body of
/// `unit_bytes` bytes per unit; returns `(units, K, seed, body)`.
fn open(
    bytes: &[u8],
    kind: SketchKind,
    (unit_bytes, max_units): (usize, u64),
    max_k: u64,
) -> Result<(u32, u32, u64, &[u8]), WireError> {
    let mut src = SliceSource::new(bytes);
    let header = read_header(&mut src);
    let (header, rest) = src.finish(header)?;
    if header.kind != kind {
        return Err(WireError::WrongKind {
            expected: kind,
            found: header.kind as u8,
        });
    }
    let [units, k, ..] = header.params;
    if !(1..=max_units).contains(&units) {
        return Err(WireError::BadEncoding {
            what: "filter size out of range",
        });
    }
    if !(1..=max_k).contains(&k) {
        return Err(WireError::BadEncoding {
            what: "filter K out of range",
        });
    }
    let (&tag, body) = rest.split_first().ok_or(WireError::Truncated)?;
    if tag != DENSE {
        return Err(WireError::BadEncoding {
            what: "a view needs the dense body (write it with wire::encode_view)",
        });
    }
    // units < 2^26 and unit_bytes ≤ 64, or units < 2^28 and unit_bytes = 8: the product fits in
    // usize on every target.
    let len = units as usize * unit_bytes;
    match body.len().cmp(&len) {
        core::cmp::Ordering::Less => Err(WireError::Truncated),
        core::cmp::Ordering::Greater => Err(WireError::TrailingBytes),
        core::cmp::Ordering::Equal => Ok((units as u32, k as u32, header.seed, body)),
    }
}

/// The doc example of a `view_shell!` method: a view of an empty `$Filter<2, 3>` made with
/// `$Filter::$ctor`, then the line `$check`.
macro_rules! view_example {
    ($Name:ident, $Filter:ident, $ctor:literal, $check:expr) => {
        concat!(
            "```\n# use sketch_nostd::{wire::{self, ",
            stringify!($Name),
            ", Wire}, ",
            stringify!($Filter),
            "};\n# let mut buf = [0u8; ",
            stringify!($Filter),
            "::<2, 3>::MAX_ENCODED_LEN];\nlet view = ",
            stringify!($Name),
            "::new(wire::encode_view(&",
            stringify!($Filter),
            "::<2, 3>::",
            $ctor,
            ", &mut buf)?)?;\n",
            $check,
            "\n# Ok::<(), sketch_nostd::WireError>(())\n```"
        )
    };
}

/// The shell of a view ([`BloomRef`], [`BlockedBloomRef`], [`CountingBloomRef`]): the type
/// `$Name<'a>` holding the dense body, its size `$size` (also its accessor, documented by
/// `$size_doc`), `K` and the seed, and what all three answer alike: `contains`, `seed`, `hashes` and
/// the size. The type's own `impl` writes `new` (the envelope check) and `contains_hash` (the
/// filter's test over the body). The doc examples view an empty `$Filter<2, 3>`, whose size is
/// `$size_value`.
macro_rules! view_shell {
    (
        $(#[$doc:meta])*
        $Name:ident of $Filter:ident { $size:ident = $size_value:literal: $size_doc:literal }
        body: [$Unit:ty]
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq)]
        pub struct $Name<'a> {
            body: &'a [$Unit],
            $size: u32,
            k: u32,
            seed: u64,
        }

        /// The filter's parameters and the body's length, not its bytes.
        impl core::fmt::Debug for $Name<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($Name))
                    .field(stringify!($size), &self.$size)
                    .field("hashes", &self.k)
                    .field("seed", &self.seed)
                    .field("body_len", &self.body.len())
                    .finish()
            }
        }

        impl $Name<'_> {
            #[doc = concat!("`false` if the key was definitely never inserted, `true` if it may \
                have been: the answer of [`", stringify!($Filter), "::contains`] on the encoded \
                filter.")]
            ///
            #[doc = view_example!($Name, $Filter, "new()", "assert!(!view.contains(\"anything\"));")]
            #[inline]
            #[must_use]
            pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
                self.contains_hash(hash64(key, self.seed))
            }

            /// The seed keys are hashed with.
            ///
            #[doc = view_example!($Name, $Filter, "with_seed(5)", "assert_eq!(view.seed(), 5);")]
            #[must_use]
            pub const fn seed(&self) -> u64 {
                self.seed
            }

            #[doc = $size_doc]
            ///
            #[doc = view_example!($Name, $Filter, "new()", concat!("assert_eq!(view.", stringify!($size), "(), ", $size_value, ");"))]
            #[must_use]
            pub const fn $size(&self) -> u32 {
                self.$size
            }

            /// The number of hashes, `K`: the bits or counters a key probes.
            ///
            #[doc = view_example!($Name, $Filter, "new()", "assert_eq!(view.hashes(), 3);")]
            #[must_use]
            pub const fn hashes(&self) -> u32 {
                self.k
            }
        }
    };
}

view_shell! {
    /// A [`Bloom`] filter read in place from its dense encoding ([`encode_view`]): validated once by
    /// [`new`](Self::new), then queried without copying, answering exactly as the encoded filter. Its
    /// size and `K` come from the envelope, so one view type reads any `Bloom<WORDS, K>`.
    ///
    /// ```
    /// use sketch_nostd::{wire::{self, BloomRef, Wire}, Bloom};
    /// let mut f = Bloom::<16, 4>::with_seed(1);
    /// f.insert(&42u64);
    /// let mut buf = [0u8; Bloom::<16, 4>::MAX_ENCODED_LEN];
    /// let view = BloomRef::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains(&42u64));
    /// assert_eq!((view.bits(), view.hashes(), view.seed()), (1024, 4, 1));
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    BloomRef of Bloom { bits = "128": "The number of bits, `m = 64·WORDS`." }
    body: [u8]
}

impl<'a> BloomRef<'a> {
    /// A view of the encoded [`Bloom`] filter in `bytes` (exactly one sketch, dense body).
    ///
    /// ```
    /// use sketch_nostd::{wire::BloomRef, WireError};
    /// assert_eq!(BloomRef::new(b"nope"), Err(WireError::BadMagic));
    /// ```
    ///
    /// # Errors
    /// Envelope errors as for [`decode`](super::decode) ([`WireError::BadMagic`],
    /// [`WireError::UnsupportedVersion`], [`WireError::WrongKind`] for another sketch, …),
    /// [`WireError::BadEncoding`] for a size out of range, `K` outside `1..=32` or a body other than
    /// the dense one, [`WireError::Truncated`] or
    /// [`WireError::TrailingBytes`] if the body is not exactly `8·WORDS` bytes.
    pub fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        let (words, k, seed, body) = open(bytes, SketchKind::Bloom, (8, MAX_UNITS), 32)?;
        Ok(Self {
            body,
            bits: 64 * words,
            k,
            seed,
        })
    }

    /// [`contains`](Self::contains) for a hash computed by the caller ([`hash64`] with
    /// [`seed`](Self::seed)), as [`Bloom::contains_hash`].
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, BloomRef, Wire}, Bloom};
    /// let mut f = Bloom::<2, 3>::new();
    /// f.insert_hash(77);
    /// # let mut buf = [0u8; Bloom::<2, 3>::MAX_ENCODED_LEN];
    /// let view = BloomRef::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains_hash(77));
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // Bloom::contains_hash's own test (crate::lookup), over the body's bytes.
        bloom_contains(self.body, self.bits, self.k, hash)
    }
}

view_shell! {
    /// A [`BlockedBloom`] filter read in place from its dense encoding ([`encode_view`]): validated
    /// once by [`new`](Self::new), then queried without copying (one 64-byte block read per lookup),
    /// answering exactly as the encoded filter. Its size and `K` come from the envelope.
    ///
    /// The bytes need no alignment: the view reads single bytes, so a body at any offset of a file or
    /// of flash works.
    ///
    /// ```
    /// use sketch_nostd::{wire::{self, BlockedBloomRef, Wire}, BlockedBloom};
    /// let mut f = BlockedBloom::<8, 8>::with_seed(2);
    /// f.insert("https://bad.example/");
    /// let mut buf = [0u8; BlockedBloom::<8, 8>::MAX_ENCODED_LEN];
    /// let view = BlockedBloomRef::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains("https://bad.example/"));
    /// assert_eq!((view.blocks(), view.hashes()), (8, 8));
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    BlockedBloomRef of BlockedBloom { blocks = "2": "The number of 512-bit blocks." }
    body: [[u8; 64]]
}

impl<'a> BlockedBloomRef<'a> {
    /// A view of the encoded [`BlockedBloom`] filter in `bytes` (exactly one sketch, dense body).
    ///
    /// ```
    /// use sketch_nostd::{wire::{self, BlockedBloomRef, Wire}, Bloom, WireError};
    /// let mut buf = [0u8; Bloom::<8, 3>::MAX_ENCODED_LEN];
    /// let bloom = wire::encode_view(&Bloom::<8, 3>::new(), &mut buf)?;
    /// assert!(matches!(BlockedBloomRef::new(bloom), Err(WireError::WrongKind { .. })));
    /// # Ok::<(), WireError>(())
    /// ```
    ///
    /// # Errors
    /// As [`BloomRef::new`], with `K` in `1..=8` and a body of exactly `64·BLOCKS` bytes.
    pub fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        let (blocks, k, seed, body) = open(bytes, SketchKind::BlockedBloom, (64, MAX_UNITS), 8)?;
        // `open` checked that the body is exactly `64·blocks` bytes: no remainder.
        let (body, _) = body.as_chunks::<64>();
        Ok(Self {
            body,
            blocks,
            k,
            seed,
        })
    }

    /// [`contains`](Self::contains) for a hash computed by the caller, as
    /// [`BlockedBloom::contains_hash`].
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, BlockedBloomRef, Wire}, BlockedBloom};
    /// let mut f = BlockedBloom::<2, 8>::new();
    /// f.insert_hash(0xabcd_ef01_2345_6789);
    /// # let mut buf = [0u8; BlockedBloom::<2, 8>::MAX_ENCODED_LEN];
    /// let view = BlockedBloomRef::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains_hash(0xabcd_ef01_2345_6789));
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    // Always inlined where the kernel has a wide (AVX2) form: the compiler's own choice left it a
    // call per lookup at x86-64-v3 (1.2x `sbbf-rs-safe` against 0.9x for the owned filter).
    #[cfg_attr(
        any(target_feature = "avx2", all(feature = "std", target_arch = "x86_64")),
        inline(always)
    )]
    #[cfg_attr(
        not(any(target_feature = "avx2", all(feature = "std", target_arch = "x86_64"))),
        inline
    )]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // The owned filter's kernel (crate::blocked::kernel), over the block's little-endian words.
        // The body held as 64-byte blocks (split once by `new`): the block count is the slice's
        // length (equal to `self.blocks`, checked by `new`, below 2^26), and the index is
        // `hash::reduce(hash >> 32, blocks)` computed on that length itself, so a lookup loop
        // keeps one value live for the multiply and the range check across the kernel's call.
        let block = (((hash >> 32) * self.body.len() as u64) >> 32) as usize;
        self.body
            .get(block)
            .is_some_and(|block| block_contains_le(block, hash as u32, self.k))
    }
}

view_shell! {
    /// A [`CountingBloom`] filter read in place from its dense encoding ([`encode_view`]: every word
    /// as 8 little-endian bytes, counter `i` in the low or high nibble of byte `i / 2`), validated once
    /// by [`new`](Self::new), then queried without copying: [`contains`](Self::contains) answers
    /// exactly as the encoded filter's. For a counting filter kept only to be queried on a device (the
    /// host removes keys and ships the result); the dense body takes 4 bits per counter where `encode`
    /// may pick the two-bit body, 46% smaller at the design load.
    ///
    /// ```
    /// use sketch_nostd::{wire::{self, CountingBloomRef, Wire}, CountingBloom};
    /// let mut f = CountingBloom::<16, 4>::with_seed(8);
    /// f.insert("https://bad.example/");
    /// f.insert("https://fixed.example/");
    /// f.remove("https://fixed.example/").expect("was inserted");
    /// let mut buf = [0u8; CountingBloom::<16, 4>::MAX_ENCODED_LEN];
    /// let view = CountingBloomRef::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains("https://bad.example/"));
    /// assert_eq!(view.contains("https://fixed.example/"), f.contains("https://fixed.example/"));
    /// assert_eq!((view.counters(), view.hashes(), view.seed()), (256, 4, 8));
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    CountingBloomRef of CountingBloom { counters = "32": "The number of 4-bit counters, `16·WORDS`." }
    body: [u8]
}

impl<'a> CountingBloomRef<'a> {
    /// A view of the encoded [`CountingBloom`] filter in `bytes` (exactly one sketch, dense body).
    ///
    /// ```
    /// use sketch_nostd::{wire::{self, CountingBloomRef, Wire}, Bloom, WireError};
    /// let mut buf = [0u8; Bloom::<8, 3>::MAX_ENCODED_LEN];
    /// let bloom = wire::encode_view(&Bloom::<8, 3>::new(), &mut buf)?;
    /// assert!(matches!(CountingBloomRef::new(bloom), Err(WireError::WrongKind { .. })));
    /// # Ok::<(), WireError>(())
    /// ```
    ///
    /// # Errors
    /// As [`BloomRef::new`], with `WORDS` in `1..2^28`, `K` in `1..=32` and a body of exactly
    /// `8·WORDS` bytes; the two-bit body that [`encode`](super::encode) may pick is refused with
    /// [`WireError::BadEncoding`].
    pub fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        let (words, k, seed, body) = open(
            bytes,
            SketchKind::CountingBloom,
            (8, MAX_COUNTING_WORDS),
            u64::from(crate::sizing::MAX_K),
        )?;
        Ok(Self {
            body,
            counters: 16 * words,
            k,
            seed,
        })
    }

    /// [`contains`](Self::contains) for a hash computed by the caller, as
    /// [`CountingBloom::contains_hash`].
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, CountingBloomRef, Wire}, CountingBloom};
    /// let mut f = CountingBloom::<4, 3>::new();
    /// f.insert_hash(31);
    /// # let mut buf = [0u8; CountingBloom::<4, 3>::MAX_ENCODED_LEN];
    /// let view = CountingBloomRef::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains_hash(31));
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // CountingBloom::contains_hash's own test (crate::lookup), over the body's bytes.
        counting_contains(self.body, self.counters, self.k, hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{decode, encode};

    #[test]
    fn debug_is_a_summary_not_the_body() {
        let mut buf = [0u8; Bloom::<512, 3>::MAX_ENCODED_LEN];
        let view = BloomRef::new(encode_view(&Bloom::<512, 3>::with_seed(4), &mut buf).unwrap());
        let text = format!("{:?}", view.unwrap());
        assert!(text.starts_with("BloomRef { bits: 32768, hashes: 3, seed: 4, body_len: 4096"));
        assert!(text.len() < 80, "{text}");
    }

    fn keys() -> impl Iterator<Item = u32> {
        0..3_000
    }

    #[test]
    fn bloom_view_answers_as_the_filter() {
        let mut f = Bloom::<40, 5>::with_seed(0x5eed);
        for k in (0..200u32).map(|i| i * 7) {
            f.insert(&k);
        }
        let mut buf = [0u8; Bloom::<40, 5>::MAX_ENCODED_LEN];
        let bytes = encode_view(&f, &mut buf).unwrap();
        assert_eq!(decode::<Bloom<40, 5>>(bytes).unwrap(), f);
        let view = BloomRef::new(bytes).unwrap();
        let (mut yes, mut no) = (0, 0);
        for k in keys() {
            assert_eq!(view.contains(&k), f.contains(&k), "{k}");
            if f.contains(&k) {
                yes += 1
            } else {
                no += 1
            }
        }
        // Both answers occur, so the comparison tested something.
        assert!(yes > 200 && no > 1_000, "{yes} {no}");
    }

    #[test]
    fn blocked_view_answers_as_the_filter() {
        fn check<const B: usize, const K: u32>(seed: u64, keys_in: u32) {
            let mut f = BlockedBloom::<B, K>::with_seed(seed);
            for k in 0..keys_in {
                f.insert(&(k * 11));
            }
            let mut buf = [0u8; 1024];
            let view = BlockedBloomRef::new(encode_view(&f, &mut buf).unwrap()).unwrap();
            let yes = keys().filter(|k| f.contains(k)).count();
            assert!(yes > keys_in as usize / 11 && yes < 3_000, "{yes}");
            assert!(keys().all(|k| view.contains(&k) == f.contains(&k)));
        }
        check::<6, 8>(4, 300);
        check::<5, 3>(u64::MAX, 200);
        check::<1, 1>(0, 30);
    }

    #[test]
    fn encode_view_equals_encode_when_dense_is_chosen() {
        let mut f = Bloom::<8, 3>::with_seed(300);
        for k in 0..400u32 {
            f.insert(&k);
        }
        let (mut a, mut b) = ([0u8; 128], [0u8; 128]);
        assert_eq!(
            encode(&f, &mut a).unwrap(),
            encode_view(&f, &mut b).unwrap()
        );
        let short = &mut [0u8; 20];
        assert_eq!(encode_view(&f, short), Err(WireError::BufferTooSmall));
    }

    #[test]
    fn every_truncation_and_other_bodies_are_refused() {
        let mut f = Bloom::<4, 3>::with_seed(1);
        f.insert("a");
        let mut buf = [0u8; 64];
        let bytes = encode_view(&f, &mut buf).unwrap();
        for n in 0..bytes.len() {
            assert!(BloomRef::new(&bytes[..n]).is_err(), "{n}");
        }
        let mut long = [0u8; 64];
        long[..bytes.len()].copy_from_slice(bytes);
        assert_eq!(
            BloomRef::new(&long[..bytes.len() + 1]),
            Err(WireError::TrailingBytes)
        );
        // The sparse body `encode` picks for a nearly empty filter cannot be viewed.
        let mut sparse = [0u8; 64];
        let sparse = encode(&f, &mut sparse).unwrap();
        assert!(matches!(
            BloomRef::new(sparse),
            Err(WireError::BadEncoding { .. })
        ));
    }

    #[test]
    fn counting_view_answers_as_the_filter() {
        let mut f = CountingBloom::<24, 4>::with_seed(77);
        for k in 0..180u32 {
            f.insert(&(k * 13));
        }
        // Removing half of them leaves counters of every size, and zeros where keys were.
        for k in (0..180u32).step_by(2) {
            f.remove(&(k * 13)).unwrap();
        }
        let mut buf = [0u8; CountingBloom::<24, 4>::MAX_ENCODED_LEN];
        let bytes = encode_view(&f, &mut buf).unwrap();
        assert_eq!(decode::<CountingBloom<24, 4>>(bytes).unwrap(), f);
        let view = CountingBloomRef::new(bytes).unwrap();
        let yes = keys().filter(|k| f.contains(k)).count();
        assert!(yes > 90 && yes < 2_000, "{yes}");
        assert!(keys().all(|k| view.contains(&k) == f.contains(&k)));
        for n in 0..bytes.len() {
            assert!(CountingBloomRef::new(&bytes[..n]).is_err(), "{n}");
        }
        assert!(matches!(
            BloomRef::new(bytes),
            Err(WireError::WrongKind { .. })
        ));
        // The two-bit body `encode` picks for a lightly loaded filter cannot be viewed.
        let mut light = CountingBloom::<24, 4>::with_seed(77);
        light.insert("one");
        let mut two_bit = [0u8; CountingBloom::<24, 4>::MAX_ENCODED_LEN];
        let two_bit = encode(&light, &mut two_bit).unwrap();
        assert!(CountingBloomRef::new(two_bit).is_err());
    }
}
