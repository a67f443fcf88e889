//! Frames: one sketch with its device id and sequence number, checksummed and COBS-delimited, for
//! links that drop and corrupt bytes.

use core::fmt;

use super::codec::{from_postcard, VARINT_MAX};
use super::crc32;
use super::send::encode_frame;
use super::WireError;
use super::{decode, decode_into, peek, Header, Wire};

/// Bytes of the CRC at the end of a frame's payload.
const CRC_LEN: usize = 4;

/// One sketch from one device, as sent over a link.
///
/// On the wire: `device` and `seq` as varints, the sketch's encoding, its CRC-32, all COBS-encoded,
/// then the delimiter `00`. The fields carry no invariant, so they are public.
///
/// ```
/// use sketch_nostd::{wire::{Frame, FrameDecoder}, Bloom};
///
/// type Seen = Bloom<8, 3>;
/// let mut sketch = Seen::with_seed(1);
/// sketch.insert("door opened");
/// let frame = Frame { device: 42, seq: 7, sketch };
///
/// // Device: a buffer sized at compile time.
/// let mut buf = [0u8; Frame::<Seen>::MAX_ENCODED_LEN];
/// let bytes = frame.encode(&mut buf)?;
/// assert_eq!(bytes.last(), Some(&0)); // the delimiter
/// assert!(!bytes[..bytes.len() - 1].contains(&0));
///
/// // Host: frames arrive byte by byte, with line noise before them.
/// let mut rx = FrameDecoder::<{ Frame::<Seen>::MAX_ENCODED_LEN }>::new();
/// let mut got = None;
/// for &b in [0x13, 0x37, 0x00].iter().chain(bytes.iter()) {
///     if let Some(Ok(raw)) = rx.push(b) {
///         got = Some(raw.to_frame::<Seen>()?);
///     }
/// }
/// assert_eq!(got, Some(frame));
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame<S> {
    /// Who sent the sketch.
    pub device: u64,
    /// The sender's sequence number, to spot lost or repeated frames.
    pub seq: u32,
    /// The sketch.
    pub sketch: S,
}

impl<S: Wire> Frame<S> {
    /// The most bytes [`encode`](Self::encode) writes, delimiter included.
    pub const MAX_ENCODED_LEN: usize =
        cobs::max_encoding_length(VARINT_MAX + 5 + S::MAX_ENCODED_LEN + CRC_LEN) + 1;

    /// Encodes the frame into `buf`, delimiter included, and returns the bytes written. To send a
    /// sketch without moving it into a `Frame`, use [`encode_frame`] (the same
    /// bytes).
    ///
    /// ```
    /// use sketch_nostd::{wire::Frame, MicroBloom32};
    /// let frame = Frame { device: 1, seq: 2, sketch: MicroBloom32::<2>::from_parts(0x0102_0304) };
    /// let mut buf = [0u8; 64];
    /// // COBS code byte, device, seq, 10-byte sketch, CRC, delimiter.
    /// assert_eq!(frame.encode(&mut buf)?.len(), 1 + 1 + 1 + 10 + 4 + 1);
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    ///
    /// # Errors
    /// [`WireError::BufferTooSmall`] if `buf` is shorter than the frame
    /// ([`MAX_ENCODED_LEN`](Self::MAX_ENCODED_LEN) is always enough).
    pub fn encode<'a>(&self, buf: &'a mut [u8]) -> Result<&'a mut [u8], WireError> {
        encode_frame(self.device, self.seq, &self.sketch, buf)
    }

    /// Decodes one frame (COBS bytes, with or without the final delimiter) in place: `buf` is
    /// overwritten by the decoded payload. For a stream of frames use [`FrameDecoder`].
    ///
    /// ```
    /// use sketch_nostd::{wire::Frame, MicroBloom, WireError};
    /// let frame = Frame { device: 9, seq: 1, sketch: MicroBloom::<3>::from_parts(5) };
    /// let mut buf = [0u8; 64];
    /// let n = frame.encode(&mut buf)?.len();
    /// assert_eq!(Frame::<MicroBloom<3>>::decode(&mut buf[..n].to_vec())?, frame);
    ///
    /// buf[3] ^= 0x10; // one flipped bit
    /// assert!(Frame::<MicroBloom<3>>::decode(&mut buf[..n]).is_err());
    /// # Ok::<(), WireError>(())
    /// ```
    ///
    /// # Errors
    /// [`WireError::BadFraming`] for invalid COBS or a delimiter inside the frame,
    /// [`WireError::BadChecksum`] for a CRC mismatch, and any error of the sketch's decoder.
    pub fn decode(buf: &mut [u8]) -> Result<Self, WireError> {
        RawFrame::decode(buf)?.to_frame()
    }

    /// Decodes one frame (COBS bytes, with or without the final delimiter; `buf` is overwritten by
    /// the decoded payload) into `frame`, its sketch in place (see [`decode_into`]): for a receiver
    /// that keeps one frame, large sketch included, in a static.
    ///
    /// On success `frame` equals what [`decode`](Self::decode) returns. After an error in the
    /// framing (COBS, CRC, device id, sequence number) `frame` is unchanged; after an error in the
    /// sketch, `device` and `seq` are unchanged and the sketch is as [`decode_into`] leaves it
    /// (unchanged after an error in its envelope, empty with its own seed after one in its body).
    ///
    /// ```
    /// use sketch_nostd::{wire::Frame, Hll10, WireError};
    /// let mut sketch = Hll10::with_seed(3);
    /// for i in 0..2_000u32 { sketch.insert(&i); }
    /// let sent = Frame { device: 9, seq: 1, sketch };
    /// let mut buf = [0u8; Frame::<Hll10>::MAX_ENCODED_LEN];
    /// let n = sent.encode(&mut buf)?.len();
    ///
    /// let mut rx = Frame { device: 0, seq: 0, sketch: Hll10::new() };
    /// Frame::decode_into(&mut buf[..n], &mut rx)?;
    /// assert_eq!(rx, sent);
    /// # Ok::<(), WireError>(())
    /// ```
    ///
    /// # Errors
    /// As [`decode`](Self::decode), with exactly the same error for the same bytes.
    pub fn decode_into(buf: &mut [u8], frame: &mut Self) -> Result<(), WireError> {
        let raw = RawFrame::decode(buf)?;
        raw.decode_sketch_into(&mut frame.sketch)?;
        (frame.device, frame.seq) = (raw.device, raw.seq);
        Ok(())
    }
}

/// A frame whose framing and checksum are valid, its sketch still undecoded: a host receiving
/// several kinds of sketch [`peek`](Self::header)s at the envelope to choose the type.
///
/// ```
/// use sketch_nostd::{wire::{Frame, RawFrame, SketchKind}, Bloom, MicroBloom};
/// let mut buf = [0u8; 128];
/// let n = Frame { device: 3, seq: 0, sketch: Bloom::<4, 2>::new() }.encode(&mut buf)?.len();
/// let raw = RawFrame::decode(&mut buf[..n])?;
/// assert_eq!((raw.device, raw.seq), (3, 0));
/// match raw.header()?.kind {
///     SketchKind::Bloom => { let _ = raw.decode_sketch::<Bloom<4, 2>>()?; }
///     SketchKind::MicroBloom => { let _ = raw.decode_sketch::<MicroBloom<3>>()?; }
///     other => panic!("unexpected {other:?}"),
/// }
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RawFrame<'a> {
    /// Who sent the sketch.
    pub device: u64,
    /// The sender's sequence number.
    pub seq: u32,
    /// The sketch's encoding (see [`decode`]).
    pub sketch: &'a [u8],
}

impl<'a> RawFrame<'a> {
    /// Decodes the framing of one frame in place (COBS bytes, with or without the final delimiter)
    /// and checks its CRC; the sketch is left undecoded.
    ///
    /// ```
    /// use sketch_nostd::{wire::RawFrame, WireError};
    /// assert_eq!(RawFrame::decode(&mut []), Err(WireError::BadFraming));
    /// assert_eq!(RawFrame::decode(&mut [1, 2, 0, 5]), Err(WireError::BadFraming));
    /// ```
    ///
    /// # Errors
    /// [`WireError::BadFraming`], [`WireError::Truncated`] (shorter than a CRC),
    /// [`WireError::BadChecksum`], or a varint error in the device id or sequence number.
    pub fn decode(buf: &'a mut [u8]) -> Result<Self, WireError> {
        let end = match buf.last() {
            Some(0) => buf.len() - 1,
            _ => buf.len(),
        };
        let body = buf.get_mut(..end).ok_or(WireError::BadFraming)?;
        if body.is_empty() || body.contains(&0) {
            return Err(WireError::BadFraming);
        }
        let n = cobs::decode_in_place(body).map_err(|_| WireError::BadFraming)?;
        let payload = body.get(..n).ok_or(WireError::BadFraming)?;
        let (data, sent) = payload
            .split_last_chunk::<CRC_LEN>()
            .ok_or(WireError::Truncated)?;
        if crc32::checksum(data) != u32::from_le_bytes(*sent) {
            return Err(WireError::BadChecksum);
        }
        let ((device, seq), sketch) =
            postcard::take_from_bytes::<(u64, u32)>(data).map_err(from_postcard)?;
        Ok(Self {
            device,
            seq,
            sketch,
        })
    }

    /// The sketch's envelope.
    ///
    /// # Errors
    /// As [`peek`].
    pub fn header(&self) -> Result<Header, WireError> {
        peek(self.sketch)
    }

    /// Decodes the sketch as an `S`.
    ///
    /// # Errors
    /// As [`decode`].
    pub fn decode_sketch<S: Wire>(&self) -> Result<S, WireError> {
        decode(self.sketch)
    }

    /// Decodes the sketch into `sketch`, in place; see [`decode_into`] for what `sketch` holds after
    /// an error.
    ///
    /// ```
    /// use sketch_nostd::{wire::{Frame, RawFrame}, Bloom};
    /// let mut f = Bloom::<8, 3>::with_seed(2);
    /// f.insert("x");
    /// let mut buf = [0u8; Frame::<Bloom<8, 3>>::MAX_ENCODED_LEN];
    /// let n = Frame { device: 1, seq: 4, sketch: f.clone() }.encode(&mut buf)?.len();
    ///
    /// let mut rx = Bloom::<8, 3>::new();
    /// RawFrame::decode(&mut buf[..n])?.decode_sketch_into(&mut rx)?;
    /// assert_eq!(rx, f);
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    ///
    /// # Errors
    /// As [`decode_into`].
    pub fn decode_sketch_into<S: Wire>(&self, sketch: &mut S) -> Result<(), WireError> {
        decode_into(self.sketch, sketch)
    }

    /// Decodes the sketch as an `S` and returns the whole frame.
    ///
    /// # Errors
    /// As [`decode`].
    pub fn to_frame<S: Wire>(&self) -> Result<Frame<S>, WireError> {
        Ok(Frame {
            device: self.device,
            seq: self.seq,
            sketch: self.decode_sketch()?,
        })
    }
}

/// Reassembles frames from a byte stream (a UART, a radio, a TCP stream, concatenated UDP payloads)
/// in a fixed `N`-byte buffer.
///
/// Bytes accumulate until a delimiter `00`; the frame before it is then checked and returned. After a
/// corrupted, truncated or over-long frame the decoder reports one error and starts afresh at the next
/// delimiter, so one bad frame costs at most itself and the frame it ran into. Empty frames (repeated
/// delimiters, as a sender may emit to flush a line) are skipped silently. Size `N` with
/// [`Frame::MAX_ENCODED_LEN`] of the largest sketch expected.
///
/// ```
/// use sketch_nostd::{wire::{Frame, FrameDecoder}, MicroBloom, WireError};
///
/// let mut buf = [0u8; 64];
/// let good = Frame { device: 1, seq: 5, sketch: MicroBloom::<3>::from_parts(0xF0) };
/// let n = good.encode(&mut buf)?.len();
/// let mut stream = buf[..n].to_vec();
/// stream[4] ^= 0x01; // corrupt the first copy…
/// stream.extend_from_slice(&buf[..n]); // …the second arrives intact
///
/// let mut rx = FrameDecoder::<64>::new();
/// let (mut ok, mut bad) = (0, 0);
/// for &b in &stream {
///     match rx.push(b) {
///         Some(Ok(raw)) => { assert_eq!(raw.to_frame::<MicroBloom<3>>()?, good); ok += 1 }
///         Some(Err(_)) => bad += 1,
///         None => {}
///     }
/// }
/// assert_eq!((ok, bad), (1, 1));
/// # Ok::<(), WireError>(())
/// ```
#[derive(Clone)]
pub struct FrameDecoder<const N: usize> {
    buf: [u8; N],
    len: usize,
    overflowed: bool,
}

impl<const N: usize> FrameDecoder<N> {
    /// An idle decoder.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            buf: [0; N],
            len: 0,
            overflowed: false,
        }
    }

    /// Feeds one byte. Returns `None` in the middle of a frame, and at a delimiter the frame that it
    /// ends (or why that frame was rejected). The returned frame borrows the decoder's buffer until
    /// the next call.
    pub fn push(&mut self, byte: u8) -> Option<Result<RawFrame<'_>, WireError>> {
        if byte != 0 {
            match self.buf.get_mut(self.len) {
                Some(slot) => {
                    *slot = byte;
                    self.len += 1;
                }
                None => self.overflowed = true,
            }
            return None;
        }
        let len = core::mem::replace(&mut self.len, 0);
        if core::mem::replace(&mut self.overflowed, false) {
            return Some(Err(WireError::FrameTooLong));
        }
        if len == 0 {
            return None;
        }
        let frame = self.buf.get_mut(..len)?;
        Some(RawFrame::decode(frame))
    }

    /// Feeds a chunk of bytes (a UDP datagram, a UART DMA buffer), calling `on_frame` for every frame
    /// it completes.
    ///
    /// ```
    /// use sketch_nostd::{wire::{Frame, FrameDecoder}, MicroBloom32};
    /// let mut buf = [0u8; 64];
    /// let n = Frame { device: 1, seq: 0, sketch: MicroBloom32::<2>::new() }.encode(&mut buf)?.len();
    /// let mut twice = buf[..n].to_vec();
    /// twice.extend_from_slice(&buf[..n]);
    ///
    /// let mut rx = FrameDecoder::<64>::new();
    /// let mut seen = 0;
    /// rx.feed(&twice, |frame| seen += usize::from(frame.is_ok()));
    /// assert_eq!(seen, 2);
    /// # Ok::<(), sketch_nostd::WireError>(())
    /// ```
    pub fn feed(
        &mut self,
        bytes: &[u8],
        mut on_frame: impl FnMut(Result<RawFrame<'_>, WireError>),
    ) {
        for &b in bytes {
            if let Some(result) = self.push(b) {
                on_frame(result);
            }
        }
    }

    /// Drops any partial frame, as after a link reset.
    pub fn reset(&mut self) {
        self.len = 0;
        self.overflowed = false;
    }
}

impl<const N: usize> Default for FrameDecoder<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The device, the sequence number and the sketch's length, not its bytes (a sketch's encoding runs
/// to tens of kilobytes).
impl fmt::Debug for RawFrame<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawFrame")
            .field("device", &self.device)
            .field("seq", &self.seq)
            .field("sketch_len", &self.sketch.len())
            .finish()
    }
}

/// The state, not the buffer: its capacity `N`, the bytes of the partial frame held, and whether
/// that frame has overflowed.
impl<const N: usize> fmt::Debug for FrameDecoder<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameDecoder")
            .field("capacity", &N)
            .field("buffered", &self.len)
            .field("overflowed", &self.overflowed)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_a_summary_not_the_buffer() {
        let mut rx = FrameDecoder::<4096>::new();
        rx.feed(&[0x13; 100], |_| {});
        let text = format!("{rx:?}");
        assert_eq!(
            text,
            "FrameDecoder { capacity: 4096, buffered: 100, overflowed: false }"
        );
        rx.feed(&[0x13; 4000], |_| {});
        assert!(format!("{rx:?}").contains("buffered: 4096, overflowed: true"));

        let bytes = [0xab; 30_000];
        let raw = RawFrame {
            device: 7,
            seq: 3,
            sketch: &bytes,
        };
        assert_eq!(
            format!("{raw:?}"),
            "RawFrame { device: 7, seq: 3, sketch_len: 30000 }"
        );
    }
}
