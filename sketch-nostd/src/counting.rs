//! The counting Bloom filter (Fan, Cao, Almeida, Broder, "Summary Cache", 2000): a Bloom filter whose
//! bits are small counters, so keys can be removed.
//!
//! Every bit of a classic [`Bloom`](crate::Bloom) filter becomes a 4-bit counter. Inserting a key
//! increments its `K` counters, removing it decrements them, and a lookup answers "maybe" when all of
//! them are non-zero. The positions are exactly those of a Bloom filter with as many bits as this filter
//! has counters, so the false-positive rate is the Bloom rate (1 − e^(−Kn/m))^K at four times the
//! memory.
//!
//! Four bits are nearly always enough: with `K` chosen optimally, the probability that any counter
//! ever reaches 16 is at most about 1.37·10⁻¹⁵ × the number of counters (Fan et al., section V.C). A
//! counter that does reach 15 stays there ([`CountingBloom::insert`] explains why).

#[cfg(doc)]
use crate::error::MergeError;
use crate::error::RemoveError;
use crate::filter::{cardinality_from_fill, fp_rate_from_fill};
use crate::hash::{hash64, reduce, Key, Probe};

/// The lowest bit of every 4-bit counter in a word.
const LOW_BITS: u64 = 0x1111_1111_1111_1111;
/// The low nibble of every byte.
const LOW_NIBBLES: u64 = 0x0F0F_0F0F_0F0F_0F0F;
/// The largest value of a counter; a counter at this value is saturated.
const SATURATED: u64 = 15;

/// A counting Bloom filter of `16·WORDS` 4-bit counters probed by `K` hashes, stored inline: no heap.
///
/// * [`insert`](Self::insert) increments the key's `K` counters (stopping at 15),
///   [`remove`](Self::remove) decrements them, [`contains`](Self::contains) answers `false`
///   ("definitely not in the filter") if any of them is 0.
/// * **Never a false negative** for a key that was inserted and not removed, as long as only keys that
///   are in the filter are removed. Removing a key that was never inserted is the one way to break it:
///   [`remove`](Self::remove) refuses when the key is *definitely* absent (a counter is 0), but a false
///   positive cannot be told from a member, and removing it takes counts from the keys that share its
///   counters, which can bring back false negatives for them (Fan et al.).
/// * The positions are those of a [`Bloom`](crate::Bloom) filter with `m = 16·WORDS` bits (one xxh3-64
///   hash, double hashing, multiply-shift reduction), so the false-positive rate with `n` keys is
///   (1 − e^(−Kn/m))^K: [`sizing::counting_words_for`](crate::sizing::counting_words_for) and
///   [`sizing::k_for`](crate::sizing::k_for) pick `WORDS` and `K` for a target rate.
///
/// Counter `i` is bits `4·(i % 16)..4·(i % 16) + 4` of word `i / 16`. `size_of::<CountingBloom<WORDS,
/// K>>()` is `8·WORDS + 8`: the counters and the seed, nothing else.
///
/// ```
/// use sketch_nostd::{sizing::{counting_words_for, k_for}, CountingBloom};
///
/// // Sessions currently open, at most 1,000 at a time, 1% false positives: 4,800 bytes.
/// let mut open = CountingBloom::<{ counting_words_for(1_000, 0.01) }, { k_for(1_000, 0.01) }>::new();
/// assert_eq!(core::mem::size_of_val(&open), 600 * 8 + 8);
/// open.insert("session 17");
/// open.insert("session 18");
/// assert!(open.contains("session 17"));
///
/// open.remove("session 17")?;
/// assert!(!open.contains("session 17")); // "definitely not", with probability ≈ 99%
/// assert!(open.contains("session 18")); // never a false negative
/// # Ok::<(), sketch_nostd::RemoveError>(())
/// ```
///
/// Zero words, zero hashes or more than 32 hashes do not compile:
///
/// ```compile_fail,E0080
/// let _ = sketch_nostd::CountingBloom::<0, 3>::new();
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CountingBloom<const WORDS: usize, const K: u32> {
    words: [u64; WORDS],
    seed: u64,
}

crate::filter::filter_shell! {
    CountingBloom<WORDS, K> { words: [u64; _] = 0, check M }
    example: "16, 4",
    storage:
    /// The counters, 16 to a word: counter `i` is bits `4·(i % 16)..4·(i % 16) + 4` of word `i / 16`.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<1, 1>::new();
    /// f.insert("a");
    /// f.insert("a");
    /// // One counter holds 2, the others 0.
    /// assert_eq!(f.as_words()[0].count_ones(), 1);
    /// ```
    fn as_words;
    set: count_nonzero of COUNTERS, "nonzero", "non-zero counters";
    insert:
    /// Inserts a key: increments its `K` counters. Returns `true` if the key was definitely not in the
    /// filter before (one of its counters was 0), `false` if it may have been.
    ///
    /// A counter at 15 stays at 15 (it **saturates**), and a saturated counter is never decremented
    /// again: once it has overflowed, the filter no longer knows how many keys it stands for, so any
    /// decrement could bring it to 0 while a key that uses it is still in the filter — a false
    /// negative. Keeping it at 15 keeps "never a false negative" for every key still present, at the
    /// price of a counter that can never return to 0 (a slightly higher false-positive rate until
    /// [`clear`](Self::clear)). [`saturated_counters`](Self::saturated_counters) reports how many there are.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<16, 4>::new();
    /// assert!(f.insert(&7u32));
    /// assert!(!f.insert(&7u32)); // now counted twice
    /// assert_eq!(f.estimate(&7u32), 2);
    /// ```
    ;
    merge: saturating_add_nibbles;
    /// Adds the counts of `other` to this filter, counter by counter, saturating at 15: afterwards it
    /// holds the keys of both (as a multiset), and removing a key inserted into either works. Fails,
    /// leaving `self` unchanged, if the seeds differ.
    ///
    /// ```
    /// use sketch_nostd::CountingBloom;
    /// let (mut a, mut b) = (CountingBloom::<16, 4>::with_seed(1), CountingBloom::<16, 4>::with_seed(1));
    /// a.insert("left");
    /// b.insert("right");
    /// a.merge(&b)?;
    /// assert!(a.contains("left") && a.contains("right"));
    /// a.remove("right").unwrap();
    /// assert!(a.contains("left"));
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    ///
    /// # Errors
    /// [`MergeError::SeedMismatch`] if the filters hash with different seeds.
}

impl<const WORDS: usize, const K: u32> CountingBloom<WORDS, K> {
    /// Number of counters, `m = 16·WORDS`.
    pub const COUNTERS: usize = 16 * WORDS;
    /// The largest value a counter holds. A counter at this value is saturated and never changes again
    /// (until [`clear`](Self::clear)).
    pub const MAX_COUNT: u8 = SATURATED as u8;

    /// `m` as the `u32` that index reduction works with; `WORDS < 2^28` guarantees it fits.
    const M: u32 = {
        assert!(
            WORDS > 0,
            "a counting Bloom filter needs at least one 64-bit word"
        );
        assert!(
            WORDS < 1 << 28,
            "a counting Bloom filter holds fewer than 2^32 counters (WORDS < 2^28)"
        );
        assert!(
            K > 0,
            "a counting Bloom filter needs at least one hash (K > 0)"
        );
        assert!(
            K <= crate::sizing::MAX_K,
            "a counting Bloom filter uses at most 32 hashes"
        );
        (16 * WORDS) as u32
    };

    /// The filter's words (16 counters each), for the shared shell.
    fn words(&self) -> core::slice::Iter<'_, u64> {
        self.words.iter()
    }

    /// [`words`](Self::words), to write.
    fn words_mut(&mut self) -> core::slice::IterMut<'_, u64> {
        self.words.iter_mut()
    }

    /// The value of counter `index`, or `None` past the last counter.
    ///
    /// ```
    /// let f = sketch_nostd::CountingBloom::<1, 1>::from_parts([0xF1], 0);
    /// assert_eq!((f.counter(0), f.counter(1), f.counter(2)), (Some(1), Some(15), Some(0)));
    /// assert_eq!(f.counter(16), None);
    /// ```
    #[must_use]
    pub fn counter(&self, index: usize) -> Option<u8> {
        let word = self.words.get(index / 16)?;
        Some(((word >> (4 * (index % 16))) & 0xF) as u8)
    }

    /// Inserts a key by its 64-bit hash ([`hash64`] with this filter's seed gives the same result as
    /// [`insert`](Self::insert)).
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, CountingBloom};
    /// let mut f = CountingBloom::<16, 4>::new();
    /// f.insert_hash(hash64("k", f.seed()));
    /// assert!(f.contains("k"));
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        self.increment(Probe::new(hash), K)
    }

    /// Increments (saturating) the counters of the first `upto` probes; `true` if one of them was 0.
    #[inline(always)]
    fn increment(&mut self, probe: Probe, upto: u32) -> bool {
        let mut new = false;
        for i in 0..upto {
            let (index, shift) = Self::locate(probe.nth(i));
            if let Some(word) = self.words.get_mut(index) {
                let count = (*word >> shift) & 0xF;
                new |= count == 0;
                *word += u64::from(count != SATURATED) << shift;
            }
        }
        new
    }

    /// Removes one insertion of a key: decrements its `K` counters (saturated counters stay at 15).
    ///
    /// Only remove keys that are in the filter. If one of the key's counters is 0 the key is definitely
    /// absent: the call returns [`RemoveError::Absent`] and changes nothing. A key that is absent but
    /// looks present (a false positive) cannot be detected, and removing it takes counts from other
    /// keys, which may then be reported absent although they were inserted.
    ///
    /// ```
    /// use sketch_nostd::{CountingBloom, RemoveError};
    /// let mut f = CountingBloom::<16, 4>::new();
    /// f.insert("a");
    /// f.insert("a");
    /// f.remove("a")?;
    /// assert!(f.contains("a")); // inserted twice, removed once
    /// f.remove("a")?;
    /// assert!(f.is_empty());
    /// assert_eq!(f.remove("a"), Err(RemoveError::Absent));
    /// # Ok::<(), RemoveError>(())
    /// ```
    ///
    /// # Errors
    /// [`RemoveError::Absent`] if the key is definitely not in the filter; the filter is unchanged.
    #[inline]
    pub fn remove<Q: Key + ?Sized>(&mut self, key: &Q) -> Result<(), RemoveError> {
        self.remove_hash(hash64(key, self.seed))
    }

    /// [`remove`](Self::remove) for a hash computed by the caller (see
    /// [`insert_hash`](Self::insert_hash)).
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<16, 4>::new();
    /// f.insert_hash(42);
    /// assert_eq!(f.remove_hash(42), Ok(()));
    /// assert!(f.is_empty());
    /// ```
    ///
    /// # Errors
    /// [`RemoveError::Absent`] if the key is definitely not in the filter; the filter is unchanged.
    #[inline]
    pub fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
        let probe = Probe::new(hash);
        for i in 0..K {
            let (index, shift) = Self::locate(probe.nth(i));
            if let Some(word) = self.words.get_mut(index) {
                let count = (*word >> shift) & 0xF;
                if count == 0 {
                    // Definitely absent. Undo the decrements of probes 0..i: each of them took a
                    // counter from c to c − 1 with c in 1..=14 (a saturated counter was left at 15),
                    // so a saturating increment restores exactly what was there — also when two
                    // probes share a counter.
                    self.increment(probe, i);
                    return Err(RemoveError::Absent);
                }
                *word -= u64::from(count != SATURATED) << shift;
            }
        }
        Ok(())
    }

    /// [`contains`](Self::contains) for a hash computed by the caller.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<16, 4>::new();
    /// f.insert_hash(0x1234_5678_9abc_def0);
    /// assert!(f.contains_hash(0x1234_5678_9abc_def0));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // One test for the filter and its zero-copy view (`wire::CountingBloomRef`): crate::lookup.
        crate::lookup::counting_contains(self.words.as_slice(), Self::M, K, hash)
    }

    /// The smallest of the key's counters, in `0..=15`: an upper bound of how many times the key is in
    /// the filter (inserts minus removes), exact unless other keys share all its counters. A key
    /// present `c` times has an estimate of at least `min(c, 15)`.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<64, 4>::new();
    /// for _ in 0..3 { f.insert("x"); }
    /// assert!(f.estimate("x") >= 3);
    /// assert_eq!(f.estimate("never"), 0); // with probability ≈ 1 here
    /// ```
    #[inline]
    #[must_use]
    pub fn estimate<Q: Key + ?Sized>(&self, key: &Q) -> u64 {
        self.estimate_hash(hash64(key, self.seed))
    }

    /// [`estimate`](Self::estimate) for a hash computed by the caller.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<64, 4>::new();
    /// f.insert_hash(5);
    /// assert!(f.estimate_hash(5) >= 1);
    /// ```
    #[must_use]
    pub fn estimate_hash(&self, hash: u64) -> u64 {
        let probe = Probe::new(hash);
        let mut min = SATURATED;
        for i in 0..K {
            let (index, shift) = Self::locate(probe.nth(i));
            let count = self
                .words
                .get(index)
                .map_or(0, |word| (word >> shift) & 0xF);
            min = min.min(count);
        }
        min
    }

    /// Word index and bit shift of the counter of a probe value.
    #[inline(always)]
    const fn locate(g: u32) -> (usize, u32) {
        let counter = reduce(g, Self::M);
        // Every caller skips a word past the end; reduction never gives one.
        debug_assert!(counter < Self::M, "reduce stays below m");
        ((counter / 16) as usize, 4 * (counter % 16))
    }

    /// Number of non-zero counters.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<16, 4>::new();
    /// f.insert("a");
    /// assert!((1..=4).contains(&f.count_nonzero()));
    /// ```
    #[must_use]
    pub fn count_nonzero(&self) -> u32 {
        self.words
            .iter()
            .map(|&w| ((w | w >> 1 | w >> 2 | w >> 3) & LOW_BITS).count_ones())
            .sum()
    }

    /// Number of saturated counters (at 15). They never decrease again; a few are harmless, many mean
    /// the filter holds far more keys (or far more copies of a key) than it was sized for.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<16, 1>::new();
    /// for _ in 0..20 { f.insert("hot"); }
    /// assert_eq!(f.saturated_counters(), 1);
    /// assert!(f.is_saturated());
    /// ```
    #[must_use]
    pub fn saturated_counters(&self) -> u32 {
        self.words
            .iter()
            .map(|&w| (w & w >> 1 & w >> 2 & w >> 3 & LOW_BITS).count_ones())
            .sum()
    }

    /// `true` if any counter is saturated (see [`saturated_counters`](Self::saturated_counters)).
    ///
    /// ```
    /// assert!(!sketch_nostd::CountingBloom::<16, 4>::new().is_saturated());
    /// ```
    #[must_use]
    pub fn is_saturated(&self) -> bool {
        self.words
            .iter()
            .any(|&w| w & w >> 1 & w >> 2 & w >> 3 & LOW_BITS != 0)
    }

    /// The false-positive rate this filter has now: (non-zero counters / m)^k.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<16, 4>::new();
    /// assert_eq!(f.estimated_fp_rate(), 0.0);
    /// for i in 0..50u32 { f.insert(&i); }
    /// assert!(f.estimated_fp_rate() > 0.0 && f.estimated_fp_rate() < 1.0);
    /// ```
    #[must_use]
    pub fn estimated_fp_rate(&self) -> f64 {
        fp_rate_from_fill(self.fill_ratio(), K)
    }

    /// Estimated number of distinct keys in the filter (Swamidass–Baldi, as
    /// [`Bloom::cardinality`](crate::Bloom::cardinality)): −(m/k)·ln(1 − X/m) with `X` non-zero
    /// counters. Infinite once every counter is non-zero.
    ///
    /// ```
    /// let mut f = sketch_nostd::CountingBloom::<600, 7>::new();
    /// for i in 0..1_000u32 { f.insert(&i); }
    /// for i in 0..500u32 { f.remove(&i).unwrap(); }
    /// let n = f.cardinality();
    /// assert!((n - 500.0).abs() < 50.0, "{n}");
    /// ```
    #[must_use]
    pub fn cardinality(&self) -> f64 {
        cardinality_from_fill(self.count_nonzero(), Self::M, K)
    }
}

/// Adds the sixteen 4-bit counters of `a` and `b` lane by lane, each sum stopping at 15.
///
/// The even and odd nibbles are added separately in 8-bit lanes, where a sum (at most 30) cannot
/// carry into the next lane; bit 4 of a lane is set exactly when its sum is 16 or more, and then the
/// lane is forced to 15.
#[inline]
const fn saturating_add_nibbles(a: u64, b: u64) -> u64 {
    const fn lanes(x: u64) -> u64 {
        let over = (x >> 4) & 0x0101_0101_0101_0101;
        (x | (over * 0x0F)) & LOW_NIBBLES
    }
    let even = lanes((a & LOW_NIBBLES) + (b & LOW_NIBBLES));
    let odd = lanes(((a >> 4) & LOW_NIBBLES) + ((b >> 4) & LOW_NIBBLES));
    even | (odd << 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_counters_plus_seed() {
        assert_eq!(core::mem::size_of::<CountingBloom<1, 1>>(), 16);
        assert_eq!(core::mem::size_of::<CountingBloom<600, 7>>(), 600 * 8 + 8);
    }

    #[test]
    fn nibble_addition_saturates_each_lane_alone() {
        for a in 0..16u64 {
            for b in 0..16u64 {
                let want = (a + b).min(15);
                for lane in [0, 1, 7, 14, 15] {
                    let (x, y) = (a << (4 * lane), b << (4 * lane));
                    // Neighbouring lanes hold other values that must not be disturbed.
                    let others = 0x5A5A_5A5A_5A5A_5A5A & !(0xF << (4 * lane));
                    let sum = saturating_add_nibbles(x | others, y);
                    assert_eq!((sum >> (4 * lane)) & 0xF, want, "{a} + {b} in lane {lane}");
                    assert_eq!(sum & !(0xF << (4 * lane)), others);
                }
            }
        }
    }

    #[test]
    fn a_refused_remove_changes_nothing_even_with_repeated_counters() {
        // One word, many hashes: several probes of a key share a counter. Look for keys whose
        // removal is refused half-way (some counters positive, one zero) and check nothing changed.
        let mut f = CountingBloom::<1, 12>::new();
        for k in 0..3u32 {
            f.insert(&k);
        }
        let mut refused = 0;
        for k in 3..2_000u32 {
            let before = f.clone();
            if f.remove(&k).is_err() {
                refused += 1;
                assert_eq!(f, before, "key {k}");
            } else {
                f = before;
            }
        }
        assert!(refused > 100, "{refused}");
    }

    #[test]
    fn saturated_counters_are_never_decremented() {
        let mut f = CountingBloom::<1, 1>::new();
        for _ in 0..20 {
            f.insert("k");
        }
        assert_eq!(f.estimate("k"), 15);
        for _ in 0..40 {
            assert_eq!(f.remove("k"), Ok(()));
        }
        assert!(f.contains("k"));
        assert_eq!(f.saturated_counters(), 1);
    }

    #[test]
    fn seed_mismatch_leaves_filter_unchanged() {
        let mut a = CountingBloom::<8, 3>::with_seed(1);
        a.insert("a");
        let before = a.clone();
        let b = CountingBloom::<8, 3>::with_seed(2);
        assert!(a.merge(&b).is_err());
        assert_eq!(a, before);
    }

    #[test]
    fn positions_are_the_bloom_positions() {
        // Same m, same seed: the non-zero counters are exactly the set bits of a Bloom filter.
        let mut c = CountingBloom::<4, 5>::with_seed(3);
        let mut b = crate::Bloom::<1, 5>::with_seed(3);
        for k in 0..10u32 {
            c.insert(&k);
            b.insert(&k);
        }
        let bits: u64 = (0..64).fold(0, |acc, i| {
            acc | u64::from(c.counter(i).is_some_and(|v| v > 0)) << i
        });
        assert_eq!(bits, b.as_words()[0]);
    }
}
