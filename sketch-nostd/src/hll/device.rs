//! The registers-only HyperLogLog for devices, [`DeviceHll`], documented on the type.

use core::fmt;

use super::estimator::RegisterSums;
use super::{registers, HyperLogLog, Registers};
use crate::error::{check_seeds, MergeError, PartsError};
use crate::hash::Key;

/// The items both HyperLogLog types share, written once: the register count and largest value,
/// `new` and `insert` (hash with the sketch's seed through `hll::hash_key`, then `insert_hash`;
/// the caller imports `Key` and defines `seed`). `$path` names an alias of the type for the doc
/// examples; `new` and `insert` take their own.
macro_rules! shared_items {
    (
        $path:literal,
        new: $(#[$new:meta])*
        insert: $(#[$insert:meta])*
        inline: #[$inline:meta]
    ) => {
        /// Number of registers, `m = 2^P`.
        pub const REGISTERS: usize = 1 << Self::PRECISION;

        /// The largest value a register can hold, `64 − P + 1`.
        pub const MAX_RANK: u8 = 65 - Self::PRECISION;

        const P32: u32 = Self::PRECISION as u32;

        /// An empty sketch with seed 0.
        ///
        $(#[$new])*
        #[must_use]
        pub const fn new() -> Self {
            Self::with_seed(0)
        }

        $(#[$insert])*
        #[$inline]
        pub fn insert<Q: Key + ?Sized>(&mut self, key: &Q) -> bool {
            self.insert_hash(crate::hll::hash_key(key, self.seed()))
        }
    };
}
pub(super) use shared_items;

/// A HyperLogLog of `2^P` packed 6-bit registers and a seed, nothing else: the device side of a
/// [`HyperLogLog`].
///
/// A device mostly inserts and sends; the host merges and estimates. [`HyperLogLog`] keeps, beside
/// its registers, an exact sparse form for small counts and the martingale estimator's state, and
/// both sit on its insert path (about 6.5 KB of Cortex-M0 code). `DeviceHll` keeps only the packed
/// 6-bit registers and the seed: an insert is a hash, an index and a max (no division, no float).
///
/// What it gives up is accuracy at small counts, and only there: where a [`HyperLogLog`] counts its
/// first `SPARSE_CAPACITY` keys (144 at `P = 10`) from exact coupons, near-exact (0.2% RMS error at
/// 100 keys, at `P = 10`), a `DeviceHll` (and the host sketch it becomes) estimates from the
/// registers with Ertl's estimator, which at small `n` is linear counting over `m` registers, with a
/// relative standard error of `sqrt(m·(e^t − t − 1))/n` for `t = n/m`, about `1/sqrt(2m)`: at
/// `P = 10`, 2.2% RMS at 10 and at 100 keys and 2.5% at 1,000 (measured over 400 streams each in
/// this module's tests), where the full sketch has 0.004%, 0.2% and 2.0% (its martingale
/// estimator, dense by then). Once `n` is a few times `m` a merged [`HyperLogLog`] has exactly the
/// same registers and estimate (1.04/√m); a single-stream one is about 20% more accurate
/// (0.83/√m) from its martingale estimator, which needs the whole stream on one sketch.
///
/// On the wire a `DeviceHll` is a dense, not single-stream [`HyperLogLog`] (same kind, parameter and
/// seed), so the host decodes it with `wire::decode` (feature `wire`) into a `HyperLogLog` and
/// merges it with any other of the same precision and seed. Its bytes are those a merged
/// `HyperLogLog` with the same registers writes, the smallest of the packed registers, the list of
/// the non-zero ones (small `n`) and a Rice code of every register (large `n`), and never more than
/// a `HyperLogLog` fed the same keys writes.
///
/// ```
/// use sketch_nostd::{hll::DeviceHll10, Hll10};
///
/// let mut device = DeviceHll10::with_seed(7);
/// for id in 0..5_000u32 { device.insert(&id); }
/// assert_eq!(core::mem::size_of_val(&device), 768 + 8); // the registers and the seed
///
/// // The host: a full HyperLogLog with the same registers, merged with another device's.
/// let mut host = Hll10::from(&device);
/// let mut other = Hll10::with_seed(7);
/// for id in 4_000..6_000u32 { other.insert(&id); }
/// host.merge(&other)?;
/// assert!((host.cardinality() - 6_000.0).abs() < 3.0 * 0.0325 * 6_000.0);
/// # Ok::<(), sketch_nostd::MergeError>(())
/// ```
///
/// Use an alias ([`DeviceHll4`] … [`DeviceHll18`]); `BYTES` must be `3·2^P/4` and `P` in `4..=18`,
/// as for [`HyperLogLog`]. `size_of` is `BYTES + 8` (padded to 8 bytes).
///
/// ```
/// use sketch_nostd::hll::DeviceHll10;
/// let mut h = DeviceHll10::new();
/// assert!(h.insert("alice"));
/// assert!(!h.insert("alice")); // the register already holds that rank
/// assert!((h.cardinality() - 1.0).abs() < 0.01);
/// ```
///
/// ```compile_fail
/// let _ = sketch_nostd::hll::DeviceHll::<10, 700>::new(); // BYTES must be 768
/// ```
#[derive(Clone, PartialEq, Eq)]
// The seed in two halves around the registers (`repr(C)`), so that the registers sit at offset 4:
// a Cortex-M0 zeroes them with the word-aligned `memclr` routine other code links anyway, not a
// second copy of it for 8-aligned memory (158 B). Aligned to 8, the size stays `BYTES + 8`.
#[repr(C, align(8))]
pub struct DeviceHll<const P: u8, const BYTES: usize> {
    seed_low: u32,
    data: [u8; BYTES],
    seed_high: u32,
}

/// A seed's low and high halves, as [`DeviceHll`] keeps them (the inverse of [`DeviceHll::seed`]).
const fn seed_halves(seed: u64) -> (u32, u32) {
    (seed as u32, (seed >> 32) as u32)
}

aliases!(
    DeviceHll,
    dense_registers,
    DeviceHll4 = 4,
    DeviceHll5 = 5,
    DeviceHll6 = 6,
    DeviceHll7 = 7,
    DeviceHll8 = 8,
    DeviceHll9 = 9,
    DeviceHll10 = 10,
    DeviceHll11 = 11,
    DeviceHll12 = 12,
    DeviceHll13 = 13,
    DeviceHll14 = 14,
    DeviceHll15 = 15,
    DeviceHll16 = 16,
    DeviceHll17 = 17,
    DeviceHll18 = 18
);

impl<const P: u8, const BYTES: usize> DeviceHll<P, BYTES> {
    /// The precision `p` (checked as for [`HyperLogLog::PRECISION`]).
    pub const PRECISION: u8 = HyperLogLog::<P, BYTES>::PRECISION;

    shared_items!(
        "sketch_nostd::hll::DeviceHll10",
        new:
        /// ```
        /// assert!(sketch_nostd::hll::DeviceHll12::new().is_empty());
        /// ```
        insert:
        /// Counts a key. Returns `true` if a register rose (the key is certainly new).
        ///
        /// ```
        /// use sketch_nostd::{hll::DeviceHll14, Hll14};
        /// let (mut device, mut full) = (DeviceHll14::new(), Hll14::new());
        /// for word in ["a", "b", "a"] {
        ///     device.insert(word);
        ///     full.insert(word);
        /// }
        /// assert!(device.registers().eq(full.registers()));
        /// ```
        inline: #[inline]
    );

    /// An empty sketch hashing with `seed`. Only sketches with equal seeds merge, with each other
    /// and with [`HyperLogLog`]s.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::hll::DeviceHll10::with_seed(9).seed(), 9);
    /// ```
    #[must_use]
    pub const fn with_seed(seed: u64) -> Self {
        let _ = Self::PRECISION; // parameters that do not fit fail to compile
        let (seed_low, seed_high) = seed_halves(seed);
        Self {
            seed_low,
            data: [0; BYTES],
            seed_high,
        }
    }

    /// The seed this sketch hashes with.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::hll::DeviceHll10::with_seed(1 << 40 | 7).seed(), 1 << 40 | 7);
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        (self.seed_high as u64) << 32 | self.seed_low as u64
    }

    /// Sets the seed (for the wire decoder).
    #[cfg(feature = "wire")]
    pub(crate) fn set_seed(&mut self, seed: u64) {
        (self.seed_low, self.seed_high) = seed_halves(seed);
    }

    /// Counts a key by its 64-bit hash ([`hash64`](crate::hash::hash64) with this sketch's seed
    /// gives the same result as [`insert`](Self::insert)): the top `P` bits choose the register,
    /// which keeps the largest rank (leading zeros of the other bits, plus one).
    ///
    /// ```
    /// let mut h = sketch_nostd::hll::DeviceHll4::new();
    /// h.insert_hash(0x3200_0000_0000_0000); // register 3, rank 3
    /// assert_eq!(h.registers().nth(3), Some(3));
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let (index, rank) = registers::index_rank(hash, Self::P32);
        registers::raise(&mut self.data, index, rank).is_some()
    }

    /// Adds everything `other` counted (register-wise maximum). Fails, leaving `self` unchanged, if
    /// the seeds differ.
    ///
    /// ```
    /// use sketch_nostd::hll::DeviceHll10;
    /// let (mut a, mut b) = (DeviceHll10::with_seed(1), DeviceHll10::with_seed(1));
    /// a.insert(&1u32);
    /// b.insert(&2u32);
    /// a.merge(&b)?;
    /// assert!((a.cardinality() - 2.0).abs() < 0.1);
    /// assert!(a.merge(&DeviceHll10::with_seed(2)).is_err());
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        check_seeds(self.seed(), other.seed())?;
        registers::max_assign(&mut self.data, &other.data);
        Ok(())
    }

    /// The estimated number of distinct keys: Ertl's improved estimator over the registers (one
    /// pass), what [`HyperLogLog::histogram_estimate`] says for the same registers. Relative standard
    /// error about 1.04/√m, less at small counts (linear counting's error there).
    ///
    /// ```
    /// let mut h = sketch_nostd::hll::DeviceHll12::new();
    /// for i in 0..100_000u32 { h.insert(&i); }
    /// assert!((h.cardinality() - 1e5).abs() < 3.0 * 0.0163 * 1e5);
    /// ```
    #[must_use]
    pub fn cardinality(&self) -> f64 {
        RegisterSums::of_packed(&self.data, Self::P32)
            .improved_estimate(Self::P32)
            .to_f64()
    }

    /// `true` if nothing has been counted.
    ///
    /// ```
    /// let mut h = sketch_nostd::hll::DeviceHll8::new();
    /// assert!(h.is_empty());
    /// h.insert(&0u8);
    /// assert!(!h.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.iter().all(|&b| b == 0)
    }

    /// Forgets everything counted, keeping the seed.
    ///
    /// ```
    /// let mut h = sketch_nostd::hll::DeviceHll8::with_seed(3);
    /// h.insert(&0u8);
    /// h.clear();
    /// assert!(h.is_empty() && h.seed() == 3);
    /// ```
    pub fn clear(&mut self) {
        self.data.fill(0);
    }

    /// Every register value in order, `m` of them.
    ///
    /// ```
    /// let h = sketch_nostd::hll::DeviceHll4::new();
    /// assert_eq!(h.registers().len(), 16);
    /// ```
    #[must_use]
    pub fn registers(&self) -> Registers<'_> {
        Registers::packed(&self.data, Self::P32)
    }

    /// The packed registers, laid out as [`HyperLogLog::dense_registers`] describes.
    ///
    /// ```
    /// let mut h = sketch_nostd::hll::DeviceHll4::new();
    /// h.insert_hash(0x1200_0000_0000_0000); // register 1, rank 3
    /// assert_eq!(h.dense_registers()[..2], [3 << 6, 0]);
    /// ```
    #[must_use]
    pub const fn dense_registers(&self) -> &[u8; BYTES] {
        &self.data
    }

    /// A sketch from packed registers and a seed.
    ///
    /// # Errors
    /// [`PartsError::RegisterOutOfRange`] if a register exceeds [`MAX_RANK`](Self::MAX_RANK).
    ///
    /// ```
    /// use sketch_nostd::hll::DeviceHll10;
    /// let mut a = DeviceHll10::with_seed(5);
    /// for i in 0..1_000u32 { a.insert(&i); }
    /// let b = DeviceHll10::from_parts(a.dense_registers(), 5)?;
    /// assert!(a == b);
    /// assert!(DeviceHll10::from_parts(&[0xff; 768], 5).is_err());
    /// # Ok::<(), sketch_nostd::PartsError>(())
    /// ```
    pub fn from_parts(registers: &[u8; BYTES], seed: u64) -> Result<Self, PartsError> {
        HyperLogLog::<P, BYTES>::check_dense(registers, None)?;
        let (seed_low, seed_high) = seed_halves(seed);
        Ok(Self {
            seed_low,
            data: *registers,
            seed_high,
        })
    }

    /// The storage, for the wire decoder (which fills and checks it in place).
    #[cfg(feature = "wire")]
    pub(crate) fn parts_mut(&mut self) -> &mut [u8; BYTES] {
        &mut self.data
    }
}

impl<const P: u8, const BYTES: usize> Default for DeviceHll<P, BYTES> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const P: u8, const BYTES: usize> fmt::Debug for DeviceHll<P, BYTES> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceHll")
            .field("precision", &P)
            .field("seed", &self.seed())
            .field("cardinality", &self.cardinality())
            .finish_non_exhaustive()
    }
}

/// The host side: a dense, merged-form (not single-stream) [`HyperLogLog`] with the same registers
/// and seed (an empty one if nothing was counted), what decoding the device's bytes gives.
///
/// ```
/// use sketch_nostd::{hll::DeviceHll10, Hll10};
/// let mut d = DeviceHll10::with_seed(3);
/// for i in 0..500u32 { d.insert(&i); }
/// let h = Hll10::from(&d);
/// assert!(h.registers().eq(d.registers()) && h.seed() == 3 && !h.is_single_stream());
/// assert_eq!(h.cardinality(), d.cardinality());
/// ```
impl<const P: u8, const BYTES: usize> From<&DeviceHll<P, BYTES>> for HyperLogLog<P, BYTES> {
    fn from(device: &DeviceHll<P, BYTES>) -> Self {
        let mut h = Self::with_seed(device.seed());
        if device.is_empty() {
            return h; // empty: the same sketch whatever its form
        }
        h.data = device.data;
        h.become_dense(device.seed(), None);
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hll::Hll10;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn size_is_registers_and_seed() {
        assert_eq!(core::mem::size_of::<DeviceHll10>(), 768 + 8);
        assert_eq!(core::mem::size_of::<DeviceHll14>(), 12_288 + 8);
    }

    #[test]
    fn registers_equal_the_full_sketchs_and_merges_agree() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for n in [0usize, 1, 10, 150, 1_000, 30_000] {
            let (mut d, mut h) = (DeviceHll10::with_seed(4), Hll10::with_seed(4));
            let (mut d2, mut h2) = (DeviceHll10::with_seed(4), Hll10::with_seed(4));
            for i in 0..n {
                let v = xorshift(&mut x);
                d.insert_hash(v);
                h.insert_hash(v);
                if i % 3 == 0 {
                    d2.insert_hash(v ^ 1);
                    h2.insert_hash(v ^ 1);
                }
            }
            assert!(d.registers().eq(h.registers()), "n = {n}");
            d.merge(&d2).unwrap();
            h.merge(&h2).unwrap();
            assert!(d.registers().eq(h.registers()), "merged, n = {n}");
            // The host's sketch from the device's, merged with a full one: the same registers.
            let mut from_device = Hll10::from(&d);
            from_device.merge(&h2).unwrap();
            assert!(from_device.registers().eq(h.registers()));
            assert_eq!(d.cardinality(), Hll10::from(&d).histogram_estimate());
        }
        assert!(DeviceHll10::with_seed(1)
            .merge(&DeviceHll10::with_seed(2))
            .is_err());
    }

    /// The trade at small counts, measured: the relative error of the device's estimate (linear
    /// counting over m = 1,024 registers at these n) against the full sketch's exact sparse count,
    /// over 400 independent streams per n. The device's RMS error must match linear counting's
    /// theory, sqrt(m(e^t − t − 1))/n with t = n/m, within ±20% (the RMS of 400 samples has a
    /// relative standard error of about 1/sqrt(2·400) = 3.5%, so ±20% is beyond 5σ), and the full
    /// sketch, while sparse, must be at least 5 times closer (its theory is ≈ 0.2% against 2.2%).
    /// Measured: device 2.20%, 2.22%, 2.47% at n = 10, 100, 1,000; full 0.004%, 0.20% (sparse) and
    /// 1.99% (martingale, dense at 1,000).
    #[test]
    fn small_count_error_is_linear_countings() {
        const RUNS: u32 = 400;
        let m = 1024.0f64;
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [10u32, 100, 1_000] {
            let (mut device_sq, mut full_sq) = (0.0, 0.0);
            for _ in 0..RUNS {
                let (mut d, mut h) = (DeviceHll10::new(), Hll10::new());
                for _ in 0..n {
                    let v = xorshift(&mut x);
                    d.insert_hash(v);
                    h.insert_hash(v);
                }
                let truth = f64::from(n);
                device_sq += ((d.cardinality() - truth) / truth).powi(2);
                full_sq += ((h.cardinality() - truth) / truth).powi(2);
            }
            let device = (device_sq / f64::from(RUNS)).sqrt();
            let full = (full_sq / f64::from(RUNS)).sqrt();
            let t = f64::from(n) / m;
            let theory = (m * (t.exp() - t - 1.0)).sqrt() / f64::from(n);
            std::println!("n = {n}: device RMS {device:.4}, theory {theory:.4}, full {full:.5}");
            assert!(
                (device / theory - 1.0).abs() < 0.2,
                "n = {n}: {device} vs {theory}"
            );
            if n as usize <= Hll10::SPARSE_CAPACITY {
                // Exact coupons: linear counting over 2^17 virtual registers, ~1/sqrt(2^18) = 0.2%.
                assert!(full < device / 5.0, "n = {n}: {full}");
            }
        }
    }
}
