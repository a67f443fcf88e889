//! Keeping the results: `--save FILE` writes the sketches in the library's wire format (at exit and
//! every `--save-every` seconds), and `merge A B …` merges saved files — from other runs or hosts —
//! with the library's own merges and reports them. Sketches are the unit of exchange. (A device
//! host's `listen --save` writes its fleet's merged sketches, of other types and seeds, in the same
//! container: [`crate::saved_fleet`], to which [`merge_files`] hands such files; the two kinds do
//! not merge with each other.)
//!
//! A file holds, back to back: the distinct counter ([`Distinct`], HyperLogLog p = 14), the
//! heavy-hitter summary ([`Heavy`], Space-Saving over line hashes) and, with `--value-field` or
//! `--value-json`, the field's quantile sketch ([`Values`]), each as a wire-format sketch (magic
//! `SK`, version, kind, parameters, seed, body); then one JSON object: `names`, mapping the listed
//! line hashes (decimal strings) to their text (a [`KeyText`]: `{"line": …, "cut": …}`, the line as
//! it was, cut to 200 characters), and `values`, which field the quantile sketch is of and how many
//! lines had no number there (`null` without one), and `key`, how the keys were made; then a last line, `crc32` and the CRC-32 of every byte before it in hex.
//! A file that was changed since (the checksum differs), whose sketches do not decode, or whose
//! keys, parameters or seeds differ from another's, is refused with its path named; so are files
//! whose quantiles are of different fields, or that have quantiles while another has none (a merge
//! would describe only some of the lines). Files written before the key and the checksum were
//! saved, or before the quantile sketch was (the JSON object is the `names` map itself), are
//! still read; so are files written before the lines' own text was kept, whose `names` are the
//! text a terminal was shown (control characters as symbols, a cut line ending with `…`) as plain
//! strings: that text stands for the line's, which a newer file's replaces in a merge.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sketch_nostd::wire::{self, Wire};

use crate::human::KeyText;
use crate::ingest::engine::{heavy_stats, hll_stats, Distinct, Heavy};
use crate::ingest::ring::TOP_SHOWN;
use crate::ingest::values::{quantile_stats, Values};
use crate::snapshot::Snapshot;

/// A numeric field's quantile sketch, and what it is of.
#[derive(Clone, Debug)]
pub struct SavedValues {
    /// The values since the start.
    pub sketch: Box<Values>,
    /// `--value-field N`: the field's number (from 1).
    pub field: Option<u16>,
    /// `--value-json PATH`: the JSON pointer.
    pub json: Option<String>,
    /// Lines without a number in the field.
    pub missing: u64,
}

/// What the JSON object after the sketches says of the quantile sketch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct ValuesMeta {
    field: Option<u16>,
    json: Option<String>,
    missing: u64,
}

/// The JSON object after the sketches.
#[derive(Default, Serialize, Deserialize)]
struct Meta<N> {
    names: N,
    values: Option<ValuesMeta>,
    /// How the lines' keys were made (`"whole line"`, `"field 1"`, …); absent in files written
    /// before it was saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    /// Lines the run read, with a key or not (the sketches count keys); absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lines: Option<u64>,
}

/// A line's text in the JSON object: the line's own ([`KeyText`]), or in a file written before
/// that was kept, the text a terminal was shown of it, a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum SavedText {
    Kept(KeyText),
    Shown(String),
}

impl SavedText {
    /// The text, and whether it is the text a terminal was shown (an older file's). That text was
    /// cut to [`TOP_SHOWN`] characters, the last one made `…`: such text is taken as cut (so it
    /// is shown again unchanged: [`KeyText::printable`]).
    fn key_text(self) -> (KeyText, bool) {
        match self {
            Self::Kept(k) => (k, false),
            Self::Shown(line) => {
                let cut = line.ends_with('…') && line.chars().count() == TOP_SHOWN;
                (KeyText { line, cut }, true)
            }
        }
    }
}

/// The last line of a file since the key was saved: `\ncrc32 ` and the CRC-32 of every byte
/// before it in 8 hex digits, then `\n` (16 bytes).
const TRAILER: &[u8] = b"\ncrc32 ";
/// The trailer's length.
const TRAILER_LEN: usize = TRAILER.len() + 8 + 1;

/// The CRC-32 (gzip's) of `bytes`.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = flate2::Crc::new();
    crc.update(bytes);
    crc.sum()
}

/// Ends a file's bytes with the checksum line ([`TRAILER`] and the CRC-32 of every byte before
/// it). A damaged file is refused, not merged with wrong counts: the wire format has no checksum of
/// its own outside a frame, and the JSON object none at all.
pub(crate) fn seal(buf: &mut Vec<u8>) {
    let crc = crc32(buf);
    buf.extend_from_slice(TRAILER);
    buf.extend_from_slice(format!("{crc:08x}\n").as_bytes());
}

/// A file's bytes without its checksum line, checked, and whether there was one (an older file
/// has none).
///
/// # Errors
/// A checksum line cut short or unreadable, or a checksum that does not match.
pub(crate) fn unseal(bytes: &[u8]) -> Result<(&[u8], bool), String> {
    if bytes.is_empty() {
        // (It read "damaged: its checksum line is missing" for the devices' kind of file.)
        return Err("empty: not a file written by --save".into());
    }
    // The checksum line, when there is one (files before it end with the JSON object's `}`,
    // and the object is one line: the line's start is found only in the last bytes).
    let tail = bytes.len().saturating_sub(2 * TRAILER_LEN);
    let at = bytes
        .get(tail..)
        .and_then(|end| end.windows(TRAILER.len()).rposition(|w| w == TRAILER))
        .map(|i| tail + i);
    let checked = at.is_some();
    let body = match at {
        None => bytes,
        Some(at) => {
            let (body, trailer) = bytes.split_at(at);
            if trailer.len() != TRAILER_LEN || !trailer.ends_with(b"\n") {
                // Its newline or a digit cut off, or more after it.
                return Err("damaged: its checksum line is cut short".into());
            }
            let hex = trailer
                .get(TRAILER.len()..TRAILER_LEN - 1)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .ok_or("damaged: its checksum line is not readable")?;
            let crc = crc32(body);
            if crc != hex {
                return Err(format!(
                    "damaged: its CRC-32 is {crc:08x}, the file says {hex:08x} (a byte \
                     changed since it was written)"
                ));
            }
            body
        }
    };
    Ok((body, checked))
}

/// How a run's keys are described when its lines are counted whole.
pub const WHOLE_LINE: &str = "whole line";

/// The sketches a run keeps.
#[derive(Clone, Debug)]
pub struct Saved {
    /// Distinct lines.
    pub distinct: Box<Distinct>,
    /// Heavy hitters, keyed by line hash.
    pub heavy: Box<Heavy>,
    /// The text of lines the summary may list, by hash (display only).
    pub names: crate::ingest::ring::Names,
    /// Some of `names` come from a file written before the lines' own text was kept: they are the
    /// text a terminal was shown (control characters as symbols), which a merge replaces with a
    /// newer file's text of the same line.
    pub printable_names: bool,
    /// `--value-field` / `--value-json`: the field's quantiles.
    pub values: Option<SavedValues>,
    /// How the keys were made ([`WHOLE_LINE`], `"field 1"`, …; `EngineOptions::describe`), so
    /// that files counting different keys do not merge; `None` when unknown (an older file).
    pub key: Option<String>,
    /// Lines read by the runs saved, with a key or not; `None` when unknown (an older file).
    pub lines: Option<u64>,
}

impl Saved {
    /// The file's bytes.
    ///
    /// # Errors
    /// An encoding error (none is expected: the buffer is sized for the largest sketches).
    pub fn encode(&self) -> io::Result<Vec<u8>> {
        let mut buf =
            vec![0u8; Distinct::MAX_ENCODED_LEN + Heavy::MAX_ENCODED_LEN + Values::MAX_ENCODED_LEN];
        let n = wire::encode(&*self.distinct, &mut buf)
            .map_err(|e| io::Error::other(format!("encoding the distinct counter: {e}")))?
            .len();
        let mut end = n + wire::encode(&*self.heavy, buf.get_mut(n..).unwrap_or_default())
            .map_err(|e| io::Error::other(format!("encoding the heavy hitters: {e}")))?
            .len();
        if let Some(v) = &self.values {
            end += wire::encode(&*v.sketch, buf.get_mut(end..).unwrap_or_default())
                .map_err(|e| io::Error::other(format!("encoding the quantiles: {e}")))?
                .len();
        }
        buf.truncate(end);
        let names: HashMap<String, &KeyText> =
            self.names.iter().map(|(k, v)| (k.to_string(), v)).collect();
        let meta = Meta {
            names,
            values: self.values.as_ref().map(|v| ValuesMeta {
                field: v.field,
                json: v.json.clone(),
                missing: v.missing,
            }),
            key: self.key.clone(),
            lines: self.lines,
        };
        serde_json::to_writer(&mut buf, &meta)?;
        seal(&mut buf);
        Ok(buf)
    }

    /// Reads a file's bytes.
    ///
    /// # Errors
    /// Why the bytes are not a saved file.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let (bytes, checked) = unseal(bytes)?;
        // A saved file starts with a sketch in the wire format (its magic, `SK`): anything else,
        // such as a log given by mistake, is said to be no saved file (it read "the distinct
        // counter: not a sketch: bad magic bytes").
        if !bytes.starts_with(b"SK") {
            return Err("not a file written by --save (it does not start with a sketch)".into());
        }
        let (distinct, rest) =
            wire::take::<Distinct>(bytes).map_err(|e| format!("the distinct counter: {e}"))?;
        let (heavy, rest) =
            wire::take::<Heavy>(rest).map_err(|e| format!("the heavy hitters: {e}"))?;
        // A quantile sketch starts with the wire format's magic; the JSON object with `{`.
        let (sketch, rest) = if rest.starts_with(b"SK") {
            let (q, rest) =
                wire::take::<Values>(rest).map_err(|e| format!("the quantiles: {e}"))?;
            (Some(Box::new(q)), rest)
        } else {
            (None, rest)
        };
        let meta: Meta<HashMap<String, SavedText>> = if rest.is_empty() {
            Meta::default()
        } else {
            serde_json::from_slice(rest).or_else(|e| {
                // Before the quantiles were saved, the object was the names map itself.
                serde_json::from_slice(rest)
                    .map(|names| Meta {
                        names,
                        ..Meta::default()
                    })
                    .map_err(|_| format!("the line names: {e}"))
            })?
        };
        let values = match (sketch, meta.values) {
            (Some(sketch), Some(m)) => Some(SavedValues {
                sketch,
                field: m.field,
                json: m.json,
                missing: m.missing,
            }),
            (None, None) => None,
            (Some(_), None) => return Err("a quantile sketch without its field".into()),
            (None, Some(_)) => return Err("a quantiles field without its sketch".into()),
        };
        let mut printable_names = false;
        let names = meta
            .names
            .into_iter()
            .filter_map(|(k, v)| {
                let (text, printable) = v.key_text();
                printable_names |= printable;
                Some((k.parse().ok()?, text))
            })
            .collect();
        if !checked && meta.key.is_some() {
            // Written with a checksum line (the key came with it), which is gone: cut short.
            return Err("damaged: its checksum line is missing".into());
        }
        Ok(Self {
            distinct: Box::new(distinct),
            heavy: Box::new(heavy),
            names,
            printable_names,
            values,
            key: meta.key,
            lines: meta.lines,
        })
    }

    /// Writes the file: to a temporary file beside it, then renamed, so a reader never sees half.
    ///
    /// # Errors
    /// I/O errors, with the path.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        write_atomically(path, self.encode())
    }

    /// Reads a file.
    ///
    /// # Errors
    /// I/O or format errors, with the path.
    pub fn read(path: &Path) -> io::Result<Self> {
        let bytes = std::fs::read(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        Self::decode(&bytes).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// Adds another run's sketches with the library's merges.
    ///
    /// # Errors
    /// The library's refusal (different parameters or seeds).
    pub fn merge(&mut self, other: &Self) -> Result<(), String> {
        // Counts of different keys (whole lines and a field, two regexes) add up to nothing.
        if let (Some(a), Some(b)) = (&self.key, &other.key) {
            if a != b {
                return Err(format!(
                    "its keys are made otherwise than those before it: \"{b}\" here, \"{a}\" \
                     before (counts of different keys do not add up)"
                ));
            }
        }
        if other.key.is_none() {
            self.key = None;
        }
        self.lines = self
            .lines
            .zip(other.lines)
            .map(|(a, b)| a.saturating_add(b));
        self.distinct
            .merge(&other.distinct)
            .map_err(|e| format!("the distinct counters do not merge: {e}"))?;
        self.heavy
            .merge(&other.heavy)
            .map_err(|e| format!("the heavy hitters do not merge: {e}"))?;
        match (self.values.as_mut(), other.values.as_ref()) {
            (None, None) => {}
            (Some(a), Some(b)) if (a.field, &a.json) == (b.field, &b.json) => {
                a.sketch
                    .merge(&b.sketch)
                    .map_err(|e| format!("the quantiles do not merge: {e}"))?;
                a.missing += b.missing;
            }
            (Some(a), Some(b)) => {
                return Err(format!(
                    "the quantiles are of different fields ({} and {})",
                    field_name(a),
                    field_name(b)
                ))
            }
            (Some(a), None) => return Err(only_one(a)),
            (None, Some(b)) => return Err(only_one(b)),
        }
        // A line's own text rather than an older file's printable text of it, whichever comes first.
        let replace = self.printable_names && !other.printable_names;
        for (k, v) in &other.names {
            if replace {
                self.names.insert(*k, v.clone());
            } else {
                self.names.entry(*k).or_insert_with(|| v.clone());
            }
        }
        self.printable_names |= other.printable_names;
        Ok(())
    }

    /// A report of the sketches: distinct lines, the registers, and the `top` heavy hitters with
    /// their guaranteed brackets (no exact counts: only sketches were kept).
    #[must_use]
    pub fn snapshot(&self, source: String, top: usize) -> Snapshot {
        let (distinct, registers) = hll_stats(&self.distinct);
        let mut s = Snapshot {
            source,
            sketches_only: true,
            finished: Some(None),
            keyed: self.key.as_deref().is_some_and(|k| k != WHOLE_LINE),
            distinct: Some(distinct),
            registers: Some(registers),
            heavy: Some(heavy_stats(&self.heavy, &self.names, |_| None, top)),
            quantiles: self.values.as_ref().map(|v| {
                let mut q = quantile_stats(&v.sketch, v.field, v.missing, None);
                q.json.clone_from(&v.json);
                q
            }),
            ..Snapshot::default()
        };
        s.totals.lines = self.lines.unwrap_or_else(|| self.heavy.total());
        s
    }
}

/// Writes a file's `bytes` (or their encoding error): to a temporary file beside it, then
/// renamed, so a reader never sees half.
///
/// # Errors
/// I/O errors, with the path.
pub(crate) fn write_atomically(path: &Path, bytes: io::Result<Vec<u8>>) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let tmp = temporary(path);
    std::fs::write(&tmp, bytes.map_err(named)?).map_err(named)?;
    std::fs::rename(&tmp, path).map_err(named)
}

/// The temporary file [`Saved::write`] writes before renaming it over `path`.
fn temporary(path: &Path) -> std::ffi::OsString {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    tmp
}

/// Checks before a run that [`Saved::write`] will be able to write `path`: it is not a directory,
/// and its temporary file can be created beside it (the directory exists and is writable). The
/// temporary file is removed again; `path` itself, if it exists, is not touched, so an earlier save
/// stays whole until the run has something to write over it.
///
/// # Errors
/// Why not, with the path.
pub fn check_writable(path: &Path) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    if path.is_dir() {
        return Err(named(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        )));
    }
    let tmp = temporary(path);
    // The temporary file is what fails when the directory is not writable: name it, so the
    // message points at the directory and not at a file that may well be writable itself.
    let beside = |e: io::Error| {
        io::Error::new(
            e.kind(),
            format!(
                "{}: cannot create {} beside it to write it: {e}",
                path.display(),
                std::path::Path::new(&tmp).display()
            ),
        )
    };
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(beside)?;
    std::fs::remove_file(&tmp).map_err(named)
}

/// How a report names the field of a quantile sketch.
fn field_name(v: &SavedValues) -> String {
    match (&v.json, v.field) {
        (Some(p), _) => format!("JSON value {p}"),
        (None, Some(n)) => format!("field {n}"),
        (None, None) => "an unnamed field".into(),
    }
}

/// The refusal to merge a run with quantiles and one without.
fn only_one(v: &SavedValues) -> String {
    format!(
        "only one of the two runs has quantiles (of {}): merged, they would describe only some \
         of the lines",
        field_name(v)
    )
}

/// The paths that name a file given before them: the same file twice counts its lines twice,
/// allowed (two copies of a run) but said. By device and inode, so that another name (a symbolic
/// or hard link) is the same file.
fn given_twice(paths: &[std::path::PathBuf]) -> Vec<String> {
    let (mut seen, mut twice) = (Vec::new(), Vec::new());
    for path in paths {
        let same = std::fs::metadata(path).ok().map(|m| {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        });
        if same.is_some() && seen.contains(&same) {
            twice.push(path.display().to_string());
        }
        seen.push(same);
    }
    twice
}

/// `merge FILES…`: the files' sketches merged, as a snapshot to report.
///
/// # Errors
/// A file that cannot be read or decoded, or does not merge, named.
pub fn merge_files(paths: &[std::path::PathBuf], top: usize) -> io::Result<Snapshot> {
    // Each file is read once: its kind is told from its bytes, which are then decoded.
    let files = paths
        .iter()
        .map(|path| {
            std::fs::read(path)
                .map(|bytes| (path.as_path(), bytes))
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        })
        .collect::<io::Result<Vec<_>>>()?;
    // Devices' files (`listen --save`) have their own sketches; files of both kinds are refused.
    if crate::saved_fleet::of_devices(&files)? {
        return crate::saved_fleet::merge_files(paths, &files, top);
    }
    let merged = merge_all(&files, Saved::decode, Saved::merge)?;
    let key = match merged.key.as_deref() {
        Some(WHOLE_LINE) => String::new(),
        Some(key) => format!(" · key: {key}"),
        None => " · key: not recorded in every file".into(),
    };
    Ok(merged.snapshot(merged_source(paths, &key), top))
}

/// The `files` (each path with its bytes), each decoded with `decode` and merged in order with
/// `merge`; a file that does not decode or does not merge with those before it is named.
///
/// # Errors
/// The first such file's error.
pub(crate) fn merge_all<T>(
    files: &[(&Path, Vec<u8>)],
    decode: impl Fn(&[u8]) -> Result<T, String>,
    merge: impl Fn(&mut T, &T) -> Result<(), String>,
) -> io::Result<T> {
    let mut merged: Option<T> = None;
    for (path, bytes) in files {
        let named = |e: String| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        };
        let saved = decode(bytes).map_err(named)?;
        match merged.as_mut() {
            Some(m) => merge(m, &saved).map_err(named)?,
            None => merged = Some(saved),
        }
    }
    merged.ok_or_else(|| io::Error::other("merge: no files given"))
}

/// The report's source line of a merge of `paths`: their names, `detail`, and the files given
/// more than once (counted as often).
pub(crate) fn merged_source(paths: &[std::path::PathBuf], detail: &str) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let mut source = format!("merged: {}{detail}", names.join(" + "));
    let twice = given_twice(paths);
    if !twice.is_empty() {
        source.push_str(&format!(
            " · given more than once, so counted as often: {}",
            twice.join(", ")
        ));
    }
    source
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Engine, EngineOptions};
    use crate::source::Batch;

    fn engine_with(options: EngineOptions, lines: impl Iterator<Item = String>) -> Engine {
        let mut e = Engine::new(options);
        let mut b = Batch::default();
        for l in lines {
            b.push(l.as_bytes());
        }
        e.apply(&b);
        e
    }

    fn engine(lines: impl Iterator<Item = String>) -> Engine {
        engine_with(EngineOptions::default(), lines)
    }

    #[test]
    fn saved_files_round_trip_and_merge_like_one_run() {
        // Two halves of one stream, saved and merged, report what one run over all of it would:
        // the same distinct estimate (HLL merges exactly) and the same top lines.
        let line = |i: u32| format!("GET /{} {}", i % 7, i % 3);
        let a = engine((0..3_000).map(line));
        let b = engine((3_000..6_000).map(line));
        let all = engine((0..6_000).map(line));
        let (sa, sb) = (a.saved(), b.saved());
        let bytes = sa.encode().unwrap();
        let back = Saved::decode(&bytes).unwrap();
        assert_eq!(back.heavy.sorted(), sa.heavy.sorted());
        assert_eq!(back.names, sa.names);
        let mut m = back;
        m.merge(&sb).unwrap();
        let merged = m.snapshot("m".into(), 10);
        let mut one = Snapshot::default();
        all.fill(&mut one);
        assert_eq!(merged.totals.lines, 6_000);
        assert_eq!(
            merged.distinct.as_ref().unwrap().estimate,
            one.distinct.as_ref().unwrap().estimate
        );
        let rows = |s: &Snapshot| -> Vec<(String, u64)> {
            s.heavy
                .as_ref()
                .unwrap()
                .rows
                .iter()
                .map(|r| (r.line().to_string(), r.estimate))
                .collect()
        };
        assert_eq!(rows(&merged), rows(&one));
        // Garbage is refused, not a panic.
        assert!(Saved::decode(&bytes[..bytes.len() / 2]).is_err());
        // A log given by mistake is said to be no saved file (it read "the distinct counter: not
        // a sketch: bad magic bytes": a user test).
        assert_eq!(
            Saved::decode(b"May  1 12:00:00 host app: started\n").unwrap_err(),
            "not a file written by --save (it does not start with a sketch)"
        );
        // No quantiles were asked for: none saved.
        assert!(sa.values.is_none() && merged.quantiles.is_none());
    }

    /// `saved` as a file written before the lines' own text was kept: `names` holds the text a
    /// terminal was shown, as strings (with the key, the line count and the checksum line, which
    /// files had by then).
    fn printable_file(saved: &Saved) -> Vec<u8> {
        let mut bytes = saved.encode().unwrap();
        let (_, rest) = wire::take::<Distinct>(&bytes).unwrap();
        let (_, rest) = wire::take::<Heavy>(rest).unwrap();
        bytes.truncate(bytes.len() - rest.len());
        let names: HashMap<String, String> = saved
            .names
            .iter()
            .map(|(k, v)| (k.to_string(), v.printable()))
            .collect();
        let meta = Meta {
            names,
            values: None,
            key: saved.key.clone(),
            lines: saved.lines,
        };
        serde_json::to_writer(&mut bytes, &meta).unwrap();
        let crc = crc32(&bytes);
        bytes.extend_from_slice(TRAILER);
        bytes.extend_from_slice(format!("{crc:08x}\n").as_bytes());
        bytes
    }

    /// New files keep the lines as they were; older ones, with the text a terminal was shown, still
    /// load and show the same, and in a merge with a newer file the newer file's text of a line
    /// wins whichever comes first.
    #[test]
    fn files_keep_the_lines_text_and_older_printable_files_still_merge() {
        let escape = "GET /\u{1b}[31m\tx".to_string();
        let long = "y".repeat(300);
        let lines = || {
            (0..30).map(|i| match i % 3 {
                0 => escape.clone(),
                1 => long.clone(),
                _ => format!("only {i}"),
            })
        };
        let new = engine(lines()).saved();
        let text = |s: &Saved, line: &str| {
            s.names[&sketch_nostd::hash::hash64(line.as_bytes(), crate::ingest::SEED)].clone()
        };
        assert_eq!(
            text(&new, &escape),
            KeyText {
                line: escape.clone(),
                cut: false
            }
        );
        assert_eq!(
            text(&new, &long),
            KeyText {
                line: "y".repeat(200),
                cut: true
            }
        );
        let back = Saved::decode(&new.encode().unwrap()).unwrap();
        assert_eq!(back.names, new.names);
        assert!(!back.printable_names);

        let old = Saved::decode(&printable_file(&new)).unwrap();
        assert!(old.printable_names);
        // The text a terminal was shown; a 200-character one ending with `…` taken as cut, so
        // either is shown again as it was.
        let shown_long = format!("{}…", "y".repeat(199));
        assert_eq!(
            text(&old, &escape),
            KeyText {
                line: "GET /␛[31m→x".into(),
                cut: false
            }
        );
        assert_eq!(
            text(&old, &long),
            KeyText {
                line: shown_long.clone(),
                cut: true
            }
        );
        assert_eq!(text(&old, &long).printable(), shown_long);
        assert_eq!(old.names.len(), new.names.len());
        for (k, v) in &old.names {
            assert_eq!(v.printable(), new.names[k].printable());
        }

        // Old and new merge either way round, with the lines' own text.
        for (a, b) in [(&old, &new), (&new, &old)] {
            let mut m = a.clone();
            m.merge(b).unwrap();
            assert_eq!(m.names, new.names);
            let s = m.snapshot("m".into(), 10);
            let rows = &s.heavy.as_ref().unwrap().rows;
            assert!(rows.iter().any(|r| r.line() == escape));
            // A third file after them: still the lines' text.
            m.merge(&old).unwrap();
            assert_eq!(m.names, new.names);
        }
        // Two older files: the text they have.
        let mut m = old.clone();
        m.merge(&old).unwrap();
        assert_eq!(m.names, old.names);
    }

    fn valued(field: u16, lines: impl Iterator<Item = String>) -> Engine {
        let options = EngineOptions {
            value_field: Some(field),
            ..EngineOptions::default()
        };
        engine_with(options, lines)
    }

    #[test]
    fn saved_quantiles_round_trip_and_merge_like_one_run() {
        // Field 2 is a latency (every fifth line has none). Two halves saved, read back and merged
        // report the quantiles one run over all of it reports: the quantile sketch merges by adding
        // bucket counts, so the figures are the same, not merely close.
        let line = |i: u32| {
            if i.is_multiple_of(5) {
                format!("GET - /{}", i % 7)
            } else {
                format!("GET {} /{}", (i * 7919) % 100_000 + 1, i % 7)
            }
        };
        let a = valued(2, (0..3_000).map(line));
        let b = valued(2, (3_000..6_000).map(line));
        let all = valued(2, (0..6_000).map(line));
        let back = Saved::decode(&a.saved().encode().unwrap()).unwrap();
        let qa = back.values.as_ref().expect("the quantiles are saved");
        assert_eq!((qa.field, qa.missing), (Some(2), 600));
        assert_eq!(*qa.sketch, *a.saved().values.unwrap().sketch);
        let mut m = back;
        m.merge(&Saved::decode(&b.saved().encode().unwrap()).unwrap())
            .unwrap();
        let merged = m.snapshot("m".into(), 10).quantiles.unwrap();
        let mut one = Snapshot::default();
        all.fill(&mut one);
        let one = one.quantiles.unwrap();
        assert_eq!(
            (merged.field, merged.count, merged.missing),
            (Some(2), 4_800, 1_200)
        );
        assert_eq!(
            (merged.count, merged.min, merged.max),
            (one.count, one.min, one.max)
        );
        let estimates = |q: &crate::snapshot::QuantileStats| -> Vec<f64> {
            q.rows.iter().map(|r| r.estimate).collect()
        };
        assert_eq!(estimates(&merged), estimates(&one));
        assert_eq!(merged.rows.len(), 4);
    }

    #[test]
    fn a_changed_byte_is_refused_and_files_of_other_keys_do_not_merge() {
        // Found by a user test: with no checksum, 44 of 400 randomly damaged files were merged
        // (one changed the distinct estimate by 3%); and files counting whole lines merged with
        // files counting a field.
        let line = |i: u32| format!("GET /{} {}", i % 7, i % 3);
        let a = engine((0..3_000).map(line)).saved();
        let bytes = a.encode().unwrap();
        assert!(bytes.ends_with(b"\n") && bytes.len() > TRAILER_LEN);
        assert_eq!(
            Saved::decode(&bytes).unwrap().key.as_deref(),
            Some(WHOLE_LINE)
        );
        // Every byte changed, in two ways (the CRC-32 catches every change of up to 32 bits in a
        // row; a change in the trailer's own text leaves bytes after the JSON object).
        for i in 0..bytes.len() {
            for flip in [0x01, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                assert!(
                    Saved::decode(&bad).is_err(),
                    "byte {i} ^ {flip:#x} accepted"
                );
            }
        }
        let err = Saved::decode(&bytes[..bytes.len() - TRAILER_LEN]).unwrap_err();
        assert!(err.contains("checksum line is missing"), "{err}");
        // Its last newline or digit cut off: said as such (a user test saw "trailing characters").
        for cut in 1..=2 {
            let err = Saved::decode(&bytes[..bytes.len() - cut]).unwrap_err();
            assert!(err.contains("checksum line is cut short"), "{err}");
        }

        let by_field = engine_with(
            EngineOptions {
                key: crate::ingest::engine::KeyFields::parse("1").unwrap(),
                ..EngineOptions::default()
            },
            (0..3_000).map(line),
        )
        .saved();
        // A merge's table says keys when the files counted keys made from inside lines.
        assert!(by_field.snapshot(String::new(), 10).keyed);
        assert!(!a.snapshot(String::new(), 10).keyed);
        let err = a.clone().merge(&by_field).unwrap_err();
        // Each key quoted whole (a user test misread `field 1 here, timestamp stripped, field 1
        // before`: the comma joined the parts of one key and the two keys alike).
        assert!(
            err.contains(&format!("\"field 1\" here, \"{WHOLE_LINE}\" before")),
            "{err}"
        );
        // A file that does not say (written before the key was saved) merges, and the result's
        // key is unknown.
        let mut m = a.clone();
        let mut old = a.clone();
        old.key = None;
        m.merge(&old).unwrap();
        assert_eq!(m.key, None);

        // The same file twice is said in the report's source; two files with the same key merge.
        let dir = std::env::temp_dir().join(format!("tui-demo-saved-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (p1, p2) = (dir.join("a.sk"), dir.join("b.sk"));
        a.write(&p1).unwrap();
        a.write(&p2).unwrap();
        let hard = dir.join("hard.sk");
        std::fs::hard_link(&p1, &hard).unwrap();
        for again in [p1.clone(), hard] {
            let twice = merge_files(&[p1.clone(), again], 10).unwrap();
            assert!(
                twice
                    .source
                    .contains("given more than once, so counted as often"),
                "{}",
                twice.source
            );
        }
        let merged = merge_files(&[p1, p2], 10).unwrap();
        assert_eq!(merged.totals.lines, 6_000);
        assert!(
            !merged.source.contains("more than once"),
            "{}",
            merged.source
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_merge_reports_the_lines_the_runs_read() {
        // Found by a user test: a run under --key-regex read 1,761 lines of which 188 had a key;
        // merged, its file said 188 lines.
        let options = || EngineOptions {
            rule: crate::ingest::key::KeyRule::regex("POST (\\S+)").unwrap(),
            ..EngineOptions::default()
        };
        let line = |i: u32| {
            format!(
                "{} /{}",
                if i.is_multiple_of(4) { "POST" } else { "GET" },
                i % 5
            )
        };
        let a = engine_with(options(), (0..1_000).map(line)).saved();
        let b = engine_with(options(), (1_000..1_600).map(line)).saved();
        assert_eq!((a.lines, a.heavy.total()), (Some(1_000), 250));
        let mut m = Saved::decode(&a.encode().unwrap()).unwrap();
        m.merge(&Saved::decode(&b.encode().unwrap()).unwrap())
            .unwrap();
        let s = m.snapshot("m".into(), 10);
        assert_eq!((s.totals.lines, s.heavy.unwrap().total), (1_600, 400));
        // An older file does not say: the merge falls back to the keys the sketches count.
        let mut old = b.clone();
        old.lines = None;
        let mut m = a.clone();
        m.merge(&old).unwrap();
        assert_eq!(m.snapshot("m".into(), 10).totals.lines, 400);
    }

    #[test]
    fn quantiles_of_other_fields_or_of_one_run_only_are_refused() {
        let line = |i: u32| format!("GET {} {}", i + 1, i * 2 + 1);
        let f2 = valued(2, (0..100).map(line)).saved();
        let f3 = valued(3, (0..100).map(line)).saved();
        let none = engine((0..100).map(line)).saved();
        let err = f2.clone().merge(&f3).unwrap_err();
        assert!(err.contains("field 2") && err.contains("field 3"), "{err}");
        let err = f2.clone().merge(&none).unwrap_err();
        assert!(err.contains("only one"), "{err}");
        let err = none.clone().merge(&f2).unwrap_err();
        assert!(err.contains("only one"), "{err}");
        // A file of the earlier layout (no quantile sketch, the names map as the whole object).
        // The sketches' length: what the wire format reads of the bytes before the JSON object.
        let sketches = |bytes: &[u8], quantiles: bool| -> usize {
            let (_, rest) = wire::take::<Distinct>(bytes).unwrap();
            let (_, mut rest) = wire::take::<Heavy>(rest).unwrap();
            if quantiles {
                rest = wire::take::<Values>(rest).unwrap().1;
            }
            bytes.len() - rest.len()
        };
        let mut old = none.encode().unwrap();
        old.truncate(sketches(&old, false));
        let names: HashMap<String, &String> = none
            .names
            .iter()
            .map(|(k, v)| (k.to_string(), &v.line))
            .collect();
        serde_json::to_writer(&mut old, &names).unwrap();
        let read = Saved::decode(&old).unwrap();
        assert!(read.values.is_none());
        assert_eq!(read.names, none.names);
        assert!(read.printable_names);
        // A quantile sketch whose field the object does not name, or the reverse, is refused.
        let mut bytes = f2.encode().unwrap();
        bytes.truncate(sketches(&bytes, true));
        bytes.extend_from_slice(br#"{"names":{},"values":null}"#);
        assert!(Saved::decode(&bytes).is_err());
        let mut bytes = none.encode().unwrap();
        bytes.truncate(sketches(&bytes, false));
        bytes.extend_from_slice(br#"{"names":{},"values":{"field":2,"json":null,"missing":0}}"#);
        assert!(Saved::decode(&bytes).is_err());
    }
}
