//! Space-Saving (Metwally, Agrawal, El Abbadi 2005): heavy hitters with `K` counters and no sketch.
//!
//! Each of the `K` counters holds a key, its count and the count's possible excess. A listed key's
//! event raises its counter. A new key takes a free counter, or else takes over the counter with the
//! smallest count `m`, starting at `m + c` with excess `m`: its true count is somewhere between `c`
//! and `m + c`. Counts never underestimate, and every count is at most `N/K` too high.
//!
//! On skewed streams this lists the top keys with nearly exact counts in a few kilobytes: heavy keys
//! arrive early, while the smallest count is still tiny, and never leave.
//!
//! Among equal counts, the larger key is the one taken over and the smaller key is listed first, so
//! what a summary does depends only on its contents (see [`SpaceSaving::sorted`]).

use core::fmt;

use crate::counter::Counter;
use crate::error::{check_seeds, MergeError, PartsError};
use crate::hash::hash64;
use crate::owned::{Counted, OwnedKey};
use crate::tracker::Tracker;

/// Mixed into the seed of the index hash. The hash only decides which keys share a bucket of the
/// lookup table, never what is counted; summaries merge only with an equal seed, as every sketch.
const INDEX_SEED: u64 = 0x5353_5353_5353_5353;

/// Space-Saving with `K` counters of type `C` (saturating) over owned keys `T` ([`OwnedKey`]).
///
/// * [`add`](Self::add) costs one hash, an O(1) expected index lookup and an O(log K) heap step.
///   On 64-bit targets a full summary keeps the counters at the smallest count apart, sorted by
///   key, and those one above it in a list: a new key takes over a counter in O(1), plus its share
///   of one sort of that list when the smallest count goes up (amortized O(log K) per event).
///   The sort orders numbers made from each key's [`order_prefix`](OwnedKey::order_prefix) and
///   takes its room on the stack: at most 2 KB when `K` is below 256, up to 32 KB from 256 (a
///   list longer than 2,048 is sorted by comparing the keys themselves).
/// * Every listed count (while no counter has saturated: [`is_saturated`](Self::is_saturated)) is
///   at or above the true count and at most [`error_bound`](Self::error_bound)
///   (the smallest listed count, never more than `N/K`) above it; each entry also carries its own,
///   usually much smaller, error. Any key whose true count exceeds `error_bound()` is listed.
///   [`halve`](Self::halve) ages all of this consistently (an entry's own error may then exceed
///   `error_bound()` by one).
/// * Memory: per counter the key, a `C` count and error, a 32-bit fingerprint and five `u16` links
///   (26 bytes for `u32` keys and counts), plus 48 bytes. `SpaceSaving<u32, 128>` is 3,376 bytes.
///   On 32-bit targets, which keep the smallest counts in the heap rather than in a tier of their
///   own, four `u16` links (24 bytes), plus 40 bytes (`SpaceSaving<u32, 16>` is 424 bytes on a
///   Cortex-M0, the firmware test's `sizes` firmware reports).
///
/// Compared with [`TopK`](crate::TopK), which keeps a count-min sketch beside its list, Space-Saving
/// has no per-key estimates for keys it does not list, and a key longer than its slot cannot be
/// counted at all (there is no sketch to hold it: [`add`](Self::add) returns 0 and
/// [`overlong`](Self::overlong) goes up). In exchange it needs far less memory for the same top-k
/// recall on skewed streams: on a Zipf stream (weights 1/r over 50,000 keys, 200,000 events), 128 counters in 3 KB list the true top 10 in
/// order with counts within 0.5%, where `TopK` uses a 54 KB sketch.
///
/// ```
/// use sketch_nostd::SpaceSaving;
///
/// let mut hot = SpaceSaving::<heapless::String<16>, 3>::new();
/// for path in ["/", "/a", "/", "/b", "/", "/c", "/a"] {
///     hot.increment(path);
/// }
/// let top = hot.sorted();
/// assert_eq!(*top[0].key, "/");
/// assert!(top[0].guaranteed() <= 3 && 3 <= top[0].count);
/// assert!(hot.error_bound() <= hot.total() / 3);
/// ```
#[derive(Clone)]
pub struct SpaceSaving<T: OwnedKey, const K: usize, C: Counter = u32> {
    top: Tracker<T, C, C, K>,
    seed: u64,
    total: u64,
    overlong: u64,
}

impl<T: OwnedKey, const K: usize, C: Counter> SpaceSaving<T, K, C> {
    /// An empty summary with seed 0.
    ///
    /// ```
    /// assert!(sketch_nostd::SpaceSaving::<u32, 64>::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_seed(0)
    }

    /// An empty summary whose index hashes with `seed`. The seed decides only which keys share a
    /// bucket of the lookup table, never what is counted; only summaries with equal seeds merge.
    ///
    /// ```
    /// let ss = sketch_nostd::SpaceSaving::<u32, 64>::with_seed(3);
    /// assert_eq!(ss.seed(), 3);
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        Self {
            top: Tracker::new(),
            seed,
            total: 0,
            overlong: 0,
        }
    }

    /// The seed this summary's index hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::SpaceSaving::<u32, 4>::new().seed(), 0);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// A summary from its raw parts: `(key, count, error)` entries in any order, the seed, the total
    /// `N` and the [`overlong`](Self::overlong) counter, as returned by [`entries`](Self::entries),
    /// [`seed`](Self::seed), [`total`](Self::total) and `overlong`.
    ///
    /// Fails with [`PartsError::LengthMismatch`] for more than `K` entries,
    /// [`PartsError::DuplicateKey`] for a key listed twice and [`PartsError::BadCount`] for an error
    /// above its count.
    ///
    /// ```
    /// use sketch_nostd::{PartsError, SpaceSaving};
    /// let mut a = SpaceSaving::<u32, 4>::new();
    /// for k in [1, 2, 2, 3, 3, 3] { a.increment(&k); }
    /// let b = SpaceSaving::<u32, 4>::from_parts(
    ///     a.entries().map(|c| (*c.key, c.count, c.error)),
    ///     a.seed(),
    ///     a.total(),
    ///     a.overlong(),
    /// )?;
    /// assert_eq!(a.sorted(), b.sorted());
    /// let bad = SpaceSaving::<u32, 4>::from_parts([(1, 2, 3)], 0, 2, 0);
    /// assert_eq!(bad.err(), Some(PartsError::BadCount { index: 0 }));
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn from_parts(
        entries: impl IntoIterator<Item = (T, u64, u64)>,
        seed: u64,
        total: u64,
        overlong: u64,
    ) -> Result<Self, PartsError> {
        let top = Tracker::from_parts(entries, |key: &T, count, error: u64| {
            (error <= count).then(|| (Self::fp(seed, key.as_borrowed()), C::from_u64(error)))
        })?;
        Ok(Self {
            top,
            seed,
            total,
            overlong,
        })
    }

    #[inline]
    fn fp(seed: u64, key: &T::Borrowed) -> u32 {
        Tracker::<T, C, C, K>::fingerprint(hash64(key, INDEX_SEED ^ seed))
    }

    /// Adds `count` occurrences of `key` and returns its new count (an upper bound of its true
    /// count). A key not listed takes a free counter, or else the lowest-ranked one: the smallest
    /// count, and among equal smallest counts the largest key. A key that does not fit its slot is
    /// not counted: this returns 0 and [`overlong`](Self::overlong) goes up.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 2>::new();
    /// assert_eq!(ss.add(&1, 5), 5);
    /// ss.add(&9, 2);
    /// ss.add(&4, 2); // takes over key 9's counter: true count between 2 and 4
    /// assert_eq!(ss.bounds(&4), (2, 4));
    /// ss.add(&3, 1); // takes over key 4's counter (count 4 < 5): 3 is listed with 5
    /// ss.add(&2, 3); // keys 1 and 3 both at 5: 3, the larger key, is taken over
    /// let top = ss.sorted();
    /// assert_eq!((*top[0].key, top[0].count, *top[1].key, top[1].count), (2, 8, 1, 5));
    /// ```
    #[inline]
    pub fn add(&mut self, key: &T::Borrowed, count: u64) -> u64 {
        if count == 0 {
            // An unlisted key that does not fit was never counted; only a key that fits can be
            // hiding below the error bound.
            let listed = self.top.find(Self::fp(self.seed, key), key).is_some();
            if !listed && T::from_borrowed(key).is_none() {
                return 0;
            }
            return self.estimate(key);
        }
        let fp = Self::fp(self.seed, key);
        let c = C::from_u64(count);
        if let Some(slot) = self.top.find(fp, key) {
            self.total = self.total.saturating_add(count);
            let Some(e) = self.top.get(slot) else {
                return 0;
            };
            let (new, error) = (e.count.saturating_inc(c), e.extra);
            self.top.raise(slot, new, error);
            return new.to_u64();
        }
        let Some(owned) = T::from_borrowed(key) else {
            self.overlong = self.overlong.saturating_add(1);
            return 0;
        };
        self.total = self.total.saturating_add(count);
        match self.top.push(owned, fp, c, C::ZERO) {
            Ok(()) => c.to_u64(),
            Err(owned) => {
                let min = self.top.min().unwrap_or(C::ZERO);
                let new = min.saturating_inc(c);
                self.top.replace_min(owned, fp, new, min);
                new.to_u64()
            }
        }
    }

    /// Adds one occurrence of `key` and returns its new count.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 4>::new();
    /// ss.increment(&3);
    /// assert_eq!(ss.increment(&3), 2);
    /// ```
    #[inline]
    pub fn increment(&mut self, key: &T::Borrowed) -> u64 {
        self.add(key, 1)
    }

    /// An upper bound of the key's true count: its count if listed, else
    /// [`error_bound`](Self::error_bound) (the smallest listed count once all counters are taken).
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 1>::new();
    /// ss.add(&1, 5);
    /// assert_eq!((ss.estimate(&1), ss.estimate(&2)), (5, 5));
    /// ```
    #[must_use]
    pub fn estimate(&self, key: &T::Borrowed) -> u64 {
        self.bounds(key).1
    }

    /// Bounds of the key's true count, `(lower, upper)`.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 1>::new();
    /// ss.add(&1, 5);
    /// ss.add(&2, 1);
    /// assert_eq!(ss.bounds(&2), (1, 6));
    /// assert_eq!(ss.bounds(&1), (0, 6));
    /// ```
    #[must_use]
    pub fn bounds(&self, key: &T::Borrowed) -> (u64, u64) {
        match self
            .top
            .find(Self::fp(self.seed, key), key)
            .and_then(|s| self.top.get(s))
        {
            Some(e) => {
                let count = e.count.to_u64();
                (count.saturating_sub(e.extra.to_u64()), count)
            }
            None => (0, self.error_bound()),
        }
    }

    /// The most any listed count exceeds its key's true count, and the most an unlisted key can have
    /// been counted: the smallest listed count once all `K` counters are taken, else 0. Never more
    /// than `N/K`.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u32, 2>::new();
    /// ss.add(&1, 5);
    /// assert_eq!(ss.error_bound(), 0);
    /// ss.add(&2, 3);
    /// assert_eq!(ss.error_bound(), 3);
    /// ```
    #[must_use]
    pub fn error_bound(&self) -> u64 {
        if self.top.is_full() {
            self.top.min().map_or(0, Counter::to_u64)
        } else {
            0
        }
    }

    /// The listed keys, largest count first, equal counts by key, smallest first. The order depends
    /// only on the contents, never on the order of the events.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 4>::new();
    /// ss.add(&1, 2);
    /// ss.add(&5, 7);
    /// ss.add(&2, 7);
    /// let top = ss.sorted();
    /// assert_eq!((*top[0].key, top[0].count, top[0].error), (2, 7, 0));
    /// assert_eq!((*top[1].key, *top[2].key), (5, 1));
    /// ```
    #[must_use]
    pub fn sorted(&self) -> heapless::Vec<Counted<'_, T>, K> {
        crate::tracker::bounded(self.top.sorted().iter().map(|e| counted(e)))
    }

    /// The listed keys in storage order (for encoding; see [`from_parts`](Self::from_parts)).
    /// Storage order depends on the history of the summary, not only on its contents: use
    /// [`sorted`](Self::sorted) for a canonical order.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 4>::new();
    /// ss.add(&1, 2);
    /// assert_eq!(ss.entries().count(), 1);
    /// ```
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Counted<'_, T>> + '_ {
        self.top.entries().iter().map(counted)
    }

    crate::tracker::list_len!("sketch_nostd::SpaceSaving::<u8, 4>::new()");

    /// `N`, the total of all counts added (saturating), not counting overlong keys.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 4>::new();
    /// ss.add(&1, 3);
    /// assert_eq!(ss.total(), 3);
    /// ```
    #[must_use]
    pub const fn total(&self) -> u64 {
        self.total
    }

    /// `true` if a listed count or `N` has reached its maximum (`C::MAX`, `u64::MAX`): a count
    /// stops there instead of wrapping, so from then on that key's count, and the upper end of its
    /// [`bounds`](Self::bounds), can be below its true count. The brackets hold while this is
    /// `false`; a counter type that can hold `N` (`u32` for fewer than 2^32 events) never
    /// saturates. Costs one pass over the counters, like
    /// [`CountMin::is_saturated`](crate::CountMin::is_saturated).
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u32, 4, u8>::new();
    /// ss.add(&7, 250);
    /// assert!(!ss.is_saturated());
    /// ss.add(&7, 10); // 260 events: the u8 count stops at 255
    /// assert!(ss.is_saturated());
    /// assert_eq!((ss.bounds(&7), ss.total()), ((255, 255), 260));
    /// ```
    #[must_use]
    pub fn is_saturated(&self) -> bool {
        self.total == u64::MAX || self.top.entries().iter().any(|e| e.count == C::MAX)
    }

    /// Events whose key did not fit its slot and so were not counted. Saturates at `u64::MAX`.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<heapless::String<2>, 4>::new();
    /// ss.increment("abc");
    /// assert_eq!((ss.overlong(), ss.total()), (1, 0));
    /// ```
    #[must_use]
    pub const fn overlong(&self) -> u64 {
        self.overlong
    }

    /// Forgets every key and count, keeping the seed.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 4>::new();
    /// ss.add(&1, 3);
    /// ss.clear();
    /// assert!(ss.is_empty() && ss.total() == 0);
    /// ```
    pub fn clear(&mut self) {
        self.top.clear();
        self.total = 0;
        self.overlong = 0;
    }

    /// Halves every count and `N`, rounding down: aging, as in W-TinyLFU (see
    /// [`CountMin::halve`](crate::CountMin::halve)), so that old events weigh half as much as new
    /// ones. Every key stays listed; counts that rounding makes equal are then ordered by key, as in
    /// [`sorted`](Self::sorted).
    ///
    /// Both bounds of every key are halved with its count: the count becomes `⌊count/2⌋` and the
    /// guaranteed count `⌊(count − error)/2⌋` (the error is their difference, at most `⌈error/2⌉`
    /// and never above the count). So where the *aged* true count is the true count halved, rounding
    /// down, at every `halve`:
    ///
    /// * every listed key's aged count stays within its [`bounds`](Self::bounds);
    /// * [`error_bound`](Self::error_bound) halves too, still bounds every unlisted key's aged
    ///   count (so any key above it is listed), and stays at most `N/K`;
    /// * a listed entry's own error can exceed `error_bound()` by one (an error of 3 halves to 2
    ///   while a smallest count of 3 halves to 1), never by more, however often `halve` runs.
    ///
    /// ```
    /// let mut ss = sketch_nostd::SpaceSaving::<u8, 2>::new();
    /// ss.add(&1, 9);
    /// ss.add(&2, 3);
    /// ss.add(&3, 2); // takes over key 2: count 5, error 3 (true 2)
    /// ss.halve();
    /// assert_eq!((ss.bounds(&1), ss.bounds(&3), ss.total()), ((4, 4), (1, 2), 7));
    /// ```
    pub fn halve(&mut self) {
        self.top.update_all(|_, count, error| {
            let guaranteed = count.to_u64().saturating_sub(error.to_u64()) >> 1;
            let halved = count.halved();
            let error = halved.to_u64().saturating_sub(guaranteed);
            (halved, C::from_u64(error))
        });
        self.total >>= 1;
    }

    /// Adds `other` to this summary (Agarwal et al., "Mergeable summaries", 2012): a key listed on
    /// one side only gets the other side's [`error_bound`](Self::error_bound) added to its count and
    /// its error, then the `K` largest counts stay (equal counts at the cut-off: the smaller keys
    /// stay, as in [`sorted`](Self::sorted)), so the result depends only on the two summaries'
    /// contents: a decoded copy merges exactly like the original. Counts remain upper bounds,
    /// `count − error` lower bounds, and the error bound becomes at most the sum of both. Fails,
    /// leaving `self` unchanged, if the seeds differ.
    ///
    /// ```
    /// use sketch_nostd::SpaceSaving;
    /// let (mut a, mut b) = (SpaceSaving::<u32, 4>::new(), SpaceSaving::<u32, 4>::new());
    /// a.add(&1, 10);
    /// b.add(&1, 5);
    /// b.add(&2, 7);
    /// a.merge(&b)?;
    /// assert!(a.merge(&SpaceSaving::with_seed(1)).is_err());
    /// let top = a.sorted();
    /// assert_eq!((*top[0].key, top[0].count, *top[1].key, top[1].count), (1, 15, 2, 7));
    /// assert_eq!(a.total(), 22);
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        check_seeds(self.seed, other.seed)?;
        let ours_min = C::from_u64(self.error_bound());
        let theirs_min = C::from_u64(other.error_bound());
        // 1. Our keys: add their entry, or their bound to both count and error.
        self.top.update_all(|key, count, error| {
            let key = key.as_borrowed();
            let (c, e) = match other
                .top
                .find(Self::fp(other.seed, key), key)
                .and_then(|s| other.top.get(s))
            {
                Some(theirs) => (theirs.count, theirs.extra),
                None => (theirs_min, theirs_min),
            };
            (count.saturating_inc(c), error.saturating_inc(e))
        });
        // 2. Their keys we do not list: their entry plus our bound.
        for e in other.top.entries() {
            let key = e.key.as_borrowed();
            let fp = Self::fp(self.seed, key);
            if self.top.find(fp, key).is_some() {
                continue;
            }
            let (count, error) = (
                e.count.saturating_inc(ours_min),
                e.extra.saturating_inc(ours_min),
            );
            self.top.offer_untracked(&e.key, fp, count, error);
        }
        self.total = self.total.saturating_add(other.total);
        self.overlong = self.overlong.saturating_add(other.overlong);
        Ok(())
    }
}

fn counted<T, C: Counter>(e: &crate::tracker::Entry<T, C, C>) -> Counted<'_, T> {
    Counted {
        key: &e.key,
        count: e.count.to_u64(),
        error: e.extra.to_u64(),
    }
}

impl<T: OwnedKey, const K: usize, C: Counter> Default for SpaceSaving<T, K, C> {
    fn default() -> Self {
        Self::new()
    }
}

/// Equal contents: the same listed keys with the same counts and errors, the same total and
/// [`overlong`](SpaceSaving::overlong) counter (storage order aside).
///
/// ```
/// use sketch_nostd::SpaceSaving;
/// let (mut a, mut b) = (SpaceSaving::<u32, 4>::new(), SpaceSaving::<u32, 4>::new());
/// for k in [1, 2, 3] { a.increment(&k); }
/// for k in [3, 2, 1] { b.increment(&k); }
/// assert!(a == b);
/// ```
impl<T: OwnedKey, const K: usize, C: Counter> PartialEq for SpaceSaving<T, K, C> {
    fn eq(&self, other: &Self) -> bool {
        self.seed == other.seed
            && self.total == other.total
            && self.overlong == other.overlong
            && self.top.same_contents(&other.top)
    }
}

impl<T: OwnedKey, const K: usize, C: Counter> Eq for SpaceSaving<T, K, C> {}

/// Shows the number of listed keys, the error bound and the totals, not the list.
///
/// ```
/// let mut ss = sketch_nostd::SpaceSaving::<u32, 4>::new();
/// ss.add(&7, 3);
/// assert_eq!(
///     format!("{ss:?}"),
///     "SpaceSaving { k: 4, listed: 1, error_bound: 0, total: 3, overlong: 0 }"
/// );
/// ```
impl<T: OwnedKey, const K: usize, C: Counter> fmt::Debug for SpaceSaving<T, K, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpaceSaving")
            .field("k", &K)
            .field("listed", &self.len())
            .field("error_bound", &self.error_bound())
            .field("total", &self.total)
            .field("overlong", &self.overlong)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::size_of;
    use sketch_rng::SplitMix64;

    #[test]
    fn size_is_counters_plus_totals() {
        // Per counter: u32 key, count, error and fingerprint, two u16 links; a u16 in the heap, a
        // u16 bucket head and a u16 in the lowest tier. Plus the entries' length, the tiers' four
        // u16 lengths and smallest count (padded to 16 bytes), N and the overlong counter.
        assert_eq!(size_of::<SpaceSaving<u32, 128>>(), 128 * 26 + 48);
        assert_eq!(size_of::<SpaceSaving<u32, 128>>(), 3_376);
        assert_eq!(size_of::<SpaceSaving<u64, 16, u64>>(), 16 * (32 + 6) + 48);
    }

    #[test]
    fn brackets_hold_until_is_saturated_says_otherwise() {
        // u8 counters over a skewed stream: the loudest keys pass 255 in a few thousand events.
        // Before that every bracket holds; from the first that fails, `is_saturated` is true.
        let mut ss = SpaceSaving::<u32, 8, u8>::new();
        let mut truth = [0u64; 32];
        let mut rng = SplitMix64(7);
        let mut saturated_at = None;
        for i in 0..6_000 {
            let key = (rng.next_u64() % 32).min(rng.next_u64() % 32) as u32;
            ss.increment(&key);
            truth[key as usize] += 1;
            let broken = truth.iter().enumerate().any(|(k, &t)| {
                let (lo, hi) = ss.bounds(&(k as u32));
                t < lo || t > hi
            });
            if broken {
                assert!(ss.is_saturated(), "event {i}: a bracket fails unflagged");
            }
            if ss.is_saturated() && saturated_at.is_none() {
                saturated_at = Some(i);
            }
        }
        // It does saturate here, and stays so.
        assert!(saturated_at.is_some_and(|i| i > 255) && ss.is_saturated());
        assert!(!SpaceSaving::<u32, 8, u8>::new().is_saturated());
    }

    #[test]
    fn counts_bracket_the_truth() {
        let mut ss = SpaceSaving::<u32, 16>::new();
        let mut truth = [0u64; 64];
        let mut x = 3u32;
        for _ in 0..20_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let key = (x >> 16) % (1 + (x >> 8) % 64);
            ss.increment(&key);
            truth[key as usize] += 1;
        }
        ss.top.check();
        assert_eq!(ss.total(), 20_000);
        let bound = ss.error_bound();
        assert!(bound <= 20_000 / 16);
        for (k, &t) in truth.iter().enumerate() {
            let (lo, hi) = ss.bounds(&(k as u32));
            assert!(lo <= t && t <= hi, "key {k}: {t} not in {lo}..={hi}");
            assert!(hi - lo <= bound);
        }
        // Every key above the bound is listed.
        for (k, &t) in truth.iter().enumerate() {
            if t > bound {
                assert!(ss.sorted().iter().any(|c| *c.key == k as u32), "key {k}");
            }
        }
    }

    /// Space-Saving as the paper states it, over a list in slot order (a new key takes the slot of
    /// the entry it evicts, found by scanning: the smallest count, the largest key among equal
    /// counts), with the merge and the halving documented on [`SpaceSaving`].
    #[derive(Clone)]
    struct Plain {
        k: usize,
        list: std::vec::Vec<(u64, u32, u32)>,
        total: u64,
    }

    impl Plain {
        fn lowest(&self) -> usize {
            (0..self.list.len())
                .reduce(|a, b| {
                    let (x, y) = (self.list[a], self.list[b]);
                    if (y.1, core::cmp::Reverse(y.0)) < (x.1, core::cmp::Reverse(x.0)) {
                        b
                    } else {
                        a
                    }
                })
                .unwrap()
        }

        fn error_bound(&self) -> u32 {
            if self.list.len() == self.k {
                self.list.iter().map(|e| e.1).min().unwrap()
            } else {
                0
            }
        }

        fn add(&mut self, key: u64, c: u32) {
            self.total += u64::from(c);
            if let Some(e) = self.list.iter_mut().find(|e| e.0 == key) {
                e.1 = e.1.saturating_add(c);
            } else if self.list.len() < self.k {
                self.list.push((key, c, 0));
            } else {
                let i = self.lowest();
                let min = self.list[i].1;
                self.list[i] = (key, min.saturating_add(c), min);
            }
        }

        fn merge(&mut self, other: &Self) {
            let (ours, theirs) = (self.error_bound(), other.error_bound());
            for e in &mut self.list {
                let (c, err) = match other.list.iter().find(|o| o.0 == e.0) {
                    Some(o) => (o.1, o.2),
                    None => (theirs, theirs),
                };
                (e.1, e.2) = (e.1.saturating_add(c), e.2.saturating_add(err));
            }
            for o in &other.list {
                if self.list.iter().any(|e| e.0 == o.0) {
                    continue;
                }
                let e = (o.0, o.1.saturating_add(ours), o.2.saturating_add(ours));
                if self.list.len() < self.k {
                    self.list.push(e);
                } else {
                    let i = self.lowest();
                    let low = self.list[i];
                    if (low.1, core::cmp::Reverse(low.0)) < (e.1, core::cmp::Reverse(e.0)) {
                        self.list[i] = e;
                    }
                }
            }
            self.total += other.total;
        }

        fn halve(&mut self) {
            for e in &mut self.list {
                let guaranteed = (e.1 - e.2) >> 1;
                e.1 >>= 1;
                e.2 = e.1 - guaranteed;
            }
            self.total >>= 1;
        }
    }

    fn same<const K: usize>(ss: &SpaceSaving<u64, K>, plain: &Plain, key: u64) {
        let listed: std::vec::Vec<_> = ss
            .entries()
            .map(|c| (*c.key, c.count as u32, c.error as u32))
            .collect();
        assert_eq!(listed, plain.list, "entries in storage order");
        let mut by_rank = plain.list.clone();
        by_rank.sort_by_key(|e| (core::cmp::Reverse(e.1), e.0));
        let sorted: std::vec::Vec<_> = ss
            .sorted()
            .iter()
            .map(|c| (*c.key, c.count as u32, c.error as u32))
            .collect();
        assert_eq!(sorted, by_rank, "sorted");
        assert_eq!(ss.total(), plain.total);
        assert_eq!(ss.error_bound(), u64::from(plain.error_bound()));
        let bounds = match plain.list.iter().find(|e| e.0 == key) {
            Some(e) => (u64::from(e.1 - e.2), u64::from(e.1)),
            None => (0, u64::from(plain.error_bound())),
        };
        assert_eq!(ss.bounds(&key), bounds);
        ss.top.check();
    }

    /// Two summaries fed random events, each checked against [`Plain`] after every event, with
    /// now and then a merge of one into the other, a halving, or a decoded copy (rebuilt from its
    /// entries in storage order) taking the place of a summary.
    fn against_plain<const K: usize>(seed: u64, steps: usize, new_keys: f64, max_weight: u64) {
        let mut rng = SplitMix64(seed);
        let mut sides = [
            (
                SpaceSaving::<u64, K>::new(),
                Plain {
                    k: K,
                    list: std::vec::Vec::new(),
                    total: 0,
                },
            ),
            (
                SpaceSaving::<u64, K>::new(),
                Plain {
                    k: K,
                    list: std::vec::Vec::new(),
                    total: 0,
                },
            ),
        ];
        for _ in 0..steps {
            let side = rng.below(2) as usize;
            let key = if rng.chance(new_keys) {
                rng.next_u64()
            } else {
                // Skewed: key r with weight about ln(n / r).
                let bound = rng.below(K as u64 * 8) + 1;
                rng.below(bound)
            };
            match rng.below(400) {
                0 => {
                    let other = sides[1 - side].clone();
                    sides[side].0.merge(&other.0).unwrap();
                    sides[side].1.merge(&other.1);
                }
                1 => {
                    sides[side].0.halve();
                    sides[side].1.halve();
                }
                2 => {
                    let ss = &sides[side].0;
                    let entries = ss.entries().map(|c| (*c.key, c.count, c.error));
                    let copy = SpaceSaving::from_parts(entries, ss.seed(), ss.total(), 0).unwrap();
                    assert!(copy == sides[side].0);
                    sides[side].0 = copy;
                }
                _ => {
                    let c = 1 + rng.below(max_weight);
                    let ss_count = sides[side].0.add(&key, c);
                    sides[side].1.add(key, c as u32);
                    let listed = sides[side].1.list.iter().find(|e| e.0 == key);
                    assert_eq!(ss_count, u64::from(listed.unwrap().1));
                }
            }
            same(&sides[side].0, &sides[side].1, key);
        }
    }

    /// Contents, storage order (what the wire writes), order, bounds and merges equal a plain
    /// Space-Saving's on mostly-new keys (a log's whole lines: nearly every event evicts), skewed
    /// keys and weighted adds.
    #[test]
    fn matches_plain_space_saving() {
        for seed in 0..3 {
            against_plain::<16>(seed, 20_000, 0.85, 1);
            against_plain::<16>(seed, 20_000, 0.2, 3);
            against_plain::<64>(seed, 20_000, 0.85, 2);
            against_plain::<64>(seed, 20_000, 0.0, 1);
        }
        against_plain::<1_000>(7, 30_000, 0.85, 1);
    }
}
