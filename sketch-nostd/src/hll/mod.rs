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

mod device;
mod estimator;
pub(crate) mod num;
mod registers;
mod sparse;

use core::fmt;

use crate::error::{check_seeds, MergeError, PartsError};
use crate::hash::{hash64, Key};
use estimator::{RegisterSums, HISTOGRAM_RSE_SQRT_M, MARTINGALE_RSE_SQRT_M, MAX_ESTIMATE};
use num::Num;

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
pub struct HyperLogLog<const P: u8, const BYTES: usize> {
    /// Dense: packed registers. Sparse: the coupon table (see `sparse`).
    data: [u8; BYTES],
    seed: u64,
    /// The martingale estimate (dense, single stream only).
    hip: f64,
    /// Σ_j 2^−M_j (exact) and the numbers of zero and maximal registers (dense only; those of an
    /// empty sketch while sparse).
    sums: RegisterSums,
    /// Number of coupons (sparse only).
    coupons: u32,
    dense: bool,
    single_stream: bool,
}

macro_rules! aliases {
    ($($name:ident = $p:literal),*) => {$(
        #[doc = concat!("[`HyperLogLog`] with 2^", stringify!($p), " registers (`P = ", stringify!($p),
            "`) in `3·2^", stringify!($p), "/4` bytes.")]
        ///
        /// ```
        #[doc = concat!("let h = sketch_nostd::hll::", stringify!($name), "::new();")]
        #[doc = concat!("assert_eq!(h.dense_registers_or_coupon_bytes().len(), 3 << ", stringify!($p), " >> 2);")]
        /// ```
        pub type $name = HyperLogLog<$p, { 3 << $p >> 2 }>;
    )*};
}

aliases!(
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

    /// Number of registers, `m = 2^P`.
    pub const REGISTERS: usize = 1 << Self::PRECISION;

    /// The largest value a register can hold, `64 − P + 1`.
    pub const MAX_RANK: u8 = 65 - Self::PRECISION;

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

    const P32: u32 = Self::PRECISION as u32;

    /// An empty sketch with seed 0.
    ///
    /// ```
    /// let h = sketch_nostd::Hll14::new();
    /// assert_eq!(h.cardinality(), 0.0);
    /// assert!(h.is_sparse() && h.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_seed(0)
    }

    /// An empty sketch hashing with `seed`. Only sketches with equal seeds merge.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll10::with_seed(9).seed(), 9);
    /// ```
    #[must_use]
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

    /// The seed this sketch hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll10::new().seed(), 0);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

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
    #[inline]
    pub fn insert<Q: Key + ?Sized>(&mut self, key: &Q) -> bool {
        self.insert_hash(hash64(key, self.seed))
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
            let index = (hash >> (64 - Self::P32)) as usize;
            let rank = (hash << Self::P32 | 1 << (Self::P32 - 1)).leading_zeros() as u8 + 1;
            self.raise(index, rank)
        } else {
            self.insert_coupon(sparse::coupon(hash, Self::P32))
        }
    }

    /// Raises a dense register, keeping the estimators' state up to date.
    #[inline]
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
        if self.coupons == 0 {
            // No coupon: every slot is 0, and so is every register.
            self.sums = RegisterSums::empty(Self::P32);
            return;
        }
        sparse::to_dense(&mut self.data, Self::P32);
        self.coupons = 0;
        self.refresh();
    }

    /// Recomputes the estimator state from the dense registers (one pass).
    fn refresh(&mut self) {
        let mut sums = RegisterSums::NONE;
        registers::for_each(&self.data, |v| sums.add(v, Self::P32));
        self.sums = sums;
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

    /// The estimated number of distinct keys counted, by the [`estimator`](Self::estimator) in use.
    /// Never NaN, never negative, at most 2^64.
    ///
    /// Costs O(1): the sums the estimators need are kept up to date as registers change.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// for i in 0..1_000_000u32 { h.insert(&i); }
    /// let e = h.cardinality();
    /// assert!((e - 1e6).abs() < 3.0 * 0.0066 * 1e6, "{e}");
    /// ```
    #[must_use]
    pub fn cardinality(&self) -> f64 {
        match self.estimator() {
            Estimator::Martingale => self.hip, // kept as an f64, already in range
            _ => self.estimate_num().to_f64(),
        }
    }

    /// [`cardinality`](Self::cardinality) before its conversion to `f64`.
    fn estimate_num(&self) -> Num {
        match self.estimator() {
            Estimator::Sparse => self.sparse_estimate(),
            Estimator::Martingale => Num::from_f64(self.hip),
            Estimator::Histogram => self.histogram_estimate_num(),
        }
    }

    /// Linear counting over 2^(P+7) virtual registers, one per distinct coupon.
    fn sparse_estimate(&self) -> Num {
        estimator::linear_counting(sparse::virtual_registers(Self::P32), self.coupons.into())
    }

    /// Ertl's improved histogram estimator over the registers, whatever the estimator in use (while
    /// sparse, over the registers the coupons would set, which takes a pass over them). This is what
    /// the sketch reports after a merge, and what a plain HyperLogLog of this precision would say.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll12::new();
    /// for i in 0..100_000u32 { h.insert(&i); }
    /// let e = h.histogram_estimate();
    /// assert!((e - 1e5).abs() < 3.0 * 0.0163 * 1e5, "{e}");
    /// ```
    #[must_use]
    pub fn histogram_estimate(&self) -> f64 {
        self.histogram_estimate_num().to_f64()
    }

    fn histogram_estimate_num(&self) -> Num {
        if self.dense {
            self.sums.improved_estimate(Self::P32)
        } else {
            Self::sums_of(self.registers()).improved_estimate(Self::P32)
        }
    }

    /// The martingale estimate if this sketch is a single stream (for a sparse sketch, the sparse
    /// count the martingale estimator will start from), `None` after a merge.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll10::new();
    /// for i in 0..3_000u32 { h.insert(&i); }
    /// assert_eq!(h.martingale_estimate(), Some(h.cardinality()));
    /// h.merge(&h.clone())?;
    /// assert_eq!(h.martingale_estimate(), None);
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    #[must_use]
    pub fn martingale_estimate(&self) -> Option<f64> {
        match self.estimator() {
            Estimator::Sparse if self.single_stream => Some(self.sparse_estimate().to_f64()),
            Estimator::Martingale => Some(self.hip),
            _ => None,
        }
    }

    /// The relative standard error of [`cardinality`](Self::cardinality) with the estimator in use:
    /// sqrt(ln 2)/√m ≈ 0.83/√m for the martingale estimator, sqrt(3 ln 2 − 1)/√m ≈ 1.04/√m for the
    /// histogram estimator (less while many registers are zero: it then behaves like linear counting),
    /// and the linear-counting error over 2^(P+7) virtual registers while sparse (about
    /// 1/sqrt(2^(P+8)): 0.05% at `P = 14`).
    ///
    /// ```
    /// use sketch_nostd::Hll14;
    /// let mut h = Hll14::new();
    /// assert!(h.relative_standard_error() < 5e-4); // sparse: near-exact
    /// for i in 0..100_000u32 { h.insert(&i); }
    /// assert!((h.relative_standard_error() - 0.0065).abs() < 1e-4); // martingale
    /// h.merge(&h.clone())?;
    /// assert!((h.relative_standard_error() - 0.0081).abs() < 1e-4); // histogram
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    #[must_use]
    pub fn relative_standard_error(&self) -> f64 {
        self.rse_at(self.estimate_num()).to_f64()
    }

    fn rse_at(&self, estimate: Num) -> Num {
        let m = Self::REGISTERS as u64;
        let per_sqrt_m = |c: Num| c.div(Num::int(m).sqrt());
        match self.estimator() {
            // The sparse form never fills beyond t = 1/900 (the series stops at t = 2).
            Estimator::Sparse => {
                estimator::linear_counting_rse(sparse::virtual_registers(Self::P32), estimate)
                    .unwrap_or(Num::ONE)
            }
            Estimator::Martingale => per_sqrt_m(MARTINGALE_RSE_SQRT_M),
            Estimator::Histogram => {
                let large = per_sqrt_m(HISTOGRAM_RSE_SQRT_M);
                estimator::linear_counting_rse(m, estimate).map_or(large, |small| small.min(large))
            }
        }
    }

    /// A lower bound on the number of distinct keys at `sigmas` standard errors (1, 2 or 3 for about
    /// 68%, 95% or 99.7% confidence under the normal approximation): `estimate / (1 + sigmas·RSE)`,
    /// but never below what is certain (the number of coupons, or of non-zero registers).
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// for i in 0..500_000u32 { h.insert(&i); }
    /// assert!(h.lower_bound(1) < h.cardinality() && h.lower_bound(3) < h.lower_bound(2));
    /// assert!(h.lower_bound(3) < 500_000.0);
    /// ```
    #[must_use]
    pub fn lower_bound(&self, sigmas: u8) -> f64 {
        let estimate = self.estimate_num();
        let spread = Num::int(sigmas.into()).mul(self.rse_at(estimate));
        let bound = estimate.div(Num::ONE.add(spread));
        bound.max(self.certain_count()).min(estimate).to_f64()
    }

    /// An upper bound on the number of distinct keys at `sigmas` standard errors:
    /// `estimate / (1 − sigmas·RSE)`, or 2^64 if that is not positive.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// for i in 0..500_000u32 { h.insert(&i); }
    /// assert!(h.upper_bound(1) > h.cardinality() && h.upper_bound(3) > h.upper_bound(2));
    /// assert!(h.upper_bound(3) > 500_000.0);
    /// ```
    #[must_use]
    pub fn upper_bound(&self, sigmas: u8) -> f64 {
        let estimate = self.estimate_num();
        let spread = Num::int(sigmas.into()).mul(self.rse_at(estimate));
        if spread.ge(Num::ONE) {
            return MAX_ESTIMATE.to_f64();
        }
        estimator::clamp(estimate.div(Num::ONE.sub(spread)))
            .max(estimate)
            .to_f64()
    }

    /// The number of distinct keys certainly counted: coupons while sparse, non-zero registers else.
    fn certain_count(&self) -> Num {
        if self.dense {
            Num::int((Self::REGISTERS as u64).saturating_sub(self.sums.zeros().into()))
        } else {
            Num::int(self.coupons.into())
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
            let mut sums = RegisterSums::NONE;
            registers::max_assign(&mut self.data, &other.data, |v| sums.add(v, Self::P32));
            self.sums = sums;
        } else {
            let mut cursor = sparse::Cursor::new(BYTES, true);
            while let Some(coupon) = cursor.next(&other.data) {
                self.insert_coupon(coupon);
            }
        }
    }

    /// Every register value in order, `m` of them, whether the sketch is sparse or dense (while
    /// sparse, the values the coupons would set). Two sketches fed the same keys in any grouping and
    /// order, and merged in any way, yield the same registers.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll4::new();
    /// h.insert_hash(0x3200_0000_0000_0000); // register 3, rank 3
    /// let regs: Vec<u8> = h.registers().collect();
    /// assert_eq!(regs.len(), 16);
    /// assert_eq!(regs[3], 3);
    /// assert_eq!(regs.iter().filter(|&&r| r != 0).count(), 1);
    /// ```
    #[must_use]
    pub fn registers(&self) -> Registers<'_> {
        Registers {
            bytes: &self.data,
            p: Self::P32,
            next: 0,
            sparse: if self.dense {
                None
            } else {
                Some(sparse::Cursor::new(BYTES, true))
            },
        }
    }

    /// The packed dense registers, or `None` while sparse (call [`to_dense`](Self::to_dense) first if
    /// you need them). Register `i` is bits `6i .. 6i + 6`, least significant bit first: bits 0–5 of
    /// byte 0 hold register 0, bits 6–7 of byte 0 and 0–3 of byte 1 register 1, and so on, so three
    /// bytes read as a little-endian 24-bit integer hold four registers at shifts 0, 6, 12 and 18.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll4::new();
    /// h.to_dense();
    /// h.insert_hash(0x1200_0000_0000_0000); // register 1, rank 3
    /// assert_eq!(h.dense_registers().unwrap()[..2], [3 << 6, 0]);
    /// ```
    #[must_use]
    pub const fn dense_registers(&self) -> Option<&[u8; BYTES]> {
        if self.dense {
            Some(&self.data)
        } else {
            None
        }
    }

    /// The sparse coupons in increasing order (none once dense). With `b =`
    /// [`SPARSE_INDEX_BITS`](Self::SPARSE_INDEX_BITS) `= P + 7`, a coupon is
    /// `(hash >> (64 − b)) << 6 | ρ'`: the top `b` bits of a hash above its rank
    /// `ρ' = (leading zeros of the low 64 − b bits) + 1`, in `1..=65 − b`; the sketch keeps the
    /// highest rank per `b`-bit index. At `P = 14`: 21 index bits, ranks `1..=44`. The top `P` index
    /// bits are the register the coupon updates once dense. They are the sparse form's whole content:
    /// [`from_coupons`](Self::from_coupons) rebuilds the sketch from them.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// h.insert_hash(0xffff_f800_0000_0001); // index 2^21 − 1, 42 leading zeros in the low 43 bits
    /// h.insert_hash(0x0000_0000_0000_0000); // index 0, rank 44
    /// assert_eq!(h.coupons().collect::<Vec<_>>(), [44, (((1 << 21) - 1) << 6) | 43]);
    /// ```
    pub fn coupons(&self) -> impl Iterator<Item = u32> + '_ {
        let mut cursor = sparse::Cursor::new(BYTES, !self.dense);
        core::iter::from_fn(move || cursor.next(&self.data))
    }

    /// Number of sparse coupons (0 once dense).
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// h.insert("a");
    /// h.insert("b");
    /// assert_eq!(h.coupon_count(), 2);
    /// ```
    #[must_use]
    pub const fn coupon_count(&self) -> usize {
        self.coupons as usize
    }

    /// The raw bytes behind the sketch: packed registers when dense, the sparse coupon table (`u32`
    /// slots, little-endian) while sparse. Mainly for inspecting memory use.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll14::new().dense_registers_or_coupon_bytes().len(), 12_288);
    /// ```
    #[must_use]
    pub const fn dense_registers_or_coupon_bytes(&self) -> &[u8; BYTES] {
        &self.data
    }

    /// A dense sketch from packed registers (as returned by
    /// [`dense_registers`](Self::dense_registers)), a seed, and the martingale estimate if the
    /// sketch is a single stream (from [`martingale_estimate`](Self::martingale_estimate)).
    /// [`set_dense_registers`](Self::set_dense_registers) does the same into an existing sketch.
    ///
    /// # Errors
    /// [`PartsError::RegisterOutOfRange`] if a register exceeds [`MAX_RANK`](Self::MAX_RANK), and
    /// [`PartsError::InvalidEstimatorState`] if the martingale estimate is NaN, negative (including
    /// −0) or above 2^64, the largest estimate a sketch reports.
    ///
    /// ```
    /// use sketch_nostd::Hll10;
    /// let mut a = Hll10::with_seed(5);
    /// for i in 0..10_000u32 { a.insert(&i); }
    /// let regs = a.dense_registers().unwrap();
    /// let b = Hll10::from_dense_registers(regs, a.seed(), a.martingale_estimate())?;
    /// assert!(a == b);
    /// # Ok::<(), sketch_nostd::PartsError>(())
    /// ```
    pub fn from_dense_registers(
        registers: &[u8; BYTES],
        seed: u64,
        martingale: Option<f64>,
    ) -> Result<Self, PartsError> {
        let mut sketch = Self::with_seed(seed);
        sketch.set_dense_registers(registers, seed, martingale)?;
        Ok(sketch)
    }

    /// Replaces this sketch, in place, by the dense sketch
    /// [`from_dense_registers`](Self::from_dense_registers) would build: no second sketch-sized value
    /// is created, which matters to a decoder on a small stack. On an error the sketch is unchanged.
    ///
    /// # Errors
    /// As [`from_dense_registers`](Self::from_dense_registers).
    ///
    /// ```
    /// use sketch_nostd::{Hll10, PartsError};
    /// let mut h = Hll10::new();
    /// let mut regs = [0u8; 768];
    /// regs[0] = 5; // register 0 = 5
    /// h.set_dense_registers(&regs, 9, None)?;
    /// assert_eq!((h.seed(), h.registers().next()), (9, Some(5)));
    /// regs[0] = 63; // above 64 − 10 + 1 = 55
    /// assert!(h.set_dense_registers(&regs, 1, None).is_err());
    /// assert_eq!(h.seed(), 9); // unchanged
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn set_dense_registers(
        &mut self,
        registers: &[u8; BYTES],
        seed: u64,
        martingale: Option<f64>,
    ) -> Result<(), PartsError> {
        Self::check_dense(registers, martingale)?;
        self.data.copy_from_slice(registers);
        self.become_dense(seed, martingale);
        Ok(())
    }

    /// The checks of [`set_dense_registers`](Self::set_dense_registers).
    pub(crate) fn check_dense(
        registers: &[u8; BYTES],
        martingale: Option<f64>,
    ) -> Result<(), PartsError> {
        if let Some((index, value)) = registers::iter(registers)
            .enumerate()
            .find(|&(_, v)| v > Self::MAX_RANK)
        {
            return Err(PartsError::RegisterOutOfRange {
                index,
                value,
                max: Self::MAX_RANK,
            });
        }
        // A martingale estimate must be +0 or positive up to the 2^64 clamp: NaN, negative values,
        // −0 (sign bit set) and anything above 2^64 have larger bit patterns, and no sketch holds
        // them.
        if martingale.is_some_and(|x| x.to_bits() > num::CAP.to_bits()) {
            return Err(PartsError::InvalidEstimatorState);
        }
        Ok(())
    }

    /// Makes the (checked) registers in `data` a dense sketch with `seed` and this estimator state.
    fn become_dense(&mut self, seed: u64, martingale: Option<f64>) {
        self.seed = seed;
        self.coupons = 0;
        self.dense = true;
        self.single_stream = martingale.is_some();
        self.hip = martingale.unwrap_or(0.0);
        self.refresh();
    }

    /// [`set_dense_registers`](Self::set_dense_registers) with the registers written by `fill`
    /// straight into the sketch's storage (zeroed first) and checked there, so that not even the
    /// registers are copied (a refusal is turned into `E` by `invalid`). On any error the sketch is
    /// left empty with its own seed. Crate-internal: for decoders on small stacks.
    #[cfg(feature = "wire")]
    pub(crate) fn load_dense<E>(
        &mut self,
        seed: u64,
        martingale: Option<f64>,
        fill: impl FnOnce(&mut [u8; BYTES]) -> Result<(), E>,
        invalid: impl FnOnce(PartsError) -> E,
    ) -> Result<(), E> {
        let own = self.seed;
        self.reset(own);
        let result = fill(&mut self.data)
            .and_then(|()| Self::check_dense(&self.data, martingale).map_err(invalid));
        match result {
            Ok(()) => self.become_dense(seed, martingale),
            Err(_) => self.reset(own),
        }
        result
    }

    /// A sparse sketch from its coupons (as returned by [`coupons`](Self::coupons)), in strictly
    /// increasing order of their [`SPARSE_INDEX_BITS`](Self::SPARSE_INDEX_BITS) index bits, and
    /// whether it is a single stream
    /// ([`is_single_stream`](Self::is_single_stream)). [`set_coupons`](Self::set_coupons) does the
    /// same into an existing sketch.
    ///
    /// # Errors
    /// [`PartsError::InvalidCoupon`] for a rank outside `1..=58 − P` or an index of more than
    /// `P + 7` bits,
    /// [`PartsError::UnsortedCoupons`] for coupons out of order or repeated, and
    /// [`PartsError::TooManyCoupons`] beyond [`SPARSE_CAPACITY`](Self::SPARSE_CAPACITY).
    ///
    /// ```
    /// use sketch_nostd::{PartsError, Hll14};
    /// let mut a = Hll14::with_seed(5);
    /// for i in 0..500u32 { a.insert(&i); }
    /// let b = Hll14::from_coupons(a.coupons(), a.seed(), a.is_single_stream())?;
    /// assert!(a == b);
    /// assert_eq!(
    ///     Hll14::from_coupons([2 << 6 | 1, 1 << 6 | 1], 0, true).err(),
    ///     Some(PartsError::UnsortedCoupons { index: 1 })
    /// );
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn from_coupons<I: IntoIterator<Item = u32>>(
        coupons: I,
        seed: u64,
        single_stream: bool,
    ) -> Result<Self, PartsError> {
        let mut sketch = Self::with_seed(seed);
        sketch.set_coupons(coupons, seed, single_stream)?;
        Ok(sketch)
    }

    /// Replaces this sketch, in place, by the sparse sketch [`from_coupons`](Self::from_coupons)
    /// would build, reading the coupons once (so they can come straight from a decoder). On an error
    /// the sketch is left empty, with the new seed.
    ///
    /// # Errors
    /// As [`from_coupons`](Self::from_coupons).
    ///
    /// ```
    /// use sketch_nostd::Hll14;
    /// let mut h = Hll14::new();
    /// h.set_coupons([1 << 6 | 3, 7 << 6 | 1], 4, false)?;
    /// assert_eq!((h.coupon_count(), h.seed(), h.is_single_stream()), (2, 4, false));
    /// assert!(h.set_coupons([1 << 6 | 0], 4, false).is_err()); // rank 0 is impossible
    /// assert!(h.is_empty());
    /// # Ok::<(), sketch_nostd::PartsError>(())
    /// ```
    pub fn set_coupons<I: IntoIterator<Item = u32>>(
        &mut self,
        coupons: I,
        seed: u64,
        single_stream: bool,
    ) -> Result<(), PartsError> {
        self.reset(seed);
        self.single_stream = single_stream;
        let mut previous: Option<u32> = None;
        for (index, coupon) in coupons.into_iter().enumerate() {
            let problem = if !sparse::is_valid(coupon, Self::P32) {
                Some(PartsError::InvalidCoupon { index, coupon })
            } else if previous.is_some_and(|p| p >> 6 >= coupon >> 6) {
                Some(PartsError::UnsortedCoupons { index })
            } else if index >= Self::SPARSE_CAPACITY {
                Some(PartsError::TooManyCoupons {
                    capacity: Self::SPARSE_CAPACITY,
                })
            } else {
                None
            };
            if let Some(error) = problem {
                self.reset(seed);
                return Err(error);
            }
            previous = Some(coupon);
            // Coupons bunched in a few registers can overflow the sparse table before the count
            // reaches the capacity: the sketch then turns dense part-way through the list.
            self.insert_coupon(coupon);
        }
        Ok(())
    }
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

/// Iterator over the register values of a [`HyperLogLog`], from [`HyperLogLog::registers`].
#[derive(Clone, Debug)]
pub struct Registers<'a> {
    bytes: &'a [u8],
    p: u32,
    next: usize,
    sparse: Option<sparse::Cursor>,
}

impl Iterator for Registers<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let i = self.next;
        if i >= 1 << self.p {
            return None;
        }
        self.next += 1;
        let Some(cursor) = &mut self.sparse else {
            return Some(registers::get(self.bytes, i));
        };
        let mut value = 0;
        while let Some(coupon) = cursor.peek(self.bytes) {
            let (j, rank) = sparse::register_of(coupon, self.p);
            if j > i {
                break;
            }
            value = value.max(rank);
            cursor.advance();
        }
        Some(value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (1usize << self.p).saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Registers<'_> {}

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
