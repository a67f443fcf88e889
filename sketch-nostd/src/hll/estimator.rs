//! Cardinality estimators: Ertl's improved histogram estimator, the martingale (HIP) estimator's
//! state, linear counting for the sparse form, and the standard errors of each.

/// α∞ = 1 / (2 ln 2), the limit of the HyperLogLog bias constant α_m for large m.
const ALPHA_INF: f64 = 0.721_347_520_444_481_7;

/// sqrt(3 ln 2 − 1): the histogram estimator's relative standard error times √m, for large n.
pub(crate) const HISTOGRAM_RSE_SQRT_M: f64 = 1.038_961_494_081_294_4;

/// sqrt(ln 2): the martingale estimator's relative standard error times √m, for large n.
pub(crate) const MARTINGALE_RSE_SQRT_M: f64 = 0.832_554_611_157_697_8;

/// The largest estimate any estimator reports: 2^64, the number of distinct 64-bit hashes.
pub(crate) const MAX_ESTIMATE: f64 = 18_446_744_073_709_551_616.0;

/// Safety bound for the series below (they converge in well under 64 steps for every input).
const MAX_TERMS: u32 = 200;

/// σ(x) = x + Σ_{k≥1} x^(2^k)·2^(k−1), for x in [0, 1) (Ertl 2017, Algorithm 6). ∞ at x ≥ 1.
fn sigma(x: f64) -> f64 {
    if x.is_nan() || x >= 1.0 {
        return f64::INFINITY;
    }
    let (mut x, mut y, mut z) = (x, 1.0, x);
    for _ in 0..MAX_TERMS {
        x *= x;
        let previous = z;
        z += x * y;
        y += y;
        if z == previous {
            break;
        }
    }
    z
}

/// τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^−k))²·2^−k) / 3, for x in [0, 1] (Ertl 2017, Algorithm 6).
fn tau(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 || x >= 1.0 {
        return 0.0;
    }
    let (mut x, mut y, mut z) = (x, 1.0, 1.0 - x);
    for _ in 0..MAX_TERMS {
        x = libm::sqrt(x);
        let previous = z;
        y *= 0.5;
        let d = 1.0 - x;
        z -= d * d * y;
        if z == previous {
            break;
        }
    }
    z / 3.0
}

/// Ertl's improved raw estimator ("New cardinality estimation algorithms for HyperLogLog sketches",
/// 2017, Algorithm 6) for `m = 2^p` registers with `q = 64 − p` rank bits (register values
/// `0..=q + 1`), of which `zeros` are 0 and `maxed` are `q + 1`, and `middle` = Σ 2^−M_j over the
/// others:
///
/// `α∞·m² / (m·σ(C₀/m) + Σ_{k=1..q} C_k·2^−k + m·τ(1 − C_{q+1}/m)·2^−q)`.
///
/// The σ and τ terms replace linear counting and the large-range correction: the estimate is nearly
/// unbiased from 0 to far beyond 2^64/m without empirical bias tables or a switch-over point. Ertl
/// evaluates the middle sum Horner-style from the full histogram; the sketch keeps it up to date
/// instead ([`RegisterSums`]), so an estimate costs O(1) rather than a pass over the registers.
pub(crate) fn improved_estimate(zeros: f64, middle: f64, maxed: f64, p: u32) -> f64 {
    let m = f64::from(1u32 << p);
    if zeros >= m {
        return 0.0;
    }
    let two_pow_minus_q = 1.0 / (1u64 << (64 - p)) as f64;
    let z = m * sigma(zeros / m) + middle + m * tau(1.0 - maxed / m) * two_pow_minus_q;
    clamp(ALPHA_INF * m * m / z)
}

/// Linear counting with `buckets` buckets of which `occupied` are non-empty: `−b·ln(1 − occupied/b)`.
pub(crate) fn linear_counting(buckets: f64, occupied: f64) -> f64 {
    if occupied >= buckets {
        return MAX_ESTIMATE;
    }
    clamp(-buckets * libm::log1p(-occupied / buckets))
}

/// Relative standard error of linear counting with `buckets` buckets at cardinality `n`:
/// sqrt(b·(e^t − t − 1)) / n with t = n/b (Whang et al. 1990). Tends to 1/sqrt(2b) as n → 0.
pub(crate) fn linear_counting_rse(buckets: f64, n: f64) -> f64 {
    if n.is_nan() || n <= 0.0 {
        return 1.0 / libm::sqrt(2.0 * buckets);
    }
    let t = n / buckets;
    let var = buckets * (libm::expm1(t) - t);
    let rse = libm::sqrt(var.max(0.0)) / n;
    if rse.is_nan() {
        f64::INFINITY
    } else {
        rse
    }
}

/// Maps NaN and negative values to 0 and caps at [`MAX_ESTIMATE`].
pub(crate) fn clamp(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        0.0
    } else if x > MAX_ESTIMATE {
        MAX_ESTIMATE
    } else {
        x
    }
}

/// 2^(31 − v) for register values v < 32, else 0 (units of 2^−31 of 2^−v).
const LO_TERMS: [u64; 64] = {
    let mut t = [0; 64];
    let mut v = 0;
    while v < 32 {
        t[v] = 1 << (31 - v);
        v += 1;
    }
    t
};

/// 2^(63 − v) for register values v ≥ 32, else 0 (units of 2^−63 of 2^−v).
const HI_TERMS: [u64; 64] = {
    let mut t = [0; 64];
    let mut v = 32;
    while v < 64 {
        t[v] = 1 << (63 - v);
        v += 1;
    }
    t
};

const TWO_POW_MINUS_31: f64 = 1.0 / (1u64 << 31) as f64;
const TWO_POW_MINUS_63: f64 = 1.0 / (1u64 << 63) as f64;

/// Everything the estimators need to know about the dense registers, kept up to date as registers
/// change so that no estimate has to read them:
///
/// * the exact sum Σ_j 2^−M_j (0 for a register at its maximum q + 1, which can never change): the
///   probability that a new distinct key changes the sketch is this sum over m. It is split in two
///   fixed-point integers so that it never accumulates rounding error: `lo` holds the terms of
///   registers below 32 in units of 2^−31, `hi` the others in units of 2^−63. Both stay below 2^50,
///   so they also convert to `f64` exactly;
/// * the numbers of registers at 0 and at the maximum q + 1 (C₀ and C_{q+1} in Ertl's notation).
///
/// The martingale estimator adds `m / sum` each time a register changes; Ertl's estimator uses
/// C₀, C_{q+1} and the sum without the C₀ zero registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RegisterSums {
    lo: u64,
    hi: u64,
    zeros: u32,
    maxed: u32,
}

impl RegisterSums {
    /// The sums over no register at all (start of [`add`](Self::add)).
    pub(crate) const NONE: Self = Self {
        lo: 0,
        hi: 0,
        zeros: 0,
        maxed: 0,
    };

    /// The sums for `m = 2^p` registers at zero.
    pub(crate) const fn empty(p: u32) -> Self {
        Self {
            lo: (1u64 << p) << 31,
            hi: 0,
            zeros: 1 << p,
            maxed: 0,
        }
    }

    /// The contribution `(lo, hi)` of one register holding `value`, and whether it is at the maximum
    /// (a register at q + 1, or an invalid larger value, can never be raised and contributes 0).
    /// Table lookups rather than variable shifts: this runs once per register when a merge or a load
    /// recounts them, and variable shifts are slow on baseline x86-64 and Cortex-M0.
    #[inline]
    fn term(value: u8, p: u32) -> (u64, u64, bool) {
        let v = usize::from(value & 63);
        let maxed = v as u32 > 64 - p;
        let keep = u64::from(maxed).wrapping_sub(1); // all ones unless maxed
        (LO_TERMS[v], HI_TERMS[v] & keep, maxed)
    }

    /// Counts one more register holding `value`. At most 2^18 registers contribute at most 2^31
    /// units each, so the sums cannot overflow.
    #[inline]
    pub(crate) fn add(&mut self, value: u8, p: u32) {
        let (lo, hi, maxed) = Self::term(value, p);
        self.lo = self.lo.wrapping_add(lo);
        self.hi = self.hi.wrapping_add(hi);
        self.zeros += u32::from(value == 0);
        self.maxed += u32::from(maxed);
    }

    /// Accounts for one register going from `old` to `new` (`old < new`).
    #[inline]
    pub(crate) fn replace(&mut self, old: u8, new: u8, p: u32) {
        let (old_lo, old_hi, _) = Self::term(old, p);
        let (new_lo, new_hi, maxed) = Self::term(new, p);
        self.lo = self.lo.wrapping_sub(old_lo).wrapping_add(new_lo);
        self.hi = self.hi.wrapping_sub(old_hi).wrapping_add(new_hi);
        if old == 0 {
            self.zeros = self.zeros.saturating_sub(1);
        }
        if maxed {
            self.maxed += 1;
        }
    }

    /// Number of registers at 0.
    pub(crate) const fn zeros(&self) -> u32 {
        self.zeros
    }

    /// Σ_j 2^−M_j as a float: m times the probability that a new distinct key changes the sketch.
    #[inline]
    pub(crate) fn change_sum(&self) -> f64 {
        // Both are below 2^51: the signed conversion is exact and cheaper than the unsigned one.
        (self.lo as i64) as f64 * TWO_POW_MINUS_31 + (self.hi as i64) as f64 * TWO_POW_MINUS_63
    }

    /// Ertl's improved estimate for these registers.
    pub(crate) fn improved_estimate(&self, p: u32) -> f64 {
        // The zero registers contribute exactly 2^31 units each to `lo`.
        let lo = self.lo.saturating_sub(u64::from(self.zeros) << 31);
        let middle = lo as f64 * TWO_POW_MINUS_31 + self.hi as f64 * TWO_POW_MINUS_63;
        improved_estimate(f64::from(self.zeros), middle, f64::from(self.maxed), p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigma_and_tau_match_their_series() {
        assert_eq!(sigma(0.0), 0.0);
        assert_eq!(sigma(1.0), f64::INFINITY);
        // σ(0.5) = 0.5 + 0.25 + 0.0625·2 + 0.00390625·4 + …
        let direct: f64 = 0.5
            + (1..12)
                .map(|k| 0.5f64.powi(1 << k) * 2f64.powi(k - 1))
                .sum::<f64>();
        assert!((sigma(0.5) - direct).abs() < 1e-15);
        assert_eq!(tau(0.0), 0.0);
        assert_eq!(tau(1.0), 0.0);
        let x: f64 = 0.3;
        let series: f64 = (1..60)
            .map(|k| (1.0 - x.powf(0.5f64.powi(k))).powi(2) * 0.5f64.powi(k))
            .sum();
        assert!((tau(x) - (1.0 - x - series) / 3.0).abs() < 1e-15);
    }

    type Histogram = [u32; 64];

    /// Sums from a histogram of register values.
    fn sums(hist: &Histogram, p: u32) -> RegisterSums {
        let mut s = RegisterSums::NONE;
        for (value, &count) in (0u8..).zip(hist) {
            for _ in 0..count {
                s.add(value, p);
            }
        }
        s
    }

    fn histogram_estimate(hist: &Histogram, p: u32) -> f64 {
        sums(hist, p).improved_estimate(p)
    }

    /// Ertl's Algorithm 6 verbatim, as an oracle for the incremental form.
    fn horner(hist: &Histogram, p: u32) -> f64 {
        let m = f64::from(1u32 << p);
        let q = 64 - p as usize;
        let mut z = m * tau(1.0 - f64::from(hist[q + 1]) / m);
        for k in (1..=q).rev() {
            z = 0.5 * (z + f64::from(hist[k]));
        }
        z += m * sigma(f64::from(hist[0]) / m);
        ALPHA_INF * m * m / z
    }

    #[test]
    fn incremental_form_equals_algorithm_6() {
        let p = 12;
        let mut hist = [0u32; 64];
        for (k, c) in [
            (0, 700),
            (1, 900),
            (2, 1000),
            (3, 800),
            (5, 400),
            (9, 200),
            (20, 95),
            (53, 1),
        ] {
            hist[k] = c;
        }
        assert_eq!(hist.iter().sum::<u32>(), 4096);
        let (a, b) = (histogram_estimate(&hist, p), horner(&hist, p));
        assert!((a / b - 1.0).abs() < 1e-12, "{a} {b}");
    }

    #[test]
    fn histogram_estimator_edges() {
        let p = 10;
        let mut hist = [0u32; 64];
        hist[0] = 1024;
        assert_eq!(histogram_estimate(&hist, p), 0.0);
        // One register set: linear counting says m·ln(m/(m−1)) ≈ 1.0005.
        hist[0] = 1023;
        hist[1] = 1;
        let one = histogram_estimate(&hist, p);
        assert!((one - 1.0).abs() < 0.01, "{one}");
        // All registers at the maximum q + 1 = 55: beyond anything countable, capped, finite.
        let mut full = [0u32; 64];
        full[55] = 1024;
        assert_eq!(histogram_estimate(&full, p), MAX_ESTIMATE);
    }

    #[test]
    fn change_probability_is_exact() {
        let p = 14;
        let mut s = RegisterSums::empty(p);
        assert_eq!(s.change_sum(), 16_384.0);
        s.replace(0, 1, p);
        assert_eq!(s.change_sum(), 16_383.5);
        s.replace(1, 40, p);
        s.replace(0, 51, p); // q + 1 = 51 contributes nothing
        assert_eq!(s.change_sum(), 16_382.0 + 2f64.powi(-40));
        assert_eq!((s.zeros, s.maxed), (16_382, 1));
        let mut hist = [0u32; 64];
        hist[0] = 16_382;
        hist[40] = 1;
        hist[51] = 1;
        assert_eq!(sums(&hist, p), s);
        let mut empty = [0u32; 64];
        empty[0] = 16_384;
        assert_eq!(sums(&empty, p), RegisterSums::empty(p));
    }

    #[test]
    fn linear_counting_rse_limits() {
        let b = 1024.0;
        assert!((linear_counting_rse(b, 0.0) - 1.0 / (2.0 * b).sqrt()).abs() < 1e-12);
        assert!((linear_counting_rse(b, 1e-3) - 1.0 / (2.0 * b).sqrt()).abs() < 1e-6);
        assert!(linear_counting_rse(b, 5000.0) > 0.05); // 7.2%: far worse than 1.04/√m
        assert_eq!(linear_counting(b, b), MAX_ESTIMATE);
        assert_eq!(linear_counting(b, 0.0), 0.0);
    }
}
