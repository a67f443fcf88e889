//! Integer helpers for exactly rounded binary floating-point arithmetic, shared by the estimators
//! of the HyperLogLog family (`hll::num`), the quantile sketch's rank and `float`: a 64×64-bit
//! product from 32-bit multiplies, rounding to the 53 bits of an `f64` mantissa, and whether the
//! target has double-precision hardware.

/// Whether this target has IEEE double-precision hardware, where the martingale update is a plain
/// `f64` expression. Elsewhere [`martingale_step`](crate::hll::num::martingale_step) uses integer code with the same results.
pub(crate) const NATIVE_F64: bool = cfg!(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "wasm32",
    all(target_arch = "riscv64", target_feature = "d"),
));

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

/// `m / 2^drop` (`drop ≥ 1`) rounded to the nearest integer, ties to even; `sticky` says that the
/// exact value is a little above `m` (bits already dropped before). The result may carry into one
/// more bit than `m >> drop` has.
pub(crate) const fn round_off(m: u64, drop: i32, sticky: bool) -> u64 {
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
