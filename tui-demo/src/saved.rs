//! Keeping the results: `--save FILE` writes the sketches in the library's wire format (at exit and
//! every `--save-every` seconds), and `merge A B …` merges saved files — from other runs, hosts or
//! devices — with the library's own merges and reports them. Sketches are the unit of exchange.
//!
//! A file holds, back to back: the distinct counter ([`Distinct`], HyperLogLog p = 14), the
//! heavy-hitter summary ([`Heavy`], Space-Saving over line hashes) and, with `--value-field` or
//! `--value-json`, the field's quantile sketch ([`Values`]), each as a wire-format sketch (magic
//! `SK`, version, kind, parameters, seed, body); then one JSON object: `names`, mapping the listed
//! line hashes (decimal strings) to their text (for display only), and `values`, which field the
//! quantile sketch is of and how many lines had no number there (`null` without one). A file whose
//! sketches do not decode, or whose parameters or seeds differ from another's, is refused with its
//! path named; so are files whose quantiles are of different fields, or that have quantiles while
//! another has none (a merge would describe only some of the lines). Files written before the
//! quantile sketch was saved (the JSON object is the `names` map itself) are still read.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sketch_nostd::wire::{self, Wire};

use crate::ingest::engine::{heavy_stats, hll_stats, Distinct, Heavy};
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
#[derive(Serialize, Deserialize)]
struct Meta<N> {
    names: N,
    values: Option<ValuesMeta>,
}

/// The sketches a run keeps.
#[derive(Clone, Debug)]
pub struct Saved {
    /// Distinct lines.
    pub distinct: Box<Distinct>,
    /// Heavy hitters, keyed by line hash.
    pub heavy: Box<Heavy>,
    /// The text of lines the summary may list, by hash (display only).
    pub names: crate::ingest::ring::Names,
    /// `--value-field` / `--value-json`: the field's quantiles.
    pub values: Option<SavedValues>,
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
        let names: HashMap<String, &String> =
            self.names.iter().map(|(k, v)| (k.to_string(), v)).collect();
        let meta = Meta {
            names,
            values: self.values.as_ref().map(|v| ValuesMeta {
                field: v.field,
                json: v.json.clone(),
                missing: v.missing,
            }),
        };
        serde_json::to_writer(&mut buf, &meta)?;
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
        // A quantile sketch starts with the wire format's magic; the JSON object with `{`.
        let (sketch, rest) = if rest.starts_with(b"SK") {
            let (q, rest) =
                wire::take::<Values>(rest).map_err(|e| format!("the quantiles: {e}"))?;
            (Some(Box::new(q)), rest)
        } else {
            (None, rest)
        };
        let meta: Meta<HashMap<String, String>> = if rest.is_empty() {
            Meta {
                names: HashMap::new(),
                values: None,
            }
        } else {
            serde_json::from_slice(rest).or_else(|e| {
                // Before the quantiles were saved, the object was the names map itself.
                serde_json::from_slice(rest)
                    .map(|names| Meta {
                        names,
                        values: None,
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
        let names = meta
            .names
            .into_iter()
            .filter_map(|(k, v)| Some((k.parse().ok()?, v)))
            .collect();
        Ok(Self {
            distinct: Box::new(distinct),
            heavy: Box::new(heavy),
            names,
            values,
        })
    }

    /// Writes the file: to a temporary file beside it, then renamed, so a reader never sees half.
    ///
    /// # Errors
    /// I/O errors, with the path.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let bytes = self.encode().map_err(named)?;
        let tmp = temporary(path);
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
            sketches_only: true,
            finished: Some(None),
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
        s.totals.lines = self.heavy.total();
        s
    }
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
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)
        .map_err(named)?;
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
                .map(|r| (r.line.clone(), r.estimate))
                .collect()
        };
        assert_eq!(rows(&merged), rows(&one));
        // Garbage is refused, not a panic.
        assert!(Saved::decode(&bytes[..bytes.len() / 2]).is_err());
        assert!(Saved::decode(b"not a sketch").is_err());
        // No quantiles were asked for: none saved.
        assert!(sa.values.is_none() && merged.quantiles.is_none());
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
        let names: HashMap<String, &String> =
            none.names.iter().map(|(k, v)| (k.to_string(), v)).collect();
        serde_json::to_writer(&mut old, &names).unwrap();
        let read = Saved::decode(&old).unwrap();
        assert!(read.values.is_none());
        assert_eq!(read.names, none.names);
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
