//! Encoding of [`CountMin`].

use super::codec::{
    envelope_max_len, parts_error, read_into_new, serde_via_wire, write_items, write_smallest,
    Codec, Sink, Source,
};
use super::WireError;
use super::{SketchKind, Wire};
use crate::countmin::{Counter, UpdatePolicy, UpdateRule};
use crate::CountMin;

/// Body tag: every counter in its fixed width, little-endian, row-major.
const DENSE: u8 = 0;
/// Body tag: runs of zero counters and runs of non-zero counters as varints.
const ZERO_RUNS: u8 = 1;

fn width<C>() -> usize {
    core::mem::size_of::<C>()
}

impl<const W: usize, const D: usize, C: Counter, U: UpdatePolicy> Codec for CountMin<W, D, C, U> {
    fn wire_seed(&self) -> u64 {
        self.seed()
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        s.varint(self.total())?;
        write_counters(s, self.cells_flat())
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        read_into_new(r, seed, Self::with_seed)
    }

    fn read_body_into<R: Source>(&mut self, r: &mut R, seed: u64, _: u8) -> Result<(), WireError> {
        self.load(seed, |cells| read_cells(r, cells), parts_error)
    }

    fn clear_with_seed(&mut self, seed: u64) {
        let _ = self.load(seed, |_| Ok(0), |e: crate::error::PartsError| e);
    }
}

/// Reads the total and the counters (zero beforehand) of a count-min body; returns the total.
fn read_cells<R: Source, const W: usize, const D: usize, C: Counter>(
    r: &mut R,
    cells: &mut [[C; W]; D],
) -> Result<u64, WireError> {
    let total = r.varint()?;
    read_counters(r, cells.as_flattened_mut())?;
    Ok(total)
}

/// Writes counters as a tag byte and the smaller of [`DENSE`] and [`ZERO_RUNS`] (ties go to dense,
/// each measured by its writer): the count-min body after its total, and each bucket window of a
/// quantile sketch.
pub(super) fn write_counters<S: Sink, C: Counter>(s: &mut S, cells: &[C]) -> Result<(), S::Error> {
    let dense = cells.len() * width::<C>();
    write_smallest(s, dense, ZERO_RUNS, |tag, s| write_form(tag, cells, s))
}

/// Writes `cells` in the body form `tag` (without the tag).
// One copy, called to measure each form and to write the chosen one.
#[inline(never)]
fn write_form<S: Sink, C: Counter>(tag: u8, cells: &[C], s: &mut S) -> Result<(), S::Error> {
    let value = |i: usize| cells.get(i).map_or(0, |c| c.to_u64());
    let runs = tag == ZERO_RUNS;
    write_items(
        s,
        cells.len(),
        runs,
        |i| value(i) == 0,
        |s, i| {
            let mut v = value(i);
            if runs {
                return s.varint(v);
            }
            (0..width::<C>()).try_for_each(|_| {
                let low = v as u8;
                v >>= 8;
                s.byte(low)
            })
        },
    )
}

/// Reads what [`write_counters`] wrote into `cells` (all zero beforehand). A counter above the type's
/// maximum is [`WireError::BadRegister`] (its index within `cells`).
pub(super) fn read_counters<R: Source, C: Counter>(
    r: &mut R,
    cells: &mut [C],
) -> Result<(), WireError> {
    let len = cells.len();
    let mut flat = cells.iter_mut();
    match r.byte()? {
        DENSE => {
            for c in flat {
                let mut b = [0u8; 8];
                for x in b.iter_mut().take(width::<C>()) {
                    *x = r.byte()?;
                }
                *c = C::from_u64(u64::from_le_bytes(b));
            }
        }
        ZERO_RUNS => {
            let mut pos = 0usize;
            while pos < len {
                let zeros = r.varint()?;
                let literals = r.varint()?;
                let covered = zeros.checked_add(literals).filter(|&c| c > 0).ok_or(
                    WireError::BadEncoding {
                        what: "empty or overflowing zero run",
                    },
                )?;
                if covered > (len - pos) as u64 {
                    return Err(WireError::BadEncoding {
                        what: "zero runs cover more counters than the sketch has",
                    });
                }
                // Both fit in usize now: they add up to at most the counters left.
                for _ in 0..zeros {
                    flat.next();
                }
                pos += zeros as usize;
                for _ in 0..literals {
                    let value = r.varint()?;
                    if value > C::MAX.to_u64() {
                        return Err(WireError::BadRegister {
                            index: pos as u32,
                            value,
                        });
                    }
                    if let Some(c) = flat.next() {
                        *c = C::from_u64(value);
                    }
                    pos += 1;
                }
            }
        }
        _ => {
            return Err(WireError::BadEncoding {
                what: "unknown counter encoding",
            })
        }
    }
    Ok(())
}

impl<const W: usize, const D: usize, C: Counter, U: UpdatePolicy> Wire for CountMin<W, D, C, U> {
    const KIND: SketchKind = SketchKind::CountMin;
    const PARAMS: &'static [(&'static str, u64)] = &[
        ("W", W as u64),
        ("D", D as u64),
        ("COUNTER_BYTES", core::mem::size_of::<C>() as u64),
        (
            "CONSERVATIVE",
            match U::RULE {
                UpdateRule::Standard => 0,
                UpdateRule::Conservative => 1,
            },
        ),
    ];
    /// Envelope, total, tag, and the dense body (never larger than zero runs: the encoder picks the
    /// smaller).
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS)
        + super::codec::VARINT_MAX
        + 1
        + W * D * core::mem::size_of::<C>();
}

serde_via_wire!(impl[const W: usize, const D: usize, C: Counter, U: UpdatePolicy] CountMin<W, D, C, U>);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::countmin::Conservative;
    use crate::wire::{decode, encode, encoded_len};

    fn round_trip<const W: usize, const D: usize, C: Counter, U: UpdatePolicy>(
        cm: &CountMin<W, D, C, U>,
    ) -> usize {
        let mut buf = [0u8; 8192];
        let bytes = encode(cm, &mut buf).unwrap();
        assert!(bytes.len() <= CountMin::<W, D, C, U>::MAX_ENCODED_LEN);
        assert_eq!(bytes.len(), encoded_len(cm));
        assert!(decode::<CountMin<W, D, C, U>>(bytes).unwrap() == *cm);
        bytes.len()
    }

    #[test]
    fn small_counts_encode_small_and_full_ones_dense() {
        let mut cm = CountMin::<200, 4, u32>::with_seed(3);
        let empty = round_trip(&cm);
        assert!(empty < 16, "{empty}");
        for i in 0..10u32 {
            cm.increment(&i);
        }
        let small = round_trip(&cm);
        assert!(small < 150, "{small}");
        for i in 0..100_000u32 {
            cm.add(&i, u64::from(i));
        }
        // Dense: the bound less 9 bytes of seed (3) and 5 of total (about 5·10^9) below 10 each.
        assert_eq!(
            round_trip(&cm),
            CountMin::<200, 4, u32>::MAX_ENCODED_LEN - 9 - 5
        );
        let mut c8 = CountMin::<64, 2, u8, Conservative>::new();
        for i in 0..1_000u32 {
            c8.increment(&i);
        }
        round_trip(&c8);
        // Wide counters everywhere, widest seed and total: exactly the bound.
        let c64 = CountMin::<8, 2, u64>::from_parts([[u64::MAX / 8; 8]; 2], u64::MAX, u64::MAX);
        assert_eq!(
            round_trip(&c64.unwrap()),
            CountMin::<8, 2, u64>::MAX_ENCODED_LEN
        );
    }
}
