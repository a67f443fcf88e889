//! Arithmetic for the estimators, in integer instructions only.
//!
//! The gain is code size. On a part without a double-precision FPU (Cortex-M0/M3/M4F, RISC-V
//! `imac`), `f64` arithmetic links the compiler's soft-float routines and `libm` (with them, the
//! firmware test's HyperLogLog family was 14.9 KB of Cortex-M0 code; without, 11.5 KB). The
//! estimators compute with [`Num`] instead, a non-negative binary floating-point number with a
//! 56-bit mantissa (3 bits more than `f64`) built from integer operations; `f64` appears only at the
//! public API, converted once (correctly rounded). Identical results on every target do not depend
//! on it: soft-float is correctly rounded IEEE 754 arithmetic too, and gives the bits a hardware FPU
//! gives.
//!
//! The one `f64` that is part of a sketch's state is the martingale estimate, which the wire format
//! carries. [`martingale_step`] updates it with exactly the rounding of IEEE 754 double arithmetic,
//! in integer code, for the same reason: no float routine in the image. Encoded sketches are the same
//! bytes on every target (and the same as those of earlier versions).

use crate::num::{mul_wide, round53, NATIVE_F64};

/// A non-negative number packed in one `u64`: a biased exponent `E` in the top 8 bits and a 56-bit
/// mantissa `M` (its top bit set) below, the value `M·2^(E − BIAS)`; 0 is all zero bits. Operations
/// truncate (round toward zero) to 56 bits: a relative error below 2^−55 each, still four times
/// finer than an `f64`'s rounding. Packed, a number travels in two registers on a 32-bit MCU: every
/// call of an operation passes and returns its operands in registers (with a 64-bit mantissa and
/// a separate exponent, each call moved two 16-byte operands and a result through memory, and the
/// estimators make some hundred calls). Values compare as their bits do.
///
/// The range, 2^−124 to 2^131, is far beyond anything the estimators compute (their results are
/// clamped at 2^64, and their series stop long before their terms reach 2^−124): a smaller result
/// flushes to 0, a larger one saturates at [`HUGE`](Self::HUGE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Num(u64);

/// The mantissa bits of a [`Num`].
const MANTISSA: u64 = (1 << 56) - 1;

/// A [`Num`]'s exponent bias: `E = 180` is the exponent of `2^55` to `2^56`.
const BIAS: i32 = 180;

/// `m·2^e` with `m` normalized (top bit set) or 0: a [`Num`] unpacked, with 8 more bits of room.
type Wide = (u64, i32);

impl Num {
    pub(crate) const ZERO: Self = Self(0);
    pub(crate) const ONE: Self = Self::int(1);
    /// The result of a division by zero: larger than any value the estimators report (infinite as
    /// an `f64`).
    pub(crate) const HUGE: Self = Self(u64::MAX);

    /// `m·2^e` for any `m`, truncated to 56 bits.
    #[inline(never)]
    pub(crate) const fn new(m: u64, e: i32) -> Self {
        if m == 0 {
            return Self::ZERO;
        }
        // Normalized by shifts of 32, 16 and 8 bits (constant shifts, written out: a loop over
        // the shift amount calls the 64-bit shift routines), then bit by bit (at most 7 steps;
        // the results of `mul`, `div` and `add` need at most one): no count-leading-zeros
        // routine, which a Cortex-M0 does not have in hardware (`__clzsi2`, 108 B).
        let (mut m, mut exponent) = (m, e + 8 + BIAS);
        if m >> 32 == 0 {
            (m, exponent) = (m << 32, exponent - 32);
        }
        if m >> 48 == 0 {
            (m, exponent) = (m << 16, exponent - 16);
        }
        if m >> 56 == 0 {
            (m, exponent) = (m << 8, exponent - 8);
        }
        while m >> 63 == 0 {
            (m, exponent) = (m << 1, exponent - 1);
        }
        if exponent < 1 {
            Self::ZERO
        } else if exponent > 255 {
            Self::HUGE
        } else {
            Self((exponent as u64) << 56 | m >> 8)
        }
    }

    /// The mantissa moved to the top of a `u64`, and its exponent.
    const fn wide(self) -> Wide {
        ((self.0 & MANTISSA) << 8, (self.0 >> 56) as i32 - BIAS - 8)
    }

    /// The integer `x` (exactly below 2^56).
    pub(crate) const fn int(x: u64) -> Self {
        Self::new(x, 0)
    }

    /// `self·2^k`, exactly (within the range): `k` added to the exponent.
    #[inline(never)]
    pub(crate) const fn scale(self, k: i32) -> Self {
        let exponent = (self.0 >> 56) as i32 + k;
        if self.0 == 0 || exponent < 1 {
            Self::ZERO
        } else if exponent > 255 {
            Self::HUGE
        } else {
            Self(self.0 & MANTISSA | (exponent as u64) << 56)
        }
    }

    /// A finite non-negative `f64`, exactly (0 for anything else: NaN, infinities, negative and
    /// subnormal values).
    #[inline(never)]
    pub(crate) const fn from_f64(x: f64) -> Self {
        let bits = x.to_bits();
        let exp = (bits >> 52) as i32; // with the sign bit: above 0x7fe if negative
        if exp == 0 || exp >= 0x7ff {
            Self::ZERO
        } else {
            Self::new(bits & ((1 << 52) - 1) | 1 << 52, exp - 1075)
        }
    }

    /// The nearest `f64` (ties to even); infinity for [`HUGE`](Self::HUGE).
    pub(crate) fn to_f64(self) -> f64 {
        if self.0 == 0 {
            return 0.0;
        }
        if self == Self::HUGE {
            return f64::INFINITY;
        }
        // Rounded to 53 bits (a `Num` still: no value here is outside the normal f64 range), then
        // M·2^(E − BIAS) with M in [2^55, 2^56) is (M >> 3)·2^(E − BIAS + 3), 53 bits.
        let (m, e) = self.wide();
        let bits = round53_num(m, e, false).0;
        let exponent = (bits >> 56) as i32 - BIAS + 3 + 52 + 1023;
        f64::from_bits((exponent as u64) << 52 | (bits & MANTISSA) >> 3 & ((1 << 52) - 1))
    }

    /// `self ≥ other`.
    pub(crate) const fn ge(self, other: Self) -> bool {
        self.0 >= other.0
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
    #[inline(never)]
    pub(crate) const fn add(self, other: Self) -> Self {
        add(self, other, false)
    }

    /// `self − other`, or 0 if `other ≥ self`.
    #[inline(never)]
    pub(crate) fn sub(self, other: Self) -> Self {
        if other.ge(self) {
            return Self::ZERO;
        }
        if other.0 == 0 {
            return self;
        }
        let ((a, e), (b, f)) = (self.wide(), other.wide());
        Self::new(a - shr(b, e - f).0, e)
    }

    /// `self·other`.
    #[inline(never)]
    pub(crate) const fn mul(self, other: Self) -> Self {
        if self.0 == 0 || other.0 == 0 {
            return Self::ZERO;
        }
        let ((a, e), (b, f)) = (self.wide(), other.wide());
        Self::new(mul_wide(a, b).0, e + f + 64)
    }

    /// `self / other` ([`HUGE`](Self::HUGE) if `other` is 0).
    #[inline(never)]
    pub(crate) const fn div(self, other: Self) -> Self {
        if self.0 == 0 {
            return Self::ZERO;
        }
        if other.0 == 0 {
            return Self::HUGE;
        }
        let ((a, e), (b, f)) = (self.wide(), other.wide());
        Self::new(div_bits(a, b).0, e - f - 63)
    }

    /// `√self`: Newton's iteration from above, from within a factor √2.
    #[inline(never)]
    pub(crate) const fn sqrt(self) -> Self {
        if self.0 == 0 {
            return Self::ZERO;
        }
        let (m, e) = self.wide();
        if m == 1 << 63 && e & 1 == 1 {
            return Self::ONE.scale((e + 63) / 2); // an even power of two: exact
        }
        // self < 2^(e + 64), so 2^⌈(e + 64)/2⌉ ≥ √self.
        let mut y = Self::ONE.scale((e + 65) >> 1);
        // The relative error squares (and halves) each step: 0.42, 0.06, 2e−3, 1e−6, 6e−13, 2e−25.
        let mut step = 0;
        while step < 6 {
            y = y.add(self.div(y)).scale(-1);
            step += 1;
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

/// The top 57 bits of `q = ⌊n·2^63 / d⌋` (bits 63 to 7, the lower 7 bits zero) and whether anything
/// below them is not 0 (the quotient's bits 6 to 0 or the remainder), for `n < 2d` and `d` with its
/// top bit set (so the quotient fits in 64 bits). Every caller needs no more: `q ≥ 2^62`, and a
/// [`Num`] truncates it to 56 bits from bit 62 or 63 down, the martingale update rounds it to 53
/// bits with a sticky bit.
///
/// Two bodies with the same results, chosen by whether the target divides in hardware (the
/// `sketch_soft_divide` cfg, set by the crate's build script for ARMv4–v6 cores such as the
/// Cortex-M0, and RISC-V without the M extension): [`div_bits_restoring`] where a division is a
/// library routine (the smallest code), [`div_bits_digits`] where it is an instruction (about half
/// the instructions of a martingale update on a Cortex-M3 or an RV32IMAC).
const fn div_bits(n: u64, d: u64) -> (u64, bool) {
    #[cfg(sketch_soft_divide)]
    {
        div_bits_restoring(n, d)
    }
    #[cfg(not(sketch_soft_divide))]
    {
        div_bits_digits(n, d)
    }
}

/// [`div_bits`] by restoring long division, one quotient bit per step, 57 steps of a
/// compare, a subtraction or a shift in 64-bit registers: no division instruction or routine.
/// (Long division in base 2^16 with 32-by-16-bit divisions, [`div_bits_digits`], takes 4 steps, but
/// 200 more bytes of Cortex-M0 code, where each 32-bit division is a call of `__aeabi_uidiv`. Before,
/// 64 steps that kept a carry out of the doubled remainder and a counter took some 2,100 Cortex-M0
/// instructions a division, spilling to the stack; these, about 1,150.)
#[cfg_attr(not(any(sketch_soft_divide, test)), allow(dead_code))]
#[inline(never)]
const fn div_bits_restoring(n: u64, d: u64) -> (u64, bool) {
    // The first quotient bit, under a marker bit that ends the loop when it reaches bit 57.
    let (mut q, mut r) = if n >= d { (3u64, n - d) } else { (2, n) };
    // The remainder r stays below d after each step: the next step compares 2r (which may not
    // fit in 64 bits) with d as r with d − r, and leaves 2r − d = r − (d − r), or 2r.
    while q >> 57 == 0 {
        let rest = d - r;
        q <<= 1;
        if r >= rest {
            r -= rest;
            q |= 1;
        } else {
            r <<= 1;
        }
    }
    ((q ^ 1 << 57) << 7, r != 0)
}

/// [`div_bits`] by long division in base 2^16 (Knuth, TAOCP vol. 2, 4.3.1, Algorithm D): four
/// quotient digits, each estimated by a 32-by-16-bit division (one instruction on a Cortex-M3 or an
/// RV32IMAC) and corrected at most twice, never a 64-bit division routine.
#[cfg_attr(all(sketch_soft_divide, not(test)), allow(dead_code))]
#[inline(never)]
const fn div_bits_digits(n: u64, d: u64) -> (u64, bool) {
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
    (q & !0x7f, q & 0x7f != 0 || r != 0)
}

/// `x·y` for `y < 2^16`, from two 16×16-bit products (32-bit multiplies: ARMv6-M and v7-M have no
/// widening one that the compiler uses for a `u64` product).
#[cfg_attr(all(sketch_soft_divide, not(test)), allow(dead_code))]
const fn mul_32_16(x: u32, y: u32) -> u64 {
    ((((x >> 16) * y) as u64) << 16) + ((x & 0xffff) * y) as u64
}

/// `m·2^e` (`m` normalized), plus less than one unit of `m` if `sticky`, rounded to 53 significant
/// bits as IEEE 754 rounds (to nearest, ties to even), as a `Num` (exact: 53 bits fit in 56). One
/// out-of-line body for the martingale update, which rounds three times; its result travels in
/// registers.
#[inline(never)]
const fn round53_num(m: u64, e: i32, sticky: bool) -> Num {
    let (m, e) = round53(m, e, sticky);
    Num::new(m, e)
}

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
    // S = lo·2^−31 + hi·2^−63 (both below 2^52: exact as `Num`s), as the f64 addition rounds it.
    let sum = add(Num::new(lo, -31), Num::new(hi, -63), true);
    if sum == Num::ZERO {
        return hip;
    }
    // sum = sm·2^se with sm normalized to 64 bits.
    let (sm, se) = sum.wide();
    // 2^p / sum = q·2^(p − se − 126) with q = ⌊2^126 / sm⌋ in (2^62, 2^63].
    let (q, inexact) = div_bits(1 << 63, sm);
    let (q, qe) = if q >> 63 == 0 {
        (q << 1, p as i32 - se - 127)
    } else {
        (q, p as i32 - se - 126)
    };
    let increment = round53_num(q, qe, inexact);
    // hip + increment, both f64 values (53 significant bits, exact as `Num`s; the increment is
    // between 1 and 2^81): their 64-bit aligned sum with the dropped bits as sticky rounds exactly.
    // hip is +0 or positive up to 2^64; one below 2^−124, which `Num` holds as 0, changes nothing
    // (it is far below half a unit of the sum, which is at least the increment).
    // Already 53 bits: the conversion to f64 is exact.
    let next = add(Num::from_f64(hip), increment, true).to_f64();
    if next.to_bits() > CAP.to_bits() {
        CAP
    } else {
        next
    }
}

/// `a + b`, truncated to 56 bits, or rounded to 53 bits as IEEE 754 addition rounds if `nearest`
/// (from the exact sum: the operands aligned in 64 bits, and whether set bits were dropped). One
/// body for [`Num::add`] and the martingale update.
#[inline(never)]
const fn add(a: Num, b: Num, nearest: bool) -> Num {
    // a the larger (`Num`s compare as their bits).
    let (a, b) = if a.0 >= b.0 { (a, b) } else { (b, a) };
    if b.0 == 0 {
        return a;
    }
    let ((am, ae), (bm, be)) = (a.wide(), b.wide());
    let (shifted, lost) = shr(bm, ae - be);
    let (sum, carry) = am.overflowing_add(shifted);
    let (m, e, sticky) = if carry {
        // The 65-bit sum loses its lowest bit to the shift.
        (sum >> 1 | 1 << 63, ae + 1, lost || sum & 1 != 0)
    } else {
        (sum, ae, lost)
    };
    if nearest {
        round53_num(m, e, sticky)
    } else {
        Num::new(m, e)
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
                (5e-324, m << 30, 3),           // a subnormal hip: the increment alone
                (1e-300, 1, 1 << 40),           // hip below the range of `Num`
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
        // Both bodies, whichever `div_bits` uses on this target.
        for div_bits in [div_bits_restoring, div_bits_digits] {
            long_division_is_exact_with(div_bits);
        }
    }

    fn long_division_is_exact_with(div_bits: fn(u64, u64) -> (u64, bool)) {
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
            let exact = wide / d as u128;
            assert_eq!(q as u128, exact & !0x7f, "{n} / {d}");
            let below = exact & 0x7f != 0 || !wide.is_multiple_of(d as u128);
            assert_eq!(inexact, below, "{n} % {d}");
        }
        assert_eq!(div_bits(1 << 63, 1 << 63), (1 << 63, false));
        assert_eq!(div_bits(u64::MAX, u64::MAX), (1 << 63, false));
        assert_eq!(div_bits(u64::MAX, 1 << 63), (!0x7f, true));
        assert_eq!(div_bits(0xff << 56, 1 << 63), (0xff << 56, false));
        // A remainder of exactly 2^63 (its top bit set), and of 2^63 − 1.
        assert_eq!(div_bits(1, u64::MAX), (0, true));
        assert_eq!(
            div_bits(u64::MAX - 1, u64::MAX),
            (((1 << 63) - 1) & !0x7f, true)
        );
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
            // Operands in [2^−40, 2^64): results within the range of `Num` (2^−124 to 2^131).
            let (s, t) = (rng.next_u64() % 40, rng.next_u64() % 40);
            let a = Num::int(x).scale(s as i32 - 40);
            let b = Num::int(y).scale(t as i32 - 40);
            let (fa, fb) = (a.to_f64(), b.to_f64());
            // Each operand is within half an f64 ulp (2^−53) of its Num; each Num operation is
            // within 2^−55: a relative error below 3·2^−53 after the result's own rounding.
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
        // The range is 2^−124 to 2^131: below, a value (a subnormal f64 too) flushes to 0; above,
        // it saturates at HUGE, which converts to infinity.
        let smallest = Num::ONE.scale(-124);
        assert_eq!(smallest.to_f64(), 2f64.powi(-124));
        assert_eq!(smallest.scale(-1), Num::ZERO);
        assert_eq!(smallest.mul(Num::ONE.scale(-1)), Num::ZERO);
        assert_eq!(Num::from_f64(5e-324), Num::ZERO);
        assert_eq!(Num::from_f64(1e-300), Num::ZERO);
        assert_eq!(Num::ONE.scale(130).to_f64(), 2f64.powi(130));
        assert_eq!(Num::ONE.scale(131), Num::HUGE); // the largest value, (2^56 − 1)·2^75, is HUGE
        assert_eq!(Num::ONE.scale(130).mul(Num::int(2)), Num::HUGE);
        assert_eq!(Num::from_f64(1e300), Num::HUGE);
        assert_eq!(Num::HUGE.to_f64(), f64::INFINITY);
        for x in [1.0, 0.1, 1e30, 1e-30, 123_456.789, CAP] {
            assert_eq!(Num::from_f64(x).to_f64(), x);
        }
        // Ties round to even: 2^53 + 1 is halfway between 2^53 and 2^53 + 2.
        assert_eq!(Num::int((1 << 53) + 1).to_f64(), 9_007_199_254_740_992.0);
        assert_eq!(Num::int((1 << 53) + 3).to_f64(), 9_007_199_254_740_996.0);
        assert_eq!(Num::int(u64::MAX).to_f64(), CAP);
    }
}
