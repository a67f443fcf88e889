//! Device mode on the host: frames from many devices, checked, kept per device, merged.
//!
//! Each device sends its sketches periodically, each in a [`Frame`](sketch_nostd::wire::Frame) (device id, sequence number,
//! sketch, CRC-32, COBS). The host keeps the latest sketch of each kind per device (and, over a
//! device's restarts, its earlier runs' last sketches merged) and merges them:
//! Bloom filters by OR, count-min sketches by adding, HyperLogLogs by register max, and Space-Saving
//! heavy-hitter summaries by the mergeable-summaries rule (whose result depends only on the
//! summaries' contents, so the host lists the same keys whatever order frames arrive in). A datagram that fails any check (framing, CRC, envelope, parameters, seed)
//! is counted against its sender, if the sender's address is known, and dropped; nothing a device
//! sends can stop the host.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::Instant;

use sketch_nostd::wire::{RawFrame, SketchKind};
use sketch_nostd::WireError;

use crate::human::KeyText;
use crate::ingest::engine::hll_stats;
use crate::ingest::ring::merged as merge_all;
use crate::snapshot::{
    DeviceRow, DistinctStats, FleetStats, HeavyRow, HeavyStats, RegisterStats, Snapshot,
};

pub use crate::device::*;

/// Heavy hitters shown in device mode.
pub const SHOWN_TOP: usize = 10;
/// Characters of a heavy line shown.
const SHOWN_CHARS: usize = 200;

/// A sketch a device sends, decoded.
#[derive(Clone, Debug)]
pub enum DeviceSketch {
    /// Its dedupe filter.
    Seen(Box<DeviceSeen>),
    /// Its frequency sketch.
    Freq(Box<DeviceFreq>),
    /// Its distinct counter.
    Distinct(Box<DeviceDistinct>),
    /// Its heavy hitters.
    Top(Box<DeviceTop>),
    /// Its quantile sketch (`emit --value-field N`).
    Values(Box<DeviceValues>),
}

/// What the host keeps about one device.
#[derive(Clone, Debug)]
struct Device {
    addr: SocketAddr,
    last_seen: Instant,
    ok: u64,
    bad: u64,
    lost: u64,
    /// Datagrams that repeated one already taken (the same bytes): not counted as frames.
    repeated: u64,
    /// The highest sequence number heard since the device last started.
    last_seq: Option<u32>,
    /// The first number heard since the device last started: numbers between it and `last_seq`
    /// that never came are counted lost.
    first_seq: u32,
    /// The frames heard lately, by number modulo [`HEARD`]: the number and a digest of the
    /// datagram. A frame behind the latest whose number was not heard is a late one (counted lost
    /// when later ones came, and taken off now); one whose number was heard with the same bytes is
    /// a repeat; with other bytes, the device restarted and counts from 0 again.
    heard: Box<[Option<(u32, u32)>; HEARD]>,
    /// Refused frames since the last good one: they arrived, so a sequence gap they explain is
    /// not a loss.
    bad_since_ok: u64,
    bytes: u64,
    /// The sender before `addr`, and whether frames came back from it after another's
    /// ([`DeviceRow::shared`]).
    prev_addr: Option<SocketAddr>,
    shared: bool,
    /// After a restart told by a new sender: the sender before and the last number heard from
    /// it. A frame from it numbered at or below that is a late one of the run before (held up on
    /// the way, or repeated): it changes nothing (it was taken for a frame of the new run, and the
    /// run before was counted twice: a user test).
    restarted_from: Option<(SocketAddr, u32)>,
    /// The latest sketch of each kind since the device last started (each frame holds all the
    /// device counted since it started), with the frame's sequence number.
    now: Merged,
    now_seq: [Option<u32>; KINDS],
    /// What the device counted before it last restarted: its last sketches of each earlier run,
    /// merged (a restart empties a device's sketches; what the host heard of them stays counted).
    past: Option<Box<Merged>>,
}

/// Frames remembered per device ([`Device::heard`], 12 KiB): as far behind the latest as a frame
/// may arrive and still be told a late one ([`REORDER`] is one less): 1,023 frames, 12.8 s of a
/// device sending four kinds every 50 ms (with 128, one frame held up 2 s at that period read as a
/// restart: a user test).
const HEARD: usize = 1024;

/// Kinds of sketch a device sends.
const KINDS: usize = 5;

/// How a good frame relates to what was heard from its device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arrival {
    /// The same datagram again (the network repeated it): changes nothing.
    Repeat,
    /// A frame of the device's run (or its first, or a restart's).
    Frame,
}

impl Device {
    fn new(addr: SocketAddr, now: Instant) -> Self {
        Self {
            addr,
            last_seen: now,
            ok: 0,
            bad: 0,
            lost: 0,
            repeated: 0,
            last_seq: None,
            first_seq: 0,
            heard: Box::new([None; HEARD]),
            bad_since_ok: 0,
            bytes: 0,
            prev_addr: None,
            shared: false,
            restarted_from: None,
            now: Merged::default(),
            now_seq: [None; KINDS],
            past: None,
        }
    }

    /// Takes a good frame's sketch, numbered `seq`, whose datagram's digest is `digest`: a frame
    /// older than the latest of its kind (UDP reorders) is counted as received but changes
    /// nothing; a restart (the numbers start again) keeps what the device had counted before it.
    ///
    /// A frame a little behind the latest is told by what was heard under its number: nothing (a
    /// late frame: held up on its way, the first frames too; a burst of them released after
    /// newer ones was taken for a restart and counted again), the same bytes (a repeat), other
    /// bytes (a restart: its numbers came before, from the run before). From a new sender, it is
    /// a restart (a restarted process's new socket).
    fn take(&mut self, seq: u32, sketch: DeviceSketch, new_sender: bool, digest: u64) -> Arrival {
        let kind = sketch.index();
        let slot = seq as usize % HEARD;
        let heard = self
            .heard
            .get(slot)
            .copied()
            .flatten()
            .filter(|&(s, _)| s == seq)
            .map(|(_, d)| d);
        let mut seen = self.last_seq.map(|last| step(last, seq));
        let behind = self.last_seq.map_or(0, |last| last.wrapping_sub(seq));
        if matches!(seen, Some(Step::Late | Step::Restart)) && behind <= REORDER {
            seen = Some(match heard {
                _ if new_sender => Step::Restart,
                Some(d) if d == digest as u32 => {
                    self.repeated += 1;
                    return Arrival::Repeat;
                }
                Some(_) => Step::Restart,
                None => Step::Late,
            });
        }
        match seen {
            None => {
                self.last_seq = Some(seq);
                self.first_seq = seq;
            }
            Some(Step::Ahead { missed }) => {
                self.lost += missed.saturating_sub(self.bad_since_ok);
                self.last_seq = Some(seq);
            }
            Some(Step::Late) => {
                // Counted lost when a later frame came (it is after the run's first), and here
                // after all.
                let since_first = self
                    .last_seq
                    .map_or(0, |last| last.wrapping_sub(self.first_seq));
                if behind < since_first {
                    self.lost = self.lost.saturating_sub(1);
                }
            }
            Some(Step::Restart) => {
                self.restarted_from = if new_sender {
                    self.prev_addr.zip(self.last_seq)
                } else {
                    None
                };
                let before = std::mem::take(&mut self.now);
                match self.past.as_mut() {
                    // One device's sketches: the same types and seeds, so the merge cannot fail.
                    Some(past) => past.merge(&before).unwrap_or_default(),
                    None => self.past = Some(Box::new(before)),
                }
                self.now_seq = [None; KINDS];
                self.last_seq = Some(seq);
                self.first_seq = seq;
                *self.heard = [None; HEARD];
            }
        }
        if let Some(h) = self.heard.get_mut(slot) {
            *h = Some((seq, digest as u32));
        }
        self.bad_since_ok = 0;
        let newer = self
            .now_seq
            .get(kind)
            .copied()
            .flatten()
            .is_none_or(|at| matches!(step(at, seq), Step::Ahead { .. }));
        if newer {
            if let Some(at) = self.now_seq.get_mut(kind) {
                *at = Some(seq);
            }
            self.now.put(sketch);
        }
        Arrival::Frame
    }

    /// All the device counted: its sketches since it last started, merged with those of its
    /// earlier runs.
    fn sketches(&self) -> std::borrow::Cow<'_, Merged> {
        match &self.past {
            None => std::borrow::Cow::Borrowed(&self.now),
            Some(past) => {
                let mut all = Merged::clone(past);
                all.merge(&self.now).unwrap_or_default();
                std::borrow::Cow::Owned(all)
            }
        }
    }
}

/// How a device's sequence number `seq` follows the highest one heard, `last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Ahead (a count past `u32::MAX` wraps to 0 and goes on), with `missed` frames in between
    /// that never arrived.
    Ahead { missed: u64 },
    /// At or a little behind it: a frame repeated, or overtaken by later ones on the way.
    Late,
    /// Back to 0, or further back (or ahead) than a frame could be delayed or lost: the device
    /// restarted, counting from 0 again, not 2^32 − 1 frames lost.
    Restart,
}

/// The largest step ahead read as the same run of the device's: days of frames at any real rate.
const MAX_STEP: u32 = 1 << 20;
/// How far behind the latest a frame may arrive and still be a late one of the same run.
const REORDER: u32 = HEARD as u32 - 1;

fn step(last: u32, seq: u32) -> Step {
    let ahead = seq.wrapping_sub(last);
    let behind = last.wrapping_sub(seq);
    if (1..=MAX_STEP).contains(&ahead) {
        Step::Ahead {
            missed: u64::from(ahead - 1),
        }
    } else if behind <= REORDER && seq != 0 {
        Step::Late
    } else {
        Step::Restart
    }
}

impl DeviceSketch {
    /// The kind's place in [`Device::now_seq`].
    fn index(&self) -> usize {
        match self {
            Self::Seen(_) => 0,
            Self::Freq(_) => 1,
            Self::Distinct(_) => 2,
            Self::Top(_) => 3,
            Self::Values(_) => 4,
        }
    }
}

/// The fleet: every device heard from, and what went wrong.
#[derive(Clone, Debug, Default)]
pub struct Fleet {
    devices: BTreeMap<u64, Device>,
    by_addr: HashMap<SocketAddr, u64>,
    unattributed_bad: u64,
    errors: BTreeMap<&'static str, u64>,
    bytes: u64,
}

/// Why a datagram was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The wire format said no (framing, CRC, envelope, parameters, body).
    Wire(WireError),
    /// A sketch hashed with another seed: it cannot be merged.
    WrongSeed,
    /// A kind of sketch devices are not expected to send.
    UnexpectedKind,
}

impl From<WireError> for Refused {
    fn from(e: WireError) -> Self {
        Self::Wire(e)
    }
}

impl Refused {
    /// A short name, for the tally of refusals.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Wire(WireError::BadChecksum) => "bad CRC",
            Self::Wire(WireError::BadFraming) => "bad framing",
            Self::Wire(WireError::Truncated) => "truncated",
            Self::Wire(WireError::TrailingBytes) => "trailing bytes",
            Self::Wire(WireError::BadMagic) => "bad magic",
            Self::Wire(WireError::UnsupportedVersion { .. }) => "unsupported version",
            Self::Wire(WireError::UnknownKind { .. } | WireError::WrongKind { .. })
            | Self::UnexpectedKind => "unexpected kind",
            Self::Wire(WireError::WrongParameter { .. }) => "wrong parameters",
            Self::Wire(_) => "malformed",
            Self::WrongSeed => "wrong seed",
        }
    }
}

impl Fleet {
    /// An empty fleet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one datagram from `from`, received at `now`.
    pub fn datagram(&mut self, from: SocketAddr, bytes: &mut [u8], now: Instant) {
        self.bytes += bytes.len() as u64;
        let n = bytes.len() as u64;
        // The datagram as it came (decoding rewrites it in place): a repeat is told by it.
        let digest = sketch_nostd::hash::hash64(&*bytes, 0);
        match Self::decode(bytes) {
            Ok((device, seq, sketch)) => {
                self.by_addr.insert(from, device);
                let d = self
                    .devices
                    .entry(device)
                    .or_insert_with(|| Device::new(from, now));
                if d.restarted_from
                    .is_some_and(|(prev, last)| from == prev && last.wrapping_sub(seq) <= MAX_STEP)
                {
                    // A late frame of the run before the device restarted: counted as received.
                    d.last_seen = now;
                    d.bytes += n;
                    d.ok += 1;
                    return;
                }
                let moved = from != d.addr;
                if moved {
                    // Back to the sender before the last: two devices with one id take turns.
                    d.shared |= d.prev_addr == Some(from);
                    d.prev_addr = Some(d.addr);
                    d.addr = from;
                }
                d.last_seen = now;
                d.bytes += n;
                // A device that restarts sends from a new socket: a number behind the latest from
                // a new sender is a restart even when its first frames were lost (not for an id
                // two devices share, whose senders take turns).
                if d.take(seq, sketch, moved && !d.shared, digest) == Arrival::Frame {
                    d.ok += 1;
                }
            }
            Err(e) => {
                *self.errors.entry(e.name()).or_default() += 1;
                match self
                    .by_addr
                    .get(&from)
                    .and_then(|id| self.devices.get_mut(id))
                {
                    Some(d) => {
                        d.bad += 1;
                        d.bad_since_ok += 1;
                        d.bytes += n;
                    }
                    None => self.unattributed_bad += 1,
                }
            }
        }
    }

    /// Checks and decodes one frame: the device, the sequence number and the sketch it carries.
    fn decode(bytes: &mut [u8]) -> Result<(u64, u32, DeviceSketch), Refused> {
        let raw = RawFrame::decode(bytes)?;
        let header = raw.header()?;
        // Space-Saving and the quantile sketch hash nothing they send (their envelope's seed is
        // always 0, which their decoders check); every other sketch must hash with the devices'
        // seed to merge (the distinct counter with Redis's).
        let expected = match header.kind {
            SketchKind::HyperLogLog => DEVICE_HLL_SEED, // REDIS HOOK
            _ => DEVICE_SEED,
        };
        let unhashed = matches!(
            header.kind,
            SketchKind::SpaceSaving | SketchKind::QuantileSketch
        );
        if !unhashed && header.seed != expected {
            return Err(Refused::WrongSeed);
        }
        let sketch = match header.kind {
            SketchKind::SpaceSaving => {
                DeviceSketch::Top(Box::new(raw.decode_sketch::<DeviceTop>()?))
            }
            SketchKind::Bloom => DeviceSketch::Seen(Box::new(raw.decode_sketch::<DeviceSeen>()?)),
            SketchKind::CountMin => {
                DeviceSketch::Freq(Box::new(raw.decode_sketch::<DeviceFreq>()?))
            }
            SketchKind::HyperLogLog => {
                DeviceSketch::Distinct(Box::new(raw.decode_sketch::<DeviceDistinct>()?))
            }
            SketchKind::QuantileSketch => {
                DeviceSketch::Values(Box::new(raw.decode_sketch::<DeviceValues>()?))
            }
            _ => return Err(Refused::UnexpectedKind),
        };
        Ok((raw.device, raw.seq, sketch))
    }

    /// Each device's distinct counter (of all it counted, over its restarts too), by device id
    /// (for the Redis sink).
    // REDIS HOOK
    pub fn distinct_sketches(&self) -> impl Iterator<Item = (u64, Box<DeviceDistinct>)> + '_ {
        self.devices.iter().filter_map(|(&id, d)| {
            let h = match d.sketches() {
                std::borrow::Cow::Borrowed(s) => s.distinct.clone(),
                std::borrow::Cow::Owned(s) => s.distinct,
            };
            h.map(|h| (id, h))
        })
    }

    /// The figures for the UI, as of `now`.
    #[must_use]
    pub fn stats(&self, now: Instant) -> FleetStats {
        let (merged, rows) = self.merged_rows(now);
        merged.stats(rows, self.frames(), SHOWN_TOP)
    }

    /// The devices' sketches (each device's latest, merged with its earlier runs') merged, each
    /// kind once a device sent one; and one row per device, by id, as of `now`. Each device's
    /// sketches are made once for both (a copy, for a device that restarted).
    #[must_use]
    pub fn merged_rows(&self, now: Instant) -> (Merged, Vec<DeviceRow>) {
        // Bloom union, cell-wise saturating count-min sums, register-wise HLL max, Space-Saving's
        // mergeable summaries: one generic merge over the library's `Sketch` trait. Seeds and
        // parameters are checked when frames are decoded, so these merges cannot fail.
        // Each device's sketches: over its restarts too.
        let all: Vec<(u64, &Device, std::borrow::Cow<'_, Merged>)> = self
            .devices
            .iter()
            .map(|(&id, d)| (id, d, d.sketches()))
            .collect();
        let devices = || all.iter().map(|(_, _, s)| s);
        let seen: Option<DeviceSeen> =
            merge_all(devices().filter_map(|d| d.seen.as_deref())).unwrap_or_default();
        let freq: Option<DeviceFreq> =
            merge_all(devices().filter_map(|d| d.freq.as_deref())).unwrap_or_default();
        let distinct: Option<DeviceDistinct> =
            merge_all(devices().filter_map(|d| d.distinct.as_deref())).unwrap_or_default();
        let top: Option<DeviceTop> =
            merge_all(devices().filter_map(|d| d.top.as_deref())).unwrap_or_default();
        // The quantile sketches by adding bucket counts (the library's merge; not a `Sketch`, which
        // is about seeds, so merged here): decoding checked their parameters.
        let mut values: Option<DeviceValues> = None;
        for q in devices().filter_map(|d| d.values.as_deref()) {
            match values.as_mut() {
                // One type on both sides: the library's merge never refuses it.
                Some(all) => all.merge(q).unwrap_or_default(),
                None => values = Some(q.clone()),
            }
        }
        let merged = Merged {
            seen: seen.map(Box::new),
            freq: freq.map(Box::new),
            distinct: distinct.map(Box::new),
            top: top.map(Box::new),
            values: values.map(Box::new),
        };
        let rows = all
            .iter()
            .map(|(id, d, s)| DeviceRow {
                id: *id,
                addr: d.addr.to_string(),
                last_seen: now.saturating_duration_since(d.last_seen),
                ok: d.ok,
                bad: d.bad,
                lost: d.lost,
                repeated: d.repeated,
                bytes: d.bytes,
                held: s.seen.as_ref().map(|s| s.cardinality()),
                lines: s.freq.as_ref().map(|f| f.total()),
                // The estimator a merge, the fleet and Redis's PFCOUNT use (its own estimate, the
                // martingale, differed from PFCOUNT of the device's key by a few: a user test).
                distinct: s.distinct.as_ref().map(|h| h.histogram_estimate()),
                shared: d.shared,
            })
            .collect();
        (merged, rows)
    }

    /// What was received beside the devices' rows: refusals from unknown senders, bytes, why
    /// datagrams were refused.
    #[must_use]
    pub fn frames(&self) -> Frames {
        Frames {
            unattributed_bad: self.unattributed_bad,
            bytes: self.bytes,
            errors: self
                .errors
                .iter()
                .map(|(k, v)| ((*k).to_string(), *v))
                .collect(),
        }
    }
}

/// The devices' sketches merged, each kind once a device sent one: what the host shows
/// ([`Fleet::stats`]) and what `listen --save` writes ([`crate::saved_fleet`]).
#[derive(Clone, Debug, Default)]
pub struct Merged {
    /// The dedupe filters, OR-ed.
    pub seen: Option<Box<DeviceSeen>>,
    /// The count-min sketches, added.
    pub freq: Option<Box<DeviceFreq>>,
    /// The HyperLogLogs, by register max.
    pub distinct: Option<Box<DeviceDistinct>>,
    /// The heavy-hitter summaries, by Space-Saving's merge.
    pub top: Option<Box<DeviceTop>>,
    /// The quantile sketches, by adding bucket counts.
    pub values: Option<Box<DeviceValues>>,
}

/// What a host received beside its devices' rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frames {
    /// Bad datagrams from addresses no good frame came from.
    pub unattributed_bad: u64,
    /// Bytes received.
    pub bytes: u64,
    /// Why datagrams were refused, with counts, by name.
    pub errors: Vec<(String, u64)>,
}

impl Merged {
    /// Holds `sketch` as its kind's.
    fn put(&mut self, sketch: DeviceSketch) {
        match sketch {
            DeviceSketch::Seen(s) => self.seen = Some(s),
            DeviceSketch::Freq(f) => self.freq = Some(f),
            DeviceSketch::Distinct(h) => self.distinct = Some(h),
            DeviceSketch::Top(t) => self.top = Some(t),
            DeviceSketch::Values(q) => self.values = Some(q),
        }
    }

    /// Adds another fleet's merged sketches (another host's) with the library's merges; a kind
    /// only the other has is taken as it is.
    ///
    /// # Errors
    /// The library's refusal (sketches hashed with different seeds), naming the sketch.
    pub fn merge(&mut self, other: &Self) -> Result<(), String> {
        fn one<S: Clone>(
            ours: &mut Option<Box<S>>,
            theirs: Option<&S>,
            merge: impl FnOnce(&mut S, &S) -> Result<(), sketch_nostd::MergeError>,
            what: &str,
        ) -> Result<(), String> {
            match (ours.as_deref_mut(), theirs) {
                (Some(a), Some(b)) => merge(a, b).map_err(|e| format!("{what} do not merge: {e}")),
                (None, Some(b)) => {
                    *ours = Some(Box::new(b.clone()));
                    Ok(())
                }
                (_, None) => Ok(()),
            }
        }
        one(
            &mut self.seen,
            other.seen.as_deref(),
            |a, b| a.merge(b),
            "the dedupe filters",
        )?;
        one(
            &mut self.freq,
            other.freq.as_deref(),
            |a, b| a.merge(b),
            "the count-min sketches",
        )?;
        one(
            &mut self.distinct,
            other.distinct.as_deref(),
            |a, b| a.merge(b),
            "the distinct counters",
        )?;
        one(
            &mut self.top,
            other.top.as_deref(),
            |a, b| a.merge(b),
            "the heavy hitters",
        )?;
        one(
            &mut self.values,
            other.values.as_deref(),
            |a, b| a.merge(b),
            "the quantiles",
        )
    }

    /// The figures of the merged sketches beside the devices' `rows` and what else was
    /// received, with `shown` heavy hitters.
    #[must_use]
    pub fn stats(&self, rows: Vec<DeviceRow>, frames: Frames, shown: usize) -> FleetStats {
        let (merged, merged_freq) = (self.seen.as_deref(), self.freq.as_deref());
        FleetStats {
            // Saturating: the rows of saved files are read from disk.
            ok: sum(rows.iter().map(|r| r.ok)),
            bad: sum(rows.iter().map(|r| r.bad)).saturating_add(frames.unattributed_bad),
            unattributed_bad: frames.unattributed_bad,
            lost: sum(rows.iter().map(|r| r.lost)),
            repeated: sum(rows.iter().map(|r| r.repeated)),
            bytes: frames.bytes,
            errors: frames.errors,
            held_sum: rows.iter().filter_map(|r| r.held).sum(),
            held_merged: merged.map_or(0.0, DeviceSeen::cardinality),
            merged_fill: merged.map_or(0.0, DeviceSeen::fill_ratio),
            seen_bytes: std::mem::size_of::<DeviceSeen>() as u64,
            lines_merged: merged_freq.map_or(0, DeviceFreq::total),
            bound_merged: merged_freq.map_or(0, DeviceFreq::error_bound),
            freq_bytes: std::mem::size_of::<DeviceFreq>() as u64,
            distinct_bytes: std::mem::size_of::<DeviceDistinct>() as u64,
            top_bytes: std::mem::size_of::<DeviceTop>() as u64,
            heavy: self
                .top
                .as_deref()
                .map(|t| heavy_stats(t, merged_freq, shown)),
            quantiles: self
                .values
                .as_deref()
                .map(|q| crate::ingest::values::quantile_stats(q, None, 0, None)),
            merged_distinct: self.distinct.as_deref().map(|h| {
                let (mut d, r): (DistinctStats, RegisterStats) = hll_stats(h);
                d.sum_of_parts = Some(rows.iter().filter_map(|r| r.distinct).sum());
                (d, r)
            }),
            rows,
        }
    }
}

/// The sum of `counts`, stopping at `u64::MAX` rather than wrapping.
fn sum(counts: impl Iterator<Item = u64>) -> u64 {
    counts.fold(0, u64::saturating_add)
}

/// The merged heavy hitters: the top `shown` lines of the merged Space-Saving summary, each with
/// its Space-Saving bounds and the merged count-min estimate.
fn heavy_stats(top: &DeviceTop, freq: Option<&DeviceFreq>, shown: usize) -> HeavyStats {
    let (total, bound, epsilon, delta) = freq.map_or((top.total(), 0, 0.0, 0.0), |f| {
        (f.total(), f.error_bound(), f.epsilon(), f.delta())
    });
    // A row is noise if its guaranteed count is within what any line could reach: the larger of
    // the count-min's ε·N and the summary's own bound.
    let noise_at = bound.max(top.error_bound());
    // By count, not by guaranteed count as one stream's list ([`ranked`]): a merge of many
    // devices' small summaries lowers the guaranteed count of every line some device's summary
    // dropped, which the lines near the list's end mostly are (the merged top 10 of the devices
    // test held 8 of the true top 10 ranked by guaranteed count, 10 ranked by count).
    let rows = top
        .sorted()
        .iter()
        .take(shown)
        .map(|c| HeavyRow {
            key: Some(KeyText::new(c.key, false, SHOWN_CHARS)),
            // Without a count-min sketch yet, the summary's own upper bound. A device sends its
            // sketches in separate frames, so its latest count-min can be older than its latest
            // summary: a count-min estimate below the summary's guaranteed count is stale and
            // bounds nothing, and the summary's count stands.
            estimate: freq
                .map(|f| f.estimate(c.key.as_slice()))
                .filter(|&cm| cm >= c.guaranteed())
                .unwrap_or(c.count),
            exact: None,
            bounds: Some((c.guaranteed(), c.count)),
            noise: c.guaranteed() <= noise_at,
        })
        .collect();
    HeavyStats {
        rows,
        k: DEVICE_TOP_K,
        total,
        bound,
        epsilon,
        count_min: Some(crate::snapshot::CountMinStats {
            delta,
            width: DeviceFreq::WIDTH,
            depth: DeviceFreq::DEPTH,
            bytes: std::mem::size_of::<DeviceFreq>() as u64,
        }),
        topk_bytes: std::mem::size_of::<DeviceTop>() as u64,
        list: "Space-Saving",
        per_device: true,
        summary_bound: Some(top.error_bound()),
        overlong: top.overlong(),
    }
}

impl FleetStats {
    /// The warning for device ids whose frames came from two senders taking turns
    /// ([`DeviceRow::shared`]), if any: such an id's figures mix two devices'.
    #[must_use]
    pub fn shared_ids(&self) -> Option<String> {
        self.shared_id_list().map(|ids| {
            format!(
                "ids sent by two devices at once: {ids} (each device needs its own id; their \
                 figures are mixed)"
            )
        })
    }

    /// The ids of [`shared_ids`](Self::shared_ids), `1, 2`, if any.
    #[must_use]
    pub fn shared_id_list(&self) -> Option<String> {
        let ids: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.shared)
            .map(|r| r.id.to_string())
            .collect();
        (!ids.is_empty()).then(|| ids.join(", "))
    }

    /// Writes the fleet's merged view into a snapshot: datagrams are what "lines" count, the
    /// merged HyperLogLog is the distinct count, the merged heavy hitters are the heavy hitters.
    pub fn fill(self, snap: &mut Snapshot) {
        snap.totals.lines = self.ok.saturating_add(self.bad);
        snap.totals.bytes = self.bytes;
        if let Some((d, r)) = self.merged_distinct.clone() {
            snap.distinct = Some(d);
            snap.registers = Some(r);
        }
        snap.heavy.clone_from(&self.heavy);
        snap.quantiles.clone_from(&self.quantiles);
        snap.devices = Some(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sketch_nostd::wire::{Frame, Wire};

    /// The datagram of `sketch` in a frame from `device`.
    fn encoded<T: Wire>(device: u64, seq: u32, sketch: T) -> Vec<u8> {
        let mut buf = vec![0u8; Frame::<T>::MAX_ENCODED_LEN];
        let n = Frame {
            device,
            seq,
            sketch,
        }
        .encode(&mut buf)
        .unwrap()
        .len();
        buf.truncate(n);
        buf
    }

    fn frame(device: u64, seq: u32, keys: &[&str]) -> Vec<u8> {
        let mut seen = DeviceSeen::with_seed(DEVICE_SEED);
        for k in keys {
            seen.insert(*k);
        }
        encoded(device, seq, seen)
    }

    #[test]
    fn frames_are_checked_counted_and_merged() {
        let a: SocketAddr = "127.0.0.1:4001".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:4002".parse().unwrap();
        let stranger: SocketAddr = "127.0.0.1:4003".parse().unwrap();
        let now = Instant::now();
        let mut fleet = Fleet::new();
        fleet.datagram(a, &mut frame(1, 0, &["x", "y"]), now);
        fleet.datagram(b, &mut frame(2, 0, &["y", "z"]), now);
        // Device 1 skips two sequence numbers, then sends a corrupted frame.
        fleet.datagram(a, &mut frame(1, 3, &["x", "y", "w"]), now);
        let mut bad = frame(1, 4, &["x"]);
        bad[3] ^= 0x40;
        fleet.datagram(a, &mut bad, now);
        // Garbage from an unknown sender, and an empty datagram.
        fleet.datagram(stranger, &mut b"hello".to_vec(), now);
        fleet.datagram(stranger, &mut [], now);

        let s = fleet.stats(now);
        assert_eq!(s.rows.len(), 2);
        assert_eq!(
            (s.rows[0].id, s.rows[0].ok, s.rows[0].bad, s.rows[0].lost),
            (1, 2, 1, 2)
        );
        assert_eq!((s.rows[1].id, s.rows[1].ok, s.rows[1].bad), (2, 1, 0));
        assert_eq!((s.ok, s.bad, s.unattributed_bad), (3, 3, 2));
        assert_eq!(s.errors.iter().map(|(_, n)| n).sum::<u64>(), 3);
        // The merged filter holds x, y, z, w: four lines (the estimate is exact at this fill).
        assert_eq!(s.held_merged.round(), 4.0);
        assert_eq!(
            s.held_sum.round(),
            5.0,
            "3 + 2: the sum counts y twice, the merge does not"
        );
        assert_eq!(s.lines_merged, 0, "no count-min yet");

        // Count-min frames: merged by adding.
        for (device, n) in [(1u64, 30u64), (2, 12)] {
            let mut freq = DeviceFreq::with_seed(DEVICE_SEED);
            freq.add("GET /", n);
            let from = if device == 1 { a } else { b };
            fleet.datagram(from, &mut encoded(device, 10, freq), now);
        }
        let s = fleet.stats(now);
        assert_eq!((s.rows[0].lines, s.rows[1].lines), (Some(30), Some(12)));
        assert_eq!(s.lines_merged, 42);
        // Device 1 went from 3 to 10: six frames missing, one of which arrived corrupted.
        assert_eq!(s.rows[0].lost, 2 + 5);
        assert!(s.merged_distinct.is_none(), "no HyperLogLog yet");

        // HyperLogLog frames (Redis-compatible: RedisHll, sent as its Hll14): device 1 saw lines
        // 0..300, device 2 lines 200..500; merged by register max, the union (500) counts the 100
        // shared lines once. At n = 500 over 2^14 registers the estimators behave like linear
        // counting, standard error sqrt(m(e^t − t − 1))/n with t = n/m: 0.55% (2.8 lines), so
        // ±9 is over 3σ.
        for (device, range) in [(1u64, 0..300u32), (2, 200..500)] {
            let mut h = sketch_nostd::RedisHll::new();
            for i in range {
                h.insert(i.to_string().as_str());
            }
            let from = if device == 1 { a } else { b };
            fleet.datagram(from, &mut encoded(device, 11, h.as_hll14().clone()), now);
        }
        let s = fleet.stats(now);
        let (d, r) = s.merged_distinct.expect("merged HLL");
        assert!((d.estimate - 500.0).abs() < 9.0, "{}", d.estimate);
        assert!((d.sum_of_parts.unwrap() - 600.0).abs() < 12.0);
        assert_eq!(r.registers, 16_384);
        assert!((s.rows[1].distinct.unwrap() - 300.0).abs() < 6.0);
        assert_eq!(fleet.distinct_sketches().count(), 2);
    }

    #[test]
    fn a_restarted_device_loses_no_frames() {
        // Found by a user test: a device that restarted (its sequence numbers from 0 again) showed
        // 1,048,576 frames lost.
        let mut fleet = Fleet::new();
        let from = "127.0.0.1:4001".parse().unwrap();
        let now = Instant::now();
        // Its second run counts other lines under the same numbers.
        for (seq, key) in (0..6)
            .map(|s| (s, "x"))
            .chain((0..4).chain([7, 8]).map(|s| (s, "y")))
        {
            fleet.datagram(from, &mut frame(1, seq, &[key]), now);
        }
        // Two runs of the device without a gap, then 3 → 7: three frames lost.
        let row = &fleet.stats(now).rows[0];
        assert_eq!((row.ok, row.lost, row.repeated), (12, 3, 0));
        // The same datagram again (the network repeated it): a repeat, not a frame nor a restart.
        fleet.datagram(from, &mut frame(1, 8, &["y"]), now);
        fleet.datagram(from, &mut frame(1, 7, &["y"]), now);
        let s = fleet.stats(now);
        assert_eq!(
            (s.rows[0].ok, s.rows[0].lost, s.rows[0].repeated),
            (12, 3, 2)
        );
        assert_eq!((s.ok, s.repeated), (12, 2));
        // A count that wraps past u32::MAX goes on (one frame lost between MAX − 1 and 0).
        assert_eq!(step(u32::MAX - 1, 0), Step::Ahead { missed: 1 });
        assert_eq!(step(u32::MAX, 0), Step::Ahead { missed: 0 });
        assert_eq!((step(5, 5), step(70, 6)), (Step::Late, Step::Late));
        assert_eq!((step(2_000, 5), step(5, 0)), (Step::Restart, Step::Restart));
        assert_eq!(step(5, 5 + (1 << 21)), Step::Restart, "a leap");
    }

    #[test]
    fn a_restart_whose_first_frames_were_lost_is_still_one() {
        // Found by a user test: when the frame numbered 0 after a restart was refused (or lost),
        // the new run's frames read as late ones of the old run, then replaced its counts once
        // their numbers passed it (20,024 lines reported of 24,032).
        let at = |port: u16| -> SocketAddr { format!("127.0.0.1:{port}").parse().unwrap() };
        let now = Instant::now();
        let counted = |n: u64| {
            let mut f = DeviceFreq::with_seed(DEVICE_SEED);
            f.add("GET /", n);
            f
        };
        // Device 3 from port 4001: frames 0 to 40, frame `seq` having counted `seq + 1` lines.
        let fed_to_40 = || {
            let mut fleet = Fleet::new();
            for seq in 0..=40u32 {
                fleet.datagram(
                    at(4001),
                    &mut encoded(3, seq, counted(u64::from(seq) + 1)),
                    now,
                );
            }
            fleet
        };
        // A new sender (a restarted process's new socket): its first frame heard is a restart.
        let mut fleet = fed_to_40();
        for (seq, n) in [(1, 2), (2, 3), (45, 50)] {
            fleet.datagram(at(4002), &mut encoded(3, seq, counted(n)), now);
        }
        assert_eq!(fleet.stats(now).lines_merged, 41 + 50);
        // The same sender: more late frames in a row than UDP reorders are a restart too.
        let mut fleet = fed_to_40();
        for seq in 1..=12u32 {
            fleet.datagram(
                at(4001),
                &mut encoded(3, seq, counted(u64::from(seq) * 10)),
                now,
            );
        }
        assert_eq!(fleet.stats(now).lines_merged, 41 + 120);
        // Two or three frames overtaken on the way are no restart.
        let mut fleet = Fleet::new();
        for seq in [0u32, 1, 2, 5, 3, 4, 6] {
            fleet.datagram(
                at(4001),
                &mut encoded(3, seq, counted(u64::from(seq) + 1)),
                now,
            );
        }
        assert_eq!(fleet.stats(now).lines_merged, 7);
    }

    #[test]
    fn an_id_sent_by_two_devices_at_once_is_said() {
        // Found by a user test: two emitters numbering their devices alike, sending to one host,
        // showed half the devices and half the lines, without a word. Frames of one id from two
        // senders taking turns (A, B, A) say so; a restart's new sender (A, C) does not.
        let at = |port: u16| -> SocketAddr { format!("127.0.0.1:{port}").parse().unwrap() };
        let now = Instant::now();
        let mut fleet = Fleet::new();
        for (device, port, seq) in [(1, 4001, 0), (1, 4002, 0), (1, 4001, 1), (2, 4003, 0)] {
            fleet.datagram(at(port), &mut frame(device, seq, &["x"]), now);
        }
        fleet.datagram(at(4004), &mut frame(2, 0, &["y"]), now);
        let s = fleet.stats(now);
        assert_eq!(
            s.rows.iter().map(|r| (r.id, r.shared)).collect::<Vec<_>>(),
            [(1, true), (2, false)]
        );
        let warning = s.shared_ids().expect("a warning");
        assert!(
            warning.starts_with("ids sent by two devices at once: 1 ("),
            "{warning}"
        );
        let mut snap = Snapshot::default();
        s.fill(&mut snap);
        let mut table = Vec::new();
        crate::report::write_table(&snap, &mut table).unwrap();
        let table = String::from_utf8(table).unwrap();
        assert!(table.contains(&format!("warning  {warning}")), "{table}");
    }

    #[test]
    fn a_restarted_device_keeps_what_it_counted_before() {
        // Found by a user test: a device that restarted counted from 0 again, and the host,
        // keeping each device's latest sketches, dropped all it had counted before (4,006 lines
        // reported of 8,012). Its runs' last sketches are merged instead.
        let from: SocketAddr = "127.0.0.1:4001".parse().unwrap();
        let now = Instant::now();
        let counted = |n: u64| {
            let mut f = DeviceFreq::with_seed(DEVICE_SEED);
            f.add("GET /", n);
            f
        };
        let mut fleet = Fleet::new();
        // First run: 10, 20, 30 lines (cumulative); a repeated and a late frame change nothing (a
        // late frame 0 would read as a restart: a device that restarts soon after it started
        // is told only by its count going back to 0).
        for (seq, n) in [(0, 10), (1, 20), (2, 30), (2, 30), (1, 20)] {
            fleet.datagram(from, &mut encoded(7, seq, counted(n)), now);
        }
        assert_eq!(fleet.stats(now).lines_merged, 30);
        // Restarted: 5 then 12 lines. All it counted is 30 + 12.
        for (seq, n) in [(0, 5), (1, 12)] {
            fleet.datagram(from, &mut encoded(7, seq, counted(n)), now);
        }
        let s = fleet.stats(now);
        assert_eq!((s.lines_merged, s.rows[0].lines, s.lost), (42, Some(42), 0));
        // A frame overtaken by a later one of the same kind does not replace it (it had: the
        // latest to arrive was kept), while a newer frame of another kind is taken.
        fleet.datagram(from, &mut encoded(7, 3, counted(20)), now);
        fleet.datagram(from, &mut encoded(7, 2, counted(15)), now);
        assert_eq!(fleet.stats(now).lines_merged, 30 + 20);
        let mut h = sketch_nostd::RedisHll::new();
        h.insert("x");
        fleet.datagram(from, &mut encoded(7, 4, h.as_hll14().clone()), now);
        assert_eq!(fleet.distinct_sketches().count(), 1);
        // Frame 2 was counted lost when 3 came, and taken off when it arrived after all.
        assert_eq!(fleet.stats(now).rows[0].lost, 0);
    }

    #[test]
    fn frames_overtaken_on_the_way_are_neither_a_restart_nor_lost() {
        // Found by a user test: a device's frame 1 arriving before its frame 0 read as a restart
        // (the frames after it were counted again on top of frame 1's: 4,504 lines of 4,000, and
        // 4,763 with every pair of frames swapped), and every frame overtaken was counted lost.
        let from: SocketAddr = "127.0.0.1:4001".parse().unwrap();
        let now = Instant::now();
        // A device sending two kinds a period, numbered in one sequence: in period p its filter of
        // the p + 1 keys so far (frame 2p) and its count-min of 10·(p + 1) lines (frame 2p + 1).
        let sent = |seq: u32| -> Vec<u8> {
            let p = seq / 2;
            if seq.is_multiple_of(2) {
                // All it has seen so far: k0 … kp.
                let keys: Vec<String> = (0..=p).map(|i| format!("k{i}")).collect();
                frame(5, seq, &keys.iter().map(String::as_str).collect::<Vec<_>>())
            } else {
                let mut f = DeviceFreq::with_seed(DEVICE_SEED);
                f.add("GET /", 10 * u64::from(p + 1));
                encoded(5, seq, f)
            }
        };
        // (Frame 0 more than a period late, after the next frame of its own kind: found by a
        // user test, it read as a restart as well.)
        let orders: [&[u32]; 6] = [
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            &[1, 0, 2, 3, 4, 5, 6, 7, 8, 9],
            &[1, 0, 3, 2, 5, 4, 7, 6, 9, 8],
            &[0, 2, 1, 3, 4, 5, 6, 7, 8, 9],
            &[0, 1, 2, 3, 4, 5, 7, 8, 6, 9],
            &[1, 2, 3, 4, 5, 0, 6, 7, 8, 9],
        ];
        for order in orders {
            let mut fleet = Fleet::new();
            for &seq in order {
                fleet.datagram(from, &mut sent(seq), now);
            }
            let s = fleet.stats(now);
            assert_eq!(
                (s.lines_merged, s.rows[0].lost, s.rows[0].ok),
                (50, 0, 10),
                "{order:?}"
            );
            assert_eq!(s.held_merged.round(), 5.0, "{order:?}");
        }
        // A burst held up on the way and let go after newer frames (a path failing over, a radio
        // link resending): late frames, however many in a row (past eight, they read as a
        // restart, and the device's lines were counted again: 12,573 of 8,009 in a user test).
        let mut fleet = Fleet::new();
        let held: Vec<u32> = (0..10).chain(21..30).chain(10..21).collect();
        for &seq in &held {
            fleet.datagram(from, &mut sent(seq), now);
        }
        let s = fleet.stats(now);
        assert_eq!((s.lines_merged, s.rows[0].lost, s.rows[0].ok), (150, 0, 30));
        assert_eq!(s.held_merged.round(), 15.0);
        // One frame held up for 290 frames' time (2 s of a device sending every 20 ms): late
        // too (past 127 behind, it read as a restart, and the lines were counted again: 18,413
        // of 12,009 in a user test).
        let mut fleet = Fleet::new();
        let order: Vec<u32> = (0..10).chain(11..300).chain([10]).chain(300..310).collect();
        for &seq in &order {
            fleet.datagram(from, &mut sent(seq), now);
        }
        let s = fleet.stats(now);
        assert_eq!(
            (s.lines_merged, s.rows[0].lost, s.rows[0].ok),
            (1_550, 0, 310)
        );
        // A frame of the run before a restart (from its old sender) arriving after the restart,
        // repeated or held up: it changes nothing (it was taken for the new run's, and the run
        // before was counted twice: 17,805 lines of 12,053 in a user test).
        let mut fleet = Fleet::new();
        let old_run: SocketAddr = "127.0.0.1:4009".parse().unwrap();
        for seq in 0..40 {
            fleet.datagram(old_run, &mut sent(seq), now);
        }
        for seq in 0..10 {
            fleet.datagram(from, &mut sent(seq), now);
        }
        fleet.datagram(old_run, &mut sent(31), now);
        fleet.datagram(old_run, &mut sent(30), now);
        for seq in 10..12 {
            fleet.datagram(from, &mut sent(seq), now);
        }
        let s = fleet.stats(now);
        assert_eq!((s.lines_merged, s.rows[0].shared), (200 + 60, false));
        // A frame that never came is still lost.
        let mut fleet = Fleet::new();
        for seq in [1, 0, 2, 3, 5, 6, 7, 8, 9] {
            fleet.datagram(from, &mut sent(seq), now);
        }
        assert_eq!(fleet.stats(now).rows[0].lost, 1);
    }

    #[test]
    fn a_count_min_older_than_the_summary_never_makes_an_empty_bracket() {
        // The device's count-min frame says "GET /" 5 times, its later summary 40: the bracket
        // shown is the summary's [40, 40], not [40, 5] (seen in the device-mode capture as
        // "1.0k 991").
        let mut fleet = Fleet::new();
        let from = "127.0.0.1:4001".parse().unwrap();
        let mut freq = DeviceFreq::with_seed(DEVICE_SEED);
        freq.add("GET /", 5);
        fleet.datagram(from, &mut encoded(1, 0, freq), Instant::now());
        let mut top = DeviceTop::new();
        let line = DeviceLine::from_slice(b"GET /").unwrap();
        top.add(&line, 40);
        fleet.datagram(from, &mut encoded(1, 1, top), Instant::now());
        let h = fleet.stats(Instant::now()).heavy.expect("heavy hitters");
        let r = &h.rows[0];
        assert_eq!((r.bounds, r.estimate), (Some((40, 40)), 40));
        // A fresh count-min above the guaranteed count tightens the upper bound as before.
        let mut freq = DeviceFreq::with_seed(DEVICE_SEED);
        freq.add("GET /", 40);
        fleet.datagram(from, &mut encoded(1, 2, freq), Instant::now());
        let r = &fleet.stats(Instant::now()).heavy.unwrap().rows[0];
        assert_eq!(r.estimate, 40);
    }

    #[test]
    fn a_frame_with_another_seed_is_refused() {
        let mut other = DeviceSeen::with_seed(7);
        other.insert("x");
        let mut fleet = Fleet::new();
        let from = "127.0.0.1:1".parse().unwrap();
        fleet.datagram(from, &mut encoded(9, 0, other), Instant::now());
        let s = fleet.stats(Instant::now());
        assert!(s.rows.is_empty());
        assert_eq!(s.errors, vec![("wrong seed".to_string(), 1)]);
    }
}
