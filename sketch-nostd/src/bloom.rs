//! The classic Bloom filter (Bloom 1970): `m` bits, `k` hashes, never a false negative.

use core::fmt;

use crate::error::MergeError;
#[cfg(feature = "wire")]
use crate::filter::load_zeroed;
use crate::filter::{cardinality_from_fill, combine, fp_rate_from_fill};
use crate::hash::{hash64, reduce, Key, Probe};

/// A Bloom filter of `64·WORDS` bits probed by `K` hashes, stored inline: no heap, no pointers.
///
/// `insert` sets `K` bits chosen by double hashing of one xxh3-64 hash; `contains` answers `false`
/// ("definitely not inserted") if any of them is clear and `true` ("maybe") otherwise. With `n` keys
/// inserted the false-positive rate is about (1 − e^(−Kn/m))^K; the [`sizing`](crate::sizing) functions
/// pick `WORDS` and `K` for a target rate at compile time.
///
/// `size_of::<Bloom<WORDS, K>>()` is `8·WORDS + 8`: the bits and the seed, nothing else. Filters of
/// different sizes or `K` are different types, so they cannot be combined by mistake; filters of the same
/// type with different seeds refuse to [`merge`](Self::merge) or [`intersect`](Self::intersect).
///
/// Invalid parameters do not compile: `WORDS` must be in `1..2^26` (so `m` fits in 32 bits) and `K` in
/// `1..=32`.
///
/// ```
/// use sketch_nostd::{sizing::{k_for, words_for}, Bloom};
///
/// let mut seen = Bloom::<{ words_for(1_000, 0.01) }, { k_for(1_000, 0.01) }>::with_seed(42);
/// assert!(seen.insert("GET /index.html")); // newly inserted
/// assert!(!seen.insert("GET /index.html")); // already there
/// seen.insert(&404u16);
///
/// assert!(seen.contains("GET /index.html"));
/// assert!(seen.contains(&404u16));
/// assert!(!seen.contains("GET /admin")); // "definitely not", with probability ≈ 99%
/// assert!(seen.estimated_fp_rate() < 1e-6); // almost empty
/// ```
///
/// A zero-sized or hash-less filter is rejected when the program is compiled:
///
/// ```compile_fail,E0080
/// let _ = sketch_nostd::Bloom::<0, 3>::new();
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Bloom<const WORDS: usize, const K: u32> {
    words: [u64; WORDS],
    seed: u64,
}

impl<const WORDS: usize, const K: u32> Bloom<WORDS, K> {
    /// Number of bits, `m = 64·WORDS`.
    pub const BITS: usize = 64 * WORDS;
    /// Number of hash functions, `k`.
    pub const HASHES: u32 = K;

    /// `m` as the `u32` that index reduction works with; `WORDS < 2^26` guarantees it fits.
    const M: u32 = {
        assert!(WORDS > 0, "a Bloom filter needs at least one 64-bit word");
        assert!(
            WORDS < 1 << 26,
            "a Bloom filter holds fewer than 2^32 bits (WORDS < 2^26)"
        );
        assert!(K > 0, "a Bloom filter needs at least one hash (K > 0)");
        assert!(
            K <= crate::sizing::MAX_K,
            "a Bloom filter uses at most 32 hashes"
        );
        (64 * WORDS) as u32
    };

    /// An empty filter with seed 0.
    ///
    /// ```
    /// let f = sketch_nostd::Bloom::<16, 4>::new();
    /// assert_eq!(f.count_ones(), 0);
    /// assert_eq!(f.seed(), 0);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_seed(0)
    }

    /// An empty filter whose hashes use `seed`. Only filters with equal seeds can be combined.
    ///
    /// ```
    /// let f = sketch_nostd::Bloom::<16, 4>::with_seed(0xfeed);
    /// assert_eq!(f.seed(), 0xfeed);
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        Self::from_parts([0; WORDS], seed)
    }

    /// A filter from its raw words and seed, as produced by [`as_words`](Self::as_words) and
    /// [`seed`](Self::seed). Every bit pattern is a valid filter.
    ///
    /// ```
    /// use sketch_nostd::Bloom;
    /// let mut a = Bloom::<2, 3>::with_seed(9);
    /// a.insert("x");
    /// let b = Bloom::<2, 3>::from_parts(*a.as_words(), a.seed());
    /// assert_eq!(a, b);
    /// ```
    #[must_use]
    pub const fn from_parts(words: [u64; WORDS], seed: u64) -> Self {
        let _ = Self::M; // evaluates the parameter checks at compile time
        Self { words, seed }
    }

    /// Replaces the words, in place, by what `fill` writes into them (zeroed first), and the seed by
    /// `seed` if `fill` succeeds; if it fails, the filter is left empty with its own seed. Every bit
    /// pattern is a valid filter. Crate-internal: for decoders that must not make a second
    /// filter-sized value (a Cortex-M0 has 16 KB of RAM).
    #[cfg(feature = "wire")]
    pub(crate) fn load<E>(
        &mut self,
        seed: u64,
        fill: impl FnOnce(&mut [u64; WORDS]) -> Result<(), E>,
    ) -> Result<(), E> {
        load_zeroed(&mut self.words, 0, (&mut self.seed, seed), fill)
    }

    /// The seed this filter hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Bloom::<1, 1>::with_seed(3).seed(), 3);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// The filter's bits, 64 to a word; bit `i` is bit `i % 64` of word `i / 64`.
    ///
    /// ```
    /// let f = sketch_nostd::Bloom::<2, 1>::new();
    /// assert_eq!(f.as_words(), &[0, 0]);
    /// ```
    #[must_use]
    pub const fn as_words(&self) -> &[u64; WORDS] {
        &self.words
    }

    /// Inserts a key. Returns `true` if the key was definitely new (at least one of its bits was
    /// clear), `false` if it may have been inserted before — the answer a log deduplicator needs.
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<16, 4>::new();
    /// assert!(f.insert(&7u32));
    /// assert!(!f.insert(&7u32));
    /// ```
    #[inline]
    pub fn insert<Q: Key + ?Sized>(&mut self, key: &Q) -> bool {
        self.insert_hash(hash64(key, self.seed))
    }

    /// Inserts a key by its 64-bit hash, for callers that hash themselves. Use a well-mixed hash (both
    /// 32-bit halves matter); [`hash64`] with this filter's seed gives the same result as
    /// [`insert`](Self::insert).
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, Bloom};
    /// let mut f = Bloom::<16, 4>::new();
    /// f.insert_hash(hash64("k", f.seed()));
    /// assert!(f.contains("k"));
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        // The key is new if any of its bits was clear, that is if any word changed: collecting the
        // changes (`old ^ new`) keeps one dependency-free OR per probe, 10% faster than testing each
        // bit before setting it.
        let probe = Probe::new(hash);
        let mut changed = 0u64;
        for i in 0..K {
            let bit = reduce(probe.nth(i), Self::M);
            if let Some(word) = self.words.get_mut((bit / 64) as usize) {
                let old = *word;
                *word = old | 1 << (bit % 64);
                changed |= *word ^ old;
            }
        }
        changed != 0
    }

    /// `false` if the key was definitely never inserted, `true` if it may have been.
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<16, 4>::new();
    /// f.insert("a");
    /// assert!(f.contains("a"));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
        self.contains_hash(hash64(key, self.seed))
    }

    /// [`contains`](Self::contains) for a hash computed by the caller (see
    /// [`insert_hash`](Self::insert_hash)).
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<16, 4>::new();
    /// f.insert_hash(0x1234_5678_9abc_def0);
    /// assert!(f.contains_hash(0x1234_5678_9abc_def0));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // Branch-free: all K words are read whatever they hold. An early exit mispredicts once per
        // absent key and serialises the cache misses of consecutive lookups; this measured faster for
        // both absent and present keys, in and out of cache (see benches/bloom.rs). Counting the set
        // bits, rather than AND-ing K booleans, compiles on x86-64 to one `bt` + `adc` per probe (the
        // carry flag is the bit): about 9% fewer instructions and as much less time per lookup.
        let probe = Probe::new(hash);
        let mut set = 0u32;
        for i in 0..K {
            let bit = reduce(probe.nth(i), Self::M);
            if let Some(word) = self.words.get((bit / 64) as usize) {
                set += ((word >> (bit % 64)) & 1) as u32;
            }
        }
        set == K
    }

    /// Clears every bit, keeping the seed. Clearing a log deduplicator need not be atomic: a reader
    /// that sees half-cleared words can only answer "definitely new" more often.
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<16, 4>::new();
    /// f.insert("a");
    /// f.clear();
    /// assert!(f.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.words = [0; WORDS];
    }

    /// `true` if no bit is set.
    ///
    /// ```
    /// assert!(sketch_nostd::Bloom::<4, 2>::new().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Adds every key of `other` to this filter (bitwise OR): afterwards it answers "maybe" for every
    /// key inserted into either. Fails, leaving `self` unchanged, if the seeds differ.
    ///
    /// ```
    /// use sketch_nostd::Bloom;
    /// let (mut a, mut b) = (Bloom::<16, 4>::with_seed(1), Bloom::<16, 4>::with_seed(1));
    /// a.insert("left");
    /// b.insert("right");
    /// a.merge(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        combine(
            (self.seed, other.seed),
            &mut self.words,
            &other.words,
            |a, b| a | b,
        )
    }

    /// Keeps only the bits set in both filters (bitwise AND): afterwards it answers "maybe" for every
    /// key inserted into both (and, as with any Bloom intersection, for somewhat more keys than a filter
    /// built from the common keys alone). Fails, leaving `self` unchanged, if the seeds differ.
    ///
    /// ```
    /// use sketch_nostd::Bloom;
    /// let (mut a, mut b) = (Bloom::<16, 4>::new(), Bloom::<16, 4>::new());
    /// a.insert("both");
    /// a.insert("only a");
    /// b.insert("both");
    /// a.intersect(&b)?;
    /// assert!(a.contains("both"));
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn intersect(&mut self, other: &Self) -> Result<(), MergeError> {
        combine(
            (self.seed, other.seed),
            &mut self.words,
            &other.words,
            |a, b| a & b,
        )
    }

    /// Number of bits set.
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<16, 4>::new();
    /// f.insert("a");
    /// assert!((1..=4).contains(&f.count_ones()));
    /// ```
    #[must_use]
    pub fn count_ones(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Fraction of bits set, in `0.0..=1.0`. Around one half is the design point of an optimally
    /// sized filter; well above means more keys than it was sized for.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Bloom::<16, 4>::new().fill_ratio(), 0.0);
    /// ```
    #[must_use]
    pub fn fill_ratio(&self) -> f64 {
        f64::from(self.count_ones()) / f64::from(Self::M)
    }

    /// The false-positive rate this filter has now: (bits set / m)^k, the probability that `k`
    /// independent positions all hit set bits.
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<16, 4>::new();
    /// assert_eq!(f.estimated_fp_rate(), 0.0);
    /// for i in 0..100u32 { f.insert(&i); }
    /// assert!(f.estimated_fp_rate() > 0.0 && f.estimated_fp_rate() < 1.0);
    /// ```
    #[must_use]
    pub fn estimated_fp_rate(&self) -> f64 {
        fp_rate_from_fill(self.fill_ratio(), K)
    }

    /// Estimated number of distinct keys inserted (Swamidass–Baldi): −(m/k)·ln(1 − X/m) with `X` bits
    /// set. Infinite once every bit is set.
    ///
    /// ```
    /// let mut f = sketch_nostd::Bloom::<1_000, 7>::new();
    /// for i in 0..5_000u32 { f.insert(&i); }
    /// let n = f.cardinality();
    /// assert!((n - 5_000.0).abs() < 250.0, "{n}");
    /// ```
    #[must_use]
    pub fn cardinality(&self) -> f64 {
        cardinality_from_fill(self.count_ones(), Self::M, K)
    }
}

/// Shows the shape, the seed and the bits set, not the words.
///
/// ```
/// let f = sketch_nostd::Bloom::<16, 4>::with_seed(3);
/// assert_eq!(format!("{f:?}"), "Bloom { words: 16, k: 4, seed: 3, ones: 0, .. }");
/// ```
impl<const WORDS: usize, const K: u32> fmt::Debug for Bloom<WORDS, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bloom")
            .field("words", &WORDS)
            .field("k", &K)
            .field("seed", &self.seed)
            .field("ones", &self.count_ones())
            .finish_non_exhaustive()
    }
}

/// Compile-time construction: a filter built by the compiler from a list of keys, to place in a
/// `static` (flash on a microcontroller). The keys hash exactly as at run time
/// ([`const_hash64`](crate::hash::const_hash64) equals [`hash64`]), so the filter equals one built by
/// inserting the same keys.
///
/// ```
/// use sketch_nostd::Bloom;
///
/// static BLOCKED: Bloom<16, 4> = Bloom::from_keys(&["ads.example", "tracker.example"], 7);
///
/// assert!(BLOCKED.contains("ads.example"));
/// let mut runtime = Bloom::<16, 4>::with_seed(7);
/// runtime.insert("ads.example");
/// runtime.insert("tracker.example");
/// assert_eq!(BLOCKED, runtime);
/// ```
impl<const WORDS: usize, const K: u32> Bloom<WORDS, K> {
    /// A filter holding the string keys `keys`, hashed with `seed`; a `const fn`.
    ///
    /// ```
    /// const F: sketch_nostd::Bloom<4, 3> = sketch_nostd::Bloom::from_keys(&["a", "b"], 0);
    /// assert!(F.contains("a") && F.contains(b"b"));
    /// ```
    #[must_use]
    pub const fn from_keys(keys: &[&str], seed: u64) -> Self {
        let mut f = Self::with_seed(seed);
        let mut i = 0;
        while i < keys.len() {
            f.const_insert_hash(crate::hash::const_hash64(keys[i].as_bytes(), seed));
            i += 1;
        }
        f
    }

    /// A filter holding the byte-string keys `keys`, hashed with `seed`; a `const fn`.
    ///
    /// ```
    /// const F: sketch_nostd::Bloom<4, 3> = sketch_nostd::Bloom::from_byte_keys(&[b"\x00\x01", b"ab"], 0);
    /// assert!(F.contains(&[0u8, 1]) && F.contains("ab"));
    /// ```
    #[must_use]
    pub const fn from_byte_keys(keys: &[&[u8]], seed: u64) -> Self {
        let mut f = Self::with_seed(seed);
        let mut i = 0;
        while i < keys.len() {
            f.const_insert_hash(crate::hash::const_hash64(keys[i], seed));
            i += 1;
        }
        f
    }

    /// A filter holding the `u64` keys `keys`, hashed with `seed`; a `const fn`.
    ///
    /// ```
    /// const F: sketch_nostd::Bloom<4, 3> = sketch_nostd::Bloom::from_u64_keys(&[80, 443], 0);
    /// assert!(F.contains(&443u64));
    /// ```
    #[must_use]
    pub const fn from_u64_keys(keys: &[u64], seed: u64) -> Self {
        let mut f = Self::with_seed(seed);
        let mut i = 0;
        while i < keys.len() {
            f.const_insert_hash(crate::hash::const_hash64_u64(keys[i], seed));
            i += 1;
        }
        f
    }

    /// A filter holding the keys whose hashes ([`hash64`] with `seed`) are `hashes`; a `const fn`,
    /// for keys of other types hashed by the caller.
    ///
    /// ```
    /// use sketch_nostd::{hash::const_hash64, Bloom};
    /// const F: Bloom<4, 3> = Bloom::from_hashes(&[const_hash64(&7u32.to_le_bytes(), 1)], 1);
    /// assert!(F.contains(&7u32));
    /// ```
    #[must_use]
    pub const fn from_hashes(hashes: &[u64], seed: u64) -> Self {
        let mut f = Self::with_seed(seed);
        let mut i = 0;
        while i < hashes.len() {
            f.const_insert_hash(hashes[i]);
            i += 1;
        }
        f
    }

    /// [`insert_hash`](Self::insert_hash) as a `const fn` (the same bits).
    const fn const_insert_hash(&mut self, hash: u64) {
        let probe = Probe::new(hash);
        let mut i = 0;
        while i < K {
            let bit = reduce(probe.nth(i), Self::M);
            let w = (bit / 64) as usize;
            if w < WORDS {
                self.words[w] |= 1 << (bit % 64);
            }
            i += 1;
        }
    }
}

impl<const WORDS: usize, const K: u32> Default for Bloom<WORDS, K> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_bits_plus_seed() {
        assert_eq!(core::mem::size_of::<Bloom<1, 1>>(), 16);
        assert_eq!(core::mem::size_of::<Bloom<1563, 7>>(), 1563 * 8 + 8);
    }

    #[test]
    fn seed_mismatch_leaves_filter_unchanged() {
        let mut a = Bloom::<8, 3>::with_seed(1);
        a.insert("a");
        let before = a.clone();
        let mut b = Bloom::<8, 3>::with_seed(2);
        b.insert("b");
        assert!(a.merge(&b).is_err());
        assert!(a.intersect(&b).is_err());
        assert_eq!(a, before);
    }

    #[test]
    fn full_filter_reports_infinity_and_certainty() {
        let f = Bloom::<2, 3>::from_parts([u64::MAX; 2], 0);
        assert_eq!(f.cardinality(), f64::INFINITY);
        assert_eq!(f.estimated_fp_rate(), 1.0);
        assert!(f.contains("anything"));
    }

    #[test]
    fn odd_sizes_use_every_word() {
        // m = 192 is not a power of two: multiply-shift still reaches the last word.
        // 10,000 keys leave a given bit clear with probability (1 − 1/192)^10000 ≈ e^−52.
        let mut f = Bloom::<3, 1>::new();
        for i in 0..10_000u32 {
            f.insert(&i);
        }
        assert!(f.as_words().iter().all(|&w| w == u64::MAX));
    }
}
