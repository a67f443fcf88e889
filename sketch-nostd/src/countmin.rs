//! The count-min sketch (Cormode, Muthukrishnan 2004): "how often?" in fixed memory, never an
//! underestimate.
//!
//! `D` rows of `W` counters. Adding `c` to a key adds `c` to one counter in every row; the estimate is
//! the smallest of the key's `D` counters. Other keys can only add to a counter, so the estimate is
//! never below the true count, and with `W = ⌈e/ε⌉`, `D = ⌈ln(1/δ)⌉` it is at most `ε·N` above it with
//! probability at least `1 − δ`, where `N` is the total of all counts added ([`sizing::cm_width`],
//! [`sizing::cm_depth`]).
//!
//! [`sizing::cm_width`]: crate::sizing::cm_width
//! [`sizing::cm_depth`]: crate::sizing::cm_depth

use core::fmt;
use core::marker::PhantomData;

pub use crate::counter::{Conservative, Counter, Standard, UpdatePolicy, UpdateRule};
use crate::error::{check_seeds, MergeError, PartsError};
use crate::hash::{hash64, reduce, Key, Probe};
use crate::sizing::{cm_delta, cm_epsilon};

/// A count-min sketch of `D` rows × `W` counters of type `C`, stored inline: no heap, no pointers.
///
/// * [`add`](Self::add) / [`increment`](Self::increment) hash the key once (xxh3-64 with the seed) and
///   pick its counter in row `i` by double hashing, each probe mixed so that rows collide
///   independently ([`Probe::nth_mixed`]), and multiply-shift reduction to `0..W`: any `W` works and
///   no division is needed.
/// * [`estimate`](Self::estimate) is the minimum of the key's counters: **never below the true count**
///   (up to saturation), and at most [`error_bound`](Self::error_bound) `= ε·N` above it with probability
///   `1 − δ`, where `ε = e/W` ([`EPSILON`](Self::EPSILON)) and `δ = e^(−D)` ([`DELTA`](Self::DELTA)).
/// * Counters **saturate** at `C::MAX` instead of wrapping; [`is_saturated`](Self::is_saturated)
///   reports it. A saturated counter keeps the "never under" promise for counts up to `C::MAX`.
///
/// # Update rules
///
/// `U` is the rule of [`add`](Self::add), chosen once with the type: [`Standard`] adds to every row;
/// [`Conservative`] (Estan–Varghese) raises only the counters below the key's new estimate `min + c`,
/// to `min + c`. Both keep both guarantees, because a conservative counter is never above the
/// standard one for the same stream.
///
/// Conservative update **forbids decrements**: a counter raised to one key's estimate also stands for
/// other keys, and taking a count back from all of a key's counters could push another key's
/// estimate below its true count. This type offers no decrement for either rule (counts only grow, up
/// to [`halve`](Self::halve) and [`clear`](Self::clear)).
///
/// # Merging
///
/// [`merge`](Self::merge) adds cell by cell (saturating). For standard update the result is exactly the
/// sketch of the concatenated streams. For conservative update the merged sketch still never
/// underestimates and is still within `ε·N` (of the combined `N`) with probability `1 − δ`, since each
/// cell is at most the standard sketch's cell, but it can be above what one conservative sketch fed both
/// streams would hold: merging loses part of the conservative advantage.
///
/// # Memory
///
/// `size_of` is the `W·D` counters plus the seed and `N` (two `u64`), rounded up to a multiple of 8.
/// `CountMin<2719, 5, u32>` (ε = 0.001, δ = 0.01) is 54,400 bytes: fine on a host or in a `static`, too
/// big for most microcontroller stacks. [`new`](Self::new) is a `const fn`, so put large sketches in a
/// `static` (behind a mutex or a `RefCell` in a critical section) rather than on the stack; on a host,
/// `Box::new(CountMin::new())` may build the value on the stack first in debug builds.
///
/// ```
/// use sketch_nostd::{sizing::{cm_depth, cm_width}, CountMin};
///
/// let mut plays = CountMin::<{ cm_width(0.01) }, { cm_depth(0.01) }, u16>::with_seed(7);
/// for song in ["intro", "hit", "hit", "hit", "b-side"] {
///     plays.increment(song);
/// }
/// plays.add("hit", 10);
/// assert!(plays.estimate("hit") >= 13); // never under
/// assert!(plays.estimate("hit") <= 13 + plays.error_bound()); // with probability ≥ 99%
/// assert_eq!(plays.total(), 15);
/// ```
///
/// Sizes that cannot work do not compile:
///
/// ```compile_fail
/// let _ = sketch_nostd::CountMin::<0, 4>::new();
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct CountMin<
    const W: usize,
    const D: usize,
    C: Counter = u32,
    U: UpdatePolicy = Conservative,
> {
    cells: [[C; W]; D],
    seed: u64,
    total: u64,
    rule: PhantomData<U>,
}

impl<const W: usize, const D: usize, C: Counter, U: UpdatePolicy> CountMin<W, D, C, U> {
    /// Counters per row, `W`.
    pub const WIDTH: usize = W;
    /// Rows, `D`.
    pub const DEPTH: usize = D;
    /// `ε = e/W`: estimates are within `ε·N` with probability `1 − δ`.
    pub const EPSILON: f64 = cm_epsilon(W);
    /// `δ = e^(−D)`: the probability that an estimate misses the `ε·N` bound.
    pub const DELTA: f64 = cm_delta(D);
    /// The largest count a counter holds, `C::MAX` as a `u64`.
    pub const MAX_COUNT: u64 = {
        // `to_u64` is not const; every counter type's maximum is all ones.
        u64::MAX >> (64 - 8 * core::mem::size_of::<C>())
    };
    /// The update rule of [`add`](Self::add), [`U::RULE`](UpdatePolicy::RULE).
    pub const RULE: UpdateRule = U::RULE;

    /// `W` as the `u32` that index reduction works with; the checks run at compile time.
    const W32: u32 = {
        assert!(W > 0, "a count-min row needs at least one counter (W > 0)");
        assert!(D > 0, "a count-min sketch needs at least one row (D > 0)");
        assert!(
            W <= u32::MAX as usize,
            "a count-min row holds at most 2^32 - 1 counters"
        );
        assert!(
            D <= u32::MAX as usize,
            "a count-min sketch has fewer than 2^32 rows"
        );
        W as u32
    };

    /// An empty sketch with seed 0.
    ///
    /// ```
    /// let cm = sketch_nostd::CountMin::<64, 4>::new();
    /// assert_eq!((cm.total(), cm.seed()), (0, 0));
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_seed(0)
    }

    /// An empty sketch whose hashes use `seed`. Only sketches with equal seeds merge.
    ///
    /// ```
    /// let cm = sketch_nostd::CountMin::<64, 4>::with_seed(99);
    /// assert_eq!(cm.seed(), 99);
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        let _ = Self::W32; // evaluates the parameter checks at compile time
        Self {
            cells: [[C::ZERO; W]; D],
            seed,
            total: 0,
            rule: PhantomData,
        }
    }

    /// A sketch from its raw parts, as returned by [`cells`](Self::cells), [`seed`](Self::seed) and
    /// [`total`](Self::total).
    ///
    /// Fails with [`PartsError::RowAboveTotal`] if a row's counters add up to more than `total`: every
    /// sequence of additions, halvings and merges keeps each row's sum at or below `N` (exactly `N` for
    /// standard update without saturation or halving), so such parts were not produced by a sketch.
    ///
    /// ```
    /// use sketch_nostd::{CountMin, PartsError};
    /// let mut a = CountMin::<8, 2, u8>::with_seed(3);
    /// a.add("x", 5);
    /// let b = CountMin::from_parts(*a.cells(), a.seed(), a.total())?;
    /// assert_eq!(a, b);
    /// assert_eq!(
    ///     CountMin::<8, 2, u8>::from_parts(*a.cells(), 3, 4),
    ///     Err(PartsError::RowAboveTotal { row: 0 })
    /// );
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn from_parts(cells: [[C; W]; D], seed: u64, total: u64) -> Result<Self, PartsError> {
        check_rows(&cells, total)?;
        let mut sketch = Self::with_seed(seed);
        sketch.cells = cells;
        sketch.total = total;
        Ok(sketch)
    }

    /// Replaces the counters, `N` and the seed in place: `fill` writes the counters (zeroed first)
    /// and returns `N`, and the parts are then checked as by [`from_parts`](Self::from_parts) (a
    /// refusal is turned into `E` by `invalid`). On any error the sketch is left empty with its own
    /// seed. Crate-internal: for decoders that must not make a second sketch-sized value.
    #[cfg(feature = "wire")]
    pub(crate) fn load<E>(
        &mut self,
        seed: u64,
        fill: impl FnOnce(&mut [[C; W]; D]) -> Result<u64, E>,
        invalid: impl FnOnce(PartsError) -> E,
    ) -> Result<(), E> {
        self.cells.as_flattened_mut().fill(C::ZERO);
        self.total = 0;
        let result = fill(&mut self.cells).and_then(|total| {
            check_rows(&self.cells, total)
                .map_err(invalid)
                .map(|()| total)
        });
        match result {
            Ok(total) => {
                self.total = total;
                self.seed = seed;
                Ok(())
            }
            Err(e) => {
                self.cells.as_flattened_mut().fill(C::ZERO);
                Err(e)
            }
        }
    }

    /// [`from_parts`](Self::from_parts) from the counters as one row-major slice of `W·D` values, as
    /// returned by [`cells_flat`](Self::cells_flat). Fails with [`PartsError::LengthMismatch`] if the
    /// slice has another length.
    ///
    /// ```
    /// use sketch_nostd::{CountMin, PartsError};
    /// let mut a = CountMin::<8, 2>::new();
    /// a.increment(&1u64);
    /// let b = CountMin::<8, 2>::from_flat_cells(a.cells_flat(), 0, 1)?;
    /// assert_eq!(a, b);
    /// assert_eq!(
    ///     CountMin::<8, 2>::from_flat_cells(&[0; 15], 0, 0),
    ///     Err(PartsError::LengthMismatch { expected: 16, found: 15 })
    /// );
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn from_flat_cells(cells: &[C], seed: u64, total: u64) -> Result<Self, PartsError> {
        let expected = W * D;
        if cells.len() != expected {
            return Err(PartsError::LengthMismatch {
                expected,
                found: cells.len(),
            });
        }
        let mut sketch = Self::with_seed(seed);
        for (row, src) in sketch.cells.iter_mut().zip(cells.chunks_exact(W)) {
            row.copy_from_slice(src);
        }
        check_rows(&sketch.cells, total)?;
        sketch.total = total;
        Ok(sketch)
    }

    /// The counters, one array of `W` per row.
    ///
    /// ```
    /// let cm = sketch_nostd::CountMin::<4, 2, u8>::new();
    /// assert_eq!(cm.cells(), &[[0; 4]; 2]);
    /// ```
    #[must_use]
    pub const fn cells(&self) -> &[[C; W]; D] {
        &self.cells
    }

    /// The counters as one row-major slice of `W·D` values.
    ///
    /// ```
    /// let cm = sketch_nostd::CountMin::<4, 2, u8>::new();
    /// assert_eq!(cm.cells_flat().len(), 8);
    /// ```
    #[must_use]
    pub const fn cells_flat(&self) -> &[C] {
        self.cells.as_flattened()
    }

    /// The seed this sketch hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::CountMin::<4, 2>::with_seed(5).seed(), 5);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// `N`, the total of all counts added (saturating at `u64::MAX`), halved by [`halve`](Self::halve).
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<16, 2>::new();
    /// cm.add("a", 3);
    /// cm.increment("b");
    /// assert_eq!(cm.total(), 4);
    /// ```
    #[must_use]
    pub const fn total(&self) -> u64 {
        self.total
    }

    /// `true` if [`add`](Self::add) uses conservative update ([`U::RULE`](UpdatePolicy::RULE)).
    ///
    /// ```
    /// use sketch_nostd::{countmin::Conservative, CountMin};
    /// assert!(CountMin::<4, 2, u8, Conservative>::new().is_conservative());
    /// ```
    #[must_use]
    pub const fn is_conservative(&self) -> bool {
        matches!(U::RULE, UpdateRule::Conservative)
    }

    /// `ε = e/W` ([`EPSILON`](Self::EPSILON)).
    ///
    /// ```
    /// let cm = sketch_nostd::CountMin::<2719, 5>::new();
    /// assert!(cm.epsilon() <= 0.001);
    /// ```
    #[must_use]
    pub const fn epsilon(&self) -> f64 {
        Self::EPSILON
    }

    /// `δ = e^(−D)` ([`DELTA`](Self::DELTA)).
    ///
    /// ```
    /// let cm = sketch_nostd::CountMin::<2719, 5>::new();
    /// assert!(cm.delta() <= 0.01);
    /// ```
    #[must_use]
    pub const fn delta(&self) -> f64 {
        Self::DELTA
    }

    /// `⌊ε·N⌋`: with probability at least `1 − δ`, an estimate exceeds the true count by at most this.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<2719, 5>::new();
    /// for i in 0..200_000u32 { cm.increment(&(i % 50_000)); }
    /// assert_eq!(cm.error_bound(), 199); // e/2719 · 200,000 = 199.95
    /// ```
    #[must_use]
    pub fn error_bound(&self) -> u64 {
        // Saturating float-to-int cast; at most 1 ulp of rounding on a value far below 2^53.
        (Self::EPSILON * self.total as f64) as u64
    }

    /// Adds `count` occurrences of `key` with the type's rule `U` and returns the key's new estimate.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<64, 4>::new();
    /// assert_eq!(cm.add("GET /", 3), 3);
    /// assert_eq!(cm.add("GET /", 2), 5);
    /// ```
    #[inline]
    pub fn add<Q: Key + ?Sized>(&mut self, key: &Q, count: u64) -> u64 {
        self.update(hash64(key, self.seed), count, U::RULE)
    }

    /// Adds one occurrence of `key` and returns its new estimate.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<64, 4, u8>::new();
    /// cm.increment(&42u32);
    /// assert_eq!(cm.increment(&42u32), 2);
    /// ```
    #[inline]
    pub fn increment<Q: Key + ?Sized>(&mut self, key: &Q) -> u64 {
        self.add(key, 1)
    }

    /// [`add`](Self::add) for a key hashed by the caller: [`hash64`] with this sketch's seed gives the
    /// same result as `add`. Use a well-mixed 64-bit hash (both halves matter).
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, CountMin};
    /// let mut cm = CountMin::<64, 4>::new();
    /// cm.add_hash(hash64("k", cm.seed()), 2);
    /// assert_eq!(cm.estimate("k"), 2);
    /// ```
    #[inline]
    pub fn add_hash(&mut self, hash: u64, count: u64) -> u64 {
        self.update(hash, count, U::RULE)
    }

    /// Adds `count` to the key's counters by `rule`; returns the key's new estimate.
    #[inline]
    fn update(&mut self, hash: u64, count: u64, rule: UpdateRule) -> u64 {
        self.total = self.total.saturating_add(count);
        let columns = Self::columns(Probe::new(hash));
        match rule {
            UpdateRule::Standard => {
                let c = C::from_u64(count);
                let mut min = C::MAX;
                for (row, &column) in self.cells.iter_mut().zip(&columns) {
                    if let Some(cell) = row.get_mut(column) {
                        *cell = cell.saturating_inc(c);
                        min = min.min(*cell);
                    }
                }
                min.to_u64()
            }
            UpdateRule::Conservative => {
                // Raise the key's counters that are below `min + count` to it, storing only the
                // counters that change: an unconditional `max` store to unchanged cells would stall
                // the next events' loads of them.
                let new = C::from_u64(self.min_at(&columns).to_u64().saturating_add(count));
                for (row, &column) in self.cells.iter_mut().zip(&columns) {
                    if let Some(cell) = row.get_mut(column) {
                        if *cell < new {
                            *cell = new;
                        }
                    }
                }
                new.to_u64()
            }
        }
    }

    /// The key's estimated count: the minimum of its `D` counters. Never below the true count (up to
    /// `C::MAX`); above it by at most [`error_bound`](Self::error_bound) with probability `1 − δ`.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<256, 4>::new();
    /// cm.add(&7u16, 40);
    /// assert!(cm.estimate(&7u16) >= 40);
    /// assert_eq!(cm.estimate(&8u16), 0); // the only other key collides in all 4 rows with p ≈ 2^-32
    /// ```
    #[inline]
    #[must_use]
    pub fn estimate<Q: Key + ?Sized>(&self, key: &Q) -> u64 {
        self.estimate_hash(hash64(key, self.seed))
    }

    /// [`estimate`](Self::estimate) for a key hashed by the caller.
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, CountMin};
    /// let mut cm = CountMin::<64, 4>::new();
    /// cm.add("k", 9);
    /// assert_eq!(cm.estimate_hash(hash64("k", 0)), 9);
    /// ```
    #[inline]
    #[must_use]
    pub fn estimate_hash(&self, hash: u64) -> u64 {
        self.min_at(&Self::columns(Probe::new(hash))).to_u64()
    }

    /// The estimate the key would have after `self.merge(other)`, without merging: the smallest of
    /// its counters' saturating sums.
    pub(crate) fn merged_estimate_hash(&self, other: &Self, hash: u64) -> u64 {
        let mut min = u64::MAX;
        for ((ours, theirs), &column) in self
            .cells
            .iter()
            .zip(&other.cells)
            .zip(&Self::columns(Probe::new(hash)))
        {
            if let (Some(a), Some(b)) = (ours.get(column), theirs.get(column)) {
                min = min.min(a.saturating_inc(*b).to_u64());
            }
        }
        min
    }

    /// The key's column in each row: mixed probe `i` of its hash ([`Probe::nth_mixed`]), reduced to
    /// `0..W`, so that the rows collide independently.
    #[inline]
    fn columns(probe: Probe) -> [usize; D] {
        let mut columns = [0; D];
        for (i, column) in (0u32..).zip(columns.iter_mut()) {
            *column = reduce(probe.nth_mixed(i), Self::W32) as usize;
            // Every caller skips a column past the end; reduction never gives one.
            debug_assert!(*column < W, "reduce stays below W");
        }
        columns
    }

    /// The smallest counter at the given columns.
    #[inline]
    fn min_at(&self, columns: &[usize; D]) -> C {
        let mut min = C::MAX;
        for (row, &column) in self.cells.iter().zip(columns) {
            if let Some(&cell) = row.get(column) {
                min = min.min(cell);
            }
        }
        min
    }

    /// `true` if a counter or `N` has reached its maximum: from then on estimates of the keys counted
    /// there read `C::MAX` (or less after [`halve`](Self::halve)) instead of their true, larger count.
    /// Costs one pass over the counters.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<16, 2, u8>::new();
    /// cm.add("loud", 254);
    /// assert!(!cm.is_saturated());
    /// cm.add("loud", 10);
    /// assert!(cm.is_saturated());
    /// assert_eq!(cm.estimate("loud"), 255); // stops at u8::MAX, never wraps to 8
    /// ```
    #[must_use]
    pub fn is_saturated(&self) -> bool {
        self.total == u64::MAX || self.cells_flat().contains(&C::MAX)
    }

    /// Sets every counter and `N` to zero, keeping the seed.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<16, 2>::new();
    /// cm.add("a", 3);
    /// cm.clear();
    /// assert_eq!((cm.estimate("a"), cm.total()), (0, 0));
    /// ```
    pub fn clear(&mut self) {
        self.cells = [[C::ZERO; W]; D];
        self.total = 0;
    }

    /// Halves every counter and `N` (rounding down): aging, as in W-TinyLFU, so that old events
    /// weigh half as much as new ones. Estimates stay at or above the halved true counts.
    ///
    /// ```
    /// let mut cm = sketch_nostd::CountMin::<64, 4>::new();
    /// cm.add("old", 10);
    /// cm.halve();
    /// assert_eq!((cm.estimate("old"), cm.total()), (5, 5));
    /// ```
    pub fn halve(&mut self) {
        let mut largest_row = 0u64;
        for row in &mut self.cells {
            let mut sum = 0u64;
            for cell in row.iter_mut() {
                *cell = cell.halved();
                sum = sum.saturating_add(cell.to_u64());
            }
            largest_row = largest_row.max(sum);
        }
        // Without saturation a row adds up to at most `N`, so its halved cells add up to at most
        // `⌊N/2⌋` and this is `N >> 1`. Once `N` has saturated at `u64::MAX`, the `u64` cells of one
        // row can hold more than `N` together, and halving them separately would leave the row above
        // `N >> 1`: the total then stays at the largest halved row, the best lower bound of the true
        // halved `N` the sketch has, so every row stays at or below `N` (see `from_parts`).
        self.total = (self.total >> 1).max(largest_row);
    }

    /// Adds `other` cell by cell (saturating), so that this sketch counts both streams. Fails, leaving
    /// `self` unchanged, if the seeds differ. See the type docs for what merging conservative sketches
    /// guarantees.
    ///
    /// ```
    /// use sketch_nostd::CountMin;
    /// let (mut a, mut b) = (CountMin::<64, 4>::with_seed(1), CountMin::<64, 4>::with_seed(1));
    /// a.add("k", 2);
    /// b.add("k", 3);
    /// a.merge(&b)?;
    /// assert_eq!((a.estimate("k"), a.total()), (5, 5));
    /// assert!(a.merge(&CountMin::with_seed(2)).is_err());
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        check_seeds(self.seed, other.seed)?;
        for (cell, &theirs) in self
            .cells
            .as_flattened_mut()
            .iter_mut()
            .zip(other.cells_flat())
        {
            *cell = cell.saturating_inc(theirs);
        }
        self.total = self.total.saturating_add(other.total);
        Ok(())
    }
}

/// Checks that no row's counters add up to more than `total`.
fn check_rows<C: Counter, const W: usize>(cells: &[[C; W]], total: u64) -> Result<(), PartsError> {
    for (row, cells) in cells.iter().enumerate() {
        let sum = cells
            .iter()
            .fold(0u64, |sum, &c| sum.saturating_add(c.to_u64()));
        if sum > total {
            return Err(PartsError::RowAboveTotal { row });
        }
    }
    Ok(())
}

impl<const W: usize, const D: usize, C: Counter, U: UpdatePolicy> Default for CountMin<W, D, C, U> {
    fn default() -> Self {
        Self::new()
    }
}

/// Shows the shape, seed and `N`, not the `W·D` counters.
impl<const W: usize, const D: usize, C: Counter, U: UpdatePolicy> fmt::Debug
    for CountMin<W, D, C, U>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CountMin")
            .field("width", &W)
            .field("depth", &D)
            .field("counter", &C::NAME)
            .field("rule", &U::RULE)
            .field("seed", &self.seed)
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_cells_plus_seed_and_total() {
        use core::mem::size_of;
        assert_eq!(size_of::<CountMin<8, 2, u8>>(), 16 + 16);
        assert_eq!(size_of::<CountMin<16, 4, u16, Conservative>>(), 128 + 16);
        assert_eq!(size_of::<CountMin<2718, 5, u32>>(), 2718 * 5 * 4 + 16);
        // 2719·5·4 = 54,380 is 4 short of a multiple of 8: padding to the u64 alignment.
        assert_eq!(size_of::<CountMin<2719, 5, u32>>(), 54_400);
        assert_eq!(size_of::<CountMin<100, 3, u64>>(), 2400 + 16);
    }

    #[test]
    fn max_count_matches_counter_max() {
        assert_eq!(CountMin::<1, 1, u8>::MAX_COUNT, u8::MAX.to_u64());
        assert_eq!(CountMin::<1, 1, u16>::MAX_COUNT, u16::MAX.to_u64());
        assert_eq!(CountMin::<1, 1, u32>::MAX_COUNT, u32::MAX.to_u64());
        assert_eq!(CountMin::<1, 1, u64>::MAX_COUNT, u64::MAX);
    }

    #[test]
    fn huge_counts_saturate_everything() {
        let mut cm = CountMin::<4, 2, u64, Conservative>::new();
        cm.add("a", u64::MAX);
        cm.add("a", u64::MAX);
        assert_eq!(cm.estimate("a"), u64::MAX);
        assert_eq!(cm.total(), u64::MAX);
        assert!(cm.is_saturated());
        let copy = cm.clone();
        cm.merge(&copy).unwrap();
        assert_eq!(cm.estimate("a"), u64::MAX);
    }

    #[test]
    fn conservative_never_exceeds_standard() {
        let mut s = CountMin::<32, 3, u32, Standard>::new();
        let mut c = CountMin::<32, 3, u32, Conservative>::new();
        for i in 0..5_000u32 {
            let key = i.wrapping_mul(2_654_435_761) % 97;
            s.add(&key, u64::from(i % 3));
            c.add(&key, u64::from(i % 3));
        }
        for (a, b) in c.cells_flat().iter().zip(s.cells_flat()) {
            assert!(a <= b);
        }
        assert!(c.cells_flat().iter().sum::<u32>() < s.cells_flat().iter().sum::<u32>());
    }

    #[test]
    fn seed_mismatch_leaves_sketch_unchanged() {
        let mut a = CountMin::<8, 2>::with_seed(1);
        a.add("a", 1);
        let before = a.clone();
        assert_eq!(
            a.merge(&CountMin::<8, 2>::with_seed(2)),
            Err(MergeError::SeedMismatch { ours: 1, theirs: 2 })
        );
        assert_eq!(a, before);
    }

    #[test]
    fn parts_round_trip_and_reject_inflated_rows() {
        let mut a = CountMin::<8, 3, u16, Conservative>::with_seed(4);
        for i in 0..100u32 {
            a.increment(&i);
        }
        a.halve();
        let b = CountMin::<8, 3, u16, Conservative>::from_parts(*a.cells(), 4, a.total()).unwrap();
        assert_eq!(a, b);
        let mut cells = *a.cells();
        cells[2][0] += a.total() as u16;
        assert_eq!(
            CountMin::<8, 3, u16>::from_parts(cells, 4, a.total()),
            Err(PartsError::RowAboveTotal { row: 2 })
        );
    }

    #[test]
    fn debug_is_short() {
        let s = format!("{:?}", CountMin::<2719, 5, u32, Conservative>::with_seed(3));
        assert_eq!(
            s,
            "CountMin { width: 2719, depth: 5, counter: \"u32\", rule: Conservative, seed: 3, total: 0, .. }"
        );
    }
}
