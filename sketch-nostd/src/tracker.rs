//! A fixed-capacity min-heap of keyed counts with a hash index: the shared core of [`TopK`] and
//! [`SpaceSaving`].
//!
//! Entries live in stable slots (a `heapless::Vec`, never moved once written). The heap (4-ary)
//! orders slot numbers by count, smallest first, and each slot remembers its heap position so that
//! a count can be raised in O(log K).
//!
//! **Ranking.** Entries rank by count, largest first, and equal counts by key, smallest first
//! ([`ranks_below`]): a total order on distinct keys that depends only on what is stored. The heap
//! keeps the lowest-ranked entry on top, so the entry a full tracker evicts, the order of
//! [`sorted`](Tracker::sorted), and so everything a summary does with its entries, depend on its
//! contents only, never on the order of events that produced the heap's layout. Two summaries with
//! the same contents (say, one and its decoded copy) behave the same from then on.
//!
//! The index is a chained hash table with `K` buckets (load factor at most 1):
//! `heads[bucket]` is the first slot of a bucket and each slot links to the next, so finding a key
//! costs O(1) expected. Slot numbers are `u16`, so `K` is below 65,535.
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
    /// High half of the key's hash: its bucket and a quick inequality test.
    fp: u32,
    /// Position of this slot in the heap.
    pos: u16,
    /// Next slot in the same bucket, or [`NIL`].
    next: u16,
}

/// Up to `K` keys with counts, the smallest count on top.
#[derive(Clone, Debug)]
pub(crate) struct Tracker<T, C, X, const K: usize> {
    slots: heapless::Vec<Entry<T, C, X>, K>,
    /// `heap[..len]`: slot numbers in min-heap order of their counts.
    heap: [u16; K],
    /// First slot of each bucket, or [`NIL`].
    heads: [u16; K],
}

impl<T: OwnedKey, C: Counter, X: Copy, const K: usize> Tracker<T, C, X, K> {
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

    pub(crate) const fn new() -> Self {
        let _ = Self::K32;
        Self {
            slots: heapless::Vec::new(),
            heap: [NIL; K],
            heads: [NIL; K],
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

    /// The entries, in slot order (neither sorted nor heap order).
    pub(crate) fn entries(&self) -> &[Entry<T, C, X>] {
        &self.slots
    }

    /// The smallest count, if any key is tracked.
    #[inline]
    pub(crate) fn min(&self) -> Option<C> {
        self.count_at(0)
    }

    /// `true` if the tracker is full and an untracked `key` with `count` would not rank above its
    /// lowest-ranked entry (the one [`replace_min`](Self::replace_min) evicts), so offering it
    /// changes nothing.
    #[inline]
    pub(crate) fn cannot_enter(&self, count: C, key: &T) -> bool {
        if !self.is_full() {
            return false;
        }
        let lowest = self
            .heap
            .first()
            .and_then(|&s| self.slots.get(usize::from(s)));
        lowest.is_some_and(|e| !ranks_below(e.count, &e.key, count, key))
    }

    /// The slot holding `key` (whose hash has fingerprint `fp`).
    #[inline]
    pub(crate) fn find(&self, fp: u32, key: &T::Borrowed) -> Option<u16> {
        let mut s = *self.heads.get(Self::bucket(fp))?;
        while let Some(entry) = self.slots.get(usize::from(s)) {
            if entry.fp == fp && entry.key.as_borrowed() == key {
                return Some(s);
            }
            s = entry.next;
        }
        None
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
        if let Some(e) = self.slots.get_mut(usize::from(slot)) {
            e.count = count;
            e.extra = extra;
            let pos = usize::from(e.pos);
            self.sift_down(pos);
        }
    }

    /// Adds a key that is not tracked yet, if there is room; gives it back if full.
    pub(crate) fn push(&mut self, key: T, fp: u32, count: C, extra: X) -> Result<(), T> {
        let slot = self.slots.len();
        let pos = slot; // the heap and the slots have the same length
        let bucket = Self::bucket(fp);
        let (Some(head), Some(heap_pos)) =
            (self.heads.get(bucket).copied(), self.heap.get_mut(pos))
        else {
            return Err(key);
        };
        let entry = Entry {
            key,
            count,
            extra,
            fp,
            pos: pos as u16,
            next: head,
        };
        if let Err(entry) = self.slots.push(entry) {
            return Err(entry.key);
        }
        *heap_pos = slot as u16;
        if let Some(h) = self.heads.get_mut(bucket) {
            *h = slot as u16;
        }
        self.sift_up(pos);
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

    /// Replaces the key with the smallest count by a key that is not tracked yet.
    pub(crate) fn replace_min(&mut self, key: T, fp: u32, count: C, extra: X) {
        let Some(&slot) = self.heap.first() else {
            return;
        };
        if usize::from(slot) >= self.slots.len() {
            return;
        }
        self.unlink(slot);
        let bucket = Self::bucket(fp);
        let head = self.heads.get(bucket).copied().unwrap_or(NIL);
        if let Some(e) = self.slots.get_mut(usize::from(slot)) {
            e.key = key;
            e.count = count;
            e.extra = extra;
            e.fp = fp;
            e.next = head;
        }
        if let Some(h) = self.heads.get_mut(bucket) {
            *h = slot;
        }
        self.sift_down_from_top();
    }

    /// Removes `slot` from its bucket's chain (the slot itself stays in place).
    fn unlink(&mut self, slot: u16) {
        debug_assert!(
            usize::from(slot) < self.slots.len(),
            "slot {slot} not in use"
        );
        let Some(entry) = self.slots.get(usize::from(slot)) else {
            return;
        };
        let (bucket, next) = (Self::bucket(entry.fp), entry.next);
        let Some(head) = self.heads.get_mut(bucket) else {
            return;
        };
        if *head == slot {
            *head = next;
            return;
        }
        let mut s = *head;
        while let Some(e) = self.slots.get_mut(usize::from(s)) {
            if e.next == slot {
                e.next = next;
                return;
            }
            s = e.next;
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

    /// Applies `f` to every entry's count and payload, then restores the heap order.
    pub(crate) fn update_all(&mut self, mut f: impl FnMut(&T, C, X) -> (C, X)) {
        for e in self.slots.iter_mut() {
            (e.count, e.extra) = f(&e.key, e.count, e.extra);
        }
        let inner = self.slots.len().saturating_sub(1) / ARITY + 1;
        for pos in (0..inner.min(self.slots.len())).rev() {
            self.sift_down(pos);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.slots.clear();
        self.heap = [NIL; K];
        self.heads = [NIL; K];
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

    /// The count of the slot at heap position `pos`.
    #[inline]
    fn count_at(&self, pos: usize) -> Option<C> {
        let slot = *self.heap.get(..self.slots.len())?.get(pos)?;
        Some(self.slots.get(usize::from(slot))?.count)
    }

    /// Moves the entry at heap position `pos` up while its parent ranks below it.
    fn sift_up(&mut self, mut pos: usize) {
        let Some(heap) = self.heap.get_mut(..self.slots.len()) else {
            return;
        };
        let slots = &mut self.slots;
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
            Self::place(heap, slots, pos, ps);
            pos = parent;
        }
        Self::place(heap, slots, pos, moving);
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
        let Some(heap) = self.heap.get_mut(..self.slots.len()) else {
            return;
        };
        let slots = &mut self.slots;
        let Some(&moving) = heap.get(pos) else {
            return;
        };
        while let Some((child, cs)) = Self::lowest_child(heap, slots, pos) {
            if !Self::lower(slots, cs, moving) {
                break;
            }
            Self::place(heap, slots, pos, cs);
            pos = child;
        }
        Self::place(heap, slots, pos, moving);
    }

    /// Moves the new entry at the top of the heap down to its place.
    ///
    /// Bottom-up (Floyd): the hole first runs down to a leaf along the lowest-ranked children, then
    /// the entry climbs back to its place ([`sift_up`](Self::sift_up)). A replaced minimum (new
    /// count just above the old smallest) belongs near the leaves, so the climb is short, and the
    /// descent has no data-dependent exit.
    fn sift_down_from_top(&mut self) {
        let Some(heap) = self.heap.get_mut(..self.slots.len()) else {
            return;
        };
        let slots = &mut self.slots;
        let Some(&moving) = heap.first() else {
            return;
        };
        let mut hole = 0;
        while let Some((child, cs)) = Self::lowest_child(heap, slots, hole) {
            Self::place(heap, slots, hole, cs);
            hole = child;
        }
        Self::place(heap, slots, hole, moving);
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
    fn place(heap: &mut [u16], slots: &mut heapless::Vec<Entry<T, C, X>, K>, pos: usize, s: u16) {
        debug_assert!(
            pos < heap.len() && usize::from(s) < slots.len(),
            "heap position {pos} or slot {s} out of range"
        );
        if let Some(h) = heap.get_mut(pos) {
            *h = s;
        }
        if let Some(e) = slots.get_mut(usize::from(s)) {
            e.pos = pos as u16;
        }
    }

    /// Checks the heap order, the back-pointers and the index (for tests).
    #[cfg(test)]
    pub(crate) fn check(&self) {
        let n = self.slots.len();
        for pos in 1..n {
            let (parent, child) = (self.heap[(pos - 1) / ARITY], self.heap[pos]);
            assert!(Self::lower(&self.slots, parent, child));
        }
        for (s, e) in self.slots.iter().enumerate() {
            assert_eq!(usize::from(self.heap[usize::from(e.pos)]), s);
            assert_eq!(self.find(e.fp, e.key.as_borrowed()), Some(s as u16));
        }
        let chained: usize = (0..K)
            .map(|b| {
                let mut s = self.heads[b];
                let mut len = 0;
                while s != NIL {
                    assert_eq!(Self::bucket(self.slots[usize::from(s)].fp), b);
                    s = self.slots[usize::from(s)].next;
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

    fn fp(k: u32) -> u32 {
        Tracker::<u32, u32, (), 8>::fingerprint(hash64(&k, 0))
    }

    #[test]
    fn heap_index_and_replacement_stay_consistent() {
        let mut t = Tracker::<u32, u32, (), 8>::new();
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
}
