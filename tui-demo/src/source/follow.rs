//! Input that does not end: `--follow` reads a growing file as `tail -F` does, and `.gz` input is
//! decompressed as it is read (`flate2`).
//!
//! [`Follow`] is a [`Read`] that, at the end of the file, polls every [`POLL`]: new bytes are
//! returned as they are appended; a file replaced under its name (log rotation: a new inode) is
//! opened again from its start once the old one is read to its end, and the old one is still read,
//! whole lines between the new file's, while it grows (a service writes on to the file it has open
//! until it reopens its log: [`ROTATED_GRACE`]); a file cut shorter than what was
//! read (truncation, `> app.log`) is read again from its start; a name that is missing for a while
//! (between a rotation's rename and the new file's creation) is waited for. A line cut by a
//! rotation or a truncation is ended there (a newline is supplied), so it never runs into the next
//! file's first line. A name that does not exist yet when the run starts is waited for too (as
//! `tail -F` does: the log of a service not started yet), and read from its start once it appears.
//! It only returns end-of-input once its [`Control`] says stop.
//!
//! What happened to each followed file (waiting for it, rotations, truncations) is kept in a
//! [`FollowStatus`] that the run shows.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::{open_file, Control};

/// How often the end of a followed file is checked for more.
pub const POLL: Duration = Duration::from_millis(100);

/// What has happened to a followed file, shared between its reader and the run that shows it.
///
/// ```
/// use std::sync::atomic::Ordering;
/// let status = tui_demo::source::follow::FollowStatus::default();
/// status.rotations.fetch_add(1, Ordering::Relaxed);
/// assert_eq!(status.counts(), (false, 1, 0));
/// ```
#[derive(Debug, Default)]
pub struct FollowStatus {
    /// The name does not exist (yet, or any more: removed): the reader waits for it to appear.
    pub waiting: AtomicBool,
    /// Times the name was opened again after a rotation (a new file under it).
    pub rotations: AtomicU64,
    /// Times the file was read again from its start after a truncation.
    pub truncations: AtomicU64,
}

impl FollowStatus {
    /// (waiting, rotations, truncations), as of now.
    #[must_use]
    pub fn counts(&self) -> (bool, u64, u64) {
        (
            self.waiting.load(Ordering::Relaxed),
            self.rotations.load(Ordering::Relaxed),
            self.truncations.load(Ordering::Relaxed),
        )
    }
}

/// A followed file.
#[derive(Debug)]
pub struct Follow {
    path: PathBuf,
    /// The open file; `None` while the name does not exist yet (waited for).
    file: Option<File>,
    /// (device, inode) of the open file.
    id: (u64, u64),
    /// Bytes read from the open file.
    pos: u64,
    /// The last byte returned was a newline (or nothing was returned yet).
    at_line_start: bool,
    /// The file rotated away from the name, still read while it grows ([`ROTATED_GRACE`]).
    rotated: Option<Rotated>,
    /// The open file's first bytes as read (up to [`HEAD`]), and the last read (up to `HEAD`,
    /// ending at `pos`): a file truncated and written past the read position again between two
    /// polls is told by either changing (the first alone missed a new text starting as the old).
    head: Vec<u8>,
    tail: Vec<u8>,
    control: Arc<Control>,
    status: Arc<FollowStatus>,
}

/// How long a file rotated away from its name is still read after it last grew: a service keeps
/// writing to the file it has open until it reopens its log (logrotate's `postrotate` signal, or
/// never), and those lines were lost (as `tail -F` loses them). Log shippers keep such files a while
/// too (Fluent Bit's `rotate_wait`, 5 s).
pub const ROTATED_GRACE: Duration = Duration::from_secs(10);

/// Bytes of a followed file's start compared at each poll at its end ([`Follow::head`]).
const HEAD: usize = 64;

/// A file rotated away from the followed name.
#[derive(Debug)]
struct Rotated {
    file: File,
    /// When it last grew (or was rotated away).
    grew: std::time::Instant,
    /// The last bytes returned from it did not end a line: it is read on to the line's end first.
    in_line: bool,
}

impl Follow {
    /// Opens `path` to follow it, from its start, or `from_end`: from the start of its last line
    /// (only lines written from now on, as `tail -F -n 0`; a file that appears under the name
    /// later is read from its start). A name that does not exist yet is waited for (`status` says
    /// so meanwhile).
    ///
    /// # Errors
    /// When the file cannot be opened (other than not existing), is not a regular file or is gzip
    /// (the message names it).
    pub fn open(
        path: PathBuf,
        control: Arc<Control>,
        status: Arc<FollowStatus>,
        from_end: bool,
    ) -> io::Result<Self> {
        let mut follow = Self {
            path,
            file: None,
            id: (0, 0),
            pos: 0,
            at_line_start: true,
            rotated: None,
            head: Vec::new(),
            tail: Vec::new(),
            control,
            status,
        };
        match follow.open_now() {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                follow.status.waiting.store(true, Ordering::Relaxed);
            }
            result => result?,
        }
        if from_end {
            follow.skip_to_last_line()?;
        }
        Ok(follow)
    }

    /// Moves the open file's read position past its last newline: the lines there are not read,
    /// a last one being written is read whole once it ends. Its first bytes are taken for the
    /// truncation check as if they had been read.
    fn skip_to_last_line(&mut self) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let len = file.metadata()?.len();
        // The last line's start, looked for in the last 64 KiB (a longer last line is cut).
        let window = len.min(64 << 10);
        let mut tail = vec![0u8; usize::try_from(window).unwrap_or(0)];
        file.read_exact_at(&mut tail, len - window)?;
        let pos = match memchr::memrchr(b'\n', &tail) {
            Some(i) => len - window + i as u64 + 1,
            None if window < len => len,
            None => 0,
        };
        let mut head = [0u8; HEAD];
        let head_len = usize::try_from(len.min(HEAD as u64)).unwrap_or(0);
        let head = head.get_mut(..head_len).unwrap_or_default();
        file.read_exact_at(head, 0)?;
        self.head = head.to_vec();
        let tail_len = pos.min(HEAD as u64);
        let mut tail = vec![0u8; usize::try_from(tail_len).unwrap_or(0)];
        file.read_exact_at(&mut tail, pos - tail_len)?;
        self.tail = tail;
        file.seek(SeekFrom::Start(pos))?;
        self.pos = pos;
        Ok(())
    }

    /// Opens the file under the name, refusing what cannot be followed.
    fn open_now(&mut self) -> io::Result<()> {
        let path = &self.path;
        let mut file = open_file(path)?;
        if !file.metadata()?.is_file() {
            // A device or a socket: no size, no truncation, no rotation to watch for.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: not a regular file, so it cannot be followed (read it without --follow)",
                    path.display()
                ),
            ));
        }
        let mut head = [0u8; 2];
        let n = file.read(&mut head)?;
        file.seek(SeekFrom::Start(0))?;
        if is_gzip(path, head.get(..n).unwrap_or_default()) {
            // A compressed stream cannot be read as it grows, nor from a truncation point.
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: a gzip file cannot be followed (read it without --follow)",
                    path.display()
                ),
            ));
        }
        let m = file.metadata()?;
        self.id = (m.dev(), m.ino());
        self.pos = 0;
        self.head.clear();
        self.tail.clear();
        self.file = Some(file);
        self.status.waiting.store(false, Ordering::Relaxed);
        Ok(())
    }

    /// At the end of the open file: whether it was replaced or truncated (and is now reopened or
    /// rewound).
    fn changed(&mut self) -> io::Result<bool> {
        let named = std::fs::metadata(&self.path);
        // A name removed (the open file is still read if it grows) is waited for, as at the start.
        self.status.waiting.store(
            named
                .as_ref()
                .is_err_and(|e| e.kind() == io::ErrorKind::NotFound),
            Ordering::Relaxed,
        );
        // What the open file got since it was last read is read first (a rotation while this
        // waited: the old file's last lines, a cut one among them, come before the new file's).
        // The open file's length, looked up once a poll (the rotation and truncation checks
        // both need it).
        let len = match self.file.as_ref() {
            Some(f) => Some(f.metadata()?.len()),
            None => None,
        };
        let unread = len.is_some_and(|l| l > self.pos);
        if let Some(m) = named.as_ref().ok().filter(|_| !unread) {
            if (m.dev(), m.ino()) != self.id && !m.is_dir() {
                // Rotated: the old file is read to its end (we are there), the new one from 0;
                // the old one is still read while it grows (a service writes on to it).
                if let Ok(file) = File::open(&self.path) {
                    self.rotated = self.file.replace(file).map(|old| Rotated {
                        file: old,
                        grew: std::time::Instant::now(),
                        in_line: false,
                    });
                    self.id = (m.dev(), m.ino());
                    self.pos = 0;
                    self.head.clear();
                    self.tail.clear();
                    self.status.rotations.fetch_add(1, Ordering::Relaxed);
                    return Ok(true);
                }
            }
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(false);
        };
        let shorter = len.is_some_and(|l| l < self.pos);
        // Truncated and written again past where it was read, between two polls (copytruncate
        // of a busy log): the length alone does not tell, its first bytes do (it was missed).
        let differs = |at: u64, was: &[u8]| {
            use std::os::unix::fs::FileExt;
            let mut now = [0u8; HEAD];
            let now = now.get_mut(..was.len()).unwrap_or_default();
            file.read_exact_at(now, at).is_err() || *now != *was
        };
        let rewritten = !shorter
            && ((!self.head.is_empty() && differs(0, &self.head))
                || (!self.tail.is_empty()
                    && differs(self.pos - self.tail.len() as u64, &self.tail)));
        if shorter || rewritten {
            file.seek(SeekFrom::Start(0))?;
            self.pos = 0;
            self.head.clear();
            self.tail.clear();
            self.status.truncations.fetch_add(1, Ordering::Relaxed);
            return Ok(true);
        }
        Ok(false)
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.control.stopped() {
                return Ok(0);
            }
            if self.file.is_none() {
                // Waiting for the name to appear (it is opened from its start then).
                match self.open_now() {
                    // (Still, or again: removed between a look and the open.)
                    Err(e) if e.kind() == io::ErrorKind::NotFound => std::thread::sleep(POLL),
                    result => result?,
                }
                continue;
            }
            if self.at_line_start || self.rotated.as_ref().is_some_and(|r| r.in_line) {
                // Whole lines written to the rotated file since: between the new file's lines.
                let n = self.read_rotated(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                if self.rotated.as_ref().is_some_and(|r| r.in_line) {
                    // Its long line is not over: the new file's lines wait for its end.
                    std::thread::sleep(POLL);
                    continue;
                }
            }
            let Some(file) = self.file.as_mut() else {
                continue;
            };
            let n = file.read(buf)?;
            if n > 0 {
                if self.head.len() < HEAD && self.pos == self.head.len() as u64 {
                    let more = (HEAD - self.head.len()).min(n);
                    self.head
                        .extend_from_slice(buf.get(..more).unwrap_or_default());
                }
                let read = buf.get(..n).unwrap_or_default();
                let keep = HEAD.saturating_sub(n).min(self.tail.len());
                self.tail.drain(..self.tail.len() - keep);
                self.tail
                    .extend_from_slice(read.get(n.saturating_sub(HEAD)..).unwrap_or_default());
                self.pos += n as u64;
                self.at_line_start = buf.get(n - 1) == Some(&b'\n');
                return Ok(n);
            }
            // At its end: wait, then look for a rotation or truncation before reading on (a file
            // rewritten while this waited would otherwise be read on from the old position).
            std::thread::sleep(POLL);
            if self.changed()? && !self.at_line_start {
                // The cut line ends here.
                self.at_line_start = true;
                if let Some(b) = buf.first_mut() {
                    *b = b'\n';
                }
                return Ok(1);
            }
        }
    }
}

impl Follow {
    /// Reads what was written to the rotated file since, if anything: whole lines only (a line
    /// its writer is still at waits, unless it is longer than `buf`: then it is read on to its
    /// end before the new file's lines). The rotated file is let go once it has not grown for
    /// [`ROTATED_GRACE`] (a line left unfinished then is ended, as a rotation ends one).
    fn read_rotated(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(r) = self.rotated.as_mut() else {
            return Ok(0);
        };
        let n = r.file.read(buf)?;
        let got = buf.get(..n).unwrap_or_default();
        let whole = match memchr::memrchr(b'\n', got) {
            Some(last) => last + 1,
            // A line longer than the buffer: on to its end, whatever it takes.
            None if n == buf.len() => n,
            None => 0,
        };
        if whole < n {
            // The unfinished line's start is read again with its end.
            r.file.seek(SeekFrom::Current(-((n - whole) as i64)))?;
        }
        if whole > 0 {
            r.grew = std::time::Instant::now();
            r.in_line = got.get(whole - 1) != Some(&b'\n');
            self.at_line_start = !r.in_line;
            return Ok(whole);
        }
        if r.grew.elapsed() >= ROTATED_GRACE {
            let in_line = r.in_line;
            self.rotated = None;
            if in_line {
                if let Some(b) = buf.first_mut() {
                    *b = b'\n';
                }
                self.at_line_start = true;
                return Ok(1);
            }
        }
        Ok(0)
    }
}

/// Whether a file is gzip-compressed: its name ends in `.gz`, or it starts with gzip's magic bytes.
#[must_use]
pub fn is_gzip(path: &std::path::Path, head: &[u8]) -> bool {
    path.extension().is_some_and(|e| e == "gz") || head.starts_with(&GZIP_MAGIC)
}

/// The first two bytes of every gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Opens a file of lines to read to its end, decompressing it if it is gzip (several members, as
/// `cat a.gz b.gz` makes, are read one after the other).
///
/// # Errors
/// When the file cannot be opened or read, or is a directory (the message names it).
pub fn open_lines(path: &std::path::Path) -> io::Result<Box<dyn Read + Send>> {
    Ok(open_lines_plain(path)?.0)
}

/// [`open_lines`], and whether the file is a regular file read as it is (not decompressed, not a
/// pipe or a device): one whose reads never wait for a writer nor cost much beyond the copy.
///
/// # Errors
/// As [`open_lines`].
pub fn open_lines_plain(path: &std::path::Path) -> io::Result<(Box<dyn Read + Send>, bool)> {
    let mut file = open_file(path)?;
    let regular = file.metadata()?.is_file();
    let (head, n) = read_head(&mut file)?;
    let head = head.get(..n).unwrap_or_default();
    let gzip = is_gzip(path, head);
    if gzip && !head.starts_with(&GZIP_MAGIC) {
        // Decompressing would fail with only "unexpected end of file" or "invalid gzip header".
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}: named .gz but not gzip (it does not start with gzip's header)",
                path.display()
            ),
        ));
    }
    // A regular file goes back to its start; a pipe cannot seek, so the bytes read come first.
    let reader: Box<dyn Read + Send> = if regular {
        file.seek(SeekFrom::Start(0))?;
        Box::new(file)
    } else {
        Box::new(io::Cursor::new(head.to_vec()).chain(file))
    };
    if gzip {
        Ok((gunzip(reader), false))
    } else {
        Ok((reader, regular))
    }
}

/// Standard input as lines, decompressed if it starts with gzip's magic bytes (`zcat` is not
/// needed: `cat app.log.gz | tui-demo --input -`), as a file is. Reads its first two bytes, so it
/// waits for the writer's first ones: call it where the wait holds nothing up.
///
/// # Errors
/// When standard input cannot be read.
pub fn open_stdin() -> io::Result<Box<dyn Read + Send>> {
    let mut stdin = io::stdin();
    let (head, n) = read_head(&mut stdin)?;
    let head = head.get(..n).unwrap_or_default();
    let gzip = head.starts_with(&GZIP_MAGIC);
    let reader: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.to_vec()).chain(stdin));
    Ok(if gzip { gunzip(reader) } else { reader })
}

/// The first two bytes of `reader` (fewer if it ends first), and how many there are.
fn read_head(reader: &mut impl Read) -> io::Result<([u8; 2], usize)> {
    let mut head = [0u8; 2];
    let mut n = 0;
    while n < head.len() {
        match reader.read(head.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((head, n))
}

/// `reader` decompressed as gzip (several members, back to back, one after the other).
fn gunzip(reader: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
    Box::new(flate2::read::MultiGzDecoder::new(
        io::BufReader::with_capacity(1 << 16, reader),
    ))
}
