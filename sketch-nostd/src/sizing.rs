//! Sizing as `const fn`: from the error you accept to the memory a sketch needs, at compile time.
//!
//! These functions are usable in const generic arguments, so a filter's size is written as the error
//! it was designed for:
//!
//! ```
//! use sketch_nostd::{sizing::{k_for, words_for}, Bloom};
//!
//! // 10,000 keys at a 1% false-positive rate: 95,851 bits, rounded up to 1,498 words, and 7 hashes.
//! type Filter = Bloom<{ words_for(10_000, 0.01) }, { k_for(10_000, 0.01) }>;
//! assert_eq!(Filter::BITS, 1_498 * 64);
//! assert_eq!(Filter::HASHES, 7);
//! assert_eq!(core::mem::size_of::<Filter>(), 1_498 * 8 + 8); // the bits plus the seed
//! ```
//!
//! Out-of-range arguments saturate instead of panicking: a false-positive rate `p` at or above 1 asks
//! for no bits, `p` at or below 0 (or NaN) is treated as the smallest positive `f64`. The Bloom type
//! then refuses zero words at compile time.
//!
//! Count-min sketches are sized the same way, by the error `ε·N` and its failure probability `δ`:
//!
//! ```
//! use sketch_nostd::{sizing::{cm_depth, cm_width}, CountMin};
//!
//! // ε = 0.001, δ = 0.01: 2,719 counters in each of 5 rows.
//! type Plays = CountMin<{ cm_width(0.001) }, { cm_depth(0.01) }, u32>;
//! assert_eq!((Plays::WIDTH, Plays::DEPTH), (2_719, 5));
//! assert!(Plays::EPSILON <= 0.001 && Plays::DELTA <= 0.01);
//! ```
//!
//! Counting Bloom filters take [`counting_words_for`] (four bits per Bloom bit) and [`k_for`]; cuckoo
//! filters take [`cuckoo_buckets_for`] at a load of at most [`CUCKOO_MAX_LOAD`], and
//! [`cuckoo_fp_rate`] gives their false-positive rate; cache-line-blocked filters take
//! [`blocked_blocks_for`].
//!
//! The float helpers here ([`ln`], [`exp`]) are `const` re-implementations accurate to a few ULP,
//! because `f64::ln` is neither `const` nor available in `core`.

/// The largest number of hash functions a [`Bloom`](crate::Bloom) accepts; [`optimal_k`] and
/// [`k_for`] never return more.
pub const MAX_K: u32 = 32;

const LN_2: f64 = core::f64::consts::LN_2;
const E: f64 = core::f64::consts::E;

pub use crate::float::{exp, ln};

/// Smallest integer ≥ `x`, saturating to `0..=u64::MAX` (NaN gives 0).
const fn ceil_u64(x: f64) -> u64 {
    let t = x as u64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

/// Replaces an out-of-range false-positive rate by the nearest meaningful one (see the module docs).
const fn clamp_p(p: f64) -> f64 {
    if p > 0.0 {
        p
    } else {
        f64::MIN_POSITIVE
    }
}

/// A count of words, buckets or counters as a type parameter: at least 1, saturating at `usize::MAX`
/// (which the sketch type then rejects at compile time).
const fn at_least_one(n: u64) -> usize {
    if n == 0 {
        1
    } else if n > usize::MAX as u64 {
        usize::MAX
    } else {
        n as usize
    }
}

/// Bits a Bloom filter needs for `n` keys at false-positive rate `p`: ⌈−n·ln p / (ln 2)²⌉.
///
/// That is about 1.44·log2(1/p) bits per key: 9.59 at 1%, 14.38 at 0.1%.
///
/// ```
/// use sketch_nostd::sizing::bits_for;
/// assert_eq!(bits_for(10_000, 0.01), 95_851);
/// assert_eq!(bits_for(1_000, 0.001), 14_378);
/// assert_eq!(bits_for(1_000, 1.0), 0);
/// ```
#[must_use]
pub const fn bits_for(n: u64, p: f64) -> u64 {
    let p = clamp_p(p);
    if p >= 1.0 {
        return 0;
    }
    ceil_u64(-(n as f64) * ln(p) / (LN_2 * LN_2))
}

/// Words of 64 bits (the `WORDS` parameter of [`Bloom`](crate::Bloom)) for `n` keys at rate `p`:
/// [`bits_for`] rounded up to whole words, and at least one word.
///
/// ```
/// use sketch_nostd::sizing::words_for;
/// assert_eq!(words_for(10_000, 0.01), 1_498);
/// assert_eq!(words_for(0, 0.01), 1);
/// ```
#[must_use]
pub const fn words_for(n: u64, p: f64) -> usize {
    at_least_one(bits_for(n, p).div_ceil(64))
}

/// The number of hashes that minimises the false-positive rate of `m` bits holding `n` keys:
/// (m/n)·ln 2, rounded to the nearest integer and kept within `1..=`[`MAX_K`].
///
/// ```
/// use sketch_nostd::sizing::optimal_k;
/// assert_eq!(optimal_k(100_000, 10_000), 7);
/// assert_eq!(optimal_k(10, 10_000), 1);
/// assert_eq!(optimal_k(1 << 30, 1), 32);
/// ```
#[must_use]
pub const fn optimal_k(m: u64, n: u64) -> u32 {
    if n == 0 {
        return MAX_K;
    }
    let k = (m as f64 / n as f64 * LN_2 + 0.5) as u64;
    if k < 1 {
        1
    } else if k > MAX_K as u64 {
        MAX_K
    } else {
        k as u32
    }
}

/// The number of hashes for a filter sized by [`bits_for`]`(n, p)`: about log2(1/p).
///
/// ```
/// use sketch_nostd::sizing::k_for;
/// assert_eq!(k_for(10_000, 0.01), 7);
/// assert_eq!(k_for(10_000, 0.001), 10);
/// ```
#[must_use]
pub const fn k_for(n: u64, p: f64) -> u32 {
    optimal_k(bits_for(n, p), n)
}

/// Expected false-positive rate of `m` bits, `k` hashes and `n` keys: (1 − e^(−kn/m))^k.
///
/// ```
/// use sketch_nostd::sizing::fp_rate;
/// let p = fp_rate(100_000, 10_000, 7);
/// assert!((p - 0.00819).abs() < 0.00001);
/// assert_eq!(fp_rate(0, 10, 3), 1.0);
/// ```
#[must_use]
pub const fn fp_rate(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 {
        return 1.0;
    }
    let fill = 1.0 - exp(-(k as f64) * n as f64 / m as f64);
    let mut p = 1.0;
    let mut i = 0;
    while i < k {
        p *= fill;
        i += 1;
    }
    p
}

/// Words of 64 bits (the `WORDS` parameter of [`CountingBloom`](crate::CountingBloom)) for `n` keys
/// at false-positive rate `p`: one 4-bit counter per bit of [`bits_for`]`(n, p)`, 16 counters to a
/// word, rounded up, and at least one word. Use [`k_for`]`(n, p)` for the number of hashes.
///
/// Four times the memory of the equivalent [`Bloom`](crate::Bloom): 4.8 bytes per key at 1%, 7.2 at
/// 0.1%.
///
/// ```
/// use sketch_nostd::sizing::{counting_words_for, words_for};
/// assert_eq!(counting_words_for(10_000, 0.01), 5_991); // 95,851 counters
/// assert_eq!(counting_words_for(10_000, 0.01), 4 * words_for(10_000, 0.01) - 1);
/// assert_eq!(counting_words_for(0, 0.01), 1);
/// ```
#[must_use]
pub const fn counting_words_for(n: u64, p: f64) -> usize {
    at_least_one(bits_for(n, p).div_ceil(16))
}

/// The load a [`CuckooFilter`](crate::CuckooFilter) with four-slot buckets reliably reaches before
/// inserts start to fail (Fan et al. report 95%; the tests measure the first failure above it).
pub const CUCKOO_MAX_LOAD: f64 = 0.95;

/// Buckets (the `BUCKETS` parameter of [`CuckooFilter`](crate::CuckooFilter)) for `n` keys at `load`:
/// ⌈n / (4·load)⌉, at least 1. `load` is clamped to `(0, 1]`; use [`CUCKOO_MAX_LOAD`] for the
/// smallest filter that still takes all `n` inserts, less to leave room.
///
/// Bits per key: `16 / load` with 16-bit fingerprints (16.8 at 0.95), `8 / load` with 8-bit ones.
///
/// ```
/// use sketch_nostd::sizing::{cuckoo_buckets_for, CUCKOO_MAX_LOAD};
/// assert_eq!(cuckoo_buckets_for(1_000, CUCKOO_MAX_LOAD), 264);
/// assert_eq!(cuckoo_buckets_for(1_000, 0.5), 500);
/// assert_eq!(cuckoo_buckets_for(0, 0.95), 1);
/// assert_eq!(cuckoo_buckets_for(10, 7.0), 3); // load clamped to 1
/// ```
#[must_use]
pub const fn cuckoo_buckets_for(n: u64, load: f64) -> usize {
    let load = if load > 1.0 { 1.0 } else { clamp_p(load) };
    at_least_one(ceil_u64(n as f64 / (4.0 * load)))
}

/// False-positive rate of a cuckoo filter with `fingerprint_bits`-bit fingerprints, four-slot buckets
/// and `load` (fraction of slots used): 1 − (1 − 1/(2^f − 1))^(8·load), about 8·load/2^f.
///
/// ```
/// use sketch_nostd::sizing::cuckoo_fp_rate;
/// assert!((cuckoo_fp_rate(8, 1.0) - 0.0309).abs() < 0.0001);   // 8/255, less overlaps
/// assert!((cuckoo_fp_rate(16, 0.95) - 0.000116).abs() < 0.000001);
/// assert_eq!(cuckoo_fp_rate(16, 0.0), 0.0);
/// ```
#[must_use]
pub const fn cuckoo_fp_rate(fingerprint_bits: u32, load: f64) -> f64 {
    let load = if load > 1.0 {
        1.0
    } else if load > 0.0 {
        load
    } else {
        return 0.0;
    };
    let bits = if fingerprint_bits > 63 {
        63
    } else {
        fingerprint_bits
    };
    let values = ((1u64 << bits) - 1) as f64;
    if values < 1.0 {
        return 1.0;
    }
    1.0 - exp(8.0 * load * ln(1.0 - 1.0 / values))
}

/// Counters per row of a [`CountMin`](crate::CountMin) whose overestimate is at most `ε·N` (with
/// probability `1 − δ`, `δ` chosen by [`cm_depth`]): w = ⌈e/ε⌉, and at least 1.
///
/// `ε` at or below 0 (or NaN) asks for an impossible width and returns `usize::MAX`, which the count-min
/// type then rejects at compile time.
///
/// ```
/// use sketch_nostd::sizing::cm_width;
/// assert_eq!(cm_width(0.001), 2_719);
/// assert_eq!(cm_width(0.01), 272);
/// assert_eq!(cm_width(5.0), 1);
/// assert_eq!(cm_width(0.0), usize::MAX);
/// ```
#[must_use]
pub const fn cm_width(epsilon: f64) -> usize {
    at_least_one(ceil_u64(E / clamp_p(epsilon)))
}

/// Rows of a [`CountMin`](crate::CountMin) whose `ε·N` bound fails with probability at most `δ`:
/// d = ⌈ln(1/δ)⌉, and at least 1. `δ` at or below 0 (or NaN) is treated as the smallest positive
/// `f64` (709 rows).
///
/// ```
/// use sketch_nostd::sizing::cm_depth;
/// assert_eq!(cm_depth(0.01), 5);
/// assert_eq!(cm_depth(0.001), 7);
/// assert_eq!(cm_depth(0.5), 1);
/// assert_eq!(cm_depth(1.0), 1);
/// ```
#[must_use]
pub const fn cm_depth(delta: f64) -> usize {
    at_least_one(ceil_u64(-ln(clamp_p(delta))))
}

/// The `ε` a count-min row of `width` counters achieves: e/w (infinite for 0).
///
/// ```
/// use sketch_nostd::sizing::{cm_epsilon, cm_width};
/// assert!(cm_epsilon(cm_width(0.001)) <= 0.001);
/// assert!((cm_epsilon(2_719) - 0.000_999_74).abs() < 1e-8);
/// ```
#[must_use]
pub const fn cm_epsilon(width: usize) -> f64 {
    E / width as f64
}

/// The failure probability `δ` of a count-min sketch with `depth` rows: e^(−d).
///
/// ```
/// use sketch_nostd::sizing::{cm_delta, cm_depth};
/// assert!(cm_delta(cm_depth(0.01)) <= 0.01);
/// assert!((cm_delta(5) - 0.006_737_9).abs() < 1e-7);
/// ```
#[must_use]
pub const fn cm_delta(depth: usize) -> f64 {
    exp(-(depth as f64))
}

/// Counters a [`SpaceSaving`](crate::SpaceSaving) summary needs so that every count it reports is at
/// most `ε·N` above the truth and every key more frequent than `ε·N` is listed: ⌈1/ε⌉, at least 1
/// (`usize::MAX` for `ε ≤ 0` or NaN).
///
/// ```
/// use sketch_nostd::sizing::ss_capacity;
/// assert_eq!(ss_capacity(0.01), 100);
/// assert_eq!(ss_capacity(0.003), 334);
/// assert_eq!(ss_capacity(2.0), 1);
/// ```
#[must_use]
pub const fn ss_capacity(epsilon: f64) -> usize {
    at_least_one(ceil_u64(1.0 / clamp_p(epsilon)))
}

/// Bytes of packed 6-bit registers of a [`HyperLogLog`](crate::HyperLogLog) with precision `p`:
/// `3·2^p/4`. Use it to spell the type for a computed precision.
///
/// ```
/// use sketch_nostd::{sizing::{hll_bytes, hll_precision_for}, HyperLogLog};
/// const P: u8 = hll_precision_for(0.01); // 1% relative standard error after merges
/// let h = HyperLogLog::<P, { hll_bytes(P) }>::new();
/// assert_eq!(P, 14);
/// assert_eq!(hll_bytes(14), 12_288);
/// # let _ = h;
/// ```
#[must_use]
pub const fn hll_bytes(p: u8) -> usize {
    3 << p >> 2
}

/// The smallest HyperLogLog precision in `4..=18` whose relative standard error after merges,
/// 1.04/√(2^p), is at most `rse` (18 if none is; 4 for `rse` ≥ 26% or NaN).
///
/// ```
/// use sketch_nostd::sizing::hll_precision_for;
/// assert_eq!(hll_precision_for(0.033), 10);
/// assert_eq!(hll_precision_for(0.02), 12);
/// assert_eq!(hll_precision_for(0.0), 18);
/// ```
#[must_use]
pub const fn hll_precision_for(rse: f64) -> u8 {
    // 1.04/√m ≤ rse  ⇔  rse²·m ≥ 1.04²
    if rse.is_nan() {
        return 4;
    }
    let mut p = 4;
    while p < 18 && rse * rse * ((1u32 << p) as f64) < 1.0816 {
        p += 1;
    }
    p
}

/// False-positive rate of a [`BlockedBloom`](crate::BlockedBloom) with `blocks` 512-bit blocks, `n`
/// keys and `k` bits per key: Σ_j Pois(j; λ) · (1 − (63/64)^j)^k with λ = n / blocks, the chance that a
/// block holding `j` keys has the probed bit set in each of `k` words, averaged over the Poisson number
/// of keys a block receives. Returns 1 when `blocks` is 0 and 0 when `n` or `k` is 0.
///
/// ```
/// use sketch_nostd::sizing::blocked_fp_rate;
/// let p = blocked_fp_rate(20_000, 1_000_000, 8); // 10.24 bits per key
/// assert!(p > 0.0093 && p < 0.0094, "{p}");
/// ```
#[must_use]
pub const fn blocked_fp_rate(blocks: u64, n: u64, k: u32) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    if n == 0 || k == 0 {
        return 0.0;
    }
    let lambda = n as f64 / blocks as f64;
    // Beyond ~700 keys per block every word is full: the rate is 1 to f64 precision (and e^−λ would
    // underflow).
    if lambda > 700.0 {
        return 1.0;
    }
    let mut term = exp(-lambda); // Pois(0; λ)
    let mut clear = 1.0; // (63/64)^j
    let mut sum = 0.0;
    let mut mass = 0.0;
    let mut j = 0u64;
    // Until the Poisson mass left is negligible (past the mode, terms shrink geometrically).
    while mass < 1.0 - 1e-15 && j < 4 * (lambda as u64) + 200 {
        let mut hit = 1.0;
        let mut i = 0;
        while i < k {
            hit *= 1.0 - clear;
            i += 1;
        }
        sum += term * hit;
        mass += term;
        j += 1;
        term *= lambda / j as f64;
        clear *= 63.0 / 64.0;
    }
    sum
}

/// Blocks a [`BlockedBloom`](crate::BlockedBloom) needs for `n` keys at false-positive rate `p` with
/// `k` bits per key: the fewest for which [`blocked_fp_rate`] is at most `p`, and at least 1. Saturates
/// at `n·64` blocks when `k` is too small for `p` (one bit per key cannot go below about 1/64 per
/// key per block).
///
/// ```
/// use sketch_nostd::sizing::{blocked_blocks_for, blocked_fp_rate, words_for};
/// let b = blocked_blocks_for(10_000, 0.01, 8);
/// assert!(blocked_fp_rate(b as u64, 10_000, 8) <= 0.01);
/// assert!(blocked_fp_rate(b as u64 - 1, 10_000, 8) > 0.01);
/// // 5% more bits than the classic filter for the same rate (10.1 bits per key instead of 9.6).
/// assert_eq!(b * 8, 1_584);
/// assert_eq!(words_for(10_000, 0.01), 1_498);
/// ```
#[must_use]
pub const fn blocked_blocks_for(n: u64, p: f64, k: u32) -> usize {
    let mut lo = 1u64;
    let mut hi = if n == 0 { 1 } else { n.saturating_mul(64) };
    if blocked_fp_rate(hi, n, k) > p {
        return hi as usize;
    }
    // blocked_fp_rate falls as blocks grow: the fewest blocks that meet p are in lo..=hi.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if blocked_fp_rate(mid, n, k) <= p {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo as usize
}

/// The relative error α of a [`QuantileSketch`](crate::QuantileSketch) with `sub` buckets per power of
/// two: the largest `(u − l)/(u + l)` over the buckets `[l, u)` of its table of bounds `2^(j/sub)`
/// (64-bit fractions), plus 2^-50 for the `f64` rounding of the reported value. About
/// `ln 2 / (2·sub)`; infinite for `sub = 0`.
///
/// ```
/// use sketch_nostd::sizing::quantile_alpha;
/// assert!((quantile_alpha(35) - 0.009_902).abs() < 1e-6);
/// assert!((quantile_alpha(1) - 1.0 / 3.0).abs() < 1e-12); // [1, 2): (2 − 1)/(2 + 1)
/// ```
#[must_use]
pub const fn quantile_alpha(sub: usize) -> f64 {
    crate::quantile::alpha_of(sub)
}

/// The fewest buckets per power of two (the `SUB` parameter of
/// [`QuantileSketch`](crate::QuantileSketch)) whose [`quantile_alpha`] is at most `alpha`; at most
/// [`MAX_SUB`](crate::quantile::MAX_SUB) (4,096, α ≈ 0.0085%), which is also the answer for a smaller
/// `alpha`, 0 or NaN. At least 1 (α = 1/3).
///
/// ```
/// use sketch_nostd::sizing::{quantile_alpha, quantile_sub_buckets};
/// assert_eq!(quantile_sub_buckets(0.01), 35);
/// assert_eq!(quantile_sub_buckets(0.02), 18);
/// assert!(quantile_alpha(35) <= 0.01 && quantile_alpha(34) > 0.01);
/// assert_eq!(quantile_sub_buckets(0.5), 1);
/// assert_eq!(quantile_sub_buckets(0.0), 4_096);
/// ```
#[must_use]
pub const fn quantile_sub_buckets(alpha: f64) -> usize {
    let max = crate::quantile::MAX_SUB;
    if alpha.is_nan() || alpha <= 0.0 {
        return max;
    }
    // Start just below ln 2 / ln((1 + α)/(1 − α)), the count of exact logarithmic buckets.
    let gamma = if alpha < 1.0 {
        ln((1.0 + alpha) / (1.0 - alpha))
    } else {
        f64::INFINITY
    };
    let estimate = LN_2 / gamma;
    let mut sub = if estimate > max as f64 {
        max
    } else if estimate > 2.0 {
        estimate as usize - 1
    } else {
        1
    };
    while sub < max && crate::quantile::alpha_of(sub) > alpha {
        sub += 1;
    }
    sub
}

/// Counters (the `BUCKETS` parameter of [`QuantileSketch`](crate::QuantileSketch)) that hold every
/// value in `[lo, hi]` (`0 < lo ≤ hi`) without collapsing, at relative error `alpha` (with
/// [`quantile_sub_buckets`]`(alpha)` per power of two): one bucket per key from `lo`'s to `hi`'s.
/// Negative values need their own range of counters: size for both ranges added up. `lo` at or below
/// 0 is taken as `f64::MIN_POSITIVE`; `hi < lo` gives 1.
///
/// ```
/// use sketch_nostd::sizing::quantile_buckets;
/// assert_eq!(quantile_buckets(0.01, 1.0, 1e9), 1_047); // 4,188 bytes of u32 counters
/// assert_eq!(quantile_buckets(0.01, 1.0, 1.5), 21);
/// assert_eq!(quantile_buckets(0.02, 1e-3, 60.0), 287);
/// assert_eq!(quantile_buckets(0.01, 5.0, 1.0), 1);
/// ```
#[must_use]
pub const fn quantile_buckets(alpha: f64, lo: f64, hi: f64) -> usize {
    let sub = quantile_sub_buckets(alpha);
    let lo = if lo > f64::MIN_POSITIVE {
        lo
    } else {
        f64::MIN_POSITIVE
    };
    if hi.is_nan() || hi < lo {
        return 1;
    }
    let hi = if hi > f64::MAX { f64::MAX } else { hi };
    let n = crate::quantile::key_of(hi, sub) - crate::quantile::key_of(lo, sub) + 1;
    at_least_one(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_and_exp_match_libm() {
        let mut x = 1e-300_f64;
        while x < 1e300 {
            let rel = (ln(x) - libm::log(x)).abs() / libm::log(x).abs().max(1.0);
            assert!(rel < 1e-14, "ln({x}) = {} vs {}", ln(x), libm::log(x));
            x *= 1.37;
        }
        let mut x = -740.0_f64;
        while x < 709.0 {
            let want = libm::exp(x);
            assert!(
                (exp(x) - want).abs() <= want * 1e-13,
                "exp({x}) = {} vs {want}",
                exp(x)
            );
            x += 0.731;
        }
        assert_eq!(ln(1.0), 0.0);
        assert!(ln(-1.0).is_nan() && ln(f64::NAN).is_nan());
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!((ln(5e-324) - libm::log(5e-324)).abs() < 1e-12);
        assert_eq!(exp(-1000.0), 0.0);
        assert_eq!(exp(1000.0), f64::INFINITY);
    }

    #[test]
    fn out_of_range_rates_saturate() {
        assert_eq!(bits_for(100, 2.0), 0);
        assert_eq!(bits_for(100, f64::NAN), bits_for(100, 0.0));
        assert_eq!(bits_for(u64::MAX, 1e-9), u64::MAX);
        assert_eq!(words_for(u64::MAX, 0.0), (u64::MAX / 64 + 1) as usize);
        assert_eq!(k_for(100, 0.5), 1);
        assert_eq!(optimal_k(0, 0), MAX_K);
        assert_eq!(cm_width(f64::NAN), usize::MAX);
        assert_eq!(cm_depth(0.0), 709);
        assert_eq!(cm_depth(f64::NAN), 709);
        assert_eq!(ss_capacity(-1.0), usize::MAX);
    }

    #[test]
    fn count_min_sizes_meet_their_targets() {
        let mut eps = 1e-6;
        while eps < 3.0 {
            let w = cm_width(eps);
            assert!(
                cm_epsilon(w) <= eps && (w == 1 || cm_epsilon(w - 1) > eps),
                "eps {eps}"
            );
            eps *= 1.9;
        }
        let mut delta = 1e-12;
        while delta < 1.0 {
            let d = cm_depth(delta);
            assert!(cm_delta(d) <= delta * (1.0 + 1e-12), "delta {delta}");
            assert!(d == 1 || cm_delta(d - 1) > delta, "delta {delta}");
            delta *= 1.7;
        }
    }
}
