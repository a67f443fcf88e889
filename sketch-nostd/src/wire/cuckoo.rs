//! Encoding of [`CuckooFilter`]: the victim slot, then every bucket slot exactly where it is (slot
//! positions are part of the filter's state), densely or as a list of the occupied slots; and
//! [`CuckooFilterRef`], the zero-copy view of the dense encoding.

use core::marker::PhantomData;

use super::codec::{
    envelope_max_len, parts_error, read_header, read_into_new, serde_via_wire, write_smallest,
    Codec, Sink, SliceSource, Source, VARINT_MAX,
};
use super::view::Viewable;
use super::WireError;
use super::{SketchKind, Wire};
use crate::cuckoo::{lookup, Fingerprint, SLOTS};
use crate::hash::{hash64, Key};
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
    /// Writes the victim: 0, or its bucket + 1 and its fingerprint.
    fn write_victim<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        match self.victim() {
            Some((bucket, fp)) => {
                s.varint(bucket as u64 + 1)?;
                write_fp::<S, F>(s, fp.to_u32())
            }
            None => s.varint(0),
        }
    }

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
        self.write_victim(s)?;
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

impl<const BUCKETS: usize, F: Fingerprint> Viewable for CuckooFilter<BUCKETS, F> {
    /// The victim, the dense tag and every slot: the body `encode` writes when the dense form is
    /// the smaller (at the usual loads), and the one [`CuckooFilterRef`] reads.
    fn write_view_body<S: Sink>(&self, s: &mut S) -> Result<(), S::Error> {
        self.write_victim(s)?;
        s.byte(DENSE)?;
        self.write_form(DENSE, s)
    }
}

/// Reads what precedes the slots of a dense body for a view of a filter of `buckets` buckets: the
/// victim (as `(bucket, fingerprint)`, fingerprint 0 for none, checked as `from_parts` checks it)
/// and the dense tag.
fn view_head<F: Fingerprint>(
    src: &mut SliceSource<'_>,
    buckets: u64,
) -> Result<(u32, u32), WireError> {
    let victim = match src.varint()? {
        0 => (0, 0),
        v => {
            let fp = read_fp::<_, F>(src)?;
            if v > buckets || fp == 0 {
                return Err(WireError::BadEncoding {
                    what: "cuckoo victim in no bucket or empty",
                });
            }
            ((v - 1) as u32, fp)
        }
    };
    if src.byte()? != DENSE {
        return Err(WireError::BadEncoding {
            what: "a view needs the dense body (write it with wire::encode_view)",
        });
    }
    Ok(victim)
}

/// The most buckets a cuckoo filter has (`BUCKETS < 2^30`).
const MAX_BUCKETS: u64 = (1 << 30) - 1;

/// A [`CuckooFilter`] read in place from its dense encoding ([`encode_view`](super::encode_view)):
/// validated once by [`new`](Self::new), then queried without copying (two buckets and the victim
/// per lookup), answering exactly as the encoded filter. For a set kept up to date on a host
/// (inserts and removes) and shipped to devices that only ask: the cuckoo filter is the compact
/// deletable filter (about `BITS + 1` bits per key at 95% load, where a counting Bloom filter
/// needs 4 bits per counter), and the view keeps it in flash or a download buffer. The number of
/// buckets comes from the envelope; the fingerprint width is the type's (`u16` by default).
///
/// ```
/// use sketch_nostd::{wire::{self, CuckooFilterRef, Wire}, CuckooFilter};
/// type Revoked = CuckooFilter<256>; // 1,024 slots of 16 bits
/// let mut host = Revoked::with_seed(4);
/// host.insert("cert:1234")?;
/// host.insert("cert:5678")?;
/// host.remove("cert:5678").expect("inserted");
/// let mut buf = vec![0u8; Revoked::MAX_ENCODED_LEN];
/// let bytes = wire::encode_view(&host, &mut buf)?; // shipped to the device
///
/// let view = CuckooFilterRef::<u16>::new(bytes)?; // checked once, nothing copied
/// assert!(view.contains("cert:1234"));
/// assert_eq!(view.contains("cert:5678"), host.contains("cert:5678"));
/// assert_eq!(view.buckets(), 256);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CuckooFilterRef<'a, F: Fingerprint = u16> {
    /// The slots, bucket after bucket.
    body: &'a [u8],
    buckets: u32,
    /// 0 when there is no victim.
    victim_bucket: u32,
    /// 0: no victim.
    victim_fp: u32,
    seed: u64,
    _f: PhantomData<F>,
}

/// The filter's shape and the body's length, not its bytes.
impl<F: Fingerprint> core::fmt::Debug for CuckooFilterRef<'_, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CuckooFilterRef")
            .field("buckets", &self.buckets)
            .field("victim", &(self.victim_fp != 0))
            .field("seed", &self.seed)
            .field("body_len", &self.body.len())
            .finish()
    }
}

impl<'a, F: Fingerprint> CuckooFilterRef<'a, F> {
    /// A view of the encoded [`CuckooFilter`] with `F` fingerprints in `bytes` (exactly one sketch,
    /// dense body).
    ///
    /// ```
    /// use sketch_nostd::{wire::CuckooFilterRef, WireError};
    /// assert_eq!(CuckooFilterRef::<u8>::new(b"SK"), Err(WireError::Truncated));
    /// ```
    ///
    /// # Errors
    /// Envelope errors as for [`decode`](super::decode) ([`WireError::BadMagic`],
    /// [`WireError::UnsupportedVersion`], [`WireError::WrongKind`] for another sketch, …);
    /// [`WireError::WrongParameter`] for another fingerprint width; [`WireError::BadEncoding`] for a
    /// number of buckets out of range, a victim in no bucket or with fingerprint 0, or a body other
    /// than the dense one; [`WireError::Truncated`] or [`WireError::TrailingBytes`] if the slots are
    /// not exactly `4·BUCKETS` fingerprints.
    pub fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        let mut src = SliceSource::new(bytes);
        let header = read_header(&mut src);
        let (header, body) = src.finish(header)?;
        if header.kind != SketchKind::CuckooFilter {
            return Err(WireError::WrongKind {
                expected: SketchKind::CuckooFilter,
                found: header.kind as u8,
            });
        }
        let [buckets, bits, ..] = header.params;
        if bits != u64::from(F::BITS) {
            return Err(WireError::WrongParameter {
                name: "FINGERPRINT_BITS",
                expected: u64::from(F::BITS),
                found: bits,
            });
        }
        if !(1..=MAX_BUCKETS).contains(&buckets) {
            return Err(WireError::BadEncoding {
                what: "cuckoo filter size out of range",
            });
        }
        let mut src = SliceSource::new(body);
        let head = view_head::<F>(&mut src, buckets);
        let ((victim_bucket, victim_fp), slots) = src.finish(head)?;
        // buckets < 2^30 and a bucket is 4 or 8 bytes: the product fits in u64.
        let want = buckets * (SLOTS * fp_bytes::<F>()) as u64;
        match (slots.len() as u64).cmp(&want) {
            core::cmp::Ordering::Less => Err(WireError::Truncated),
            core::cmp::Ordering::Greater => Err(WireError::TrailingBytes),
            core::cmp::Ordering::Equal => Ok(Self {
                body: slots,
                buckets: buckets as u32,
                victim_bucket,
                victim_fp,
                seed: header.seed,
                _f: PhantomData,
            }),
        }
    }

    /// `false` if the key is definitely not in the filter, `true` if it may be: the answer of
    /// [`CuckooFilter::contains`] on the encoded filter.
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, CuckooFilterRef, Wire}, CuckooFilter};
    /// let mut f = CuckooFilter::<8, u8>::new();
    /// f.insert("a")?;
    /// # let mut buf = [0u8; CuckooFilter::<8, u8>::MAX_ENCODED_LEN];
    /// let view = CuckooFilterRef::<u8>::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains("a"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains<Q: Key + ?Sized>(&self, key: &Q) -> bool {
        self.contains_hash(hash64(key, self.seed))
    }

    /// [`contains`](Self::contains) for a hash computed by the caller ([`hash64`] with
    /// [`seed`](Self::seed)), as [`CuckooFilter::contains_hash`].
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, CuckooFilterRef, Wire}, CuckooFilter};
    /// let mut f = CuckooFilter::<8>::new();
    /// f.insert_hash(99)?;
    /// # let mut buf = [0u8; CuckooFilter::<8>::MAX_ENCODED_LEN];
    /// let view = CuckooFilterRef::<u16>::new(wire::encode_view(&f, &mut buf)?)?;
    /// assert!(view.contains_hash(99));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    #[must_use]
    pub fn contains_hash(&self, hash: u64) -> bool {
        // CuckooFilter::contains_hash's own lookup (crate::cuckoo), over the body's buckets; `new`
        // checked the length, so every bucket index below `buckets` is read.
        lookup::<F>(
            hash,
            self.buckets,
            |i| F::read_bucket(self.body, i).unwrap_or(F::EMPTY),
            (self.victim_bucket, self.victim_fp),
        )
    }

    /// The seed keys are hashed with.
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, CuckooFilterRef, Wire}, CuckooFilter};
    /// # let mut buf = [0u8; CuckooFilter::<2>::MAX_ENCODED_LEN];
    /// let view = CuckooFilterRef::<u16>::new(wire::encode_view(&CuckooFilter::<2>::with_seed(6), &mut buf)?)?;
    /// assert_eq!(view.seed(), 6);
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    #[must_use]
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// The number of buckets (four slots each).
    ///
    /// ```
    /// # use sketch_nostd::{wire::{self, CuckooFilterRef, Wire}, CuckooFilter};
    /// # let mut buf = [0u8; CuckooFilter::<3, u8>::MAX_ENCODED_LEN];
    /// let view = CuckooFilterRef::<u8>::new(wire::encode_view(&CuckooFilter::<3, u8>::new(), &mut buf)?)?;
    /// assert_eq!(view.buckets(), 3);
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    #[must_use]
    pub const fn buckets(&self) -> u32 {
        self.buckets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_debug_is_a_summary_not_the_body() {
        let mut host = CuckooFilter::<1024>::with_seed(9);
        host.insert("k").unwrap();
        let mut buf = vec![0u8; CuckooFilter::<1024>::MAX_ENCODED_LEN];
        let bytes = super::super::encode_view(&host, &mut buf).unwrap();
        let text = format!("{:?}", CuckooFilterRef::<u16>::new(bytes).unwrap());
        assert!(
            text.starts_with(
                "CuckooFilterRef { buckets: 1024, victim: false, seed: 9, body_len: 8192"
            ),
            "{text}"
        );
        assert!(text.len() < 90, "{text}");
    }
}
