//! Keeping the results: `--save FILE` writes the sketches in the library's wire format (at exit and
//! every `--save-every` seconds), and `merge A B …` merges saved files — from other runs, hosts or
//! devices — with the library's own merges and reports them. Sketches are the unit of exchange.
//!
//! A file holds, back to back: the distinct counter ([`Distinct`], HyperLogLog p = 14) and the
//! heavy-hitter summary ([`Heavy`], Space-Saving over line hashes), each as a wire-format sketch
//! (magic `SK`, version, kind, parameters, seed, body), then, for display only, one JSON object
//! mapping the listed line hashes (decimal strings) to their text. A file whose sketches do not
//! decode, or whose parameters or seeds differ from another's, is refused with its path named.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use sketch_nostd::wire::{self, Wire};

use crate::ingest::engine::{heavy_stats, hll_stats, Distinct, Heavy};
use crate::snapshot::Snapshot;

/// The sketches a run keeps.
#[derive(Clone, Debug)]
pub struct Saved {
    /// Distinct lines.
    pub distinct: Box<Distinct>,
    /// Heavy hitters, keyed by line hash.
    pub heavy: Box<Heavy>,
    /// The text of lines the summary may list, by hash (display only).
    pub names: HashMap<u64, String>,
}

impl Saved {
    /// The file's bytes.
    ///
    /// # Errors
    /// An encoding error (none is expected: the buffer is sized for the largest sketches).
    pub fn encode(&self) -> io::Result<Vec<u8>> {
        let mut buf = vec![0u8; Distinct::MAX_ENCODED_LEN + Heavy::MAX_ENCODED_LEN];
        let n = wire::encode(&*self.distinct, &mut buf)
            .map_err(|e| io::Error::other(format!("encoding the distinct counter: {e}")))?
            .len();
        let m = wire::encode(&*self.heavy, buf.get_mut(n..).unwrap_or_default())
            .map_err(|e| io::Error::other(format!("encoding the heavy hitters: {e}")))?
            .len();
        buf.truncate(n + m);
        let names: HashMap<String, &String> =
            self.names.iter().map(|(k, v)| (k.to_string(), v)).collect();
        serde_json::to_writer(&mut buf, &names)?;
        Ok(buf)
    }

    /// Reads a file's bytes.
    ///
    /// # Errors
    /// Why the bytes are not a saved file.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let (distinct, rest) =
            wire::take::<Distinct>(bytes).map_err(|e| format!("the distinct counter: {e}"))?;
        let (heavy, rest) =
            wire::take::<Heavy>(rest).map_err(|e| format!("the heavy hitters: {e}"))?;
        let names: HashMap<String, String> = if rest.is_empty() {
            HashMap::new()
        } else {
            serde_json::from_slice(rest).map_err(|e| format!("the line names: {e}"))?
        };
        let names = names
            .into_iter()
            .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
            .collect();
        Ok(Self {
            distinct: Box::new(distinct),
            heavy: Box::new(heavy),
            names,
        })
    }

    /// Writes the file: to a temporary file beside it, then renamed, so a reader never sees half.
    ///
    /// # Errors
    /// I/O errors, with the path.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let bytes = self.encode().map_err(named)?;
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        std::fs::write(&tmp, bytes).map_err(named)?;
        std::fs::rename(&tmp, path).map_err(named)
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
        self.distinct
            .merge(&other.distinct)
            .map_err(|e| format!("the distinct counters do not merge: {e}"))?;
        self.heavy
            .merge(&other.heavy)
            .map_err(|e| format!("the heavy hitters do not merge: {e}"))?;
        for (k, v) in &other.names {
            self.names.entry(*k).or_insert_with(|| v.clone());
        }
        Ok(())
    }

    /// A report of the sketches: distinct lines, the registers, and the `top` heavy hitters with
    /// their guaranteed brackets (no exact counts: only sketches were kept).
    #[must_use]
    pub fn snapshot(&self, source: String, top: usize) -> Snapshot {
        let (distinct, registers) = hll_stats(&self.distinct);
        let mut s = Snapshot {
            source,
            finished: Some(None),
            distinct: Some(distinct),
            registers: Some(registers),
            heavy: Some(heavy_stats(&self.heavy, &self.names, |_| None, top)),
            ..Snapshot::default()
        };
        s.totals.lines = self.heavy.total();
        s
    }
}

/// `merge FILES…`: the files' sketches merged, as a snapshot to report.
///
/// # Errors
/// A file that cannot be read or decoded, or does not merge, named.
pub fn merge_files(paths: &[std::path::PathBuf], top: usize) -> io::Result<Snapshot> {
    let mut merged: Option<Saved> = None;
    for path in paths {
        let saved = Saved::read(path)?;
        match merged.as_mut() {
            Some(m) => m.merge(&saved).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            })?,
            None => merged = Some(saved),
        }
    }
    let merged = merged.ok_or_else(|| io::Error::other("merge: no files given"))?;
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Ok(merged.snapshot(format!("merged: {}", names.join(" + ")), top))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::{Engine, EngineOptions};
    use crate::source::Batch;

    fn engine(lines: impl Iterator<Item = String>) -> Engine {
        let mut e = Engine::new(EngineOptions::default());
        let mut b = Batch::default();
        for l in lines {
            b.push(l.as_bytes());
        }
        e.apply(&b);
        e
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
                .map(|r| (r.line.clone(), r.estimate))
                .collect()
        };
        assert_eq!(rows(&merged), rows(&one));
        // Garbage is refused, not a panic.
        assert!(Saved::decode(&bytes[..bytes.len() / 2]).is_err());
        assert!(Saved::decode(b"not a sketch").is_err());
    }
}
