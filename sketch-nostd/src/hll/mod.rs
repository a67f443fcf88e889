//! HyperLogLog distinct counting (Flajolet et al. 2007) with packed 6-bit registers, Ertl's improved
//! estimator, a martingale estimator for single streams, and an exact sparse form for small counts.
//!
//! [`HyperLogLog<P, BYTES>`](HyperLogLog) has `m = 2^P` registers (`P` in `4..=18`) packed at 6 bits in
//! exactly `BYTES = 3·2^P/4` bytes; use the aliases [`Hll10`], [`Hll12`], [`Hll14`], … (or
//! [`sizing::hll_bytes`](crate::sizing::hll_bytes)) rather than spelling `BYTES`. The relative standard
//! error is about 1.04/√m after merges and 0.83/√m for a single stream:
//!
//! | alias | registers | bytes | error (merged) | error (single stream) |
//! | --- | --- | --- | --- | --- |
//! | [`Hll10`] | 1,024 | 768 | 3.2% | 2.6% |
//! | [`Hll12`] | 4,096 | 3,072 | 1.6% | 1.3% |
//! | [`Hll14`] | 16,384 | 12,288 | 0.81% | 0.65% |
//! | [`Hll16`] | 65,536 | 49,152 | 0.41% | 0.33% |
//!
//! # How it works
//! * **Insert.** One 64-bit hash ([`hash64`] with the sketch's seed): the top `P` bits choose a
//!   register, which keeps the maximum rank ρ = (leading zeros of the other `64 − P` bits) + 1, in
//!   `1..=65 − P`. Duplicates change nothing. No division anywhere on this path.
//! * **Sparse form.** A new sketch stores exact hash "coupons" (`P + 7` index bits, 21 at `P = 14`,
//!   and a 6-bit rank) in the same bytes, up to 3/4 of `BYTES / 4` of them (2,304 at `P = 14`), and
//!   counts by linear counting over 2^(P+7) virtual registers: about n²/2^(P+8) collisions among n
//!   keys, a relative standard error of about 1/sqrt(2^(P+8)) (0.05% at `P = 14`, where counts up to
//!   a few hundred are almost always exact and a thousand is off by a key or two at most). When the
//!   coupons fill up, the sketch converts itself to dense registers in place, losing nothing (a coupon
//!   determines the register it updates).
//! * **Estimators.** [`cardinality`](HyperLogLog::cardinality) uses, in this order of preference:
//!   [`Estimator::Sparse`] while sparse; [`Estimator::Martingale`] (HIP, Ting 2014 / Cohen 2015) for a
//!   sketch fed by a single stream, updated on every register change and about 20% more accurate; and
//!   [`Estimator::Histogram`], Ertl's improved estimator ("New cardinality estimation algorithms for
//!   HyperLogLog sketches", 2017), which needs only the registers and is therefore what a merged sketch
//!   uses. Neither needs bias tables, and neither has a bump where linear counting used to hand over.
//!   They compute in integer arithmetic (a binary float with a 64-bit mantissa), converted to `f64`
//!   once: the same estimates on every target, and no soft-float routines or `libm` linked on parts
//!   without an FPU. The martingale estimate, which the wire format carries, is updated with exactly
//!   the rounding of IEEE 754 `f64` arithmetic, so encoded sketches are the same bytes everywhere.
//! * **Merge.** Register-wise maximum, for any mix of sparse and dense: commutative, associative and
//!   idempotent, and the merged registers are exactly those of one sketch fed both streams.
//!
//! ```
//! use sketch_nostd::{hll::Estimator, Hll14};
//!
//! // Two devices count visitors; the host merges their sketches.
//! let (mut monday, mut tuesday) = (Hll14::with_seed(7), Hll14::with_seed(7));
//! for id in 0..60_000u32 { monday.insert(&id); }
//! for id in 40_000..100_000u32 { tuesday.insert(&id); }
//! assert_eq!(monday.estimator(), Estimator::Martingale);
//!
//! let mut both = monday.clone();
//! both.merge(&tuesday)?;
//! assert_eq!(both.estimator(), Estimator::Histogram);
//! let (low, high) = (both.lower_bound(3), both.upper_bound(3));
//! assert!(low < 100_000.0 && 100_000.0 < high, "{low}..{high}");
//! assert_eq!(core::mem::size_of_val(&both), 12_288 + 48); // registers + seed and estimator state
//! # Ok::<(), sketch_nostd::MergeError>(())
//! ```

/// The aliases of a sketch type `$ty<P, BYTES>` (`BYTES = 3·2^P/4`), one per precision, each with
/// a doc example checking `$bytes()`'s length. Used here and in `device`.
macro_rules! aliases {
    ($ty:ident, $bytes:ident, $($name:ident = $p:literal),*) => {$(
        #[doc = concat!("[`", stringify!($ty), "`] with 2^", stringify!($p), " registers (`P = ",
            stringify!($p), "`) in `3·2^", stringify!($p), "/4` bytes.")]
        ///
        /// ```
        #[doc = concat!("let h = sketch_nostd::hll::", stringify!($name), "::new();")]
        #[doc = concat!("assert_eq!(h.", stringify!($bytes), "().len(), 3 << ", stringify!($p), " >> 2);")]
        /// ```
        pub type $name = $ty<$p, { 3 << $p >> 2 }>;
    )*};
}

mod bounds;
mod device;
mod estimator;
mod iter;
pub(crate) mod num;
mod parts;
pub(crate) mod registers;
mod sparse;

use core::fmt;

use crate::error::{check_seeds, MergeError};
use crate::hash::{hash64, Key};
use estimator::RegisterSums;

pub use iter::Registers;

pub use device::{
    DeviceHll, DeviceHll10, DeviceHll11, DeviceHll12, DeviceHll13, DeviceHll14, DeviceHll15,
    DeviceHll16, DeviceHll17, DeviceHll18, DeviceHll4, DeviceHll5, DeviceHll6, DeviceHll7,
    DeviceHll8, DeviceHll9,
};

/// Which estimator a [`HyperLogLog`] answers with; see [`HyperLogLog::estimator`].
///
/// ```
/// use sketch_nostd::{hll::Estimator, Hll10};
/// let mut h = Hll10::new();
/// assert_eq!(h.estimator(), Estimator::Sparse);
/// for i in 0..1_000u32 { h.insert(&i); }
/// assert_eq!(h.estimator(), Estimator::Martingale);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Estimator {
    /// Linear counting over the exact coupons of the sparse form: near-exact.
    Sparse,
    /// The martingale (historic inverse probability) estimator of a sketch fed by a single stream:
    /// relative standard error ≈ 0.83/√m.
    Martingale,
    /// Ertl's improved histogram estimator over the registers, used after a merge: ≈ 1.04/√m.
    Histogram,
}

/// A HyperLogLog sketch with `2^P` six-bit registers in exactly `BYTES = 3·2^P/4` bytes.
///
/// Use an alias ([`Hll4`] … [`Hll18`]); a `BYTES` that does not match `P`, or a `P` outside `4..=18`,
/// does not compile. `size_of` is `BYTES + 48` (for `P ≥ 5`): the registers, the seed (8 bytes) and
/// 40 bytes of estimator state (the martingale estimate, an exact running sum Σ 2^−register, the
/// numbers of zero and maximal registers, the sparse coupon count and two flags), which make every
/// estimate O(1). Nothing lives on the heap.
///
/// Sketches of different precisions are different types and cannot be merged; sketches with different
/// seeds refuse to. See the [module documentation](self) for the algorithms.
///
/// ```
/// use sketch_nostd::Hll12;
///
/// let mut h = Hll12::new();
/// for word in "the quick brown fox jumps over the lazy dog".split(' ') {
///     h.insert(word);
/// }
/// assert_eq!(h.cardinality().round(), 8.0); // "the" twice: exact while sparse
/// ```
///
/// Parameters that do not fit are compile errors:
///
/// ```compile_fail
/// let _ = sketch_nostd::HyperLogLog::<14, 12_000>::new(); // BYTES must be 12,288
/// ```
///
/// ```compile_fail
/// let _ = sketch_nostd::HyperLogLog::<20, { 3 << 20 >> 2 }>::new(); // P must be at most 18
/// ```
///
/// ```compile_fail
/// let mut a = sketch_nostd::Hll10::new();
/// a.merge(&sketch_nostd::Hll12::new()); // different precisions: different types
/// ```
#[derive(Clone, PartialEq)]
// In this order (`repr(C)`): the registers at offset 44, which a Cortex-M0 zeroes with the
// word-aligned `memclr` routine other code links anyway, not a second copy of it for 8-aligned
// memory (158 B); the size stays `BYTES + 48` (64 at `P = 4`).
#[repr(C)]
pub struct HyperLogLog<const P: u8, const BYTES: usize> {
    seed: u64,
    /// The martingale estimate (dense, single stream only).
    hip: f64,
    /// Σ_j 2^−M_j (exact) and the numbers of zero and maximal registers (dense only; those of an
    /// empty sketch while sparse).
    sums: RegisterSums,
    /// Number of coupons (sparse only).
    coupons: u32,
    /// Dense: packed registers. Sparse: the coupon table (see `sparse`).
    data: [u8; BYTES],
    dense: bool,
    single_stream: bool,
}

aliases!(
    HyperLogLog,
    dense_registers_or_coupon_bytes,
    Hll4 = 4,
    Hll5 = 5,
    Hll6 = 6,
    Hll7 = 7,
    Hll8 = 8,
    Hll9 = 9,
    Hll10 = 10,
    Hll11 = 11,
    Hll12 = 12,
    Hll13 = 13,
    Hll14 = 14,
    Hll15 = 15,
    Hll16 = 16,
    Hll17 = 17,
    Hll18 = 18
);

impl<const P: u8, const BYTES: usize> HyperLogLog<P, BYTES> {
    /// The precision `p`: the number of hash bits that choose a register.
    pub const PRECISION: u8 = {
        assert!(
            P >= 4 && P <= 18,
            "HyperLogLog precision P must be in 4..=18"
        );
        assert!(
            BYTES == 3 << P >> 2,
            "HyperLogLog BYTES must be 3·2^P/4 (6 bits per register); use an alias such as Hll14"
        );
        P
    };

    device::shared_items!(
        "sketch_nostd::Hll10",
        new:
        /// ```
        /// let h = sketch_nostd::Hll14::new();
        /// assert_eq!(h.cardinality(), 0.0);
        /// assert!(h.is_sparse() && h.is_empty());
        /// ```
        insert:
        /// Counts a key. Returns `true` if the sketch changed (the key is certainly new), `false` if it
        /// did not (the key was probably seen before).
        ///
        /// ```
        /// let mut h = sketch_nostd::Hll14::new();
        /// assert!(h.insert("alice"));
        /// assert!(!h.insert("alice"));
        /// h.insert(&42u64);
        /// assert_eq!(h.cardinality().round(), 2.0);
        /// ```
        inline: #[inline(never)]
    );

    /// The seed this sketch hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll10::new().seed(), 0);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// How many distinct coupons the sparse form holds before converting to dense registers: 3/4 of
    /// `BYTES / 4` four-byte coupons (2,304 at `P = 14`).
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll14::SPARSE_CAPACITY, 2_304);
    /// ```
    pub const SPARSE_CAPACITY: usize = sparse::capacity(BYTES);

    /// The number of hash bits that index a sparse coupon, `P + 7` (21 at `P = 14`): the coupon's
    /// register (`P` bits) and 7 more, so linear counting over the `2^(P+7)` virtual registers of the
    /// sparse form is nearly exact. See [`coupons`](Self::coupons).
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll14::SPARSE_INDEX_BITS, 21);
    /// ```
    pub const SPARSE_INDEX_BITS: u8 = Self::PRECISION + sparse::EXTRA_BITS as u8;

    /// An empty sketch hashing with `seed`. Only sketches with equal seeds merge.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll10::with_seed(9).seed(), 9);
    /// ```
    #[must_use]
    #[inline(never)]
    pub const fn with_seed(seed: u64) -> Self {
        Self {
            data: [0; BYTES],
            seed,
            hip: 0.0,
            sums: RegisterSums::empty(Self::P32),
            coupons: 0,
            dense: false,
            single_stream: true,
        }
    }

    /// Counts a key by its 64-bit hash, for callers that hash themselves; [`hash64`] with this
    /// sketch's seed gives the same result as [`insert`](Self::insert). The hash must be uniform over
    /// all 64 bits.
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, Hll14};
    /// let (mut a, mut b) = (Hll14::new(), Hll14::new());
    /// a.insert("k");
    /// b.insert_hash(hash64("k", b.seed()));
    /// assert!(a == b);
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        if self.dense {
            let (index, rank) = registers::index_rank(hash, Self::P32);
            self.raise(index, rank)
        } else {
            self.insert_coupon(sparse::coupon(hash, Self::P32))
        }
    }

    /// Raises a dense register, keeping the estimators' state up to date.
    #[cfg_attr(target_pointer_width = "64", inline)]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn raise(&mut self, index: usize, rank: u8) -> bool {
        let Some(old) = registers::raise(&mut self.data, index, rank) else {
            return false;
        };
        if self.single_stream {
            // The probability that a new distinct key changes the sketch, before this change, is
            // Σ/m; the martingale estimator adds its inverse.
            let (lo, hi) = self.sums.change_sum();
            self.hip = num::martingale_step(self.hip, lo, hi, Self::P32);
        }
        self.sums.replace(old, rank, Self::P32);
        true
    }

    /// Adds a coupon: to the sparse form while there is one (converting to dense when it is full),
    /// else to the register it stands for. Merges and `set_coupons` rely on the second case: the
    /// sparse table can fill part-way through their coupons.
    fn insert_coupon(&mut self, coupon: u32) -> bool {
        if !self.dense {
            let room = (self.coupons as usize) < Self::SPARSE_CAPACITY;
            match sparse::insert(&mut self.data, Self::P32, coupon, room) {
                sparse::Outcome::Added => {
                    self.coupons += 1;
                    return true;
                }
                sparse::Outcome::Raised => return true,
                sparse::Outcome::Unchanged => return false,
                sparse::Outcome::Full => self.to_dense(),
            }
        }
        let (index, rank) = sparse::register_of(coupon, Self::P32);
        self.raise(index, rank)
    }

    /// Converts the sparse form to dense registers (in place; nothing changes if already dense).
    /// Happens by itself when the sparse form fills up; callers of
    /// [`dense_registers`](Self::dense_registers) may want it earlier. The estimate stays the same: a single
    /// stream's martingale estimator starts from the sparse count.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll10::new();
    /// h.insert("a");
    /// assert!(h.dense_registers().is_none());
    /// h.to_dense();
    /// assert!(h.dense_registers().is_some());
    /// assert_eq!(h.cardinality().round(), 1.0);
    /// ```
    pub fn to_dense(&mut self) {
        if self.dense {
            return;
        }
        let start = self.sparse_estimate().to_f64();
        self.dense = true;
        self.hip = if self.single_stream { start } else { 0.0 };
        sparse::to_dense(&mut self.data, Self::P32);
        self.coupons = 0;
        self.refresh();
    }

    /// Recomputes the estimator state from the dense registers (one pass).
    fn refresh(&mut self) {
        self.sums = RegisterSums::of_packed(&self.data, Self::P32);
    }

    fn sums_of(values: impl Iterator<Item = u8>) -> RegisterSums {
        let mut sums = RegisterSums::NONE;
        for v in values {
            sums.add(v, Self::P32);
        }
        sums
    }

    /// `true` while the sketch keeps exact coupons rather than dense registers.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll10::new();
    /// assert!(h.is_sparse());
    /// for i in 0..10_000u32 { h.insert(&i); }
    /// assert!(!h.is_sparse());
    /// ```
    #[must_use]
    pub const fn is_sparse(&self) -> bool {
        !self.dense
    }

    /// `true` if nothing has been counted (no coupon, every register zero).
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll10::new();
    /// assert!(h.is_empty());
    /// h.insert(&1u8);
    /// assert!(!h.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        if self.dense {
            self.data.iter().all(|&b| b == 0)
        } else {
            self.coupons == 0
        }
    }

    /// Forgets everything counted, keeping the seed: back to an empty sparse single-stream sketch.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll10::with_seed(3);
    /// h.insert("x");
    /// h.clear();
    /// assert!(h.is_empty() && h.seed() == 3);
    /// ```
    pub fn clear(&mut self) {
        self.reset(self.seed);
    }

    /// Makes this an empty sparse single-stream sketch with `seed`, field by field (assigning a new
    /// value could put a sketch-sized temporary on the stack).
    pub(crate) fn reset(&mut self, seed: u64) {
        self.data.fill(0);
        self.seed = seed;
        self.hip = 0.0;
        self.sums = RegisterSums::empty(Self::P32);
        self.coupons = 0;
        self.dense = false;
        self.single_stream = true;
    }

    /// `true` if this sketch has only ever been fed by [`insert`](Self::insert) (no merge), so the
    /// martingale estimator applies.
    ///
    /// ```
    /// let (mut a, b) = (sketch_nostd::Hll10::new(), sketch_nostd::Hll10::new());
    /// a.insert("x");
    /// assert!(a.is_single_stream());
    /// a.merge(&b)?; // merging an empty sketch changes nothing
    /// assert!(a.is_single_stream());
    /// let mut c = sketch_nostd::Hll10::new();
    /// c.insert("y");
    /// a.merge(&c)?;
    /// assert!(!a.is_single_stream());
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    #[must_use]
    pub const fn is_single_stream(&self) -> bool {
        self.single_stream
    }

    /// The estimator [`cardinality`](Self::cardinality) uses now: [`Estimator::Sparse`] while sparse, then
    /// [`Estimator::Martingale`] for a single stream or [`Estimator::Histogram`] after a merge.
    ///
    /// ```
    /// use sketch_nostd::{hll::Estimator, Hll10};
    /// let mut h = Hll10::new();
    /// for i in 0..5_000u32 { h.insert(&i); }
    /// assert_eq!(h.estimator(), Estimator::Martingale);
    /// h.merge(&h.clone())?;
    /// assert_eq!(h.estimator(), Estimator::Histogram);
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    #[must_use]
    pub const fn estimator(&self) -> Estimator {
        if !self.dense {
            Estimator::Sparse
        } else if self.single_stream {
            Estimator::Martingale
        } else {
            Estimator::Histogram
        }
    }

    /// Adds everything counted by `other`: afterwards this sketch estimates the number of distinct
    /// keys in the union of both streams, with the histogram estimator (or the sparse one, if the
    /// union still fits). Fails, leaving `self` unchanged, if the seeds differ.
    ///
    /// Register-wise maximum for any mix of sparse and dense; commutative, associative and idempotent.
    ///
    /// ```
    /// use sketch_nostd::Hll14;
    /// let (mut a, mut b) = (Hll14::with_seed(1), Hll14::with_seed(1));
    /// for i in 0..600u32 { a.insert(&i); }
    /// for i in 400..1_000u32 { b.insert(&i); }
    /// a.merge(&b)?;
    /// assert_eq!(a.cardinality().round(), 1_000.0); // still sparse: exact here (no shared coupon)
    /// assert!(a.merge(&Hll14::with_seed(2)).is_err());
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        check_seeds(self.seed, other.seed)?;
        self.merge_unchecked(other);
        Ok(())
    }

    /// Merges every sketch of `others` (see [`merge`](Self::merge)). Checks all seeds first, so on an
    /// error `self` is unchanged.
    ///
    /// ```
    /// use sketch_nostd::Hll12;
    /// let days: Vec<Hll12> = (0..7u32)
    ///     .map(|d| {
    ///         let mut h = Hll12::new();
    ///         for i in 0..10_000u32 { h.insert(&(d * 5_000 + i)); }
    ///         h
    ///     })
    ///     .collect();
    /// let mut week = Hll12::new();
    /// week.merge_all(&days)?;
    /// assert!((week.cardinality() - 40_000.0).abs() < 3.0 * 0.0163 * 40_000.0);
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge_all<'a, I>(&mut self, others: I) -> Result<(), MergeError>
    where
        I: IntoIterator<Item = &'a Self>,
        I::IntoIter: Clone,
        Self: 'a,
    {
        let others = others.into_iter();
        for other in others.clone() {
            check_seeds(self.seed, other.seed)?;
        }
        for other in others {
            self.merge_unchecked(other);
        }
        Ok(())
    }

    fn merge_unchecked(&mut self, other: &Self) {
        if other.is_empty() {
            return; // the union is this stream: every estimator stays valid
        }
        self.single_stream = false;
        self.hip = 0.0;
        if other.dense {
            self.to_dense();
            // Each register of `other` raises this one's through the insert's update (no
            // martingale step: not a single stream now), which keeps the sums exact: the same
            // registers and sums as a register-wise maximum and a recount, in less code.
            let mut index = 0;
            registers::for_each(&other.data, |rank| {
                self.raise(index, rank);
                index += 1;
            });
        } else {
            // Every coupon of `other`, in slot order: the result does not depend on the order
            // (a sparse table is determined by its set of keys, a subset of a set that fits
            // fits, so whether the union converts to dense does not either, and dense registers
            // are maxima).
            for slot in 0..sparse::slots(BYTES) {
                let coupon = sparse::read(&other.data, slot);
                if coupon != 0 {
                    self.insert_coupon(coupon);
                }
            }
        }
    }
}

/// [`hash64`], one out-of-line copy per key type for both HyperLogLog types' inserts (inlined, the
/// hash of a `u32` is ~100 B of Cortex-M0 code, one per call site).
#[cfg_attr(target_pointer_width = "64", inline)]
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
pub(crate) fn hash_key<Q: Key + ?Sized>(key: &Q, seed: u64) -> u64 {
    hash64(key, seed)
}

impl<const P: u8, const BYTES: usize> Default for HyperLogLog<P, BYTES> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const P: u8, const BYTES: usize> fmt::Debug for HyperLogLog<P, BYTES> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HyperLogLog")
            .field("precision", &P)
            .field("seed", &self.seed)
            .field("sparse_coupons", &(!self.dense).then_some(self.coupons))
            .field("estimator", &self.estimator())
            .field("cardinality", &self.cardinality())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_registers_plus_48_bytes() {
        assert_eq!(core::mem::size_of::<Hll14>(), 12_288 + 48);
        assert_eq!(core::mem::size_of::<Hll10>(), 768 + 48);
        assert_eq!(core::mem::size_of::<Hll18>(), 196_608 + 48);
        assert_eq!(core::mem::size_of::<Hll5>(), 24 + 48);
        assert_eq!(core::mem::size_of::<Hll4>(), 64); // 12 bytes of registers + 46, padded
    }

    #[test]
    fn conversion_preserves_registers_and_estimate() {
        let mut h = Hll12::with_seed(3);
        let mut i = 0u32;
        while h.is_sparse() {
            h.insert(&i);
            i += 1;
        }
        assert_eq!(i as usize, Hll12::SPARSE_CAPACITY + 1);
        let mut dense_only = Hll12::with_seed(3);
        dense_only.to_dense();
        for k in 0..i {
            dense_only.insert(&k);
        }
        assert!(h.registers().eq(dense_only.registers()));
        assert_eq!(h.dense_registers(), dense_only.dense_registers());
        // The martingale estimate starts from the sparse count, which is exact here.
        let e = h.cardinality();
        assert!((e - f64::from(i)).abs() < 2.0, "{e}");
    }

    #[test]
    fn max_rank_hash_is_counted() {
        for hash in [0u64, 1, u64::MAX] {
            let mut sparse = Hll4::new();
            sparse.insert_hash(hash);
            let mut dense = Hll4::new();
            dense.to_dense();
            dense.insert_hash(hash);
            assert!(sparse.registers().eq(dense.registers()));
            assert!(sparse.registers().all(|r| r <= Hll4::MAX_RANK));
        }
    }
}
