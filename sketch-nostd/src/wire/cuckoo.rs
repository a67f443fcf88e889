//! Encoding of [`CuckooFilter`]: the victim slot, then every bucket slot exactly where it is (slot
//! positions are part of the filter's state), densely or as a list of the occupied slots.

use super::codec::{
    envelope_max_len, parts_error, read_into_new, serde_via_wire, write_smallest, Codec, Sink,
    Source, VARINT_MAX,
};
use super::WireError;
use super::{SketchKind, Wire};
use crate::cuckoo::{Fingerprint, SLOTS};
use crate::CuckooFilter;

/// Body tag: every slot's fingerprint, `BITS / 8` little-endian bytes each, bucket after bucket.
const DENSE: u8 = 0;
/// Body tag: the number of occupied slots, then for each the gap to the previous occupied slot's
/// index (varint) and its fingerprint (`BITS / 8` little-endian bytes).
const SPARSE: u8 = 1;

const fn fp_bytes<F: Fingerprint>() -> usize {
    F::BITS as usize / 8
}

fn write_fp<S: Sink, F: Fingerprint>(s: &mut S, fp: u32) -> Result<(), S::Error> {
    for &b in fp.to_le_bytes().iter().take(fp_bytes::<F>()) {
        s.byte(b)?;
    }
    Ok(())
}

fn read_fp<R: Source, F: Fingerprint>(r: &mut R) -> Result<u32, WireError> {
    let mut b = [0u8; 4];
    for x in b.iter_mut().take(fp_bytes::<F>()) {
        *x = r.byte()?;
    }
    Ok(u32::from_le_bytes(b))
}

impl<const BUCKETS: usize, F: Fingerprint> CuckooFilter<BUCKETS, F> {
    /// Every slot's fingerprint (0 if empty), in slot-index order (`4·bucket + slot`).
    fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.as_buckets()
            .iter()
            .flat_map(|&b| (0..SLOTS as u32).map(move |s| F::slot(b, s)))
    }
}

impl<const BUCKETS: usize, F: Fingerprint> CuckooFilter<BUCKETS, F> {
    /// Writes the slots in the body form `tag` (without the tag): every slot ([`DENSE`]), or the
    /// count of occupied slots and each one's index gap and fingerprint ([`SPARSE`]).
    // One copy, called to measure each form and to write the chosen one.
    #[inline(never)]
    fn write_form<S: Sink>(&self, tag: u8, s: &mut S) -> Result<(), S::Error> {
        if tag == DENSE {
            return self.slots().try_for_each(|fp| write_fp::<S, F>(s, fp));
        }
        s.varint(self.slots().filter(|&fp| fp != 0).count() as u64)?;
        let mut next = 0;
        for (i, fp) in self.slots().enumerate() {
            if fp != 0 {
                s.varint((i - next) as u64)?;
                write_fp::<S, F>(s, fp)?;
                next = i + 1;
            }
        }
        Ok(())
    }
}

impl<const BUCKETS: usize, F: Fingerprint> Codec for CuckooFilter<BUCKETS, F> {
    fn wire_seed(&self) -> u64 {
        self.seed()
    }

    fn write_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        match self.victim() {
            Some((bucket, fp)) => {
                s.varint(bucket as u64 + 1)?;
                write_fp::<S, F>(s, fp.to_u32())?;
            }
            None => s.varint(0)?,
        }
        let dense = SLOTS * BUCKETS * fp_bytes::<F>();
        write_smallest(s, dense, SPARSE, |tag, s| self.write_form(tag, s))
    }

    fn read_body<R: Source>(r: &mut R, seed: u64) -> Result<Self, WireError> {
        read_into_new(r, seed, Self::with_seed)
    }

    fn read_body_into<R: Source>(&mut self, r: &mut R, seed: u64, _: u8) -> Result<(), WireError> {
        self.load(seed, |buckets| read_slots(r, buckets), parts_error)
    }

    fn clear_with_seed(&mut self, seed: u64) {
        let _ = self.load(seed, |_| Ok(None), |e: crate::error::PartsError| e);
    }
}

/// Reads the victim and the slots of a cuckoo body into `buckets` (empty beforehand); returns the
/// victim.
#[allow(clippy::type_complexity)]
fn read_slots<R: Source, const BUCKETS: usize, F: Fingerprint>(
    r: &mut R,
    buckets: &mut [F::Bucket; BUCKETS],
) -> Result<Option<(usize, F)>, WireError> {
    let victim = match r.varint()? {
        0 => None,
        v => {
            let bucket = usize::try_from(v - 1).unwrap_or(usize::MAX);
            Some((bucket, F::from_u32(read_fp::<R, F>(r)?)))
        }
    };
    let slots = (SLOTS * BUCKETS) as u64;
    let mut set = |i: u64, fp: u32| {
        let (b, s) = ((i / SLOTS as u64) as usize, (i % SLOTS as u64) as u32);
        if let Some(bucket) = buckets.get_mut(b) {
            *bucket = F::with_slot(*bucket, s, fp);
        }
    };
    match r.byte()? {
        DENSE => {
            for i in 0..slots {
                set(i, read_fp::<R, F>(r)?);
            }
        }
        SPARSE => {
            let count = r.varint()?;
            if count > slots {
                return Err(WireError::BadEncoding {
                    what: "more occupied slots than the filter has",
                });
            }
            let mut next = 0u64;
            for _ in 0..count {
                let i = next.checked_add(r.varint()?).filter(|&i| i < slots).ok_or(
                    WireError::BadEncoding {
                        what: "slot index past the end of the filter",
                    },
                )?;
                let fp = read_fp::<R, F>(r)?;
                if fp == 0 {
                    return Err(WireError::BadEncoding {
                        what: "an occupied slot listed with an empty fingerprint",
                    });
                }
                set(i, fp);
                next = i + 1;
            }
        }
        _ => {
            return Err(WireError::BadEncoding {
                what: "unknown cuckoo filter body encoding",
            })
        }
    }
    Ok(victim)
}

impl<const BUCKETS: usize, F: Fingerprint> Wire for CuckooFilter<BUCKETS, F> {
    const KIND: SketchKind = SketchKind::CuckooFilter;
    const PARAMS: &'static [(&'static str, u64)] = &[
        ("BUCKETS", BUCKETS as u64),
        ("FINGERPRINT_BITS", F::BITS as u64),
    ];
    /// Envelope, the victim (bucket varint and fingerprint), tag, and every slot densely.
    const MAX_ENCODED_LEN: usize = envelope_max_len(Self::PARAMS)
        + VARINT_MAX
        + fp_bytes::<F>()
        + 1
        + SLOTS * BUCKETS * fp_bytes::<F>();
}

serde_via_wire!(impl[const BUCKETS: usize, F: Fingerprint] CuckooFilter<BUCKETS, F>);
