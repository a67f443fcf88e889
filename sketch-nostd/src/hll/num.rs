//! Arithmetic for the estimators, in integer instructions only.
//!
//! The gain is code size. On a part without a double-precision FPU (Cortex-M0/M3/M4F, RISC-V
//! `imac`), `f64` arithmetic links the compiler's soft-float routines and `libm` (with them, the
//! firmware test's HyperLogLog family was 14.9 KB of Cortex-M0 code; without, 11.5 KB). The
//! estimators compute with [`Num`] instead, a non-negative binary floating-point number with a
//! 64-bit mantissa (11 bits more than `f64`) built from integer operations; `f64` appears only at the
//! public API, converted once (correctly rounded). Identical results on every target do not depend
//! on it: soft-float is correctly rounded IEEE 754 arithmetic too, and gives the bits a hardware FPU
//! gives.
//!
//! The one `f64` that is part of a sketch's state is the martingale estimate, which the wire format
//! carries. [`martingale_step`] updates it with exactly the rounding of IEEE 754 double arithmetic,
//! in integer code, for the same reason: no float routine in the image. Encoded sketches are the same
//! bytes on every target (and the same as those of earlier versions).

/// A non-negative number `m·2^e`, with the top bit of `m` set unless the number is 0. Operations
/// truncate (round toward zero) to 64 bits: a relative error below 2^−63 each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Num {
    m: u64,
    e: i32,
}

/// Exponents below this flush to 0 and above it saturate: far outside anything the estimators
/// compute (they clamp at 2^64), but it keeps exponent arithmetic from overflowing.
const EXP_LIMIT: i32 = 1 << 16;

impl Num {
    pub(crate) const ZERO: Self = Self { m: 0, e: 0 };
    pub(crate) const ONE: Self = Self::int(1);
    /// The result of a division by zero: larger than any value the estimators report.
    pub(crate) const HUGE: Self = Self {
        m: u64::MAX,
        e: EXP_LIMIT,
    };

    /// `m·2^e` for any `m`, normalized.
    #[inline(never)]
    const fn new(m: u64, e: i32) -> Self {
        if m == 0 || e < -EXP_LIMIT {
            return Self::ZERO;
        }
        if e > EXP_LIMIT {
            return Self::HUGE;
        }
        let z = m.leading_zeros();
        Self {
            m: m << z,
            e: e - z as i32,
        }
    }

    /// The integer `x`, exactly.
    pub(crate) const fn int(x: u64) -> Self {
        Self::new(x, 0)
    }

    /// `self·2^k`, exactly.
    #[inline(never)]
    pub(crate) const fn scale(self, k: i32) -> Self {
        if self.m == 0 {
            return self;
        }
        Self::new(self.m, self.e.saturating_add(k))
    }

    /// A finite non-negative `f64`, exactly (0 for anything else: NaN, infinities, negative values).
    pub(crate) const fn from_f64(x: f64) -> Self {
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1 << 52) - 1);
        if bits >> 63 != 0 || exp == 0x7ff {
            Self::ZERO
        } else if exp == 0 {
            Self::new(frac, -1074)
        } else {
            Self::new(frac | 1 << 52, exp - 1075)
        }
    }

    /// The nearest `f64` (ties to even), subnormal ones included; infinity above the range.
    pub(crate) fn to_f64(self) -> f64 {
        if self.m == 0 {
            return 0.0;
        }
        // Subnormal f64 values are k·2^−1074 for k < 2^52 (their bits are k): below 2^−1022
        // (shift ≥ 12), round m·2^e to a multiple of 2^−1074.
        let shift = -1074 - self.e;
        if shift >= 12 {
            return f64::from_bits(round_off(self.m, shift, false));
        }
        let (m, e) = round53(self.m, self.e, false);
        f64_of(m, e)
    }

    /// `self ≥ other`.
    #[inline(never)]
    pub(crate) const fn ge(self, other: Self) -> bool {
        if other.m == 0 {
            true
        } else if self.m == 0 {
            false
        } else {
            self.e > other.e || (self.e == other.e && self.m >= other.m)
        }
    }

    /// The smaller of the two.
    pub(crate) const fn min(self, other: Self) -> Self {
        if self.ge(other) {
            other
        } else {
            self
        }
    }

    /// The larger of the two.
    pub(crate) const fn max(self, other: Self) -> Self {
        if self.ge(other) {
            self
        } else {
            other
        }
    }

    /// `self + other`.
    pub(crate) fn add(self, other: Self) -> Self {
        self.add_sticky(other).0
    }

    /// `self + other`, truncated, and whether set bits were dropped (what exact rounding needs).
    #[inline(never)]
    fn add_sticky(self, other: Self) -> (Self, bool) {
        let (a, b) = if self.ge(other) {
            (self, other)
        } else {
            (other, self)
        };
        if b.m == 0 {
            return (a, false);
        }
        let (shifted, lost) = shr(b.m, a.e - b.e);
        let (sum, carry) = a.m.overflowing_add(shifted);
        if carry {
            // The 65-bit sum loses its lowest bit to the shift.
            let kept = Self::new(sum >> 1 | 1 << 63, a.e.saturating_add(1));
            (kept, lost || sum & 1 != 0)
        } else {
            (Self { m: sum, e: a.e }, lost)
        }
    }

    /// `self − other`, or 0 if `other ≥ self`.
    #[inline(never)]
    pub(crate) fn sub(self, other: Self) -> Self {
        if other.ge(self) {
            return Self::ZERO;
        }
        if other.m == 0 {
            return self;
        }
        Self::new(self.m - shr(other.m, self.e - other.e).0, self.e)
    }

    /// `self·other`.
    #[inline(never)]
    pub(crate) fn mul(self, other: Self) -> Self {
        if self.m == 0 || other.m == 0 {
            return Self::ZERO;
        }
        let (hi, lo) = mul_wide(self.m, other.m);
        let e = self.e.saturating_add(other.e);
        // Both factors are at least 2^63, so `hi` is at least 2^62: one bit of `lo` may be needed.
        if hi >> 63 != 0 {
            Self::new(hi, e.saturating_add(64))
        } else {
            Self::new(hi << 1 | lo >> 63, e.saturating_add(63))
        }
    }

    /// `self / other` ([`HUGE`](Self::HUGE) if `other` is 0).
    #[inline(never)]
    pub(crate) fn div(self, other: Self) -> Self {
        if self.m == 0 {
            return Self::ZERO;
        }
        if other.m == 0 {
            return Self::HUGE;
        }
        let (q, _) = div_bits(self.m, other.m);
        Self::new(q, self.e.saturating_sub(other.e).saturating_sub(63))
    }

    /// `√self`: Newton's iteration from above, from within a factor √2.
    #[inline(never)]
    pub(crate) fn sqrt(self) -> Self {
        if self.m == 0 {
            return Self::ZERO;
        }
        if self.m == 1 << 63 && self.e & 1 == 1 {
            return Self::ONE.scale((self.e + 63) / 2); // an even power of two: exact
        }
        // self < 2^(e + 64), so 2^⌈(e + 64)/2⌉ ≥ √self.
        let mut y = Self::ONE.scale((self.e + 65) >> 1);
        // The relative error squares (and halves) each step: 0.42, 0.06, 2e−3, 1e−6, 6e−13, 2e−25.
        for _ in 0..6 {
            y = y.add(self.div(y)).scale(-1);
        }
        y
    }
}

/// `x >> s` for any `s ≥ 0`, and whether a set bit was shifted out.
const fn shr(x: u64, s: i32) -> (u64, bool) {
    if s <= 0 {
        (x, false)
    } else if s >= 64 {
        (0, x != 0)
    } else {
        (x >> s, x << (64 - s) != 0)
    }
}

/// The 128-bit product `a·b` as (high, low) words, from four 32×32-bit products (a Cortex-M0 has
/// no 64-bit multiply; this avoids the compiler's 128-bit multiplication routine).
pub(crate) const fn mul_wide(a: u64, b: u64) -> (u64, u64) {
    const LOW: u64 = 0xffff_ffff;
    let (a1, a0, b1, b0) = (a >> 32, a & LOW, b >> 32, b & LOW);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 32) + (p01 & LOW) + (p10 & LOW);
    (
        p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32),
        mid << 32 | (p00 & LOW),
    )
}

/// `⌊n·2^63 / d⌋` and whether the remainder is not 0, for `n < 2d` and `d` with its top bit set (so
/// the quotient fits in 64 bits). Long division in base 2^16 (Knuth, TAOCP vol. 2, 4.3.1,
/// Algorithm D): four quotient digits, each estimated by a 32-by-16-bit division, which the
/// hardware does (or `__aeabi_uidiv`, which every Cortex-M0 firmware has), never a 64-bit division
/// routine.
const fn div_bits(n: u64, d: u64) -> (u64, bool) {
    const DIGIT: u64 = 0xffff;
    // The dividend n·2^63 is (r, low) = r·2^64 + low, with r < d.
    let (mut r, low) = (n >> 1, (n & 1) << 63);
    let top = (d >> 48) as u32 | 1 << 15; // the divisor's leading digit (the bit is set already)
    let mut q = 0u64;
    let mut i = 0;
    while i < 4 {
        // Bring down the next digit: the window r·2^16 + digit has 80 bits, (r >> 48, w).
        let w = r << 16 | (low >> (48 - 16 * i)) & DIGIT;
        // The estimate from the window's two leading digits is never too small and, as the
        // divisor is normalized, at most 2 too large (Theorem B).
        let mut digit = (r >> 32) as u32 / top;
        if digit > DIGIT as u32 {
            digit = DIGIT as u32;
        }
        // Subtract digit·d (80 bits: two 32×16-bit products) from the window.
        let (p_lo, p_hi) = (
            mul_32_16(d as u32, digit),
            mul_32_16((d >> 32) as u32, digit),
        );
        let (product, carry) = p_lo.overflowing_add(p_hi << 32);
        let (mut rest, borrow) = w.overflowing_sub(product);
        let mut high = (r >> 48)
            .wrapping_sub((p_hi >> 32) + carry as u64)
            .wrapping_sub(borrow as u64);
        // Add d back while the remainder is negative (at most twice).
        while high >> 63 != 0 {
            digit -= 1;
            let (sum, carry) = rest.overflowing_add(d);
            rest = sum;
            high = high.wrapping_add(carry as u64);
        }
        r = rest;
        q = q << 16 | digit as u64;
        i += 1;
    }
    (q, r != 0)
}

/// `x·y` for `y < 2^16`, from two 16×16-bit products (32-bit multiplies: a Cortex-M0 has no
/// widening one).
const fn mul_32_16(x: u32, y: u32) -> u64 {
    ((((x >> 16) * y) as u64) << 16) + ((x & 0xffff) * y) as u64
}

/// Rounds `m·2^e` (`m` with its top bit set), plus something less than one unit of `m` if `sticky`,
/// to 53 significant bits, to nearest with ties to even: returns `(mantissa, exponent)` with the
/// mantissa in `[2^52, 2^53)`.
pub(crate) const fn round53(m: u64, e: i32, sticky: bool) -> (u64, i32) {
    let mantissa = round_off(m, 11, sticky);
    if mantissa >> 53 != 0 {
        (mantissa >> 1, e + 12)
    } else {
        (mantissa, e + 11)
    }
}

/// [`round53`] as one out-of-line body for the martingale update, which rounds three times (the
/// callers elsewhere, `to_f64` and the quantile sketch's rank, keep it inlined: smaller there).
#[inline(never)]
fn round53_shared(m: u64, e: i32, sticky: bool) -> (u64, i32) {
    round53(m, e, sticky)
}

/// `m / 2^drop` (`drop ≥ 1`) rounded to the nearest integer, ties to even; `sticky` says that the
/// exact value is a little above `m` (bits already dropped before). The result may carry into one
/// more bit than `m >> drop` has.
const fn round_off(m: u64, drop: i32, sticky: bool) -> u64 {
    // The dropped bits, moved to the top of `rest`: above 2^63 is more than half a unit. Beyond 64
    // dropped bits the value is less than half a unit.
    let (kept, rest) = match drop {
        1..=63 => (m >> drop, m << (64 - drop)),
        64 => (0, m),
        _ => (0, 0),
    };
    let up = rest > 1 << 63 || (rest == 1 << 63 && (sticky || kept & 1 == 1));
    kept + up as u64
}

/// The `f64` `m·2^e` for a mantissa in `[2^52, 2^53)`: 0 below the normal range, infinity above.
fn f64_of(m: u64, e: i32) -> f64 {
    let biased = e + 1075;
    if biased <= 0 {
        0.0
    } else if biased >= 0x7ff {
        f64::INFINITY
    } else {
        f64::from_bits((biased as u64) << 52 | (m & ((1 << 52) - 1)))
    }
}

/// Whether this target has IEEE double-precision hardware, where the martingale update is a plain
/// `f64` expression. Elsewhere [`martingale_step`] uses integer code with the same results.
pub(crate) const NATIVE_F64: bool = cfg!(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "wasm32",
    all(target_arch = "riscv64", target_feature = "d"),
));

/// 2^64, the largest estimate any estimator reports (the number of distinct 64-bit hashes), and
/// where the martingale estimate stops.
pub(crate) const CAP: f64 = 18_446_744_073_709_551_616.0;

/// The martingale estimator's update when a register changes: `hip + 2^p / S`, where
/// `S = lo·2^−31 + hi·2^−63` (the sketch's exact change sum, `lo` and `hi` below 2^52), capped at
/// 2^64; `hip` itself if `S` is 0. Rounded exactly as the `f64` expression
/// `(hip + m / (lo·2^−31 + hi·2^−63)).min(2^64)` is under IEEE 754 (each operation to nearest, ties
/// to even), with or without a double-precision FPU.
pub(crate) fn martingale_step(hip: f64, lo: u64, hi: u64, p: u32) -> f64 {
    if NATIVE_F64 {
        martingale_step_f64(hip, lo, hi, p)
    } else {
        martingale_step_integer(hip, lo, hi, p)
    }
}

/// [`martingale_step`] in `f64` arithmetic.
fn martingale_step_f64(hip: f64, lo: u64, hi: u64, p: u32) -> f64 {
    const TWO_POW_MINUS_31: f64 = 1.0 / (1u64 << 31) as f64;
    const TWO_POW_MINUS_63: f64 = 1.0 / (1u64 << 63) as f64;
    // Both are below 2^52: the signed conversion is exact and cheaper than the unsigned one.
    let sum = (lo as i64) as f64 * TWO_POW_MINUS_31 + (hi as i64) as f64 * TWO_POW_MINUS_63;
    if sum > 0.0 {
        (hip + f64::from(1u32 << p) / sum).min(CAP)
    } else {
        hip
    }
}

/// [`martingale_step`] in integer arithmetic, rounding each of the three operations (the sum, the
/// division, the addition) from its exact value.
fn martingale_step_integer(hip: f64, lo: u64, hi: u64, p: u32) -> f64 {
    // S exactly: (lo·2^32 + hi)·2^−63, up to 84 bits as (high, low) words.
    let (low, carry) = (lo << 32).overflowing_add(hi);
    let high = (lo >> 32) + carry as u64;
    let (m, e, sticky) = if high != 0 {
        // high < 2^20, so 44 ≤ z < 64.
        let z = high.leading_zeros();
        (high << z | low >> (64 - z), 1 - z as i32, low << z != 0)
    } else if low != 0 {
        let z = low.leading_zeros();
        (low << z, -63 - z as i32, false)
    } else {
        return hip;
    };
    // sum = sm·2^se, as the f64 addition rounds it.
    let (sm, se) = round53_shared(m, e, sticky);
    // 2^p / sum = q·2^(p − se − 63 − 52) with q = ⌊2^126 / (sm·2^11)⌋ in [2^62, 2^63].
    let (q, inexact) = div_bits(1 << 63, sm << 11);
    let z = q.leading_zeros();
    let (im, ie) = round53_shared(q << z, p as i32 - se - 115 - z as i32, inexact);
    // hip + increment, both f64 values (53 significant bits): their 64-bit aligned sum with the
    // dropped bits as sticky is enough to round exactly.
    let (sum, sticky) = Num::from_f64(hip).add_sticky(Num::new(im, ie));
    let (rm, re) = round53_shared(sum.m, sum.e, sticky);
    let next = f64_of(rm, re);
    if next.to_bits() > CAP.to_bits() {
        CAP
    } else {
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sketch_rng::SplitMix64 as Rng;

    /// The draws these tests need beside the generator's own.
    trait Draw {
        fn bits_below(&mut self, bits: u32) -> u64;
        fn hip(&mut self) -> f64;
    }

    impl Draw for Rng {
        /// A value with a random number of significant bits, so that short mantissas (and ties)
        /// are common.
        fn bits_below(&mut self, bits: u32) -> u64 {
            let width = 1 + self.next_u64() % u64::from(bits);
            let x = self.next_u64() >> (64 - width);
            if self.next_u64().is_multiple_of(4) {
                x & !((1 << (width / 2)) - 1) // trailing zeros: exact ties in the rounding
            } else {
                x
            }
        }

        /// A positive f64 in [1, 2^64], or 0.
        fn hip(&mut self) -> f64 {
            match self.next_u64() % 8 {
                0 => 0.0,
                1 => CAP,
                _ => {
                    let exp = 1023 + self.next_u64() % 64;
                    f64::from_bits(exp << 52 | (self.next_u64() >> 12))
                }
            }
        }
    }

    #[test]
    fn integer_martingale_step_rounds_exactly_as_f64() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for i in 0..400_000u32 {
            let p = 4 + i % 15;
            let (lo, hi, hip) = (rng.bits_below(50), rng.bits_below(50), rng.hip());
            let (a, b) = (
                martingale_step_integer(hip, lo, hi, p),
                martingale_step_f64(hip, lo, hi, p),
            );
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "hip {hip:e} lo {lo} hi {hi} p {p}: {a:e} vs {b:e}"
            );
        }
    }

    #[test]
    fn integer_martingale_step_edges() {
        for p in [4, 10, 14, 18] {
            let m = 1u64 << p;
            for (hip, lo, hi) in [
                (0.0, m << 31, 0),              // empty sketch: + 1
                (1.0, 0, 0),                    // nothing can change: unchanged
                (3.5, 0, 1),                    // S = 2^−63: the increment is huge, capped
                (CAP, 1 << 20, 7),              // already capped
                (1e10, (1 << 31) + 1, 1 << 49), // S just above 1
                (12_345.678, m << 30, 0),       // S = m/2: + 2
            ] {
                assert_eq!(
                    martingale_step_integer(hip, lo, hi, p as u32).to_bits(),
                    martingale_step_f64(hip, lo, hi, p as u32).to_bits(),
                    "{hip} {lo} {hi} {p}"
                );
            }
        }
        assert_eq!(martingale_step(0.0, 1 << 41, 0, 10), 1.0);
    }

    #[test]
    fn long_division_is_exact() {
        let mut rng = Rng(3);
        for i in 0..300_000 {
            let d = rng.next_u64() | 1 << 63;
            let d = if i % 3 == 0 { d & !0xffff_ffff } else { d }; // short divisors
                                                                   // Any n is below 2d, as d ≥ 2^63.
            let n = match i % 4 {
                0 => 1 << 63,
                1 => d,
                2 => d - 1,
                _ => rng.next_u64(),
            };
            let wide = (n as u128) << 63;
            let (q, inexact) = div_bits(n, d);
            assert_eq!(q as u128, wide / d as u128, "{n} / {d}");
            assert_eq!(inexact, !wide.is_multiple_of(d as u128), "{n} % {d}");
        }
        assert_eq!(div_bits(1 << 63, 1 << 63), (1 << 63, false));
        assert_eq!(div_bits(u64::MAX, u64::MAX), (1 << 63, false));
        assert_eq!(div_bits(u64::MAX, 1 << 63), (u64::MAX, false));
    }

    /// Relative difference of a `Num` result from an `f64` reference.
    fn off(x: Num, reference: f64) -> f64 {
        if reference == 0.0 {
            x.to_f64().abs()
        } else {
            (x.to_f64() / reference - 1.0).abs()
        }
    }

    #[test]
    fn arithmetic_matches_f64_to_its_precision() {
        let mut rng = Rng(7);
        for _ in 0..100_000 {
            let (x, y) = (rng.bits_below(64), rng.bits_below(64).max(1));
            let (s, t) = (rng.next_u64() % 80, rng.next_u64() % 80);
            let a = Num::int(x).scale(s as i32 - 40);
            let b = Num::int(y).scale(t as i32 - 40);
            let (fa, fb) = (a.to_f64(), b.to_f64());
            // Each operand is within half an f64 ulp (2^−53) of its Num; each Num operation is
            // within 2^−63: a relative error below 3·2^−53 after the result's own rounding.
            let tolerance = 3.0 * f64::EPSILON / 2.0;
            assert!(off(a.mul(b), fa * fb) <= tolerance, "{fa} * {fb}");
            assert!(off(a.div(b), fa / fb) <= tolerance, "{fa} / {fb}");
            assert!(off(a.add(b), fa + fb) <= tolerance, "{fa} + {fb}");
            assert!(off(a.sqrt(), fa.sqrt()) <= tolerance, "sqrt {fa}");
            if fa > fb * (1.0 + 1e-6) {
                // Cancellation amplifies the operands' f64 rounding by fa / (fa − fb).
                let amplified = tolerance * (fa + fb) / (fa - fb);
                assert!(off(a.sub(b), fa - fb) <= amplified, "{fa} - {fb}");
            }
            if fa != fb {
                assert_eq!(a.ge(b), fa > fb, "{fa} >= {fb}");
            }
            assert!(a.ge(a) && a.max(b).ge(a.min(b)));
        }
    }

    #[test]
    fn exact_cases() {
        assert_eq!(Num::int(6).mul(Num::int(7)), Num::int(42));
        assert_eq!(Num::int(42).div(Num::int(6)), Num::int(7));
        assert_eq!(Num::int(40).add(Num::int(2)), Num::int(42));
        assert_eq!(Num::int(44).sub(Num::int(2)), Num::int(42));
        assert_eq!(Num::int(2).sub(Num::int(44)), Num::ZERO);
        assert_eq!(Num::int(1 << 40).sqrt(), Num::int(1 << 20));
        assert_eq!(Num::int(9).sqrt().to_f64(), 3.0);
        assert_eq!(Num::ONE.div(Num::ZERO), Num::HUGE);
        assert_eq!(Num::from_f64(0.375), Num::int(3).scale(-3));
        assert_eq!(Num::from_f64(-1.0), Num::ZERO);
        assert_eq!(Num::from_f64(f64::NAN), Num::ZERO);
        // Subnormals convert exactly both ways, and round to nearest, ties to even.
        for x in [
            f64::MIN_POSITIVE / 4.0,
            5e-324,
            1e-310,
            f64::from_bits(0x01ca_c084_12f2),
        ] {
            assert_eq!(Num::from_f64(x).to_f64(), x);
        }
        let tiny = Num::from_f64(5e-324); // 2^−1074
        assert_eq!(tiny.scale(-1).to_f64(), 0.0); // a tie, to even
        assert_eq!(tiny.mul(Num::int(3)).scale(-1).to_f64(), 1e-323); // 1.5 units: to 2
        assert_eq!(tiny.scale(-2).to_f64(), 0.0);
        assert_eq!(Num::from_f64(f64::MIN_POSITIVE).to_f64(), f64::MIN_POSITIVE);
        let below = Num::from_f64(f64::MIN_POSITIVE).sub(tiny.scale(-1));
        assert_eq!(below.to_f64(), f64::MIN_POSITIVE); // 2^−1022 − half a unit: a tie, to even
        assert_eq!(Num::HUGE.to_f64(), f64::INFINITY);
        for x in [1.0, 0.1, 1e300, 123_456.789, CAP] {
            assert_eq!(Num::from_f64(x).to_f64(), x);
        }
        // Ties round to even: 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
        assert_eq!(Num::int((1 << 53) + 1).to_f64(), 9_007_199_254_740_992.0);
        assert_eq!(Num::int((1 << 53) + 3).to_f64(), 9_007_199_254_740_996.0);
        assert_eq!(Num::int(u64::MAX).to_f64(), CAP);
    }
}
