//! A fixed-capacity min-heap of keyed counts with a hash index: the shared core of [`TopK`] and
//! [`SpaceSaving`].
//!
//! Entries live in stable slots (a `heapless::Vec`, never moved once written). The heap (4-ary)
//! orders slot numbers by rank, lowest first, and each slot remembers its heap position so that
//! a count can be raised in O(log K).
//!
//! **Ranking.** Entries rank by count, largest first, and equal counts by key, smallest first
//! ([`ranks_below`]): a total order on distinct keys that depends only on what is stored. The heap
//! keeps the lowest-ranked entry on top, so the entry a full tracker evicts, the order of
//! [`sorted`](Tracker::sorted), and so everything a summary does with its entries, depend on its
//! contents only, never on the order of events that produced the heap's layout. Two summaries with
//! the same contents (say, one and its decoded copy) behave the same from then on.
//!
//! **Tiers** (64-bit targets, [`TIERED`]). On a stream of mostly new keys (a log's whole lines),
//! nearly every event evicts, and the new entry, one above the smallest count where most entries
//! tie, would run down the whole heap comparing keys at every level. So a full tracker keeps its
//! entries in three tiers, by count (`least` is the smallest):
//! * the lowest tier, the entries at `least`, sorted by key, ascending: the next evicted is the
//!   last one, taken in O(1). An entry raised from it leaves its place stale (skipped, never
//!   moved: the array keeps its order);
//! * the entries at `least + 1`, unordered, where a replacing entry lands in O(1);
//! * the heap of all others.
//!
//! When the last entry at `least` goes, the tier at `least + 1` is sorted by key (once per entry
//! and count it passes through) and becomes the lowest; the heap gives up its entries at the new
//! `least + 1`. Eviction, the order and so every result are the same as with the heap alone (the
//! tests run both layouts against a plain model); a tracker that is not full keeps the heap alone.
//! Measured on the `ours/heavy/lines u64` benchmark (`SpaceSaving<u64, 1000>`, 85% new keys): about
//! 1.3-1.4x the events per second. On 32-bit targets (small `K`, code size counted) the heap does it
//! all.
//!
//! **The sort** of a tier (about one entry per event on such a stream) sorts numbers, not keys:
//! each key's [`order_prefix`](OwnedKey::order_prefix) (a `u64` that orders like the key or ties:
//! an integer's value, a string's first 8 bytes), with the bits all the tier's prefixes share
//! dropped, packed with the slot number into one `u64`. From 256 entries a radix sort on the top
//! 16 bits puts them in order in linear time, then core's sort orders each run of equal top bits
//! (on line hashes, runs of one or two); keys whose packed prefixes tie are sorted again the same
//! way among themselves, and compared in full only if their prefixes are equal. Measured on the
//! events of `ours/heavy/lines u64` (fixed work, CPU time, median of 9 alternating runs): 0.86x
//! the time per event of sorting slot numbers by looking their keys up with packed prefixes and
//! core's sort, about 0.73x with the radix sort.
//!
//! The index is a chained hash table with `K` buckets (load factor at most 1):
//! `heads[bucket]` is the first slot of a bucket and each slot links to the next, so finding a key
//! costs O(1) expected. Slot numbers are `u16`, so `K` is below 65,535.
//!
//! On 64-bit targets a slot's fingerprint, next slot and heap position ([`Link`]) are kept apart
//! from its entry, in `links` (8 bytes a slot, the same memory as in the entry), so that a chain
//! is walked through them and an entry is read only where the fingerprint matches; and a lookup
//! reads the first two slots of its chain without branching on where the chain ends, as the
//! unlinking of an evicted slot handles the first two places of its chain (the chains of a full
//! table hold 0, 1, 2 or more slots at random, so a walk's exit was a mispredicted branch on
//! nearly every event of a stream of new keys). Measured on `ours/heavy/lines u64` (criterion,
//! medians of 5 alternating runs): 0.82x the time per event; the split alone, or the two-slot
//! reads alone, measured no faster. 32-bit targets keep the link in the entry and walk chains
//! one slot at a time (less code: Cortex-M0 is measured for it).
//!
//! [`TopK`]: crate::TopK
//! [`SpaceSaving`]: crate::SpaceSaving

use crate::counter::Counter;
use crate::error::PartsError;
use crate::hash::reduce;
use crate::owned::OwnedKey;

/// The list accessors of a summary whose list is the [`Tracker`] in its field `top`: `len` and
/// `is_empty`, documented with examples on the empty summary `$empty` (an expression).
macro_rules! list_len {
    ($empty:literal) => {
        /// Number of listed keys, at most `K`.
        ///
        /// ```
        #[doc = concat!("let mut summary = ", $empty, ";")]
        /// summary.increment(&1);
        /// assert_eq!(summary.len(), 1);
        /// ```
        #[must_use]
        pub fn len(&self) -> usize {
            self.top.len()
        }

        /// `true` if no key is listed.
        ///
        /// ```
        #[doc = concat!("assert!(", $empty, ".is_empty());")]
        /// ```
        #[must_use]
        pub fn is_empty(&self) -> bool {
            self.top.len() == 0
        }
    };
}
pub(crate) use list_len;

/// "No slot": the end of a bucket's chain.
const NIL: u16 = u16::MAX;

/// Children per heap node. A 4-ary heap is half as deep as a binary one: a replaced minimum, which
/// runs down to a leaf, takes half the dependent steps, and a node's four children are adjacent.
const ARITY: usize = 4;

/// `true` if an entry with count `ca` and key `ka` ranks below one with `cb` and `kb`: a smaller
/// count, or an equal count and a larger key. Keys compare in their borrowed form's `Ord` (numbers
/// by value, strings and bytes lexicographically).
#[inline]
pub(crate) fn ranks_below<T: OwnedKey, C: Counter>(ca: C, ka: &T, cb: C, kb: &T) -> bool {
    // Both sides always evaluated (`|`, `&`), so that for integer keys the compiler may use a
    // select instead of a branch the data makes unpredictable (measured: about 1.1x per event).
    (ca < cb) | ((ca == cb) & (ka.as_borrowed() > kb.as_borrowed()))
}

/// One tracked key.
#[derive(Clone, Debug)]
pub(crate) struct Entry<T, C, X> {
    pub(crate) key: T,
    pub(crate) count: C,
    /// Per-entry payload: the Space-Saving error, `()` for top-k.
    pub(crate) extra: X,
    /// On 32-bit targets, the slot's [`Link`] (on 64-bit targets, in the tracker's `links`).
    #[cfg(not(target_pointer_width = "64"))]
    link: Link,
}

/// A slot's place in the index and the heap. On 64-bit targets kept apart from its [`Entry`] (in
/// [`Tracker`]'s `links`, slot by slot): a lookup walks a bucket's chain through these 8-byte
/// records (1,000 of them in 8 KB) and reads an entry only where the fingerprint matches, instead
/// of walking the entries themselves (24 bytes each for `u64` keys and counts). Same memory: the
/// entry no longer holds these fields. On 32-bit targets, in the entry (one array to index: less
/// code, measured on Cortex-M0).
#[derive(Clone, Copy, Debug)]
struct Link {
    /// High half of the key's hash: its bucket and a quick inequality test.
    fp: u32,
    /// Position of this slot in the heap.
    pos: u16,
    /// Next slot in the same bucket, or [`NIL`].
    next: u16,
}

/// The link of a slot not in use (every byte `0xff`, as [`NIL`]: the arrays of a new tracker are
/// filled like one block of memory).
const NO_LINK: Link = Link {
    fp: u32::MAX,
    pos: NIL,
    next: NIL,
};

/// The slots' links apart from the entries ([`Tracker`]'s `links`): on 64-bit targets, none
/// elsewhere (the entries hold them).
#[cfg(target_pointer_width = "64")]
type Links<const K: usize> = [Link; K];
#[cfg(not(target_pointer_width = "64"))]
type Links<const K: usize> = [Link; 0];

/// Empty [`Links`].
const fn empty_links<const K: usize>() -> Links<K> {
    #[cfg(target_pointer_width = "64")]
    return [NO_LINK; K];
    #[cfg(not(target_pointer_width = "64"))]
    return [];
}

/// From this many numbers, [`Tracker::sort_packed`] sorts by radix first (fewer sort faster by
/// comparisons alone).
const RADIX_FROM: usize = 256;

/// The most entries of the lowest tier [`Tracker::sort_low`] sorts by packed prefixes (its two
/// buffers: 32 KB of stack, on 64-bit targets only).
const PACKED_SORT: usize = 2_048;

/// Whether a full [`Tracker`] keeps its lowest entries apart from the heap (see the module docs):
/// on 64-bit targets.
pub(crate) const TIERED: bool = cfg!(target_pointer_width = "64");

/// The lowest tier's slot numbers ([`Tracker`]'s `low`): `K` of them where the tiers are used (and
/// in the tests, which run both layouts), none elsewhere, so a 32-bit target keeps the heap's
/// memory.
#[cfg(any(target_pointer_width = "64", test))]
type Low<const K: usize> = [u16; K];
#[cfg(not(any(target_pointer_width = "64", test)))]
type Low<const K: usize> = [u16; 0];

/// An empty [`Low`].
const fn empty_low<const K: usize>() -> Low<K> {
    #[cfg(any(target_pointer_width = "64", test))]
    return [NIL; K];
    #[cfg(not(any(target_pointer_width = "64", test)))]
    return [];
}

/// Up to `K` keys with counts, the lowest-ranked one first out.
///
/// `TIERS` selects the layout of a full tracker (the module docs): [`TIERED`] outside the tests,
/// which run both.
#[derive(Clone, Debug)]
pub(crate) struct Tracker<T, C, X, const K: usize, const TIERS: bool = { TIERED }> {
    slots: heapless::Vec<Entry<T, C, X>, K>,
    /// Each slot's fingerprint, heap position and next slot in its bucket ([`Link`]), on 64-bit
    /// targets.
    links: Links<K>,
    /// The heap, `heap[..len]` (`heap[..heap_len]` in a tiered tracker): slot numbers in min-heap
    /// order of rank. In a tiered tracker, the heap holds the entries above `least + 1` only; the
    /// entries at `least + 1`, unordered, fill `heap[K - next_len..]`.
    heap: [u16; K],
    /// First slot of each bucket, or [`NIL`].
    heads: [u16; K],
    /// Tiered: `low[..low_len]`, slot numbers by key, ascending. The entries among them whose count
    /// is `least` are all the entries at the smallest count (`low_live` of them, the last one
    /// among them); the others were raised since, and are skipped (stale).
    low: Low<K>,
    heap_len: u16,
    next_len: u16,
    low_len: u16,
    low_live: u16,
    /// Tiered: the smallest count.
    least: C,
}

impl<T: OwnedKey, C: Counter, X: Copy, const K: usize, const TIERS: bool>
    Tracker<T, C, X, K, TIERS>
{
    /// Checked at compile time: `K` fits the `u16` slot numbers.
    const K32: u32 = {
        assert!(
            K > 0,
            "a heavy-hitter summary tracks at least one key (K > 0)"
        );
        assert!(
            K < NIL as usize,
            "a heavy-hitter summary tracks at most 65,534 keys"
        );
        K as u32
    };

    // Always inlined: otherwise a Cortex-M0 build made the summary in a temporary and moved it
    // with `memcpy` (712 B of code linked for it).
    #[inline(always)]
    pub(crate) const fn new() -> Self {
        let _ = Self::K32;
        Self {
            slots: heapless::Vec::new(),
            links: empty_links::<K>(),
            heap: [NIL; K],
            heads: [NIL; K],
            low: empty_low::<K>(),
            heap_len: 0,
            next_len: 0,
            low_len: 0,
            low_live: 0,
            least: C::ZERO,
        }
    }

    /// A tracker of `(key, count, extra)` entries in any order, the checks of every summary's
    /// `from_parts`: `locate(key, count, extra)` gives the entry's fingerprint and stored extra, or
    /// `None` for a count the summary cannot hold ([`PartsError::BadCount`]); a key listed twice is
    /// [`PartsError::DuplicateKey`], more than `K` entries [`PartsError::LengthMismatch`].
    pub(crate) fn from_parts<E>(
        entries: impl IntoIterator<Item = (T, u64, E)>,
        mut locate: impl FnMut(&T, u64, E) -> Option<(u32, X)>,
    ) -> Result<Self, PartsError> {
        let mut top = Self::new();
        let mut entries = entries.into_iter();
        for (index, (key, count, extra)) in entries.by_ref().enumerate() {
            let Some((fp, extra)) = locate(&key, count, extra) else {
                return Err(PartsError::BadCount { index });
            };
            if top.find(fp, key.as_borrowed()).is_some() {
                return Err(PartsError::DuplicateKey { index });
            }
            if top.push(key, fp, C::from_u64(count), extra).is_err() {
                return Err(PartsError::LengthMismatch {
                    expected: K,
                    found: index + 1 + entries.count(),
                });
            }
        }
        Ok(top)
    }

    /// The fingerprint of a 64-bit key hash: its high half (the low half picks count-min columns).
    #[inline]
    pub(crate) const fn fingerprint(hash: u64) -> u32 {
        (hash >> 32) as u32
    }

    #[inline]
    fn bucket(fp: u32) -> usize {
        let bucket = reduce(fp, Self::K32) as usize;
        // Every caller skips a bucket past the end; reduction never gives one.
        debug_assert!(bucket < K, "reduce stays below K");
        bucket
    }

    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    pub(crate) fn is_full(&self) -> bool {
        self.slots.is_full()
    }

    /// `true` if the entries are in tiers (a full tracker with `TIERS`), else all in the heap.
    #[inline]
    fn tiered(&self) -> bool {
        TIERS && self.slots.is_full()
    }

    /// `c + 1`, or `None` at the counter's maximum.
    #[inline]
    fn succ(c: C) -> Option<C> {
        let next = C::from_u64(c.to_u64().checked_add(1)?);
        (next != c).then_some(next)
    }

    /// The entries, in slot order (neither sorted nor heap order).
    pub(crate) fn entries(&self) -> &[Entry<T, C, X>] {
        &self.slots
    }

    /// The smallest count, if any key is tracked.
    #[inline]
    pub(crate) fn min(&self) -> Option<C> {
        if self.tiered() {
            Some(self.least)
        } else {
            self.count_at(0)
        }
    }

    /// The slot of the lowest-ranked entry, the one [`replace_min`](Self::replace_min) evicts.
    #[inline]
    fn lowest(&self) -> Option<u16> {
        if self.tiered() {
            let last = usize::from(self.low_len).checked_sub(1)?;
            self.low.get(last).copied()
        } else {
            self.heap.get(..self.slots.len())?.first().copied()
        }
    }

    /// `true` if the tracker is full and an untracked `key` with `count` would not rank above its
    /// lowest-ranked entry (the one [`replace_min`](Self::replace_min) evicts), so offering it
    /// changes nothing.
    #[inline]
    pub(crate) fn cannot_enter(&self, count: C, key: &T) -> bool {
        if !self.is_full() {
            return false;
        }
        let lowest = self.lowest().and_then(|s| self.slots.get(usize::from(s)));
        lowest.is_some_and(|e| !ranks_below(e.count, &e.key, count, key))
    }

    /// The slot holding `key` (whose hash has fingerprint `fp`).
    #[inline]
    pub(crate) fn find(&self, fp: u32, key: &T::Borrowed) -> Option<u16> {
        let mut s = *self.heads.get(Self::bucket(fp))?;
        if TIERED {
            // The first two slots of the chain are read without branching on where the chain
            // ends: on a stream of new keys, a lookup that runs to the end of a chain of random
            // length ends in a mispredicted branch.
            let (l0, ok0) = self.link_or_last(s);
            let s1 = if ok0 { l0.next } else { NIL };
            let (l1, ok1) = self.link_or_last(s1);
            let (hit0, hit1) = (ok0 & (l0.fp == fp), ok1 & (l1.fp == fp));
            if hit0 | hit1 {
                if hit0 && self.holds(s, key) {
                    return Some(s);
                }
                if hit1 && self.holds(s1, key) {
                    return Some(s1);
                }
            }
            s = if ok1 { l1.next } else { NIL };
        }
        #[cfg(target_pointer_width = "64")]
        {
            // The links of the slots in use: one bound check covers a slot's link and entry.
            let slots = &self.slots[..];
            let links = self.links.get(..slots.len()).unwrap_or_default();
            while let (Some(link), Some(e)) = (links.get(usize::from(s)), slots.get(usize::from(s)))
            {
                if link.fp == fp && e.key.as_borrowed() == key {
                    return Some(s);
                }
                s = link.next;
            }
        }
        #[cfg(not(target_pointer_width = "64"))]
        while let Some(entry) = self.slots.get(usize::from(s)) {
            if entry.link.fp == fp && entry.key.as_borrowed() == key {
                return Some(s);
            }
            s = entry.link.next;
        }
        None
    }

    /// The link of slot `s`.
    #[inline(always)]
    fn link(&self, s: u16) -> Option<&Link> {
        #[cfg(target_pointer_width = "64")]
        return self.links.get(usize::from(s));
        #[cfg(not(target_pointer_width = "64"))]
        return self.slots.get(usize::from(s)).map(|e| &e.link);
    }

    /// The link of slot `s`, to change.
    #[inline(always)]
    fn link_mut(&mut self, s: u16) -> Option<&mut Link> {
        #[cfg(target_pointer_width = "64")]
        return self.links.get_mut(usize::from(s));
        #[cfg(not(target_pointer_width = "64"))]
        return self.slots.get_mut(usize::from(s)).map(|e| &mut e.link);
    }

    /// The link of slot `s` and `true`, or for [`NIL`] some other slot's link and `false`: a read
    /// that needs no branch.
    #[inline(always)]
    fn link_or_last(&self, s: u16) -> (Link, bool) {
        let i = usize::from(s).min(K - 1);
        (
            self.links.get(i).copied().unwrap_or(NO_LINK),
            usize::from(s) < K,
        )
    }

    /// `true` if slot `s` holds `key`.
    #[inline(always)]
    fn holds(&self, s: u16, key: &T::Borrowed) -> bool {
        self.slots
            .get(usize::from(s))
            .is_some_and(|e| e.key.as_borrowed() == key)
    }

    pub(crate) fn get(&self, slot: u16) -> Option<&Entry<T, C, X>> {
        // Callers pass slots from `find` or the entries, and skip a missing one.
        debug_assert!(
            usize::from(slot) < self.slots.len(),
            "slot {slot} not in use"
        );
        self.slots.get(usize::from(slot))
    }

    /// Sets a slot's count and payload; the count must not be below the old one.
    #[inline]
    pub(crate) fn raise(&mut self, slot: u16, count: C, extra: X) {
        debug_assert!(
            usize::from(slot) < self.slots.len(),
            "slot {slot} not in use"
        );
        let tiered = self.tiered();
        let Some(pos) = self.link(slot).map(|l| usize::from(l.pos)) else {
            return;
        };
        let Some(e) = self.slots.get_mut(usize::from(slot)) else {
            return;
        };
        let old = e.count;
        e.count = count;
        e.extra = extra;
        if !tiered {
            self.sift_down(pos);
        } else if count == old {
            // Same rank: nothing moves.
        } else if count < old {
            // Not a raise (callers never lower a count): rebuild rather than break the tiers.
            self.rebuild();
        } else if old == self.least {
            // Leaves the lowest tier (its place there goes stale).
            self.low_live = self.low_live.saturating_sub(1);
            self.file(slot, count);
            self.settle_low();
        } else if Some(old) == Self::succ(self.least) {
            self.take_next(pos);
            self.heap_push(slot);
        } else {
            self.sift_down(pos);
        }
    }

    /// Adds a key that is not tracked yet, if there is room; gives it back if full.
    pub(crate) fn push(&mut self, key: T, fp: u32, count: C, extra: X) -> Result<(), T> {
        let slot = self.slots.len();
        let pos = slot; // not full: the heap and the slots have the same length
        let bucket = Self::bucket(fp);
        let (Some(head), Some(heap_pos)) =
            (self.heads.get(bucket).copied(), self.heap.get_mut(pos))
        else {
            return Err(key);
        };
        let link = Link {
            fp,
            pos: pos as u16,
            next: head,
        };
        let entry = Entry {
            key,
            count,
            extra,
            #[cfg(not(target_pointer_width = "64"))]
            link,
        };
        if let Err(entry) = self.slots.push(entry) {
            return Err(entry.key);
        }
        *heap_pos = slot as u16;
        #[cfg(target_pointer_width = "64")]
        if let Some(l) = self.links.get_mut(slot) {
            *l = link;
        }
        if let Some(h) = self.heads.get_mut(bucket) {
            *h = slot as u16;
        }
        self.sift_up(pos);
        if self.tiered() {
            self.rebuild();
        }
        Ok(())
    }

    /// Tracks a key that is not tracked yet: in a free slot if there is one, else in place of the
    /// key with the smallest count.
    pub(crate) fn push_or_replace_min(&mut self, key: T, fp: u32, count: C, extra: X) {
        if let Err(key) = self.push(key, fp, count, extra) {
            self.replace_min(key, fp, count, extra);
        }
    }

    /// [`push_or_replace_min`](Self::push_or_replace_min) of a copy of `key` unless it
    /// [`cannot_enter`](Self::cannot_enter): a merge's entry of the other side that this side does
    /// not track.
    pub(crate) fn offer_untracked(&mut self, key: &T, fp: u32, count: C, extra: X) {
        if !self.cannot_enter(count, key) {
            self.push_or_replace_min(key.clone(), fp, count, extra);
        }
    }

    /// Replaces the lowest-ranked key (the smallest count, the largest key among equal counts) by a
    /// key that is not tracked yet.
    pub(crate) fn replace_min(&mut self, key: T, fp: u32, count: C, extra: X) {
        let tiered = self.tiered();
        let Some(slot) = self.lowest() else {
            return;
        };
        if usize::from(slot) >= self.slots.len() {
            return;
        }
        self.unlink(slot);
        let bucket = Self::bucket(fp);
        let head = self.heads.get(bucket).copied().unwrap_or(NIL);
        if let Some(e) = self.slots.get_mut(usize::from(slot)) {
            (e.key, e.count, e.extra) = (key, count, extra);
        }
        if let Some(link) = self.link_mut(slot) {
            (link.fp, link.next) = (fp, head);
        }
        if let Some(h) = self.heads.get_mut(bucket) {
            *h = slot;
        }
        if !tiered {
            self.sift_down_from_top();
            return;
        }
        // The slot was the last of the lowest tier.
        self.low_len = self.low_len.saturating_sub(1);
        self.low_live = self.low_live.saturating_sub(1);
        if count < self.least {
            // Below every other entry (callers offer only keys that rank above the lowest).
            self.rebuild();
            return;
        }
        self.file(slot, count);
        self.settle_low();
    }

    /// Removes `slot` from its bucket's chain (the slot itself stays in place).
    fn unlink(&mut self, slot: u16) {
        debug_assert!(
            usize::from(slot) < self.slots.len(),
            "slot {slot} not in use"
        );
        let Some(link) = self.link(slot) else {
            return;
        };
        let (bucket, next) = (Self::bucket(link.fp), link.next);
        let Some(head) = self.heads.get_mut(bucket) else {
            return;
        };
        let mut s = *head;
        if TIERED {
            // The slot is first or second in its chain, mostly: both cases are written without
            // a branch on which (as in `find`); a store that changes nothing where it is neither.
            *head = if s == slot { next } else { s };
            let i = usize::from(s).min(K - 1);
            if let Some(l) = self.links.get_mut(i) {
                let second = l.next;
                l.next = if second == slot { next } else { second };
                if s == slot || second == slot {
                    return;
                }
                s = second;
            }
        } else if s == slot {
            *head = next;
            return;
        }
        while let Some(l) = self.link_mut(s) {
            if l.next == slot {
                l.next = next;
                return;
            }
            s = l.next;
        }
    }

    /// `true` if both hold the same keys with the same counts and payloads (in any slots).
    pub(crate) fn same_contents(&self, other: &Self) -> bool
    where
        X: PartialEq,
    {
        self.len() == other.len()
            && self
                .sorted()
                .iter()
                .zip(other.sorted().iter())
                .all(|(a, b)| {
                    a.count == b.count
                        && a.extra == b.extra
                        && a.key.as_borrowed() == b.key.as_borrowed()
                })
    }

    /// Applies `f` to every entry's count and payload, then restores the order.
    pub(crate) fn update_all(&mut self, mut f: impl FnMut(&T, C, X) -> (C, X)) {
        for e in self.slots.iter_mut() {
            (e.count, e.extra) = f(&e.key, e.count, e.extra);
        }
        if self.tiered() {
            self.rebuild();
        } else {
            self.heapify();
        }
    }

    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.heap = [NIL; K];
        self.heads = [NIL; K];
        self.low = empty_low::<K>();
        (self.heap_len, self.next_len, self.low_len, self.low_live) = (0, 0, 0, 0);
        self.least = C::ZERO;
    }

    /// The entries in rank order: count descending, then key ascending, so the order depends only
    /// on the contents.
    pub(crate) fn sorted(&self) -> heapless::Vec<&Entry<T, C, X>, K> {
        let mut v = bounded(self.slots.iter());
        crate::sort::sort_by(&mut v, |a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.key.as_borrowed().cmp(b.key.as_borrowed()))
        });
        v
    }

    // The tiers of a full tracker.

    /// Files a slot of a tiered tracker that is in no tier, by its count (at least `least`).
    fn file(&mut self, slot: u16, count: C) {
        if count == self.least {
            self.insert_low(slot);
        } else if Some(count) == Self::succ(self.least) {
            self.push_next(slot);
        } else {
            self.heap_push(slot);
        }
    }

    /// Drops stale slots from the end of the lowest tier, or, if no entry is left at the smallest
    /// count, moves up to the next count ([`advance`](Self::advance)).
    fn settle_low(&mut self) {
        if self.low_live == 0 {
            self.advance();
            return;
        }
        while let Some(last) = usize::from(self.low_len).checked_sub(1) {
            let live = self
                .low
                .get(last)
                .and_then(|&s| self.slots.get(usize::from(s)))
                .is_some_and(|e| e.count == self.least);
            if live {
                break;
            }
            self.low_len = last as u16;
        }
    }

    /// The smallest count has no entry left: the entries at the next smallest count become the
    /// lowest tier, sorted by key once, and those just above it the tier above.
    fn advance(&mut self) {
        self.low_len = 0;
        let next = usize::from(self.next_len);
        if let (true, Some(least)) = (next > 0, Self::succ(self.least)) {
            // The tier above moves down; the heap holds nothing at its count.
            self.least = least;
            if let (Some(low), Some(up)) = (self.low.get_mut(..next), self.heap.get(K - next..)) {
                low.copy_from_slice(up);
            }
            self.next_len = 0;
            self.low_len = next as u16;
            self.sort_low();
        } else {
            // The heap's smallest count: its entries leave the heap lowest-ranked first, which is
            // descending key order.
            self.next_len = 0;
            let Some(least) = self.count_at(0) else {
                return;
            };
            self.least = least;
            while self.count_at(0) == Some(least) {
                let (Some(s), Some(end)) =
                    (self.heap_pop(), self.low.get_mut(usize::from(self.low_len)))
                else {
                    break;
                };
                *end = s;
                self.low_len += 1;
            }
            if let Some(low) = self.low.get_mut(..usize::from(self.low_len)) {
                low.reverse();
            }
        }
        self.low_live = self.low_len;
        if let Some(next) = Self::succ(self.least) {
            while self.count_at(0) == Some(next) {
                let Some(s) = self.heap_pop() else {
                    break;
                };
                self.push_next(s);
            }
        }
    }

    /// Puts a full tracker's entries into tiers from scratch: after counts changed in bulk, or
    /// when it becomes full.
    fn rebuild(&mut self) {
        let Some(least) = self.slots.iter().map(|e| e.count).min() else {
            return;
        };
        self.least = least;
        let next = Self::succ(least);
        (self.heap_len, self.next_len, self.low_len) = (0, 0, 0);
        for s in 0..self.slots.len() {
            let Some(count) = self.slots.get(s).map(|e| e.count) else {
                break;
            };
            if count == least {
                if let Some(end) = self.low.get_mut(usize::from(self.low_len)) {
                    *end = s as u16;
                    self.low_len += 1;
                }
            } else if Some(count) == next {
                self.push_next(s as u16);
            } else {
                let pos = usize::from(self.heap_len);
                Self::place(
                    &mut self.heap,
                    &mut self.slots,
                    &mut self.links,
                    pos,
                    s as u16,
                );
                self.heap_len += 1;
            }
        }
        self.low_live = self.low_len;
        self.sort_low();
        self.heapify();
    }

    /// Sorts the lowest tier by key, ascending ([`sort_slots`](Self::sort_slots)): a tier shorter
    /// than [`RADIX_FROM`] with one buffer of that many numbers on the stack (2 KB; a short sort
    /// needs no room for the radix sort), a longer one with two buffers of [`PACKED_SORT`]
    /// numbers (32 KB); a tier longer than that sorts by looking the keys up.
    fn sort_low(&mut self) {
        if usize::from(self.low_len) < RADIX_FROM {
            self.sort_low_in::<RADIX_FROM, 0>();
        } else {
            self.sort_low_in::<PACKED_SORT, PACKED_SORT>();
        }
    }

    /// [`sort_low`](Self::sort_low) with buffers of `P` packed prefixes and `S` numbers of room
    /// for the radix sort. Not inlined: its buffers stay out of its callers' frames.
    #[inline(never)]
    fn sort_low_in<const P: usize, const S: usize>(&mut self) {
        let slots = &self.slots;
        let Some(low) = self.low.get_mut(..usize::from(self.low_len)) else {
            return;
        };
        let mut packed = heapless::Vec::<u64, P>::new();
        let mut scratch = heapless::Vec::<u64, S>::new();
        if packed.resize(low.len(), 0).is_err() {
            Self::sort_by_key(slots, low);
            return;
        }
        // Too short (`S` = 0) leaves the sort of the packed prefixes to core's sort alone.
        let _ = scratch.resize(low.len(), 0);
        Self::sort_slots(slots, low, &mut packed, &mut scratch, 3);
    }

    /// Sorts slot numbers by their keys, ascending, with `packed` (as long as `low`) and `scratch`
    /// (as long, or the radix sort is not used) for room.
    ///
    /// By each key's [`order_prefix`](OwnedKey::order_prefix) first, packed with its slot number
    /// into one `u64` (the bits above the highest one where the prefixes differ dropped, the low
    /// 16 bits given to the slot), so that the sort compares plain numbers
    /// ([`sort_packed`](Self::sort_packed)) rather than looking the keys up. Keys whose packed
    /// prefixes tie are sorted again the same way among themselves (their prefixes may differ in
    /// the dropped bits), `depth` times at most; then, or if their prefixes are equal, by looking
    /// the keys up. Keys are distinct, so this is the one order by key.
    fn sort_slots(
        slots: &[Entry<T, C, X>],
        low: &mut [u16],
        packed: &mut [u64],
        scratch: &mut [u64],
        depth: u32,
    ) {
        let n = low.len();
        let scratch = scratch.get_mut(..n).unwrap_or_default();
        let (Some(packed), Some(&first)) = (packed.get_mut(..n), low.first()) else {
            Self::sort_by_key(slots, low);
            return;
        };
        let prefix = |s: u16| {
            slots
                .get(usize::from(s))
                .map_or(0, |e| e.key.order_prefix())
        };
        let first = prefix(first);
        let mut spread = 0;
        for (q, &s) in packed.iter_mut().zip(low.iter()) {
            *q = prefix(s);
            spread |= *q ^ first;
        }
        if spread == 0 || depth == 0 {
            Self::sort_by_key(slots, low);
            return;
        }
        // Every prefix shares the bits above the highest one set in `spread`.
        let shift = spread.leading_zeros();
        for (q, &s) in packed.iter_mut().zip(low.iter()) {
            *q = ((*q << shift) & !u64::from(u16::MAX)) | u64::from(s);
        }
        Self::sort_packed(packed, scratch);
        for (l, &q) in low.iter_mut().zip(packed.iter()) {
            *l = q as u16;
        }
        // Runs of tied packed prefixes (rare).
        let mut at = 0;
        while let Some(run) = Self::tied_run(packed, at, 16) {
            if let (Some(l), Some(p)) = (low.get_mut(run.clone()), packed.get_mut(run.clone())) {
                let s = scratch.get_mut(run.clone()).unwrap_or_default();
                Self::sort_slots(slots, l, p, s, depth - 1);
            }
            at = run.end;
        }
    }

    /// Sorts `v` ascending, using `scratch` (at least as long) for room.
    ///
    /// From [`RADIX_FROM`] numbers, a least-significant-digit radix sort on the top 16 bits (two
    /// passes of 8 bits, a pass skipped where every number has the same digit), then core's sort
    /// on each run of numbers whose top 16 bits are equal: the same result as sorting, in linear
    /// time when the top bits tell the numbers apart (the lowest tier of `SpaceSaving<u64, 1000>`
    /// on line hashes: about a thousand numbers, a few runs of two), and never worse than
    /// O(n log n). Fewer numbers (or a `scratch` too small) are sorted by core's sort alone.
    /// (Measured on the lines stream: three passes on the top 24 bits were slower, with a copy
    /// back from `scratch`.)
    ///
    /// An associated function rather than a free one, so that it is compiled only where tiers are.
    fn sort_packed(v: &mut [u64], scratch: &mut [u64]) {
        let n = v.len();
        let scratch = match scratch.get_mut(..n) {
            Some(scratch) if n >= RADIX_FROM && n <= usize::from(u16::MAX) => scratch,
            _ => {
                v.sort_unstable();
                return;
            }
        };
        const DIGITS: usize = 2;
        // The bits below the digits.
        const LOW: usize = 64 - 8 * DIGITS;
        let mut counts = [[0u16; 256]; DIGITS];
        for &q in v.iter() {
            for (digit, c) in counts.iter_mut().enumerate() {
                if let Some(c) = c.get_mut(usize::from((q >> (LOW + 8 * digit)) as u8)) {
                    *c += 1;
                }
            }
        }
        let (mut from, mut to): (&mut [u64], &mut [u64]) = (v, scratch);
        let mut moved = false;
        for (digit, c) in counts.iter_mut().enumerate() {
            if c.iter().any(|&k| usize::from(k) == n) {
                continue;
            }
            // Where each digit's numbers start.
            let mut sum = 0u16;
            for k in c.iter_mut() {
                (*k, sum) = (sum, sum.wrapping_add(*k));
            }
            for &q in from.iter() {
                if let Some(at) = c.get_mut(usize::from((q >> (LOW + 8 * digit)) as u8)) {
                    if let Some(d) = to.get_mut(usize::from(*at)) {
                        *d = q;
                    }
                    *at += 1;
                }
            }
            core::mem::swap(&mut from, &mut to);
            moved = !moved;
        }
        // `from` holds the numbers in order of their top bits; runs of equal top bits (rare) are
        // sorted among themselves.
        let mut at = 0;
        while let Some(run) = Self::tied_run(from, at, LOW as u32) {
            if let Some(r) = from.get_mut(run.clone()) {
                r.sort_unstable();
            }
            at = run.end;
        }
        if moved {
            for (d, &q) in to.iter_mut().zip(from.iter()) {
                *d = q;
            }
        }
    }

    /// The first run, from `at` on, of two or more neighbours of `v` equal above bit `shift` (found by
    /// a quick scan for a tied neighbour): where [`sort_slots`](Self::sort_slots) and
    /// [`sort_packed`](Self::sort_packed) still have to sort.
    fn tied_run(v: &[u64], at: usize, shift: u32) -> Option<core::ops::Range<usize>> {
        let rest = v.get(at..)?;
        let start = rest
            .windows(2)
            .position(|w| w[0] >> shift == w[1] >> shift)?;
        let head = rest.get(start)? >> shift;
        let len = rest
            .get(start..)?
            .iter()
            .take_while(|&&q| q >> shift == head)
            .count();
        Some(at + start..at + start + len.max(1))
    }

    /// Sorts slot numbers by their keys, ascending, looking each key up.
    fn sort_by_key(slots: &[Entry<T, C, X>], low: &mut [u16]) {
        let key = |s: &u16| slots.get(usize::from(*s)).map(|e| e.key.as_borrowed());
        // Keys are distinct, so any sort gives the same order; core's is the fastest. (Only 64-bit
        // targets have tiers: no small target links it.)
        low.sort_unstable_by(|a, b| key(a).cmp(&key(b)));
    }

    /// Inserts a slot at the smallest count into the lowest tier, in key order.
    fn insert_low(&mut self, slot: u16) {
        let n = usize::from(self.low_len);
        let slots = &self.slots;
        let Some(key) = slots.get(usize::from(slot)).map(|e| e.key.as_borrowed()) else {
            return;
        };
        let Some(low) = self.low.get_mut(..=n) else {
            return;
        };
        let at = low.get(..n).map_or(0, |sorted| {
            sorted.partition_point(|&s| {
                slots
                    .get(usize::from(s))
                    .is_some_and(|e| e.key.as_borrowed() < key)
            })
        });
        if let Some(tail) = low.get_mut(at..) {
            tail.rotate_right(1);
            if let Some(first) = tail.first_mut() {
                *first = slot;
            }
        }
        self.low_len += 1;
        self.low_live += 1;
    }

    /// Adds a slot to the tier at `least + 1`.
    fn push_next(&mut self, slot: u16) {
        let Some(pos) = K.checked_sub(usize::from(self.next_len) + 1) else {
            return;
        };
        Self::place(&mut self.heap, &mut self.slots, &mut self.links, pos, slot);
        self.next_len += 1;
    }

    /// Removes the slot at heap array position `pos` from the tier at `least + 1`.
    fn take_next(&mut self, pos: usize) {
        let first = K - usize::from(self.next_len);
        if let Some(&moved) = self.heap.get(first) {
            Self::place(&mut self.heap, &mut self.slots, &mut self.links, pos, moved);
        }
        self.next_len = self.next_len.saturating_sub(1);
    }

    // The heap.

    /// The heap's length: `heap_len` in a tiered tracker, else every slot (so a tracker without
    /// tiers keeps no length of its own).
    #[inline]
    fn heap_end(&self) -> usize {
        if self.tiered() {
            usize::from(self.heap_len)
        } else {
            self.slots.len()
        }
    }

    /// Adds a slot to the heap.
    fn heap_push(&mut self, slot: u16) {
        let pos = usize::from(self.heap_len);
        if pos + usize::from(self.next_len) >= K {
            return;
        }
        Self::place(&mut self.heap, &mut self.slots, &mut self.links, pos, slot);
        self.heap_len += 1;
        self.sift_up(pos);
    }

    /// Takes the lowest-ranked slot out of the heap.
    fn heap_pop(&mut self) -> Option<u16> {
        let last = usize::from(self.heap_len).checked_sub(1)?;
        let (top, moving) = (*self.heap.first()?, *self.heap.get(last)?);
        self.heap_len = last as u16;
        if last > 0 {
            self.sift_in_from_top(moving);
        }
        Some(top)
    }

    /// Restores the heap order of the whole heap.
    fn heapify(&mut self) {
        let n = self.heap_end();
        let inner = n.saturating_sub(1) / ARITY + 1;
        for pos in (0..inner.min(n)).rev() {
            self.sift_down(pos);
        }
    }

    /// The count of the slot at heap position `pos`.
    #[inline]
    fn count_at(&self, pos: usize) -> Option<C> {
        let slot = *self.heap.get(..self.heap_end())?.get(pos)?;
        Some(self.slots.get(usize::from(slot))?.count)
    }

    /// Moves the entry at heap position `pos` up while its parent ranks below it.
    fn sift_up(&mut self, mut pos: usize) {
        let end = self.heap_end();
        let Some(heap) = self.heap.get_mut(..end) else {
            return;
        };
        let (slots, links) = (&mut self.slots, &mut self.links);
        let Some(&moving) = heap.get(pos) else {
            return;
        };
        // Shift lower-ranked parents down into the hole, then drop the entry into it.
        while pos > 0 {
            let parent = (pos - 1) / ARITY;
            let Some(&ps) = heap.get(parent) else {
                break;
            };
            if !Self::lower(slots, moving, ps) {
                break;
            }
            Self::place(heap, slots, links, pos, ps);
            pos = parent;
        }
        Self::place(heap, slots, links, pos, moving);
    }

    /// The lowest-ranked child of heap position `pos`: its heap position and slot, or `None` at a
    /// leaf.
    ///
    /// Which child wins is data, not pattern: on a stream of new keys a replaced minimum runs down
    /// the whole heap and each of its steps plays this tournament, so its three games are selects
    /// on entries loaded up front (no branch to mispredict), and the function is inlined into the
    /// sift loops. Measured on the headless `tui-demo report` (3.1M lines of Rust sources, one
    /// `SpaceSaving<u64, 1000>` step per line): the run's CPU time 0.72 → 0.59 s (median of 5); on
    /// Cortex-M0 it costs 340 B of code (the tournament is written out in both sift loops).
    #[inline(always)]
    fn lowest_child(heap: &[u16], slots: &[Entry<T, C, X>], pos: usize) -> Option<(usize, u16)> {
        let first = ARITY * pos + 1;
        if let Some(&[a, b, c, d]) = heap.get(first..first + ARITY) {
            // A full set of children (every inner node but the last): a two-round tournament,
            // whose two first games are independent of each other.
            if let (Some(ea), Some(eb), Some(ec), Some(ed)) = (
                slots.get(usize::from(a)),
                slots.get(usize::from(b)),
                slots.get(usize::from(c)),
                slots.get(usize::from(d)),
            ) {
                let i = usize::from(ranks_below(eb.count, &eb.key, ea.count, &ea.key));
                let j = 2 + usize::from(ranks_below(ed.count, &ed.key, ec.count, &ec.key));
                let (x, y) = (if i == 1 { eb } else { ea }, if j == 3 { ed } else { ec });
                let k = if ranks_below(y.count, &y.key, x.count, &x.key) {
                    j
                } else {
                    i
                };
                let slot = [a, b, c, d].get(k).copied().unwrap_or(a);
                return Some((first + k, slot));
            }
        }
        let kids = heap.get(first..)?;
        let (&s0, rest) = kids.split_first()?;
        let mut best = (first, s0);
        for (i, &s) in (first + 1..).zip(rest) {
            if Self::lower(slots, s, best.1) {
                best = (i, s);
            }
        }
        Some(best)
    }

    /// Moves the entry at heap position `pos` down while a child ranks below it (an entry whose
    /// count was raised, which usually moves little).
    fn sift_down(&mut self, mut pos: usize) {
        let end = self.heap_end();
        let Some(heap) = self.heap.get_mut(..end) else {
            return;
        };
        let (slots, links) = (&mut self.slots, &mut self.links);
        let Some(&moving) = heap.get(pos) else {
            return;
        };
        while let Some((child, cs)) = Self::lowest_child(heap, slots, pos) {
            if !Self::lower(slots, cs, moving) {
                break;
            }
            Self::place(heap, slots, links, pos, cs);
            pos = child;
        }
        Self::place(heap, slots, links, pos, moving);
    }

    /// Moves the new entry at the top of the heap down to its place.
    ///
    /// Bottom-up (Floyd): the hole first runs down to a leaf along the lowest-ranked children, then
    /// the entry climbs back to its place ([`sift_up`](Self::sift_up)). A replaced minimum (new
    /// count just above the old smallest) belongs near the leaves, so the climb is short, and the
    /// descent has no data-dependent exit.
    fn sift_down_from_top(&mut self) {
        if let Some(&moving) = self.heap.first() {
            self.sift_in_from_top(moving);
        }
    }

    /// Puts slot `moving` in place of the top of the heap, then moves it down to its place.
    ///
    /// Bottom-up (Floyd): the hole first runs down to a leaf along the lowest-ranked children, then
    /// the entry climbs back to its place ([`sift_up`](Self::sift_up)).
    fn sift_in_from_top(&mut self, moving: u16) {
        let end = self.heap_end();
        let Some(heap) = self.heap.get_mut(..end) else {
            return;
        };
        let (slots, links) = (&mut self.slots, &mut self.links);
        let mut hole = 0;
        while let Some((child, cs)) = Self::lowest_child(heap, slots, hole) {
            Self::place(heap, slots, links, hole, cs);
            hole = child;
        }
        Self::place(heap, slots, links, hole, moving);
        self.sift_up(hole);
    }

    /// `true` if slot `a` ranks below slot `b` (see [`ranks_below`]); a missing slot ranks above all.
    #[inline]
    fn lower(slots: &[Entry<T, C, X>], a: u16, b: u16) -> bool {
        match (slots.get(usize::from(a)), slots.get(usize::from(b))) {
            (Some(a), Some(b)) => ranks_below(a.count, &a.key, b.count, &b.key),
            (a, _) => a.is_some(),
        }
    }

    /// Puts slot `s` at heap position `pos` and records the position in the slot.
    #[inline]
    fn place(
        heap: &mut [u16],
        slots: &mut heapless::Vec<Entry<T, C, X>, K>,
        links: &mut Links<K>,
        pos: usize,
        s: u16,
    ) {
        debug_assert!(
            pos < heap.len() && usize::from(s) < slots.len(),
            "heap position {pos} or slot {s} out of range"
        );
        if let Some(h) = heap.get_mut(pos) {
            *h = s;
        }
        #[cfg(target_pointer_width = "64")]
        let (_, link) = (slots, links.get_mut(usize::from(s)));
        #[cfg(not(target_pointer_width = "64"))]
        let (_, link) = (links, slots.get_mut(usize::from(s)).map(|e| &mut e.link));
        if let Some(link) = link {
            link.pos = pos as u16;
        }
    }

    /// Checks the order, the back-pointers and the index (for tests).
    #[cfg(test)]
    pub(crate) fn check(&self) {
        let n = self.slots.len();
        let h = self.heap_end();
        for pos in 1..h {
            let (parent, child) = (self.heap[(pos - 1) / ARITY], self.heap[pos]);
            assert!(Self::lower(&self.slots, parent, child));
        }
        if self.tiered() {
            let least = self.slots.iter().map(|e| e.count).min().unwrap();
            assert_eq!(self.least, least);
            let next = Self::succ(least);
            let (mut low, mut up) = (0, 0);
            for (s, e) in self.slots.iter().enumerate() {
                let pos = usize::from(self.link(s as u16).unwrap().pos);
                if e.count == least {
                    low += 1;
                    let listed = &self.low[..usize::from(self.low_len)];
                    assert_eq!(listed.iter().filter(|&&l| usize::from(l) == s).count(), 1);
                } else if Some(e.count) == next {
                    up += 1;
                    assert!(pos >= K - usize::from(self.next_len));
                    assert_eq!(usize::from(self.heap[pos]), s);
                } else {
                    assert!(pos < h);
                    assert_eq!(usize::from(self.heap[pos]), s);
                }
            }
            assert_eq!(
                (low, up),
                (usize::from(self.low_live), usize::from(self.next_len))
            );
            assert_eq!(low + up + h, n);
            let listed = &self.low[..usize::from(self.low_len)];
            assert!(listed.windows(2).all(|w| {
                self.slots[usize::from(w[0])].key.as_borrowed()
                    < self.slots[usize::from(w[1])].key.as_borrowed()
            }));
            let last = &self.slots[usize::from(*listed.last().unwrap())];
            assert_eq!(last.count, least);
            if let Some(top) = self.count_at(0) {
                assert!(next.is_some_and(|next| top > next));
            }
        } else {
            assert_eq!((h, self.next_len), (n, 0));
            for s in 0..n {
                assert_eq!(
                    usize::from(self.heap[usize::from(self.link(s as u16).unwrap().pos)]),
                    s
                );
            }
        }
        // The lowest-ranked entry is the one a full tracker evicts.
        if let Some(lowest) = self.lowest() {
            let e = &self.slots[usize::from(lowest)];
            assert!(self
                .slots
                .iter()
                .all(|o| core::ptr::eq(o, e) || ranks_below(e.count, &e.key, o.count, &o.key)));
        }
        for (s, e) in self.slots.iter().enumerate() {
            assert_eq!(
                self.find(self.link(s as u16).unwrap().fp, e.key.as_borrowed()),
                Some(s as u16)
            );
        }
        let chained: usize = (0..K)
            .map(|b| {
                let mut s = self.heads[b];
                let mut len = 0;
                while s != NIL {
                    assert!(usize::from(s) < n);
                    assert_eq!(Self::bucket(self.link(s).unwrap().fp), b);
                    s = self.link(s).unwrap().next;
                    len += 1;
                }
                len
            })
            .sum();
        assert_eq!(chained, n);
    }
}

/// Collects at most `N` items into a `heapless::Vec` (callers pass no more; any beyond are dropped).
/// `collect` into a `heapless::Vec` panics when the items overflow it, which would leave a panic path
/// in every caller; this pushes until the Vec is full instead.
pub(crate) fn bounded<I: IntoIterator, const N: usize>(items: I) -> heapless::Vec<I::Item, N> {
    let mut v = heapless::Vec::new();
    for item in items {
        if v.push(item).is_err() {
            break;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::hash64;
    use sketch_rng::SplitMix64;

    fn fp(k: u32) -> u32 {
        Tracker::<u32, u32, (), 8>::fingerprint(hash64(&k, 0))
    }

    #[test]
    fn heap_index_and_replacement_stay_consistent() {
        consistent::<true>();
        consistent::<false>();
    }

    fn consistent<const TIERS: bool>() {
        let mut t = Tracker::<u32, u32, (), 8, TIERS>::new();
        let mut x = 1u32;
        for step in 0..5_000u32 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let key = x >> 27; // 32 distinct keys for 8 slots
            let f = fp(key);
            if let Some(s) = t.find(f, &key) {
                let c = t.get(s).unwrap().count;
                t.raise(s, c + 1 + step % 3, ());
            } else if !t.is_full() {
                t.push(key, f, 1, ()).unwrap();
            } else {
                let min = t.min().unwrap();
                t.replace_min(key, f, min + 1, ());
            }
            t.check();
        }
        let sorted = t.sorted();
        assert_eq!(sorted.len(), 8);
        assert!(sorted.windows(2).all(|w| w[0].count >= w[1].count));
        assert_eq!(t.min(), sorted.last().map(|e| e.count));
        drop(sorted);
        assert_eq!(t.push(99, fp(99), 1, ()), Err(99));
        t.update_all(|k, c, ()| (if k % 2 == 0 { c / 2 } else { c * 2 }, ()));
        t.check();
        t.clear();
        assert_eq!((t.len(), t.min()), (0, None));
        t.check();
    }

    /// A tracker checked against a plain model after every operation, in both layouts: the slot
    /// of every entry (the storage order the wire writes), its count and payload, the smallest
    /// count and the entry evicted next. The model is a list in slot order that finds the
    /// lowest-ranked entry by scanning it.
    struct Model<C> {
        entries: std::vec::Vec<(u32, C, u32)>,
    }

    impl<C: Counter> Model<C> {
        fn lowest(&self) -> Option<usize> {
            (0..self.entries.len()).reduce(|a, b| {
                let (ea, eb) = (&self.entries[a], &self.entries[b]);
                if ranks_below(eb.1, &eb.0, ea.1, &ea.0) {
                    b
                } else {
                    a
                }
            })
        }
    }

    fn same<C: Counter, const K: usize, const TIERS: bool>(
        t: &Tracker<u32, C, u32, K, TIERS>,
        m: &Model<C>,
    ) {
        t.check();
        let listed: std::vec::Vec<_> = t
            .entries()
            .iter()
            .map(|e| (e.key, e.count, e.extra))
            .collect();
        assert_eq!(listed, m.entries);
        assert_eq!(t.min(), m.entries.iter().map(|e| e.1).min());
        if t.is_full() {
            assert_eq!(t.lowest().map(usize::from), m.lowest());
        }
    }

    /// Runs `steps` random operations; `key` draws the next key, `by` a raise.
    fn against_model<C: Counter, const K: usize, const TIERS: bool>(
        seed: u64,
        steps: usize,
        mut key: impl FnMut(&mut SplitMix64) -> u32,
        by: u64,
    ) {
        let mut rng = SplitMix64(seed);
        let mut t = Tracker::<u32, C, u32, K, TIERS>::new();
        let mut m = Model::<C> {
            entries: std::vec::Vec::new(),
        };
        for step in 0..steps {
            let k = key(&mut rng);
            let f = Tracker::<u32, C, u32, K, TIERS>::fingerprint(hash64(&k, 5));
            let extra = rng.next_u64() as u32;
            match (t.find(f, &k), rng.below(500)) {
                (_, 0) => {
                    // Counts change in bulk (a halving, a merge's first step).
                    let (mul, add) = (rng.below(3), rng.below(3));
                    let g = |k: &u32, c: C, x: u32| {
                        let c = C::from_u64((c.to_u64() * mul / 2 + add * u64::from(k % 2)).max(1));
                        (c, x.wrapping_add(1))
                    };
                    t.update_all(g);
                    for e in &mut m.entries {
                        (e.1, e.2) = g(&e.0, e.1, e.2);
                    }
                }
                (_, 1) => {
                    t.clear();
                    m.entries.clear();
                }
                (Some(s), _) => {
                    let i = usize::from(s);
                    assert_eq!(m.entries[i].0, k);
                    let c = m.entries[i]
                        .1
                        .saturating_inc(C::from_u64(rng.below(by + 1)));
                    t.raise(s, c, extra);
                    m.entries[i].1 = c;
                    m.entries[i].2 = extra;
                }
                (None, r) => {
                    let min = m.entries.iter().map(|e| e.1).min().unwrap_or(C::ZERO);
                    // Mostly the smallest count plus a little, sometimes below it.
                    let c = if r % 50 == 2 {
                        C::from_u64(1 + rng.below(min.to_u64().max(1)))
                    } else {
                        min.saturating_inc(C::from_u64(rng.below(by + 1)))
                    };
                    if m.entries.len() < K {
                        assert!(t.push(k, f, c, extra).is_ok());
                        m.entries.push((k, c, extra));
                    } else if r % 7 == 3 {
                        let enters = !t.cannot_enter(c, &k);
                        t.offer_untracked(&k, f, c, extra);
                        let i = m.lowest().unwrap();
                        let e = m.entries[i];
                        assert_eq!(enters, ranks_below(e.1, &e.0, c, &k), "step {step}");
                        if enters {
                            m.entries[i] = (k, c, extra);
                        }
                    } else {
                        t.replace_min(k, f, c, extra);
                        let i = m.lowest().unwrap();
                        m.entries[i] = (k, c, extra);
                    }
                }
            }
            same(&t, &m);
        }
    }

    fn both_layouts<C: Counter, const K: usize>(
        seed: u64,
        steps: usize,
        key: impl FnMut(&mut SplitMix64) -> u32 + Clone,
        by: u64,
    ) {
        against_model::<C, K, true>(seed, steps, key.clone(), by);
        against_model::<C, K, false>(seed, steps, key, by);
    }

    /// Both layouts fed the same mostly-new keys of type `T` (each new key replaces the lowest
    /// entry at the smallest count plus one or two, a listed key is raised): the tiered tracker
    /// must keep the same entries in the same slots as the heap alone, and its lowest tier in key
    /// order ([`Tracker::check`]).
    fn layouts_agree<T: OwnedKey + core::fmt::Debug + PartialEq, const K: usize>(
        seed: u64,
        mut draw: impl FnMut(&mut SplitMix64) -> T,
    ) {
        let mut rng = SplitMix64(seed);
        let mut tiered = Tracker::<T, u32, (), K, true>::new();
        let mut heap = Tracker::<T, u32, (), K, false>::new();
        for _ in 0..6_000 {
            let key = draw(&mut rng);
            let f = Tracker::<T, u32, (), K>::fingerprint(hash64(key.as_borrowed(), 1));
            let by = 1 + rng.below(2) as u32;
            match (
                tiered.find(f, key.as_borrowed()),
                heap.find(f, key.as_borrowed()),
            ) {
                (Some(s), Some(h)) => {
                    assert_eq!(s, h);
                    let c = tiered.get(s).unwrap().count + by;
                    tiered.raise(s, c, ());
                    heap.raise(h, c, ());
                }
                (None, None) => {
                    let c = tiered.min().unwrap_or(0) + by;
                    tiered.push_or_replace_min(key.clone(), f, c, ());
                    heap.push_or_replace_min(key, f, c, ());
                }
                other => panic!("found in one layout only: {other:?}"),
            }
            tiered.check();
            let a = tiered
                .entries()
                .iter()
                .map(|e| (e.key.as_borrowed(), e.count));
            assert!(a.eq(heap
                .entries()
                .iter()
                .map(|e| (e.key.as_borrowed(), e.count))));
        }
    }

    /// Keys whose sort prefixes ([`OwnedKey::order_prefix`]) tie once packed with a slot number
    /// ([`Tracker::sort_low`] keeps a prefix's bits from the highest one where the lowest tier's
    /// prefixes differ, less the low 16): 64-bit keys with random high bits and low bits that
    /// are dropped, strings with long common prefixes, and keys that all share one prefix.
    #[test]
    fn the_lowest_tier_sorts_keys_whose_prefixes_tie() {
        for seed in 0..3 {
            // High bits tell some apart, the low 16 (dropped) the others.
            layouts_agree::<u64, 64>(seed, |r| {
                r.below(4) << 62 | r.below(8) << 16 | r.below(1 << 16)
            });
            layouts_agree::<u64, 200>(seed, |r| r.next_u64());
            // Tiers of more than `RADIX_FROM` entries (the radix sort and its buffers).
            layouts_agree::<u64, 700>(seed, |r| r.next_u64());
            layouts_agree::<u64, 700>(seed, |r| r.below(3) << 62 | r.below(1 << 17));
            // Nothing but the dropped bits.
            layouts_agree::<u64, 32>(seed, |r| r.below(1 << 16));
            // Text: a common 8-byte prefix (every prefix ties) or a short random one.
            layouts_agree::<heapless::String<12>, 48>(seed, |r| {
                let mut s = heapless::String::new();
                let head = if r.chance(0.5) { "GET /api" } else { "" };
                let _ = s.push_str(head);
                while s.len() < 12 && r.chance(0.8) {
                    let _ = s.push(char::from(b"ab/z"[r.below(4) as usize]));
                }
                s
            });
        }
    }

    /// The radix sort gives core's order: random numbers, numbers whose top 16 bits mostly tie
    /// (long runs for core's sort), numbers that differ in one digit only (a skipped pass), and
    /// repeated numbers.
    #[test]
    fn packed_numbers_sort_as_core_sorts_them() {
        let mut rng = SplitMix64(5);
        let mut scratch = [0; 2_048];
        for n in [0, 1, 2, 255, 256, 257, 1_000, 2_048, 2_049] {
            for shape in 0..5 {
                let mut v: std::vec::Vec<u64> = (0..n)
                    .map(|_| match shape {
                        0 => rng.next_u64(),
                        1 => rng.below(4) << 60 | rng.below(1 << 40),
                        2 => rng.below(256) << 48 | 7,
                        3 => rng.below(5) << 56,
                        _ => rng.below(3) << 62 | rng.next_u64() >> 30,
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                Tracker::<u64, u32, (), 8>::sort_packed(&mut v, &mut scratch);
                assert_eq!(v, want, "n {n} shape {shape}");
            }
        }
    }

    /// Mostly new keys (the stream of a log's whole lines: nearly every event evicts), a skewed
    /// stream (a uniform key below a uniform bound: key `r` has weight about `ln(n / r)`), weighted
    /// raises, and counters that saturate (`u8`).
    #[test]
    fn matches_a_scanning_model() {
        let distinct = |rng: &mut SplitMix64| {
            if rng.chance(0.85) {
                rng.next_u64() as u32
            } else {
                let bound = rng.below(2_000) + 1;
                rng.below(bound) as u32
            }
        };
        let skewed = |rng: &mut SplitMix64| {
            let bound = rng.below(300) + 1;
            rng.below(bound) as u32
        };
        let few = |rng: &mut SplitMix64| rng.below(12) as u32;
        for seed in 0..4 {
            both_layouts::<u32, 16>(seed, 20_000, distinct, 1);
            both_layouts::<u32, 16>(seed, 20_000, skewed, 1);
            both_layouts::<u32, 64>(seed, 20_000, distinct, 3);
            both_layouts::<u32, 64>(seed, 20_000, skewed, 4);
            both_layouts::<u32, 1>(seed, 2_000, skewed, 2);
            both_layouts::<u32, 8>(seed, 5_000, few, 2);
            both_layouts::<u8, 16>(seed, 20_000, skewed, 3);
            both_layouts::<u8, 8>(seed, 20_000, few, 9);
        }
    }
}
