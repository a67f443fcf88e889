//! Heavy hitters, "what is hot?": a count-min sketch with a min-heap of the `K` keys it estimates
//! highest, in fixed memory.
//!
//! On every event [`TopK`] updates its sketch, reads the key's new estimate, and replaces the
//! heap's smallest entry if the estimate is larger: O(D + log K) per event, with an O(1)
//! expected hash-index lookup to find a key already in the heap. Keys are stored owned, without a
//! heap allocation ([`OwnedKey`]). For the same memory, [`SpaceSaving`](crate::SpaceSaving) often
//! lists the top keys with tighter counts; see its docs for the comparison.

use core::fmt;

use crate::counter::{Conservative, Counter, UpdatePolicy};
use crate::countmin::CountMin;
use crate::error::{check_seeds, MergeError, PartsError};
use crate::hash::hash64;
use crate::owned::{Counted, OwnedKey};
use crate::tracker::Tracker;

/// The `K` keys with the highest count-min estimates, beside a `CountMin<W, D, C, U>` that counts
/// every key (conservative update by default, whose estimates of heavy keys are nearly exact).
///
/// * [`add`](Self::add) costs one hash, `D` counter updates, an O(1) expected index lookup and an
///   O(log K) heap step. Keys whose estimate cannot enter the list stop after the sketch update.
/// * Listed counts are the key's estimate at its last event: never below its true count (up to
///   `C::MAX`), and above it only by what the sketch overestimated then. A key can be missing if it
///   was estimated below the list's minimum when its events came, which the sketch's error makes rare
///   for keys well above [`min_count`](Self::min_count).
/// * Memory: `size_of` is the sketch, plus per key the key, a `C` count, a 32-bit fingerprint and
///   five `u16` links (22 bytes for `u32` keys and counts; four, 20 bytes, on 32-bit targets), plus
///   28 bytes of lengths, smallest count and counter, each part rounded to its alignment.
///   `TopK<u32, 10, 2719, 5>` is 54,648 bytes, all but 248 of them the sketch; see
///   [`SpaceSaving`](crate::SpaceSaving) for a summary without a sketch.
///
/// ```
/// use sketch_nostd::{sizing::{cm_depth, cm_width}, TopK};
///
/// // The 3 most requested paths, counted in a 272 × 5 sketch (ε = 1%, δ = 1%).
/// let mut hot = TopK::<heapless::String<32>, 3, { cm_width(0.01) }, { cm_depth(0.01) }>::new();
/// for (path, n) in [("/", 50), ("/login", 20), ("/api/items", 35), ("/favicon.ico", 5)] {
///     for _ in 0..n {
///         hot.increment(path);
///     }
/// }
/// let top: Vec<(&str, u64)> = hot.sorted().iter().map(|c| (c.key.as_str(), c.count)).collect();
/// assert_eq!(top, [("/", 50), ("/api/items", 35), ("/login", 20)]);
/// assert_eq!(hot.estimate("/favicon.ico"), 5); // still counted by the sketch
/// ```
///
/// A key longer than its slot is counted but not listed, and the summary says so:
///
/// ```
/// use sketch_nostd::TopK;
/// let mut hot = TopK::<heapless::String<4>, 2, 64, 3>::new();
/// hot.add("a very long line", 10);
/// hot.add("ok", 1);
/// assert_eq!(hot.estimate("a very long line"), 10);
/// assert_eq!(hot.sorted().len(), 1);
/// assert_eq!(hot.overlong(), 1);
/// ```
#[derive(Clone)]
pub struct TopK<
    T: OwnedKey,
    const K: usize,
    const W: usize,
    const D: usize,
    C: Counter = u32,
    U: UpdatePolicy = Conservative,
> {
    sketch: CountMin<W, D, C, U>,
    top: Tracker<T, C, (), K>,
    overlong: u64,
}

impl<T: OwnedKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy>
    TopK<T, K, W, D, C, U>
{
    /// An empty summary with seed 0.
    ///
    /// ```
    /// let top = sketch_nostd::TopK::<u64, 10, 256, 4>::new();
    /// assert!(top.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_seed(0)
    }

    /// An empty summary whose sketch hashes with `seed`. Only summaries with equal seeds merge.
    ///
    /// ```
    /// let top = sketch_nostd::TopK::<u64, 10, 256, 4>::with_seed(3);
    /// assert_eq!(top.sketch().seed(), 3);
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        Self {
            sketch: CountMin::with_seed(seed),
            top: Tracker::new(),
            overlong: 0,
        }
    }

    /// A summary from its raw parts: the sketch, the listed keys with their counts (any order), and
    /// the [`overlong`](Self::overlong) counter, as returned by [`sketch`](Self::sketch) and
    /// [`entries`](Self::entries).
    ///
    /// Fails with [`PartsError::LengthMismatch`] for more than `K` entries,
    /// [`PartsError::DuplicateKey`] for a key listed twice, and [`PartsError::BadCount`] for a
    /// count above the sketch's estimate of its key (a listed count is an earlier estimate, and
    /// estimates never fall).
    ///
    /// ```
    /// use sketch_nostd::{PartsError, TopK};
    /// let mut a = TopK::<u32, 4, 64, 3>::with_seed(1);
    /// for k in [1, 2, 2, 3, 3, 3] { a.increment(&k); }
    /// let entries = a.entries().map(|c| (*c.key, c.count));
    /// let b = TopK::<u32, 4, 64, 3>::from_parts(a.sketch().clone(), entries, a.overlong())?;
    /// assert_eq!(a.sorted(), b.sorted());
    /// let bad = TopK::<u32, 4, 64, 3>::from_parts(a.sketch().clone(), [(3, 4)], 0);
    /// assert_eq!(bad.err(), Some(PartsError::BadCount { index: 0 }));
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn from_parts(
        sketch: CountMin<W, D, C, U>,
        entries: impl IntoIterator<Item = (T, u64)>,
        overlong: u64,
    ) -> Result<Self, PartsError> {
        let entries = entries.into_iter().map(|(key, count)| (key, count, ()));
        let top = Tracker::from_parts(entries, |key: &T, count, ()| {
            let hash = hash64(key.as_borrowed(), sketch.seed());
            (count <= sketch.estimate_hash(hash))
                .then(|| (Tracker::<T, C, (), K>::fingerprint(hash), ()))
        })?;
        Ok(Self {
            sketch,
            top,
            overlong,
        })
    }

    /// The seed the sketch hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::TopK::<u64, 10, 256, 4>::with_seed(3).seed(), 3);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.sketch.seed()
    }

    /// The count-min sketch that counts every key.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u32, 2, 64, 3>::new();
    /// top.add(&9, 4);
    /// assert_eq!(top.sketch().total(), 4);
    /// ```
    #[must_use]
    pub const fn sketch(&self) -> &CountMin<W, D, C, U> {
        &self.sketch
    }

    /// Adds `count` occurrences of `key` and returns its new estimate. The key enters the list if
    /// there is room or if its estimate is above the smallest listed count; it then replaces the
    /// lowest-ranked entry (the smallest count, and among equal smallest counts the largest key). A
    /// key too long for its slot is counted but not listed, and [`overlong`](Self::overlong) goes
    /// up.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u32, 1, 64, 3>::new();
    /// top.add(&1, 5);
    /// top.add(&2, 3);
    /// assert_eq!(top.sorted().iter().map(|c| (*c.key, c.count)).collect::<Vec<_>>(), [(1, 5)]);
    /// top.add(&2, 3); // estimate 6 > 5: replaces key 1
    /// assert_eq!(top.sorted().iter().map(|c| (*c.key, c.count)).collect::<Vec<_>>(), [(2, 6)]);
    /// ```
    #[inline]
    pub fn add(&mut self, key: &T::Borrowed, count: u64) -> u64 {
        let hash = hash64(key, self.sketch.seed());
        let estimate = self.sketch.add_hash(hash, count);
        if count > 0 {
            self.offer(key, hash, C::from_u64(estimate));
        }
        estimate
    }

    /// Adds one occurrence of `key` and returns its new estimate.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<char, 3, 64, 3>::new();
    /// top.increment(&'x');
    /// assert_eq!(top.increment(&'x'), 2);
    /// ```
    #[inline]
    pub fn increment(&mut self, key: &T::Borrowed) -> u64 {
        self.add(key, 1)
    }

    /// Lists `key` with `count` if it is listed already, there is room, or `count` beats the minimum.
    #[inline]
    fn offer(&mut self, key: &T::Borrowed, hash: u64, count: C) {
        // A listed key's count is an earlier estimate, so at most `count`: if `count` does not beat
        // the minimum, the key is either not listed or listed with exactly `count` already.
        if self.top.is_full() && self.top.min().is_some_and(|min| count <= min) {
            return;
        }
        let fp = Tracker::<T, C, (), K>::fingerprint(hash);
        if let Some(slot) = self.top.find(fp, key) {
            self.top.raise(slot, count, ());
            return;
        }
        let Some(owned) = T::from_borrowed(key) else {
            self.overlong = self.overlong.saturating_add(1);
            return;
        };
        self.top.push_or_replace_min(owned, fp, count, ());
    }

    /// The key's count-min estimate (listed or not).
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u32, 2, 64, 3>::new();
    /// top.add(&5, 7);
    /// assert_eq!(top.estimate(&5), 7);
    /// ```
    #[inline]
    #[must_use]
    pub fn estimate(&self, key: &T::Borrowed) -> u64 {
        self.sketch.estimate(key)
    }

    /// `⌊ε·N⌋` of the sketch ([`CountMin::error_bound`]): with probability at least `1 − δ`, a key's
    /// estimate, and so a listed count, exceeds its true count by at most this.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u32, 2, 2719, 5>::new();
    /// for i in 0..200_000u32 { top.increment(&(i % 50_000)); }
    /// assert_eq!(top.error_bound(), 199);
    /// ```
    #[must_use]
    pub fn error_bound(&self) -> u64 {
        self.sketch.error_bound()
    }

    /// The listed keys with their counts, largest first, equal counts by key, smallest first. The
    /// order depends only on the contents, never on the order of the events. Each entry's `error` is
    /// [`error_bound`](Self::error_bound), at most its count (see [`Counted`]).
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 3, 64, 3>::new();
    /// top.add(&1, 1);
    /// top.add(&7, 9);
    /// top.add(&2, 9);
    /// let listed: Vec<(u8, u64)> = top.sorted().iter().map(|c| (*c.key, c.count)).collect();
    /// assert_eq!(listed, [(2, 9), (7, 9), (1, 1)]);
    /// ```
    #[must_use]
    pub fn sorted(&self) -> heapless::Vec<Counted<'_, T>, K> {
        let bound = self.error_bound();
        crate::tracker::bounded(self.top.sorted().iter().map(|e| {
            let count = e.count.to_u64();
            Counted {
                key: &e.key,
                count,
                error: bound.min(count),
            }
        }))
    }

    /// The listed keys in storage order, each a [`Counted`] as [`sorted`](Self::sorted) gives it
    /// (its `error` is [`error_bound`](Self::error_bound), at most its count), the same item type as
    /// [`SpaceSaving::entries`](crate::SpaceSaving::entries); with [`sketch`](Self::sketch) and
    /// [`overlong`](Self::overlong) they are the summary's parts (see
    /// [`from_parts`](Self::from_parts)). Storage order depends on the history of the summary, not
    /// only on its contents: use [`sorted`](Self::sorted) for a canonical order.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 2, 64, 3>::new();
    /// top.add(&1, 4);
    /// let listed: Vec<_> = top.entries().map(|c| (*c.key, c.count, c.error)).collect();
    /// assert_eq!(listed, [(1, 4, 0)]); // ε·N = 4·e/64 rounds down to 0
    /// ```
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Counted<'_, T>> + '_ {
        let bound = self.error_bound();
        self.listed().map(move |(key, count)| Counted {
            key,
            count,
            error: bound.min(count),
        })
    }

    /// The listed keys with their counts in storage order, without the error bound: what the
    /// encoder writes.
    pub(crate) fn listed(&self) -> impl ExactSizeIterator<Item = (&T, u64)> + '_ {
        self.top
            .entries()
            .iter()
            .map(|e| (&e.key, e.count.to_u64()))
    }

    crate::tracker::list_len!("sketch_nostd::TopK::<u8, 2, 64, 3>::new()");

    /// The smallest listed count once the list is full: the estimate a new key must beat. `None`
    /// while there is room.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 2, 64, 3>::new();
    /// top.add(&1, 3);
    /// assert_eq!(top.min_count(), None);
    /// top.add(&2, 8);
    /// assert_eq!(top.min_count(), Some(3));
    /// ```
    #[must_use]
    pub fn min_count(&self) -> Option<u64> {
        if self.top.is_full() {
            self.top.min().map(Counter::to_u64)
        } else {
            None
        }
    }

    /// `true` if the sketch's counters or `N` reached their maximum
    /// ([`CountMin::is_saturated`](crate::CountMin::is_saturated)): the listed counts are the
    /// sketch's estimates, so from then on a count can be below its key's true count.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 2, 64, 3, u8>::new();
    /// top.add(&1, 250);
    /// assert!(!top.is_saturated());
    /// top.add(&1, 10);
    /// assert!(top.is_saturated());
    /// ```
    #[must_use]
    pub fn is_saturated(&self) -> bool {
        self.sketch.is_saturated()
    }

    /// Events whose key was too long for its slot and so could not be listed (they are counted in
    /// the sketch). Saturates at `u64::MAX`.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<heapless::Vec<u8, 2>, 2, 64, 3>::new();
    /// top.increment(&[1, 2, 3][..]);
    /// assert_eq!(top.overlong(), 1);
    /// ```
    #[must_use]
    pub const fn overlong(&self) -> u64 {
        self.overlong
    }

    /// `N`, the total of all counts added.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 2, 64, 3>::new();
    /// top.add(&1, 3);
    /// assert_eq!(top.total(), 3);
    /// ```
    #[must_use]
    pub const fn total(&self) -> u64 {
        self.sketch.total()
    }

    /// Halves the sketch and every listed count (aging; see [`CountMin::halve`]). Every key stays
    /// listed; counts that rounding makes equal are then ordered by key, as in
    /// [`sorted`](Self::sorted).
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 2, 64, 3>::new();
    /// top.add(&1, 9);
    /// top.halve();
    /// assert_eq!(top.sorted().iter().map(|c| (*c.key, c.count)).collect::<Vec<_>>(), [(1, 4)]);
    /// ```
    pub fn halve(&mut self) {
        self.sketch.halve();
        self.top.update_all(|_, c, ()| (c.halved(), ()));
    }

    /// Empties the sketch and the list and resets [`overlong`](Self::overlong), keeping the seed.
    ///
    /// ```
    /// let mut top = sketch_nostd::TopK::<u8, 2, 64, 3>::new();
    /// top.add(&1, 9);
    /// top.clear();
    /// assert!(top.is_empty() && top.total() == 0);
    /// ```
    pub fn clear(&mut self) {
        self.sketch.clear();
        self.top.clear();
        self.overlong = 0;
    }

    /// Adds `other` to this summary: the sketches merge cell by cell, and the list becomes the `K`
    /// highest of the keys listed by either (equal counts at the cut-off: the smaller keys stay, as
    /// in [`sorted`](Self::sorted)), so the result depends only on the two summaries' contents: a
    /// decoded copy merges exactly like the original. A key's count is the smallest of the upper bounds known
    /// for it (its count on each side, or that side's estimate where it was not listed, added; and the
    /// merged sketch's estimate), so it is never below the key's true total. A key listed by neither
    /// side is not listed after the merge, even if the two streams together make it heavy. Fails,
    /// leaving `self` unchanged, if the seeds differ.
    ///
    /// ```
    /// use sketch_nostd::TopK;
    /// let (mut a, mut b) = (TopK::<u32, 2, 256, 4>::with_seed(5), TopK::<u32, 2, 256, 4>::with_seed(5));
    /// a.add(&1, 10);
    /// a.add(&2, 4);
    /// b.add(&3, 12);
    /// b.add(&2, 3);
    /// a.merge(&b)?;
    /// assert_eq!(a.sorted().iter().map(|c| (*c.key, c.count)).collect::<Vec<_>>(), [(3, 12), (1, 10)]);
    /// assert_eq!(a.estimate(&2), 7);
    /// assert!(a.merge(&TopK::with_seed(6)).is_err());
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        check_seeds(self.sketch.seed(), other.sketch.seed())?;
        let seed = self.sketch.seed();
        let (ours, theirs) = (&self.sketch, &other.sketch);
        // A key's merged count: an upper bound of its count on each side (the listed count where the
        // side lists it, else that side's estimate) added, capped by the merged sketch's estimate.
        // Every count is final before any key is evicted, so the `K` kept are the highest-ranked of
        // both lists whatever order either side stores them in.
        let bound = |side_a: u64, side_b: u64, hash: u64| -> C {
            C::from_u64(
                side_a
                    .saturating_add(side_b)
                    .min(ours.merged_estimate_hash(theirs, hash)),
            )
        };
        // 1. Their keys we do not list (found before our list changes).
        let mut only_theirs: heapless::Vec<u16, K> = heapless::Vec::new();
        for (slot, e) in (0u16..).zip(other.top.entries()) {
            let key = e.key.as_borrowed();
            let fp = Tracker::<T, C, (), K>::fingerprint(hash64(key, seed));
            if self.top.find(fp, key).is_none() {
                // At most `K` entries on their side, so this never overflows.
                let _ = only_theirs.push(slot);
            }
        }
        // 2. Our keys: our count plus theirs.
        self.top.update_all(|key, c, ()| {
            let key = key.as_borrowed();
            let hash = hash64(key, seed);
            let fp = Tracker::<T, C, (), K>::fingerprint(hash);
            let their_side = match other.top.find(fp, key).and_then(|s| other.top.get(s)) {
                Some(e) => e.count.to_u64(),
                None => theirs.estimate_hash(hash),
            };
            (bound(c.to_u64(), their_side, hash), ())
        });
        // 3. Their keys we did not list: their count plus our estimate, offered against the list.
        for &slot in &only_theirs {
            let Some(e) = other.top.get(slot) else {
                debug_assert!(false, "slot {slot} was read from their entries");
                continue;
            };
            let hash = hash64(e.key.as_borrowed(), seed);
            let count = bound(e.count.to_u64(), ours.estimate_hash(hash), hash);
            let fp = Tracker::<T, C, (), K>::fingerprint(hash);
            self.top.offer_untracked(&e.key, fp, count, ());
        }
        self.sketch.merge(&other.sketch)?;
        self.overlong = self.overlong.saturating_add(other.overlong);
        Ok(())
    }
}

impl<T: OwnedKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy>
    Default for TopK<T, K, W, D, C, U>
{
    fn default() -> Self {
        Self::new()
    }
}

/// Equal contents: the same sketch, the same listed keys with the same counts, the same
/// [`overlong`](TopK::overlong) counter (storage order aside).
///
/// ```
/// use sketch_nostd::{wire, TopK};
/// let mut a = TopK::<u32, 4, 64, 3>::with_seed(1);
/// for k in [5, 1, 5, 2, 9, 9] { a.increment(&k); }
/// let mut buf = [0u8; 1024];
/// let b: TopK<u32, 4, 64, 3> = wire::decode(wire::encode(&a, &mut buf)?)?;
/// assert!(a == b);
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
impl<T: OwnedKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy>
    PartialEq for TopK<T, K, W, D, C, U>
{
    fn eq(&self, other: &Self) -> bool {
        self.overlong == other.overlong
            && self.sketch == other.sketch
            && self.top.same_contents(&other.top)
    }
}

impl<T: OwnedKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy> Eq
    for TopK<T, K, W, D, C, U>
{
}

/// Shows the number of listed keys, the smallest listed count and the sketch's shape, not the list
/// or the counters.
///
/// ```
/// let mut top = sketch_nostd::TopK::<u32, 2, 64, 3>::with_seed(1);
/// top.add(&7, 3);
/// assert_eq!(
///     format!("{top:?}"),
///     "TopK { k: 2, listed: 1, min_count: None, overlong: 0, sketch: CountMin { width: 64, depth: 3, \
///      counter: \"u32\", rule: Conservative, seed: 1, total: 3, .. } }"
/// );
/// ```
impl<T, const K: usize, const W: usize, const D: usize, C, U> fmt::Debug for TopK<T, K, W, D, C, U>
where
    T: OwnedKey,
    C: Counter,
    U: UpdatePolicy,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TopK")
            .field("k", &K)
            .field("listed", &self.len())
            .field("min_count", &self.min_count())
            .field("overlong", &self.overlong)
            .field("sketch", &self.sketch)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counter::Standard;
    use core::mem::size_of;

    #[test]
    fn size_is_sketch_plus_entries() {
        // Per entry: u32 key + u32 count + u32 fingerprint + two u16 links = 16 bytes, plus a u16 in
        // the heap, a u16 bucket head and a u16 in the lowest tier; the entries' Vec length, the
        // tiers' four u16 lengths and smallest count, and the overlong counter.
        type T10 = TopK<u32, 10, 2719, 5>;
        let sketch = size_of::<CountMin<2719, 5>>();
        assert_eq!(size_of::<T10>(), sketch + 10 * 16 + 8 + 3 * 10 * 2 + 12 + 8);
        assert_eq!(size_of::<T10>(), 54_648);
        assert_eq!(
            size_of::<TopK<u64, 4, 64, 2, u16, Standard>>(),
            // The tiers' 10 bytes (four u16 and a u16 count) padded to 16.
            size_of::<CountMin<64, 2, u16>>() + 4 * 24 + 8 + 24 + 16 + 8
        );
    }

    #[test]
    fn list_tracks_the_heaviest_and_stays_consistent() {
        let mut top = TopK::<u32, 8, 512, 4>::with_seed(2);
        let mut x = 7u32;
        for i in 0..20_000u32 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            // Key k with probability ∝ 1/(k+1) (roughly): small keys dominate.
            let key = (x >> 16) % (1 + (x >> 8) % 200);
            top.increment(&key);
            if i % 1000 == 0 {
                top.top.check();
            }
        }
        top.top.check();
        let sorted = top.sorted();
        assert_eq!(sorted.len(), 8);
        for Counted {
            key: k, count: c, ..
        } in sorted.iter()
        {
            assert_eq!(*c, top.estimate(k), "key {k}: listed {c}");
        }
        let keys: Vec<u32> = sorted.iter().map(|Counted { key: k, .. }| **k).collect();
        assert_eq!(&keys[..3], [0, 1, 2]);
    }

    #[test]
    fn halve_keeps_the_heap_order() {
        let mut top = TopK::<u32, 4, 64, 3>::new();
        for k in 0..10u32 {
            top.add(&k, u64::from(k * k + 1));
        }
        top.halve();
        top.top.check();
        assert_eq!((*top.sorted()[0].key, top.sorted()[0].count), (9, 41));
    }
}
