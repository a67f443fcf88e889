//! The send path: a sketch's postcard bytes, and frames, written straight into a caller's buffer.
//!
//! Separate from the receive path on purpose: nothing here reads bytes, so a firmware that only
//! sends links no decoder; it writes through checked `get_mut` (a full buffer is
//! [`WireError::BufferTooSmall`], never a panic), and a frame is built from `&S` in one pass: the
//! sketch's bytes are COBS-encoded and checksummed as they are produced, so neither a copy of the
//! sketch nor a second buffer is made. The bytes are exactly those postcard's serializer writes
//! (`u8` raw, `u64` as LEB128), through its `Cobs` and CRC flavors for frames; the golden tests pin
//! them.

use super::codec::{write_sketch, Sink};
use super::crc32;
use super::Wire;
use crate::wire::WireError;

/// The error of [`Out`]'s writes: none. A write past the end of the buffer is counted, not
/// stored, and [`Out::finish`] reports it as [`WireError::BufferTooSmall`]; so no write on the send
/// path has an error branch (each was a compare and a branch at every call site, about 4 B of
/// Cortex-M0 code, and kept values live across the calls).
pub(crate) enum Never {}

impl From<Never> for WireError {
    fn from(never: Never) -> Self {
        match never {}
    }
}

/// Where the send path writes: a caller's byte slice, as postcard writes elements (`u8` raw, `u64`
/// as a LEB128 varint), either plainly or as a frame's payload (COBS-encoded as postcard's `Cobs`
/// flavor, a code byte before each run of up to 254 non-zero bytes, and checksummed). One type for
/// both, so that each sketch's body writer is compiled once on a device that encodes and frames.
///
/// Writing never fails: bytes past the end of the slice are counted and dropped, and
/// [`finish`](Self::finish) refuses the result. So it measures ([`Sink::measure`]) exactly, by
/// writing plain bytes into the free part of the slice (as far as they fit) and taking them back,
/// and it lends that free part as scratch memory ([`Sink::with_scratch`]).
pub(crate) struct Out<'a> {
    buf: &'a mut [u8],
    /// Bytes written, counting those past the end of `buf`.
    at: usize,
    /// Whether the bytes are a frame's payload.
    framed: bool,
    /// Frames: where the code byte of the current COBS run goes (its placeholder); the run's code
    /// is 1 + its length, `at − code`.
    code: usize,
    /// Frames: the checksum of the payload so far.
    crc: crc32::Running,
}

impl<'a> Out<'a> {
    /// Writes plain bytes into `buf`.
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Self {
            buf,
            at: 0,
            framed: false,
            code: 0,
            crc: crc32::start(),
        }
    }

    /// Writes a frame's payload into `buf`: the first run's code byte is `buf[0]`, set when the
    /// run ends.
    fn framed(buf: &'a mut [u8]) -> Self {
        Self {
            at: 1,
            framed: true,
            ..Self::new(buf)
        }
    }

    /// One byte into the slice, if it is not full.
    #[inline(always)]
    fn put(&mut self, b: u8) {
        if let Some(x) = self.buf.get_mut(self.at) {
            *x = b;
        }
        self.at += 1;
    }

    /// The bytes written, or [`WireError::BufferTooSmall`] if they did not fit.
    pub(crate) fn finish(&mut self) -> Result<&'a mut [u8], WireError> {
        core::mem::take(&mut self.buf)
            .get_mut(..self.at)
            .ok_or(WireError::BufferTooSmall)
    }
}

impl Sink for Out<'_> {
    type Error = Never;

    // One copy, called by every element (inlined into each, it cost ~300 B of M0 code). A frame's
    // byte goes into the checksum, then through COBS.
    #[inline(never)]
    fn byte(&mut self, mut b: u8) -> Result<(), Never> {
        if self.framed {
            self.crc.update(core::slice::from_ref(&b));
            if b != 0 {
                self.put(b);
                if self.at - self.code != 0xFF {
                    return Ok(());
                }
                b = 0;
            }
            // The run ends: its code, and (the `put` below) the next run's placeholder.
            if let Some(code) = self.buf.get_mut(self.code) {
                *code = (self.at - self.code) as u8;
            }
            self.code = self.at;
        }
        self.put(b);
        Ok(())
    }

    /// A LEB128 varint (7 bits a byte, least significant first), as postcard writes a `u64`.
    #[inline(never)]
    fn varint(&mut self, v: u64) -> Result<(), Never> {
        // In two 32-bit halves: a 64-bit shift and compare are several instructions on a 32-bit core.
        let (mut lo, mut hi) = (v as u32, (v >> 32) as u32);
        while hi != 0 || lo >= 0x80 {
            self.byte(lo as u8 | 0x80)?;
            lo = lo >> 7 | hi << 25;
            hi >>= 7;
        }
        self.byte(lo as u8)
    }

    fn measure(
        &mut self,
        most: usize,
        write: impl FnOnce(&mut Self) -> Result<(), Never>,
    ) -> Option<usize> {
        let (at, framed) = (self.at, self.framed);
        self.framed = false;
        let Ok(()) = write(self);
        let n = self.at - at;
        (self.at, self.framed) = (at, framed);
        (n <= most).then_some(n)
    }

    #[inline]
    fn with_scratch<R>(&mut self, len: usize, f: impl FnOnce(&mut [u8]) -> R) -> Option<R> {
        let free = self.buf.get_mut(self.at..)?;
        free.get_mut(..len).map(f)
    }
}

/// Encodes `sketch` into `buf` and returns the bytes written; see [`encode`](super::encode).
pub(crate) fn encode_into<'a, T: Wire>(
    sketch: &T,
    buf: &'a mut [u8],
) -> Result<&'a mut [u8], WireError> {
    let mut out = Out::new(buf);
    let Ok(()) = write_sketch(sketch, &mut out);
    out.finish()
}

/// Encodes a frame of `sketch`, sent by `device` with sequence number `seq`, into `buf`, delimiter
/// included, and returns the bytes written: the bytes of [`Frame::encode`](super::Frame::encode)
/// for a frame holding this sketch, without moving or copying the sketch into a frame.
///
/// On a device: size `buf` with [`Frame::<S>::MAX_ENCODED_LEN`](super::Frame::MAX_ENCODED_LEN).
/// Nothing of the decoder is linked by this function.
///
/// ```
/// use sketch_nostd::{wire::{self, Frame, RawFrame}, Bloom};
///
/// type Seen = Bloom<8, 3>;
/// let mut sketch = Seen::with_seed(1);
/// sketch.insert("door opened");
/// let mut buf = [0u8; Frame::<Seen>::MAX_ENCODED_LEN];
/// let bytes = wire::encode_frame(42, 7, &sketch, &mut buf)?;
/// assert_eq!(bytes.last(), Some(&0));
/// sketch.insert("door closed"); // still ours: nothing was moved or cloned
///
/// let raw = RawFrame::decode(bytes)?;
/// assert_eq!((raw.device, raw.seq), (42, 7));
/// assert!(raw.decode_sketch::<Seen>()?.contains("door opened"));
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
///
/// # Errors
/// [`WireError::BufferTooSmall`] if `buf` is shorter than the frame.
pub fn encode_frame<'a, S: Wire>(
    device: u64,
    seq: u32,
    sketch: &S,
    buf: &'a mut [u8],
) -> Result<&'a mut [u8], WireError> {
    let mut out = Out::framed(buf);
    let Ok(()) = out.varint(device);
    let Ok(()) = out.varint(u64::from(seq));
    let Ok(()) = write_sketch(sketch, &mut out);
    // The CRC's four bytes, then the delimiter: a zero through COBS writes the last run's code,
    // then the zero (the fifth byte shifted out of the CRC). They go through `byte`, which also
    // adds them to the checksum, no longer read.
    let mut crc = out.crc.finalize();
    for _ in 0..5 {
        let Ok(()) = out.byte(crc as u8);
        crc >>= 8;
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Frame;
    use crate::{Bloom, CountMin, CountingBloom, CuckooFilter, Hll10, MicroBloom};
    use postcard::ser_flavors::{crc::CrcModifier, Cobs, Slice};

    /// What postcard's serializer writes for a frame (the previous implementation).
    fn postcard_frame<'a, S: Wire>(
        device: u64,
        seq: u32,
        sketch: &S,
        buf: &'a mut [u8],
    ) -> &'a mut [u8] {
        static CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
        let cobs = Cobs::try_new(Slice::new(buf)).unwrap();
        let flavor = CrcModifier::new(cobs, CRC.digest());
        postcard::serialize_with_flavor(&(device, seq, sketch), flavor).unwrap()
    }

    #[test]
    fn bytes_equal_postcards() {
        let mut bloom = Bloom::<64, 7>::with_seed(3);
        let mut hll = Hll10::with_seed(5);
        let mut micro = MicroBloom::<3>::new();
        let (mut a, mut b) = ([0u8; 2_000], [0u8; 2_000]);
        for i in 0..3_000u32 {
            // Every length of zero-free runs, and runs around 254 bytes, pass through COBS.
            if i % 7 == 0 {
                bloom.insert(&i);
            }
            hll.insert(&i);
            micro.insert(&i);
            for (device, seq) in [(0u64, 0u32), (u64::MAX, u32::MAX), (300, 1 << 20)] {
                if i % 97 != 0 && i > 10 {
                    continue;
                }
                let ours = encode_frame(device, seq, &bloom, &mut a).unwrap();
                assert_eq!(&*ours, postcard_frame(device, seq, &bloom, &mut b));
                let ours = encode_frame(device, seq, &hll, &mut a).unwrap();
                assert_eq!(&*ours, postcard_frame(device, seq, &hll, &mut b));
                let ours = encode_frame(device, seq, &micro, &mut a).unwrap();
                assert_eq!(&*ours, postcard_frame(device, seq, &micro, &mut b));
                let ours = encode_into(&hll, &mut a).unwrap();
                assert_eq!(&*ours, postcard::to_slice(&hll, &mut b).unwrap());
            }
        }
        // Runs of exactly 254, 255 and 508 non-zero bytes (a packed dense HLL of all-ones
        // registers has no zero byte at all).
        let mut full = Hll10::new();
        full.to_dense();
        for i in 0..1_024u64 {
            full.insert_hash(i << 54 | 1 << 53);
        }
        let ours = encode_frame(1, 2, &full, &mut a).unwrap();
        assert_eq!(&*ours, postcard_frame(1, 2, &full, &mut b));
        assert!(ours.len() <= Frame::<Hll10>::MAX_ENCODED_LEN);
    }

    /// Encodes `sketch` and a frame of it into buffers of every length around their sizes: the
    /// exact length gives postcard's bytes (the forms are measured in the free part of the buffer,
    /// so a tight buffer must not change the choice), one byte less is an error.
    fn tight_buffers<T: Wire>(sketch: &T) {
        let mut want = [0u8; 4_096];
        let plain = postcard::to_slice(sketch, &mut want).unwrap().to_vec();
        let framed = postcard_frame(3, 4, sketch, &mut want).to_vec();
        let mut buf = [0u8; 4_096];
        for (len, ok) in [(plain.len(), true), (plain.len() - 1, false)] {
            let got = encode_into(sketch, &mut buf[..len]);
            assert_eq!(got.as_deref().ok(), ok.then_some(&plain[..]));
        }
        for (len, ok) in [(framed.len(), true), (framed.len() - 1, false)] {
            let got = encode_frame(3, 4, sketch, &mut buf[..len]);
            assert_eq!(got.as_deref().ok(), ok.then_some(&framed[..]));
        }
    }

    #[test]
    fn every_body_form_is_chosen_the_same_in_a_tight_buffer() {
        let mut bloom = Bloom::<16, 3>::with_seed(9);
        let mut counting = CountingBloom::<16, 3>::with_seed(9);
        let mut cm = CountMin::<32, 2, u16>::with_seed(9);
        let mut cuckoo = CuckooFilter::<8>::with_seed(9);
        for i in 0..300u32 {
            // Sparse, zero-run, two-bit and dense bodies as the filters fill.
            if i < 10 || i % 25 == 0 {
                tight_buffers(&bloom);
                tight_buffers(&counting);
                tight_buffers(&cm);
                tight_buffers(&cuckoo);
            }
            bloom.insert(&i);
            counting.insert(&i);
            cm.add(&(i % 40), 1 << (i % 9));
            let _ = cuckoo.insert(&i);
        }
        tight_buffers(&Bloom::<8, 2>::from_parts([0, 0, !0, !0, 0, 0, 0, 0], 1));
    }

    /// The HyperLogLog's dense encoder keeps its register histogram in the free part of the
    /// buffer (from `P = 10`), and without room for it chooses as if no compact body fitted: the
    /// same bytes in buffers of exactly their length, where at small counts the list leaves no room
    /// for the histogram, as in large ones; the same in frames.
    #[test]
    fn hll_forms_are_chosen_the_same_in_a_tight_buffer() {
        use crate::hll::{DeviceHll10, DeviceHll12, DeviceHll4, DeviceHll9};
        let (mut d4, mut d9) = (DeviceHll4::with_seed(2), DeviceHll9::with_seed(2));
        let (mut d10, mut d12) = (DeviceHll10::with_seed(2), DeviceHll12::with_seed(2));
        let mut full = Hll10::with_seed(2);
        full.to_dense();
        // The dense body's tag of each encoding: after the envelope and the state byte.
        let mut tags = [[0u32; 3]; 2];
        let mut buf = [0u8; 4_096];
        let mut x = 0x1234_5678_9abc_def0u64;
        for i in 0..40_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let checked = i < 40 || (i < 400 && i % 20 == 0) || i % 2_000 == 0;
            if checked {
                tight_buffers(&d4);
                tight_buffers(&d9);
                tight_buffers(&d10);
                tight_buffers(&d12);
                tight_buffers(&full);
                // Envelope (6 bytes), state byte, tag: in an exact buffer, 127 bytes or fewer after
                // the state byte leave no room for the 128-byte histogram.
                let plain = encode_into(&d10, &mut buf).unwrap();
                if plain[6] == 1 {
                    tags[usize::from(plain.len() - 7 >= 128)][usize::from(plain[7])] += 1;
                }
            }
            for h in [x, x.rotate_left(32)] {
                d4.insert_hash(h);
                d9.insert_hash(h);
                d10.insert_hash(h);
                d12.insert_hash(h);
                full.insert_hash(h);
            }
        }
        // Lists in buffers too short for the histogram; lists and compact bodies (the registers
        // of 80,000 keys) in longer ones.
        assert!(tags[0][1] > 10, "{tags:?}");
        assert!(tags[1][1] > 0 && tags[1][2] > 0, "{tags:?}");
        // Registers of any value: packed.
        let mut packed = [0u8; 768];
        for i in 0..1_024 {
            crate::hll::registers::raise(&mut packed, i, (i * 37 % 56) as u8);
        }
        let any = DeviceHll10::from_parts(&packed, 1).unwrap();
        assert_eq!(encode_into(&any, &mut buf).unwrap()[7], 0);
        tight_buffers(&any);
        // Above `P = 15` a count takes four bytes: 65,536 registers all 3 (a count of 2^16, carried
        // into the third byte), and the registers of 300,000 keys, as postcard's path writes them.
        let mut big = vec![0u8; 49_152];
        for i in 0..1 << 16 {
            crate::hll::registers::raise(&mut big, i, 3);
        }
        let all3 = crate::hll::DeviceHll16::from_parts(big.as_slice().try_into().unwrap(), 4);
        let mut keys = crate::hll::DeviceHll16::with_seed(4);
        for i in 0..300_000u32 {
            keys.insert(&i);
        }
        let (mut ours, mut want) = (vec![0u8; 50_000], vec![0u8; 50_000]);
        for sketch in [&all3.unwrap(), &keys] {
            let plain = encode_into(sketch, &mut ours).unwrap();
            assert_eq!(&*plain, postcard::to_slice(sketch, &mut want).unwrap());
            assert_eq!(plain[7], 2, "compact");
        }
    }

    #[test]
    fn short_buffers_are_errors_at_every_length() {
        let mut hll = Hll10::with_seed(5);
        for i in 0..2_000u32 {
            hll.insert(&i);
        }
        let mut buf = [0u8; 2_000];
        let n = encode_frame(9, 9, &hll, &mut buf).unwrap().len();
        let e = encode_into(&hll, &mut buf).unwrap().len();
        for len in 0..n {
            assert_eq!(
                encode_frame(9, 9, &hll, &mut buf[..len]),
                Err(WireError::BufferTooSmall)
            );
        }
        for len in 0..e {
            assert_eq!(
                encode_into(&hll, &mut buf[..len]),
                Err(WireError::BufferTooSmall)
            );
        }
    }
}
