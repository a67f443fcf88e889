//! The classic Bloom filter (Bloom 1970): `m` bits, `k` hashes, never a false negative.

use crate::filter::{cardinality_from_fill, fp_rate_from_fill};
#[cfg(doc)]
use crate::hash::hash64;
use crate::hash::{reduce, Probe};

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
///
/// # Compile-time construction
///
/// A filter can also be built by the compiler from a list of keys, to place in a
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
#[derive(Clone, PartialEq, Eq)]
pub struct Bloom<const WORDS: usize, const K: u32> {
    words: [u64; WORDS],
    seed: u64,
}

crate::filter::bit_filter_shell! {
    Bloom<WORDS, K> { words: [u64; _] = 0, check M }
    example: "16, 4",
    storage:
    /// The filter's bits, 64 to a word; bit `i` is bit `i % 64` of word `i / 64`.
    ///
    /// ```
    /// let f = sketch_nostd::Bloom::<2, 1>::new();
    /// assert_eq!(f.as_words(), &[0, 0]);
    /// ```
    fn as_words;
}

impl<const WORDS: usize, const K: u32> Bloom<WORDS, K> {
    /// Number of bits, `m = 64·WORDS`.
    pub const BITS: usize = 64 * WORDS;

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

    /// The filter's words, for the shared shell.
    fn words(&self) -> core::slice::Iter<'_, u64> {
        self.words.iter()
    }

    /// [`words`](Self::words), to write.
    fn words_mut(&mut self) -> core::slice::IterMut<'_, u64> {
        self.words.iter_mut()
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
        // changes (`old ^ new`) keeps one OR per probe with no branch on the old bit.
        let probe = Probe::new(hash);
        let mut changed = 0u64;
        for i in 0..K {
            let bit = reduce(probe.nth(i), Self::M);
            debug_assert!(bit < Self::M, "reduce stays below m");
            if let Some(word) = self.words.get_mut((bit / 64) as usize) {
                let old = *word;
                *word = old | 1 << (bit % 64);
                changed |= *word ^ old;
            }
        }
        changed != 0
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
        // One test for the filter and its zero-copy view (`wire::BloomRef`): crate::lookup.
        crate::lookup::bloom_contains(self.words.as_slice(), Self::M, K, hash)
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

impl<const WORDS: usize, const K: u32> Bloom<WORDS, K> {
    /// [`insert_hash`](Self::insert_hash) as a `const fn` (the same bits).
    const fn const_insert_hash(&mut self, hash: u64) {
        let probe = Probe::new(hash);
        let mut i = 0;
        while i < K {
            let bit = reduce(probe.nth(i), Self::M);
            let w = (bit / 64) as usize;
            debug_assert!(w < WORDS, "reduce stays below m");
            if w < WORDS {
                self.words[w] |= 1 << (bit % 64);
            }
            i += 1;
        }
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
