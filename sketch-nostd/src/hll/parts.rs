//! The sketch's parts: its dense registers or sparse coupons read out, and a sketch rebuilt from
//! them (checked), for the wire format and for callers that store registers themselves.

use super::{num, registers, sparse, HyperLogLog};
use crate::error::PartsError;

impl<const P: u8, const BYTES: usize> HyperLogLog<P, BYTES> {
    /// The packed dense registers, or `None` while sparse (call [`to_dense`](Self::to_dense) first if
    /// you need them). Register `i` is bits `6i .. 6i + 6`, least significant bit first: bits 0–5 of
    /// byte 0 hold register 0, bits 6–7 of byte 0 and 0–3 of byte 1 register 1, and so on, so three
    /// bytes read as a little-endian 24-bit integer hold four registers at shifts 0, 6, 12 and 18.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll4::new();
    /// h.to_dense();
    /// h.insert_hash(0x1200_0000_0000_0000); // register 1, rank 3
    /// assert_eq!(h.dense_registers().unwrap()[..2], [3 << 6, 0]);
    /// ```
    #[must_use]
    pub const fn dense_registers(&self) -> Option<&[u8; BYTES]> {
        if self.dense {
            Some(&self.data)
        } else {
            None
        }
    }

    /// The sparse coupons in increasing order (none once dense). With `b =`
    /// [`SPARSE_INDEX_BITS`](Self::SPARSE_INDEX_BITS) `= P + 7`, a coupon is
    /// `(hash >> (64 − b)) << 6 | ρ'`: the top `b` bits of a hash above its rank
    /// `ρ' = (leading zeros of the low 64 − b bits) + 1`, in `1..=65 − b`; the sketch keeps the
    /// highest rank per `b`-bit index. At `P = 14`: 21 index bits, ranks `1..=44`. The top `P` index
    /// bits are the register the coupon updates once dense. They are the sparse form's whole content:
    /// [`from_coupons`](Self::from_coupons) rebuilds the sketch from them.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// h.insert_hash(0xffff_f800_0000_0001); // index 2^21 − 1, 42 leading zeros in the low 43 bits
    /// h.insert_hash(0x0000_0000_0000_0000); // index 0, rank 44
    /// assert_eq!(h.coupons().collect::<Vec<_>>(), [44, (((1 << 21) - 1) << 6) | 43]);
    /// ```
    pub fn coupons(&self) -> impl Iterator<Item = u32> + '_ {
        let mut cursor = sparse::Cursor::new(BYTES, !self.dense);
        core::iter::from_fn(move || cursor.next(&self.data))
    }

    /// Number of sparse coupons (0 once dense).
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll14::new();
    /// h.insert("a");
    /// h.insert("b");
    /// assert_eq!(h.coupon_count(), 2);
    /// ```
    #[must_use]
    pub const fn coupon_count(&self) -> usize {
        self.coupons as usize
    }

    /// The raw bytes behind the sketch: packed registers when dense, the sparse coupon table (`u32`
    /// slots, little-endian) while sparse. Mainly for inspecting memory use.
    ///
    /// ```
    /// assert_eq!(sketch_nostd::Hll14::new().dense_registers_or_coupon_bytes().len(), 12_288);
    /// ```
    #[must_use]
    pub const fn dense_registers_or_coupon_bytes(&self) -> &[u8; BYTES] {
        &self.data
    }

    /// A dense sketch from its parts: packed registers (as returned by
    /// [`dense_registers`](Self::dense_registers)), a seed, and the martingale estimate if the
    /// sketch is a single stream (from [`martingale_estimate`](Self::martingale_estimate)).
    /// [`set_parts`](Self::set_parts) does the same into an existing sketch;
    /// [`from_coupons`](Self::from_coupons) rebuilds the sparse form.
    ///
    /// # Errors
    /// [`PartsError::RegisterOutOfRange`] if a register exceeds [`MAX_RANK`](Self::MAX_RANK), and
    /// [`PartsError::InvalidEstimatorState`] if the martingale estimate is NaN, negative (including
    /// −0) or above 2^64, the largest estimate a sketch reports.
    ///
    /// ```
    /// use sketch_nostd::Hll10;
    /// let mut a = Hll10::with_seed(5);
    /// for i in 0..10_000u32 { a.insert(&i); }
    /// let regs = a.dense_registers().unwrap();
    /// let b = Hll10::from_parts(regs, a.seed(), a.martingale_estimate())?;
    /// assert!(a == b);
    /// # Ok::<(), sketch_nostd::PartsError>(())
    /// ```
    pub fn from_parts(
        registers: &[u8; BYTES],
        seed: u64,
        martingale: Option<f64>,
    ) -> Result<Self, PartsError> {
        let mut sketch = Self::with_seed(seed);
        sketch.set_parts(registers, seed, martingale)?;
        Ok(sketch)
    }

    /// Replaces this sketch, in place, by the dense sketch [`from_parts`](Self::from_parts) would
    /// build: no second sketch-sized value is created, which matters to a decoder on a small stack.
    /// On an error the sketch is unchanged.
    ///
    /// # Errors
    /// As [`from_parts`](Self::from_parts).
    ///
    /// ```
    /// use sketch_nostd::{Hll10, PartsError};
    /// let mut h = Hll10::new();
    /// let mut regs = [0u8; 768];
    /// regs[0] = 5; // register 0 = 5
    /// h.set_parts(&regs, 9, None)?;
    /// assert_eq!((h.seed(), h.registers().next()), (9, Some(5)));
    /// regs[0] = 63; // above 64 − 10 + 1 = 55
    /// assert!(h.set_parts(&regs, 1, None).is_err());
    /// assert_eq!(h.seed(), 9); // unchanged
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn set_parts(
        &mut self,
        registers: &[u8; BYTES],
        seed: u64,
        martingale: Option<f64>,
    ) -> Result<(), PartsError> {
        Self::check_dense(registers, martingale)?;
        self.data.copy_from_slice(registers);
        self.become_dense(seed, martingale);
        Ok(())
    }

    /// The checks of [`set_parts`](Self::set_parts).
    pub(crate) fn check_dense(
        registers: &[u8; BYTES],
        martingale: Option<f64>,
    ) -> Result<(), PartsError> {
        if let Some((index, value)) = registers::iter(registers)
            .enumerate()
            .find(|&(_, v)| v > Self::MAX_RANK)
        {
            return Err(PartsError::RegisterOutOfRange {
                index,
                value,
                max: Self::MAX_RANK,
            });
        }
        // A martingale estimate must be +0 or positive up to the 2^64 clamp: NaN, negative values,
        // −0 (sign bit set) and anything above 2^64 have larger bit patterns, and no sketch holds
        // them.
        if martingale.is_some_and(|x| x.to_bits() > num::CAP.to_bits()) {
            return Err(PartsError::InvalidEstimatorState);
        }
        Ok(())
    }

    /// Makes the (checked) registers in `data` a dense sketch with `seed` and this estimator state.
    pub(super) fn become_dense(&mut self, seed: u64, martingale: Option<f64>) {
        self.seed = seed;
        self.coupons = 0;
        self.dense = true;
        self.single_stream = martingale.is_some();
        self.hip = martingale.unwrap_or(0.0);
        self.refresh();
    }

    /// [`set_parts`](Self::set_parts) with the registers written by `fill` straight into the
    /// sketch's storage (zeroed first) and checked there, so that not even the registers are copied
    /// (a refusal is turned into `E` by `invalid`). On any error the sketch is left empty with its
    /// own seed. Crate-internal: for decoders on small stacks.
    #[cfg(feature = "wire")]
    pub(crate) fn load_dense<E>(
        &mut self,
        seed: u64,
        martingale: Option<f64>,
        fill: impl FnOnce(&mut [u8; BYTES]) -> Result<(), E>,
        invalid: impl FnOnce(PartsError) -> E,
    ) -> Result<(), E> {
        let own = self.seed;
        self.reset(own);
        let result = fill(&mut self.data)
            .and_then(|()| Self::check_dense(&self.data, martingale).map_err(invalid));
        match result {
            Ok(()) => self.become_dense(seed, martingale),
            Err(_) => self.reset(own),
        }
        result
    }

    /// A sparse sketch from its coupons (as returned by [`coupons`](Self::coupons)), in strictly
    /// increasing order of their [`SPARSE_INDEX_BITS`](Self::SPARSE_INDEX_BITS) index bits, and
    /// whether it is a single stream
    /// ([`is_single_stream`](Self::is_single_stream)). [`set_coupons`](Self::set_coupons) does the
    /// same into an existing sketch.
    ///
    /// # Errors
    /// [`PartsError::InvalidCoupon`] for a rank outside `1..=58 − P` or an index of more than
    /// `P + 7` bits,
    /// [`PartsError::UnsortedCoupons`] for coupons out of order or repeated, and
    /// [`PartsError::TooManyCoupons`] beyond [`SPARSE_CAPACITY`](Self::SPARSE_CAPACITY).
    ///
    /// ```
    /// use sketch_nostd::{PartsError, Hll14};
    /// let mut a = Hll14::with_seed(5);
    /// for i in 0..500u32 { a.insert(&i); }
    /// let b = Hll14::from_coupons(a.coupons(), a.seed(), a.is_single_stream())?;
    /// assert!(a == b);
    /// assert_eq!(
    ///     Hll14::from_coupons([2 << 6 | 1, 1 << 6 | 1], 0, true).err(),
    ///     Some(PartsError::UnsortedCoupons { index: 1 })
    /// );
    /// # Ok::<(), PartsError>(())
    /// ```
    pub fn from_coupons<I: IntoIterator<Item = u32>>(
        coupons: I,
        seed: u64,
        single_stream: bool,
    ) -> Result<Self, PartsError> {
        let mut sketch = Self::with_seed(seed);
        sketch.set_coupons(coupons, seed, single_stream)?;
        Ok(sketch)
    }

    /// Replaces this sketch, in place, by the sparse sketch [`from_coupons`](Self::from_coupons)
    /// would build, reading the coupons once (so they can come straight from a decoder). On an error
    /// the sketch is left empty, with the new seed.
    ///
    /// # Errors
    /// As [`from_coupons`](Self::from_coupons).
    ///
    /// ```
    /// use sketch_nostd::Hll14;
    /// let mut h = Hll14::new();
    /// h.set_coupons([1 << 6 | 3, 7 << 6 | 1], 4, false)?;
    /// assert_eq!((h.coupon_count(), h.seed(), h.is_single_stream()), (2, 4, false));
    /// assert!(h.set_coupons([1 << 6 | 0], 4, false).is_err()); // rank 0 is impossible
    /// assert!(h.is_empty());
    /// # Ok::<(), sketch_nostd::PartsError>(())
    /// ```
    pub fn set_coupons<I: IntoIterator<Item = u32>>(
        &mut self,
        coupons: I,
        seed: u64,
        single_stream: bool,
    ) -> Result<(), PartsError> {
        self.reset(seed);
        self.single_stream = single_stream;
        let mut previous: Option<u32> = None;
        for (index, coupon) in coupons.into_iter().enumerate() {
            let problem = if !sparse::is_valid(coupon, Self::P32) {
                Some(PartsError::InvalidCoupon { index, coupon })
            } else if previous.is_some_and(|p| p >> 6 >= coupon >> 6) {
                Some(PartsError::UnsortedCoupons { index })
            } else if index >= Self::SPARSE_CAPACITY {
                Some(PartsError::TooManyCoupons {
                    capacity: Self::SPARSE_CAPACITY,
                })
            } else {
                None
            };
            if let Some(error) = problem {
                self.reset(seed);
                return Err(error);
            }
            previous = Some(coupon);
            // Coupons bunched in a few registers can overflow the sparse table before the count
            // reaches the capacity: the sketch then turns dense part-way through the list.
            self.insert_coupon(coupon);
        }
        Ok(())
    }
}
