//! Cardinality estimators: Ertl's improved histogram estimator, the martingale (HIP) estimator's
//! state, linear counting for the sparse form, and the standard errors of each.

use super::num::Num;

/// α∞ = 1 / (2 ln 2), the limit of the HyperLogLog bias constant α_m for large m.
const ALPHA_INF: Num = Num::from_f64(0.721_347_520_444_481_7);

/// sqrt(3 ln 2 − 1): the histogram estimator's relative standard error times √m, for large n.
pub(crate) const HISTOGRAM_RSE_SQRT_M: Num = Num::from_f64(1.038_961_494_081_294_4);

/// sqrt(ln 2): the martingale estimator's relative standard error times √m, for large n.
pub(crate) const MARTINGALE_RSE_SQRT_M: Num = Num::from_f64(0.832_554_611_157_697_8);

/// The largest estimate any estimator reports: 2^64, the number of distinct 64-bit hashes.
pub(crate) const MAX_ESTIMATE: Num = Num::from_f64(super::num::CAP);

/// Safety bound for the series below (they converge in well under 100 steps for every input).
const MAX_TERMS: u32 = 200;

/// σ(x) = x + Σ_{k≥1} x^(2^k)·2^(k−1), for x in [0, 1) (Ertl 2017, Algorithm 6). Huge at x ≥ 1:
/// there the terms grow until they saturate at [`Num::HUGE`], which the sum then is.
fn sigma(x: Num) -> Num {
    let (mut x, mut y, mut z) = (x, Num::ONE, x);
    for _ in 0..MAX_TERMS {
        x = x.mul(x);
        let previous = z;
        z = z.add(x.mul(y));
        y = y.scale(1);
        if z == previous {
            break;
        }
    }
    z
}

/// τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^−k))²·2^−k) / 3, for x in [0, 1] (Ertl 2017, Algorithm 6).
fn tau(x: Num) -> Num {
    // τ(1) = 0 comes out of the series by itself (every term is 0).
    if x == Num::ZERO {
        return Num::ZERO;
    }
    let (mut x, mut y, mut z) = (x, Num::ONE, Num::ONE.sub(x));
    for _ in 0..MAX_TERMS {
        x = x.sqrt();
        let previous = z;
        y = y.scale(-1);
        let d = Num::ONE.sub(x);
        z = z.sub(d.mul(d).mul(y));
        if z == previous {
            break;
        }
    }
    const THREE: Num = Num::int(3); // at compile time, not a call of `Num::new`
    z.div(THREE)
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
pub(crate) fn improved_estimate(zeros: u32, middle: Num, maxed: u32, p: u32) -> Num {
    let m = 1u32 << p; // p ≤ 18
    if zeros >= m {
        return Num::ZERO;
    }
    let p = p as i32;
    let c0 = Num::new(zeros.into(), -p);
    // maxed ≤ m: wrapping, no saturation code (a wrapped value is still no panic).
    let not_maxed = Num::new(m.wrapping_sub(maxed).into(), -p);
    let z = sigma(c0)
        .scale(p)
        .add(middle)
        .add(tau(not_maxed).scale(2 * p - 64));
    clamp(ALPHA_INF.scale(2 * p).div(z))
}

/// Linear counting with `buckets` buckets of which `occupied` are non-empty: `−b·ln(1 − occupied/b)`,
/// computed as `2b·atanh(u)` with `u = occupied / (2b − occupied)`, whose series converges fast for
/// the sparse form's small fill (`occupied/b` stays below 1/900 there, so `u²` below 2^−21).
pub(crate) fn linear_counting(buckets: u64, occupied: u64) -> Num {
    if occupied >= buckets {
        return MAX_ESTIMATE;
    }
    let u = Num::int(occupied).div(Num::int(2 * buckets - occupied));
    // atanh(u) = u + u³/3 + u⁵/5 + …
    let sum = series(u.mul(u), u, 1, 2, false);
    clamp(sum.mul(Num::new(buckets, 1)))
}

/// `first + Σ_{i≥1} v_i / j_i` until a term no longer changes the sum, where `j_i = j + i·step`
/// and `v_i = v_{i−1}·x` from `v_0 = first`, or, if `factorial`, `v_i = v_{i−1}·x / j_i` (the term
/// itself): one loop for linear counting's `atanh` series (`x = u²`, odd `j`) and its error's
/// `e^t − t − 1` (`x = t`, terms `t^j / j!`). Each term is computed with the same operations, in
/// the same order, as the two loops it replaces.
fn series(x: Num, first: Num, mut j: u64, step: u64, factorial: bool) -> Num {
    let (mut v, mut sum) = (first, first);
    for _ in 1..MAX_TERMS {
        j += step;
        v = v.mul(x);
        let term = v.div(Num::int(j));
        if factorial {
            v = term;
        }
        let next = sum.add(term);
        if next == sum {
            break;
        }
        sum = next;
    }
    sum
}

/// Relative standard error of linear counting with `buckets` buckets at cardinality `n`:
/// sqrt(b·(e^t − t − 1)) / n with t = n/b (Whang et al. 1990), which tends to 1/sqrt(2b) as n → 0.
///
/// [`Num::HUGE`] for t ≥ 2 (larger than any error). Times √b it is f(t) = sqrt(e^t − t − 1)/t, which increases with t (the sign
/// of f′ is that of (t − 2)·e^t + t + 2, which is 0 at t = 0 with a derivative growing from 0), and
/// f(2) = 1.047 is above the histogram estimator's 1.039: from there on the sketch reports the
/// latter, and the sparse form never gets near (t < 1/900).
pub(crate) fn linear_counting_rse(buckets: u64, n: Num) -> Num {
    let b = Num::int(buckets);
    if n == Num::ZERO {
        return Num::ONE.div(b.scale(1).sqrt());
    }
    let t = n.div(b);
    const TWO: Num = Num::int(2); // at compile time, not a call of `Num::new`
    if t.ge(TWO) {
        return Num::HUGE;
    }
    // e^t − t − 1 = Σ_{k≥2} t^k / k!, summed without the cancellation of the closed form.
    let sum = series(t, t.mul(t).scale(-1), 2, 1, true);
    b.mul(sum).sqrt().div(n)
}

/// Caps at [`MAX_ESTIMATE`].
pub(crate) fn clamp(x: Num) -> Num {
    x.min(MAX_ESTIMATE)
}

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
    /// (a register at q + 1, or an invalid larger value, can never be raised and contributes 0):
    /// 2^−v is 2^(31 − v) units of 2^−31 in `lo` for v < 32, else 2^(63 − v) units of 2^−63 in
    /// `hi`; either way a `u32` shift, `1 << (31 − v mod 32)`. (Two 64-entry `u64` tables cost a
    /// Cortex-M0 1 KB of flash.)
    #[inline]
    fn term(value: u8, p: u32) -> (u64, u64, bool) {
        let v = u32::from(value & 63);
        // v > 64 − p ≥ 46 only: a maxed register is never below 32.
        let maxed = v > 64 - p;
        let unit = u64::from(1u32 << (31 - (v & 31)));
        if v < 32 {
            (unit, 0, false)
        } else {
            (0, if maxed { 0 } else { unit }, maxed)
        }
    }

    /// The sums over packed registers (one pass): one body for every sketch type and precision
    /// that recounts its registers (a conversion to dense, a device sketch's estimate).
    #[inline(never)]
    pub(crate) fn of_packed(packed: &[u8], p: u32) -> Self {
        // From m zero registers, each other one raised from 0: the same sums as adding every
        // register's term, through the insert's update (one body).
        let mut sums = Self::empty(p);
        super::registers::for_each(packed, |v| {
            if v != 0 {
                sums.replace(0, v, p);
            }
        });
        sums
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

    /// Accounts for one register going from `old` to `new` (`old < new`). One out-of-line body
    /// for the insert's update and the recount ([`of_packed`](Self::of_packed)).
    #[inline(never)]
    pub(crate) fn replace(&mut self, old: u8, new: u8, p: u32) {
        let (old_lo, old_hi, _) = Self::term(old, p);
        let (new_lo, new_hi, maxed) = Self::term(new, p);
        self.lo = self.lo.wrapping_sub(old_lo).wrapping_add(new_lo);
        self.hi = self.hi.wrapping_sub(old_hi).wrapping_add(new_hi);
        if old == 0 {
            self.zeros = self.zeros.wrapping_sub(1); // counted among the zeros: at least 1
        }
        if maxed {
            self.maxed += 1;
        }
    }

    /// Number of registers at 0.
    pub(crate) const fn zeros(&self) -> u32 {
        self.zeros
    }

    /// Σ_j 2^−M_j as `(lo, hi)`: the sum is `lo·2^−31 + hi·2^−63`, m times the probability that a
    /// new distinct key changes the sketch.
    pub(crate) const fn change_sum(&self) -> (u64, u64) {
        (self.lo, self.hi)
    }

    /// Ertl's improved estimate for these registers.
    pub(crate) fn improved_estimate(&self, p: u32) -> Num {
        // The zero registers contribute exactly 2^31 units each to `lo` (never more than `lo`:
        // wrapping, no saturation code).
        let lo = self.lo.wrapping_sub(u64::from(self.zeros) << 31);
        let middle = Num::new(lo, -31).add(Num::new(self.hi, -63));
        improved_estimate(self.zeros, middle, self.maxed, p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimators in `f64` arithmetic (as they were written before [`Num`]), as oracles.
    mod oracle {
        pub fn sigma(x: f64) -> f64 {
            if x >= 1.0 {
                return f64::INFINITY;
            }
            let (mut x, mut y, mut z) = (x, 1.0, x);
            loop {
                x *= x;
                let previous = z;
                z += x * y;
                y += y;
                if z == previous {
                    return z;
                }
            }
        }

        pub fn tau(x: f64) -> f64 {
            if x <= 0.0 || x >= 1.0 {
                return 0.0;
            }
            let (mut x, mut y, mut z) = (x, 1.0, 1.0 - x);
            loop {
                x = x.sqrt();
                let previous = z;
                y *= 0.5;
                z -= (1.0 - x) * (1.0 - x) * y;
                if z == previous {
                    return z / 3.0;
                }
            }
        }
    }

    fn num(x: f64) -> Num {
        Num::from_f64(x)
    }

    /// Relative difference.
    fn off(a: Num, b: f64) -> f64 {
        (a.to_f64() / b - 1.0).abs()
    }

    #[test]
    fn sigma_and_tau_match_their_series() {
        assert_eq!(sigma(Num::ZERO), Num::ZERO);
        assert_eq!(sigma(Num::ONE), Num::HUGE);
        // σ(0.5) = 0.5 + 0.25 + 0.0625·2 + 0.00390625·4 + …
        let direct: f64 = 0.5
            + (1..12)
                .map(|k| 0.5f64.powi(1 << k) * 2f64.powi(k - 1))
                .sum::<f64>();
        assert!(off(sigma(num(0.5)), direct) < 1e-15);
        assert_eq!(tau(Num::ZERO), Num::ZERO);
        assert_eq!(tau(Num::ONE), Num::ZERO);
        let x: f64 = 0.3;
        let series: f64 = (1..60)
            .map(|k| (1.0 - x.powf(0.5f64.powi(k))).powi(2) * 0.5f64.powi(k))
            .sum();
        assert!(off(tau(num(x)), (1.0 - x - series) / 3.0) < 1e-14);
        // Across the range, within a few f64 rounding errors of the f64 versions (σ near 1 and τ
        // near 0 amplify their inputs' rounding; the inputs here are exact in both).
        for i in 1..1_000 {
            let x = f64::from(i) / 1_000.0;
            assert!(off(sigma(num(x)), oracle::sigma(x)) < 1e-13, "σ({x})");
            assert!(off(tau(num(x)), oracle::tau(x)) < 1e-12, "τ({x})");
        }
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
        sums(hist, p).improved_estimate(p).to_f64()
    }

    /// Ertl's Algorithm 6 verbatim, in `f64`, as an oracle for the incremental integer form.
    fn horner(hist: &Histogram, p: u32) -> f64 {
        let m = f64::from(1u32 << p);
        let q = 64 - p as usize;
        let mut z = m * oracle::tau(1.0 - f64::from(hist[q + 1]) / m);
        for k in (1..=q).rev() {
            z = 0.5 * (z + f64::from(hist[k]));
        }
        z += m * oracle::sigma(f64::from(hist[0]) / m);
        0.721_347_520_444_481_7 * m * m / z
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
        // Every fill of a p = 10 sketch from empty to saturated, one register at a time.
        let p = 10;
        let mut hist = [0u32; 64];
        hist[0] = 1024;
        for step in 0..2_000u32 {
            let from = (0..64).find(|&v| hist[v] > 0 && v < 55).unwrap_or(55);
            if from == 55 {
                break;
            }
            let to = (from + 1 + (step as usize * 7) % 5).min(55);
            hist[from] -= 1;
            hist[to] += 1;
            let (a, b) = (histogram_estimate(&hist, p), horner(&hist, p));
            assert!((a / b - 1.0).abs() < 1e-12, "{step}: {a} {b}");
        }
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
        assert_eq!(histogram_estimate(&full, p), MAX_ESTIMATE.to_f64());
    }

    #[test]
    fn change_probability_is_exact() {
        let p = 14;
        let f = |s: &RegisterSums| {
            let (lo, hi) = s.change_sum();
            lo as f64 * 2f64.powi(-31) + hi as f64 * 2f64.powi(-63)
        };
        let mut s = RegisterSums::empty(p);
        assert_eq!(f(&s), 16_384.0);
        s.replace(0, 1, p);
        assert_eq!(f(&s), 16_383.5);
        s.replace(1, 40, p);
        s.replace(0, 51, p); // q + 1 = 51 contributes nothing
        assert_eq!(f(&s), 16_382.0 + 2f64.powi(-40));
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
    fn linear_counting_matches_its_closed_form() {
        for b in [1u64 << 11, 1 << 17, 1 << 21, 1 << 25] {
            for o in [1, 2, 3, 10, 100, 144, 1_000, 2_304, 9_216] {
                if o * 2 > b {
                    continue;
                }
                let want = -(b as f64) * (-(o as f64) / b as f64).ln_1p();
                let got = linear_counting(b, o);
                assert!(
                    off(got, want) < 1e-14,
                    "{b} {o}: {} vs {want}",
                    got.to_f64()
                );
            }
        }
        assert_eq!(linear_counting(1024, 0), Num::ZERO);
        assert_eq!(linear_counting(1024, 1024), MAX_ESTIMATE);
    }

    #[test]
    fn linear_counting_rse_limits() {
        let b = 1024u64;
        let rse = |n: f64| Some(linear_counting_rse(b, num(n)).to_f64()).filter(|x| x.is_finite());
        let limit = 1.0 / (2.0 * b as f64).sqrt();
        assert!((rse(0.0).unwrap() - limit).abs() < 1e-15);
        assert!((rse(1e-3).unwrap() - limit).abs() < 1e-6);
        for n in [1.0, 100.0, 1_000.0, 2_000.0] {
            let t = n / b as f64;
            let want = (b as f64 * (t.exp_m1() - t)).sqrt() / n;
            assert!((rse(n).unwrap() / want - 1.0).abs() < 1e-12, "{n}");
        }
        // Just below t = 2 it is above the histogram estimator's 1.039/√m, so None beyond is safe.
        assert!(rse(2_047.0).unwrap() * (b as f64).sqrt() > 1.04);
        assert_eq!(rse(2_048.0), None);
    }
}
