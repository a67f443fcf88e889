//! Encodings of [`Bloom`], [`BlockedBloom`], [`CountingBloom`], [`MicroBloom`] and [`MicroBloom32`].

use super::codec::{
    envelope_max_len, read_into_new, serde_via_wire, write_items, write_smallest, Codec, Sink,
    Source,
};
use super::counting::{read_two_bit, write_two_bit, TWO_BIT};
use super::WireError;
use super::{SketchKind, Wire};
use crate::blocked::Block;
use crate::{BlockedBloom, Bloom, CountingBloom, MicroBloom, MicroBloom32};

/// Body tag: every word as 8 little-endian bytes.
const DENSE: u8 = 0;
/// Body tag: (zero words, literal words) runs.
const ZERO_RUNS: u8 = 1;
/// Body tag: gaps between set bit positions.
const SPARSE: u8 = 2;

/// Words a body is written from: a filter's words, or a blocked filter's blocks seen as one run of
/// words (block after block), without copying them.
trait WordsRef {
    /// The number of words.
    fn count(&self) -> usize;
    /// Word `i` (0 past the end).
    fn at(&self, i: usize) -> u64;
}

impl WordsRef for [u64] {
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> u64 {
        self.get(i).copied().unwrap_or(0)
    }
}

impl WordsRef for [Block] {
    fn count(&self) -> usize {
        8 * self.len()
    }
    fn at(&self, i: usize) -> u64 {
        self.get(i / 8)
            .and_then(|b| b.0.get(i % 8))
            .copied()
            .unwrap_or(0)
    }
}

/// Calls `f` with the position of every set bit, in increasing order. Bit by bit, shifting the word:
/// the smallest code on a core without a count-trailing-zeros instruction.
fn each_bit<W: WordsRef + ?Sized, E>(
    words: &W,
    mut f: impl FnMut(usize) -> Result<(), E>,
) -> Result<(), E> {
    for i in 0..words.count() {
        let (mut word, mut bit) = (words.at(i), 64 * i);
        while word != 0 {
            if word & 1 != 0 {
                f(bit)?;
            }
            word >>= 1;
            bit += 1;
        }
    }
    Ok(())
}

/// Writes `words` in the body form `tag` (without the tag): [`DENSE`], [`ZERO_RUNS`] or [`SPARSE`].
// One copy, called to measure each form and to write the chosen one.
#[inline(never)]
fn write_form<S: Sink, W: WordsRef + ?Sized>(
    tag: u8,
    words: &W,
    s: &mut S,
) -> Result<(), S::Error> {
    let len = words.count();
    match tag {
        DENSE | ZERO_RUNS => write_items(
            s,
            len,
            tag == ZERO_RUNS,
            |i| words.at(i) == 0,
            |s, i| s.u64_le(words.at(i)),
        ),
        _ => {
            // Two passes over the bits through one loop: count them, then write the gaps.
            let (mut count, mut next) = (0usize, None);
            for _ in 0..2 {
                each_bit(words, |bit| match next {
                    None => {
                        count += 1;
                        Ok(())
                    }
                    Some(ref mut n) => {
                        let gap = bit - *n;
                        *n = bit + 1;
                        s.varint(gap as u64)
                    }
                })?;
                if next.is_none() {
                    s.varint(count as u64)?;
                    next = Some(0);
                }
            }
            Ok(())
        }
    }
}

/// Writes `words` as a tag byte and the smallest of the Bloom bodies.
fn write_words<S: Sink, W: WordsRef + ?Sized>(words: &W, s: &mut S) -> Result<(), S::Error> {
    write_smallest(s, 8 * words.count(), SPARSE, |tag, s| {
        write_form(tag, words, s)
    })
}

fn malformed(what: &'static str) -> WireError {
    WireError::BadEncoding { what }
}

/// Words a body is read into, all zero beforehand: a filter's words, or a blocked filter's blocks
/// seen as one run of words (block after block).
trait Words {
    /// The number of words.
    fn count(&self) -> usize;
    /// Word `i`, if `i < count()`.
    fn word(&mut self, i: usize) -> Option<&mut u64>;
}

impl Words for [u64] {
    fn count(&self) -> usize {
        self.len()
    }
    fn word(&mut self, i: usize) -> Option<&mut u64> {
        self.get_mut(i)
    }
}

impl Words for [Block] {
    fn count(&self) -> usize {
        8 * self.len()
    }
    fn word(&mut self, i: usize) -> Option<&mut u64> {
        self.get_mut(i / 8).and_then(|b| b.0.get_mut(i % 8))
    }
}

fn read_words<R: Source, W: Words + ?Sized>(r: &mut R, words: &mut W) -> Result<(), WireError> {
    let tag = r.byte()?;
    read_words_tagged(tag, r, words)
}

/// [`read_words`] after its tag byte has been read.
fn read_words_tagged<R: Source, W: Words + ?Sized>(
    tag: u8,
    r: &mut R,
    words: &mut W,
) -> Result<(), WireError> {
    let len = words.count();
    match tag {
        DENSE => {
            for i in 0..len {
                let w = r.u64_le()?;
                if let Some(x) = words.word(i) {
                    *x = w;
                }
            }
        }
        ZERO_RUNS => {
            let mut pos = 0usize;
            while pos < len {
                let zeros = r.varint()?;
                let literals = r.varint()?;
                let covered = zeros
                    .checked_add(literals)
                    .filter(|&c| c > 0)
                    .ok_or(malformed("empty or overflowing zero run"))?;
                if covered > (len - pos) as u64 {
                    return Err(malformed("zero runs cover more words than the filter has"));
                }
                // Both fit in usize now: they add up to at most the words left.
                pos += zeros as usize;
                for _ in 0..literals {
                    let w = words.word(pos).ok_or(malformed("zero runs overflow"))?;
                    *w = r.u64_le()?;
                    pos += 1;
                }
            }
        }
        SPARSE => {
            let bits = len as u64 * 64;
            let count = r.varint()?;
            if count > bits {
                return Err(malformed("more set bits than the filter has"));
            }
            let mut next = 0u64;
            for _ in 0..count {
                let bit = next
                    .checked_add(r.varint()?)
                    .filter(|&b| b < bits)
                    .ok_or(malformed("set bit position past the end of the filter"))?;
                let word = words
                    .word((bit / 64) as usize)
                    .ok_or(malformed("set bit position past the end of the filter"))?;
                *word |= 1 << (bit % 64);
                next = bit + 1;
            }
        }
        _ => return Err(malformed("unknown Bloom body encoding")),
    }
    Ok(())
}

/// The [`Codec`] methods every filter shares (`Bloom`, `CountingBloom`, `BlockedBloom`): its seed,
/// decoding into a new filter, and clearing (loading no words).
macro_rules! filter_methods {
    () => {
        fn wire_seed(&self) -> u64 {
            self.seed()
        }

        fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
            read_into_new(r, seed, Self::with_seed)
        }

        fn clear_with_seed(&mut self, seed: u64) {
            let Ok(()) = self.load(seed, |_| Ok::<_, core::convert::Infallible>(()));
        }
    };
}

impl<const WORDS: usize, const K: u32> Codec for Bloom<WORDS, K> {
    filter_methods!();

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        write_words(self.as_words().as_slice(), s)
    }

    fn read_body_into<R: Source>(&mut self, r: &mut R, seed: u64, _: u8) -> Result<(), WireError> {
        self.load(seed, |words| read_words(r, words.as_mut_slice()))
    }
}

impl<const WORDS: usize, const K: u32> Wire for Bloom<WORDS, K> {
    const KIND: SketchKind = SketchKind::Bloom;
    const PARAMS: &'static [(&'static str, u64)] = &[("WORDS", WORDS as u64), ("K", K as u64)];
    /// Envelope, tag, and the dense body (never larger than the other two: the encoder picks the
    /// smallest).
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS) + 1 + 8 * WORDS;
}

serde_via_wire!(impl[const WORDS: usize, const K: u32] Bloom<WORDS, K>);

/// A counting Bloom filter's words (16 counters of 4 bits each) take the Bloom filter's encodings
/// (every word pattern is a valid filter, and a counter of 1 is a single set bit), or the two-bit
/// body of [`super::counting`] when it is strictly smaller (the usual case at the design load).
impl<const WORDS: usize, const K: u32> Codec for CountingBloom<WORDS, K> {
    filter_methods!();

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        let words = self.as_words().as_slice();
        write_smallest(s, 8 * words.len(), TWO_BIT, |tag, s| match tag {
            TWO_BIT => write_two_bit(words, s),
            _ => write_form(tag, words, s),
        })
    }

    fn read_body_into<R: Source>(&mut self, r: &mut R, seed: u64, _: u8) -> Result<(), WireError> {
        self.load(seed, |words| match r.byte()? {
            TWO_BIT => read_two_bit(r, words),
            tag => read_words_tagged(tag, r, words.as_mut_slice()),
        })
    }
}

impl<const WORDS: usize, const K: u32> Wire for CountingBloom<WORDS, K> {
    const KIND: SketchKind = SketchKind::CountingBloom;
    const PARAMS: &'static [(&'static str, u64)] = &[("WORDS", WORDS as u64), ("K", K as u64)];
    /// As for [`Bloom`]: envelope, tag, dense words.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS) + 1 + 8 * WORDS;
}

serde_via_wire!(impl[const WORDS: usize, const K: u32] CountingBloom<WORDS, K>);

/// A blocked Bloom filter's blocks, flattened to `8·BLOCKS` words in block order, take the Bloom
/// filter's encodings.
impl<const BLOCKS: usize, const K: u32> Codec for BlockedBloom<BLOCKS, K> {
    filter_methods!();

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        write_words(self.as_blocks().as_slice(), s)
    }

    fn read_body_into<R: Source>(&mut self, r: &mut R, seed: u64, _: u8) -> Result<(), WireError> {
        self.load(seed, |blocks| read_words(r, blocks.as_mut_slice()))
    }
}

impl<const BLOCKS: usize, const K: u32> Wire for BlockedBloom<BLOCKS, K> {
    const KIND: SketchKind = SketchKind::BlockedBloom;
    const PARAMS: &'static [(&'static str, u64)] = &[("BLOCKS", BLOCKS as u64), ("K", K as u64)];
    /// As for [`Bloom`]: envelope, tag, dense words.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS) + 1 + 64 * BLOCKS;
}

serde_via_wire!(impl[const BLOCKS: usize, const K: u32] BlockedBloom<BLOCKS, K>);

macro_rules! micro_codec {
    ($name:ident, $word:ty, $kind:ident) => {
        impl<const K: u32, const SEED: u64> Codec for $name<K, SEED> {
            fn wire_seed(&self) -> u64 {
                SEED
            }

            fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
                s.bytes(&self.bits().to_le_bytes())
            }

            const FIXED_SEED: Option<u64> = Some(SEED);

            fn clear_with_seed(&mut self, _: u64) {
                self.clear();
            }

            fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
                if seed != SEED {
                    return Err(WireError::WrongParameter {
                        name: "SEED",
                        expected: SEED,
                        found: seed,
                    });
                }
                r.array()
                    .map(|b| Self::from_parts(<$word>::from_le_bytes(b)))
            }
        }

        impl<const K: u32, const SEED: u64> Wire for $name<K, SEED> {
            const KIND: SketchKind = SketchKind::$kind;
            const PARAMS: &'static [(&'static str, u64)] = &[("K", K as u64)];
            const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS) + size_of::<$word>();
        }

        serde_via_wire!(impl[const K: u32, const SEED: u64] $name<K, SEED>);
    };
}

micro_codec!(MicroBloom, u64, MicroBloom);
micro_codec!(MicroBloom32, u32, MicroBloom32);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::codec::varint_len;
    use crate::wire::{decode, encode, encoded_len};

    fn round_trip<const W: usize, const K: u32>(f: &Bloom<W, K>) -> (u8, usize) {
        let mut buf = [0u8; 4096];
        let bytes = encode(f, &mut buf).unwrap();
        assert!(bytes.len() <= Bloom::<W, K>::MAX_ENCODED_LEN);
        assert_eq!(bytes.len(), encoded_len(f));
        assert_eq!(&decode::<Bloom<W, K>>(bytes).unwrap(), f);
        let tag_at = 4 + varint_len(W as u64) + varint_len(u64::from(K)) + varint_len(f.seed());
        (bytes[tag_at], bytes.len())
    }

    #[test]
    fn the_smallest_body_wins() {
        // Empty: sparse, one count byte.
        assert_eq!(round_trip(&Bloom::<64, 3>::new()).0, SPARSE);
        // A few keys: sparse.
        let mut f = Bloom::<64, 3>::with_seed(u64::MAX);
        for i in 0..10u32 {
            f.insert(&i);
        }
        assert_eq!(round_trip(&f).0, SPARSE);
        // Full words in one place: zero runs.
        let mut words = [0u64; 64];
        words[10..14].fill(u64::MAX);
        assert_eq!(
            round_trip(&Bloom::<64, 3>::from_parts(words, 1)).0,
            ZERO_RUNS
        );
        // Half full: dense.
        for i in 0..2_000u32 {
            f.insert(&i);
        }
        assert_eq!(round_trip(&f), (DENSE, Bloom::<64, 3>::MAX_ENCODED_LEN));
    }

    #[test]
    fn max_len_is_reached_by_a_full_filter_with_the_widest_seed() {
        let f = Bloom::<3, 2>::from_parts([u64::MAX; 3], u64::MAX);
        assert_eq!(round_trip(&f), (DENSE, Bloom::<3, 2>::MAX_ENCODED_LEN));
        let m = MicroBloom::<4, { u64::MAX }>::from_parts(u64::MAX);
        let mut buf = [0u8; 64];
        assert_eq!(
            encode(&m, &mut buf).map(|b| b.len()),
            Ok(MicroBloom::<4, { u64::MAX }>::MAX_ENCODED_LEN)
        );
    }
}
