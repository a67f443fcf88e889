//! Redis-compatible HyperLogLog: sketches that Redis can `PFCOUNT` and `PFMERGE`, and back.
//!
//! [`RedisHll`] counts keys exactly as a Redis `PFADD` does, so a device can build the sketch and a
//! Redis server (or a Redis Cluster) can take it over with a plain `SET`:
//!
//! * hash: [`murmur64a`] with seed [`REDIS_SEED`] (`0xadc83b19`) over the key's bytes (the bytes
//!   `PFADD` receives: an integer a client sends as text is hashed as its decimal text);
//! * register: the low 14 bits of the hash (16,384 registers); value: 1 + the number of trailing zeros
//!   of `(hash >> 14) | 2^50`, so 1 to 51;
//! * estimate: Ertl's improved estimator, which Redis uses since 5.0 (the library's own, shared with
//!   [`HyperLogLog`](crate::HyperLogLog)), rounded half away from zero as Redis rounds it.
//!
//! Redis keeps a HyperLogLog in a string: a 16-byte header (`"HYLL"`, an encoding byte, 3 zero
//! bytes, a cached cardinality as a little-endian `u64` whose top bit means "stale, recompute"),
//! then either the dense registers (12,288 bytes of 6-bit values packed least significant bit first,
//! [`DENSE_LEN`] = 12,304 bytes in all) or the sparse run-length form (`ZERO`, `XZERO` and `VAL`
//! opcodes covering exactly 16,384 registers, values at most 32). [`RedisHll::encode`] writes the
//! smaller of the two, [`RedisHll::decode`] reads both and refuses anything Redis could not have
//! written (with a [`RedisError`], never a panic).
//!
//! ```
//! use sketch_nostd::redis::{RedisHll, DENSE_LEN};
//!
//! let mut hll = RedisHll::new();
//! for user in ["alice", "bob", "carol", "alice"] {
//!     hll.insert(user);
//! }
//! assert_eq!(hll.count(), 3);
//!
//! // The string to `SET` (here sparse: the header and a dozen bytes of opcodes)...
//! let mut buf = [0u8; DENSE_LEN];
//! let bytes = hll.encode(&mut buf);
//! assert_eq!(&bytes[..4], b"HYLL");
//! assert!(bytes.len() < 30);
//! // ... and what a `GET` of it (or of Redis's own key) gives back.
//! let back = RedisHll::decode(bytes)?;
//! assert!(back == hll);
//! # Ok::<(), sketch_nostd::RedisError>(())
//! ```
//!
//! The sketch is 12,336 bytes: a dense [`Hll14`] (whose register layout is Redis's own) fed with
//! Redis's register and value for each hash, so merging, the register sums behind an O(1) estimate
//! and the estimator itself are the library's. Keys hash with MurmurHash64A rather than the library's
//! xxh3, so a `RedisHll` merges with other `RedisHll`s (and Redis keys), not with a [`Hll14`].

use core::fmt;

use crate::error::{MergeError, RedisError};
use crate::hash::{murmur64a, Key};
use crate::hll::Hll14;

/// The seed Redis hashes `PFADD` arguments with: `murmur64a(key, REDIS_SEED)`.
pub const REDIS_SEED: u64 = 0xadc8_3b19;

/// Number of registers of a Redis HyperLogLog (2^14).
pub const REGISTERS: usize = 1 << P;

/// Length of the header that starts every Redis HyperLogLog string.
pub const HEADER_LEN: usize = 16;

/// Bytes of packed 6-bit dense registers (16,384 · 6 / 8).
pub const REGISTER_BYTES: usize = REGISTERS * 6 / 8;

/// Length of a dense Redis HyperLogLog string: header and registers, 12,304 bytes. Redis refuses
/// a dense string of any other length.
pub const DENSE_LEN: usize = HEADER_LEN + REGISTER_BYTES;

/// The largest register value the sparse form's `VAL` opcode can hold.
pub const MAX_SPARSE_VALUE: u8 = 32;

/// The largest register value a Redis HyperLogLog holds: 64 − 14 + 1.
pub const MAX_VALUE: u8 = 51;

/// The header's cached-cardinality bit that means "stale: recompute".
pub const STALE: u64 = 1 << 63;

/// The header's magic bytes.
const MAGIC: [u8; 4] = *b"HYLL";
/// Encoding byte of the dense form.
const DENSE: u8 = 0;
/// Encoding byte of the sparse form.
const SPARSE: u8 = 1;
/// Register index bits.
const P: u32 = 14;
/// `ZERO` opcode `00xxxxxx`: 1 to 64 zero registers.
const ZERO_MAX: usize = 64;
/// `XZERO` opcode `01xxxxxx yyyyyyyy`: 1 to 16,384 zero registers.
const XZERO_MAX: usize = 16_384;
/// `VAL` opcode `1vvvvvxx`: 1 to 4 registers of value 1 to 32.
const VAL_MAX: usize = 4;

/// A HyperLogLog that counts, encodes and decodes exactly as Redis's `PFADD`, `GET` and `SET` do
/// (16,384 registers, MurmurHash64A with seed [`REDIS_SEED`], Ertl's estimator). See the
/// [module documentation](self) for the format.
///
/// ```
/// use sketch_nostd::redis::RedisHll;
///
/// let mut a = RedisHll::new();
/// let mut b = RedisHll::new();
/// for i in 0..1_000u32 {
///     a.insert(i.to_string().as_str()); // as a client sends integers: decimal text
/// }
/// for i in 500..1_500u32 {
///     b.insert(i.to_string().as_str());
/// }
/// a.merge(&b)?;
/// let n = a.count();
/// assert!((n as f64 - 1_500.0).abs() < 3.0 * 0.0081 * 1_500.0, "{n}");
/// # Ok::<(), sketch_nostd::MergeError>(())
/// ```
#[derive(Clone)]
pub struct RedisHll {
    /// Always dense, with seed [`REDIS_SEED`]: its packed registers are Redis's dense registers.
    inner: Hll14,
}

impl RedisHll {
    /// An empty sketch.
    ///
    /// ```
    /// let h = sketch_nostd::redis::RedisHll::new();
    /// assert!(h.is_empty());
    /// assert_eq!(h.count(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Self {
        let mut inner = Hll14::with_seed(REDIS_SEED);
        inner.to_dense();
        Self { inner }
    }

    /// Counts a key, as `PFADD key-bytes` would; returns whether a register changed (Redis's reply
    /// to a one-element `PFADD` on a dense key).
    ///
    /// The key is hashed over its [`Key`] bytes: a `str` or `[u8]` as itself, an integer as its
    /// little-endian bytes. Redis hashes what the client sent, and clients send integers as decimal
    /// text, so to agree with Redis insert `n.to_string()` (or format into a stack buffer), not `n`.
    ///
    /// ```
    /// let mut h = sketch_nostd::redis::RedisHll::new();
    /// assert!(h.insert("a"));
    /// assert!(!h.insert("a"));
    /// ```
    #[inline]
    pub fn insert<Q: Key + ?Sized>(&mut self, key: &Q) -> bool {
        self.insert_hash(key.with_key_bytes(|bytes| murmur64a(bytes, REDIS_SEED)))
    }

    /// Counts a key by its Redis hash, `murmur64a(key, REDIS_SEED)`.
    ///
    /// ```
    /// use sketch_nostd::{hash::murmur64a, redis::{RedisHll, REDIS_SEED}};
    /// let mut a = RedisHll::new();
    /// let mut b = RedisHll::new();
    /// a.insert("k");
    /// b.insert_hash(murmur64a(b"k", REDIS_SEED));
    /// assert!(a == b);
    /// ```
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) -> bool {
        let index = (hash & (REGISTERS as u64 - 1)) as usize;
        let value = ((hash >> P) | 1 << (64 - P)).trailing_zeros() as u8 + 1;
        self.raise(index, value)
    }

    /// Raises register `index` to `value` (1..=51) through the inner sketch's hash interface: the
    /// inner sketch takes its register from the top 14 bits and its value from 1 + the leading
    /// zeros of the low 50 bits, so a hash with `index` on top and one bit at `50 − value` (none for
    /// 51) is exactly that register and value.
    #[inline]
    fn raise(&mut self, index: usize, value: u8) -> bool {
        let low = if value < MAX_VALUE {
            1u64 << (u32::from(MAX_VALUE) - 1 - u32::from(value))
        } else {
            0
        };
        self.inner.insert_hash((index as u64) << (64 - P) | low)
    }

    /// Whether no key was counted.
    ///
    /// ```
    /// let mut h = sketch_nostd::redis::RedisHll::new();
    /// h.insert("x");
    /// assert!(!h.is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Forgets every key.
    ///
    /// ```
    /// let mut h = sketch_nostd::redis::RedisHll::new();
    /// h.insert("x");
    /// h.clear();
    /// assert!(h.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.inner.clear();
        self.inner.to_dense();
    }

    /// Ertl's improved estimate of the number of distinct keys, before rounding (Redis reports
    /// [`count`](Self::count)). Its relative standard error is about 1.04/√16384 = 0.81%.
    ///
    /// ```
    /// let mut h = sketch_nostd::redis::RedisHll::new();
    /// for i in 0..100_000u32 { h.insert(&i); }
    /// let e = h.cardinality();
    /// assert!((e - 1e5).abs() < 4.0 * 0.0081 * 1e5, "{e}");
    /// ```
    #[must_use]
    pub fn cardinality(&self) -> f64 {
        self.inner.histogram_estimate()
    }

    /// The estimate as `PFCOUNT` reports it: [`cardinality`](Self::cardinality) rounded half away
    /// from zero. Redis computes in `double`, the library with a 64-bit mantissa, so where the exact
    /// value lies within a rounding error of a half the two can differ by one.
    ///
    /// ```
    /// let mut h = sketch_nostd::redis::RedisHll::new();
    /// for k in ["a", "b", "c"] { h.insert(k); }
    /// assert_eq!(h.count(), 3);
    /// ```
    #[must_use]
    pub fn count(&self) -> u64 {
        libm::round(self.cardinality()) as u64
    }

    /// Register-wise maximum with `other`: the sketch of the union, as `PFMERGE` computes it.
    ///
    /// # Errors
    /// None in practice: every `RedisHll` hashes with [`REDIS_SEED`]. The `Result` is that of every
    /// sketch's `merge`.
    ///
    /// ```
    /// use sketch_nostd::redis::RedisHll;
    /// let (mut a, mut b) = (RedisHll::new(), RedisHll::new());
    /// a.insert("x");
    /// b.insert("y");
    /// a.merge(&b)?;
    /// assert_eq!(a.count(), 2);
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    pub fn merge(&mut self, other: &Self) -> Result<(), MergeError> {
        self.inner.merge(&other.inner)
    }

    /// The sketch as the library's [`Hll14`] (seed [`REDIS_SEED`], registers and values as Redis
    /// has them), for what takes a `HyperLogLog`: the wire format, to send it from a device in a
    /// frame; [`from_hll14`](Self::from_hll14) takes it back.
    ///
    /// ```
    /// use sketch_nostd::redis::{RedisHll, REDIS_SEED};
    /// let mut h = RedisHll::new();
    /// h.insert("a");
    /// assert_eq!(h.as_hll14().seed(), REDIS_SEED);
    /// assert!(RedisHll::from_hll14(h.as_hll14())? == h);
    /// # Ok::<(), sketch_nostd::MergeError>(())
    /// ```
    #[must_use]
    pub const fn as_hll14(&self) -> &Hll14 {
        &self.inner
    }

    /// The sketch an [`Hll14`] from [`as_hll14`](Self::as_hll14) stands for (dense or sparse, for
    /// instance as a wire decoder returns it).
    ///
    /// # Errors
    /// [`MergeError::SeedMismatch`] if its seed is not [`REDIS_SEED`]: an `Hll14` that hashed its
    /// keys with xxh3 has registers Redis would not recognise.
    ///
    /// ```
    /// use sketch_nostd::{redis::RedisHll, Hll14};
    /// assert!(RedisHll::from_hll14(&Hll14::new()).is_err());
    /// ```
    pub fn from_hll14(hll: &Hll14) -> Result<Self, MergeError> {
        let mut r = Self::new();
        r.inner.merge(hll)?;
        Ok(r)
    }

    /// The 16,384 register values, in order.
    ///
    /// ```
    /// use sketch_nostd::redis::RedisHll;
    /// let mut h = RedisHll::new();
    /// h.insert_hash(0b101 << 14 | 7); // register 7, value 1
    /// h.insert_hash(0b100 << 14 | 9); // register 9, value 3
    /// let r: Vec<u8> = h.registers().collect();
    /// assert_eq!((r.len(), r[7], r[9]), (16_384, 1, 3));
    /// ```
    pub fn registers(&self) -> impl ExactSizeIterator<Item = u8> + '_ {
        self.inner.registers()
    }

    /// The packed dense registers: byte for byte the 12,288 bytes after the header of a dense Redis
    /// string (register `i` is bits `6i .. 6i + 6`, least significant bit first).
    ///
    /// ```
    /// let mut h = sketch_nostd::redis::RedisHll::new();
    /// h.insert_hash(1 << 14 | 1); // register 1, value 1
    /// assert_eq!(h.register_bytes()[..2], [1 << 6, 0]);
    /// ```
    #[must_use]
    pub const fn register_bytes(&self) -> &[u8; REGISTER_BYTES] {
        // The inner sketch is dense from `new` on (clear converts it back), so these are registers.
        self.inner.dense_registers_or_coupon_bytes()
    }

    /// The header: magic, encoding, zero reserved bytes, and our [`count`](Self::count) as the
    /// cached cardinality with the stale bit set, so that Redis recomputes it with its own
    /// arithmetic on the first `PFCOUNT` (its value and ours can differ by one).
    fn header(&self, encoding: u8) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..4].copy_from_slice(&MAGIC);
        h[4] = encoding;
        h[8..].copy_from_slice(&(self.count() | STALE).to_le_bytes());
        h
    }

    /// Writes the dense Redis string ([`DENSE_LEN`] bytes) into `out` and returns it.
    ///
    /// ```
    /// use sketch_nostd::redis::{RedisHll, DENSE_LEN};
    /// let mut out = [0u8; DENSE_LEN];
    /// let s = RedisHll::new().encode_dense(&mut out);
    /// assert_eq!(s[..8], *b"HYLL\0\0\0\0");
    /// assert_eq!(s[15], 0x80); // cached cardinality 0, stale
    /// ```
    pub fn encode_dense<'a>(&self, out: &'a mut [u8; DENSE_LEN]) -> &'a [u8] {
        let (header, registers) = out.split_at_mut(HEADER_LEN);
        header.copy_from_slice(&self.header(DENSE));
        registers.copy_from_slice(self.register_bytes());
        out
    }

    /// Calls `emit` with each opcode of the sparse form, in order (1 or 2 bytes each).
    fn sparse_opcodes(&self, mut emit: impl FnMut(&[u8])) -> Result<(), RedisError> {
        /// The opcodes of `run` registers of `value` (1 to 32, or 0).
        fn flush(value: u8, mut run: usize, emit: &mut impl FnMut(&[u8])) {
            while run > 0 {
                if value > 0 {
                    let n = run.min(VAL_MAX);
                    emit(&[0x80 | (value - 1) << 2 | (n - 1) as u8]);
                    run -= n;
                } else if run > ZERO_MAX {
                    let n = run.min(XZERO_MAX);
                    emit(&[0x40 | ((n - 1) >> 8) as u8, (n - 1) as u8]);
                    run -= n;
                } else {
                    emit(&[(run - 1) as u8]);
                    run = 0;
                }
            }
        }
        let mut run_value = 0u8;
        let mut run = 0usize;
        for (index, value) in self.registers().enumerate() {
            if value > MAX_SPARSE_VALUE {
                return Err(RedisError::NotSparse { index, value });
            }
            if value != run_value && run > 0 {
                flush(run_value, run, &mut emit);
                run = 0;
            }
            run_value = value;
            run += 1;
        }
        flush(run_value, run, &mut emit);
        Ok(())
    }

    /// Length of the sparse Redis string of this sketch, header included, or `None` if a register
    /// holds more than 32 (which the sparse form cannot express).
    ///
    /// ```
    /// use sketch_nostd::redis::RedisHll;
    /// let mut h = RedisHll::new();
    /// assert_eq!(h.sparse_len(), Some(16 + 2)); // XZERO:16384
    /// h.insert_hash(1000); // register 1000, value 51
    /// assert_eq!(h.sparse_len(), None);
    /// ```
    #[must_use]
    pub fn sparse_len(&self) -> Option<usize> {
        self.checked_sparse_len().ok()
    }

    /// [`sparse_len`](Self::sparse_len), or the register that makes the sparse form impossible.
    fn checked_sparse_len(&self) -> Result<usize, RedisError> {
        let mut len = HEADER_LEN;
        self.sparse_opcodes(|op| len += op.len())?;
        Ok(len)
    }

    /// Writes the sparse Redis string into `out` and returns it.
    ///
    /// # Errors
    /// [`RedisError::NotSparse`] if a register holds more than 32, and
    /// [`RedisError::BufferTooSmall`] if `out` is shorter than [`sparse_len`](Self::sparse_len).
    ///
    /// ```
    /// use sketch_nostd::redis::RedisHll;
    /// let mut h = RedisHll::new();
    /// h.insert_hash(0b100 << 14 | 1000); // register 1000, value 3
    /// let mut out = [0u8; 64];
    /// let s = h.encode_sparse(&mut out)?;
    /// // XZERO:1000, VAL:3,1, XZERO:15383
    /// assert_eq!(s[16..], [0x43, 0xe7, 0x88, 0x7c, 0x16]);
    /// # Ok::<(), sketch_nostd::RedisError>(())
    /// ```
    pub fn encode_sparse<'a>(&self, out: &'a mut [u8]) -> Result<&'a [u8], RedisError> {
        let needed = self.checked_sparse_len()?;
        let Some(out) = out.get_mut(..needed) else {
            return Err(RedisError::BufferTooSmall { needed });
        };
        self.write_sparse(out);
        Ok(out)
    }

    /// Writes the sparse string into `out`, which is [`sparse_len`](Self::sparse_len) long (a
    /// register above 32 stops the opcodes early; callers have checked there is none).
    fn write_sparse(&self, out: &mut [u8]) {
        let (header, body) = out.split_at_mut(HEADER_LEN.min(out.len()));
        header.copy_from_slice(&self.header(SPARSE)[..header.len()]);
        let mut at = 0;
        let _ = self.sparse_opcodes(|op| {
            if let Some(dst) = body.get_mut(at..at + op.len()) {
                dst.copy_from_slice(op);
            }
            at += op.len();
        });
    }

    /// Writes the smaller Redis string into `out` and returns it: sparse when the sparse form can
    /// hold every register and is shorter than [`DENSE_LEN`], else dense. Redis accepts both from a
    /// `SET` and converts a sparse key to dense itself when a `PFADD` makes it grow.
    ///
    /// ```
    /// use sketch_nostd::redis::{RedisHll, DENSE_LEN};
    /// let mut h = RedisHll::new();
    /// let mut out = [0u8; DENSE_LEN];
    /// assert_eq!(h.encode(&mut out).len(), 18);
    /// for i in 0..100_000u32 { h.insert(&i); }
    /// assert_eq!(h.encode(&mut out).len(), DENSE_LEN);
    /// ```
    pub fn encode<'a>(&self, out: &'a mut [u8; DENSE_LEN]) -> &'a [u8] {
        match self.sparse_len() {
            Some(len) if len < DENSE_LEN => {
                let (sparse, _) = out.split_at_mut(len);
                self.write_sparse(sparse);
                sparse
            }
            _ => self.encode_dense(out),
        }
    }

    /// Reads a Redis HyperLogLog string (dense or sparse), as a `GET` returns it.
    ///
    /// # Errors
    /// As [`decode_into`](Self::decode_into).
    ///
    /// ```
    /// use sketch_nostd::{redis::RedisHll, RedisError};
    /// // An empty HLL as Redis creates it: sparse, XZERO:16384.
    /// let empty = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff";
    /// assert!(RedisHll::decode(empty)?.is_empty());
    /// assert_eq!(RedisHll::decode(&empty[..17]).err(), Some(RedisError::Truncated));
    /// # Ok::<(), RedisError>(())
    /// ```
    pub fn decode(bytes: &[u8]) -> Result<Self, RedisError> {
        let mut hll = Self::new();
        hll.decode_into(bytes)?;
        Ok(hll)
    }

    /// Replaces this sketch, in place, by the one `bytes` encodes (no second 12 KB value on the
    /// stack). On an error the sketch is left empty.
    ///
    /// # Errors
    /// * [`RedisError::Truncated`]: shorter than the header, or a sparse string ending inside an
    ///   `XZERO` opcode;
    /// * [`RedisError::BadMagic`], [`RedisError::UnknownEncoding`], [`RedisError::ReservedNotZero`]:
    ///   a header Redis never writes;
    /// * [`RedisError::DenseLength`]: a dense string of other than [`DENSE_LEN`] bytes;
    /// * [`RedisError::Registers`]: a dense register above 51;
    /// * [`RedisError::OverCover`], [`RedisError::UnderCover`]: sparse opcodes covering more or fewer
    ///   than 16,384 registers.
    ///
    /// (A sparse `VAL` opcode holds a value of 1 to 32 by construction: its 5-bit field plus one.)
    ///
    /// ```
    /// use sketch_nostd::{redis::RedisHll, RedisError};
    /// let mut h = RedisHll::new();
    /// // XZERO:16384 then ZERO:1: one register too many.
    /// let over = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff\x00";
    /// assert_eq!(h.decode_into(over), Err(RedisError::OverCover { offset: 18 }));
    /// ```
    pub fn decode_into(&mut self, bytes: &[u8]) -> Result<(), RedisError> {
        self.clear();
        let result = self.load(bytes);
        if result.is_err() {
            self.clear();
        }
        result
    }

    /// [`decode_into`](Self::decode_into) into an empty sketch, leaving it in any state on error.
    fn load(&mut self, bytes: &[u8]) -> Result<(), RedisError> {
        let (body, encoding) = check_header(bytes)?;
        if encoding == DENSE {
            let registers: &[u8; REGISTER_BYTES] = body
                .try_into()
                .map_err(|_| RedisError::DenseLength { len: bytes.len() })?;
            return self
                .inner
                .set_parts(registers, REDIS_SEED, None)
                .map_err(RedisError::Registers);
        }
        let mut index = 0usize;
        let mut at = 0usize;
        while let Some(&op) = body.get(at) {
            let offset = HEADER_LEN + at;
            // (registers covered, their value, opcode bytes)
            let (run, value, width) = match op >> 6 {
                0 => (usize::from(op & 0x3f) + 1, 0, 1),
                1 => {
                    let low = *body.get(at + 1).ok_or(RedisError::Truncated)?;
                    ((usize::from(op & 0x3f) << 8 | usize::from(low)) + 1, 0, 2)
                }
                _ => (usize::from(op & 3) + 1, (op >> 2 & 0x1f) + 1, 1),
            };
            if index + run > REGISTERS {
                return Err(RedisError::OverCover { offset });
            }
            if value > 0 {
                for i in index..index + run {
                    self.raise(i, value);
                }
            }
            index += run;
            at += width;
        }
        if index < REGISTERS {
            return Err(RedisError::UnderCover { covered: index });
        }
        Ok(())
    }

    /// The cached cardinality in a Redis HyperLogLog string's header, or `None` when it is marked
    /// stale (Redis recomputes it on the next `PFCOUNT`). Checks the header only.
    ///
    /// # Errors
    /// As [`decode_into`](Self::decode_into) for the header.
    ///
    /// ```
    /// use sketch_nostd::redis::RedisHll;
    /// let mut s = *b"HYLL\x01\0\0\0\x2a\0\0\0\0\0\0\0\x7f\xff";
    /// assert_eq!(RedisHll::cached_cardinality(&s)?, Some(42));
    /// s[15] = 0x80;
    /// assert_eq!(RedisHll::cached_cardinality(&s)?, None);
    /// # Ok::<(), sketch_nostd::RedisError>(())
    /// ```
    pub fn cached_cardinality(bytes: &[u8]) -> Result<Option<u64>, RedisError> {
        check_header(bytes)?;
        let card = bytes
            .get(8..HEADER_LEN)
            .and_then(|c| <[u8; 8]>::try_from(c).ok())
            .map_or(STALE, u64::from_le_bytes);
        Ok((card & STALE == 0).then_some(card))
    }
}

/// Checks the header of a Redis HyperLogLog string; returns what follows it and the encoding.
fn check_header(bytes: &[u8]) -> Result<(&[u8], u8), RedisError> {
    let Some((header, body)) = bytes.split_first_chunk::<HEADER_LEN>() else {
        return Err(RedisError::Truncated);
    };
    if header[..4] != MAGIC {
        return Err(RedisError::BadMagic);
    }
    let encoding = header[4];
    if encoding != DENSE && encoding != SPARSE {
        return Err(RedisError::UnknownEncoding(encoding));
    }
    if header[5..8] != [0; 3] {
        return Err(RedisError::ReservedNotZero);
    }
    Ok((body, encoding))
}

impl Default for RedisHll {
    fn default() -> Self {
        Self::new()
    }
}

/// Equal when the registers are: the same keys, in any order and grouping.
impl PartialEq for RedisHll {
    fn eq(&self, other: &Self) -> bool {
        self.register_bytes() == other.register_bytes()
    }
}

impl Eq for RedisHll {}

impl fmt::Debug for RedisHll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisHll")
            .field("registers", &REGISTERS)
            .field("seed", &REDIS_SEED)
            .field("count", &self.count())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_is_the_inner_sketch() {
        assert_eq!(core::mem::size_of::<RedisHll>(), 12_288 + 48);
    }

    /// Every (register, value) pair lands where Redis puts it: register = low 14 bits, value =
    /// 1 + trailing zeros above them, capped at 51.
    #[test]
    fn hash_to_register_and_value() {
        for index in [0usize, 1, 2, 3, 4, 5, 8191, 16_383] {
            for value in 1..=MAX_VALUE {
                let above = if value < MAX_VALUE {
                    1u64 << (P + u32::from(value) - 1)
                } else {
                    0
                };
                let hash = above | index as u64;
                let mut h = RedisHll::new();
                h.insert_hash(hash);
                let regs: Vec<u8> = h.registers().collect();
                assert_eq!(regs[index], value, "index {index}, value {value}");
                assert_eq!(regs.iter().filter(|&&r| r != 0).count(), 1);
            }
        }
        // Bits above the first set bit do not matter.
        let mut a = RedisHll::new();
        let mut b = RedisHll::new();
        a.insert_hash(0b1000 << 14 | 77);
        b.insert_hash(u64::MAX << 17 | 77);
        assert!(a == b);
    }

    #[test]
    fn sparse_round_trip_and_canonical_opcodes() {
        let mut h = RedisHll::new();
        // Registers 1000, 1020 and 1021 at 2, 3, 3 (the example of Redis's documentation).
        h.insert_hash(0b10 << 14 | 1000);
        h.insert_hash(0b100 << 14 | 1020);
        h.insert_hash(0b100 << 14 | 1021);
        let mut out = [0u8; 64];
        let s = h.encode_sparse(&mut out).unwrap().to_vec();
        // XZERO:1000, VAL:2,1, ZERO:19, VAL:3,2, XZERO:15362
        let xzero = |n: usize| [0x40 | ((n - 1) >> 8) as u8, (n - 1) as u8];
        let mut body = xzero(1000).to_vec();
        body.extend([0x80 | 1 << 2, 18, 0x80 | 2 << 2 | 1]);
        body.extend(xzero(15_362));
        assert_eq!(s[16..], body[..]);
        assert_eq!(RedisHll::decode(&s).unwrap(), h);
        // Four equal values share one VAL, a fifth needs another.
        let mut h = RedisHll::new();
        for i in 0..5 {
            h.insert_hash(1 << 14 | i);
        }
        let s = h.encode_sparse(&mut out).unwrap();
        assert_eq!(s[16..19], [0x83, 0x80, 0x7f]);
    }

    #[test]
    fn refusals() {
        let mut h = RedisHll::new();
        for i in 0..1000u32 {
            h.insert(&i);
        }
        let mut dense = [0u8; DENSE_LEN];
        let d = h.encode_dense(&mut dense).to_vec();
        assert_eq!(RedisHll::decode(&d).unwrap(), h);
        assert_eq!(
            RedisHll::decode(&d[..DENSE_LEN - 1]),
            Err(RedisError::DenseLength { len: DENSE_LEN - 1 })
        );
        let mut bad = d.clone();
        bad[0] = b'h';
        assert_eq!(RedisHll::decode(&bad), Err(RedisError::BadMagic));
        let mut bad = d.clone();
        bad[4] = 2;
        assert_eq!(RedisHll::decode(&bad), Err(RedisError::UnknownEncoding(2)));
        let mut bad = d.clone();
        bad[6] = 1;
        assert_eq!(RedisHll::decode(&bad), Err(RedisError::ReservedNotZero));
        let mut bad = d;
        bad[16] |= 63; // register 0 = 63
        assert!(matches!(
            RedisHll::decode(&bad),
            Err(RedisError::Registers(_))
        ));
        // A value above 32 cannot be written sparse.
        let mut h = RedisHll::new();
        h.insert_hash(1 << 60 | 5); // value 47
        let mut out = [0u8; 64];
        assert_eq!(
            h.encode_sparse(&mut out),
            Err(RedisError::NotSparse {
                index: 5,
                value: 47
            })
        );
        assert_eq!(h.encode(&mut dense).len(), DENSE_LEN);
        let mut tiny = [0u8; 17];
        assert_eq!(
            RedisHll::new().encode_sparse(&mut tiny),
            Err(RedisError::BufferTooSmall { needed: 18 })
        );
    }

    #[test]
    fn failed_decode_leaves_the_sketch_empty() {
        let mut h = RedisHll::new();
        h.insert("x");
        // VAL:5,1 then XZERO:100: under-covers after raising a register.
        let s = b"HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x90\x40\x63";
        assert_eq!(
            h.decode_into(s),
            Err(RedisError::UnderCover { covered: 101 })
        );
        assert!(h.is_empty());
    }
}
