//! Bit-level coding for the entropy-coded bodies: a bit writer and reader over the element
//! [`Sink`]/[`Source`] (bits are packed least significant first into bytes, the last byte padded with
//! zeros), unary and Rice codes, and sorted `(index, value ≥ 1)` lists coded as Rice gaps and unary
//! values.

use super::codec::{Sink, Source};
use super::WireError;

/// The largest Rice parameter a list may use.
pub const MAX_RICE_K: u32 = 31;

const fn mask(k: u32) -> u64 {
    if k >= 64 {
        u64::MAX
    } else {
        (1 << k) - 1
    }
}

/// Writes bits into a [`Sink`], one byte element per 8 bits.
///
/// A bit at a time in `u32` arithmetic: the smallest code for a Cortex-M0 (which has no 64-bit
/// shifts; each is a call to a helper). Encoders size their candidate forms arithmetically
/// ([`list_bits`]); the tests check those sizes against the bits written.
pub struct BitWriter<'a, S: Sink> {
    sink: &'a mut S,
    /// The bits of the current byte not written yet.
    acc: u8,
    /// Bits so far (the current byte holds `bits % 8` of them).
    bits: u32,
}

impl<'a, S: Sink> BitWriter<'a, S> {
    pub fn new(sink: &'a mut S) -> Self {
        Self {
            sink,
            acc: 0,
            bits: 0,
        }
    }

    /// `v` as a Rice code with parameter `k ≤ MAX_RICE_K`: `v >> k` in unary (that many ones,
    /// then a zero), then the low `k` bits of `v`, least significant first. The one code the
    /// encoders write (unary `q` is the Rice code of `q` with `k = 0`), a bit at a time through
    /// [`bit`](Self::bit): two small loops that keep their four values in registers.
    pub fn rice(&mut self, v: u32, k: u32) -> Result<(), S::Error> {
        for _ in 0..v >> k {
            self.bit(1)?;
        }
        // The unary code's closing zero, then `v`'s low bits: the low `k + 1` bits of `2v`.
        self.bits(v << 1, k + 1)
    }

    /// The low `n ≤ 32` bits of `v`, least significant first: 32 bits from a byte boundary are
    /// `v`'s four little-endian bytes.
    pub fn bits(&mut self, mut v: u32, n: u32) -> Result<(), S::Error> {
        for _ in 0..n {
            self.bit(v & 1)?;
            v >>= 1;
        }
        Ok(())
    }

    /// One bit (`b` is 0 or 1). Not inlined: the one copy the Rice loops call.
    #[inline(never)]
    fn bit(&mut self, b: u32) -> Result<(), S::Error> {
        let at = self.bits % 8;
        self.bits += 1;
        self.acc |= (b as u8) << at;
        if at == 7 {
            self.sink.byte(self.acc)?;
            self.acc = 0;
        }
        Ok(())
    }

    /// Flushes the last partial byte, padded with zeros, and returns the bits written.
    pub fn finish(self) -> Result<u32, S::Error> {
        if !self.bits.is_multiple_of(8) {
            self.sink.byte(self.acc)?;
        }
        Ok(self.bits)
    }
}

/// Bits of `v` as a Rice code with parameter `k`.
pub const fn rice_len(v: u32, k: u32) -> u32 {
    (v >> k) + 1 + k
}

/// Bytes of a bit stream of `bits` bits.
pub const fn bytes_for(bits: u32) -> u32 {
    bits.div_ceil(8)
}

/// Reads bits from a [`Source`].
pub struct BitReader<'a, R: Source> {
    src: &'a mut R,
    acc: u64,
    n: u32,
}

impl<'a, R: Source> BitReader<'a, R> {
    pub fn new(src: &'a mut R) -> Self {
        Self { src, acc: 0, n: 0 }
    }

    /// `k ≤ 32` bits.
    pub fn bits(&mut self, k: u32) -> Result<u64, WireError> {
        while self.n < k {
            self.acc |= u64::from(self.src.byte()?) << self.n;
            self.n += 8;
        }
        let v = self.acc & mask(k);
        self.acc >>= k;
        self.n -= k;
        Ok(v)
    }

    /// A unary count of at most `max`.
    pub fn unary(&mut self, max: u64) -> Result<u64, WireError> {
        let mut q = 0;
        while self.bits(1)? == 1 {
            q += 1;
            if q > max {
                return Err(WireError::BadEncoding {
                    what: "unary code longer than any valid value",
                });
            }
        }
        Ok(q)
    }

    /// A Rice code with parameter `k` of a value at most `max`.
    pub fn rice(&mut self, k: u32, max: u64) -> Result<u64, WireError> {
        let q = self.unary(max >> k)?;
        let v = q << k | self.bits(k)?;
        if v > max {
            return Err(WireError::BadEncoding {
                what: "Rice code above any valid value",
            });
        }
        Ok(v)
    }

    /// Checks that the padding bits of the last byte are zero.
    pub fn finish(self) -> Result<(), WireError> {
        if self.acc == 0 {
            Ok(())
        } else {
            Err(WireError::BadEncoding {
                what: "non-zero padding bits",
            })
        }
    }
}

/// Bits of a sorted list (strictly increasing indices, values ≥ 1) coded with Rice parameter `k`
/// for each index's gap from the one after the previous and unary for `value − 1`: the list the
/// HyperLogLog encoders write (each in one loop with its other forms), and `write_list` in the
/// tests.
pub fn list_bits(items: impl Iterator<Item = (u32, u32)>, k: u32) -> u32 {
    let mut next = 0;
    let mut bits = 0;
    for (index, value) in items {
        bits += rice_len(index - next, k) + value;
        next = index + 1;
    }
    bits
}

/// ⌊log2(⌊span / count⌋)⌋ (0 when the ratio is below 2), without a division: the largest `j` with
/// `count·2^j ≤ span`.
const fn log2_of_ratio(span: u32, count: u32) -> u32 {
    let mut c = if count == 0 { 1 } else { count };
    let mut j = 0;
    // `c·2 ≤ span` exactly when `c ≤ ⌊span / 2⌋`; `c` stays below `2^31`.
    while c <= span >> 1 {
        c <<= 1;
        j += 1;
    }
    j
}

/// The Rice parameter giving the shortest list (`count` items, indices below `span`), and that
/// list's bits: near log2 of the mean gap, checked on both sides (the first of equals). `bits(k)`
/// sizes the list with parameter `k` ([`list_bits`]).
pub fn best_list<E>(
    count: u32,
    span: u32,
    mut bits: impl FnMut(u32) -> Result<u32, E>,
) -> Result<(u32, u32), E> {
    // `guess < 32`: `count·2^guess ≤ span < 2^32`.
    let guess = log2_of_ratio(span, count);
    let mut best = (u32::MAX, guess);
    for k in guess.saturating_sub(1)..(guess + 2).min(MAX_RICE_K + 1) {
        let b = bits(k)?;
        if b < best.0 {
            best = (b, k);
        }
    }
    Ok((best.1, best.0))
}

/// Writes a sorted list (strictly increasing indices, values ≥ 1): each index's gap from the one
/// after the previous as a Rice code with parameter `k`, each `value − 1` in unary. The tests'
/// reference: the encoders write the same bits in their own loops.
#[cfg(test)]
pub fn write_list<S: Sink>(
    w: &mut BitWriter<'_, S>,
    k: u32,
    items: impl Iterator<Item = (u32, u32)>,
) -> Result<(), S::Error> {
    let mut next = 0;
    for (index, value) in items {
        w.rice(index - next, k)?;
        w.rice(value - 1, 0)?;
        next = index + 1;
    }
    Ok(())
}

/// Reads a sorted list (the bits [`list_bits`] counts) item by item: `count` items with indices below
/// `limit` and values in `1..=max_value`. After the last item it checks the padding.
pub struct ListReader<'a, R: Source> {
    bits: BitReader<'a, R>,
    remaining: u64,
    next: u64,
    k: u32,
    limit: u64,
    max_value: u64,
}

impl<'a, R: Source> ListReader<'a, R> {
    pub fn new(
        r: &'a mut R,
        count: u64,
        k: u32,
        limit: u64,
        max_value: u64,
    ) -> Result<Self, WireError> {
        if k > MAX_RICE_K {
            return Err(WireError::BadEncoding {
                what: "Rice parameter out of range",
            });
        }
        if count > limit {
            return Err(WireError::BadEncoding {
                what: "more list entries than indices",
            });
        }
        Ok(Self {
            bits: BitReader::new(r),
            remaining: count,
            next: 0,
            k,
            limit,
            max_value,
        })
    }

    /// The next `(index, value)`, or `None` after the last.
    pub fn next_item(&mut self) -> Result<Option<(u64, u64)>, WireError> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.remaining -= 1;
        let room = self
            .limit
            .checked_sub(self.next + 1)
            .ok_or(WireError::BadEncoding {
                what: "list index past the end",
            })?;
        let index = self.next + self.bits.rice(self.k, room)?;
        let value = 1 + self.bits.unary(self.max_value.saturating_sub(1))?;
        self.next = index + 1;
        Ok(Some((index, value)))
    }

    /// Checks that every item was read and the padding is zero.
    pub fn finish(self) -> Result<(), WireError> {
        if self.remaining != 0 {
            return Err(WireError::BadEncoding {
                what: "list not read to the end",
            });
        }
        self.bits.finish()
    }
}

/// Reads a whole list, handing each item to `f`.
#[cfg(test)]
pub fn read_list<R: Source>(
    r: &mut R,
    count: u64,
    k: u32,
    limit: u64,
    max_value: u64,
    mut f: impl FnMut(u64, u64) -> Result<(), WireError>,
) -> Result<(), WireError> {
    let mut list = ListReader::new(r, count, k, limit, max_value)?;
    while let Some((index, value)) = list.next_item()? {
        f(index, value)?;
    }
    list.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_of_ratio_matches_the_division() {
        let values = [
            0u32,
            1,
            2,
            3,
            7,
            8,
            9,
            100,
            1 << 20,
            (1 << 20) + 1,
            u32::MAX / 3,
            u32::MAX,
        ];
        for &span in &values {
            for &count in &values {
                let mean = span / count.max(1);
                assert_eq!(
                    super::log2_of_ratio(span, count),
                    31 - (mean | 1).leading_zeros(),
                    "span {span}, count {count}"
                );
            }
        }
    }

    /// A byte vector that is both a sink and a source.
    struct Bytes {
        data: [u8; 256],
        len: usize,
        pos: usize,
    }
    impl Default for Bytes {
        fn default() -> Self {
            Self {
                data: [0; 256],
                len: 0,
                pos: 0,
            }
        }
    }
    impl Sink for Bytes {
        type Error = ();
        fn byte(&mut self, b: u8) -> Result<(), ()> {
            *self.data.get_mut(self.len).ok_or(())? = b;
            self.len += 1;
            Ok(())
        }
        fn varint(&mut self, _: u64) -> Result<(), ()> {
            Err(())
        }
    }
    impl Source for Bytes {
        fn byte(&mut self) -> Result<u8, WireError> {
            let b = *self.data[..self.len]
                .get(self.pos)
                .ok_or(WireError::Truncated)?;
            self.pos += 1;
            Ok(b)
        }
        fn varint(&mut self) -> Result<u64, WireError> {
            Err(WireError::Truncated)
        }
    }

    #[test]
    fn codes_round_trip_lsb_first() {
        let mut b = Bytes::default();
        let mut w = BitWriter::new(&mut b);
        w.rice(5, 3).unwrap(); // 0, then 1 0 1
        w.rice(2, 0).unwrap(); // 1 1 0
        w.rice(9, 2).unwrap(); // 9 = 2·4 + 1: 1 1 0, then 1 0
        w.rice(40, 0).unwrap();
        assert_eq!(w.finish(), Ok(4 + 3 + 5 + 41));
        // Bits in order: 0 1 0 1 | 1 1 0 | 1 1 0 1 0 | 1×40 0; byte 0 holds the first eight, bit 0
        // first.
        assert_eq!(b.data[0], 0b1011_1010);
        assert_eq!(b.len, 7);
        let mut r = BitReader::new(&mut b);
        assert_eq!(r.rice(3, 100), Ok(5));
        assert_eq!(r.unary(10), Ok(2));
        assert_eq!(r.rice(2, 100), Ok(9));
        assert!(matches!(r.unary(39), Err(WireError::BadEncoding { .. })));
    }

    #[test]
    fn lists_round_trip_and_size_as_counted() {
        let items = [(0u32, 1u32), (5, 3), (6, 1), (1_000, 39)];
        let (k, bits) = best_list(4, 1_001, |k| {
            Ok::<_, ()>(list_bits(items.iter().copied(), k))
        })
        .unwrap();
        // The sizes of one pass are those of each candidate alone, and the best is the first of
        // the smallest.
        let sizes: Vec<u32> = (0..=31)
            .map(|k| list_bits(items.iter().copied(), k))
            .collect();
        assert_eq!(bits, sizes[k as usize]);
        assert!((6..=8).contains(&k) && sizes[6..=8].iter().all(|&s| s >= bits));
        assert!(sizes[6..k as usize].iter().all(|&s| s > bits));
        let mut b = Bytes::default();
        let mut w = BitWriter::new(&mut b);
        write_list(&mut w, k, items.iter().copied()).unwrap();
        assert_eq!(w.finish(), Ok(bits));
        assert_eq!(b.len as u32, bytes_for(bits));
        let mut got = [(0, 0); 4];
        let mut i = 0;
        read_list(&mut b, 4, k, 1_001, 39, |index, value| {
            got[i] = (index as u32, value as u32);
            i += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(got, items);
        // The same bits refuse a smaller index range or value range.
        b.pos = 0;
        assert!(read_list(&mut b, 4, k, 1_000, 39, |_, _| Ok(())).is_err());
        b.pos = 0;
        assert!(read_list(&mut b, 4, k, 1_001, 38, |_, _| Ok(())).is_err());
    }
}
