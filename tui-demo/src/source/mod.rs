//! Where events come from: the synthetic access log, lines from a file or stdin, device frames.
//!
//! Every source runs on its own thread and sends [`SourceMsg`]s over a bounded channel
//! ([`CHANNEL_DEPTH`] messages), so a source faster than ingest waits instead of growing memory.
//! Control flows the other way through [`Control`]: the synthetic rate and a stop flag.

pub mod device;
pub mod follow;
pub mod lines;
pub mod synthetic;
pub mod zipf;

use std::net::SocketAddr;
use std::os::unix::fs::FileTypeExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Messages a source may have in flight before it blocks: at most this many batches of at most
/// [`lines::CHUNK`] bytes each are held between a source and ingest. Two keep ingest fed (a source
/// is faster than ingest, so the queue stays full) while holding the least memory: with 8, the
/// headless report's peak resident memory on 100 MB of Rust sources was 10.1 MiB and with 2 7.9 MiB
/// when this was chosen (later changes lowered both; docs/demo.md has the current figures).
pub const CHANNEL_DEPTH: usize = 2;

/// Bytes of a line kept for display when the line is too long to hold (it is still hashed whole).
pub const SHOWN_MAX: usize = 256;

/// Bytes of a long line kept whole when its key or value is taken from inside it (`--field`,
/// `--key-regex`, `--json-key`, `--strip-timestamp`, `--value-field`, `--value-json`:
/// [`Control::keep_long`]): a JSON line of a few MiB is keyed as any other. A longer line has no
/// key and no value (it is counted among the lines without one), rather than the key of its start.
pub const LONG_KEPT_MAX: usize = 4 << 20;

/// One line of a [`Batch`]: its bytes are `data[start..end]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Offset of the first byte in [`Batch::data`].
    pub start: u32,
    /// Offset one past the last byte (the newline and a CR before it are not included).
    pub end: u32,
    /// The line ended with CR LF (the CR is not part of the key).
    pub crlf: bool,
    /// The bytes kept are valid UTF-8.
    pub utf8: bool,
}

impl Line {
    /// A line of `data[start..end]`, with its UTF-8 check. It is not hashed here: ingest hashes
    /// the key it makes of the line (with `--field 1-`, the line trimmed), once.
    #[must_use]
    pub fn new(data: &[u8], start: usize, end: usize, crlf: bool) -> Self {
        let bytes = data.get(start..end).unwrap_or_default();
        Self {
            start: start as u32,
            end: end as u32,
            crlf,
            // Most log lines are ASCII, which is checked a word at a time.
            utf8: bytes.is_ascii() || std::str::from_utf8(bytes).is_ok(),
        }
    }

    /// A line of a batch whose bytes were checked valid UTF-8 as a whole (no check of its own: a
    /// valid text cut at `\n`s, a `\r` dropped, leaves valid lines).
    #[must_use]
    pub fn of_valid(start: usize, end: usize, crlf: bool) -> Self {
        Self {
            start: start as u32,
            end: end as u32,
            crlf,
            utf8: true,
        }
    }
}

/// The whole-line hash and length of a line whose bytes were not kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LongLine {
    /// `hash64(line, ingest::SEED)` of the entire line.
    pub hash: u64,
    /// The line's length in bytes.
    pub len: u64,
}

/// A run of lines sharing one buffer, so the hot path moves a few large allocations instead of one
/// per line. A batch of the line reader gives its buffers back to the reader when it is dropped
/// (by whichever thread is the last to hold it), to read into again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// Line bytes, back to back (with or without separators: [`Line`] offsets say where lines are).
    pub data: Vec<u8>,
    /// The lines, in input order.
    pub lines: Vec<Line>,
    /// Input bytes this batch stands for, newlines included.
    pub input_bytes: u64,
    /// Set for a batch of one line too long to hold: `data` is only its first bytes
    /// ([`Control::keep_long`]; all of it when it is at most that long) and the hash of the whole
    /// line was computed while it streamed past. (Kept here rather than
    /// in every [`Line`], which stays 12 bytes: a batch of short lines has more bytes of `Line`s
    /// than of text otherwise.)
    pub long: Option<LongLine>,
    /// Where the buffers go when the batch is dropped (none: they are freed).
    recycle: Recycle,
}

impl Drop for Batch {
    fn drop(&mut self) {
        if let Some(pool) = self.recycle.0.take() {
            pool.give(
                std::mem::take(&mut self.data),
                std::mem::take(&mut self.lines),
            );
        }
    }
}

/// Most buffer pairs a [`Pool`] keeps: a reader's batches in flight are its own, the channel's
/// ([`CHANNEL_DEPTH`]), ingest's and the sketch worker's (two), so a few spare pairs cover the
/// steady state; more given back are freed, which bounds the memory held.
const POOL_MAX: usize = 4;

/// The buffers of a reader's dropped batches (their bytes and their lines), for its next batches:
/// reading into a buffer that was written before costs no fresh pages from the system and no
/// zeroing of them, which fresh 128 KiB buffers did for every batch. A buffer taken back holds the
/// bytes of its last batch: the reader only ever hands on what it wrote after taking it.
#[derive(Debug, Default)]
pub(crate) struct Pool {
    spare: std::sync::Mutex<Vec<(Vec<u8>, Vec<Line>)>>,
}

impl Pool {
    /// A spare pair of buffers, if a batch gave one back: the bytes as they were (not cleared:
    /// their length is that of the batch's data), the lines emptied.
    pub(crate) fn take(&self) -> Option<(Vec<u8>, Vec<Line>)> {
        self.spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
    }

    /// Keeps a pair of buffers (unless [`POOL_MAX`] are kept already).
    fn give(&self, data: Vec<u8>, mut lines: Vec<Line>) {
        lines.clear();
        let mut spare = self
            .spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if spare.len() < POOL_MAX {
            spare.push((data, lines));
        }
    }
}

/// A batch's way back to its [`Pool`]: compares equal to any other (it is not part of the batch's
/// value), and a clone goes back to the same pool.
#[derive(Clone, Default)]
struct Recycle(Option<Arc<Pool>>);

impl PartialEq for Recycle {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Recycle {}

impl std::fmt::Debug for Recycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "pooled" } else { "owned" })
    }
}

impl Batch {
    /// An empty batch with room for `bytes` bytes of `lines` lines.
    #[must_use]
    pub fn with_capacity(bytes: usize, lines: usize) -> Self {
        let mut batch = Self::default();
        batch.data.reserve(bytes);
        batch.lines.reserve(lines);
        batch
    }

    /// A batch of `data` split into `lines`, whose buffers go back to `pool` when it is dropped.
    #[must_use]
    pub(crate) fn pooled(
        data: Vec<u8>,
        lines: Vec<Line>,
        input_bytes: u64,
        pool: Option<Arc<Pool>>,
    ) -> Self {
        Self {
            data,
            lines,
            input_bytes,
            long: None,
            recycle: Recycle(pool),
        }
    }

    /// The lines with their bytes (for a long line, only the kept prefix).
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Line)> {
        self.lines.iter().map(|l| {
            let bytes = self
                .data
                .get(l.start as usize..l.end as usize)
                .unwrap_or_default();
            (bytes, l)
        })
    }

    /// Appends a complete line.
    pub fn push(&mut self, bytes: &[u8]) {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        self.end_line(start);
    }

    /// Takes `data[start..]`, already written into [`Batch::data`], as a complete line.
    pub fn end_line(&mut self, start: usize) {
        let line = Line::new(&self.data, start, self.data.len(), false);
        self.input_bytes += (line.end - line.start) as u64 + 1;
        self.lines.push(line);
    }

    /// Takes this batch's share of a `--lines` limit with `left` lines still to send: keeps at most
    /// `left` lines, and the input bytes of those (each with its newline and CR), and says whether
    /// the limit is reached (the batch had `left` lines or more). The one rule of every line source
    /// (a reader thread, a plain file read by ingest).
    ///
    /// ```
    /// use tui_demo::source::Batch;
    /// let mut batch = Batch::default();
    /// for line in ["a", "bb", "c"] {
    ///     batch.push(line.as_bytes());
    /// }
    /// assert!(!batch.clone().within_limit(4));
    /// assert!(batch.within_limit(2));
    /// assert_eq!((batch.lines.len(), batch.input_bytes), (2, 5)); // "a\nbb\n"
    /// ```
    pub fn within_limit(&mut self, left: u64) -> bool {
        let last = self.lines.len() as u64 >= left;
        let keep = usize::try_from(left).unwrap_or(usize::MAX);
        if last && self.lines.len() > keep {
            self.lines.truncate(keep);
            // Every line kept had a line after it, so its newline: as the reader counts bytes.
            self.input_bytes = self
                .lines
                .iter()
                .map(|l| u64::from(l.end - l.start) + 1 + u64::from(l.crlf))
                .sum();
        }
        last
    }
}

/// Something a source wants the viewer to know, beside the lines themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceEvent {
    /// The synthetic log started a burst: one client repeats one request.
    BurstStarted {
        /// The repeated line, as text.
        line: String,
    },
    /// The burst is over.
    BurstEnded,
}

/// What travels from a source thread to ingest.
#[derive(Debug)]
pub enum SourceMsg {
    /// Lines to count.
    Lines(Batch),
    /// A notable event.
    Event(SourceEvent),
    /// One UDP datagram (device mode): supposedly one frame.
    Datagram {
        /// The sender.
        from: SocketAddr,
        /// The bytes as received.
        bytes: Vec<u8>,
    },
    /// The source is finished: `None` at the end of the input, `Some(message)` on an error.
    End(Option<String>),
}

/// Controls shared between the UI and a running source.
#[derive(Debug)]
pub struct Control {
    /// Synthetic lines per second; 0 means as fast as possible.
    pub rate: AtomicU64,
    /// Set to ask the source to finish.
    pub stop: AtomicBool,
    /// See [`keep_long`](Self::keep_long).
    pub keep_long: std::sync::atomic::AtomicUsize,
}

impl Control {
    /// Controls with the given synthetic rate.
    #[must_use]
    pub fn new(rate: u64) -> Arc<Self> {
        Arc::new(Self {
            rate: AtomicU64::new(rate),
            stop: AtomicBool::new(false),
            keep_long: std::sync::atomic::AtomicUsize::new(SHOWN_MAX),
        })
    }

    /// Bytes kept of a line longer than a read buffer ([`SHOWN_MAX`], or [`LONG_KEPT_MAX`] when
    /// keys or values are taken from inside lines: set before the source starts).
    #[must_use]
    pub fn keep_long(&self) -> usize {
        self.keep_long.load(Ordering::Relaxed)
    }

    /// Whether the source was asked to stop.
    #[must_use]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Where lines are read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Standard input (`--input -`).
    Stdin,
    /// A file, read to its end (decompressed if it is gzip).
    File(PathBuf),
    /// A file followed as it grows, across rotation and truncation (`--follow`).
    Follow(PathBuf),
    /// A file followed from its end: only the lines written from now on (`--follow --from-end`,
    /// as `tail -F -n 0`); a file that appears under the name later is read from its start.
    FollowNew(PathBuf),
}

impl Input {
    /// The name errors and the header use: the path, or `stdin`.
    #[must_use]
    pub fn name(&self) -> String {
        match self {
            Self::Stdin => "stdin".to_string(),
            Self::File(p) | Self::Follow(p) | Self::FollowNew(p) => p.display().to_string(),
        }
    }
}

/// What every line-reading thread sends through: the shared `--lines` limit and `--rate`.
struct Out {
    tx: SyncSender<SourceMsg>,
    /// Lines still to send (`u64::MAX`: no limit).
    left: AtomicU64,
    control: Arc<Control>,
    /// Rate pacing.
    pace: std::sync::Mutex<Pacer>,
}

/// `--rate` for files: when each slice of lines is due.
#[derive(Clone, Copy, Debug)]
struct Pacer {
    /// When pacing (re)started, at which rate, and lines handed out since.
    start: std::time::Instant,
    rate: u64,
    lines: u64,
}

impl Pacer {
    /// The longest a slice may be late before pacing restarts from now. A pause of ingest (or a
    /// reader slower than the rate) leaves the source blocked on the channel; without this, every
    /// line that was due meanwhile would be sent at once on resume.
    const MAX_LAG: std::time::Duration = std::time::Duration::from_millis(100);

    fn new(now: std::time::Instant) -> Self {
        Self {
            start: now,
            rate: 0,
            lines: 0,
        }
    }

    /// When the next `lines` lines are due at `rate` lines per second, asked at `now`: when the
    /// time they take at that rate is over (so that after `t` seconds at most `rate·t` lines
    /// are through, as the synthetic log paces; a slice sent when it began made `--rate N
    /// --seconds S` read one slice more than `N·S`).
    fn due(&mut self, now: std::time::Instant, rate: u64, lines: u64) -> std::time::Instant {
        let rate = rate.max(1);
        if self.rate != rate {
            *self = Self {
                start: now,
                rate,
                lines: 0,
            };
        }
        let at = |start: std::time::Instant, lines: u64| {
            start + std::time::Duration::from_secs_f64(lines as f64 / rate as f64)
        };
        if now.saturating_duration_since(at(self.start, self.lines + lines)) > Self::MAX_LAG {
            // Far behind: pace from now, with no catch-up burst.
            self.start = now;
            self.lines = 0;
        }
        self.lines += lines;
        at(self.start, self.lines)
    }
}

impl Out {
    /// Sends a batch, within the limit and at the rate; `false` once nothing more is wanted.
    fn send(&self, msg: SourceMsg) -> bool {
        let SourceMsg::Lines(mut batch) = msg else {
            return self.tx.send(msg).is_ok();
        };
        // Take this batch's lines from what the limit leaves.
        let n = batch.lines.len() as u64;
        let took = self
            .left
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                Some(left.saturating_sub(n))
            })
            .unwrap_or(0);
        let last = batch.within_limit(took);
        let rate = self.control.rate.load(Ordering::Relaxed);
        let ok = if rate == 0 {
            batch.lines.is_empty() || self.tx.send(SourceMsg::Lines(batch)).is_ok()
        } else {
            self.paced(batch, rate)
        };
        if last {
            // The limit is reached: every reader stops (followed files never end by themselves).
            self.control.stop.store(true, Ordering::Relaxed);
        }
        ok && !last
    }

    /// Sends a batch in slices of a twentieth of a second's lines, each when it is due.
    fn paced(&self, batch: Batch, rate: u64) -> bool {
        let step = (rate / 20).max(1) as usize;
        let total_bytes = batch.input_bytes;
        let mut sent_bytes = 0u64;
        let chunks: Vec<&[Line]> = batch.lines.chunks(step).collect();
        let count = chunks.len();
        for (i, chunk) in chunks.into_iter().enumerate() {
            let due = {
                self.pace
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .due(std::time::Instant::now(), rate, chunk.len() as u64)
            };
            while std::time::Instant::now() < due {
                if self.control.stopped() {
                    return false;
                }
                std::thread::sleep(
                    due.saturating_duration_since(std::time::Instant::now())
                        .min(std::time::Duration::from_millis(50)),
                );
            }
            // Input bytes: each line's own, the rest of the batch's with the last slice.
            let bytes = if i + 1 == count {
                total_bytes - sent_bytes
            } else {
                chunk
                    .iter()
                    .map(|l| u64::from(l.end - l.start) + 1 + u64::from(l.crlf))
                    .sum::<u64>()
                    .min(total_bytes - sent_bytes)
            };
            sent_bytes += bytes;
            let mut slice = Batch::pooled(batch.data.clone(), chunk.to_vec(), bytes, None);
            slice.long = batch.long;
            if self.tx.send(SourceMsg::Lines(slice)).is_err() {
                return false;
            }
        }
        true
    }
}

/// Reads one input to its end (or, followed, until stopped), sending through `out`; a read error
/// comes back named.
fn read_input(name: &str, reader: Box<dyn std::io::Read + Send>, out: &Out) -> Result<(), String> {
    lines::read(reader, None, &out.control, &mut |msg| out.send(msg))
        .map_err(|e| format!("{name}: {e}"))
}

/// Which source to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceSpec {
    /// The built-in access-log generator.
    Synthetic {
        /// Generator seed (same seed, same log).
        seed: u64,
    },
    /// Lines from files or stdin, read one after the other.
    Lines(Vec<Input>),
    /// Sketch frames from devices over UDP.
    Device(SocketAddr),
}

impl SourceSpec {
    /// A short name for the header.
    ///
    /// ```
    /// use tui_demo::source::SourceSpec;
    /// assert_eq!(SourceSpec::Synthetic { seed: 3 }.label(), "synthetic access log (seed 3)");
    /// ```
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            // The seed makes the log: said, so that a run can be told apart and repeated.
            Self::Synthetic { seed } => format!("synthetic access log (seed {seed})"),
            Self::Lines(inputs) => {
                let names: Vec<String> = inputs.iter().map(Input::name).collect();
                names.join(" + ")
            }
            Self::Device(addr) => format!("devices on udp {addr}"),
        }
    }
}

/// A started source.
#[derive(Debug)]
pub struct Started {
    /// What it sends.
    pub rx: Receiver<SourceMsg>,
    /// Its thread.
    pub thread: JoinHandle<()>,
    /// The source as started: for `--listen`, the address actually bound (port 0 asks the system
    /// for a free port, and this is the one it gave).
    pub spec: SourceSpec,
    /// The followed files (`--follow`), by name, with what has happened to each.
    pub follows: Vec<(String, Arc<follow::FollowStatus>)>,
}

/// Plain files read by ingest on its own thread rather than on a source thread of their own:
/// [`inline`] says when. Reading and splitting a file is a third of the work of a line of Rust
/// sources; on its own thread it made three busy threads for two cores, and each batch a hand-over
/// between two threads. Read where it is counted, it needs neither.
pub struct Inline {
    /// The files still to read, after the current one.
    files: std::collections::VecDeque<(String, Box<dyn std::io::Read + Send>)>,
    /// The file being read.
    current: Option<(String, lines::LineReader<Box<dyn std::io::Read + Send>>)>,
    /// Lines still to send (`u64::MAX`: no limit).
    left: u64,
    control: Arc<Control>,
    /// The end was sent: nothing more comes.
    ended: bool,
}

impl std::fmt::Debug for Inline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inline")
            .field("files", &self.files.len())
            .field("left", &self.left)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl Inline {
    /// What a source thread would send next: a batch of lines, or the end (once; then `None`).
    /// A batch is read now: a plain file's read does not wait for a writer.
    pub fn next_msg(&mut self) -> Option<SourceMsg> {
        loop {
            if self.ended {
                return None;
            }
            if self.left == 0 || self.control.stopped() {
                return Some(self.end(None));
            }
            let Some((name, reader)) = self.current.as_mut() else {
                let Some((name, file)) = self.files.pop_front() else {
                    return Some(self.end(None));
                };
                self.current = Some((name, lines::LineReader::new(file)));
                continue;
            };
            match reader.next_batch(&self.control) {
                Ok(Some(mut batch)) => {
                    let n = batch.lines.len() as u64;
                    if n == 0 {
                        continue;
                    }
                    if batch.within_limit(self.left) {
                        // Every reader stops, as `Out::send` makes them.
                        self.control.stop.store(true, Ordering::Relaxed);
                    }
                    self.left = self.left.saturating_sub(n);
                    return Some(SourceMsg::Lines(batch));
                }
                Ok(None) => self.current = None,
                Err(e) => {
                    let message = format!("{name}: {e}");
                    self.control.stop.store(true, Ordering::Relaxed);
                    return Some(self.end(Some(message)));
                }
            }
        }
    }

    fn end(&mut self, error: Option<String>) -> SourceMsg {
        self.ended = true;
        self.current = None;
        self.files.clear();
        SourceMsg::End(error)
    }
}

/// An opened input of lines: its name, whether it is followed, and its reader.
type Reader = (String, bool, Box<dyn std::io::Read + Send>);

/// An input of [`spawn_opened`]'s: opened, or one to open on the source's thread, where its wait
/// for a writer (a FIFO's open, stdin's first bytes, read to recognise gzip) holds nothing up.
enum Pending {
    Open(Box<dyn std::io::Read + Send>),
    Fifo(std::path::PathBuf),
    Stdin,
}

impl Pending {
    /// The reader, opened now; the error names the input.
    fn open(self) -> Result<Box<dyn std::io::Read + Send>, String> {
        match self {
            Self::Open(r) => Ok(r),
            Self::Fifo(path) => follow::open_lines(&path).map_err(|e| e.to_string()),
            Self::Stdin => follow::open_stdin().map_err(|e| format!("stdin: {e}")),
        }
    }
}

/// Whether `path` is a FIFO (a named pipe), whose open waits for a writer.
fn is_fifo(path: &std::path::Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
}

/// The first inputs of a [`SourceSpec::Lines`], opened by [`inline`] before it found one that is not
/// a plain file: [`spawn_opened`] reads them as they are, rather than opening them again (a device
/// opened twice would lose what the first open read). A FIFO is not among them: [`inline`] stops
/// before it, unopened (its open waits for a writer).
#[derive(Default)]
pub struct Opened(Vec<Reader>);

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|r| &r.0)).finish()
    }
}

/// The files of `spec` opened to be read by ingest itself ([`Inline`]), when they all are regular
/// files read as they are (not stdin, not followed, not gzip, not a pipe) and no rate paces them;
/// otherwise the inputs opened so far (then [`spawn_opened`] starts a source thread that reads
/// them). At most `limit` lines are produced.
///
/// # Errors
/// When a file cannot be opened (as [`spawn`]).
pub fn inline(
    spec: &SourceSpec,
    limit: Option<u64>,
    control: &Arc<Control>,
) -> std::io::Result<Result<Inline, Opened>> {
    let SourceSpec::Lines(inputs) = spec else {
        return Ok(Err(Opened::default()));
    };
    if control.rate.load(Ordering::Relaxed) != 0 {
        return Ok(Err(Opened::default()));
    }
    let mut files = std::collections::VecDeque::new();
    for input in inputs {
        // A FIFO is opened by the source thread (the open waits for a writer).
        let Input::File(path) = input else {
            return Ok(Err(Opened::of(files)));
        };
        if is_fifo(path) {
            return Ok(Err(Opened::of(files)));
        }
        let (file, plain) = follow::open_lines_plain(path)?;
        files.push_back((input.name(), file));
        if !plain {
            return Ok(Err(Opened::of(files)));
        }
    }
    Ok(Ok(Inline {
        files,
        current: None,
        left: limit.unwrap_or(u64::MAX),
        control: Arc::clone(control),
        ended: false,
    }))
}

impl Opened {
    fn of(files: std::collections::VecDeque<(String, Box<dyn std::io::Read + Send>)>) -> Self {
        Self(files.into_iter().map(|(n, r)| (n, false, r)).collect())
    }
}

/// Opens a file of lines; a directory or an unreadable file is an error that names the path.
///
/// # Errors
/// When the file cannot be opened or is a directory.
pub fn open_file(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    let named =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(named)?;
    if file.metadata().map_err(named)?.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            format!("{}: is a directory, not a file of lines", path.display()),
        ));
    }
    Ok(file)
}

/// Starts `spec` on its own thread. At most `limit` lines are produced when a limit is given.
///
/// # Errors
/// When a file cannot be opened or the thread cannot be started.
pub fn spawn(
    spec: &SourceSpec,
    limit: Option<u64>,
    control: Arc<Control>,
) -> std::io::Result<Started> {
    spawn_opened(spec, limit, control, Opened::default())
}

/// [`spawn`], with the first inputs of `spec` already `opened` (by [`inline`]).
///
/// # Errors
/// As [`spawn`].
pub fn spawn_opened(
    spec: &SourceSpec,
    limit: Option<u64>,
    control: Arc<Control>,
    opened: Opened,
) -> std::io::Result<Started> {
    let (tx, rx) = sync_channel(CHANNEL_DEPTH);
    let mut spec = spec.clone();
    let mut follows = Vec::new();
    let thread = match &mut spec {
        SourceSpec::Synthetic { seed } => {
            let seed = *seed;
            std::thread::Builder::new()
                .name("source-synthetic".into())
                .spawn(move || synthetic::run(seed, limit, &control, &tx))?
        }
        SourceSpec::Lines(inputs) => {
            // Every file is opened now, so a missing one is an error before anything runs; but a
            // FIFO is opened when its turn comes, on the source's thread: its open waits for a
            // writer, and the live view must draw (and take `q`) meanwhile.
            let skip = opened.0.len();
            let mut readers: Vec<(String, bool, Pending)> = opened
                .0
                .into_iter()
                .map(|(name, followed, r)| (name, followed, Pending::Open(r)))
                .collect();
            for input in inputs.iter().skip(skip) {
                let reader = match input {
                    Input::Stdin => Pending::Stdin,
                    // A pipe (`--follow <(tail -f …)`, a FIFO) has no end to wait at, nor a size
                    // to see a truncation by: it is read as it comes, until its writer closes.
                    Input::File(path) | Input::Follow(path) | Input::FollowNew(path)
                        if is_fifo(path) =>
                    {
                        Pending::Fifo(path.clone())
                    }
                    Input::File(path) => Pending::Open(follow::open_lines(path)?),
                    Input::Follow(path) | Input::FollowNew(path) => {
                        let status = Arc::new(follow::FollowStatus::default());
                        follows.push((input.name(), Arc::clone(&status)));
                        Pending::Open(Box::new(follow::Follow::open(
                            path.clone(),
                            Arc::clone(&control),
                            status,
                            matches!(input, Input::FollowNew(_)),
                        )?))
                    }
                };
                let followed = matches!(input, Input::Follow(_) | Input::FollowNew(_));
                readers.push((input.name(), followed, reader));
            }
            let out = Arc::new(Out {
                tx: tx.clone(),
                left: AtomicU64::new(limit.unwrap_or(u64::MAX)),
                control: Arc::clone(&control),
                pace: std::sync::Mutex::new(Pacer::new(std::time::Instant::now())),
            });
            std::thread::Builder::new()
                .name("source-lines".into())
                .spawn(move || {
                    // Followed files are read side by side, each on its own thread (none of them
                    // ends); the others one after the other, on this one.
                    let mut followers = Vec::new();
                    let mut in_order = Vec::new();
                    for (name, followed, reader) in readers {
                        if followed {
                            let out = Arc::clone(&out);
                            followers.push(std::thread::spawn(move || {
                                read_input(&name, reader.open()?, &out)
                            }));
                        } else {
                            in_order.push((name, reader));
                        }
                    }
                    let mut result = Ok(());
                    for (name, reader) in in_order {
                        if out.left.load(Ordering::SeqCst) == 0 || control.stopped() {
                            break;
                        }
                        result = reader.open().and_then(|r| read_input(&name, r, &out));
                        if result.is_err() {
                            break;
                        }
                    }
                    if result.is_ok() {
                        for f in followers {
                            result = f.join().unwrap_or_else(|_| Err("a reader panicked".into()));
                            if result.is_err() {
                                break;
                            }
                        }
                    } else {
                        control.stop.store(true, Ordering::Relaxed);
                    }
                    let _ = out.tx.send(SourceMsg::End(result.err()));
                })?
        }
        SourceSpec::Device(addr) => {
            let socket = std::net::UdpSocket::bind(*addr).map_err(|e| {
                std::io::Error::new(e.kind(), format!("cannot listen on udp {addr}: {e}"))
            })?;
            *addr = socket.local_addr()?;
            std::thread::Builder::new()
                .name("source-device".into())
                .spawn(move || device::receive(&socket, &control, &tx))?
        }
    };
    Ok(Started {
        rx,
        thread,
        spec,
        follows,
    })
}

/// Sends a message, returning `false` when the receiver is gone (ingest finished).
pub(crate) fn send(tx: &SyncSender<SourceMsg>, msg: SourceMsg) -> bool {
    tx.send(msg).is_ok()
}

#[cfg(test)]
mod tests {
    use super::Pacer;
    use std::time::{Duration, Instant};

    /// Lines a pacer lets through from `from` for `span`, each slice sent when due and the next one
    /// asked for at once (as `Out::paced` does): the lines sent within the span, and the time after.
    fn run(p: &mut Pacer, from: Instant, span: Duration, rate: u64, slice: u64) -> (u64, Instant) {
        let mut now = from;
        let mut sent = 0;
        let end = from + span;
        while now < end {
            let due = p.due(now, rate, slice);
            now = now.max(due);
            if now >= end {
                break;
            }
            sent += slice;
        }
        (sent, now)
    }

    #[test]
    fn a_pause_does_not_make_a_burst_on_resume() {
        // --rate 1000 in slices of 50 lines (a twentieth of a second), as `Out::paced` cuts them.
        let t0 = Instant::now();
        let mut p = Pacer::new(t0);
        let (before, t) = run(&mut p, t0, Duration::from_secs(2), 1_000, 50);
        assert!((1_950..=2_050).contains(&before), "{before} lines in 2 s");
        // Ingest paused for 5 s: the source blocked on the channel, asked for nothing.
        let resume = t + Duration::from_secs(5);
        let (burst, _) = run(&mut p, resume, Duration::from_millis(500), 1_000, 50);
        // The user test saw 5,500 lines within 0.5 s of the resume: now the rate's 500 (and at
        // most the 100 ms of lag allowed).
        assert!(burst <= 600, "{burst} lines within 0.5 s of the resume");
        assert!(burst >= 450, "{burst} lines within 0.5 s of the resume");
    }

    #[test]
    fn a_slice_a_little_late_is_caught_up_and_a_rate_change_restarts() {
        let t0 = Instant::now();
        let mut p = Pacer::new(t0);
        // A slice is due when its time at the rate is over: 10 lines at 100/s, at 0.1 s.
        assert_eq!(p.due(t0, 100, 10), t0 + Duration::from_millis(100));
        // The next at 0.2 s; asked at 0.25 s (50 ms late, within the lag): still due at 0.2 s.
        let late = t0 + Duration::from_millis(250);
        assert_eq!(p.due(late, 100, 10), t0 + Duration::from_millis(200));
        // A new rate paces from when it is set.
        let t1 = t0 + Duration::from_millis(260);
        assert_eq!(p.due(t1, 200, 10), t1 + Duration::from_millis(50));
        assert_eq!(p.due(t1, 200, 10), t1 + Duration::from_millis(100));
    }
}
