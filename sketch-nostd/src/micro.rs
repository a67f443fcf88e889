//! Micro Bloom filters: a whole filter in one machine word.
//!
//! A prefilter in front of a small set or a hash lookup, as browser engines use for selector and
//! attribute matching: "is this attribute possibly on the element?" costs one hash, one OR of a few
//! shifted bits and one compare, and a "no" skips the real lookup. The `K` positions are carved from
//! consecutive bit fields of one 64-bit hash (6 bits each for the `u64` filter, 5 for the `u32`), so
//! no double hashing or reduction is needed.
//!
//! The seed is a const parameter (default 0): the filter is exactly one word, and filters with
//! different seeds are different types, so combining them does not compile.

use crate::error::MergeError;
use crate::filter::{cardinality_from_fill, fp_rate_from_fill};
use crate::hash::{hash64, Key};

macro_rules! micro_bloom {
    (
        $(#[$doc:meta])*
        $name:ident, $word:ty, $field_bits:literal, $max_k:literal
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
        pub struct $name<const K: u32, const SEED: u64 = 0> {
            bits: $word,
        }

        impl<const K: u32, const SEED: u64> $name<K, SEED> {
            /// Number of bits in the filter.
            pub const BITS: u32 = <$word>::BITS;
            /// Number of positions set per key.
            pub const HASHES: u32 = {
                assert!(K > 0, "a micro Bloom filter needs at least one hash (K > 0)");
                assert!(
                    K <= $max_k,
                    concat!("this micro Bloom filter carves at most ", $max_k, " positions from a 64-bit hash")
                );
                K
            };
            /// The seed, fixed by the type.
            pub const SEED: u64 = SEED;

            /// An empty filter.
            #[must_use]
            pub const fn new() -> Self {
                Self::from_parts(0)
            }

            /// A filter from its parts: its word, as returned by [`bits`](Self::bits) (the seed is
            /// the type's `SEED`). Every word is a valid filter, so this cannot fail and is `const`.
            #[must_use]
            pub const fn from_parts(bits: $word) -> Self {
                let _ = Self::HASHES; // evaluates the parameter checks at compile time
                Self { bits }
            }

            /// The filter's word.
            #[must_use]
            pub const fn bits(&self) -> $word {
                self.bits
            }

            /// The mask of the `K` positions of a 64-bit hash.
            #[inline]
            #[must_use]
            pub const fn mask_of_hash(hash: u64) -> $word {
                let mut mask: $word = 0;
                let mut i = 0;
                while i < Self::HASHES {
                    let field = (hash >> (i * $field_bits)) as u32 & ((1 << $field_bits) - 1);
                    mask |= 1 << field;
                    i += 1;
                }
                mask
            }

            /// Inserts a key. Returns `true` if it was definitely new (a bit changed).
            #[inline]
            pub fn insert<Q: Key + ?Sized>(&mut self, key: &Q) -> bool {
                self.insert_hash(hash64(key, SEED))
            }

            /// Inserts a key by its 64-bit hash (the low `K` × field-width bits are used).
            #[inline]
            pub fn insert_hash(&mut self, hash: u64) -> bool {
                let before = self.bits;
                self.bits |= Self::mask_of_hash(hash);
                self.bits != before
            }

            /// `false` if the key was definitely never inserted, `true` if it may have been.
            #[inline]
            #[must_use]
            pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
                self.contains_hash(hash64(key, SEED))
            }

            /// [`contains`](Self::contains) by a hash computed by the caller.
            #[inline]
            #[must_use]
            pub const fn contains_hash(&self, hash: u64) -> bool {
                let mask = Self::mask_of_hash(hash);
                self.bits & mask == mask
            }

            /// `false` if some key of `other` was definitely never inserted here: the subset test of
            /// "does this element possibly carry every attribute the selector needs?".
            #[inline]
            #[must_use]
            pub const fn may_contain_all(&self, other: &Self) -> bool {
                other.bits & !self.bits == 0
            }

            /// The seed, [`SEED`](Self::SEED): every sketch has `seed()`.
            #[must_use]
            pub const fn seed(&self) -> u64 {
                SEED
            }

            /// Clears the filter.
            pub fn clear(&mut self) {
                self.bits = 0;
            }

            /// `true` if no bit is set.
            #[must_use]
            pub const fn is_empty(&self) -> bool {
                self.bits == 0
            }

            /// Adds every key of `other` (bitwise OR). Same type means same size, `K` and seed, so
            /// this never fails; it returns a `Result` as every sketch's `merge` does.
            ///
            /// # Errors
            /// None: two filters of one type always merge.
            pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
                self.bits |= other.bits;
                Ok(())
            }

            /// Keeps the bits set in both filters (bitwise AND): still "maybe" for every common key.
            pub fn intersect(&mut self, other: &Self) {
                self.bits &= other.bits;
            }

            /// Number of bits set.
            #[must_use]
            pub const fn count_ones(&self) -> u32 {
                self.bits.count_ones()
            }

            /// Fraction of bits set.
            #[must_use]
            pub fn fill_ratio(&self) -> f64 {
                f64::from(self.count_ones()) / f64::from(Self::BITS)
            }

            /// The false-positive rate now: (bits set / bits)^K.
            #[must_use]
            pub fn estimated_fp_rate(&self) -> f64 {
                fp_rate_from_fill(self.fill_ratio(), Self::HASHES)
            }

            /// Estimated number of distinct keys inserted (Swamidass–Baldi).
            #[must_use]
            pub fn cardinality(&self) -> f64 {
                cardinality_from_fill(self.count_ones(), Self::BITS, Self::HASHES)
            }
        }
    };
}

micro_bloom! {
    /// A Bloom filter in one `u64`: up to `K = 10` positions of 6 bits from one hash.
    ///
    /// Sized for a handful of keys: by (1 − e^(−Kn/64))^K, with 4 keys and `K = 4` about 0.24% of
    /// absent keys pass; with 8 keys and `K = 3`, about 3.1%. `size_of` is 8 bytes.
    ///
    /// ```
    /// use sketch_nostd::MicroBloom;
    ///
    /// let mut attrs = MicroBloom::<3>::new();
    /// for a in ["class", "id", "href"] {
    ///     attrs.insert(a);
    /// }
    /// assert!(attrs.contains("href"));
    /// assert!(!attrs.contains("data-x") || attrs.estimated_fp_rate() > 0.0);
    ///
    /// let mut needed = MicroBloom::<3>::new();
    /// needed.insert("id");
    /// assert!(attrs.may_contain_all(&needed));
    /// assert_eq!(core::mem::size_of::<MicroBloom<3>>(), 8);
    /// ```
    ///
    /// Too many positions for one hash do not compile:
    ///
    /// ```compile_fail,E0080
    /// let _ = sketch_nostd::MicroBloom::<11>::new();
    /// ```
    MicroBloom, u64, 6, 10
}

micro_bloom! {
    /// A Bloom filter in one `u32`: up to `K = 12` positions of 5 bits from one hash.
    ///
    /// Half the memory of [`MicroBloom`] for sets of two or three keys, and 32-bit operations only.
    ///
    /// ```
    /// use sketch_nostd::MicroBloom32;
    ///
    /// let mut f = MicroBloom32::<2, 0xbeef>::new();
    /// f.insert(&17u32);
    /// assert!(f.contains(&17u32));
    /// assert_eq!(f.count_ones(), f.bits().count_ones());
    /// assert_eq!(core::mem::size_of::<MicroBloom32<2>>(), 4);
    /// ```
    MicroBloom32, u32, 5, 12
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_carved_from_consecutive_fields() {
        // fields 1, 2, 3 (6 bits each) → bits 1, 2, 3
        let h = 1 | (2 << 6) | (3 << 12);
        assert_eq!(MicroBloom::<3>::mask_of_hash(h), 0b1110);
        // 5-bit fields 31, 0 → bits 31 and 0
        assert_eq!(MicroBloom32::<2>::mask_of_hash(31), (1 << 31) | 1);
        assert_eq!(MicroBloom::<10>::mask_of_hash(u64::MAX), 1 << 63);
    }

    #[test]
    fn seeds_change_positions() {
        let (mut a, mut b) = (MicroBloom::<4, 1>::new(), MicroBloom::<4, 2>::new());
        let mut differ = false;
        for i in 0..16u32 {
            a.clear();
            b.clear();
            a.insert(&i);
            b.insert(&i);
            differ |= a.bits() != b.bits();
        }
        assert!(differ);
    }
}
