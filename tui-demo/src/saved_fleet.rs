//! A fleet's results kept: `listen --save FILE` writes the devices' merged sketches (the merges
//! the host shows, [`Fleet::merged_rows`]) at exit and every `--save-every` seconds, and `merge A B …`
//! merges such files from other hosts with the library's merges and reports them as `listen
//! --report` reports its fleet ([`crate::saved::merge_files`] hands them here).
//!
//! The container is a run's saved file's ([`crate::saved`]): wire-format sketches back to back,
//! one JSON object, and the `crc32 XXXXXXXX` line, so a damaged file is refused the same way. The
//! sketches, always all five and in this order (an empty one for a kind no device sent): the
//! count-min sketch ([`DeviceFreq`], first: a run's file starts with its HyperLogLog, which is how
//! the two kinds are told apart before decoding), the dedupe filter ([`DeviceSeen`]), the distinct
//! counter ([`DeviceDistinct`]), the heavy hitters ([`DeviceTop`], over the lines' bytes) and the
//! quantile sketch ([`DeviceValues`]). The JSON object: `"kind": "devices"`, `devices` (how many),
//! `sent` (which of the five kinds any device sent: the others are not reported), `rows` (each
//! device as the host last saw it: the Devices table), and the datagrams the host refused from
//! unknown senders, the bytes it received and why it refused what it did.
//!
//! Files of other hosts merge by the library's merges (OR, adding, register max, Space-Saving's
//! merge, adding bucket counts); their rows are listed one after the other and their frames
//! added. A file whose sketches differ in parameters (they do not decode as the devices' types) or
//! seeds (the library refuses the merge) is refused with its path named, as is a run's file given
//! with a devices' file: they count different keys with different seeds.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sketch_nostd::wire::{self, SketchKind, Wire};

use crate::device::{
    DeviceDistinct, DeviceFreq, DeviceSeen, DeviceTop, DeviceValues, DEVICE_HLL_SEED, DEVICE_SEED,
};
use crate::ingest::fleet::{Fleet, Frames, Merged};
use crate::saved::{seal, unseal, write_atomically};
use crate::snapshot::{DeviceRow, Snapshot};

/// The JSON object's `kind` in a devices' file.
pub const KIND: &str = "devices";

/// A host's fleet as `listen --save` keeps it: the merged sketches, the devices' rows, the frames.
#[derive(Clone, Debug, Default)]
pub struct SavedFleet {
    /// The devices' sketches merged, each kind once a device sent one.
    pub sketches: Merged,
    /// One row per device, as the host last saw it (`last_seen` as of the save).
    pub rows: Vec<DeviceRow>,
    /// What else the host received.
    pub frames: Frames,
}

/// Which kinds of sketch any device sent (the file holds an empty one of the others).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Sent {
    seen: bool,
    freq: bool,
    distinct: bool,
    top: bool,
    values: bool,
}

/// A device's row in the JSON object ([`DeviceRow`]; `last_seen` in nanoseconds, the estimates as
/// [`exact`] strings, so that a row reads back as it was written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Row {
    id: u64,
    addr: String,
    last_seen_ns: u64,
    ok: u64,
    bad: u64,
    lost: u64,
    /// Absent in files written before it was kept.
    #[serde(default)]
    repeated: u64,
    bytes: u64,
    #[serde(with = "exact")]
    held: Option<f64>,
    lines: Option<u64>,
    #[serde(with = "exact")]
    distinct: Option<f64>,
    /// Absent in files written before it was kept.
    #[serde(default)]
    shared: bool,
}

/// An estimate as a decimal string (Rust's shortest that reads back the same), read back by Rust:
/// serde_json's own parsing of a JSON number can be one unit in the last place off (exact only
/// with its `float_roundtrip` feature, which would also slow the parsing of JSON logs).
mod exact {
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        v.map(|x| x.to_string()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|t| match t.parse::<f64>() {
                // An estimate is a count: never negative, NaN or infinite.
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(D::Error::custom(format!("{t:?} is not an estimate"))),
            })
            .transpose()
    }
}

/// The JSON object after the sketches.
#[derive(Serialize, Deserialize)]
struct Meta {
    /// [`KIND`].
    kind: String,
    /// Devices heard from: the rows.
    devices: usize,
    sent: Sent,
    rows: Vec<Row>,
    unattributed_bad: u64,
    bytes: u64,
    errors: BTreeMap<String, u64>,
}

impl SavedFleet {
    /// The fleet's merged sketches and rows as of `now`.
    #[must_use]
    pub fn of(fleet: &Fleet, now: Instant) -> Self {
        let (sketches, rows) = fleet.merged_rows(now);
        Self {
            sketches,
            rows,
            frames: fleet.frames(),
        }
    }

    /// The file's bytes.
    ///
    /// # Errors
    /// An encoding error (none is expected: the buffer is sized for the largest sketches).
    pub fn encode(&self) -> io::Result<Vec<u8>> {
        let m = &self.sketches;
        let mut buf = vec![
            0u8;
            DeviceFreq::MAX_ENCODED_LEN
                + DeviceSeen::MAX_ENCODED_LEN
                + DeviceDistinct::MAX_ENCODED_LEN
                + DeviceTop::MAX_ENCODED_LEN
                + DeviceValues::MAX_ENCODED_LEN
        ];
        let mut end = 0;
        let mut put = |sketch: &dyn Fn(&mut [u8]) -> Result<usize, sketch_nostd::WireError>,
                       what: &str|
         -> io::Result<()> {
            end += sketch(buf.get_mut(end..).unwrap_or_default())
                .map_err(|e| io::Error::other(format!("encoding {what}: {e}")))?;
            Ok(())
        };
        // A kind no device sent is written empty (with the devices' seed), and `sent` says so.
        put(
            &|b| encode_or(m.freq.as_deref(), || DeviceFreq::with_seed(DEVICE_SEED), b),
            "the count-min sketch",
        )?;
        put(
            &|b| encode_or(m.seen.as_deref(), || DeviceSeen::with_seed(DEVICE_SEED), b),
            "the dedupe filter",
        )?;
        put(
            &|b| {
                encode_or(
                    m.distinct.as_deref(),
                    || DeviceDistinct::with_seed(DEVICE_HLL_SEED),
                    b,
                )
            },
            "the distinct counter",
        )?;
        put(
            &|b| encode_or(m.top.as_deref(), DeviceTop::new, b),
            "the heavy hitters",
        )?;
        put(
            &|b| encode_or(m.values.as_deref(), DeviceValues::new, b),
            "the quantiles",
        )?;
        buf.truncate(end);
        let meta = Meta {
            kind: KIND.into(),
            devices: self.rows.len(),
            sent: Sent {
                seen: m.seen.is_some(),
                freq: m.freq.is_some(),
                distinct: m.distinct.is_some(),
                top: m.top.is_some(),
                values: m.values.is_some(),
            },
            rows: self.rows.iter().map(Row::of).collect(),
            unattributed_bad: self.frames.unattributed_bad,
            bytes: self.frames.bytes,
            errors: self.frames.errors.iter().cloned().collect(),
        };
        serde_json::to_writer(&mut buf, &meta)?;
        seal(&mut buf);
        Ok(buf)
    }

    /// Reads a file's bytes.
    ///
    /// # Errors
    /// Why the bytes are not a devices' file.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let (body, checked) = unseal(bytes)?;
        if !checked {
            // Devices' files were written with it from the start: it was cut off.
            return Err("damaged: its checksum line is missing".into());
        }
        let (freq, rest) =
            wire::take::<DeviceFreq>(body).map_err(|e| format!("the count-min sketch: {e}"))?;
        let (seen, rest) =
            wire::take::<DeviceSeen>(rest).map_err(|e| format!("the dedupe filter: {e}"))?;
        let (distinct, rest) =
            wire::take::<DeviceDistinct>(rest).map_err(|e| format!("the distinct counter: {e}"))?;
        let (top, rest) =
            wire::take::<DeviceTop>(rest).map_err(|e| format!("the heavy hitters: {e}"))?;
        let (values, rest) =
            wire::take::<DeviceValues>(rest).map_err(|e| format!("the quantiles: {e}"))?;
        let meta: Meta = serde_json::from_slice(rest)
            .map_err(|e| format!("the description after the sketches: {e}"))?;
        if meta.kind != KIND {
            return Err(format!(
                "its kind is {:?}, not {KIND:?}: not a devices' file",
                meta.kind
            ));
        }
        if meta.devices != meta.rows.len() {
            return Err(format!(
                "it says {} devices and lists {}",
                meta.devices,
                meta.rows.len()
            ));
        }
        let rows = meta.rows.into_iter().map(Row::into_row).collect();
        let s = meta.sent;
        Ok(Self {
            sketches: Merged {
                seen: s.seen.then(|| Box::new(seen)),
                freq: s.freq.then(|| Box::new(freq)),
                distinct: s.distinct.then(|| Box::new(distinct)),
                top: s.top.then(|| Box::new(top)),
                values: s.values.then(|| Box::new(values)),
            },
            rows,
            frames: Frames {
                unattributed_bad: meta.unattributed_bad,
                bytes: meta.bytes,
                errors: meta.errors.into_iter().collect(),
            },
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
        let bytes = std::fs::read(path).map_err(|e| named(path, e))?;
        Self::decode(&bytes).map_err(|e| named(path, io::Error::new(io::ErrorKind::InvalidData, e)))
    }

    /// Adds another host's fleet: its sketches with the library's merges, its rows after these,
    /// its frames added.
    ///
    /// # Errors
    /// The library's refusal (sketches hashed with different seeds), naming the sketch.
    pub fn merge(&mut self, other: &Self) -> Result<(), String> {
        // Quantiles over only some of the devices' lines describe none of them well (as a run's
        // files with and without quantiles do not merge); a host that heard nothing merges with
        // anything.
        let (ours, theirs) = (&self.sketches, &other.sketches);
        if ours.freq.is_some()
            && theirs.freq.is_some()
            && ours.values.is_some() != theirs.values.is_some()
        {
            // Said of the file being merged, which the error names (it always read "only one of
            // the two hosts' …", naming the second file whichever had them).
            let (its, before) = if theirs.values.is_some() {
                ("sent quantiles", "sent none")
            } else {
                ("sent no quantiles", "did")
            };
            return Err(format!(
                "its devices {its}, those of the files before it {before}: merged, the quantiles \
                 would describe only some of the lines"
            ));
        }
        self.sketches.merge(&other.sketches)?;
        self.rows.extend(other.rows.iter().cloned());
        let f = &mut self.frames;
        f.unattributed_bad = f
            .unattributed_bad
            .saturating_add(other.frames.unattributed_bad);
        f.bytes = f.bytes.saturating_add(other.frames.bytes);
        let mut errors: BTreeMap<String, u64> = std::mem::take(&mut f.errors).into_iter().collect();
        for (why, n) in &other.frames.errors {
            let e = errors.entry(why.clone()).or_default();
            *e = e.saturating_add(*n);
        }
        f.errors = errors.into_iter().collect();
        Ok(())
    }

    /// A report of the fleet as `listen --report` gives it, from the sketches alone (no time,
    /// no rates), with `top` heavy hitters.
    #[must_use]
    pub fn snapshot(&self, source: String, top: usize) -> Snapshot {
        let mut s = Snapshot {
            source,
            sketches_only: true,
            finished: Some(None),
            ..Snapshot::default()
        };
        self.sketches
            .stats(self.rows.clone(), self.frames.clone(), top)
            .fill(&mut s);
        s
    }
}

/// Encodes `sketch`, or the empty one `empty` makes, into `buf`; the bytes written.
fn encode_or<T: Wire>(
    sketch: Option<&T>,
    empty: impl FnOnce() -> T,
    buf: &mut [u8],
) -> Result<usize, sketch_nostd::WireError> {
    match sketch {
        Some(s) => wire::encode(s, buf).map(|b| b.len()),
        None => wire::encode(&empty(), buf).map(|b| b.len()),
    }
}

impl Row {
    fn of(r: &DeviceRow) -> Self {
        Self {
            id: r.id,
            addr: r.addr.clone(),
            last_seen_ns: u64::try_from(r.last_seen.as_nanos()).unwrap_or(u64::MAX),
            ok: r.ok,
            bad: r.bad,
            lost: r.lost,
            repeated: r.repeated,
            bytes: r.bytes,
            held: r.held,
            lines: r.lines,
            distinct: r.distinct,
            shared: r.shared,
        }
    }

    fn into_row(self) -> DeviceRow {
        DeviceRow {
            id: self.id,
            addr: self.addr,
            last_seen: Duration::from_nanos(self.last_seen_ns),
            ok: self.ok,
            bad: self.bad,
            lost: self.lost,
            repeated: self.repeated,
            bytes: self.bytes,
            held: self.held,
            lines: self.lines,
            distinct: self.distinct,
            shared: self.shared,
        }
    }
}

/// An I/O error with the path in front.
fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// What a file is, told by its first sketch once its checksum holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `listen --save`: it starts with the count-min sketch.
    Devices,
    /// A run over lines (`live`, `report`): it starts with the distinct counter.
    Lines,
    /// Neither, or damaged: its decoder says why.
    Unknown,
}

impl Kind {
    fn of(bytes: &[u8]) -> Self {
        let Ok((body, _)) = unseal(bytes) else {
            return Self::Unknown;
        };
        match wire::peek(body).map(|h| h.kind) {
            Ok(SketchKind::CountMin) => Self::Devices,
            Ok(SketchKind::HyperLogLog) => Self::Lines,
            _ => Self::Unknown,
        }
    }
}

/// Whether `merge`'s files (each path with its bytes) are devices' files (`listen --save`) rather
/// than runs' over lines.
///
/// # Errors
/// Files of both kinds: they count different keys (a device's whole
/// lines, a run's line hashes or fields) with different seeds, so nothing of them merges.
pub(crate) fn of_devices(files: &[(&Path, Vec<u8>)]) -> io::Result<bool> {
    let (mut devices, mut lines): (Option<&Path>, Option<&Path>) = (None, None);
    for &(path, ref bytes) in files {
        let (this, other) = match Kind::of(bytes) {
            Kind::Devices => (
                ("a devices' file (listen --save)", &mut devices),
                ("a run's file over lines (live or report --save)", lines),
            ),
            Kind::Lines => (
                (
                    "a run's file over lines (live or report --save)",
                    &mut lines,
                ),
                ("a devices' file (listen --save)", devices),
            ),
            Kind::Unknown => continue,
        };
        this.1.get_or_insert(path);
        // The first file of the other kind and this one, the first file of its kind after it.
        if let Some(before) = other.1 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "{}: {} does not merge with {}, {}: they count different keys with different \
                     seeds; merge files of one kind",
                    path.display(),
                    this.0,
                    before.display(),
                    other.0
                ),
            ));
        }
    }
    Ok(devices.is_some())
}

/// `merge FILES…` of devices' files: their fleets merged, as a snapshot to report.
///
/// # Errors
/// A file that cannot be read or decoded, or does not merge, named.
pub(crate) fn merge_files(
    paths: &[PathBuf],
    files: &[(&Path, Vec<u8>)],
    top: usize,
) -> io::Result<Snapshot> {
    let merged = crate::saved::merge_all(files, SavedFleet::decode, SavedFleet::merge)?;
    let detail = format!(
        " · devices' sketches (listen --save) of {} devices",
        merged.rows.len()
    );
    Ok(merged.snapshot(crate::saved::merged_source(paths, &detail), top))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::SimDevice;
    use crate::source::synthetic::Generator;
    use sketch_nostd::wire::Wire;

    /// A host that heard devices `ids` of a fleet whose logs are seeded with `seed`, each after
    /// `lines` lines (one send each), all at `now`.
    fn fleet(ids: std::ops::RangeInclusive<u64>, seed: u64, lines: u64, now: Instant) -> Fleet {
        let mut f = Fleet::new();
        hear(&mut f, ids, seed, lines, now);
        f
    }

    /// `f` hears devices `ids` as [`fleet`] does.
    fn hear(
        f: &mut Fleet,
        ids: std::ops::RangeInclusive<u64>,
        seed: u64,
        lines: u64,
        now: Instant,
    ) {
        let base = Generator::new(seed);
        for id in ids {
            let mut d = SimDevice::new(id, seed, &base).with_value_field(9);
            d.count_lines(lines, |_| {});
            let from = format!("127.0.0.1:{}", 40_000 + id).parse().unwrap();
            for frame in d.frames() {
                f.datagram(from, &mut frame.unwrap(), now);
            }
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tui-demo-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The sketches of two fleets are equal, kind by kind.
    fn assert_same(a: &Merged, b: &Merged) {
        assert!(a.seen == b.seen, "dedupe filters");
        assert!(a.freq == b.freq, "count-min sketches");
        assert!(a.distinct == b.distinct, "distinct counters");
        assert!(a.top == b.top, "heavy hitters");
        assert!(a.values == b.values, "quantiles");
    }

    #[test]
    fn a_fleet_file_round_trips() {
        let now = Instant::now();
        let mut f = fleet(1..=3, 1, 2_000, now);
        // A datagram from a stranger: refused, and kept in the frames.
        f.datagram("127.0.0.1:1".parse().unwrap(), &mut [1, 2, 3], now);
        let saved = SavedFleet::of(&f, now);
        assert!(saved.sketches.values.is_some() && saved.frames.unattributed_bad == 1);
        let bytes = saved.encode().unwrap();
        assert_eq!(Kind::of(&bytes), Kind::Devices);
        let back = SavedFleet::decode(&bytes).unwrap();
        assert_same(&back.sketches, &saved.sketches);
        assert_eq!(back.rows, saved.rows);
        assert_eq!(back.frames, saved.frames);
        // Reported from the file, the fleet is the host's own report (but for the time).
        let from_file = back.snapshot("s".into(), 10);
        let mut live = Snapshot {
            source: "s".into(),
            sketches_only: true,
            finished: Some(None),
            ..Snapshot::default()
        };
        f.stats(now).fill(&mut live);
        assert_eq!(from_file, live);
        assert_eq!(
            from_file.totals.lines,
            3 * 5 + 1,
            "datagrams, as listen counts"
        );

        // A host that heard no device: empty sketches, none reported.
        let empty = SavedFleet::of(&Fleet::new(), now);
        let back = SavedFleet::decode(&empty.encode().unwrap()).unwrap();
        assert_same(&back.sketches, &Merged::default());
        let s = back.snapshot("s".into(), 10);
        assert!(s.distinct.is_none() && s.heavy.is_none() && s.quantiles.is_none());
        assert_eq!(s.devices.map(|d| d.rows.len()), Some(0));
    }

    #[test]
    fn every_changed_byte_of_a_fleet_file_is_refused_and_no_bytes_panic() {
        let now = Instant::now();
        let bytes = SavedFleet::of(&fleet(1..=2, 1, 40, now), now)
            .encode()
            .unwrap();
        for i in 0..bytes.len() {
            for flip in [0x01, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                assert!(
                    SavedFleet::decode(&bad).is_err(),
                    "byte {i} ^ {flip:#x} accepted"
                );
            }
        }
        let trailer = 16;
        let err = SavedFleet::decode(&bytes[..bytes.len() - trailer]).unwrap_err();
        assert!(err.contains("checksum line is missing"), "{err}");
        for cut in 1..=2 {
            let err = SavedFleet::decode(&bytes[..bytes.len() - cut]).unwrap_err();
            assert!(err.contains("cut short"), "{err}");
        }
        // Bytes that pass the checksum but are not a devices' file: refused, never a panic. Every
        // cut of the body, sealed again; garbage; a run's JSON object after the sketches.
        let (body, _) = unseal(&bytes).unwrap();
        for end in (0..body.len()).step_by(7) {
            let mut cut = body[..end].to_vec();
            seal(&mut cut);
            assert!(SavedFleet::decode(&cut).is_err(), "cut at {end} accepted");
        }
        for garbage in [&b""[..], b"SK", b"not a sketch", b"{}\ncrc32 00000000\n"] {
            assert!(SavedFleet::decode(garbage).is_err());
        }
        // An empty file says so, as a run's does (it read "its checksum line is missing").
        for err in [
            SavedFleet::decode(b"").unwrap_err(),
            crate::saved::Saved::decode(b"").unwrap_err(),
        ] {
            assert_eq!(err, "empty: not a file written by --save");
        }
        let json = body
            .windows(8)
            .position(|w| w == b"{\"kind\":")
            .expect("the JSON object");
        let mut other = body[..json].to_vec();
        let meta = String::from_utf8(body[json..].to_vec()).unwrap();
        other.extend_from_slice(
            meta.replacen(r#""kind":"devices""#, r#""kind":"lines""#, 1)
                .as_bytes(),
        );
        seal(&mut other);
        let err = SavedFleet::decode(&other).unwrap_err();
        assert!(err.contains("not a devices' file"), "{err}");
    }

    #[test]
    fn fleet_files_merge_as_the_library_merges_their_sketches() {
        let now = Instant::now();
        // Two hosts: devices 1-3 of a fleet seeded 1, devices 11-12 of one seeded 2.
        let (fa, fb) = (fleet(1..=3, 1, 3_000, now), fleet(11..=12, 2, 2_000, now));
        let (a, b) = (SavedFleet::of(&fa, now), SavedFleet::of(&fb, now));
        let dir = temp_dir("fleet-merge");
        let (pa, pb) = (dir.join("a.sk"), dir.join("b.sk"));
        a.write(&pa).unwrap();
        b.write(&pb).unwrap();
        let mut m = SavedFleet::read(&pa).unwrap();
        m.merge(&SavedFleet::read(&pb).unwrap()).unwrap();

        // Kind by kind, the library's merges of the two hosts' sketches.
        let (sa, sb) = (&a.sketches, &b.sketches);
        let by_hand = |x: &Merged| -> Merged {
            let mut seen = sa.seen.clone().unwrap();
            seen.merge(x.seen.as_deref().unwrap()).unwrap();
            let mut freq = sa.freq.clone().unwrap();
            freq.merge(x.freq.as_deref().unwrap()).unwrap();
            let mut distinct = sa.distinct.clone().unwrap();
            distinct.merge(x.distinct.as_deref().unwrap()).unwrap();
            let mut top = sa.top.clone().unwrap();
            top.merge(x.top.as_deref().unwrap()).unwrap();
            let mut values = sa.values.clone().unwrap();
            values.merge(x.values.as_deref().unwrap()).unwrap();
            Merged {
                seen: Some(seen),
                freq: Some(freq),
                distinct: Some(distinct),
                top: Some(top),
                values: Some(values),
            }
        };
        assert_same(&m.sketches, &by_hand(sb));
        // The exact merges (OR, adding, register max, bucket counts) equal one host's that heard
        // all five devices (Space-Saving's merge is not associative: only its guarantee holds).
        let mut all = fa.clone();
        hear(&mut all, 11..=12, 2, 2_000, now);
        let one = all.merged_rows(now).0;
        assert!(m.sketches.seen == one.seen && m.sketches.freq == one.freq);
        assert!(m.sketches.distinct == one.distinct && m.sketches.values == one.values);

        // `merge A B`: the same figures, the rows of both hosts, the frames added.
        let s = crate::saved::merge_files(&[pa.clone(), pb.clone()], 10).unwrap();
        let d = s.devices.clone().unwrap();
        assert_eq!(d.rows.len(), 5);
        assert_eq!(s.totals.lines, 5 * 5, "datagrams of both hosts");
        assert_eq!(d.lines_merged, 3 * 3_000 + 2 * 2_000);
        assert_eq!(
            s.distinct.as_ref().unwrap().estimate,
            m.sketches.distinct.as_ref().unwrap().cardinality()
        );
        assert_eq!(s.quantiles.as_ref().unwrap().count, d.lines_merged);
        assert!(s.source.contains("of 5 devices"), "{}", s.source);
        assert!(s.sketches_only && !s.source.contains("more than once"));
        let twice = crate::saved::merge_files(&[pa.clone(), pa.clone()], 10).unwrap();
        assert!(twice.source.contains("given more than once"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_run_file_and_a_fleet_file_or_other_seeds_and_parameters_are_refused() {
        let now = Instant::now();
        let dir = temp_dir("fleet-mixed");
        let (run, devices) = (dir.join("run.sk"), dir.join("devices.sk"));
        let mut engine = crate::ingest::Engine::new(crate::ingest::EngineOptions::default());
        let mut batch = crate::source::Batch::default();
        batch.push(b"GET / 200");
        engine.apply(&batch);
        engine.saved().write(&run).unwrap();
        let saved = SavedFleet::of(&fleet(1..=2, 1, 100, now), now);
        saved.write(&devices).unwrap();
        for pair in [
            [run.clone(), devices.clone()],
            [devices.clone(), run.clone()],
        ] {
            let err = crate::saved::merge_files(&pair, 10)
                .unwrap_err()
                .to_string();
            for needle in [
                &pair[0].display().to_string(),
                &pair[1].display().to_string(),
                "a devices' file",
                "a run's file over lines",
                "different seeds",
            ] {
                assert!(err.contains(needle), "{needle:?} in {err}");
            }
        }
        // A run's files still merge as before, a file that is neither is named by its decoder.
        assert!(crate::saved::merge_files(&[run.clone(), run.clone()], 10).is_ok());
        let junk = dir.join("junk");
        std::fs::write(&junk, b"junk").unwrap();
        let err = crate::saved::merge_files(&[devices.clone(), junk.clone()], 10)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with(&junk.display().to_string()), "{err}");

        // Another seed: the library refuses the merge, and the file is named.
        let mut other = saved.clone();
        let mut seen = DeviceSeen::with_seed(7);
        seen.insert("x");
        other.sketches.seen = Some(Box::new(seen));
        let seeded = dir.join("seed7.sk");
        other.write(&seeded).unwrap();
        let err = crate::saved::merge_files(&[devices.clone(), seeded.clone()], 10)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&seeded.display().to_string())
                && err.contains("the dedupe filters do not merge")
                && err.contains("different seeds"),
            "{err}"
        );
        // Other parameters (a count-min of another width): the sketch does not decode.
        let file = std::fs::read(&devices).unwrap();
        let (body, _) = unseal(&file).unwrap();
        let rest = body
            .get(wire::encoded_len(saved.sketches.freq.as_deref().unwrap())..)
            .unwrap();
        type Wider = sketch_nostd::CountMin<
            { sketch_nostd::sizing::cm_width(0.005) },
            { sketch_nostd::sizing::cm_depth(0.01) },
            u32,
        >;
        let mut buf = vec![0u8; Wider::MAX_ENCODED_LEN];
        let mut bytes = wire::encode(&Wider::with_seed(DEVICE_SEED), &mut buf)
            .unwrap()
            .to_vec();
        bytes.extend_from_slice(rest);
        seal(&mut bytes);
        let wider = dir.join("wider.sk");
        std::fs::write(&wider, bytes).unwrap();
        let err = crate::saved::merge_files(&[devices, wider.clone()], 10)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&wider.display().to_string()) && err.contains("the count-min sketch"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn quantiles_of_only_some_hosts_and_crafted_rows_are_refused_or_bounded() {
        // Found by a user test: a host whose devices sent quantiles merged with one whose did not
        // (a run's files are refused so); rows with counts near 2^64 wrapped the sums (a panic
        // with overflow checks), and an estimate "NaN" was read.
        let now = Instant::now();
        let mut with = SavedFleet::of(&fleet(1..=2, 1, 100, now), now);
        let mut without = with.clone();
        without.sketches.values = None;
        let err = with.clone().merge(&without).unwrap_err();
        assert!(
            err.starts_with("its devices sent no quantiles, those of the files before it did"),
            "{err}"
        );
        let err = without.clone().merge(&with).unwrap_err();
        assert!(
            err.starts_with("its devices sent quantiles, those of the files before it sent none"),
            "{err}"
        );
        // A host that heard nothing merges with either.
        let mut nothing = SavedFleet::default();
        assert!(nothing.merge(&without).is_ok() && with.merge(&SavedFleet::default()).is_ok());

        for r in &mut with.rows {
            (r.ok, r.bad, r.lost) = (u64::MAX, u64::MAX, u64::MAX);
        }
        let s = with.snapshot(String::new(), 10);
        let d = s.devices.expect("devices");
        assert_eq!((d.ok, d.bad, d.lost), (u64::MAX, u64::MAX, u64::MAX));

        // An estimate is a finite count: "NaN", "inf" and "-1" are refused, "12.5" is read.
        let row = serde_json::to_value(Row::of(&with.rows[0])).unwrap();
        for (held, ok) in [
            ("NaN", false),
            ("inf", false),
            ("-1", false),
            ("12.5", true),
        ] {
            let mut r = row.clone();
            r["held"] = held.into();
            assert_eq!(serde_json::from_value::<Row>(r).is_ok(), ok, "{held}");
        }
    }
}
