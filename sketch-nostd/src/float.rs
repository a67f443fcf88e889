//! `f64` arithmetic the sketches need beyond `core`: `const` [`ln`] and [`exp`] (re-exported by
//! `sizing`, accurate to a few ULP, because `f64::ln` is neither `const` nor in `core`), and
//! addition in integer instructions, rounded exactly as IEEE 754 rounds it.
//!
//! On a part without a double-precision FPU, `a + b` links the compiler's soft-float addition
//! (888 bytes on a Cortex-M0). The quantile sketch's running sum is its one `f64` addition, and the
//! wire format carries its bits, so it must be the IEEE 754 sum (to nearest, ties to even) on every
//! target: [`add`] is a plain `+` where the hardware has double precision and this integer routine
//! (a third of the size) elsewhere, with the same results.

use crate::num::NATIVE_F64;

/// Natural logarithm, usable in `const` contexts. `ln(0)` is −∞; negative inputs and NaN give NaN.
///
/// ```
/// use sketch_nostd::sizing::ln;
/// const L: f64 = ln(100.0);
/// assert!((L - 4.605170185988092).abs() < 1e-14);
/// ```
#[must_use]
pub const fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let mut x = x;
    let mut e: i64 = 0;
    // Bring subnormals into the normal range first.
    if x < f64::MIN_POSITIVE {
        x *= 18_014_398_509_481_984.0; // 2^54
        e -= 54;
    }
    let bits = x.to_bits();
    e += ((bits >> 52) & 0x7ff) as i64 - 1023;
    // Mantissa in [1, 2), then folded into [1/√2, √2) so the series below converges fast.
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | (1023 << 52));
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    // ln(m) = 2·atanh(s) = 2·(s + s³/3 + s⁵/5 + …) with s = (m − 1)/(m + 1), |s| ≤ 0.172.
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut term = s;
    let mut sum = s;
    let mut n = 3.0;
    while n < 40.0 {
        term *= s2;
        sum += term / n;
        n += 2.0;
    }
    2.0 * sum + e as f64 * core::f64::consts::LN_2
}

/// The exponential function, usable in `const` contexts.
///
/// ```
/// use sketch_nostd::sizing::exp;
/// const E: f64 = exp(1.0);
/// assert!((E - core::f64::consts::E).abs() < 1e-15);
/// ```
#[must_use]
pub const fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x > 709.8 {
        return f64::INFINITY;
    }
    if x < -745.2 {
        return 0.0;
    }
    // x = k·ln2 + r with |r| ≤ ln2/2, then e^x = 2^k · e^r.
    let kf = x / core::f64::consts::LN_2;
    let k = if kf < 0.0 {
        (kf - 0.5) as i64
    } else {
        (kf + 0.5) as i64
    };
    let r = x - k as f64 * core::f64::consts::LN_2;
    let mut term = 1.0;
    let mut sum = 1.0;
    let mut n = 1.0;
    while n < 28.0 {
        term *= r / n;
        sum += term;
        n += 1.0;
    }
    // Scale by 2^k in at most two steps so that subnormal results are reached too.
    let mut k = k;
    if k < -1022 {
        sum *= f64::from_bits(1u64 << 52); // 2^-1022
        k += 1022;
    }
    sum * f64::from_bits(((k + 1023) as u64) << 52)
}

const SIGN: u64 = 1 << 63;
const FRACTION: u64 = (1 << 52) - 1;
const INFINITY: u64 = 0x7ff << 52;

/// `a + b`, rounded to nearest (ties to even) as IEEE 754 `f64` addition is, on every target; a
/// NaN result is always [`f64::NAN`] (the hardware and the soft-float routines differ in which NaN
/// they return, and the bits travel on the wire).
#[inline]
pub(crate) fn add(a: f64, b: f64) -> f64 {
    if NATIVE_F64 {
        let sum = a + b;
        if sum.is_nan() {
            f64::NAN
        } else {
            sum
        }
    } else {
        add_integer(a, b)
    }
}

/// [`add`] in integer arithmetic: one path for every finite operand (zeros and subnormals too) and
/// 64-bit shifts by one bit or by constants only (no shift or count-leading-zeros routine on a
/// 32-bit part).
#[inline(never)]
fn add_integer(a: f64, b: f64) -> f64 {
    let (a, b) = (a.to_bits(), b.to_bits());
    // x the larger magnitude, y the other: the sign of x's operand is the result's (unless the
    // sum is exactly 0).
    let subtract = (a ^ b) & SIGN != 0;
    let (am, bm) = (a & !SIGN, b & !SIGN);
    let (x, y, sign) = if am >= bm {
        (am, bm, a & SIGN)
    } else {
        (bm, am, b & SIGN)
    };
    if x >= INFINITY {
        // A NaN is the larger magnitude if there is one; ∞ − ∞ is NaN too.
        return if x > INFINITY || (subtract && y == INFINITY) {
            f64::NAN
        } else {
            f64::from_bits(sign | x)
        };
    }
    // Mantissas with the leading bit at 62 (zero and subnormals: exponent 1, no leading bit), ten
    // bits below the 53 kept for rounding.
    let unpack = |v: u64| {
        let e = (v >> 52) as i32;
        let m = (v & FRACTION) << 10 | u64::from(e != 0) << 62;
        (e.max(1), m)
    };
    let ((mut e, mx), (ey, mut my)) = (unpack(x), unpack(y));
    // y aligned to x's exponent, one bit at a time: the bits shifted out leave a sticky 1 (they are
    // below half a unit of the result, as the result is at least half of x when the two are far
    // apart). Once y is 1 (or 0) it stays so.
    let mut d = e - ey;
    while d > 0 && my > 1 {
        my = my >> 1 | (my & 1);
        d -= 1;
    }
    let mut m = if subtract { mx - my } else { mx + my };
    if m == 0 {
        // ±0 + ±0 is −0 only if both are; x − x is +0.
        return f64::from_bits(if subtract { 0 } else { sign });
    }
    if m >> 63 != 0 {
        m = m >> 1 | (m & 1);
        e += 1;
    }
    // Leading bit back to 62, but no lower than the subnormal exponent (1); only a subtraction
    // moves it more than one bit.
    while m >> 62 == 0 && e > 1 {
        m <<= 1;
        e -= 1;
    }
    // Round off the ten low bits, ties to even (adding just under half a unit, plus the kept
    // lowest bit). A carry into bit 53 (or, for a subnormal, into bit 52) lands in the exponent
    // field by itself.
    let mantissa = (m + 0x1ff + (m >> 10 & 1)) >> 10;
    let bits = ((e - 1) as u64 * (1 << 52)).wrapping_add(mantissa);
    f64::from_bits(sign | bits.min(INFINITY))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sketch_rng::SplitMix64 as Rng;

    fn check(a: f64, b: f64) {
        let want = a + b;
        let got = add_integer(a, b);
        let want = if want.is_nan() { f64::NAN } else { want };
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{a:e} + {b:e}: {got:e} vs {want:e}"
        );
        assert_eq!(add(a, b).to_bits(), want.to_bits(), "{a:e} + {b:e}");
    }

    #[test]
    fn adds_as_ieee_754() {
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            f64::MAX,
            -f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0 + f64::EPSILON,
            9_007_199_254_740_992.0,
            9_007_199_254_740_993.0,
            f64::from_bits(FRACTION),
            -f64::from_bits(FRACTION),
        ];
        for &a in &special {
            for &b in &special {
                check(a, b);
            }
        }
        let mut r = Rng(29);
        for i in 0..2_000_000u32 {
            // Exponents near each other (cancellation, carries, ties) most of the time, anywhere
            // otherwise; short mantissas (ties) and integers common.
            let a = r.next_u64();
            let b = match i % 4 {
                0 => r.next_u64(),
                1 => (a & 0xfff0_0000_0000_0000) ^ (r.next_u64() >> 12) ^ (r.next_u64() & SIGN),
                2 => {
                    let shift = (r.next_u64() % 64) << 52;
                    (a & !SIGN).wrapping_sub(shift.min(a & !SIGN)) ^ (r.next_u64() & SIGN)
                }
                _ => ((r.next_u64() % 4_000_000) as f64).to_bits(),
            };
            let a = if i % 5 == 0 {
                a & !((1 << (r.next_u64() % 52)) - 1)
            } else {
                a
            };
            check(f64::from_bits(a), f64::from_bits(b));
            check(f64::from_bits(b), f64::from_bits(a));
        }
        // Sums of integers, as the sketches keep them.
        let mut sum = 0.0;
        let mut native = 0.0;
        for _ in 0..100_000 {
            let v = (r.next_u64() >> (r.next_u64() % 64)) as f64;
            sum = add_integer(sum, v);
            native += v;
            assert_eq!(sum.to_bits(), native.to_bits());
        }
    }
}
