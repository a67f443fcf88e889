//! The sketch's answers: the cardinality estimate by the estimator in use, the other estimators,
//! the relative standard error and the confidence bounds built on it.

use super::estimator::{self, HISTOGRAM_RSE_SQRT_M, MARTINGALE_RSE_SQRT_M, MAX_ESTIMATE};
use super::num::Num;
use super::{sparse, Estimator, HyperLogLog};

impl<const P: u8, const BYTES: usize> HyperLogLog<P, BYTES> {
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
            // Only a dense sketch uses it: its sums are up to date.
            Estimator::Histogram => self.sums.improved_estimate(Self::P32),
        }
    }

    /// Linear counting over 2^(P+7) virtual registers, one per distinct coupon.
    pub(super) fn sparse_estimate(&self) -> Num {
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

    /// The martingale estimator's relative standard error, sqrt(ln 2)/√m (computed at compile time).
    const MARTINGALE_RSE: Num = MARTINGALE_RSE_SQRT_M.div(Num::int(Self::REGISTERS as u64).sqrt());

    /// The histogram estimator's relative standard error for large n, sqrt(3 ln 2 − 1)/√m.
    const HISTOGRAM_RSE: Num = HISTOGRAM_RSE_SQRT_M.div(Num::int(Self::REGISTERS as u64).sqrt());

    fn rse_at(&self, estimate: Num) -> Num {
        // Linear counting's error over the sparse form's virtual registers (it never fills beyond
        // t = 1/900; the series stops at t = 2), or over the registers, at most the histogram
        // estimator's: one call for both.
        let (buckets, at_most) = match self.estimator() {
            Estimator::Sparse => (sparse::virtual_registers(Self::P32), Num::HUGE),
            Estimator::Martingale => return Self::MARTINGALE_RSE,
            Estimator::Histogram => (Self::REGISTERS as u64, Self::HISTOGRAM_RSE),
        };
        estimator::linear_counting_rse(buckets, estimate).min(at_most)
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
        self.bound(sigmas, false)
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
        self.bound(sigmas, true)
    }

    /// [`upper_bound`](Self::upper_bound) if `upper`, else [`lower_bound`](Self::lower_bound): one
    /// body for both, which share the estimate and its spread (on a Cortex-M0 every `Num`
    /// operation's call is a few instructions of moving its operands, so one copy is smaller).
    #[inline(never)]
    fn bound(&self, sigmas: u8, upper: bool) -> f64 {
        let estimate = self.estimate_num();
        let spread = Num::int(sigmas.into()).mul(self.rse_at(estimate));
        let bound = if !upper {
            estimate.div(Num::ONE.add(spread)).max(self.certain_count())
        } else if spread.ge(Num::ONE) {
            MAX_ESTIMATE
        } else {
            estimator::clamp(estimate.div(Num::ONE.sub(spread)))
        }
        .to_f64();
        // Never beyond the reported estimate: the lower bound at most, the upper at least it
        // (rounding to `f64` keeps order, so this is the minimum or maximum with the estimate, and
        // it also holds for a martingale estimate below 2^−124, which reads as 0 as a `Num`; only
        // a decoded state can hold one). Non-negative `f64` values compare as their bits do.
        // What `cardinality` reports, without computing the estimate again.
        let reported = match self.estimator() {
            Estimator::Martingale => self.hip,
            _ => estimate.to_f64(),
        };
        let (low, high) = if upper {
            (reported, bound)
        } else {
            (bound, reported)
        };
        if low.to_bits() > high.to_bits() {
            reported
        } else {
            bound
        }
    }

    /// The number of distinct keys certainly counted: coupons while sparse, non-zero registers else.
    fn certain_count(&self) -> Num {
        if self.dense {
            // At most m zeros (wrapping: no saturation code).
            Num::int(
                (Self::REGISTERS as u32)
                    .wrapping_sub(self.sums.zeros())
                    .into(),
            )
        } else {
            Num::int(self.coupons.into())
        }
    }
}
