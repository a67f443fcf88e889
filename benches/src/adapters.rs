//! One trait per sketch family, implemented for our sketches and for each peer crate, and the
//! constructors that size every implementation for the same target error.
//!
//! Peers are used as their users get them: their own default hash function (seeded with a constant,
//! so runs are reproducible) and their own sizing from the target error. Where a peer only takes
//! pre-computed hashes (`sbbf-rs-safe`), it gets our xxh3-64 ([`hash64`]).

use sketch_nostd::countmin::{Conservative, Counter, Standard, UpdatePolicy};
use sketch_nostd::cuckoo::Fingerprint;
use sketch_nostd::hash::{hash64, Key};
use sketch_nostd::sizing::{cm_depth, cm_width, k_for, words_for};
use sketch_nostd::{Bloom, CountMin, CuckooFilter, MergeError, Sketch};
use std::collections::hash_map::DefaultHasher as SipHasher13;
use std::hash::{BuildHasherDefault, Hash};

use crate::keys::{HUGE, LARGE, SMALL};

/// A key every implementation can hash: our canonical bytes ([`Key`]) and std's [`Hash`] for peers.
pub trait BenchKey: Key + Hash {}
impl BenchKey for u64 {}
impl BenchKey for u32 {}
impl BenchKey for &str {}

/// The seed every seeded implementation gets.
pub const SEED: u64 = 7;

/// Target false-positive rate of every Bloom filter.
pub const BLOOM_FP: f64 = 0.01;

/// An approximate-membership filter with inserts.
pub trait Filter<K> {
    /// Adds a key.
    fn insert(&mut self, key: &K);
    /// `false` if the key was definitely never inserted.
    fn contains(&self, key: &K) -> bool;
    /// Bytes of the filter's table (heap or inline), without the handle.
    fn bytes(&self) -> usize;
}

/// Our Bloom filter sized for [`SMALL`] keys at 1% FP (k = 7).
pub type OurBloomSmall =
    Bloom<{ words_for(SMALL as u64, BLOOM_FP) }, { k_for(SMALL as u64, BLOOM_FP) }>;
/// Our Bloom filter sized for [`LARGE`] keys at 1% FP (k = 7).
pub type OurBloomLarge =
    Bloom<{ words_for(LARGE as u64, BLOOM_FP) }, { k_for(LARGE as u64, BLOOM_FP) }>;

/// Words of [`OurBloomSmall`].
#[must_use]
pub const fn words_for_small() -> usize {
    words_for(SMALL as u64, BLOOM_FP)
}

/// A boxed empty filter of ours (the 1M-key filter is 1.2 MB: it goes to the heap, not the stack).
#[must_use]
pub fn our_bloom<const W: usize, const H: u32>() -> Box<Bloom<W, H>> {
    on_big_stack(|| Box::new(Bloom::with_seed(SEED)))
}

/// Runs `make` on a thread with a 64 MB stack: `Box::new` of a 12 MB filter may build the value on
/// the stack before moving it to the heap, which overflows the main thread's 8 MB.
pub fn on_big_stack<T: Send + 'static>(make: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(make)
        .and_then(|t| t.join().map_err(|_| std::io::Error::other("panicked")))
        .expect("building a filter on a big stack")
}

impl<const W: usize, const H: u32, K: BenchKey> Filter<K> for Box<Bloom<W, H>> {
    #[inline]
    fn insert(&mut self, key: &K) {
        Bloom::insert(self, key);
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        Bloom::contains(self, key)
    }
    fn bytes(&self) -> usize {
        core::mem::size_of::<Bloom<W, H>>()
    }
}

/// Our cache-line-blocked Bloom filter for `n` keys at 1% (8 bits per key in one 512-bit block).
pub type OurBlocked<const B: usize> = sketch_nostd::BlockedBloom<B, 8>;

/// Blocks of [`OurBlocked`] for `n` keys at 1%.
#[must_use]
pub const fn blocked_blocks(n: usize) -> usize {
    sketch_nostd::sizing::blocked_blocks_for(n as u64, BLOOM_FP, 8)
}

/// A boxed empty [`OurBlocked`].
#[must_use]
pub fn our_blocked<const B: usize>() -> Box<OurBlocked<B>> {
    on_big_stack(|| Box::new(OurBlocked::with_seed(SEED)))
}

/// Our Bloom filter sized for [`HUGE`] keys at 1% FP (k = 7).
pub type OurBloomHuge = Bloom<{ words_for(HUGE as u64, BLOOM_FP) }, 7>;
const _: () = assert!(k_for(HUGE as u64, BLOOM_FP) == 7);
const _: () = assert!(OurBloomSmall::HASHES == 7 && OurBloomLarge::HASHES == 7);

/// Our two Bloom filters, the classic and the blocked one, empty: what the benchmarks and the
/// accuracy figures compare with the peers at each size.
pub type OurBlooms<F, const B: usize> = (Box<F>, Box<OurBlocked<B>>);

/// [`OurBlooms`] for [`SMALL`] keys at 1%.
#[must_use]
pub fn our_blooms_small() -> OurBlooms<OurBloomSmall, { blocked_blocks(SMALL) }> {
    (our_bloom(), our_blocked())
}

/// [`OurBlooms`] for [`LARGE`] keys at 1%.
#[must_use]
pub fn our_blooms_large() -> OurBlooms<OurBloomLarge, { blocked_blocks(LARGE) }> {
    (our_bloom(), our_blocked())
}

/// [`OurBlooms`] for [`HUGE`] keys at 1%.
#[must_use]
pub fn our_blooms_huge() -> OurBlooms<OurBloomHuge, { blocked_blocks(HUGE) }> {
    (our_bloom(), our_blocked())
}

impl<const B: usize, K: BenchKey> Filter<K> for Box<OurBlocked<B>> {
    #[inline]
    fn insert(&mut self, key: &K) {
        OurBlocked::insert(self, key);
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        OurBlocked::contains(self, key)
    }
    fn bytes(&self) -> usize {
        core::mem::size_of::<OurBlocked<B>>()
    }
}

/// `fastbloom` sized for `n` keys at 1% (its default hasher: SipHash-1-3, seeded).
#[must_use]
pub fn fastbloom(n: usize) -> fastbloom::BloomFilter {
    fastbloom::BloomFilter::with_false_pos(BLOOM_FP)
        .seed(&u128::from(SEED))
        .expected_items(n)
}

impl<K: BenchKey> Filter<K> for fastbloom::BloomFilter {
    #[inline]
    fn insert(&mut self, key: &K) {
        fastbloom::BloomFilter::insert(self, key);
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        fastbloom::BloomFilter::contains(self, key)
    }
    fn bytes(&self) -> usize {
        self.num_bits() / 8
    }
}

/// `bloomfilter` sized for `n` keys at 1% (two SipHash-1-3 hashers, seeded).
#[must_use]
pub fn bloomfilter<K: BenchKey>(n: usize) -> bloomfilter::Bloom<K> {
    bloomfilter::Bloom::new_for_fp_rate_with_seed(n, BLOOM_FP, &[SEED as u8; 32])
        .expect("valid bloomfilter parameters")
}

impl<K: BenchKey> Filter<K> for bloomfilter::Bloom<K> {
    #[inline]
    fn insert(&mut self, key: &K) {
        self.set(key);
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        self.check(key)
    }
    fn bytes(&self) -> usize {
        (self.len() / 8) as usize
    }
}

/// Bits per key that give `sbbf-rs-safe` (a split-block Bloom filter: 8 bits in one 256-bit block
/// per key) a measured false-positive rate at or below 1%: 10 bits give about 1.2%, 11 give 0.9%.
pub const SBBF_BITS_PER_KEY: usize = 11;

/// `sbbf-rs-safe` for `n` keys (hash-only API: fed with our xxh3-64).
#[must_use]
pub fn sbbf(n: usize) -> sbbf_rs_safe::Filter {
    sbbf_rs_safe::Filter::new(SBBF_BITS_PER_KEY, n)
}

impl<K: BenchKey> Filter<K> for sbbf_rs_safe::Filter {
    #[inline]
    fn insert(&mut self, key: &K) {
        self.insert_hash(hash64(key, SEED));
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        self.contains_hash(hash64(key, SEED))
    }
    fn bytes(&self) -> usize {
        self.as_bytes().len()
    }
}

/// Apache DataSketches' Bloom filter sized for `n` keys at 1% (its default: xxHash64, seeded).
#[must_use]
pub fn datasketches_bloom(n: usize) -> datasketches::bloom::BloomFilter {
    datasketches::bloom::BloomFilterBuilder::with_accuracy(n as u64, BLOOM_FP)
        .seed(SEED)
        .build()
        .expect("valid datasketches Bloom parameters")
}

impl<K: BenchKey> Filter<K> for datasketches::bloom::BloomFilter {
    #[inline]
    fn insert(&mut self, key: &K) {
        datasketches::bloom::BloomFilter::insert(self, key);
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        datasketches::bloom::BloomFilter::contains(self, key)
    }
    fn bytes(&self) -> usize {
        self.capacity() / 8
    }
}

/// The u64 a static filter is built from: u64 keys as they are, strings hashed with our xxh3-64
/// (xorf filters take u64 keys only).
pub trait FuseKey {
    /// The key as xorf takes it.
    fn fuse_key(&self) -> u64;
}
impl FuseKey for u64 {
    #[inline]
    fn fuse_key(&self) -> u64 {
        *self
    }
}
impl FuseKey for &str {
    #[inline]
    fn fuse_key(&self) -> u64 {
        hash64(*self, SEED)
    }
}

/// `xorf`'s BinaryFuse8 over `keys` (static: built once from every key, no inserts afterwards).
#[must_use]
pub fn binary_fuse8<K: FuseKey>(keys: &[K]) -> xorf::BinaryFuse8 {
    let hashed: Vec<u64> = keys.iter().map(FuseKey::fuse_key).collect();
    xorf::BinaryFuse8::try_from(&hashed).expect("BinaryFuse8 construction")
}

/// An estimator of the number of distinct keys.
pub trait Distinct<K> {
    /// Adds a key.
    fn insert(&mut self, key: &K);
    /// The estimated number of distinct keys (`&mut`: some peers cache or merge lazily).
    fn estimate(&mut self) -> f64;
    /// Bytes in memory (registers and any sparse buffer), without the handle; `None` if the crate
    /// does not tell.
    fn bytes(&self) -> Option<usize>;
    /// Bytes of the crate's own serialized form, if it has one built in.
    fn encoded_bytes(&self) -> Option<usize>;
}

/// HyperLogLog precision every estimator uses: 2^14 registers, standard error 1.04/128 ≈ 0.81%.
pub const HLL_P: u8 = 14;

/// Our HyperLogLog at p = 14: 6-bit packed registers (12,288 bytes), sparse below ~3,000 keys.
pub type OurHll = sketch_nostd::hll::Hll14;

/// A boxed empty [`OurHll`].
#[must_use]
pub fn our_hll() -> Box<OurHll> {
    Box::new(OurHll::with_seed(SEED))
}

impl<K: BenchKey> Distinct<K> for Box<OurHll> {
    #[inline]
    fn insert(&mut self, key: &K) {
        OurHll::insert(self, key);
    }
    fn estimate(&mut self) -> f64 {
        OurHll::cardinality(self)
    }
    fn bytes(&self) -> Option<usize> {
        Some(core::mem::size_of::<OurHll>())
    }
    fn encoded_bytes(&self) -> Option<usize> {
        Some(sketch_nostd::wire::encoded_len(&**self))
    }
}

/// `hyperloglockless`'s dense HyperLogLog at p = 14 (SipHash-1-3, seeded; 8-bit registers).
#[must_use]
pub fn hyperloglockless() -> hyperloglockless::HyperLogLog {
    hyperloglockless::HyperLogLog::seeded(HLL_P, u128::from(SEED))
}

impl<K: BenchKey> Distinct<K> for hyperloglockless::HyperLogLog {
    #[inline]
    fn insert(&mut self, key: &K) {
        hyperloglockless::HyperLogLog::insert(self, key);
    }
    fn estimate(&mut self) -> f64 {
        self.raw_count()
    }
    fn bytes(&self) -> Option<usize> {
        Some(self.len())
    }
    fn encoded_bytes(&self) -> Option<usize> {
        None
    }
}

/// `cardinality-estimator` at p = 14, 6-bit registers (its default hasher: wyhash).
pub type CardinalityEstimator<K> =
    cardinality_estimator::CardinalityEstimator<K, wyhash::WyHash, { HLL_P as usize }, 6>;

impl<K: BenchKey> Distinct<K> for CardinalityEstimator<K> {
    #[inline]
    fn insert(&mut self, key: &K) {
        CardinalityEstimator::insert(self, key);
    }
    fn estimate(&mut self) -> f64 {
        CardinalityEstimator::estimate(self) as f64
    }
    fn bytes(&self) -> Option<usize> {
        Some(self.size_of())
    }
    fn encoded_bytes(&self) -> Option<usize> {
        None
    }
}

/// `hyperloglogplus`'s HyperLogLog++ at p = 14 (std's SipHash-1-3 with zero keys).
pub type HyperLogLogPlus<K> = hyperloglogplus::HyperLogLogPlus<K, BuildHasherDefault<SipHasher13>>;

/// An empty [`HyperLogLogPlus`].
#[must_use]
pub fn hyperloglogplus<K: BenchKey>() -> HyperLogLogPlus<K> {
    hyperloglogplus::HyperLogLogPlus::new(HLL_P, BuildHasherDefault::default())
        .expect("valid hyperloglogplus precision")
}

impl<K: BenchKey> Distinct<K> for HyperLogLogPlus<K> {
    #[inline]
    fn insert(&mut self, key: &K) {
        hyperloglogplus::HyperLogLog::insert(self, key);
    }
    fn estimate(&mut self) -> f64 {
        hyperloglogplus::HyperLogLog::count(self)
    }
    fn bytes(&self) -> Option<usize> {
        None
    }
    fn encoded_bytes(&self) -> Option<usize> {
        None
    }
}

/// Apache DataSketches' HLL sketch at p = 14 with `ty` registers (its default hash: MurmurHash3).
#[must_use]
pub fn datasketches_hll(ty: datasketches::hll::HllType) -> datasketches::hll::HllSketch {
    datasketches::hll::HllSketch::new(HLL_P, ty).expect("valid datasketches HLL parameters")
}

impl<K: BenchKey> Distinct<K> for datasketches::hll::HllSketch {
    #[inline]
    fn insert(&mut self, key: &K) {
        self.update(key);
    }
    fn estimate(&mut self) -> f64 {
        datasketches::hll::HllSketch::estimate(self)
    }
    fn bytes(&self) -> Option<usize> {
        Some(self.estimated_size())
    }
    fn encoded_bytes(&self) -> Option<usize> {
        Some(self.serialize().len())
    }
}

/// A frequency estimator (count-min family): counts keys, never underestimates.
pub trait Frequency<K> {
    /// Counts one occurrence of a key.
    fn add(&mut self, key: &K);
    /// The estimated count of a key.
    fn estimate(&self, key: &K) -> u64;
    /// Bytes of the counters.
    fn bytes(&self) -> usize;
}

/// Target ε of every count-min sketch: overestimates by at most ε·N ...
pub const CM_EPSILON: f64 = 0.001;
/// ... with probability 1 − δ.
pub const CM_DELTA: f64 = 0.01;
/// Our width for ε = 0.001: ⌈e/ε⌉ = 2,719.
pub const CM_W: usize = cm_width(CM_EPSILON);
/// Our depth for δ = 0.01: ⌈ln 1/δ⌉ = 5.
pub const CM_D: usize = cm_depth(CM_DELTA);
/// Our count-min sketch with standard update (every row incremented).
pub type OurCmStandard = CountMin<CM_W, CM_D, u32, Standard>;
/// Our count-min sketch with conservative update (only the rows at the minimum).
pub type OurCmConservative = CountMin<CM_W, CM_D, u32, Conservative>;

impl<const W: usize, const D: usize, C: Counter, U: UpdatePolicy, K: BenchKey> Frequency<K>
    for Box<CountMin<W, D, C, U>>
{
    #[inline]
    fn add(&mut self, key: &K) {
        self.increment(key);
    }
    #[inline]
    fn estimate(&self, key: &K) -> u64 {
        CountMin::estimate(self, key)
    }
    fn bytes(&self) -> usize {
        W * D * core::mem::size_of::<C>()
    }
}

/// A boxed empty count-min sketch of ours.
#[must_use]
pub fn our_cm<U: UpdatePolicy>() -> Box<CountMin<CM_W, CM_D, u32, U>> {
    Box::new(CountMin::with_seed(SEED))
}

/// The count-min sketch as it was before its rows were mixed: the same `W × D` `u32` counters, seed
/// and update rules, but row `i`'s column is probe `i` of double hashing reduced directly
/// (`reduce(h1 + i·h2, W)`), so rows collide together. Kept only to measure what mixing each probe
/// costs, in the same run (`ours/countmin rows`).
pub struct UnmixedCm<const W: usize, const D: usize> {
    cells: Box<[[u32; W]; D]>,
    seed: u64,
    conservative: bool,
}

impl<const W: usize, const D: usize> UnmixedCm<W, D> {
    /// An empty sketch; `conservative` picks the update rule.
    #[must_use]
    pub fn new(seed: u64, conservative: bool) -> Self {
        Self {
            cells: vec![[0u32; W]; D]
                .into_boxed_slice()
                .try_into()
                .expect("D rows"),
            seed,
            conservative,
        }
    }

    #[inline]
    fn columns(hash: u64) -> [usize; D] {
        let probe = sketch_nostd::hash::Probe::new(hash);
        core::array::from_fn(|i| sketch_nostd::hash::reduce(probe.nth(i as u32), W as u32) as usize)
    }

    #[inline]
    fn min_at(&self, columns: &[usize; D]) -> u32 {
        let mut min = u32::MAX;
        for (row, &c) in self.cells.iter().zip(columns) {
            if let Some(&cell) = row.get(c) {
                min = min.min(cell);
            }
        }
        min
    }
}

impl<const W: usize, const D: usize, K: BenchKey> Frequency<K> for UnmixedCm<W, D> {
    #[inline]
    fn add(&mut self, key: &K) {
        let columns = Self::columns(sketch_nostd::hash::hash64(key, self.seed));
        if self.conservative {
            let new = self.min_at(&columns).saturating_add(1);
            for (row, &c) in self.cells.iter_mut().zip(&columns) {
                if let Some(cell) = row.get_mut(c) {
                    if *cell < new {
                        *cell = new;
                    }
                }
            }
        } else {
            for (row, &c) in self.cells.iter_mut().zip(&columns) {
                if let Some(cell) = row.get_mut(c) {
                    *cell = cell.saturating_add(1);
                }
            }
        }
    }
    #[inline]
    fn estimate(&self, key: &K) -> u64 {
        u64::from(self.min_at(&Self::columns(sketch_nostd::hash::hash64(key, self.seed))))
    }
    fn bytes(&self) -> usize {
        W * D * 4
    }
}

/// `count-min-sketch` (conservative update only) for ε = 0.001, δ = 0.01 by its own sizing: width
/// 2/ε rounded up to a power of two (2,048), depth ⌊log2(1/δ)⌋ = 6; u32 counters, SipHash-1-3.
#[must_use]
pub fn count_min_sketch<K: BenchKey>() -> count_min_sketch::CountMinSketch32<K> {
    count_min_sketch::CountMinSketch32::new(1000, 1.0 - CM_DELTA, CM_EPSILON * 1000.0)
        .expect("valid count-min-sketch parameters")
}

impl<K: BenchKey> Frequency<K> for count_min_sketch::CountMinSketch32<K> {
    #[inline]
    fn add(&mut self, key: &K) {
        self.increment(key);
    }
    #[inline]
    fn estimate(&self, key: &K) -> u64 {
        u64::from(count_min_sketch::CountMinSketch32::estimate(self, key))
    }
    fn bytes(&self) -> usize {
        count_min_sketch::CountMinSketch32::<K>::estimate_memory(
            1000,
            1.0 - CM_DELTA,
            CM_EPSILON * 1000.0,
        )
        .unwrap_or(0)
    }
}

/// `streaming_algorithms`' count-min (for integer counters its update is conservative) for ε = 0.001,
/// δ = 0.01 by its own sizing: width 2,048, depth 6, u32 counters, xxHash64.
#[must_use]
pub fn streaming_cm<K: BenchKey>() -> streaming_algorithms::CountMinSketch<K, u32> {
    streaming_algorithms::CountMinSketch::new(1.0 - CM_DELTA, CM_EPSILON, ())
}

/// The table size of [`streaming_cm`], computed with the crate's own sizing (it has no size query).
pub const STREAMING_CM_BYTES: usize = 2048 * 6 * 4;

impl<K: BenchKey> Frequency<K> for streaming_algorithms::CountMinSketch<K, u32> {
    #[inline]
    fn add(&mut self, key: &K) {
        self.push(key, &1);
    }
    #[inline]
    fn estimate(&self, key: &K) -> u64 {
        u64::from(self.get(key))
    }
    fn bytes(&self) -> usize {
        STREAMING_CM_BYTES
    }
}

/// Apache DataSketches' count-min (standard update) with its suggested sizes for ε = 0.001 and
/// confidence 0.99: 2,719 buckets × 5 hashes, u32 counters, MurmurHash3.
#[must_use]
pub fn datasketches_cm() -> datasketches::countmin::CountMinSketch<u32> {
    use datasketches::countmin::CountMinSketch;
    let buckets = CountMinSketch::<u32>::suggest_num_buckets(CM_EPSILON).expect("valid ε");
    let hashes = CountMinSketch::<u32>::suggest_num_hashes(1.0 - CM_DELTA).expect("valid δ");
    CountMinSketch::with_seed(hashes, buckets, SEED)
        .expect("valid datasketches count-min parameters")
}

impl<K: BenchKey> Frequency<K> for datasketches::countmin::CountMinSketch<u32> {
    #[inline]
    fn add(&mut self, key: &K) {
        self.update(key);
    }
    #[inline]
    fn estimate(&self, key: &K) -> u64 {
        u64::from(datasketches::countmin::CountMinSketch::estimate(self, key))
    }
    fn bytes(&self) -> usize {
        self.num_buckets() as usize * usize::from(self.num_hashes()) * 4
    }
}

/// A membership filter that can also forget keys.
pub trait Deletable<K> {
    /// Adds a key; `false` if the filter is full.
    fn insert(&mut self, key: &K) -> bool;
    /// `false` if the key is definitely absent.
    fn contains(&self, key: &K) -> bool;
    /// Removes a key that was inserted.
    fn remove(&mut self, key: &K);
    /// Bytes of the table.
    fn bytes(&self) -> usize;
}

/// Our counting Bloom filter for `n` keys at 1%: 4-bit counters, one per bit of the Bloom filter of
/// the same target (k = 7).
pub type OurCounting<const W: usize> = sketch_nostd::CountingBloom<W, 7>;

/// Words of [`OurCounting`] for `n` keys at 1%.
#[must_use]
pub const fn counting_words(n: usize) -> usize {
    sketch_nostd::sizing::counting_words_for(n as u64, BLOOM_FP)
}

/// A boxed empty [`OurCounting`] (the 1M-key filter is 4.8 MB).
#[must_use]
pub fn our_counting<const W: usize>() -> Box<OurCounting<W>> {
    Box::new(OurCounting::with_seed(SEED))
}

impl<const W: usize, K: BenchKey> Deletable<K> for Box<OurCounting<W>> {
    #[inline]
    fn insert(&mut self, key: &K) -> bool {
        OurCounting::insert(self, key);
        true
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        OurCounting::contains(self, key)
    }
    #[inline]
    fn remove(&mut self, key: &K) {
        let _ = OurCounting::remove(self, key);
    }
    fn bytes(&self) -> usize {
        core::mem::size_of::<OurCounting<W>>()
    }
}

/// Our cuckoo filter with 8-bit fingerprints (like `cuckoofilter`'s), sized for `n` keys at the
/// 95% load it reliably reaches: 8.4 bits per key.
pub type OurCuckoo<const B: usize> = CuckooFilter<B, u8>;

/// Buckets of [`OurCuckoo`] for `n` keys.
#[must_use]
pub const fn cuckoo_buckets(n: usize) -> usize {
    sketch_nostd::sizing::cuckoo_buckets_for(n as u64, sketch_nostd::sizing::CUCKOO_MAX_LOAD)
}

/// A boxed empty [`OurCuckoo`].
#[must_use]
pub fn our_cuckoo<const B: usize>() -> Box<OurCuckoo<B>> {
    Box::new(OurCuckoo::with_seed(SEED))
}

impl<const B: usize, F: Fingerprint, K: BenchKey> Deletable<K> for Box<CuckooFilter<B, F>> {
    #[inline]
    fn insert(&mut self, key: &K) -> bool {
        CuckooFilter::insert(self, key).is_ok()
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        CuckooFilter::contains(self, key)
    }
    #[inline]
    fn remove(&mut self, key: &K) {
        let _ = CuckooFilter::remove(self, key);
    }
    fn bytes(&self) -> usize {
        core::mem::size_of::<CuckooFilter<B, F>>()
    }
}

/// `cuckoofilter` with room for `n` keys (SipHash-1-3, 8-bit fingerprints, 4-slot buckets).
#[must_use]
pub fn cuckoofilter(n: usize) -> cuckoofilter::CuckooFilter<SipHasher13> {
    cuckoofilter::CuckooFilter::with_capacity(n)
}

impl<K: BenchKey> Deletable<K> for cuckoofilter::CuckooFilter<SipHasher13> {
    #[inline]
    fn insert(&mut self, key: &K) -> bool {
        self.add(key).is_ok()
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        cuckoofilter::CuckooFilter::contains(self, key)
    }
    #[inline]
    fn remove(&mut self, key: &K) {
        self.delete(key);
    }
    fn bytes(&self) -> usize {
        self.memory_usage()
    }
}

/// The `bloom` crate's counting Bloom filter (4-bit counters, two seeded SipHash-1-3 hashers, as
/// `fastbloom` seeds them), with the key count it was sized for (the crate does not report its size).
pub struct CountingBloom {
    inner: bloom::CountingBloomFilter<fastbloom::DefaultHasher, fastbloom::DefaultHasher>,
    counters: usize,
}

/// Counter width of [`counting_bloom`]: 4 bits, the classic choice.
pub const COUNTING_BITS: usize = 4;

/// The `bloom` crate's counting Bloom filter for `n` keys at 1%: its own sizing,
/// ⌈−n·ln p / ln²2⌉ counters of [`COUNTING_BITS`] bits.
#[must_use]
pub fn counting_bloom(n: usize) -> CountingBloom {
    CountingBloom {
        inner: bloom::CountingBloomFilter::with_rate_and_hashers(
            COUNTING_BITS,
            BLOOM_FP as f32,
            n as u32,
            fastbloom::DefaultHasher::seeded(&[1; 16]),
            fastbloom::DefaultHasher::seeded(&[2; 16]),
        ),
        counters: bloom::needed_bits(BLOOM_FP as f32, n as u32),
    }
}

impl<K: BenchKey> Deletable<K> for CountingBloom {
    #[inline]
    fn insert(&mut self, key: &K) -> bool {
        bloom::ASMS::insert(&mut self.inner, key);
        true
    }
    #[inline]
    fn contains(&self, key: &K) -> bool {
        bloom::ASMS::contains(&self.inner, key)
    }
    #[inline]
    fn remove(&mut self, key: &K) {
        self.inner.remove(key);
    }
    fn bytes(&self) -> usize {
        (self.counters * COUNTING_BITS).div_ceil(8)
    }
}

/// The merge adapter of every sketch of ours: the sealed [`Sketch`] trait itself, under which every
/// sketch merges, reports its seed and clears with the same names, so one generic function serves
/// them all (no peer crate has merges in this form, so there is no per-crate trait to implement).
///
/// # Errors
/// [`MergeError`] if the two sketches' seeds differ.
pub fn merge_into<S: Sketch>(target: &mut S, other: &S) -> Result<(), MergeError> {
    debug_assert_eq!(target.seed(), other.seed(), "benchmark sketches share SEED");
    target.merge(other)
}
