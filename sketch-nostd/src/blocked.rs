//! A cache-line-blocked ("split block") Bloom filter: every key touches one 64-byte block.
//!
//! The classic [`Bloom`](crate::Bloom) filter probes `k` random bits anywhere in the filter: `k` cache
//! lines per lookup once the filter outgrows the cache. [`BlockedBloom`] first picks one 512-bit block
//! (one cache line, 64-byte aligned) from the key's hash, then sets one bit in each of the block's
//! first `K` 64-bit words — the layout of Parquet's split-block Bloom filter (Putze, Sanders,
//! Singler 2007; Apache Parquet 2018), with 512-bit blocks and 64-bit words. A lookup is one cache
//! line, `K` independent multiplies and no data-dependent branch.
//!
//! The price is accuracy per bit. Keys do not spread evenly over blocks (a block receives a Poisson
//! number of keys), so an over-full block answers "maybe" more often than the average fill predicts:
//!
//! | bits per key | classic Bloom, best k | blocked, K = 8 |
//! | -: | -: | -: |
//! | 8 | 2.16% | 2.93% |
//! | 9.6 (classic at 1%) | 1.00% | 1.29% |
//! | 10.1 (blocked at 1%) | 0.78% | 1.00% |
//! | 12 | 0.31% | 0.42% |
//! | 16 | 0.046% | 0.091% |
//!
//! so for the same false-positive rate a blocked filter needs about 5% more memory at 1%, and more
//! at lower rates (the gap doubles the rate by 16 bits per key). [`sizing::blocked_blocks_for`](crate::sizing::blocked_blocks_for) sizes it by the
//! exact formula, and [`sizing::blocked_fp_rate`](crate::sizing::blocked_fp_rate) gives the rate:
//! FP = Σ_j Pois(j; n/B) · (1 − (63/64)^j)^K for `B` blocks and `n` keys.

#[cfg(doc)]
use crate::hash::hash64;
use crate::hash::reduce;

mod kernel;
#[cfg(feature = "wire")]
pub(crate) use kernel::contains_le as block_contains_le;

/// One 512-bit block: eight 64-bit words, aligned to a 64-byte cache line.
///
/// ```
/// assert_eq!(core::mem::align_of::<sketch_nostd::blocked::Block>(), 64);
/// let b = sketch_nostd::blocked::Block([0; 8]);
/// assert_eq!(b.0.len(), 8);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
#[repr(C, align(64))]
pub struct Block(pub [u64; 8]);

/// Odd 32-bit multipliers, one per word: word `i`'s bit is the top 6 bits of `h·SALT[i] mod 2^32`
/// (Parquet's split-block Bloom filter salts).
pub(crate) const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// The bit (`0..64`) that a hash whose low half is `low` sets in the block word salted by `salt`:
/// the top 6 bits of `low·salt mod 2^32`. Shared with the zero-copy view (`wire::BlockedBloomRef`).
#[inline(always)]
pub(crate) const fn bit_in_word(low: u32, salt: u32) -> u32 {
    low.wrapping_mul(salt) >> 26
}

/// A Bloom filter of `BLOCKS` cache-line blocks (512 bits each) that sets `K` bits per key, all in one
/// block: one cache line per lookup where [`Bloom`](crate::Bloom) touches `k`, which matters once the
/// filter is larger than the cache, at about 5% more memory for the same 1% false-positive rate (see
/// the [module](self) docs). In cache the two cost about the same.
///
/// `insert` and `contains` hash the key once with xxh3-64: the high 32 bits choose the block
/// (multiply-shift, no division) and the low 32 bits, multiplied by `K` fixed odd constants, choose one
/// bit in each of the block's first `K` words. Never a false negative.
///
/// `size_of::<BlockedBloom<BLOCKS, K>>()` is `64·BLOCKS + 64`: the blocks and the seed, padded to
/// keep every block on its own cache line. `BLOCKS` must be in `1..2^26` and `K` in `1..=8`, or the
/// program does not compile.
///
/// ```
/// use sketch_nostd::{sizing::blocked_blocks_for, BlockedBloom};
///
/// // 1,000,000 keys at 1%: 1.3 MB, one cache line per lookup.
/// type Seen = BlockedBloom<{ blocked_blocks_for(1_000_000, 0.01, 8) }, 8>;
/// let mut seen = Box::new(Seen::with_seed(7));
/// assert!(seen.insert("GET /index.html"));
/// assert!(!seen.insert("GET /index.html"));
/// assert!(seen.contains("GET /index.html"));
/// assert!(core::mem::size_of::<Seen>() < 1_400_000);
/// ```
///
/// ```compile_fail,E0080
/// let _ = sketch_nostd::BlockedBloom::<16, 9>::new(); // at most 8 bits per key: one per word
/// ```
///
/// # Compile-time construction
///
/// A filter can also be built by the compiler from a list of keys, to place in a
/// `static` (flash on a microcontroller), equal to one built by inserting the same keys at run time
/// ([`const_hash64`](crate::hash::const_hash64) equals [`hash64`]).
///
/// ```
/// use sketch_nostd::BlockedBloom;
///
/// static PREFIXES: BlockedBloom<4, 8> =
///     BlockedBloom::from_keys(&["https://ads.example/", "https://cdn.bad.example/js/"], 0);
///
/// assert!(PREFIXES.contains("https://ads.example/"));
/// let mut runtime = BlockedBloom::<4, 8>::new();
/// runtime.insert("https://ads.example/");
/// runtime.insert("https://cdn.bad.example/js/");
/// assert_eq!(PREFIXES, runtime);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct BlockedBloom<const BLOCKS: usize, const K: u32> {
    blocks: [Block; BLOCKS],
    seed: u64,
}

crate::filter::bit_filter_shell! {
    BlockedBloom<BLOCKS, K> { blocks: [Block; _] = Block([0; 8]), check B }
    example: "4, 8",
    storage:
    /// The filter's blocks.
    ///
    /// ```
    /// let f = sketch_nostd::BlockedBloom::<2, 8>::new();
    /// assert_eq!(f.as_blocks().len(), 2);
    /// ```
    fn as_blocks;
}

impl<const BLOCKS: usize, const K: u32> BlockedBloom<BLOCKS, K> {
    /// Number of bits, `512·BLOCKS`.
    pub const BITS: usize = 512 * BLOCKS;

    /// `BLOCKS` as the `u32` that block selection reduces into; the checks run at compile time.
    const B: u32 = {
        assert!(
            BLOCKS > 0,
            "a blocked Bloom filter needs at least one block"
        );
        assert!(
            BLOCKS < 1 << 26,
            "a blocked Bloom filter holds fewer than 2^26 blocks"
        );
        assert!(
            K > 0,
            "a blocked Bloom filter sets at least one bit per key"
        );
        assert!(
            K <= 8,
            "a blocked Bloom filter sets at most 8 bits per key (one per word)"
        );
        BLOCKS as u32
    };

    /// Every word of every block, in order.
    fn words(&self) -> impl Iterator<Item = &u64> {
        self.blocks.iter().flat_map(|b| &b.0)
    }

    /// [`words`](Self::words), to write.
    fn words_mut(&mut self) -> impl Iterator<Item = &mut u64> {
        self.blocks.iter_mut().flat_map(|b| &mut b.0)
    }

    /// Block index of a hash: its high 32 bits, reduced by multiply-shift.
    #[inline(always)]
    fn block_of(hash: u64) -> usize {
        reduce((hash >> 32) as u32, Self::B) as usize
    }

    /// Inserts a key by its 64-bit hash ([`hash64`] with this filter's seed gives the same result as
    /// [`insert`](Self::insert)). Both 32-bit halves must be well mixed.
    ///
    /// ```
    /// use sketch_nostd::{hash::hash64, BlockedBloom};
    /// let mut f = BlockedBloom::<4, 8>::new();
    /// f.insert_hash(hash64("k", 0));
    /// assert!(f.contains("k"));
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        // The block test and update live in `kernel` (shared with the view, vectorised with AVX2).
        let low = hash as u32;
        let block = Self::block_of(hash);
        self.blocks
            .get_mut(block)
            .is_some_and(|b| kernel::insert::<K>(&mut b.0, low))
    }

    /// [`contains`](Self::contains) for a hash computed by the caller.
    ///
    /// ```
    /// let mut f = sketch_nostd::BlockedBloom::<4, 8>::new();
    /// f.insert_hash(0x0123_4567_89ab_cdef);
    /// assert!(f.contains_hash(0x0123_4567_89ab_cdef));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let low = hash as u32;
        self.blocks
            .get(Self::block_of(hash))
            .is_some_and(|b| kernel::contains::<K>(&b.0, low))
    }

    /// The false-positive rate this filter has now, exactly: the mean over blocks of the product of the
    /// fill of each of the `K` words a key probes, (1/B)·Σ_b Π_{i<K} ones(b, i)/64.
    ///
    /// ```
    /// let mut f = sketch_nostd::BlockedBloom::<4, 8>::new();
    /// assert_eq!(f.estimated_fp_rate(), 0.0);
    /// for i in 0..100u32 { f.insert(&i); }
    /// assert!(f.estimated_fp_rate() > 0.0 && f.estimated_fp_rate() < 1.0);
    /// ```
    #[must_use]
    pub fn estimated_fp_rate(&self) -> f64 {
        let sum: f64 = self
            .blocks
            .iter()
            .map(|b| {
                b.0.iter()
                    .take(K as usize)
                    .map(|w| f64::from(w.count_ones()) / 64.0)
                    .product::<f64>()
            })
            .sum();
        sum / BLOCKS as f64
    }

    /// [`insert_hash`](Self::insert_hash) as a `const fn` (the same bits).
    const fn const_insert_hash(&mut self, hash: u64) {
        let b = reduce((hash >> 32) as u32, Self::B) as usize;
        let low = hash as u32;
        let mut i = 0;
        while i < K as usize && i < 8 && b < BLOCKS {
            self.blocks[b].0[i] |= 1 << bit_in_word(low, SALT[i]);
            i += 1;
        }
    }

    /// Estimated number of distinct keys inserted, from the bits set: each block is a small Bloom
    /// filter of `K` words in which a key sets one bit per word, so a block's fill gives its keys
    /// (Swamidass–Baldi on the block's `64·K` probed bits with one bit per word), and the estimate is
    /// the sum over blocks. Infinite once a block's probed words are all full.
    ///
    /// ```
    /// let mut f = sketch_nostd::BlockedBloom::<256, 8>::new();
    /// for i in 0..2_000u32 { f.insert(&i); }
    /// let n = f.cardinality();
    /// assert!((n - 2_000.0).abs() < 100.0, "{n}");
    /// ```
    #[must_use]
    pub fn cardinality(&self) -> f64 {
        self.blocks
            .iter()
            .map(|b| {
                let ones: u32 = b.0.iter().take(K as usize).map(|w| w.count_ones()).sum();
                // K probes into K separate 64-bit words: per word, a fraction 1 − (1 − 1/64)^n of
                // bits is set after n keys, so n = ln(1 − fill) / ln(1 − 1/64).
                let fill = f64::from(ones) / f64::from(64 * K);
                libm::log(1.0 - fill) / libm::log(1.0 - 1.0 / 64.0)
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_blocks_plus_a_padded_seed() {
        assert_eq!(core::mem::size_of::<BlockedBloom<1, 8>>(), 128);
        assert_eq!(
            core::mem::size_of::<BlockedBloom<2_500, 8>>(),
            64 * 2_500 + 64
        );
        assert_eq!(core::mem::align_of::<BlockedBloom<3, 8>>(), 64);
    }

    #[test]
    fn each_key_sets_k_bits_in_one_block_one_per_word() {
        for k in 0..200u32 {
            let mut f = BlockedBloom::<16, 5>::with_seed(9);
            f.insert(&k);
            let touched: Vec<&Block> = f.as_blocks().iter().filter(|b| b.0 != [0; 8]).collect();
            assert_eq!(touched.len(), 1);
            let ones: Vec<u32> = touched[0].0.iter().map(|w| w.count_ones()).collect();
            assert_eq!(ones, [1, 1, 1, 1, 1, 0, 0, 0]);
        }
    }

    #[test]
    fn seed_mismatch_leaves_filter_unchanged() {
        let mut a = BlockedBloom::<8, 8>::with_seed(1);
        a.insert("a");
        let before = a.clone();
        let b = BlockedBloom::<8, 8>::with_seed(2);
        assert!(a.merge(&b).is_err());
        assert!(a.intersect(&b).is_err());
        assert_eq!(a, before);
    }

    #[test]
    fn full_filter_says_maybe_to_everything() {
        let f = BlockedBloom::<2, 8>::from_parts([Block([u64::MAX; 8]); 2], 0);
        assert!(f.contains("anything"));
        assert_eq!(f.estimated_fp_rate(), 1.0);
        assert_eq!(f.fill_ratio(), 1.0);
    }
}
