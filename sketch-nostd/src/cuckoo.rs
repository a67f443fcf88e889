//! The cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher, "Cuckoo Filter: Practically Better Than
//! Bloom", CoNEXT 2014): a membership filter that stores short fingerprints and supports delete.
//!
//! Each key has a fingerprint `f` (8 or 16 bits, never 0) and two candidate buckets of four slots;
//! it lives in one of them. A lookup compares `f` with the eight slots of the two buckets; a false
//! positive happens when another key's fingerprint in those buckets equals `f`, so the rate is at most
//! about 8/2^f (2·b/2^f for b = 4 slots): 3.1% for 8-bit and 0.012% for 16-bit fingerprints, at
//! `f / load` bits per key (16.8 for 16-bit fingerprints at 95% load). When both buckets are full, a
//! random resident is kicked to its other bucket, possibly kicking another, up to [`MAX_KICKS`] times.
//!
//! # Partial-key cuckoo hashing without division
//!
//! The other bucket must be computable from a bucket and the fingerprint alone (the key is gone).
//! The paper uses `i2 = i1 XOR hash(f)`, which needs a power-of-two bucket count. Here the bucket
//! count is any `BUCKETS`, and the other bucket is `i2 = (hash(f) − i1) mod BUCKETS` with
//! `hash(f) = reduce(mix32(f), BUCKETS)` ([`mix32`], [`reduce`]): applied twice it gives `i1` back, the
//! subtraction needs one conditional add instead of a division, and the filter can be sized to the
//! load it is meant to hold rather than to the next power of two (up to half the memory saved).

use core::fmt;

use crate::error::{CapacityError, PartsError, RemoveError};
use crate::hash::{hash64, mix32, reduce, Key};

/// The most times an insert moves a resident fingerprint to its other bucket before it gives up and
/// parks the last one in the victim slot (the reference implementation's `kMaxCuckooCount`).
pub const MAX_KICKS: u32 = 500;

/// Slots per bucket.
pub const SLOTS: usize = 4;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
}

/// A fingerprint width: `u8` (8 bits, ≤ 3.1% false positives) or `u16` (16 bits, ≤ 0.012%).
/// Sealed; the lane operations on a bucket are internal.
///
/// ```
/// use sketch_nostd::cuckoo::Fingerprint;
/// assert_eq!(<u8 as Fingerprint>::BITS, 8);
/// assert_eq!(<u16 as Fingerprint>::BITS, 16);
/// ```
pub trait Fingerprint:
    sealed::Sealed + Copy + Eq + core::hash::Hash + core::fmt::Debug + Send + Sync + 'static
{
    /// Width of a fingerprint in bits.
    const BITS: u32;
    /// One bucket: four fingerprints, slot `s` in bits `s·BITS..(s + 1)·BITS` (`u32` for `u8`,
    /// `u64` for `u16`). 0 is an empty slot.
    type Bucket: Copy + Eq + core::hash::Hash + core::fmt::Debug + Default + Send + Sync + 'static;

    /// The largest fingerprint, 2^BITS − 1.
    #[doc(hidden)]
    const MAX: u32;
    /// An empty bucket.
    #[doc(hidden)]
    const EMPTY: Self::Bucket;
    /// The fingerprint in `slot` (0 if empty).
    #[doc(hidden)]
    fn slot(bucket: Self::Bucket, slot: u32) -> u32;
    /// The bucket with `slot` set to `fp`.
    #[doc(hidden)]
    fn with_slot(bucket: Self::Bucket, slot: u32, fp: u32) -> Self::Bucket;
    /// `true` if a slot holds `fp` (`fp` ≠ 0).
    #[doc(hidden)]
    fn has(bucket: Self::Bucket, fp: u32) -> bool;
    /// The first slot holding `fp` (0 finds the first empty slot).
    #[doc(hidden)]
    fn find(bucket: Self::Bucket, fp: u32) -> Option<u32>;
    /// Number of non-empty slots.
    #[doc(hidden)]
    fn occupied(bucket: Self::Bucket) -> u32;
    /// The fingerprint as a `u32`.
    #[doc(hidden)]
    fn to_u32(self) -> u32;
    /// The low `BITS` bits of `x`.
    #[doc(hidden)]
    fn from_u32(x: u32) -> Self;
    /// Bucket `i` of a dense wire body (every slot's fingerprint, little-endian, bucket after
    /// bucket); `None` past the end.
    #[doc(hidden)]
    fn read_bucket(body: &[u8], i: u32) -> Option<Self::Bucket>;
}

/// [`Fingerprint`] for `$fp`, four lanes in a `$word` bucket, with the SWAR constants `LOW` (the
/// low bit of every lane) and `HIGH` (the top bit of every lane).
macro_rules! lanes {
    ($fp:ty, $word:ty, LOW = $low:expr, HIGH = $high:expr) => {
        const _: () = {
            const LOW: $word = $low;
            const HIGH: $word = $high;

            /// The top bit of each lane that is zero (exact for the lowest zero lane; lanes above
            /// a zero lane may be flagged wrongly, which `has` and `find` do not depend on).
            #[inline(always)]
            const fn zero_lanes(x: $word) -> $word {
                x.wrapping_sub(LOW) & !x & HIGH
            }

            impl Fingerprint for $fp {
                const BITS: u32 = <$fp>::BITS;
                type Bucket = $word;
                const MAX: u32 = <$fp>::MAX as u32;
                const EMPTY: $word = 0;

                #[inline(always)]
                fn slot(bucket: $word, slot: u32) -> u32 {
                    ((bucket >> (slot * Self::BITS)) as $fp).into()
                }

                #[inline(always)]
                fn with_slot(bucket: $word, slot: u32, fp: u32) -> $word {
                    let shift = slot * Self::BITS;
                    (bucket & !(<$word>::from(<$fp>::MAX) << shift))
                        | (<$word>::from(fp as $fp) << shift)
                }

                #[inline(always)]
                fn read_bucket(body: &[u8], i: u32) -> Option<$word> {
                    // Slot `s` is in bits `s·BITS..`, so the slots' little-endian bytes in order
                    // are the bucket's little-endian bytes.
                    body.as_chunks::<{ core::mem::size_of::<$word>() }>()
                        .0
                        .get(i as usize)
                        .map(|&b| <$word>::from_le_bytes(b))
                }

                #[inline(always)]
                fn has(bucket: $word, fp: u32) -> bool {
                    zero_lanes(bucket ^ (LOW * <$word>::from(fp as $fp))) != 0
                }

                #[inline(always)]
                fn find(bucket: $word, fp: u32) -> Option<u32> {
                    // The lowest flagged lane of `zero_lanes` is always a true zero lane.
                    let z = zero_lanes(bucket ^ (LOW * <$word>::from(fp as $fp)));
                    if z == 0 {
                        None
                    } else {
                        Some(z.trailing_zeros() / Self::BITS)
                    }
                }

                #[inline(always)]
                fn occupied(bucket: $word) -> u32 {
                    // The top bit of a lane is set iff the lane is non-zero: its low bits plus
                    // all-ones below the top carry into it, or its own top bit was set.
                    let low = !HIGH;
                    (((bucket & low).wrapping_add(low) | bucket) & HIGH).count_ones()
                }

                #[inline(always)]
                fn to_u32(self) -> u32 {
                    self.into()
                }

                #[inline(always)]
                fn from_u32(x: u32) -> Self {
                    x as $fp
                }
            }
        };
    };
}

lanes!(u8, u32, LOW = 0x0101_0101, HIGH = 0x8080_8080);
lanes!(
    u16,
    u64,
    LOW = 0x0001_0001_0001_0001,
    HIGH = 0x8000_8000_8000_8000
);

/// A key's first bucket and its fingerprint (`1..=2^BITS − 1`) in a filter of `b` buckets: the low
/// hash half reduced to the bucket, the high half to the fingerprint.
#[inline(always)]
fn locate<F: Fingerprint>(hash: u64, b: u32) -> (u32, u32) {
    let bucket = reduce(hash as u32, b);
    let fp = 1 + reduce((hash >> 32) as u32, F::MAX);
    (bucket, fp)
}

/// The other bucket of a fingerprint in bucket `i` of `b`: `(reduce(mix32(fp), b) − i) mod b`, an
/// involution (applying it twice gives `i` back).
#[inline(always)]
fn alt(i: u32, fp: u32, b: u32) -> u32 {
    let h = reduce(mix32(fp), b);
    if h >= i {
        h - i
    } else {
        h.wrapping_sub(i).wrapping_add(b)
    }
}

/// The lookup, shared by [`CuckooFilter::contains_hash`] and the zero-copy view
/// ([`CuckooFilterRef`](crate::wire::CuckooFilterRef)): whether the key hashed to `hash` has its
/// fingerprint in one of its two buckets (read with `bucket`) or in the victim slot
/// `(bucket, fingerprint)`, fingerprint 0 for none, of a filter of `b` buckets.
#[inline(always)]
pub(crate) fn lookup<F: Fingerprint>(
    hash: u64,
    b: u32,
    bucket: impl Fn(u32) -> F::Bucket,
    (victim_bucket, victim_fp): (u32, u32),
) -> bool {
    let (i1, fp) = locate::<F>(hash, b);
    let i2 = alt(i1, fp, b);
    // Both buckets are read whatever the first holds (branch-free, as the Bloom lookup).
    let in_buckets = F::has(bucket(i1), fp) | F::has(bucket(i2), fp);
    let in_victim = victim_fp == fp && (victim_bucket == i1 || victim_bucket == i2);
    in_buckets | in_victim
}

/// A cuckoo filter of `BUCKETS` buckets of four `F` fingerprints (`u16` by default), stored inline.
///
/// * [`insert`](Self::insert) places the key's fingerprint in one of its two buckets, kicking
///   residents to their other bucket when both are full. It fails with [`CapacityError`] only when the
///   filter is full, and then **changes nothing**: every key inserted before is still found.
/// * [`contains`](Self::contains) is never a false negative for a key inserted and not removed; a
///   false positive has probability about `8·load / (2^f − 1)` ([`estimated_fp_rate`](Self::estimated_fp_rate)).
/// * [`remove`](Self::remove) deletes one copy of the key's fingerprint. Only remove keys that were
///   inserted: a never-inserted key with the same fingerprint and buckets as a member (a false
///   positive) would delete the member's fingerprint instead, and the member would be reported absent.
/// * The same key can be inserted several times (up to 8 copies fit in its two buckets) and is then
///   present until removed as many times: the filter holds a multiset.
///
/// # Full filters and the victim slot
///
/// When [`MAX_KICKS`] moves do not free a slot, the fingerprint that was kicked last is kept in a
/// one-entry victim slot (as in the reference implementation) and the insert succeeds: nothing is ever
/// dropped. While the victim slot is taken, an insert whose two buckets are both full is refused with
/// [`CapacityError`] before anything moves; a [`remove`](Self::remove) frees room and tries to put the
/// victim back into the buckets. A filter holds `4·BUCKETS` fingerprints plus the victim; inserts
/// start failing above about 95% load.
///
/// # Hashing
///
/// One xxh3-64 hash per key ([`hash64`] with the seed): bucket `i1 = reduce(low 32 bits, BUCKETS)`,
/// fingerprint `f = 1 + reduce(high 32 bits, 2^BITS − 1)` (never 0, which marks an empty slot), other
/// bucket `i2 = (reduce(mix32(f), BUCKETS) − i1) mod BUCKETS` (see the [module docs](self)). The kick
/// sequence comes from a xorshift32 generator seeded from the key's hash, so the filter's content is a
/// function of its seed and the sequence of operations: identical on every target, with no generator
/// state to store or transmit.
///
/// # Memory
///
/// `size_of::<CuckooFilter<BUCKETS, F>>()` is `4·BUCKETS·size_of::<F>() + 20` (buckets, seed, length,
/// victim bucket and fingerprint) rounded up to a multiple of 8: `8·BUCKETS + 24` for `u16`. Size it
/// with [`sizing::cuckoo_buckets_for`](crate::sizing::cuckoo_buckets_for).
///
/// ```
/// use sketch_nostd::{sizing::{cuckoo_buckets_for, CUCKOO_MAX_LOAD}, CuckooFilter};
///
/// // 1,000 open connections at 0.012% false positives: 264 buckets, 2,136 bytes.
/// type Open = CuckooFilter<{ cuckoo_buckets_for(1_000, CUCKOO_MAX_LOAD) }>;
/// assert_eq!(core::mem::size_of::<Open>(), 264 * 8 + 24);
/// let mut open = Open::with_seed(7);
/// open.insert("10.0.0.1:443")?;
/// open.insert("10.0.0.2:443")?;
/// assert!(open.contains("10.0.0.1:443"));
/// assert!(open.remove("10.0.0.1:443").is_ok());
/// assert!(!open.contains("10.0.0.1:443")); // with probability ≈ 99.99%
/// assert!(open.contains("10.0.0.2:443"));
/// assert_eq!(open.len(), 1);
/// # Ok::<(), sketch_nostd::CapacityError>(())
/// ```
///
/// A filter without buckets does not compile:
///
/// ```compile_fail,E0080
/// let _ = sketch_nostd::CuckooFilter::<0>::new();
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CuckooFilter<const BUCKETS: usize, F: Fingerprint = u16> {
    buckets: [F::Bucket; BUCKETS],
    seed: u64,
    len: u32,
    /// 0 when there is no victim, so that equal contents compare equal.
    victim_bucket: u32,
    /// 0: no victim.
    victim_fp: u32,
}

impl<const BUCKETS: usize, F: Fingerprint> CuckooFilter<BUCKETS, F> {
    /// Number of buckets.
    pub const BUCKETS: usize = BUCKETS;
    /// Fingerprint slots, `4·BUCKETS` (the victim slot is one more, for emergencies).
    pub const CAPACITY: usize = SLOTS * BUCKETS;
    /// Width of a fingerprint in bits.
    pub const FINGERPRINT_BITS: u32 = F::BITS;

    /// `BUCKETS` as the `u32` that index reduction works with.
    const B: u32 = {
        assert!(BUCKETS > 0, "a cuckoo filter needs at least one bucket");
        assert!(
            BUCKETS < 1 << 30,
            "a cuckoo filter has fewer than 2^30 buckets (its length is a u32)"
        );
        BUCKETS as u32
    };

    /// An empty filter with seed 0.
    ///
    /// ```
    /// let f = sketch_nostd::CuckooFilter::<16>::new();
    /// assert!(f.is_empty());
    /// assert_eq!(f.capacity(), 64);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Self::with_seed(0)
    }

    /// An empty filter whose hashes use `seed`.
    ///
    /// ```
    /// let f = sketch_nostd::CuckooFilter::<16, u8>::with_seed(5);
    /// assert_eq!(f.seed(), 5);
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        let _ = Self::B; // evaluates the parameter checks at compile time
        Self {
            buckets: [F::EMPTY; BUCKETS],
            seed,
            len: 0,
            victim_bucket: 0,
            victim_fp: 0,
        }
    }

    /// A filter from its raw parts, as produced by [`as_buckets`](Self::as_buckets),
    /// [`seed`](Self::seed) and [`victim`](Self::victim) (the storage, then the seed, as every
    /// `from_parts`). Every bucket content is valid (a fingerprint can sit in any bucket); the
    /// victim, if any, must name a bucket below `BUCKETS` and hold a non-zero fingerprint.
    ///
    /// ```
    /// use sketch_nostd::{CuckooFilter, PartsError};
    /// let mut a = CuckooFilter::<4, u8>::with_seed(3);
    /// a.insert("x")?;
    /// let b = CuckooFilter::<4, u8>::from_parts(*a.as_buckets(), a.seed(), a.victim()).unwrap();
    /// assert_eq!(a, b);
    /// assert_eq!(
    ///     CuckooFilter::<4, u8>::from_parts([0; 4], 0, Some((4, 1))),
    ///     Err(PartsError::BadVictim)
    /// );
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    ///
    /// # Errors
    /// [`PartsError::BadVictim`] for a victim in a bucket `≥ BUCKETS` or with fingerprint 0.
    pub fn from_parts(
        buckets: [F::Bucket; BUCKETS],
        seed: u64,
        victim: Option<(usize, F)>,
    ) -> Result<Self, PartsError> {
        let mut f = Self::with_seed(seed);
        f.load(
            seed,
            |b| {
                *b = buckets;
                Ok(victim)
            },
            |e| e,
        )?;
        Ok(f)
    }

    /// Replaces the buckets, the victim and the seed in place: `fill` writes the buckets (emptied
    /// first) and returns the victim, which is then checked as by [`from_parts`](Self::from_parts)
    /// (a refusal is turned into `E` by `invalid`). On any error the filter is left empty with its
    /// own seed. Crate-internal: for decoders that must not make a second filter-sized value.
    pub(crate) fn load<E>(
        &mut self,
        seed: u64,
        fill: impl FnOnce(&mut [F::Bucket; BUCKETS]) -> Result<Option<(usize, F)>, E>,
        invalid: impl FnOnce(PartsError) -> E,
    ) -> Result<(), E> {
        self.buckets.fill(F::EMPTY);
        (self.len, self.victim_bucket, self.victim_fp) = (0, 0, 0);
        let result = fill(&mut self.buckets).and_then(|victim| match victim {
            None => Ok((0, 0)),
            Some((bucket, fp)) if bucket < BUCKETS && fp.to_u32() != 0 => {
                Ok((bucket as u32, fp.to_u32()))
            }
            Some(_) => Err(invalid(PartsError::BadVictim)),
        });
        match result {
            Ok((bucket, fp)) => {
                (self.victim_bucket, self.victim_fp) = (bucket, fp);
                self.len =
                    self.buckets.iter().map(|&b| F::occupied(b)).sum::<u32>() + u32::from(fp != 0);
                self.seed = seed;
                Ok(())
            }
            Err(e) => {
                self.buckets.fill(F::EMPTY);
                Err(e)
            }
        }
    }

    /// The seed this filter hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::CuckooFilter::<1>::with_seed(3).seed(), 3);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// The buckets: four fingerprints each, slot `s` in bits `s·BITS..(s + 1)·BITS`, 0 for an empty
    /// slot.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<2, u8>::new();
    /// f.insert("a")?;
    /// assert_eq!(f.as_buckets().iter().map(|b| (b.count_ones() > 0) as u32).sum::<u32>(), 1);
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[must_use]
    pub fn as_buckets(&self) -> &[F::Bucket; BUCKETS] {
        &self.buckets
    }

    /// The victim slot: the bucket and fingerprint of the entry that did not fit, if any.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<1, u8>::new();
    /// for k in 0..4u32 { f.insert(&k)?; }
    /// assert_eq!(f.victim(), None);
    /// f.insert(&4u32)?; // five fingerprints in one bucket: one waits in the victim slot
    /// assert!(matches!(f.victim(), Some((0, fp)) if fp != 0));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[must_use]
    pub fn victim(&self) -> Option<(usize, F)> {
        (self.victim_fp != 0).then(|| (self.victim_bucket as usize, F::from_u32(self.victim_fp)))
    }

    /// Number of fingerprints stored (inserts minus removes, counting every copy of a key).
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<8>::new();
    /// f.insert("a")?;
    /// f.insert("a")?;
    /// assert_eq!(f.len(), 2);
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// `true` if the filter holds no fingerprint.
    ///
    /// ```
    /// assert!(sketch_nostd::CuckooFilter::<8>::new().is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Fingerprint slots, `4·BUCKETS` ([`CAPACITY`](Self::CAPACITY)). Inserts can start failing
    /// above about 95% of it.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::CuckooFilter::<100, u8>::new().capacity(), 400);
    /// ```
    #[must_use]
    pub const fn capacity(&self) -> usize {
        Self::CAPACITY
    }

    /// Fraction of the slots in use, `len / capacity` (slightly above 1.0 when the filter is full and
    /// the victim slot is taken).
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<1>::new();
    /// f.insert("a")?;
    /// assert_eq!(f.load_factor(), 0.25);
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[must_use]
    pub fn load_factor(&self) -> f64 {
        f64::from(self.len) / Self::CAPACITY as f64
    }

    /// The false-positive rate at the current load α: a never-inserted key is compared with the
    /// `8·α` fingerprints its two buckets hold on average, each equal to its own with probability
    /// 1/(2^f − 1), so the rate is 1 − (1 − 1/(2^f − 1))^(8α) ≈ 8α/2^f — about 2·b/2^f with b = 4
    /// slots for a full filter: 3.1% for `u8`, 0.012% for `u16`.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<64, u8>::new();
    /// assert_eq!(f.estimated_fp_rate(), 0.0);
    /// for k in 0..240u32 { f.insert(&k)?; }
    /// let p = f.estimated_fp_rate();
    /// assert!(p > 0.02 && p < 0.031, "{p}");
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[must_use]
    pub fn estimated_fp_rate(&self) -> f64 {
        let load = self.load_factor().min(1.0);
        let miss = 1.0 - 1.0 / f64::from(F::MAX);
        1.0 - libm::pow(miss, 2.0 * SLOTS as f64 * load)
    }

    /// Removes every fingerprint (and the victim), keeping the seed.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<8>::new();
    /// f.insert("a")?;
    /// f.clear();
    /// assert!(f.is_empty() && !f.contains("a"));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    pub fn clear(&mut self) {
        *self = Self::with_seed(self.seed);
    }

    /// The key's first bucket and fingerprint ([`locate`] with this filter's size).
    #[inline(always)]
    fn locate(hash: u64) -> (u32, u32) {
        locate::<F>(hash, Self::B)
    }

    /// The other bucket of a fingerprint in bucket `i` ([`alt`] with this filter's size).
    #[inline(always)]
    fn alt(i: u32, fp: u32) -> u32 {
        alt(i, fp, Self::B)
    }

    #[inline(always)]
    fn bucket(&self, i: u32) -> F::Bucket {
        debug_assert!((i as usize) < BUCKETS, "bucket {i} out of range");
        self.buckets.get(i as usize).copied().unwrap_or(F::EMPTY)
    }

    /// Puts `fp` in a free slot of bucket `i`; `false` if the bucket is full.
    #[inline(always)]
    fn place(&mut self, i: u32, fp: u32) -> bool {
        debug_assert!((i as usize) < BUCKETS, "bucket {i} out of range");
        if let Some(bucket) = self.buckets.get_mut(i as usize) {
            if let Some(slot) = F::find(*bucket, 0) {
                *bucket = F::with_slot(*bucket, slot, fp);
                return true;
            }
        }
        false
    }

    /// Inserts a key: stores its fingerprint in one of its two buckets, moving others if needed.
    ///
    /// ```
    /// use sketch_nostd::CuckooFilter;
    /// let mut f = CuckooFilter::<64>::new();
    /// f.insert(&7u32)?;
    /// assert!(f.contains(&7u32));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    ///
    /// # Errors
    /// [`CapacityError`] if the filter is full (both buckets full and the victim slot taken). The filter
    /// is then unchanged.
    #[inline]
    pub fn insert<Q: Key + ?Sized>(&mut self, key: &Q) -> Result<(), CapacityError> {
        self.insert_hash(hash64(key, self.seed))
    }

    /// [`insert`](Self::insert) by the key's 64-bit hash ([`hash64`] with this filter's seed).
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, CuckooFilter};
    /// let mut f = CuckooFilter::<64>::new();
    /// f.insert_hash(hash64("k", f.seed()))?;
    /// assert!(f.contains("k"));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    ///
    /// # Errors
    /// As [`insert`](Self::insert).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> Result<(), CapacityError> {
        let (i1, fp) = Self::locate(hash);
        if self.place(i1, fp) || self.place(Self::alt(i1, fp), fp) {
            self.len = self.len.saturating_add(1);
            return Ok(());
        }
        if self.victim_fp != 0 {
            return Err(CapacityError);
        }
        self.kick(i1, fp, mix32(hash as u32 ^ (hash >> 32) as u32));
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    /// Places `fp`, whose two buckets (`i` and its alternative) are full, by moving residents; parks
    /// the last one moved in the victim slot (which must be free) after [`MAX_KICKS`] moves.
    #[inline(never)]
    fn kick(&mut self, i: u32, fp: u32, rng: u32) {
        let mut rng = rng | 1;
        let mut next = xorshift32(&mut rng);
        let (mut i, mut fp) = if next & 0x8000_0000 == 0 {
            (i, fp)
        } else {
            (Self::alt(i, fp), fp)
        };
        for _ in 0..MAX_KICKS {
            next = xorshift32(&mut rng);
            let slot = next >> 30; // 0..4
            debug_assert!((i as usize) < BUCKETS, "bucket {i} out of range");
            let Some(bucket) = self.buckets.get_mut(i as usize) else {
                break;
            };
            let evicted = F::slot(*bucket, slot);
            *bucket = F::with_slot(*bucket, slot, fp);
            if evicted == 0 {
                return; // only with hand-made parts: the bucket had room
            }
            fp = evicted;
            i = Self::alt(i, fp);
            if self.place(i, fp) {
                return;
            }
        }
        self.victim_bucket = i;
        self.victim_fp = fp;
    }

    /// `false` if the key is definitely not in the filter, `true` if it may be.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<64>::new();
    /// f.insert("a")?;
    /// assert!(f.contains("a"));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
        self.contains_hash(hash64(key, self.seed))
    }

    /// [`contains`](Self::contains) for a hash computed by the caller.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<64>::new();
    /// f.insert_hash(0x1234_5678_9abc_def0)?;
    /// assert!(f.contains_hash(0x1234_5678_9abc_def0));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        lookup::<F>(
            hash,
            Self::B,
            |i| self.bucket(i),
            (self.victim_bucket, self.victim_fp),
        )
    }

    /// Removes one copy of a key's fingerprint; `true` if one was found.
    ///
    /// Only remove keys that were inserted: [`RemoveError::Absent`] means the key was definitely not
    /// in the filter (nothing changed), but success for a never-inserted key (a false positive)
    /// deletes a member's fingerprint, and that member is then reported absent.
    ///
    /// ```
    /// use sketch_nostd::{CuckooFilter, RemoveError};
    /// let mut f = CuckooFilter::<64>::new();
    /// f.insert("a")?;
    /// assert_eq!(f.remove("a"), Ok(()));
    /// assert_eq!(f.remove("a"), Err(RemoveError::Absent));
    /// assert!(f.is_empty());
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    #[inline]
    pub fn remove<Q: Key + ?Sized>(&mut self, key: &Q) -> Result<(), RemoveError> {
        self.remove_hash(hash64(key, self.seed))
    }

    /// [`remove`](Self::remove) for a hash computed by the caller.
    ///
    /// ```
    /// let mut f = sketch_nostd::CuckooFilter::<64>::new();
    /// f.insert_hash(42)?;
    /// assert_eq!(f.remove_hash(42), Ok(()));
    /// # Ok::<(), sketch_nostd::CapacityError>(())
    /// ```
    pub fn remove_hash(&mut self, hash: u64) -> Result<(), RemoveError> {
        let (i1, fp) = Self::locate(hash);
        let i2 = Self::alt(i1, fp);
        if self.victim_fp == fp && (self.victim_bucket == i1 || self.victim_bucket == i2) {
            (self.victim_bucket, self.victim_fp) = (0, 0);
            self.len = self.len.saturating_sub(1);
            return Ok(());
        }
        if !(self.take(i1, fp) || self.take(i2, fp)) {
            return Err(RemoveError::Absent);
        }
        self.len = self.len.saturating_sub(1);
        if self.victim_fp != 0 {
            // Room was made: give the victim another chance in the buckets.
            let (i, fp) = (self.victim_bucket, self.victim_fp);
            (self.victim_bucket, self.victim_fp) = (0, 0);
            if !(self.place(i, fp) || self.place(Self::alt(i, fp), fp)) {
                self.kick(i, fp, mix32(i ^ fp.rotate_left(16)));
            }
        }
        Ok(())
    }

    /// Empties the first slot of bucket `i` holding `fp`; `false` if none does.
    #[inline(always)]
    fn take(&mut self, i: u32, fp: u32) -> bool {
        debug_assert!((i as usize) < BUCKETS, "bucket {i} out of range");
        if let Some(bucket) = self.buckets.get_mut(i as usize) {
            if let Some(slot) = F::find(*bucket, fp) {
                *bucket = F::with_slot(*bucket, slot, 0);
                return true;
            }
        }
        false
    }
}

/// Shows the shape, the seed and the number of keys, not the buckets.
///
/// ```
/// let f = sketch_nostd::CuckooFilter::<64>::with_seed(3);
/// assert_eq!(format!("{f:?}"), "CuckooFilter { buckets: 64, fingerprint_bits: 16, seed: 3, len: 0, .. }");
/// ```
impl<const BUCKETS: usize, F: Fingerprint> fmt::Debug for CuckooFilter<BUCKETS, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CuckooFilter")
            .field("buckets", &BUCKETS)
            .field("fingerprint_bits", &F::BITS)
            .field("seed", &self.seed)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<const BUCKETS: usize, F: Fingerprint> Default for CuckooFilter<BUCKETS, F> {
    fn default() -> Self {
        Self::new()
    }
}

/// One step of Marsaglia's xorshift32 (state never 0); returns the new state.
#[inline(always)]
fn xorshift32(state: &mut u32) -> u32 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_buckets_plus_24_bytes() {
        assert_eq!(core::mem::size_of::<CuckooFilter<1, u16>>(), 8 + 24);
        assert_eq!(core::mem::size_of::<CuckooFilter<264, u16>>(), 264 * 8 + 24);
        assert_eq!(core::mem::size_of::<CuckooFilter<2, u8>>(), 2 * 4 + 24);
        assert_eq!(core::mem::size_of::<CuckooFilter<3, u8>>(), 3 * 4 + 20);
    }

    #[test]
    fn lanes_find_exactly() {
        for fp in [1u32, 2, 0x7f, 0x80, 0xff] {
            for slot in 0..4 {
                let b = <u8 as Fingerprint>::with_slot(0x0102_0304, slot, fp);
                assert_eq!(<u8 as Fingerprint>::slot(b, slot), fp);
                assert!(<u8 as Fingerprint>::has(b, fp));
                let first = (0..4).find(|&s| <u8 as Fingerprint>::slot(b, s) == fp);
                assert_eq!(<u8 as Fingerprint>::find(b, fp), first);
            }
        }
        for fp in [1u32, 0x100, 0x7fff, 0x8000, 0xffff] {
            for slot in 0..4 {
                let b = <u16 as Fingerprint>::with_slot(0x0001_0000_8000_ffff, slot, fp);
                assert_eq!(<u16 as Fingerprint>::slot(b, slot), fp);
                assert!(<u16 as Fingerprint>::has(b, fp));
                let first = (0..4).find(|&s| <u16 as Fingerprint>::slot(b, s) == fp);
                assert_eq!(<u16 as Fingerprint>::find(b, fp), first);
                let empty = (0..4).find(|&s| <u16 as Fingerprint>::slot(b, s) == 0);
                assert_eq!(<u16 as Fingerprint>::find(b, 0), empty);
            }
        }
        // Every 8-bit bucket with lanes from a small alphabet: has/find/occupied against a slow model.
        let vals = [0u32, 1, 0x7f, 0x80, 0x81, 0xff];
        for a in vals {
            for b in vals {
                for c in vals {
                    for d in vals {
                        let w = a | b << 8 | c << 16 | d << 24;
                        let lanes = [a, b, c, d];
                        assert_eq!(
                            <u8 as Fingerprint>::occupied(w),
                            lanes.iter().filter(|&&x| x != 0).count() as u32
                        );
                        for fp in vals {
                            let first = lanes.iter().position(|&x| x == fp).map(|p| p as u32);
                            assert_eq!(<u8 as Fingerprint>::find(w, fp), first, "{w:#x} {fp:#x}");
                            if fp != 0 {
                                assert_eq!(<u8 as Fingerprint>::has(w, fp), first.is_some());
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn alt_is_an_involution_in_range() {
        fn check<const B: usize>() {
            for fp in (1..=0xffffu32).step_by(97) {
                for i in (0..B as u32).step_by(1 + B / 50) {
                    let j = CuckooFilter::<B>::alt(i, fp);
                    assert!(j < B as u32);
                    assert_eq!(CuckooFilter::<B>::alt(j, fp), i);
                }
            }
        }
        check::<1>();
        check::<2>();
        check::<7>();
        check::<264>();
        check::<1000>();
        check::<4096>();
    }

    #[test]
    fn fingerprints_are_never_zero() {
        for h in [0u64, u64::MAX, 0xffff_ffff_0000_0000, 0x0000_0000_ffff_ffff] {
            let (i, fp) = CuckooFilter::<10, u8>::locate(h);
            assert!(i < 10 && (1..=255).contains(&fp));
            let (_, fp) = CuckooFilter::<10, u16>::locate(h);
            assert!((1..=0xffff).contains(&fp));
        }
    }
}
