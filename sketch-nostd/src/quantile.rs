//! A DDSketch-style quantile sketch: "how slow?" in fixed memory, every reported quantile within ±α
//! of the true value.
//!
//! Values are counted in logarithmic buckets: every power of two (an *octave*) is cut into `SUB`
//! buckets whose bounds grow geometrically, by `2^(1/SUB)`, so a bucket `[l, u)` is never wider than
//! `u/l = 2^(1/SUB)`. A quantile is answered with the bucket's representative `2lu/(l+u)`, within
//! `(u−l)/(u+l)` of anything the bucket holds. That relative error, maximised over the buckets of the
//! table actually used and rounded up for `f64` arithmetic, is [`QuantileSketch::ALPHA`]
//! ([`sizing::quantile_alpha`]): 0.990% for `SUB = 35`.
//!
//! # The bucket of a value, without `ln`
//!
//! A value's bucket is its binary exponent (the `f64` exponent bits, or the leading-zero count of an
//! integer) times `SUB`, plus the number of the octave's bucket bounds `2^(j/SUB)` at or below its
//! mantissa. The bounds are a table of `SUB` 32-bit fractions (`2^(j/SUB) − 1` rounded to 32 bits)
//! computed at compile time ([`sizing::exp`]), found by binary search: integer comparisons only, so
//! the same value gives the same bucket on a Cortex-M0 without an FPU as on a host, and an integer
//! gives the same bucket as the `f64` holding it. The buckets are those of DDSketch's exact
//! logarithmic mapping (no interpolation error) with each bound within 2^-33 of `2^(j/SUB)`, and
//! [`QuantileSketch::ALPHA`] is computed from the bounds as rounded: α = 1% over 1 … 10^9 takes 1,047
//! buckets. The value a bucket reports is computed from its two bounds (exact in 33 bits) when asked,
//! in integer arithmetic and rounded once, rather than kept in a second table.
//!
//! # Memory
//!
//! `BUCKETS` counters of type `C` (`u16`, `u32` or `u64`; [`Counter`]) hold one contiguous window of
//! buckets for negative values and one for positive values; zero (and magnitudes below
//! `f64::MIN_POSITIVE`, 2.2·10^-308, which count as zero) has its own count. When the values span more
//! buckets than there are counters, the **lowest** buckets (in value order: the most negative first)
//! are collapsed into the lowest bucket kept: quantiles above it keep the guarantee,
//! [`QuantileSketch::is_collapsed`] and [`QuantileSketch::collapsed_below`] report it. A counter stops at
//! its maximum instead of wrapping ([`QuantileSketch::is_saturated`]).
//!
//! ```
//! use sketch_nostd::{sizing::{quantile_buckets, quantile_sub_buckets}, QuantileSketch};
//!
//! // Latencies in µs from 1 µs to 1,000 s at α = 1%: 1,047 u32 counters, 4,256 bytes.
//! type Latency = QuantileSketch<{ quantile_sub_buckets(0.01) }, { quantile_buckets(0.01, 1.0, 1e9) }>;
//! assert_eq!(core::mem::size_of::<Latency>(), 4_256);
//! assert!(Latency::ALPHA <= 0.01);
//!
//! let mut lat = Latency::new();
//! for us in 1..=10_000u32 {
//!     lat.insert(us);
//! }
//! let p99 = lat.quantile(0.99).unwrap();
//! assert!((p99 - 9_900.0).abs() <= 0.01 * 9_900.0);
//!
//! // Sketches from other devices merge.
//! let mut other = Latency::new();
//! other.insert(250_000u32);
//! lat.merge(&other)?;
//! assert_eq!((lat.count(), lat.max()), (10_001, Some(250_000.0)));
//! # Ok::<(), sketch_nostd::MergeError>(())
//! ```
//!
//! [`sizing::quantile_alpha`]: crate::sizing::quantile_alpha
//! [`sizing::exp`]: crate::sizing::exp

use core::fmt;

pub use crate::counter::Counter;
use crate::error::MergeError;

/// The largest number of buckets per octave (`SUB`): α ≈ 0.0085%.
pub const MAX_SUB: usize = 4096;

/// The floor of a sketch that never collapsed: below every key.
pub(crate) const NO_FLOOR: i32 = i32::MIN;

/// 2^64 as an `f64`.
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

/// The octave of +∞ (its `f64` exponent bits); finite values have octaves `1..=2046`.
pub(crate) const INF_OCTAVE: u32 = 2047;

/// 2^32 as an `f64`.
const TWO_32: f64 = 4_294_967_296.0;

/// The lower bound of bucket `j` of an octave with `sub` buckets, `2^(j/sub) − 1` rounded to 32
/// bits (to nearest), in units of 2^-32. The same function builds the runtime table and the `const`
/// sizing.
const fn bound32(j: usize, sub: usize) -> u32 {
    if j == 0 || sub == 0 {
        return 0;
    }
    let v = crate::float::exp(j as f64 / sub as f64 * core::f64::consts::LN_2);
    ((v - 1.0) * TWO_32 + 0.5) as u32
}

/// [`bound32`] as a 64-bit fraction (its low 32 bits zero), to compare with a mantissa.
pub(crate) const fn threshold(j: usize, sub: usize) -> u64 {
    (bound32(j, sub) as u64) << 32
}

/// The bits of the `f64` nearest `2lu/(l + u)` (ties to even), the representative of the bucket
/// `[l, u)` of the octave `[1, 2)`, with `l` and `u` in units of 2^-32 (in `[2^32, 2^33]`): as
/// `l + l(u − l)/(l + u)`, the quotient by long division one bit at a time in `u64` (no
/// multiplication, division or floating-point routine on a part without an FPU; the bounds are
/// exact in 33 bits, so the value is the exact representative, rounded once).
const fn rep_bits(l: u64, u: u64) -> u64 {
    let d = l + u;
    // q = ⌊l·w/d⌋ and r its remainder, w = (u − l)·2^21 (below 2^54) taken from its top bit, moved
    // to bit 63; r < d at every step, so r·2 + l < 3d. The quotient's bits come in at the bottom
    // of the same word as w's go out at the top (one word fewer to keep): after i steps the
    // quotient is below 2^(i−1) (l/d < 1/2) and w's bits left are at 31 + i and up.
    let mut q = (u - l) << 31;
    let mut r = 0u64;
    let mut i = 0;
    while i < 54 {
        r <<= 1;
        if q >> 63 != 0 {
            r += l;
        }
        q <<= 1;
        while r >= d {
            r -= d;
            q += 1;
        }
        i += 1;
    }
    // rep·2^53 = wide + r/d, wide in [2^53, 2^54): round off its last bit.
    let wide = (l << 21) + q;
    let kept = wide >> 1;
    let up = wide & 1 & ((r != 0) as u64 | (kept & 1));
    // The mantissa in [2^52, 2^53) with the exponent of [1, 2) (1023).
    kept + up + (1022 << 52)
}

/// The bounds `[l, u)` of bucket `j` within the octave `[1, 2)`, as `f64`.
const fn bounds(j: usize, sub: usize) -> (f64, f64) {
    let l = 1.0 + threshold(j, sub) as f64 / TWO_64;
    let u = if j + 1 >= sub {
        2.0
    } else {
        1.0 + threshold(j + 1, sub) as f64 / TWO_64
    };
    (l, u)
}

/// The guarantee of `sub` buckets per octave: the largest `(u − l)/(u + l)` of the table's buckets,
/// plus 2^-50 for the rounding of the reported value in `f64` (a few ULP).
pub(crate) const fn alpha_of(sub: usize) -> f64 {
    if sub == 0 {
        return f64::INFINITY;
    }
    let mut worst: f64 = 0.0;
    let mut j = 0;
    while j < sub {
        let (l, u) = bounds(j, sub);
        let a = (u - l) / (u + l);
        if a > worst {
            worst = a;
        }
        j += 1;
    }
    worst + 1.0 / 1_125_899_906_842_624.0 // 2^-50
}

/// The key of a positive finite `f64` with `sub` buckets per octave, by a linear scan of the bounds
/// (for `const` sizing; magnitudes below `f64::MIN_POSITIVE` take the key of `f64::MIN_POSITIVE`).
pub(crate) const fn key_of(x: f64, sub: usize) -> i64 {
    let bits = x.to_bits();
    let mut octave = ((bits >> 52) & 0x7ff) as i64;
    let mut frac = (bits & 0x000f_ffff_ffff_ffff) << 12;
    if octave == 0 {
        octave = 1;
        frac = 0;
    }
    let mut j = 1;
    while j < sub && threshold(j, sub) <= frac {
        j += 1;
    }
    octave * sub as i64 + (j as i64 - 1)
}

/// The table of bucket bounds of one octave ([`bound32`]).
const fn thresholds<const SUB: usize>() -> [u32; SUB] {
    let mut t = [0u32; SUB];
    let mut j = 0;
    while j < SUB {
        t[j] = bound32(j, SUB);
        j += 1;
    }
    t
}

mod sealed {
    /// A value split for bucketing: its sign, its octave (0 for zero) and its mantissa as a 64-bit
    /// fraction (the bits after the leading one).
    #[derive(Clone, Copy)]
    pub struct Split {
        pub negative: bool,
        pub octave: u32,
        pub frac: u64,
    }

    /// A value as the sketch takes it: an integer's sign and magnitude, or an `f64`.
    #[derive(Clone, Copy)]
    pub enum Kind {
        Int(bool, u64),
        Float(f64),
    }

    impl Kind {
        /// `None` for NaN.
        #[inline]
        pub fn split(self) -> Option<Split> {
            match self {
                Self::Int(negative, m) => Some(int(negative, m)),
                Self::Float(x) => float(x),
            }
        }

        #[inline]
        pub fn to_f64(self) -> f64 {
            match self {
                Self::Int(negative, m) => int_to_f64(int(negative, m)),
                Self::Float(x) => x,
            }
        }
    }

    pub trait Sealed: Copy {
        fn kind(self) -> Kind;

        /// `None` for NaN.
        #[inline]
        fn split(self) -> Option<Split> {
            self.kind().split()
        }

        #[inline]
        fn to_f64(self) -> f64 {
            self.kind().to_f64()
        }
    }

    pub const fn int(negative: bool, m: u64) -> Split {
        if m == 0 {
            return Split {
                negative: false,
                octave: 0,
                frac: 0,
            };
        }
        // 64-bit hosts count the leading zeros in one instruction; a 32-bit part without one
        // (Cortex-M0) takes binary steps.
        let (top, lz) = if cfg!(target_pointer_width = "64") {
            let lz = m.leading_zeros();
            (m << lz, lz)
        } else {
            normalize(m)
        };
        // The exponent is 63 − lz; as an f64 exponent field, 1023 + 63 − lz.
        Split {
            negative,
            octave: 1086 - lz,
            frac: top << 1,
        }
    }

    /// `m` (not 0) shifted left until its top bit is set, and the shift: `(m << lz, lz)` with `lz =
    /// m.leading_zeros()`, in six steps by constant shifts (no count-leading-zeros routine and no
    /// 64-bit shift routine on a 32-bit part).
    pub const fn normalize(m: u64) -> (u64, u32) {
        // Written out: a loop over the steps would shift by a variable amount.
        let (mut m, mut lz) = (m, 0);
        if m >> 32 == 0 {
            m <<= 32;
            lz += 32;
        }
        if m >> 48 == 0 {
            m <<= 16;
            lz += 16;
        }
        if m >> 56 == 0 {
            m <<= 8;
            lz += 8;
        }
        if m >> 60 == 0 {
            m <<= 4;
            lz += 4;
        }
        if m >> 62 == 0 {
            m <<= 2;
            lz += 2;
        }
        if m >> 63 == 0 {
            m <<= 1;
            lz += 1;
        }
        (m, lz)
    }

    /// The `f64` nearest the integer split as `s` (ties to even), from its octave and mantissa
    /// alone: what `as f64` gives, without the conversion routines of parts without an FPU.
    pub const fn int_to_f64(s: Split) -> f64 {
        if s.octave == 0 {
            return 0.0;
        }
        // The top 52 bits of the mantissa, rounded; a carry out of them lands in the exponent.
        let (kept, rest) = (s.frac >> 12, s.frac & 0xfff);
        let up = rest > 0x800 || (rest == 0x800 && kept & 1 == 1);
        let bits = ((s.octave as u64) << 52) + kept + up as u64;
        f64::from_bits(bits | (s.negative as u64) << 63)
    }

    pub const fn float(x: f64) -> Option<Split> {
        let bits = x.to_bits();
        let octave = ((bits >> 52) & 0x7ff) as u32;
        let mantissa = bits & 0x000f_ffff_ffff_ffff;
        if octave == super::INF_OCTAVE && mantissa != 0 {
            return None;
        }
        if octave == 0 {
            // ±0 and subnormals.
            return Some(Split {
                negative: false,
                octave: 0,
                frac: 0,
            });
        }
        Some(Split {
            negative: bits >> 63 == 1,
            octave,
            frac: mantissa << 12,
        })
    }
}

/// The value types a [`QuantileSketch`] takes: every primitive integer up to 64 bits, `f32` and `f64`
/// (sealed). An integer lands in the same bucket as the `f64` of the same value.
///
/// ```
/// let mut q = sketch_nostd::QuantileSketch::<35, 64>::new();
/// q.insert(3u8);
/// q.insert(-2i64);
/// q.insert(0.5f32);
/// assert_eq!(q.count(), 3);
/// ```
pub trait Value: sealed::Sealed {}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline]
            fn kind(self) -> sealed::Kind {
                sealed::Kind::Int(false, self as u64)
            }
        }
        impl Value for $t {}
    )*};
}
macro_rules! signed {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {
            #[inline]
            fn kind(self) -> sealed::Kind {
                sealed::Kind::Int(self < 0, (self as i64).unsigned_abs())
            }
        }
        impl Value for $t {}
    )*};
}
unsigned!(u8, u16, u32, u64, usize);
signed!(i8, i16, i32, i64, isize);

impl sealed::Sealed for f64 {
    #[inline]
    fn kind(self) -> sealed::Kind {
        sealed::Kind::Float(self)
    }
}
impl Value for f64 {}

impl sealed::Sealed for f32 {
    #[inline]
    fn kind(self) -> sealed::Kind {
        sealed::Kind::Float(f64::from(self))
    }
}
impl Value for f32 {}

/// Where the buckets sit in the counters: negative keys `neg_lo..neg_lo + neg_len` in slots
/// `0..neg_len`, positive keys `pos_lo..pos_lo + pos_len` in the slots after them; every key below
/// `floor` counts as `floor`. Keys and lengths are below 2^24 in magnitude: `i32` arithmetic, which
/// a 32-bit part does in single instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    pub neg_lo: i32,
    pub neg_len: i32,
    pub pos_lo: i32,
    pub pos_len: i32,
    pub floor: i32,
}

impl Layout {
    const fn size(&self) -> i32 {
        self.neg_len + self.pos_len
    }

    /// The slot of key `k` (not 0), if a window holds it.
    const fn slot(&self, k: i32) -> Option<usize> {
        let (lo, len, base) = if k < 0 {
            (self.neg_lo, self.neg_len, 0)
        } else {
            (self.pos_lo, self.pos_len, self.neg_len)
        };
        let i = k.wrapping_sub(lo);
        if i >= 0 && i < len {
            Some((base + i) as usize)
        } else {
            None
        }
    }

    /// The key of slot `i` (below [`size`](Self::size)).
    const fn key_at(&self, i: usize) -> i32 {
        let i = i as i32;
        if i < self.neg_len {
            self.neg_lo + i
        } else {
            self.pos_lo + (i - self.neg_len)
        }
    }

    /// The slot in layout `old` of the key in slot `i` of this layout if both hold it, else
    /// `usize::MAX`.
    #[inline(never)]
    fn source(&self, old: &Self, i: usize) -> usize {
        if i < self.size() as usize {
            old.slot(self.key_at(i)).unwrap_or(usize::MAX)
        } else {
            usize::MAX
        }
    }

    /// The layout after every key below `f` is counted as `f`; `zero` says whether the zero count
    /// holds anything (it moves to bucket `f` when `f > 0`).
    fn clip(mut self, f: i32, zero: bool) -> Self {
        if f <= self.floor {
            return self;
        }
        self.floor = f;
        // From `f = 0` up the negative window is gone, its mass counted at 0 or above (an empty
        // window starts at 0: see `relayout`).
        let lowered = if f >= 0 {
            let had = self.neg_len > 0;
            self.neg_lo = 0;
            self.neg_len = 0;
            had
        } else {
            clip_window(&mut self.neg_lo, &mut self.neg_len, f, false);
            false
        };
        if f > 0 {
            clip_window(&mut self.pos_lo, &mut self.pos_len, f, lowered | zero);
        }
        self
    }

    /// The layout grown to hold key `k` (not 0, at or above the floor).
    fn with_key(mut self, k: i32) -> Self {
        let (lo, len) = if k < 0 {
            (&mut self.neg_lo, &mut self.neg_len)
        } else {
            (&mut self.pos_lo, &mut self.pos_len)
        };
        if *len == 0 {
            *lo = k;
            *len = 1;
        } else {
            let hi = (*lo + *len).max(k + 1);
            *lo = (*lo).min(k);
            *len = hi - *lo;
        }
        self
    }

    /// The lowest floor at which this layout, `excess` buckets too large, fits: the candidates are the
    /// negative keys upwards, then 0 (every negative value counted as zero), then the positive keys.
    const fn floor_to_fit(&self, excess: i32) -> i32 {
        if excess < self.neg_len {
            self.neg_lo + excess
        } else if excess == self.neg_len {
            0
        } else {
            self.pos_lo + (excess - self.neg_len)
        }
    }
}

/// One window `lo..lo + len` after every key below `f` is counted as `f` (keys of the window's
/// sign; `lowered`: mass from below the window moves to `f`): a window wholly below `f` becomes the
/// one bucket `f`; one reaching above `f` starts at `f` (down to it if mass is lowered into it); an
/// empty one holds `f` only if mass is lowered into it.
#[inline(never)]
fn clip_window(lo: &mut i32, len: &mut i32, f: i32, lowered: bool) {
    if *len == 0 {
        if lowered {
            *lo = f;
            *len = 1;
        }
        return;
    }
    let hi = *lo + *len - 1;
    if f > hi {
        *lo = f;
        *len = 1;
    } else if f > *lo || lowered {
        *len = hi - f + 1;
        *lo = f;
    }
}

/// A quantile sketch with relative error [`ALPHA`](Self::ALPHA): `SUB` buckets per power of two,
/// `BUCKETS` counters of type `C` (fixed memory: `size_of` is `BUCKETS · size_of::<C>()` plus 61
/// bytes, 65 with `u64` counters, rounded up to a multiple of 8). See the [module documentation](self) for the mapping and the collapse.
///
/// Every value inserted counts in [`count`](Self::count), [`min`](Self::min), [`max`](Self::max) and
/// [`sum`](Self::sum); NaN is ignored. While the sketch has not collapsed, [`quantile`](Self::quantile)
/// returns a value within `±ALPHA·|x|` of `x`, the element of rank `⌊q·(n − 1)⌋` (from 0) of the sorted
/// values.
///
/// ```
/// use sketch_nostd::QuantileSketch;
///
/// // α = 0.99%, 512 u16 counters (1,088 bytes): 14.6 octaves of positive values, say 1 … 25,000.
/// let mut sizes = QuantileSketch::<35, 512, u16>::new();
/// for len in [64u32, 64, 128, 1_500, 1_500, 9_000] {
///     sizes.insert(len);
/// }
/// let median = sizes.quantile(0.5).unwrap(); // rank ⌊0.5 · 5⌋ = 2: the value 128
/// assert!((median - 128.0).abs() <= sizes.error_bound() * 128.0);
/// assert_eq!(sizes.quantile(1.0), Some(9_000.0)); // the extremes are exact
/// assert_eq!(sizes.rank(1_500u32), 5);
/// assert_eq!(core::mem::size_of_val(&sizes), 512 * 2 + 64);
/// ```
// In this order (`repr(C)`): the counters after the other fields, so that those sit at small
// offsets (a Cortex-M0's loads and stores encode offsets up to 124 bytes, and the code reaches them
// without computing addresses); the fields an empty sketch has non-zero first, and the counters
// 4-aligned, so that clearing the rest of a new sketch is one call of the 4-aligned routine every
// firmware has (no 8-aligned or unaligned one). The same size as the compiler's own order, but
// for `u64` counters (8 bytes more: they start 8-aligned, after 4 bytes of padding, and the flag
// follows them).
#[derive(Clone, PartialEq)]
#[repr(C)]
pub struct QuantileSketch<const SUB: usize, const BUCKETS: usize, C: Counter = u32> {
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) floor: i32,
    pub(crate) neg_lo: i32,
    pub(crate) count: u64,
    pub(crate) zero: u64,
    pub(crate) sum: f64,
    pub(crate) neg_len: u32,
    pub(crate) pos_lo: i32,
    pub(crate) pos_len: u32,
    pub(crate) counts: [C; BUCKETS],
    pub(crate) saturated: bool,
}

impl<const SUB: usize, const BUCKETS: usize, C: Counter> Default
    for QuantileSketch<SUB, BUCKETS, C>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const SUB: usize, const BUCKETS: usize, C: Counter> QuantileSketch<SUB, BUCKETS, C> {
    /// Buckets per octave (power of two).
    pub const SUB: usize = SUB;
    /// Counters.
    pub const BUCKETS: usize = BUCKETS;
    /// The relative error of every quantile while the sketch has not collapsed: the largest
    /// `(u − l)/(u + l)` over the buckets `[l, u)` of the table, plus 2^-50 for `f64` rounding
    /// (`≈ ln 2 / (2·SUB)`; see [`sizing::quantile_alpha`](crate::sizing::quantile_alpha)).
    ///
    /// ```
    /// use sketch_nostd::QuantileSketch;
    /// assert!((QuantileSketch::<35, 1>::ALPHA - 0.009_902).abs() < 1e-6);
    /// ```
    pub const ALPHA: f64 = alpha_of(SUB);

    /// The bucket bounds of one octave (in units of 2^-32); the checks run at compile time.
    const TABLE: [u32; SUB] = {
        assert!(
            SUB > 0 && SUB <= MAX_SUB,
            "SUB (buckets per octave) must be in 1..=4096"
        );
        assert!(BUCKETS > 0, "a quantile sketch needs at least one bucket");
        assert!(
            BUCKETS <= 1 << 24,
            "a quantile sketch has at most 2^24 buckets (every key fits)"
        );
        thresholds::<SUB>()
    };

    /// The largest key magnitude (that of +∞).
    #[cfg(feature = "wire")]
    pub(crate) const MAX_KEY: i64 = INF_OCTAVE as i64 * SUB as i64;

    /// The key of a value (`None` for NaN).
    #[cfg(feature = "wire")]
    pub(crate) fn key_of_value<V: Value>(v: V) -> Option<i64> {
        v.split().map(Self::key)
    }

    /// For each 1/256 slice of the mantissa (its top 8 bits), the bucket holding the slice's start.
    const COARSE: [u16; 256] = {
        let t = Self::TABLE;
        let mut c = [0u16; 256];
        let (mut i, mut j) = (0, 0);
        while i < 256 {
            let start = (i as u32) << 24;
            while j + 1 < SUB && t[j + 1] <= start {
                j += 1;
            }
            c[i] = j as u16;
            i += 1;
        }
        c
    };

    /// An empty sketch.
    ///
    /// ```
    /// let q = sketch_nostd::QuantileSketch::<35, 1047>::new();
    /// assert!(q.is_empty() && q.quantile(0.5).is_none());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        let _ = Self::TABLE;
        Self {
            counts: [C::ZERO; BUCKETS],
            count: 0,
            zero: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            neg_lo: 0,
            neg_len: 0,
            pos_lo: 0,
            pos_len: 0,
            floor: NO_FLOOR,
            saturated: false,
        }
    }

    /// The signed key of a split value: 0 for zero, `±(octave·SUB + j)` otherwise (never below
    /// `SUB` in magnitude).
    #[inline]
    fn key(s: sealed::Split) -> i64 {
        if s.octave == 0 {
            return 0;
        }
        // A 64-bit host spends 512 bytes on a lookup table; a microcontroller searches.
        #[cfg(target_pointer_width = "64")]
        let j = Self::coarse_index(s.frac);
        #[cfg(not(target_pointer_width = "64"))]
        let j = Self::search_index(s.frac);
        let k = i64::from(s.octave) * SUB as i64 + j as i64;
        if s.negative {
            -k
        } else {
            k
        }
    }

    /// The bucket of a mantissa (64-bit fraction) within its octave: the number of bounds at or
    /// below it, less one. From the 1/256 slice where it starts ([`COARSE`](Self::COARSE)), then on
    /// while the next bound is at or below it: one step at most for SUB ≤ 177 (a bucket is wider
    /// than a slice).
    #[cfg_attr(not(target_pointer_width = "64"), allow(dead_code))]
    #[inline]
    fn coarse_index(frac: u64) -> usize {
        // The bounds have 32 bits: a bound is at or below the mantissa if it is at or below its
        // top 32 bits.
        let frac = (frac >> 32) as u32;
        let mut j = Self::COARSE[(frac >> 24) as usize] as usize;
        while let Some(&t) = Self::TABLE.get(j + 1) {
            if t > frac {
                break;
            }
            j += 1;
        }
        j
    }

    /// [`coarse_index`](Self::coarse_index) by a binary search of the bounds (⌈log2 SUB⌉
    /// comparisons), without the 512-byte table: what microcontrollers use.
    #[cfg_attr(target_pointer_width = "64", allow(dead_code))]
    #[inline]
    fn search_index(frac: u64) -> usize {
        // The last bound at or below the mantissa, by halving the candidates `j..j + n`: the
        // first bound is 0, at or below every mantissa.
        let frac = (frac >> 32) as u32;
        let (mut j, mut n) = (0, SUB);
        while n > 1 {
            let half = n / 2;
            if Self::TABLE.get(j + half).is_some_and(|&t| t <= frac) {
                j += half;
            }
            n -= half;
        }
        j
    }

    /// The value reported for key `k`: the representative `2lu/(l+u)` of its bucket, computed for
    /// the octave `[1, 2)` from the table of bounds ([`rep_bits`]) and scaled by adding to the
    /// exponent bits (no float arithmetic, no division helper on a 32-bit part).
    fn value_of(k: i64) -> f64 {
        if k == 0 {
            return 0.0;
        }
        // Keys are below 2^24 in magnitude, so u32 division by the constant SUB (a multiplication).
        let m = k.unsigned_abs().min(u64::from(u32::MAX)) as u32;
        let (octave, j) = (m / SUB as u32, m % SUB as u32);
        let v = if octave >= INF_OCTAVE {
            f64::INFINITY
        } else {
            let bound = |j: u32| {
                Self::TABLE
                    .get(j as usize)
                    .map_or(1 << 33, |&t| (1 << 32) + u64::from(t))
            };
            let rep = rep_bits(bound(j), bound(j + 1));
            // rep is in [1, 2): its exponent field is 1023; make it `octave`.
            f64::from_bits(rep - (1023 << 52) + (u64::from(octave) << 52))
        };
        if k < 0 {
            -v
        } else {
            v
        }
    }

    /// Counts `value` once.
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 1047>::new();
    /// q.insert(42u32);
    /// q.insert(f64::NAN); // ignored
    /// assert_eq!((q.count(), q.min(), q.max()), (1, Some(42.0), Some(42.0)));
    /// ```
    #[inline]
    pub fn insert<V: Value>(&mut self, value: V) {
        self.add(value, 1);
    }

    /// Counts `value` `n` times (NaN, or `n = 0`, changes nothing).
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 1047>::new();
    /// q.add(-3i32, 10);
    /// q.add(7u8, 30);
    /// assert_eq!(q.count(), 40);
    /// assert!(q.quantile(0.2).unwrap() < 0.0 && q.quantile(0.3).unwrap() > 0.0);
    /// assert_eq!(q.sum(), -30.0 + 210.0);
    /// ```
    #[inline]
    pub fn add<V: Value>(&mut self, value: V, n: u64) {
        match value.kind() {
            sealed::Kind::Int(negative, m) => self.add_int(negative, m, n),
            sealed::Kind::Float(x) => self.add_float(x, n),
        }
    }

    /// [`add`](Self::add) for every integer type. The insert path is inlined on 64-bit hosts (for
    /// speed) and one out-of-line copy on microcontrollers (for code size).
    #[cfg_attr(target_pointer_width = "64", inline)]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn add_int(&mut self, negative: bool, m: u64, n: u64) {
        let split = sealed::int(negative, m);
        self.add_split(split, sealed::int_to_f64(split), n);
    }

    /// [`add`](Self::add) for `f32` and `f64`.
    #[cfg_attr(target_pointer_width = "64", inline)]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn add_float(&mut self, x: f64, n: u64) {
        if let Some(split) = sealed::float(x) {
            self.add_split(split, x, n);
        }
    }

    /// Counts `x`, split as `split`, `n` times.
    fn add_split(&mut self, split: sealed::Split, x: f64, n: u64) {
        if n == 0 {
            return;
        }
        // What a full counter turned away is in neither the count, the sum nor the extremes.
        // `min(n)`: `add_key` never adds more than `n`, and saying so lets an `insert` (n = 1) drop
        // the multiplication below (a soft-float multiply and conversion on a Cortex-M0: 1.3 KB).
        let added = self.add_key(Self::key(split) as i32, n).min(n);
        if added == 0 {
            return;
        }
        self.sum = crate::float::add(self.sum, if added == 1 { x } else { x * added as f64 });
        self.widen(x, x);
    }

    /// Lowers the minimum to `lo` and raises the maximum to `hi` where they lie beyond.
    fn widen(&mut self, lo: f64, hi: f64) {
        if before(lo, self.min) {
            self.min = lo;
        }
        if before(self.max, hi) {
            self.max = hi;
        }
    }

    /// Adds up to `n` to bucket `k` (0: the zero count) of the current layout, stopping at the
    /// counter's maximum; returns what was added (0 if no window holds `k`).
    fn add_in_place(&mut self, k: i32, n: u64) -> u64 {
        if k == 0 {
            let now = self.zero;
            self.zero = now.saturating_add(n);
            return self.zero - now;
        }
        let Some(c) = self.layout().slot(k).and_then(|s| self.counts.get_mut(s)) else {
            return 0;
        };
        // Up to the counter's maximum.
        let now = c.to_u64();
        let added = n.min(C::MAX.to_u64() - now);
        *c = C::from_u64(now + added);
        self.saturated |= added < n;
        added
    }

    /// Counts key `k` (before the floor) `n` times, growing the windows (or collapsing) first if
    /// none holds it; returns how many were counted. The count is the sum of the buckets, exactly:
    /// what would take it past 2^64 − 1 is not counted (and the sketch is saturated), so moving a
    /// bucket's count in [`relayout`](Self::relayout) never takes it below the buckets' sum, and
    /// every sketch encodes to bytes that decode.
    #[cfg_attr(target_pointer_width = "64", inline)]
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn add_key(&mut self, k: i32, n: u64) -> u64 {
        let room = u64::MAX - self.count;
        self.saturated |= n > room;
        let n = n.min(room);
        if n == 0 {
            return 0;
        }
        let mut k = k.max(self.floor);
        if k != 0 && self.layout().slot(k).is_none() {
            self.relayout(Some(k), NO_FLOOR);
            k = k.max(self.floor);
        }
        let added = self.add_in_place(k, n);
        self.count += added;
        added
    }

    pub(crate) fn layout(&self) -> Layout {
        Layout {
            neg_lo: self.neg_lo,
            neg_len: self.neg_len as i32,
            pos_lo: self.pos_lo,
            pos_len: self.pos_len as i32,
            floor: self.floor,
        }
    }

    /// The layout that holds key `k` (if any) with a floor of at least `raise`, collapsing the lowest
    /// buckets if that many do not fit.
    #[inline]
    fn plan(&self, k: Option<i32>, raise: i32) -> Option<Layout> {
        let now = self.layout();
        let mut f = now.floor.max(raise);
        // Two rounds always suffice: the second floor makes the layout exactly `BUCKETS` long.
        for _ in 0..3 {
            let mut l = now.clip(f, self.zero > 0);
            if let Some(k) = k.map(|k| k.max(f)).filter(|&k| k != 0) {
                l = l.with_key(k);
            }
            let excess = l.size() - BUCKETS as i32;
            if excess <= 0 {
                return Some(l);
            }
            f = l.floor_to_fit(excess);
        }
        None
    }

    /// Grows the windows to hold key `k` (if any) with a floor of at least `raise`, collapsing the
    /// lowest buckets if that many do not fit: moves the counters to the layout of
    /// [`plan`](Self::plan), the keys below its floor added into the floor's bucket, the others
    /// keeping their counts in their new slots.
    ///
    /// Every bucket of the new layout is at or above its floor; those the old layout holds keep their
    /// counts. Both windows keep their order, and a window moves right only when the negative one
    /// grows downwards or the positive one does (neither is clipped then), so moving the counters
    /// that move right from the top down, then those that move left (and clearing the slots of new
    /// buckets) from the bottom up, never overwrites a counter before it has moved.
    #[inline(never)]
    fn relayout(&mut self, k: Option<i32>, raise: i32) {
        let Some(new) = self.plan(k, raise) else {
            return;
        };
        let old = self.layout();
        let f = new.floor;
        let used = old.size().max(new.size()) as usize;
        let mut mass: u64 = 0;
        if f > 0 {
            mass = self.zero;
            self.zero = 0;
        }
        // The keys below the floor are the first slots (keys ascend with the slots).
        let mut i = 0;
        while i < old.size() as usize && old.key_at(i) < f {
            mass = mass.saturating_add(self.counts.get(i).map_or(0, |c| c.to_u64()));
            i += 1;
        }
        // One loop for both passes: down the slots moving counters right, then up the slots
        // moving the others (a source past the counters clears the slot).
        for t in 0..2 * used {
            let (i, down) = if t < used {
                (used - 1 - t, true)
            } else {
                (t - used, false)
            };
            let s = new.source(&old, i);
            if (s < i) == down {
                self.move_counter(s, i);
            }
        }
        // An empty window's start is 0, so that equal contents mean equal sketches: a window
        // `plan` leaves empty was empty (its start 0) or was emptied by `clip` (which sets it).
        self.neg_len = new.neg_len as u32;
        self.neg_lo = new.neg_lo;
        self.pos_len = new.pos_len as u32;
        self.pos_lo = new.pos_lo;
        self.floor = f;
        if mass > 0 {
            let added = self.add_in_place(f, mass);
            self.count -= mass - added;
        }
    }

    /// Copies counter `from` into counter `to` (0 if `from` is past the counters).
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn move_counter(&mut self, from: usize, to: usize) {
        let v = self.counts.get(from).copied().unwrap_or(C::ZERO);
        if let Some(d) = self.counts.get_mut(to) {
            *d = v;
        }
    }

    /// Merges `other` into `self`: afterwards `self` answers for the values of both, within
    /// [`ALPHA`](Self::ALPHA). The floor becomes the higher of the two (and higher still if the
    /// buckets of both do not fit). Sketches with another `SUB`, `BUCKETS` or counter type are other
    /// types, so merging them does not compile; this never fails today and returns a `Result` like
    /// every merge in the crate.
    ///
    /// ```
    /// use sketch_nostd::QuantileSketch;
    /// let (mut a, mut b) = (QuantileSketch::<35, 1047>::new(), QuantileSketch::<35, 1047>::new());
    /// a.insert(1u32);
    /// b.insert(1_000u32);
    /// a.merge(&b)?;
    /// assert_eq!((a.count(), a.min(), a.max()), (2, Some(1.0), Some(1_000.0)));
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    ///
    /// # Errors
    /// None at present (see above).
    #[inline(never)]
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        if other.floor > self.floor {
            self.relayout(None, other.floor);
        }
        // The extremes first, so that the layout grows (or collapses) once, then the buckets between
        // them in value order, then the zero count. Windows start and end with a non-empty bucket,
        // so the extremes are the first and last slots.
        let theirs = other.layout();
        let size = theirs.size() as usize;
        for j in 0..size {
            let i = if j == 0 { size - 1 } else { j - 1 };
            let n = other.counts.get(i).map_or(0, |c| c.to_u64());
            if n != 0 {
                self.add_key(theirs.key_at(i), n);
            }
        }
        if other.zero > 0 {
            self.add_key(0, other.zero);
        }
        self.sum = crate::float::add(self.sum, other.sum);
        self.widen(other.min, other.max);
        self.saturated |= other.saturated;
        Ok(())
    }

    /// The value-ordered buckets: the negative window's slots, the zero count, then the positive
    /// window's slots, as `(key, count)` for `i` in `0..=size`.
    fn bucket(&self, i: usize) -> (i32, u64) {
        let l = self.layout();
        let nn = l.neg_len as usize;
        if i == nn {
            return (0, self.zero);
        }
        let slot = if i < nn { i } else { i - 1 };
        let count = self.counts.get(slot).map_or(0, |c| c.to_u64());
        (l.key_at(slot), count)
    }

    /// The number of [`bucket`](Self::bucket)s: the counters in use and the zero count.
    fn bucket_count(&self) -> usize {
        self.layout().size() as usize + 1
    }

    /// The number of values counted: the sum of the buckets' counts. Values that found their bucket
    /// full, or that would take the count past 2^64 − 1, are not counted (see
    /// [`is_saturated`](Self::is_saturated)).
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 8>::new();
    /// q.add(5u32, 3);
    /// assert_eq!(q.count(), 3);
    /// ```
    #[must_use]
    pub const fn count(&self) -> u64 {
        self.count
    }

    /// Whether nothing was counted.
    ///
    /// ```
    /// assert!(sketch_nostd::QuantileSketch::<35, 8>::new().is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The smallest value inserted, exactly (as an `f64`); `None` if empty.
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 64>::new();
    /// q.insert(-2.5f64);
    /// q.insert(7u8);
    /// assert_eq!((q.min(), q.max()), (Some(-2.5), Some(7.0)));
    /// ```
    #[must_use]
    pub fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// The largest value inserted, exactly (as an `f64`); `None` if empty.
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 64>::new();
    /// q.insert(1e9f64);
    /// assert_eq!(q.max(), Some(1e9));
    /// ```
    #[must_use]
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// The sum of the values counted (in `f64`): what a full counter turned away is not in it, so
    /// `sum() / count()` stays the mean of what was counted. (A merge adds the other sketch's sum
    /// whole: if its counts did not all fit, which values were turned away is not known.)
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 64>::new();
    /// q.add(2u32, 5);
    /// assert_eq!(q.sum() / q.count() as f64, 2.0);
    ///
    /// let mut small = sketch_nostd::QuantileSketch::<35, 64, u16>::new();
    /// small.add(3u32, 70_000); // 65,535 of them fit in a u16 counter
    /// assert_eq!((small.count(), small.sum()), (65_535, 3.0 * 65_535.0));
    /// ```
    #[must_use]
    pub const fn sum(&self) -> f64 {
        self.sum
    }

    /// The `q`-quantile (`0 ≤ q ≤ 1`): an estimate of the element of rank `⌊q·(n − 1)⌋` (from 0) of
    /// the `n` values in sorted order, within [`ALPHA`](Self::ALPHA) of it in relative terms, unless it
    /// lies in the collapsed bucket ([`collapsed_below`](Self::collapsed_below)). `q = 0` and `q = 1`
    /// give the exact minimum and maximum. `None` if empty or `q` is outside `[0, 1]` (or NaN).
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 1047>::new();
    /// for v in 1..=1_000u32 { q.insert(v); }
    /// let p90 = q.quantile(0.9).unwrap(); // rank 899: the value 900
    /// assert!((p90 - 900.0).abs() <= q.error_bound() * 900.0);
    /// assert_eq!(q.quantile(1.5), None);
    /// ```
    #[must_use]
    pub fn quantile(&self, q: f64) -> Option<f64> {
        // 0 ≤ q ≤ 1 by the bits (no float comparison helper on parts without an FPU): the bits of
        // non-negative `f64`s order as their values, NaN and negative values have larger ones.
        let bits = q.to_bits();
        if self.count == 0 || (bits > 1.0f64.to_bits() && bits != (-0.0f64).to_bits()) {
            return None;
        }
        let last = self.count - 1;
        let rank = scaled_rank(q, last);
        if rank == 0 {
            return Some(self.min);
        }
        if rank >= last {
            return Some(self.max);
        }
        // The values still to pass, bucket by bucket, from the nearer end: above the median, the
        // `last − rank` values after the one of rank `rank`, from the top. The buckets add up to
        // `count` (unless that stopped at 2^64 − 1, when only the walk from the bottom is exact), so
        // both walks stop at the same bucket; p99 walks a few buckets, not all of them. On 64-bit
        // hosts only: a microcontroller keeps the one walk (68 bytes less on a Cortex-M0).
        let size = self.bucket_count();
        let down = cfg!(target_pointer_width = "64") && rank > last / 2 && self.count != u64::MAX;
        let mut left = if down { last - rank } else { rank };
        for j in 0..size {
            let (k, n) = self.bucket(if down { size - 1 - j } else { j });
            if left < n {
                let v = Self::value_of(i64::from(k));
                return Some(if before(v, self.min) {
                    self.min
                } else if before(self.max, v) {
                    self.max
                } else {
                    v
                });
            }
            left -= n;
        }
        Some(self.max)
    }

    /// The number of values at or below `x`, as far as the buckets tell: every value in a lower bucket,
    /// and the whole bucket of `x` (values up to `2^(1/SUB)` times `x`). 0 below the minimum and
    /// [`count`](Self::count) at or above the maximum; 0 for NaN.
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 1047>::new();
    /// for v in 1..=100u32 { q.insert(v); }
    /// assert_eq!(q.rank(50u32), 50);
    /// assert_eq!((q.rank(0u32), q.rank(1e6f64)), (0, 100));
    /// ```
    #[must_use]
    pub fn rank<V: Value>(&self, x: V) -> u64 {
        let Some(split) = x.split() else { return 0 };
        let v = x.to_f64();
        if self.count == 0 || before(v, self.min) {
            return 0;
        }
        if !before(v, self.max) {
            return self.count;
        }
        let k = (Self::key(split) as i32).max(self.floor);
        let mut below = 0u64;
        for i in 0..self.bucket_count() {
            let (key, n) = self.bucket(i);
            if key > k {
                break;
            }
            below = below.saturating_add(n);
        }
        below
    }

    /// [`ALPHA`](Self::ALPHA), the relative error of every quantile above the collapsed buckets.
    ///
    /// ```
    /// let q = sketch_nostd::QuantileSketch::<35, 1047>::new();
    /// assert!(q.error_bound() <= 0.01);
    /// ```
    #[must_use]
    pub const fn error_bound(&self) -> f64 {
        Self::ALPHA
    }

    /// Whether the lowest buckets were collapsed because the values spanned more than `BUCKETS`
    /// buckets (directly, or in a sketch merged in).
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 35>::new(); // one octave
    /// q.insert(10u32);
    /// q.insert(15u32);
    /// assert!(!q.is_collapsed());
    /// q.insert(1_000u32);
    /// assert!(q.is_collapsed());
    /// ```
    #[must_use]
    pub const fn is_collapsed(&self) -> bool {
        self.floor != NO_FLOOR
    }

    /// After a collapse, the value reported for the collapsed bucket, which also counts every value
    /// below it: quantiles reported above it keep the ±[`ALPHA`](Self::ALPHA) guarantee, those
    /// reported at it may be lower values. `None` if the sketch never collapsed.
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 35>::new();
    /// for v in [1u32, 2, 3, 500, 900] { q.insert(v); }
    /// let floor = q.collapsed_below().unwrap();
    /// assert!(floor > 3.0 && floor < 500.0);
    /// assert_eq!(q.quantile(0.0), Some(1.0)); // the minimum stays exact
    /// let p75 = q.quantile(0.75).unwrap(); // rank 3: 500
    /// assert!((p75 - 500.0).abs() <= q.error_bound() * 500.0);
    /// ```
    #[must_use]
    pub fn collapsed_below(&self) -> Option<f64> {
        self.is_collapsed()
            .then(|| Self::value_of(i64::from(self.floor)))
    }

    /// Whether a counter reached its maximum (values added to it after that were not counted).
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 8, u16>::new();
    /// q.add(3u32, 70_000);
    /// assert!(q.is_saturated());
    /// assert_eq!(q.count(), 65_535);
    /// ```
    #[must_use]
    pub const fn is_saturated(&self) -> bool {
        self.saturated
    }

    /// Empties the sketch.
    ///
    /// ```
    /// let mut q = sketch_nostd::QuantileSketch::<35, 8>::new();
    /// q.insert(1u32);
    /// q.clear();
    /// assert!(q.is_empty() && q == sketch_nostd::QuantileSketch::new());
    /// ```
    pub fn clear(&mut self) {
        *self = Self::new();
    }
}

/// `a < b` for non-NaN `f64`s, by their bits (no float comparison helper on parts without an FPU):
/// the order of `f64::total_cmp`, except that −0 and +0 are equal, as `<` has them.
#[cfg_attr(target_pointer_width = "64", inline)]
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
fn before(a: f64, b: f64) -> bool {
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        // Negative values (s = −1): flip the magnitude bits, so that more negative sorts lower,
        // and add 1, so that −0 gets the key of +0; without a branch.
        let s = bits >> 63;
        (bits ^ (s as u64 >> 1) as i64).wrapping_sub(s)
    };
    key(a) < key(b)
}

/// `(q * m as f64) as u64` for `q` in `[0, 1]` (or −0): a plain `f64` expression where the hardware
/// has double precision, [`scaled_rank_int`] (the same results) elsewhere.
#[inline]
fn scaled_rank(q: f64, m: u64) -> u64 {
    if crate::num::NATIVE_F64 {
        (q * m as f64) as u64
    } else {
        scaled_rank_int(q, m)
    }
}

/// `(q * m as f64) as u64` for `q` in `[0, 1]` (or −0), rounded exactly as IEEE 754 arithmetic
/// does it (the conversion of `m` and the product each to nearest, ties to even; the conversion back
/// truncates), in integer arithmetic: no soft-float multiply on parts without an FPU. Shifts go one
/// bit at a time (no 64-bit shift routines; a query walks the counters anyway).
#[inline]
fn scaled_rank_int(q: f64, m: u64) -> u64 {
    use crate::num::round53;
    let bits = q.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 || m == 0 {
        // ±0 or subnormal: q·m < 2^−1022 · 2^64 truncates to 0.
        return 0;
    }
    // m as f64: its leading bit moved to bit 63, rounded to 53 bits, mm·2^me.
    let (mut top, mut e) = (m, 0);
    while top >> 63 == 0 {
        top <<= 1;
        e -= 1;
    }
    let (mm, me) = round53(top, e, false);
    // The product of the two 53-bit mantissas from the lowest bit of q's up (no multiply
    // routine): acc = ⌊qm·mm·2^10 / 2^53⌋ (in [2^61, 2^63)), and whether bits below it were lost.
    // acc is below 2^63 after each shift, and mm·2^10 below 2^63, so the sum never overflows.
    let mut qm = (bits & ((1 << 52) - 1)) | 1 << 52;
    let (mut acc, mut sticky) = (0u64, false);
    for _ in 0..53 {
        if qm & 1 != 0 {
            acc += mm << 10;
        }
        sticky |= acc & 1 != 0;
        acc >>= 1;
        qm >>= 1;
    }
    // q·m = acc·2^e (plus the lost bits); the leading bit to 63 (two shifts at most: the lost bits
    // stay below the rounding point, ten bits up).
    let mut e = exp - 1075 + me + 43;
    while acc >> 63 == 0 {
        acc <<= 1;
        e -= 1;
    }
    let (mut r, mut e) = round53(acc, e, sticky);
    // ⌊r·2^e⌋, saturating at 2^64 as `as u64` does.
    if e > 11 {
        return u64::MAX;
    }
    // r is in [2^52, 2^53): at most 11 steps left, and 53 right before it is 0.
    while e != 0 && r != 0 {
        if e > 0 {
            r <<= 1;
            e -= 1;
        } else {
            r >>= 1;
            e += 1;
        }
    }
    r
}

impl<const SUB: usize, const BUCKETS: usize, C: Counter> fmt::Debug
    for QuantileSketch<SUB, BUCKETS, C>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuantileSketch")
            .field("sub", &SUB)
            .field("buckets", &BUCKETS)
            .field("counter", &C::NAME)
            .field("alpha", &Self::ALPHA)
            .field("count", &self.count)
            .field("min", &self.min())
            .field("max", &self.max())
            .field("collapsed_below", &self.collapsed_below())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::sealed::Sealed;
    use super::*;
    use crate::sizing::{quantile_buckets, quantile_sub_buckets};
    use sketch_rng::SplitMix64 as Rng;

    /// Checks every quantile on a grid against the sorted values, with the sketch's rank definition.
    fn check<const S: usize, const B: usize, C: Counter>(
        q: &QuantileSketch<S, B, C>,
        sorted: &[f64],
    ) {
        assert_eq!(q.count(), sorted.len() as u64);
        let n = sorted.len();
        for i in 0..=200 {
            let p = i as f64 / 200.0;
            let truth = sorted[(p * (n - 1) as f64) as usize];
            let est = q.quantile(p).unwrap();
            assert!(
                (est - truth).abs() <= QuantileSketch::<S, B, C>::ALPHA * truth.abs(),
                "q {p}: {est} vs {truth}"
            );
        }
    }

    #[test]
    fn sizes_and_alpha() {
        assert_eq!(quantile_sub_buckets(0.01), 35);
        assert_eq!(quantile_buckets(0.01, 1.0, 1e9), 1_047);
        type Latency = QuantileSketch<35, 1_047>;
        assert_eq!(core::mem::size_of::<Latency>(), 1_047 * 4 + 68);
        assert_eq!(
            core::mem::size_of::<QuantileSketch<35, 1_047, u16>>(),
            1_047 * 2 + 66
        );
        const { assert!(Latency::ALPHA <= 0.01) };
        // The bound is tight: a value at a bucket's lower edge is reported (u − l)/(u + l) above it.
        let (l, u) = bounds(0, 35);
        assert!(((u - l) / (u + l) - Latency::ALPHA).abs() < 1e-6);
    }

    #[test]
    fn integer_and_float_give_the_same_key() {
        type Q = QuantileSketch<35, 8>;
        let mut r = Rng(5);
        for _ in 0..10_000 {
            let v = r.next_u64() >> (r.next_u64() % 64);
            let vf = v as f64;
            if vf as u64 == v {
                assert_eq!(
                    Q::key(v.split().unwrap()),
                    Q::key(vf.split().unwrap()),
                    "{v}"
                );
            }
            let i = v as i64;
            assert_eq!(
                Q::key(i.split().unwrap()),
                if i < 0 {
                    -Q::key(i.unsigned_abs().split().unwrap())
                } else {
                    Q::key(v.split().unwrap())
                }
            );
        }
        assert_eq!(Q::key(1u8.split().unwrap()), 1023 * 35);
        // Integers convert to the f64 `as` gives, rounded to nearest, ties to even.
        for _ in 0..200_000 {
            let v = r.next_u64() >> (r.next_u64() % 64);
            let v = if r.next_u64().is_multiple_of(3) {
                v & !0x7ff
            } else {
                v
            };
            assert_eq!(v.to_f64().to_bits(), (v as f64).to_bits(), "{v}");
            let i = v as i64;
            assert_eq!(i.to_f64().to_bits(), (i as f64).to_bits(), "{i}");
            assert_eq!((v as i32).to_f64(), f64::from(v as i32));
            assert_eq!((v as u16).to_f64(), f64::from(v as u16));
        }
        for v in [
            0,
            1,
            i64::MIN,
            i64::MAX,
            -1,
            (1 << 53) + 1,
            (1 << 54) + 2,
            (1 << 54) + 6,
        ] {
            assert_eq!(v.to_f64().to_bits(), (v as f64).to_bits(), "{v}");
            assert_eq!(
                (v as u64).to_f64().to_bits(),
                (v as u64 as f64).to_bits(),
                "{v}"
            );
        }
        assert_eq!(Q::key(0.0f64.split().unwrap()), 0);
        assert_eq!(Q::key((-0.0f64).split().unwrap()), 0);
        assert!(f64::NAN.split().is_none());
    }

    #[test]
    fn normalize_counts_leading_zeros() {
        let mut r = Rng(41);
        for i in 0..100_000 {
            let m = (r.next_u64() >> (i % 64)).max(1);
            assert_eq!(
                sealed::normalize(m),
                (m << m.leading_zeros(), m.leading_zeros())
            );
        }
    }

    #[test]
    fn scaled_rank_rounds_as_f64() {
        let mut r = Rng(17);
        let qs = [
            0.0,
            -0.0,
            1.0,
            0.5,
            0.9,
            0.99,
            0.999,
            0.29,
            1e-300,
            5e-324,
            1.0 - f64::EPSILON / 2.0,
        ];
        for i in 0..300_000u32 {
            let q = if i % 4 == 0 {
                qs[(i / 4) as usize % qs.len()]
            } else {
                r.next_f64()
            };
            // Counts of every size, with short mantissas (ties) common.
            let width = r.next_u64() % 65;
            let mut m = if width == 0 {
                0
            } else {
                r.next_u64() >> (64 - width)
            };
            if i % 3 == 0 {
                m &= !((1u64 << (width / 2)) - 1);
            }
            assert_eq!(scaled_rank_int(q, m), (q * m as f64) as u64, "{q:e} · {m}");
        }
        for m in [
            u64::MAX,
            u64::MAX - 1,
            1 << 53,
            (1 << 53) + 1,
            (1 << 54) + 3,
        ] {
            for q in qs {
                assert_eq!(scaled_rank_int(q, m), (q * m as f64) as u64, "{q:e} · {m}");
            }
        }
    }

    #[test]
    fn search_index_equals_coarse_index() {
        fn check<const S: usize>(r: &mut Rng) {
            for _ in 0..3_000 {
                let f = r.next_u64();
                assert_eq!(
                    QuantileSketch::<S, 1>::search_index(f),
                    QuantileSketch::<S, 1>::coarse_index(f)
                );
            }
            for j in 0..S {
                let t = threshold(j, S);
                for f in [t, t.saturating_sub(1), t + 1] {
                    assert_eq!(
                        QuantileSketch::<S, 1>::search_index(f),
                        QuantileSketch::<S, 1>::coarse_index(f)
                    );
                }
            }
        }
        let mut r = Rng(23);
        check::<1>(&mut r);
        check::<35>(&mut r);
        check::<178>(&mut r);
        check::<1_000>(&mut r);
    }

    #[test]
    fn representatives_are_rounded_once() {
        // rep·2^53 = 2lu·2^21/(l + u) by u128 division, rounded to 53 bits (to nearest, ties to
        // even): an independent computation of what `rep_bits` finds by long division.
        fn check(sub: usize) {
            for j in 0..sub {
                let l = (1u64 << 32) + u64::from(bound32(j, sub));
                let u = if j + 1 < sub {
                    (1u64 << 32) + u64::from(bound32(j + 1, sub))
                } else {
                    1 << 33
                };
                let num = (u128::from(l) * u128::from(u)) << 22;
                let (wide, r) = (num / u128::from(l + u), num % u128::from(l + u));
                assert!(wide >> 53 == 1, "{j} of {sub}");
                let (kept, half) = ((wide >> 1) as u64, wide & 1 == 1);
                let mantissa = kept + u64::from(half && (r != 0 || kept & 1 == 1));
                let want = f64::from_bits((1022 << 52) + mantissa);
                assert_eq!(rep_bits(l, u), want.to_bits(), "{j} of {sub}");
                // Within the bucket, and within 2^-52 of the f64 formula.
                let (lf, uf) = bounds(j, sub);
                assert!(lf <= want && want < uf);
                let formula = 2.0 * lf * uf / (lf + uf);
                assert!((want - formula).abs() <= 2.0 * f64::EPSILON, "{j} of {sub}");
            }
        }
        for sub in [1, 2, 8, 35, 178, 1_000, MAX_SUB] {
            check(sub);
        }
    }

    #[test]
    fn before_is_less_than() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -1.0,
            -f64::MIN_POSITIVE,
            -5e-324,
            -0.0,
            0.0,
            5e-324,
            1.0,
            1.5,
            1e300,
            f64::INFINITY,
        ];
        for &a in &xs {
            for &b in &xs {
                assert_eq!(before(a, b), a < b, "{a} {b}");
            }
        }
    }

    #[test]
    fn coarse_lookup_equals_the_linear_scan() {
        fn check<const S: usize>(r: &mut Rng) {
            for _ in 0..3_000 {
                let x = f64::from_bits((1023u64 << 52) | (r.next_u64() >> 12));
                let k = QuantileSketch::<S, 1>::key(x.split().unwrap());
                assert_eq!(k, key_of(x, S), "{x} at SUB {S}");
            }
            // Every bound itself, and just below it.
            for j in 1..S {
                let t = threshold(j, S);
                for frac in [t, t - 1] {
                    let s = sealed::Split {
                        negative: false,
                        octave: 1023,
                        frac,
                    };
                    let expected = 1023 * S as i64 + j as i64 - i64::from(frac < t);
                    assert_eq!(
                        QuantileSketch::<S, 1>::key(s),
                        expected,
                        "bound {j} at SUB {S}"
                    );
                }
            }
        }
        let mut r = Rng(21);
        check::<1>(&mut r);
        check::<35>(&mut r);
        check::<178>(&mut r);
        check::<1_000>(&mut r);
    }

    #[test]
    fn every_bucket_reports_within_alpha_of_its_edges() {
        type Q = QuantileSketch<35, 8>;
        for o in [1u64, 1000, 1023, 1050, 2046] {
            for j in 0..35u64 {
                let k = (o * 35 + j) as i64;
                let v = Q::value_of(k);
                let (l, u) = bounds(j as usize, 35);
                let scale = f64::from_bits(o << 52);
                for edge in [l * scale, u * scale * (1.0 - f64::EPSILON)] {
                    if edge.is_finite() {
                        assert!((v - edge).abs() <= Q::ALPHA * edge, "{k}");
                        assert_eq!(Q::key(edge.split().unwrap()), k, "{k} {edge}");
                    }
                }
                assert_eq!(Q::value_of(-k), -v);
            }
        }
    }

    #[test]
    fn quantiles_within_alpha_of_sorted_values() {
        let mut r = Rng(11);
        let mut q = QuantileSketch::<35, 1_047>::new();
        let mut values = Vec::new();
        for _ in 0..20_000 {
            let v = (r.next_f64() * 20.0).exp();
            q.insert(v);
            values.push(v);
        }
        values.sort_by(f64::total_cmp);
        check(&q, &values);
        assert!(!q.is_collapsed());

        // Negative, zero and positive, integers.
        let mut q = QuantileSketch::<35, 1_047, u16>::new();
        let mut values = Vec::new();
        for _ in 0..20_000 {
            let v = (r.next_u64() % 2_000_001) as i64 - 1_000_000;
            let v = if v.abs() < 100 { 0 } else { v };
            q.insert(v);
            values.push(v as f64);
        }
        values.sort_by(f64::total_cmp);
        check(&q, &values);
        assert!(!q.is_collapsed());
    }

    /// `Layout::clip` as it was written before the windows shared `clip_window` (each case of each
    /// window spelled out): the model the shared form is checked against.
    fn clip_model(mut l: Layout, f: i32, zero: bool) -> Layout {
        if f <= l.floor {
            return l;
        }
        l.floor = f;
        let mut lowered = false;
        if l.neg_len > 0 {
            let hi = l.neg_lo + l.neg_len - 1;
            if f <= l.neg_lo {
            } else if f <= hi {
                l.neg_len = hi - f + 1;
                l.neg_lo = f;
            } else if f < 0 {
                l.neg_lo = f;
                l.neg_len = 1;
            } else {
                l.neg_len = 0;
                lowered = true;
            }
        }
        if f > 0 {
            lowered |= zero;
            if l.pos_len > 0 {
                let hi = l.pos_lo + l.pos_len - 1;
                if f < l.pos_lo {
                    if lowered {
                        l.pos_len += l.pos_lo - f;
                        l.pos_lo = f;
                    }
                } else if f <= hi {
                    l.pos_len = hi - f + 1;
                    l.pos_lo = f;
                } else {
                    l.pos_lo = f;
                    l.pos_len = 1;
                }
            } else if lowered {
                l.pos_lo = f;
                l.pos_len = 1;
            }
        }
        l
    }

    #[test]
    fn clip_equals_the_case_by_case_model() {
        // Every window of up to 3 buckets among keys −6 … −1 and 1 … 6 (an empty window starts at
        // 0), every floor from −8 to 8 over several old floors, with and without a zero count.
        let windows = |sign: i32| {
            let mut w = vec![(0, 0)];
            for lo in 1..=6 {
                for len in 1..=3 {
                    if lo + len - 1 <= 6 {
                        w.push(if sign < 0 {
                            (-(lo + len - 1), len)
                        } else {
                            (lo, len)
                        });
                    }
                }
            }
            w
        };
        let mut cases = 0;
        for (neg_lo, neg_len) in windows(-1) {
            for (pos_lo, pos_len) in windows(1) {
                for floor in [NO_FLOOR, -7, -3, 0, 2, 5] {
                    let l = Layout {
                        neg_lo,
                        neg_len,
                        pos_lo,
                        pos_len,
                        floor,
                    };
                    for f in -8..=8 {
                        for zero in [false, true] {
                            let (got, want) = (l.clip(f, zero), clip_model(l, f, zero));
                            // The model left the start of an emptied window as it was (`relayout`
                            // wrote 0 there); the shared form writes 0 itself.
                            let empty_at_0 = |w: Layout| Layout {
                                neg_lo: if w.neg_len > 0 { w.neg_lo } else { 0 },
                                pos_lo: if w.pos_len > 0 { w.pos_lo } else { 0 },
                                ..w
                            };
                            assert_eq!(got, empty_at_0(want), "{l:?} f {f} zero {zero}");
                            assert_eq!(got, empty_at_0(got), "{l:?} f {f} zero {zero}");
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(cases, 16 * 16 * 6 * 17 * 2);
    }

    #[test]
    fn collapse_keeps_upper_quantiles() {
        let mut r = Rng(3);
        // Two octaves of buckets for values over 40 octaves, negatives included.
        let mut q = QuantileSketch::<35, 70>::new();
        let mut values = Vec::new();
        for _ in 0..5_000 {
            let mag = (r.next_f64() * 40.0 * core::f64::consts::LN_2).exp();
            let v = if r.next_u64().is_multiple_of(4) {
                -mag
            } else {
                mag
            };
            q.insert(v);
            values.push(v);
        }
        values.sort_by(f64::total_cmp);
        assert!(q.is_collapsed());
        let floor = q.collapsed_below().unwrap();
        let n = values.len();
        let mut checked = 0;
        for i in 0..=1000 {
            let p = i as f64 / 1000.0;
            let est = q.quantile(p).unwrap();
            let truth = values[(p * (n - 1) as f64) as usize];
            if est > floor {
                assert!((est - truth).abs() <= q.error_bound() * truth.abs(), "{p}");
                checked += 1;
            }
        }
        // The top two of 40 octaves, for the 3/4 of values that are positive: about 37 of 1,001.
        assert!(checked > 25, "{checked}");
        assert_eq!(q.count(), n as u64);
        assert_eq!((q.min(), q.max()), (Some(values[0]), Some(values[n - 1])));
    }

    /// The quantile by the walk from the bottom alone (the rank definition, written out).
    fn quantile_from_bottom<const S: usize, const B: usize, C: Counter>(
        s: &QuantileSketch<S, B, C>,
        q: f64,
    ) -> Option<f64> {
        if s.count == 0 || !(0.0..=1.0).contains(&q) {
            return None;
        }
        let rank = (q * (s.count - 1) as f64) as u64;
        if rank == 0 {
            return Some(s.min);
        }
        if rank >= s.count - 1 {
            return Some(s.max);
        }
        let mut seen = 0u64;
        for i in 0..s.bucket_count() {
            let (k, n) = s.bucket(i);
            seen = seen.saturating_add(n);
            if seen > rank {
                let v = QuantileSketch::<S, B, C>::value_of(i64::from(k));
                return Some(v.clamp(s.min, s.max));
            }
        }
        Some(s.max)
    }

    #[test]
    fn walks_from_either_end_agree() {
        fn check<const S: usize, const B: usize, C: Counter>(s: &QuantileSketch<S, B, C>) {
            for i in 0..=2_000 {
                let q = f64::from(i) / 2_000.0;
                assert_eq!(s.quantile(q), quantile_from_bottom(s, q), "q {q}");
            }
            for q in [
                0.999,
                0.9999,
                0.99999,
                1.0 - f64::EPSILON,
                0.5,
                0.5 + f64::EPSILON,
            ] {
                assert_eq!(s.quantile(q), quantile_from_bottom(s, q), "q {q}");
            }
        }
        let mut r = Rng(31);
        // Negative, zero and positive values, heavy repeats; one that collapses; u16 counters that
        // saturate; u64 counters whose count stops at 2^64 − 1.
        let mut a = QuantileSketch::<35, 1_047>::new();
        let mut c = QuantileSketch::<35, 70>::new();
        let mut d = QuantileSketch::<35, 200, u16>::new();
        for _ in 0..20_000 {
            let mag = (r.next_f64() * 30.0).exp();
            let v = if r.next_u64().is_multiple_of(5) {
                -mag
            } else {
                mag
            };
            let v = if r.next_u64().is_multiple_of(7) {
                0.0
            } else {
                v
            };
            a.insert(v);
            c.insert(v);
            d.add(v, r.next_u64() % 40);
        }
        assert!(c.is_collapsed() && d.is_saturated());
        check(&a);
        check(&c);
        check(&d);
        let mut e = QuantileSketch::<35, 64, u64>::new();
        e.add(3u32, u64::MAX - 5);
        e.add(9u32, 100);
        e.add(1u32, 50);
        assert_eq!(e.count(), u64::MAX);
        check(&e);
        for n in 1..6u32 {
            let mut f = QuantileSketch::<35, 64>::new();
            for v in 0..n {
                f.insert(v * 10);
            }
            check(&f);
        }
    }

    /// The sum of the buckets' counts, computed afresh.
    fn bucket_sum<const S: usize, const B: usize, C: Counter>(q: &QuantileSketch<S, B, C>) -> u128 {
        (0..q.bucket_count())
            .map(|i| u128::from(q.bucket(i).1))
            .sum()
    }

    #[test]
    fn the_count_is_the_buckets_sum_through_saturation_collapse_and_merges() {
        // Found by a user: with the count stopped at 2^64 − 1 while the buckets held more, a
        // collapse took off more than the count had, and the next one underflowed (a panic with
        // overflow checks, a wrapped count without); such a sketch's bytes did not decode either.
        let mut o = QuantileSketch::<4, 6, u16>::new();
        o.add(2.0f64, 65_535);
        let mut q = QuantileSketch::<4, 6, u16>::new();
        q.add(0.0f64, u64::MAX);
        q.merge(&o).unwrap();
        q.insert(4.0f64);
        q.insert(1.0f64);
        q.insert(3e8f64);
        assert_eq!(u128::from(q.count()), bucket_sum(&q));
        assert_eq!(q.count(), u64::MAX);
        assert!(q.is_saturated());

        // Random adds of every size (some near 2^64), merges and collapses, on small u16 windows
        // and on u64 counters: after every step the count is the sum of the buckets.
        fn run<const S: usize, const B: usize, C: Counter>(seed: u64) {
            let mut r = Rng(seed);
            let mut q = QuantileSketch::<S, B, C>::new();
            for step in 0..3_000 {
                let v = match r.next_u64() % 4 {
                    0 => 0.0,
                    1 => -((r.next_f64() * 40.0).exp()),
                    _ => (r.next_f64() * 40.0).exp(),
                };
                let n = match r.next_u64() % 5 {
                    0 => u64::MAX - r.next_u64() % 3,
                    1 => r.next_u64() >> (r.next_u64() % 64),
                    _ => r.next_u64() % 70_000,
                };
                if step % 7 == 0 {
                    let mut other = QuantileSketch::<S, B, C>::new();
                    other.add(v, n);
                    other.insert(-v * 3.0);
                    q.merge(&other).unwrap();
                } else {
                    q.add(v, n);
                }
                assert_eq!(u128::from(q.count()), bucket_sum(&q), "step {step}");
                if step % 500 == 499 {
                    q.clear();
                }
            }
        }
        run::<4, 6, u16>(1);
        run::<35, 70, u16>(2);
        run::<8, 12, u64>(3);
        run::<35, 1_047, u32>(4);
    }

    #[test]
    fn merge_equals_one_sketch_and_order_does_not_matter() {
        let mut r = Rng(9);
        let mut parts: Vec<QuantileSketch<35, 200>> =
            (0..6).map(|_| QuantileSketch::new()).collect();
        let mut all = QuantileSketch::<35, 200>::new();
        for i in 0..30_000 {
            let v = (r.next_f64() * 8.0).exp() - 20.0;
            parts[i % 6].insert(v);
            all.insert(v);
        }
        let mut a = QuantileSketch::<35, 200>::new();
        for p in &parts {
            a.merge(p).unwrap();
        }
        let mut b = QuantileSketch::<35, 200>::new();
        for p in parts.iter().rev() {
            b.merge(p).unwrap();
        }
        assert_eq!(a.count(), all.count());
        assert_eq!(a.layout(), all.layout());
        assert_eq!(a.counts, all.counts);
        assert_eq!(b.counts, all.counts);
        assert_eq!(b.layout(), all.layout());
        assert_eq!((a.min, a.max, a.zero), (all.min, all.max, all.zero));
    }
}
