//! The counters and update rules the counting sketches share: [`Counter`] is the cell type of
//! [`CountMin`](crate::CountMin)(crate::CountMin) and [`TopK`](crate::TopK) and the count type of
//! [`SpaceSaving`](crate::SpaceSaving) and [`QuantileSketch`](crate::QuantileSketch);
//! [`UpdatePolicy`] ([`Standard`] or [`Conservative`]) is the update rule of count-min and top-k.
//! [`countmin`](crate::countmin) re-exports all of them under their former paths.

use core::fmt;

mod sealed {
    pub trait Sealed {}
}

/// The counter types a [`CountMin`](crate::CountMin) can hold: `u8`, `u16`, `u32` and `u64` (sealed).
///
/// Counters saturate at their maximum instead of wrapping around, so a small counter type trades
/// range for memory without ever turning a large count into a small one: a `u8` sketch reports 255
/// for anything counted 255 times or more, and [`CountMin::is_saturated`](crate::CountMin::is_saturated) says so.
///
/// ```
/// use sketch_nostd::counter::Counter;
/// assert_eq!(<u8 as Counter>::from_u64(300), 255);
/// assert_eq!(200u8.saturating_inc(100), 255);
/// assert_eq!(<u16 as Counter>::MAX.to_u64(), 65_535);
/// ```
pub trait Counter:
    Copy + Ord + Default + fmt::Debug + Send + Sync + 'static + sealed::Sealed
{
    /// The zero count.
    const ZERO: Self;
    /// The largest count; counters stop here.
    const MAX: Self;
    /// The type's name, for diagnostics (`"u32"`).
    const NAME: &'static str;

    /// `v`, or [`MAX`](Self::MAX) if `v` does not fit.
    ///
    /// ```
    /// use sketch_nostd::counter::Counter;
    /// assert_eq!(<u16 as Counter>::from_u64(70_000), u16::MAX);
    /// ```
    fn from_u64(v: u64) -> Self;

    /// The count as a `u64` (lossless).
    ///
    /// ```
    /// use sketch_nostd::counter::Counter;
    /// assert_eq!(7u8.to_u64(), 7);
    /// ```
    fn to_u64(self) -> u64;

    /// `self + by`, stopping at [`MAX`](Self::MAX).
    ///
    /// ```
    /// use sketch_nostd::counter::Counter;
    /// assert_eq!(250u8.saturating_inc(10), 255);
    /// ```
    #[must_use]
    fn saturating_inc(self, by: Self) -> Self;

    /// `self / 2`, rounded down.
    ///
    /// ```
    /// use sketch_nostd::counter::Counter;
    /// assert_eq!(7u32.halved(), 3);
    /// ```
    #[must_use]
    fn halved(self) -> Self;
}

macro_rules! counter {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Counter for $t {
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;
            const NAME: &'static str = stringify!($t);
            #[inline]
            fn from_u64(v: u64) -> Self {
                <$t>::try_from(v).unwrap_or(<$t>::MAX)
            }
            #[inline]
            fn to_u64(self) -> u64 {
                u64::from(self)
            }
            #[inline]
            fn saturating_inc(self, by: Self) -> Self {
                self.saturating_add(by)
            }
            #[inline]
            fn halved(self) -> Self {
                self >> 1
            }
        }
    )*};
}
counter!(u8, u16, u32, u64);

/// How an addition changes a key's counters: the value of an [`UpdatePolicy`]'s `RULE`, which is
/// how a [`CountMin`](crate::CountMin) type chooses it (see [`CountMin::RULE`](crate::CountMin::RULE)).
///
/// ```
/// use sketch_nostd::{counter::{Conservative, UpdateRule}, CountMin};
/// assert_eq!(CountMin::<64, 3, u32, Conservative>::RULE, UpdateRule::Conservative);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UpdateRule {
    /// Add the count to the key's counter in every row (Cormode–Muthukrishnan).
    Standard,
    /// Raise only the key's counters that are below its new estimate, to that estimate
    /// (Estan–Varghese). Much smaller overestimates; counts can never be taken back.
    Conservative,
}

/// The update rule a [`CountMin`](crate::CountMin) type uses by default: [`Standard`] or [`Conservative`] (sealed).
///
/// ```
/// use sketch_nostd::counter::{Conservative, UpdatePolicy, UpdateRule};
/// assert_eq!(Conservative::RULE, UpdateRule::Conservative);
/// ```
pub trait UpdatePolicy:
    Copy + Default + fmt::Debug + PartialEq + Eq + Send + Sync + 'static + sealed::Sealed
{
    /// The rule [`CountMin::add`](crate::CountMin::add) applies.
    const RULE: UpdateRule;
}

/// Type-level choice of [`UpdateRule::Standard`]: merges of standard sketches equal the sketch of
/// both streams exactly.
///
/// ```
/// use sketch_nostd::{counter::Standard, CountMin};
/// let cm = CountMin::<64, 3, u32, Standard>::new();
/// assert!(!cm.is_conservative());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Standard;

/// Type-level choice of [`UpdateRule::Conservative`], the default of [`CountMin`](crate::CountMin) and
/// [`TopK`](crate::TopK): much smaller overestimates.
///
/// ```
/// use sketch_nostd::{counter::Conservative, CountMin};
/// let cm = CountMin::<64, 3, u32, Conservative>::new();
/// assert!(cm.is_conservative());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Conservative;

impl sealed::Sealed for Standard {}
impl sealed::Sealed for Conservative {}
impl UpdatePolicy for Standard {
    const RULE: UpdateRule = UpdateRule::Standard;
}
impl UpdatePolicy for Conservative {
    const RULE: UpdateRule = UpdateRule::Conservative;
}
