//! [`Sketch`]: what every sketch of the crate does the same way, for code generic over sketches (a
//! host merging what a fleet of devices sends, a benchmark driving every sketch alike).

use crate::counter::{Counter, UpdatePolicy};
use crate::error::MergeError;
use crate::owned::OwnedKey;
use crate::{
    BlockedBloom, Bloom, CountMin, CountingBloom, DeviceHll, HyperLogLog, MicroBloom, MicroBloom32,
    SpaceSaving, TopK,
};

mod sealed {
    pub trait Sealed {}
}

/// The operations every sketch has, under the same names and with the same return types as its
/// inherent methods: [`merge`](Sketch::merge), [`seed`](Sketch::seed), [`clear`](Sketch::clear).
/// Sealed: implemented by the crate's sketches only, so that methods can be added before 1.0. Every
/// sketch implements it, [`DeviceHll`] included, but three:
/// [`CuckooFilter`](crate::CuckooFilter) (two cuckoo filters cannot be merged: their fingerprints
/// would not fit in the buckets of one), [`QuantileSketch`](crate::QuantileSketch) (it hashes
/// nothing, so it has no seed; it merges with its inherent `merge`) and
/// [`RedisHll`](crate::RedisHll) (Redis's hash has one fixed seed; the same).
///
/// ```
/// use sketch_nostd::{hll::DeviceHll10, Bloom, Hll10, MergeError, Sketch};
///
/// /// Merges every device's sketch into the first one.
/// fn merge_fleet<S: Sketch + Clone>(sketches: &[S]) -> Result<Option<S>, MergeError> {
///     let Some((first, rest)) = sketches.split_first() else { return Ok(None) };
///     let mut merged = first.clone();
///     for s in rest {
///         merged.merge(s)?;
///     }
///     Ok(Some(merged))
/// }
///
/// let mut a = Hll10::with_seed(1);
/// let mut b = Hll10::with_seed(1);
/// a.insert("x");
/// b.insert("y");
/// let all = merge_fleet(&[a, b])?.unwrap();
/// assert_eq!(all.cardinality().round(), 2.0);
/// assert!(merge_fleet(&[Bloom::<4, 2>::with_seed(1), Bloom::with_seed(2)]).is_err());
///
/// // Devices' registers-only HyperLogLogs merge the same way.
/// let mut d = [DeviceHll10::with_seed(7), DeviceHll10::with_seed(7)];
/// d[0].insert("x");
/// d[1].insert("y");
/// assert_eq!(merge_fleet(&d)?.unwrap().cardinality().round(), 2.0);
/// assert!(merge_fleet(&[DeviceHll10::with_seed(7), DeviceHll10::with_seed(8)]).is_err());
/// # Ok::<(), MergeError>(())
/// ```
pub trait Sketch: sealed::Sealed {
    /// Adds `other`'s contents to this sketch; fails, leaving it unchanged, if the two cannot be
    /// combined (different seeds).
    ///
    /// # Errors
    /// [`MergeError`] if the sketches are incompatible.
    fn merge(&mut self, other: &Self) -> Result<(), MergeError>;
    /// The seed the sketch hashes with.
    fn seed(&self) -> u64;
    /// Empties the sketch, keeping its seed.
    fn clear(&mut self);
}

/// Implements [`Sketch`] by calling the type's inherent methods of the same names.
macro_rules! sketch {
    ($([$($g:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($g)*> sealed::Sealed for $t {}
        impl<$($g)*> Sketch for $t {
            #[inline]
            fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
                <$t>::merge(self, other)
            }
            #[inline]
            fn seed(&self) -> u64 {
                <$t>::seed(self)
            }
            #[inline]
            fn clear(&mut self) {
                <$t>::clear(self)
            }
        }
    )*};
}

sketch! {
    [const WORDS: usize, const K: u32] Bloom<WORDS, K>,
    [const BLOCKS: usize, const K: u32] BlockedBloom<BLOCKS, K>,
    [const WORDS: usize, const K: u32] CountingBloom<WORDS, K>,
    [const K: u32, const SEED: u64] MicroBloom<K, SEED>,
    [const K: u32, const SEED: u64] MicroBloom32<K, SEED>,
    [const W: usize, const D: usize, C: Counter, U: UpdatePolicy] CountMin<W, D, C, U>,
    [T: OwnedKey, const K: usize, const W: usize, const D: usize, C: Counter, U: UpdatePolicy] TopK<T, K, W, D, C, U>,
    [T: OwnedKey, const K: usize, C: Counter] SpaceSaving<T, K, C>,
    [const P: u8, const BYTES: usize] HyperLogLog<P, BYTES>,
    [const P: u8, const BYTES: usize] DeviceHll<P, BYTES>,
}
