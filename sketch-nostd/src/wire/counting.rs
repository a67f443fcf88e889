//! The two-bit body of [`CountingBloom`](crate::CountingBloom) (tag `3`), beside the three Bloom
//! bodies it shares with [`Bloom`](crate::Bloom) (see `bloom.rs`):
//!
//! * every counter as a 2-bit code `min(count, 3)`, four to a byte (counter `4j + t` in bits
//!   `2t..2t + 2` of byte `j`), `4·WORDS` bytes;
//! * then, for each counter coded 3 in order, `count − 3` (0..=12) as a nibble, two to a byte (low
//!   nibble first, an odd last nibble padded with 0).
//!
//! A filter at its design load has about half its counters at 0 and few above 2, so this body takes
//! about 2.1 bits per counter instead of the dense 4: 46% less. The encoder uses it only when it is
//! strictly smaller than all three Bloom bodies.

use super::codec::{Sink, Source};
use super::WireError;

/// Body tag of the two-bit encoding (0, 1, 2 are the Bloom bodies).
pub(super) const TWO_BIT: u8 = 3;

/// Writes the two-bit body: a pass over the counters for the codes (2 bits each), then one for the
/// escaped counters' nibbles (4 bits each), both packed low bits first by the same loop. A counter
/// is read from its word's 32-bit half: 32-bit shifts are single instructions on every target, where
/// a 64-bit one is several on a 32-bit core.
// One copy for measuring the form and writing it.
#[inline(never)]
pub(super) fn write_two_bit<S: Sink>(words: &[u64], s: &mut S) -> Result<(), S::Error> {
    for pass in 0..2 {
        let width = 2 << pass;
        let (mut acc, mut fill) = (0u32, 0u32);
        for i in 0..16 * words.len() {
            let word = words.get(i / 16).copied().unwrap_or(0);
            let half = if i & 8 == 0 { word } else { word >> 32 } as u32;
            let c = half >> (4 * (i & 7)) & 0xF;
            let v = match (pass, c) {
                (0, _) => c.min(3),
                (_, 3..) => c - 3,
                _ => continue,
            };
            acc |= v << fill;
            fill += width;
            if fill == 8 {
                s.byte(acc as u8)?;
                (acc, fill) = (0, 0);
            }
        }
        // An odd last nibble, padded with 0 (the codes always fill their bytes: 16 to a word).
        if fill != 0 {
            s.byte(acc as u8)?;
        }
    }
    Ok(())
}

fn malformed(what: &'static str) -> WireError {
    WireError::BadEncoding { what }
}

pub(super) fn read_two_bit<R: Source>(r: &mut R, words: &mut [u64]) -> Result<(), WireError> {
    let counters = 16 * words.len();
    for j in 0..counters / 4 {
        let code = u64::from(r.byte()?);
        let word = words
            .get_mut(j / 4)
            .ok_or(malformed("two-bit body overflow"))?;
        for t in 0..4 {
            *word |= ((code >> (2 * t)) & 3) << (4 * (4 * (j % 4) + t));
        }
    }
    let mut pending: Option<u8> = None;
    for i in 0..counters {
        let Some(word) = words.get_mut(i / 16) else {
            break;
        };
        let shift = 4 * (i % 16);
        if (*word >> shift) & 0xF != 3 {
            continue;
        }
        let nibble = match pending.take() {
            Some(high) => high,
            None => {
                let b = r.byte()?;
                pending = Some(b >> 4);
                b & 0xF
            }
        };
        if nibble > 12 {
            return Err(WireError::BadRegister {
                index: i as u32,
                value: 3 + u64::from(nibble),
            });
        }
        *word += u64::from(nibble) << shift;
    }
    if pending.is_some_and(|p| p != 0) {
        return Err(malformed("non-zero padding after the last escaped counter"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{decode, encode, encoded_len, Wire};
    use crate::CountingBloom;

    fn tag_and_len(f: &CountingBloom<64, 4>) -> (u8, usize) {
        let mut buf = [0u8; CountingBloom::<64, 4>::MAX_ENCODED_LEN];
        let bytes = encode(f, &mut buf).unwrap();
        assert_eq!(bytes.len(), encoded_len(f));
        assert_eq!(&decode::<CountingBloom<64, 4>>(bytes).unwrap(), f);
        // 53 4b 01 08 | 40 04 | seed (1 byte below 128) | tag
        (bytes[7], bytes.len())
    }

    #[test]
    fn every_fill_round_trips_with_the_smallest_body() {
        let mut f = CountingBloom::<64, 4>::with_seed(5);
        let mut tags = Vec::new();
        for n in [0u32, 1, 10, 100, 250, 1_000, 5_000] {
            for k in 0..n {
                f.insert(&k);
            }
            let (tag, len) = tag_and_len(&f);
            assert!(len <= CountingBloom::<64, 4>::MAX_ENCODED_LEN);
            tags.push(tag);
        }
        // Sparse while nearly empty, two-bit at the design load and somewhat beyond, dense when
        // counters are large.
        assert_eq!(tags.first(), Some(&2));
        assert!(tags.contains(&TWO_BIT), "{tags:?}");
        assert_eq!(tags.last(), Some(&0));
    }

    #[test]
    fn two_bit_body_counts_escapes_exactly() {
        // Counters 0..=15 in one word: 13 escaped (3..=15), 7 bytes of nibbles.
        let word = (0..16u64).fold(0, |w, c| w | c << (4 * c));
        let mut out = Vec::new();
        struct V<'a>(&'a mut Vec<u8>);
        impl Sink for V<'_> {
            type Error = ();
            fn byte(&mut self, b: u8) -> Result<(), ()> {
                self.0.push(b);
                Ok(())
            }
            fn varint(&mut self, _: u64) -> Result<(), ()> {
                Err(())
            }
        }
        write_two_bit(&[word], &mut V(&mut out)).unwrap();
        // 4 bytes of codes, 7 of nibbles.
        assert_eq!(
            out,
            [0xe4, 0xff, 0xff, 0xff, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0x0c]
        );
    }
}
