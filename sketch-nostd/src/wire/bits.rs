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
pub struct BitWriter<'a, S: Sink> {
    sink: &'a mut S,
    acc: u64,
    n: u32,
}

impl<'a, S: Sink> BitWriter<'a, S> {
    pub fn new(sink: &'a mut S) -> Self {
        Self { sink, acc: 0, n: 0 }
    }

    /// The low `k ≤ 32` bits of `v`.
    pub fn bits(&mut self, v: u64, k: u32) -> Result<(), S::Error> {
        self.acc |= (v & mask(k)) << self.n;
        self.n += k;
        while self.n >= 8 {
            self.sink.byte(self.acc as u8)?;
            self.acc >>= 8;
            self.n -= 8;
        }
        Ok(())
    }

    /// `q` one bits, then a zero.
    pub fn unary(&mut self, mut q: u64) -> Result<(), S::Error> {
        while q >= 32 {
            self.bits(u64::from(u32::MAX), 32)?;
            q -= 32;
        }
        self.bits(mask(q as u32), q as u32)?;
        self.bits(0, 1)
    }

    /// `v` as a Rice code with parameter `k`: `v >> k` in unary, then the low `k` bits.
    pub fn rice(&mut self, v: u64, k: u32) -> Result<(), S::Error> {
        self.unary(v >> k)?;
        self.bits(v, k)
    }

    /// Flushes the last partial byte, padded with zeros.
    pub fn finish(self) -> Result<(), S::Error> {
        if self.n > 0 {
            self.sink.byte(self.acc as u8)?;
        }
        Ok(())
    }
}

/// Bits of `v` as a Rice code with parameter `k`.
pub const fn rice_len(v: u64, k: u32) -> u64 {
    (v >> k) + 1 + k as u64
}

/// Bytes of a bit stream of `bits` bits.
pub const fn bytes_for(bits: u64) -> u64 {
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

/// Bits of a sorted list coded with Rice parameter `k` for the gaps and unary for `value − 1`.
pub fn list_bits(items: impl Iterator<Item = (u64, u64)>, k: u32) -> u64 {
    let mut next = 0;
    let mut bits = 0;
    for (index, value) in items {
        bits += rice_len(index - next, k) + value;
        next = index + 1;
    }
    bits
}

/// ⌊log2(⌊span / count⌋)⌋ (0 when the ratio is below 2), without a 64-bit division: the largest `j`
/// with `count·2^j ≤ span`. A `u64 /` would link `__aeabi_uldivmod` (~900 bytes) on Cortex-M0/M3.
const fn log2_of_ratio(span: u64, count: u64) -> u32 {
    let count = if count == 0 { 1 } else { count };
    let mut j = 0;
    while j < 63 {
        let next = count << (j + 1);
        if next >> (j + 1) != count || next > span {
            break;
        }
        j += 1;
    }
    j
}

/// The Rice parameter giving the shortest list: near log2 of the mean gap, checked on both sides.
pub fn best_list_k<I: Iterator<Item = (u64, u64)>>(
    items: impl Fn() -> I,
    count: u64,
    span: u64,
) -> u32 {
    let guess = log2_of_ratio(span, count).min(MAX_RICE_K);
    let mut best = (u64::MAX, guess);
    for k in guess.saturating_sub(1)..=(guess + 1).min(MAX_RICE_K) {
        let bits = list_bits(items(), k);
        if bits < best.0 {
            best = (bits, k);
        }
    }
    best.1
}

/// Writes a sorted list (strictly increasing indices, values ≥ 1) as a bit stream.
pub fn write_list<S: Sink>(
    s: &mut S,
    k: u32,
    items: impl Iterator<Item = (u64, u64)>,
) -> Result<(), S::Error> {
    let mut w = BitWriter::new(s);
    let mut next = 0;
    for (index, value) in items {
        w.rice(index - next, k)?;
        w.unary(value - 1)?;
        next = index + 1;
    }
    w.finish()
}

/// Reads a sorted list written by [`write_list`] item by item: `count` items with indices below
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
            0u64,
            1,
            2,
            3,
            7,
            8,
            9,
            100,
            1 << 20,
            (1 << 20) + 1,
            u64::MAX / 3,
            u64::MAX,
        ];
        for &span in &values {
            for &count in &values {
                let mean = span / count.max(1);
                assert_eq!(
                    super::log2_of_ratio(span, count),
                    63 - (mean | 1).leading_zeros(),
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
        w.bits(0b101, 3).unwrap();
        w.unary(2).unwrap(); // 1 1 0
        w.rice(9, 2).unwrap(); // 9 = 2·4 + 1: 1 1 0, then 01
        w.unary(40).unwrap();
        w.finish().unwrap();
        // Bits in order: 1 0 1 | 1 1 0 | 1 1 0 1 0 | 1×40 0; byte 0 holds the first eight, bit 0
        // first.
        assert_eq!(b.data[0], 0b1101_1101);
        let mut r = BitReader::new(&mut b);
        assert_eq!(r.bits(3), Ok(0b101));
        assert_eq!(r.unary(10), Ok(2));
        assert_eq!(r.rice(2, 100), Ok(9));
        assert!(matches!(r.unary(39), Err(WireError::BadEncoding { .. })));
    }

    #[test]
    fn lists_round_trip_and_size_as_counted() {
        let items = [(0u64, 1u64), (5, 3), (6, 1), (1_000, 39)];
        let k = best_list_k(|| items.iter().copied(), 4, 1_001);
        let mut b = Bytes::default();
        write_list(&mut b, k, items.iter().copied()).unwrap();
        assert_eq!(b.len as u64, bytes_for(list_bits(items.iter().copied(), k)));
        let mut got = [(0, 0); 4];
        let mut i = 0;
        read_list(&mut b, 4, k, 1_001, 39, |index, value| {
            got[i] = (index, value);
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
