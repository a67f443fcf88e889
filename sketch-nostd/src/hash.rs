//! Stable hashing: the one place in the crate that turns keys into hashes and hashes into positions.
//!
//! Every sketch hashes a key exactly once, with [`hash64`] (xxh3-64 with a seed), and derives
//! everything else (Bloom bit positions, count-min columns, HyperLogLog register and rank) from that one
//! 64-bit value. The one exception is [`RedisHll`](crate::RedisHll), which must hash as Redis does:
//! with [`murmur64a`]. The result is identical on every target: keys are hashed through their canonical byte
//! encoding ([`Key`]), never through [`core::hash::Hash`], whose `usize` length prefixes differ between a
//! 32-bit microcontroller and a 64-bit host.
//!
//! Positions come from Kirsch–Mitzenmacher double hashing ([`Probe`]): the low and high 32-bit halves
//! of the hash give `h1` and `h2` (forced odd, so the `k` probe values are pairwise distinct), and probe
//! `i` is `h1 + i·h2 (mod 2^32)`. A probe value is reduced to `0..n` with Lemire's multiply-shift
//! ([`reduce`]), which needs one 32×32→64-bit multiply and no division: a `u64 %` would pull roughly
//! 900 bytes of division helpers into a Cortex-M0/M3 image and cost dozens of cycles.
//!
//! ```
//! use sketch_nostd::hash::{hash64, reduce, Probe};
//!
//! let h = hash64("user:42", 7);
//! let probe = Probe::new(h);
//! // The first three bit positions of this key in a 1,000-bit filter.
//! let positions: Vec<u32> = (0..3).map(|i| reduce(probe.nth(i), 1_000)).collect();
//! assert!(positions.iter().all(|&p| p < 1_000));
//! // The same key and seed always give the same hash, on every target and in every version.
//! assert_eq!(h, hash64(&b"user:42"[..], 7));
//! ```

use xxhash_rust::xxh3::{xxh3_64_with_seed, Xxh3};

/// A key that sketches can hash: anything with a canonical, target-independent byte encoding.
///
/// | type | bytes hashed |
/// | --- | --- |
/// | `str`, `[u8]`, `[u8; N]` | the bytes themselves (so `"ab"`, `b"ab"` and `[b'a', b'b']` are the same key) |
/// | `u8`…`u128`, `i8`…`i128` | little-endian bytes of the value |
/// | `usize` / `isize` | widened to `u64` / `i64` first, so 32- and 64-bit targets agree |
/// | `bool` | one byte, 0 or 1 |
/// | `char` | the `u32` scalar value, little-endian |
/// | `&T` | whatever `T` hashes |
/// | `heapless::String<N>`, `heapless::Vec<u8, N>` | the bytes, as `str` and `[u8]` |
///
/// Implement it for your own types by handing over a stable encoding (fixed field order, fixed-width
/// little-endian integers, no padding, no pointers):
///
/// ```
/// use sketch_nostd::{hash::hash64, Key};
///
/// struct FlowKey { src: [u8; 4], dst: [u8; 4], port: u16 }
///
/// impl Key for FlowKey {
///     fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
///         let mut buf = [0u8; 10];
///         buf[..4].copy_from_slice(&self.src);
///         buf[4..8].copy_from_slice(&self.dst);
///         buf[8..].copy_from_slice(&self.port.to_le_bytes());
///         f(&buf)
///     }
/// }
///
/// let a = FlowKey { src: [10, 0, 0, 1], dst: [10, 0, 0, 2], port: 443 };
/// assert_eq!(hash64(&a, 0), hash64(&[10u8, 0, 0, 1, 10, 0, 0, 2, 187, 1], 0));
/// ```
pub trait Key {
    /// Calls `f` with the key's canonical bytes and returns what it returns.
    ///
    /// ```
    /// use sketch_nostd::Key;
    /// assert_eq!(0x0102u16.with_key_bytes(|b| b.to_vec()), vec![0x02, 0x01]);
    /// ```
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;
}

impl Key for [u8] {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

impl Key for str {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

impl<const N: usize> Key for [u8; N] {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

impl<T: Key + ?Sized> Key for &T {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (**self).with_key_bytes(f)
    }
}

macro_rules! int_key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline]
            fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                f(&self.to_le_bytes())
            }
        }
    )*};
}
int_key!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

impl Key for usize {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (*self as u64).with_key_bytes(f)
    }
}

impl Key for isize {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (*self as i64).with_key_bytes(f)
    }
}

/// A `heapless::String` hashes as its `str`.
impl<L: heapless::LenType, S: heapless::string::StringStorage + ?Sized> Key
    for heapless::string::StringInner<L, S>
{
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

/// A `heapless::Vec<u8, N>` hashes as its bytes.
impl<L: heapless::LenType, S: heapless::vec::VecStorage<u8> + ?Sized> Key
    for heapless::vec::VecInner<u8, L, S>
{
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_slice())
    }
}

impl Key for bool {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(&[u8::from(*self)])
    }
}

impl Key for char {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (*self as u32).with_key_bytes(f)
    }
}

/// Hashes a key with xxh3-64 and a seed: the one hash every sketch uses.
///
/// Different seeds give practically independent hash functions. The value is part of the stable
/// interface: golden vectors in the tests pin it, so it never changes between versions or targets.
///
/// ```
/// use sketch_nostd::hash::hash64;
/// assert_eq!(hash64("", 0), 0x2D06_8005_38D3_94C2); // xxh3-64 of the empty input
/// assert_ne!(hash64("a", 0), hash64("a", 1));
/// assert_eq!(hash64(&7u32, 0), hash64(&[7u8, 0, 0, 0], 0));
/// ```
#[inline]
#[must_use]
pub fn hash64<Q: Key + ?Sized>(key: &Q, seed: u64) -> u64 {
    key.with_key_bytes(|bytes| xxh3_64_with_seed(bytes, seed))
}

/// [`hash64`] of a byte key (`str` or `[u8]`) as a `const fn`, for filters the compiler builds
/// (`Bloom::from_keys` and its siblings). It is xxhash-rust's `const_xxh3`, slower than [`hash64`] at
/// run time but equal to it for every input: `const_hash64(b, s) == hash64(b, s)`.
///
/// ```
/// use sketch_nostd::hash::{const_hash64, hash64};
/// const H: u64 = const_hash64(b"user:42", 7);
/// assert_eq!(H, hash64("user:42", 7));
/// ```
#[must_use]
pub const fn const_hash64(bytes: &[u8], seed: u64) -> u64 {
    xxhash_rust::const_xxh3::xxh3_64_with_seed(bytes, seed)
}

/// [`hash64`] of a `u64` key (its 8 little-endian bytes) as a `const fn`.
///
/// ```
/// use sketch_nostd::hash::{const_hash64_u64, hash64};
/// const H: u64 = const_hash64_u64(404, 0);
/// assert_eq!(H, hash64(&404u64, 0));
/// ```
#[must_use]
pub const fn const_hash64_u64(key: u64, seed: u64) -> u64 {
    const_hash64(&key.to_le_bytes(), seed)
}

/// The longest key [`hash64_short`] hashes: xxh3's short and mid-size inputs end at 128 bytes.
pub const SHORT_KEY_MAX: usize = 128;

/// [`hash64`] of a byte key of at most [`SHORT_KEY_MAX`] bytes, in a fraction of the code: `None`
/// for a longer key.
///
/// For firmware that hashes keys of run-time length (URL parts, names) and knows a bound on them:
/// xxh3 written for size, one loop over the 16-byte mixes instead of xxhash-rust's unrolled paths
/// (on a Cortex-M0, about 0.6 KB instead of 2.6 KB for the same inputs, and xxh3's 129-byte and
/// longer paths not linked at all). The value is [`hash64`]'s for every key it hashes, on every
/// target (the tests compare the two for every length from 0 to 128 bytes); a host, where code size
/// does not matter, is better served by [`hash64`] itself.
///
/// ```
/// use sketch_nostd::hash::{hash64, hash64_short, SHORT_KEY_MAX};
/// assert_eq!(hash64_short(b"https://example.com/", 7), Some(hash64("https://example.com/", 7)));
/// assert_eq!(hash64_short(&[0u8; SHORT_KEY_MAX], 7), Some(hash64(&[0u8; SHORT_KEY_MAX], 7)));
/// assert_eq!(hash64_short(&[0u8; SHORT_KEY_MAX + 1], 7), None);
/// ```
#[must_use]
pub fn hash64_short(bytes: &[u8], seed: u64) -> Option<u64> {
    // xxh3-64 with a seed for inputs up to 128 bytes (the reference's `XXH3_len_0to16_64b` and
    // `XXH3_len_17to128_64b`), reading the default secret as little-endian words.
    let len = bytes.len();
    let n = len as u64;
    let secret = |i: usize| XXH3_SECRET.get(i).copied().unwrap_or(0);
    let hash = if len > SHORT_KEY_MAX {
        return None;
    } else if len > 16 {
        // The reference adds pairs of 16-byte mixes, from both ends inwards, one pair for each
        // 32 bytes started: the same terms in a loop (wrapping additions commute).
        let mut acc = n.wrapping_mul(XXH_PRIME64_1);
        for i in 0..=(len - 1) / 32 {
            let front = xxh3_mix16(bytes, 16 * i, secret(4 * i), secret(4 * i + 1), seed);
            let back = xxh3_mix16(
                bytes,
                len - 16 * (i + 1),
                secret(4 * i + 2),
                secret(4 * i + 3),
                seed,
            );
            acc = acc.wrapping_add(front).wrapping_add(back);
        }
        xxh3_avalanche(acc)
    } else if len > 8 {
        let lo = read_le(bytes, 0, 8) ^ (secret(3) ^ secret(4)).wrapping_add(seed);
        let hi = read_le(bytes, len - 8, 8) ^ (secret(5) ^ secret(6)).wrapping_sub(seed);
        xxh3_avalanche(
            n.wrapping_add(lo.swap_bytes())
                .wrapping_add(hi)
                .wrapping_add(mul_fold64(lo, hi)),
        )
    } else if len >= 4 {
        let seed = seed ^ (u64::from((seed as u32).swap_bytes()) << 32);
        let input = read_le(bytes, len - 4, 4).wrapping_add(read_le(bytes, 0, 4) << 32);
        let mut h = input ^ (secret(1) ^ secret(2)).wrapping_sub(seed);
        // rrmxmx
        h ^= h.rotate_left(49) ^ h.rotate_left(24);
        h = h.wrapping_mul(0x9FB2_1C65_1E98_DF25);
        h ^= (h >> 35).wrapping_add(n);
        h = h.wrapping_mul(0x9FB2_1C65_1E98_DF25);
        h ^ (h >> 28)
    } else if len > 0 {
        // One to three bytes: first, middle and last, with the length.
        let byte = |i: usize| u32::from(bytes.get(i).copied().unwrap_or(0));
        let combined = byte(0) << 16 | byte(len >> 1) << 24 | byte(len - 1) | (len as u32) << 8;
        let s = secret(0);
        let flip = u64::from(s as u32 ^ (s >> 32) as u32).wrapping_add(seed);
        xxh64_avalanche(u64::from(combined) ^ flip)
    } else {
        xxh64_avalanche(seed ^ secret(7) ^ secret(8))
    };
    Some(hash)
}

/// The first 128 bytes of xxh3's default secret (`kSecret`), as little-endian 64-bit words: all
/// that inputs of up to 128 bytes read, and at 8-byte offsets only.
const XXH3_SECRET: [u64; 16] = [
    0xBE4B_A423_396C_FEB8,
    0x1CAD_21F7_2C81_017C,
    0xDB97_9083_E96D_D4DE,
    0x1F67_B3B7_A4A4_4072,
    0x78E5_C0CC_4EE6_79CB,
    0x2172_FFCC_7DD0_5A82,
    0x8E24_43F7_7446_08B8,
    0x4C26_3A81_E690_35E0,
    0xCB00_C391_BB52_283C,
    0xA32E_531B_8B65_D088,
    0x4EF9_0DA2_9748_6471,
    0xD8AC_DEA9_46EF_1938,
    0x3F34_9CE3_3F76_FAA8,
    0x1D4F_0BC7_C7BB_DCF9,
    0x3159_B4CD_4BE0_518A,
    0x6473_78D9_C97E_9FC8,
];

const XXH_PRIME64_1: u64 = 0x9E37_79B1_85EB_CA87;

/// `n` (at most 8) little-endian bytes of `bytes` from `at` (0 past the end: never, for the
/// callers' offsets). One loop for every read, for size.
#[inline(never)]
fn read_le(bytes: &[u8], at: usize, n: usize) -> u64 {
    bytes
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take(n)
        .rev()
        .fold(0, |word, &b| word << 8 | u64::from(b))
}

/// xxh3's `mix16B`: 16 input bytes from `at`, keyed by two secret words and the seed.
#[inline(never)]
fn xxh3_mix16(bytes: &[u8], at: usize, s0: u64, s1: u64, seed: u64) -> u64 {
    mul_fold64(
        read_le(bytes, at, 8) ^ s0.wrapping_add(seed),
        read_le(bytes, at + 8, 8) ^ s1.wrapping_sub(seed),
    )
}

/// The 128-bit product of `a` and `b`, its halves xored.
#[inline(never)]
fn mul_fold64(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    product as u64 ^ (product >> 64) as u64
}

fn xxh3_avalanche(mut h: u64) -> u64 {
    h ^= h >> 37;
    h = h.wrapping_mul(0x1656_6791_9E37_79F9);
    h ^ (h >> 32)
}

fn xxh64_avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^= h >> 29;
    h = h.wrapping_mul(0x1656_67B1_9E37_79F9);
    h ^ (h >> 32)
}

/// [`hash64`] of a byte key that arrives in pieces: the same value, without holding the whole key.
///
/// For keys too long to buffer (a multi-megabyte log line read in chunks): feed the pieces in order
/// with [`update`](Self::update), then [`finish`](Self::finish) gives exactly `hash64` of their
/// concatenation, so the result can go to any sketch's `insert_hash`. The state is about 600 bytes
/// (xxh3's streaming buffer and secret), on the stack, no heap.
///
/// ```
/// use sketch_nostd::hash::{hash64, StreamHasher};
///
/// let mut h = StreamHasher::new(7);
/// h.update(b"GET /index.html ");
/// h.update(b"HTTP/1.1");
/// assert_eq!(h.finish(), hash64("GET /index.html HTTP/1.1", 7));
/// ```
#[derive(Clone)]
pub struct StreamHasher {
    state: Xxh3,
}

impl StreamHasher {
    /// A hasher for a key hashed with `seed`, as [`hash64`]`(key, seed)` would.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self {
            state: Xxh3::with_seed(seed),
        }
    }

    /// Appends the next piece of the key's bytes.
    ///
    /// ```
    /// let mut h = sketch_nostd::hash::StreamHasher::new(0);
    /// h.update(b"");
    /// assert_eq!(h.finish(), sketch_nostd::hash::hash64("", 0));
    /// ```
    #[inline]
    pub fn update(&mut self, piece: &[u8]) {
        self.state.update(piece);
    }

    /// The hash of all the bytes given so far (the hasher can keep going afterwards).
    ///
    /// ```
    /// use sketch_nostd::hash::{hash64, StreamHasher};
    /// let mut h = StreamHasher::new(1);
    /// h.update(b"ab");
    /// assert_eq!(h.finish(), hash64("ab", 1));
    /// h.update(b"c");
    /// assert_eq!(h.finish(), hash64("abc", 1));
    /// ```
    #[must_use]
    pub fn finish(&self) -> u64 {
        self.state.digest()
    }
}

impl core::fmt::Debug for StreamHasher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamHasher").finish_non_exhaustive()
    }
}

/// MurmurHash64A (Austin Appleby's MurmurHash2, 64-bit version) of `bytes` with `seed`.
///
/// Not the hash of this crate's sketches ([`hash64`] is): it is here for compatibility with
/// systems that use it, above all Redis, whose HyperLogLog hashes every `PFADD` argument with
/// `murmur64a(bytes, 0xadc83b19)` (see [`crate::redis`]). Eight-byte blocks are read
/// little-endian whatever the target, as Redis does on every architecture, so the value is the same
/// on a 32-bit microcontroller and a 64-bit host.
///
/// ```
/// use sketch_nostd::hash::murmur64a;
/// assert_eq!(murmur64a(b"", 0), 0);
/// assert_ne!(murmur64a(b"a", 0), murmur64a(b"a", 1));
/// ```
#[must_use]
pub fn murmur64a(bytes: &[u8], seed: u64) -> u64 {
    const M: u64 = 0xc6a4_a793_5bd1_e995;
    const R: u32 = 47;
    let mut h = seed ^ (bytes.len() as u64).wrapping_mul(M);
    let mut blocks = bytes.chunks_exact(8);
    for block in &mut blocks {
        let mut k = u64::from_le_bytes(block.try_into().unwrap_or([0; 8]));
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    // The 0–7 trailing bytes, as one little-endian word.
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let t = tail
            .iter()
            .enumerate()
            .fold(0u64, |t, (j, &b)| t | u64::from(b) << (8 * j));
        h ^= t;
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h
}

/// Kirsch–Mitzenmacher double hashing: `k` probe values from one 64-bit hash.
///
/// `h1` is the low half of the hash and `h2` the high half with its lowest bit set. Because `h2` is odd
/// it is invertible modulo 2^32, so `h1 + i·h2` takes 2^32 distinct values for `i` in `0..2^32`: the
/// probes of one key never collapse onto each other before reduction.
///
/// ```
/// use sketch_nostd::hash::Probe;
/// let p = Probe::new(0x0000_0004_0000_0001);
/// assert_eq!(p.nth(0), 1);
/// assert_eq!(p.nth(1), 1 + 5); // h2 = 4 | 1
/// assert_eq!(p.nth(2), 1 + 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    h1: u32,
    h2: u32,
}

impl Probe {
    /// Splits a 64-bit hash into the two halves used for double hashing.
    #[inline]
    #[must_use]
    pub const fn new(hash: u64) -> Self {
        Self {
            h1: hash as u32,
            h2: (hash >> 32) as u32 | 1,
        }
    }

    /// The `i`-th probe value, `h1 + i·h2 (mod 2^32)`.
    ///
    /// ```
    /// use sketch_nostd::hash::Probe;
    /// let p = Probe::new(u64::MAX);
    /// assert_eq!(p.nth(1), u32::MAX.wrapping_add(u32::MAX));
    /// ```
    #[inline]
    #[must_use]
    pub const fn nth(self, i: u32) -> u32 {
        self.h1.wrapping_add(i.wrapping_mul(self.h2))
    }

    /// Probe `i` passed through [`mix32`]: what count-min rows use, so that two keys which share
    /// their columns in two rows are no more likely to share them in a third.
    ///
    /// Reduced with [`reduce`], plain probes `h1 + i·h2` of two keys that land in the same column of
    /// rows 0 and 1 have nearly equal `h1` and `h2`, so they land together in most of the other rows
    /// too, and a light key inherits a heavy key's whole count. `mix32` is a bijection whose output
    /// bits each depend on every input bit: after it, the columns of distinct probe values are as
    /// good as independent, while two keys still need equal `h1` and `h2` (one chance in 2^63) to
    /// share every row by construction.
    ///
    /// ```
    /// use sketch_nostd::hash::{mix32, Probe};
    /// let p = Probe::new(0x0000_0004_0000_0001);
    /// assert_eq!(p.nth_mixed(2), mix32(p.nth(2)));
    /// ```
    #[inline]
    #[must_use]
    pub const fn nth_mixed(self, i: u32) -> u32 {
        mix32(self.nth(i))
    }

    /// The probe values for `i = 0, 1, 2, …`, without end (take as many as needed).
    ///
    /// ```
    /// use sketch_nostd::hash::Probe;
    /// let p = Probe::new(0x0000_0002_0000_0000);
    /// assert_eq!(p.iter().take(3).collect::<Vec<_>>(), [0, 3, 6]);
    /// ```
    #[inline]
    pub fn iter(self) -> impl Iterator<Item = u32> {
        let mut g = self.h1;
        core::iter::repeat_with(move || {
            let current = g;
            g = g.wrapping_add(self.h2);
            current
        })
    }
}

/// Maps a uniform 32-bit value onto `0..n` without division (Lemire's multiply-shift, `x·n / 2^32`).
///
/// The result is always below `n` when `n > 0`, and 0 when `n == 0`. When `n` is a power of two
/// this is `x >> (32 − log2 n)`, which the compiler emits for constant `n`.
///
/// ```
/// use sketch_nostd::hash::reduce;
/// assert_eq!(reduce(0, 10), 0);
/// assert_eq!(reduce(u32::MAX, 10), 9);
/// assert_eq!(reduce(0x8000_0000, 1 << 10), 512);
/// ```
#[inline]
#[must_use]
pub const fn reduce(x: u32, n: u32) -> u32 {
    ((x as u64 * n as u64) >> 32) as u32
}

/// A 32-bit integer mixer (MurmurHash3's `fmix32` finalizer): a fixed bijection on `u32` whose output
/// bits each depend on every input bit. Two 32×32-bit multiplies, no 64-bit arithmetic.
///
/// The cuckoo filter uses it to hash a fingerprint into the offset of the fingerprint's other bucket
/// (partial-key cuckoo hashing needs a hash of the fingerprint alone). It is part of the stable
/// interface: changing it would move fingerprints between buckets.
///
/// ```
/// use sketch_nostd::hash::mix32;
/// assert_eq!(mix32(0), 0);
/// assert_eq!(mix32(1), 0x514E_28B7);
/// assert_ne!(mix32(2), mix32(3));
/// ```
#[inline]
#[must_use]
pub const fn mix32(x: u32) -> u32 {
    let mut h = x;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// A 64-bit mixer (MurmurHash3's `fmix64` finalizer): a fixed bijection on `u64` whose output bits
/// each depend on every input bit. The binary fuse filter mixes its construction seed into a key's
/// hash with it (`mix64(hash + seed)`, as the reference implementation does). Part of the stable
/// interface.
///
/// ```
/// use sketch_nostd::hash::mix64;
/// assert_eq!(mix64(0), 0);
/// assert_eq!(mix64(1), 0xB456_BCFC_34C2_CB2C);
/// ```
#[inline]
#[must_use]
pub const fn mix64(x: u64) -> u64 {
    let mut h = x;
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

/// A `String` hashes as its `str` (feature `alloc`).
#[cfg(feature = "alloc")]
impl Key for alloc::string::String {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}

/// A `Vec<u8>` hashes as its bytes (feature `alloc`).
#[cfg(feature = "alloc")]
impl Key for alloc::vec::Vec<u8> {
    #[inline]
    fn with_key_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compact xxh3 against xxhash-rust's for every length it takes (0–128: each of xxh3's
    /// length classes and every number of 16-byte mix pairs, with both ends' reads overlapping or
    /// not), random bytes and seeds (0, all ones, a 32-bit one, random), and `None` past 128.
    #[test]
    fn hash64_short_is_hash64_up_to_128_bytes() {
        let mut rng = sketch_rng::SplitMix64(0x5107);
        let mut buf = [0u8; 200];
        for round in 0..40 {
            buf.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            let seed = match round {
                0 => 0,
                1 => u64::MAX,
                2 => 0x8000_0001,
                _ => rng.next_u64(),
            };
            for len in 0..=SHORT_KEY_MAX {
                let key = &buf[round..round + len];
                assert_eq!(
                    hash64_short(key, seed),
                    Some(xxh3_64_with_seed(key, seed)),
                    "len {len}, seed {seed:#x}"
                );
            }
            for len in SHORT_KEY_MAX + 1..=buf.len() - round {
                assert_eq!(hash64_short(&buf[round..round + len], seed), None);
            }
        }
    }

    #[test]
    fn keys_of_equal_bytes_hash_equally() {
        assert_eq!(hash64("abc", 3), hash64(b"abc", 3));
        assert_eq!(hash64("abc", 3), hash64(&b"abc"[..], 3));
        assert_eq!(hash64(&&"abc", 3), hash64("abc", 3));
        assert_eq!(hash64(&5usize, 9), hash64(&5u64, 9));
        assert_eq!(hash64(&-5isize, 9), hash64(&-5i64, 9));
        assert_eq!(hash64(&'é', 0), hash64(&0xE9u32, 0));
        assert_eq!(hash64(&true, 0), hash64(&1u8, 0));
        let s: heapless::String<8> = heapless::String::try_from("abc").unwrap();
        assert_eq!(hash64(&s, 3), hash64("abc", 3));
        let v: heapless::Vec<u8, 8> = heapless::Vec::from_slice(b"abc").unwrap();
        assert_eq!(hash64(&v, 3), hash64("abc", 3));
    }

    /// SMHasher's verification procedure (`VerificationTest` in aappleby/smhasher's
    /// `KeysetTest.cpp`): hash the keys `[]`, `[0]`, `[0, 1]`, … `[0, …, 254]` with seed `256 − len`,
    /// hash the concatenation of the 256 results (little-endian) with seed 0, and take the low
    /// 32 bits. SMHasher lists 0x1F0D3804 for MurmurHash64A ("Murmur2B"). Every length class of the
    /// tail (0–7 bytes) and 0–31 whole blocks take part.
    #[test]
    fn murmur64a_passes_smhasher_verification() {
        let key: Vec<u8> = (0..=255u8).collect();
        let mut hashes = Vec::with_capacity(256 * 8);
        for len in 0..256usize {
            hashes.extend_from_slice(&murmur64a(&key[..len], 256 - len as u64).to_le_bytes());
        }
        let verification = murmur64a(&hashes, 0) as u32;
        assert_eq!(verification, 0x1F0D_3804);
    }

    /// Known values, worked by hand from the algorithm's definition (the empty input with seed 0
    /// mixes nothing: every step multiplies or shifts 0), and consistency of the tail handling with
    /// whole blocks: a key's hash depends on all of its bytes.
    #[test]
    fn murmur64a_edges() {
        assert_eq!(murmur64a(b"", 0), 0);
        let m = 0xc6a4_a793_5bd1_e995u64;
        // One byte, seed 0: h = 1·m (the length), then ^= 0x61, ·m, and the final mix.
        let mut h = m ^ 0x61;
        h = h.wrapping_mul(m);
        h ^= h >> 47;
        h = h.wrapping_mul(m);
        h ^= h >> 47;
        assert_eq!(murmur64a(b"a", 0), h);
        let data: Vec<u8> = (0..40u8).collect();
        for len in 1..data.len() {
            let mut flipped = data[..len].to_vec();
            flipped[len - 1] ^= 1;
            assert_ne!(
                murmur64a(&data[..len], 7),
                murmur64a(&flipped, 7),
                "len {len}"
            );
        }
    }

    #[test]
    fn reduce_stays_in_range() {
        for n in [1u32, 2, 3, 7, 64, 1000, 100_032, u32::MAX] {
            for x in [0u32, 1, 12345, 0x7fff_ffff, 0x8000_0000, u32::MAX] {
                assert!(reduce(x, n) < n, "reduce({x}, {n})");
            }
        }
        assert_eq!(reduce(u32::MAX, 0), 0);
    }

    #[test]
    fn probes_are_distinct_for_small_k() {
        for h in [0u64, 1, u64::MAX, 0xdead_beef_cafe_f00d] {
            let p = Probe::new(h);
            for i in 0..32 {
                for j in 0..i {
                    assert_ne!(p.nth(i), p.nth(j));
                }
            }
            assert!(p.iter().take(32).eq((0..32).map(|i| p.nth(i))));
        }
    }

    #[test]
    fn stream_hasher_equals_one_shot_for_every_split() {
        // Lengths around xxh3's internal thresholds (16, 128, 240, the 256-byte buffer, stripes
        // and blocks), split into pieces of several sizes, with seed 0 and a non-zero seed.
        let data: Vec<u8> = (0..5_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for seed in [0u64, 0x9e37_79b9_7f4a_7c15] {
            for len in [
                0usize, 1, 3, 16, 17, 128, 129, 240, 241, 255, 256, 257, 1_024, 1_025, 4_999,
            ] {
                let key = &data[..len];
                for piece in [1usize, 7, 64, 255, 256, 1_000] {
                    let mut h = StreamHasher::new(seed);
                    for chunk in key.chunks(piece) {
                        h.update(chunk);
                    }
                    assert_eq!(
                        h.finish(),
                        hash64(key, seed),
                        "len {len}, piece {piece}, seed {seed}"
                    );
                }
            }
        }
    }
}
