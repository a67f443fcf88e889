//! Lines from any byte stream (a file, stdin, `tail -f`), as bytes.
//!
//! - Lines end at `\n`; a `\r` right before it is dropped from the key and counted (CRLF input).
//! - Bytes are never decoded: invalid UTF-8 is hashed as it is and only made printable for display.
//! - A line longer than [`CHUNK`] is hashed while it streams past ([`StreamHasher`]), and only
//!   its first [`Control::keep_long`] bytes are kept: [`SHOWN_MAX`] to show it, or up to
//!   [`LONG_KEPT_MAX`](super::LONG_KEPT_MAX) when keys or values are taken from inside lines.
//!   Memory stays bounded by `CHUNK` per batch (and that) however long a line or the input is.
//! - The last line counts even without a final newline.
//! - Every `read` that completes lines sends them at once, so `tail -f` input shows up live.

use std::io::{self, ErrorKind, Read};

use memchr::{memchr, memchr_iter, memrchr};
use sketch_nostd::hash::StreamHasher;

use std::sync::Arc;

use super::{Batch, Control, Line, LongLine, Pool, SourceMsg, SHOWN_MAX};
use crate::seed::SEED;

/// Size of one read buffer, and so of one batch; also the length above which a line is streamed.
/// 128 KiB rather than 64: half the batches, so half the hand-overs between the threads (on the
/// headless report over 100 MiB of Rust sources, about 0.9x the CPU and 0.85x the wall time, for
/// 0.7 MiB more peak memory: docs/demo.md).
pub const CHUNK: usize = 128 * 1024;

/// A line being streamed because it did not fit in one chunk.
struct Streaming {
    hasher: StreamHasher,
    shown: Vec<u8>,
    len: u64,
    /// A `\r` that ended the last piece: part of the line unless a `\n` follows.
    pending_cr: bool,
    /// Bytes of the line kept, at most.
    keep: usize,
}

impl Streaming {
    fn new(keep: usize) -> Self {
        Self {
            hasher: StreamHasher::new(SEED),
            shown: Vec::with_capacity(SHOWN_MAX),
            len: 0,
            pending_cr: false,
            keep,
        }
    }

    fn feed(&mut self, mut piece: &[u8]) {
        if piece.is_empty() {
            return;
        }
        if self.pending_cr {
            self.take(b"\r");
            self.pending_cr = false;
        }
        if let Some((b'\r', rest)) = piece.split_last() {
            self.pending_cr = true;
            piece = rest;
        }
        self.take(piece);
    }

    fn take(&mut self, piece: &[u8]) {
        self.hasher.update(piece);
        self.len += piece.len() as u64;
        let room = self.keep.saturating_sub(self.shown.len());
        self.shown
            .extend_from_slice(piece.get(..room.min(piece.len())).unwrap_or_default());
    }

    /// Ends the line; `newline` says whether a `\n` ended it (so a pending `\r` was a CRLF).
    fn finish(mut self, newline: bool) -> Batch {
        let crlf = newline && self.pending_cr;
        if self.pending_cr && !newline {
            self.take(b"\r");
        }
        // Kept whole, the line takes no more room than its bytes.
        self.shown.shrink_to_fit();
        let len = self.len;
        let line = Line::new(&self.shown, 0, self.shown.len(), crlf);
        let input_bytes = len + u64::from(newline) + u64::from(crlf);
        let mut batch = Batch::pooled(self.shown, vec![line], input_bytes, None);
        batch.long = Some(LongLine {
            hash: self.hasher.finish(),
            len,
        });
        batch
    }
}

/// Splits `data` (which ends with a complete line, with or without its final `\n`) into a batch
/// whose buffers go back to `pool`, the lines into `lines` (empty, perhaps a recycled vector).
/// `hint` is the previous batch's line count (0 at first), updated: the line vector is given room
/// for about that many at once, where counting the lines first (a second scan) or growing the
/// vector by doubling (freed blocks left behind) cost more.
fn split(
    data: Vec<u8>,
    mut lines: Vec<Line>,
    input_bytes: u64,
    hint: &mut usize,
    pool: &Arc<Pool>,
) -> Batch {
    lines.reserve(if *hint == 0 {
        memchr_iter(b'\n', &data).count() + 1
    } else {
        *hint + *hint / 8 + 16
    });
    // One UTF-8 check for the whole batch: a valid text cut at `\n`s (and a `\r` dropped) leaves
    // valid lines, since neither byte occurs inside a multi-byte character. Only a batch with an
    // invalid sequence is checked line by line.
    let valid = std::str::from_utf8(&data).is_ok();
    let line = |start: usize, end: usize, crlf: bool| {
        if valid {
            Line::of_valid(start, end, crlf)
        } else {
            Line::new(&data, start, end, crlf)
        }
    };
    let mut start = 0usize;
    let mut each = |nl: usize| {
        let crlf = nl > start && data.get(nl - 1) == Some(&b'\r');
        lines.push(line(start, nl - usize::from(crlf), crlf));
        start = nl + 1;
    };
    // Lines are short (33 bytes on average in Rust sources), so the search restarts often: the
    // AVX2 searcher itself, where the CPU has it, saves `memchr_iter`'s dispatch at each restart
    // (about 15% of the split on Rust sources, 5% on the synthetic log's 115-byte lines).
    #[cfg(target_arch = "x86_64")]
    if let Some(searcher) = memchr::arch::x86_64::avx2::memchr::One::new(b'\n') {
        searcher.iter(&data).for_each(&mut each);
    } else {
        memchr_iter(b'\n', &data).for_each(&mut each);
    }
    #[cfg(not(target_arch = "x86_64"))]
    memchr_iter(b'\n', &data).for_each(&mut each);
    if start < data.len() {
        // The final line of the input, without a newline: its last `\r` stays part of it.
        lines.push(line(start, data.len(), false));
    }
    *hint = lines.len();
    Batch::pooled(data, lines, input_bytes, Some(Arc::clone(pool)))
}

/// Lines of a byte stream, a batch at a time: what [`read`] runs on its own thread, and what a
/// plain file's lines come through when ingest reads it itself ([`super::Inline`]).
pub struct LineReader<R> {
    reader: R,
    /// Always `CHUNK` bytes long (written once, never zeroed again); its first `filled` are input
    /// not yet made into batches.
    buf: Vec<u8>,
    filled: usize,
    /// The line being streamed, if one is longer than a chunk.
    long: Option<Streaming>,
    /// The last batch's line count ([`split`]'s hint).
    hint: usize,
    /// Where the batches' buffers come back to.
    pool: Arc<Pool>,
    /// Batches made and not yet taken (a read can end a long line and complete others).
    ready: std::collections::VecDeque<Batch>,
    /// The input is over.
    done: bool,
}

impl<R: Read> LineReader<R> {
    /// Lines of `reader`, from where it is.
    pub fn new(reader: R) -> Self {
        Self {
            reader,
            buf: vec![0; CHUNK],
            filled: 0,
            long: None,
            hint: 0,
            pool: Arc::new(Pool::default()),
            ready: std::collections::VecDeque::with_capacity(2),
            done: false,
        }
    }

    /// The next batch (perhaps of no line), or `None` at the end of the input or once `control`
    /// says stop.
    ///
    /// # Errors
    /// Read errors other than `Interrupted`.
    pub fn next_batch(&mut self, control: &Control) -> io::Result<Option<Batch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(batch));
            }
            if self.done || control.stopped() {
                return Ok(None);
            }
            self.step(control.keep_long())?;
        }
    }

    /// One read, and the batches it completes; a long line keeps its first `keep` bytes.
    fn step(&mut self, keep: usize) -> io::Result<()> {
        let buf = &mut self.buf;
        if self.long.is_none() && self.filled == CHUNK {
            // A whole chunk without a newline: stream this line instead of holding it.
            let mut s = Streaming::new(keep);
            s.feed(buf);
            self.filled = 0;
            self.long = Some(s);
        }
        let n = match self
            .reader
            .read(buf.get_mut(self.filled..).unwrap_or_default())
        {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => return Ok(()),
            Err(e) => return Err(e),
        };
        self.filled += n;
        let filled = self.filled;
        let text = buf.get(..filled).unwrap_or_default();

        if n == 0 {
            // End of input: whatever is left is the last line, without a newline.
            self.done = true;
            if let Some(mut s) = self.long.take() {
                s.feed(text);
                self.ready.push_back(s.finish(false));
            } else if filled > 0 {
                let mut data = std::mem::take(buf);
                data.truncate(filled);
                let lines = self.pool.take().map(|(_, lines)| lines).unwrap_or_default();
                let batch = split(data, lines, filled as u64, &mut self.hint, &self.pool);
                self.ready.push_back(batch);
            }
            return Ok(());
        }

        if let Some(s) = self.long.as_mut() {
            match memchr(b'\n', text) {
                None => {
                    s.feed(text);
                    self.filled = 0;
                    return Ok(());
                }
                Some(nl) => {
                    s.feed(text.get(..nl).unwrap_or_default());
                    buf.copy_within(nl + 1..filled, 0);
                    self.filled -= nl + 1;
                    if let Some(s) = self.long.take() {
                        self.ready.push_back(s.finish(true));
                    }
                }
            }
        }

        let filled = self.filled;
        if let Some(last) = memrchr(b'\n', buf.get(..filled).unwrap_or_default()) {
            // The complete lines go; the next buffer starts with the incomplete one after them.
            let (mut next, lines) = self.pool.take().unwrap_or_default();
            // A recycled buffer is zeroed only past the end of its last batch's data (a fresh
            // one, all of it, once).
            next.resize(CHUNK, 0);
            let rest = filled - (last + 1);
            next.get_mut(..rest)
                .unwrap_or_default()
                .copy_from_slice(buf.get(last + 1..filled).unwrap_or_default());
            self.filled = rest;
            let mut data = std::mem::replace(buf, next);
            data.truncate(last + 1);
            let bytes = data.len() as u64;
            let batch = split(data, lines, bytes, &mut self.hint, &self.pool);
            self.ready.push_back(batch);
        }
        Ok(())
    }
}

/// Reads `reader` to the end (or until `limit` lines, or until `control` says stop), handing each
/// batch to `emit`; stops early when `emit` returns `false`.
///
/// # Errors
/// Read errors other than `Interrupted`.
pub fn read(
    reader: impl Read,
    limit: Option<u64>,
    control: &Control,
    emit: &mut dyn FnMut(SourceMsg) -> bool,
) -> io::Result<()> {
    let mut left = limit.unwrap_or(u64::MAX);
    if left == 0 {
        return Ok(());
    }
    let mut lines = LineReader::new(reader);
    while let Some(mut batch) = lines.next_batch(control)? {
        let n = batch.lines.len() as u64;
        let last = batch.within_limit(left);
        left = left.saturating_sub(n);
        if !batch.lines.is_empty() && !emit(SourceMsg::Lines(batch)) || last {
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sketch_nostd::hash::hash64;

    /// A reader that returns at most `.1` bytes per call.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(self.1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Reads `input` through a reader that returns at most `step` bytes per call.
    fn lines_of(
        input: &[u8],
        step: usize,
        limit: Option<u64>,
    ) -> Vec<(Vec<u8>, Line, Option<LongLine>)> {
        let control = Control::new(0);
        let mut out = Vec::new();
        read(Trickle(input, step), limit, &control, &mut |msg| {
            if let SourceMsg::Lines(b) = msg {
                assert!(b.long.is_none() || b.lines.len() == 1, "a long line alone");
                out.extend(b.iter().map(|(bytes, l)| (bytes.to_vec(), *l, b.long)));
            }
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn splits_lines_crlf_and_a_last_line_without_newline() {
        for step in [1, 3, 1 << 20] {
            let got = lines_of(b"a\r\nbb\n\n\xff\xfe\nlast\r", step, None);
            let texts: Vec<&[u8]> = got.iter().map(|(b, _, _)| b.as_slice()).collect();
            assert_eq!(
                texts,
                [&b"a"[..], b"bb", b"", b"\xff\xfe", b"last\r"],
                "step {step}"
            );
            let crlf: Vec<bool> = got.iter().map(|(_, l, _)| l.crlf).collect();
            assert_eq!(crlf, [true, false, false, false, false]);
            assert!(got.iter().all(|(_, _, long)| long.is_none()));
        }
    }

    #[test]
    fn each_line_knows_whether_it_is_utf8() {
        // A valid batch (multi-byte characters around the newlines) is checked whole; one with an
        // invalid sequence line by line: the same flags either way, whatever the reads' sizes.
        for step in [1, 2, 5, 1 << 20] {
            let got = lines_of("é\r\n€x\n\nz😀\n".as_bytes(), step, None);
            assert!(got.iter().all(|(_, l, _)| l.utf8), "step {step}");
            let got = lines_of(b"\xc3\xa9\n\xc3\n\xa9\nok\r\n\xff", step, None);
            let flags: Vec<bool> = got.iter().map(|(_, l, _)| l.utf8).collect();
            assert_eq!(flags, [true, false, false, true, false], "step {step}");
        }
    }

    #[test]
    fn a_very_long_line_is_hashed_whole_and_kept_short() {
        let long: Vec<u8> = (0..CHUNK * 3 + 17).map(|i| b'a' + (i % 26) as u8).collect();
        for (ending, crlf) in [(&b"\r\n"[..], true), (b"\n", false)] {
            let mut input = b"before\n".to_vec();
            input.extend_from_slice(&long);
            input.extend_from_slice(ending);
            input.extend_from_slice(b"after\n");
            for step in [CHUNK / 3, CHUNK, 1 << 22] {
                let got = lines_of(&input, step, None);
                assert_eq!(got.len(), 3, "step {step}");
                assert_eq!(got[0].0, b"before");
                assert_eq!(got[2].0, b"after");
                let (shown, line, streamed) = &got[1];
                assert_eq!(shown.as_slice(), &long[..SHOWN_MAX]);
                assert_eq!(line.crlf, crlf);
                let l = streamed.expect("streamed");
                assert_eq!(l.len, long.len() as u64);
                assert_eq!(l.hash, hash64(&long[..], SEED), "hashed whole, step {step}");
            }
        }
        // At the end of input without a newline, and a CR that is really the last byte.
        let mut input = long.clone();
        input.push(b'\r');
        let got = lines_of(&input, CHUNK, None);
        assert_eq!(got.len(), 1);
        let l = got[0].2.unwrap();
        assert_eq!(l.hash, hash64(&input[..], SEED));
        assert!(!got[0].1.crlf);
    }

    #[test]
    fn recycled_buffers_never_leak_an_earlier_batchs_bytes() {
        // Lines of every length from 0 to 600 bytes (long ones first, so a later batch's buffer
        // held longer lines before), over a dozen chunks, the last one without a newline: each
        // line must come back exactly, whatever the reads' sizes.
        let mut rng = sketch_rng::SplitMix64(15);
        let mut want: Vec<Vec<u8>> = Vec::new();
        let mut total = 0;
        while total < CHUNK * 12 {
            let long = total < CHUNK * 4;
            let len = rng.below(if long { 600 } else { 40 }) as usize;
            let fill = b'a' + rng.below(26) as u8;
            let line: Vec<u8> = (0..len).map(|i| fill + (i % 3) as u8).collect();
            total += len + 1;
            want.push(line);
        }
        want.push(b"last".to_vec());
        let input = want.join(&b"\n"[..]);
        for step in [997, CHUNK - 1, CHUNK, 1 << 20] {
            let mut batches = 0;
            let mut buffers = std::collections::HashSet::new();
            let mut got: Vec<Vec<u8>> = Vec::new();
            read(Trickle(&input, step), None, &Control::new(0), &mut |msg| {
                if let SourceMsg::Lines(b) = msg {
                    batches += 1;
                    buffers.insert(b.data.as_ptr() as usize);
                    got.extend(b.iter().map(|(bytes, _)| bytes.to_vec()));
                }
                true
            })
            .unwrap();
            assert_eq!(got.len(), want.len(), "step {step}");
            assert!(got == want, "step {step}: a line differs");
            // The batches' buffers were used again (each batch was dropped before the next).
            assert!(
                batches >= 12 && buffers.len() <= 3,
                "{batches} batches, {} buffers",
                buffers.len()
            );
        }
    }

    #[test]
    fn the_limit_stops_reading() {
        let got = lines_of(b"1\n2\n3\n4\n", 1 << 20, Some(2));
        assert_eq!(got.len(), 2);
        assert!(lines_of(b"1\n", 1, Some(0)).is_empty());
    }
}
