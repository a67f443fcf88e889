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
use super::frame::crc32;
use super::Wire;
use crate::wire::WireError;

/// The one way writing can fail: the buffer is full. A unit error keeps every `Result` on the send
/// path in a register (a `WireError` is returned through memory, and linked `memcpy` on Cortex-M0);
/// it becomes [`WireError::BufferTooSmall`] at the public functions.
#[derive(Debug)]
pub(crate) struct Full;

impl From<Full> for WireError {
    fn from(_: Full) -> Self {
        WireError::BufferTooSmall
    }
}

/// Writes elements as postcard does into a byte slice, refusing to go past its end.
pub(crate) struct SliceSink<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl<'a> SliceSink<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, at: 0 }
    }

    /// The bytes written.
    pub(crate) fn finish(self) -> &'a mut [u8] {
        let at = self.at;
        let buf = self.buf;
        // `at` never passes the end: every write checked it.
        let (written, _) = buf.split_at_mut(at.min(buf.len()));
        written
    }
}

/// A LEB128 varint (7 bits a byte, least significant first), as postcard writes a `u64`.
fn varint<S: Sink>(s: &mut S, mut v: u64) -> Result<(), S::Error> {
    while v >= 0x80 {
        s.byte(v as u8 | 0x80)?;
        v >>= 7;
    }
    s.byte(v as u8)
}

impl Sink for SliceSink<'_> {
    type Error = Full;

    #[inline]
    fn byte(&mut self, b: u8) -> Result<(), Full> {
        *self.buf.get_mut(self.at).ok_or(Full)? = b;
        self.at += 1;
        Ok(())
    }

    fn varint(&mut self, v: u64) -> Result<(), Full> {
        varint(self, v)
    }
}

/// COBS-encodes (as postcard's `Cobs` flavor: a code byte before each run of up to 254 non-zero
/// bytes) and checksums the payload of a frame into a slice.
struct FrameSink<'a> {
    out: SliceSink<'a>,
    /// Where the code byte of the current run goes.
    code: usize,
    /// The current run's code: 1 + its length.
    run: u8,
    crc: crc32::Running,
}

impl<'a> FrameSink<'a> {
    fn new(buf: &'a mut [u8]) -> Result<Self, Full> {
        let mut out = SliceSink::new(buf);
        out.byte(0)?; // the first code byte, set when its run ends
        Ok(Self {
            out,
            code: 0,
            run: 1,
            crc: crc32::start(),
        })
    }

    /// Ends the current run: writes its code and starts the next run's placeholder.
    fn end_run(&mut self) -> Result<(), Full> {
        self.close_run();
        self.code = self.out.at;
        self.run = 1;
        self.out.byte(0)
    }

    /// Writes the current run's code byte.
    fn close_run(&mut self) {
        if let Some(code) = self.out.buf.get_mut(self.code) {
            *code = self.run;
        }
    }

    /// One payload byte through COBS (not the checksum). One copy: the payload and the CRC bytes
    /// both go through it.
    #[inline(never)]
    fn cobs(&mut self, b: u8) -> Result<(), Full> {
        if b == 0 {
            return self.end_run();
        }
        self.out.byte(b)?;
        self.run += 1;
        if self.run == 0xFF {
            self.end_run()?;
        }
        Ok(())
    }

    /// Appends the CRC, closes the last run and writes the delimiter.
    fn finish(mut self) -> Result<&'a mut [u8], Full> {
        let crc = core::mem::replace(&mut self.crc, crc32::start()).finalize();
        for b in crc.to_le_bytes() {
            self.cobs(b)?;
        }
        self.close_run();
        self.out.byte(0)?;
        Ok(self.out.finish())
    }
}

impl Sink for FrameSink<'_> {
    type Error = Full;

    // One copy, called by every element (inlined into each, it cost ~300 B of M0 code).
    #[inline(never)]
    fn byte(&mut self, b: u8) -> Result<(), Full> {
        self.crc.update(core::slice::from_ref(&b));
        self.cobs(b)
    }

    fn varint(&mut self, v: u64) -> Result<(), Full> {
        varint(self, v)
    }
}

/// Encodes `sketch` into `buf` and returns the bytes written; see [`encode`](super::encode).
pub(crate) fn encode_into<'a, T: Wire>(
    sketch: &T,
    buf: &'a mut [u8],
) -> Result<&'a mut [u8], WireError> {
    let mut sink = SliceSink::new(buf);
    match write_sketch(sketch, &mut sink) {
        Ok(()) => Ok(sink.finish()),
        Err(Full) => Err(WireError::BufferTooSmall),
    }
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
    let frame = |buf| {
        let mut sink = FrameSink::new(buf)?;
        sink.varint(device)?;
        sink.varint(u64::from(seq))?;
        write_sketch(sketch, &mut sink)?;
        sink.finish()
    };
    frame(buf).map_err(WireError::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Frame;
    use crate::{Bloom, Hll10, MicroBloom};
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
