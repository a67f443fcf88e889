//! Device mode on the host: frames from many devices, checked, kept per device, merged.
//!
//! Each device sends its sketches periodically, each in a [`Frame`](sketch_nostd::wire::Frame) (device id, sequence number,
//! sketch, CRC-32, COBS). The host keeps the latest sketch of each kind per device and merges them:
//! Bloom filters by OR, count-min sketches by adding, HyperLogLogs by register max, and Space-Saving
//! heavy-hitter summaries by the mergeable-summaries rule (whose result depends only on the
//! summaries' contents, so the host lists the same keys whatever order frames arrive in). A datagram that fails any check (framing, CRC, envelope, parameters, seed)
//! is counted against its sender, if the sender's address is known, and dropped; nothing a device
//! sends can stop the host.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::time::Instant;

use sketch_nostd::sizing::{cm_depth, cm_width, k_for, words_for};
use sketch_nostd::wire::{RawFrame, SketchKind};
use sketch_nostd::{Bloom, CountMin, Hll14, SpaceSaving, WireError};

use crate::human::printable;
use crate::ingest::engine::hll_stats;
use crate::snapshot::{
    DeviceRow, DistinctStats, FleetStats, HeavyRow, HeavyStats, RegisterStats, Snapshot,
};

/// The seed every device's sketches use (sketches merge only with equal seeds).
pub const DEVICE_SEED: u64 = 0xdead_beef_0000_0001;

/// Lines a device's dedupe filter is sized for.
pub const DEVICE_SEEN_CAPACITY: u64 = 10_000;
/// A device's dedupe filter: 10,000 lines at 1% (11.7 KiB), cleared when its estimate passes 1%.
pub type DeviceSeen =
    Bloom<{ words_for(DEVICE_SEEN_CAPACITY, 0.01) }, { k_for(DEVICE_SEEN_CAPACITY, 0.01) }>;

/// A device's frequency sketch: count-min with ε = 1%, δ = 1% (5 rows × 272 `u32`, 5.3 KiB).
pub type DeviceFreq = CountMin<{ cm_width(0.01) }, { cm_depth(0.01) }, u32>;

/// A device's distinct counter as it travels: a Redis-compatible HyperLogLog
/// ([`sketch_nostd::RedisHll`], sent as its [`Hll14`] with seed [`DEVICE_HLL_SEED`]): 2^14 registers
/// (12 KiB, 0.81% standard error) hashed as Redis's `PFADD` hashes, so the host can hand the devices'
/// and the fleet's registers to Redis (`--redis`) for `PFCOUNT` and `PFMERGE` across hosts.
// REDIS HOOK (issue 16): was Hll12 with DEVICE_SEED; Redis keeps exactly 2^14 registers.
pub type DeviceDistinct = Hll14;

/// The seed of the devices' distinct counters: Redis's MurmurHash64A seed (see
/// [`sketch_nostd::redis`]). The other sketches keep [`DEVICE_SEED`].
pub const DEVICE_HLL_SEED: u64 = sketch_nostd::redis::REDIS_SEED;

/// Bytes of a line a device's heavy-hitter summary can hold: the synthetic log's lines are at most
/// 154 bytes (with the latency field). A longer line is still counted by the device's other
/// sketches; the summary skips it and counts it as overlong.
pub const DEVICE_LINE_MAX: usize = 160;
/// Counters of a device's heavy-hitter summary. Whole log lines are mostly unique (about 85% of
/// the synthetic log's), which is hard on Space-Saving: with 4 devices the merged top 10 held 2–5
/// of the true top 10 with 64 counters, 5–8 with 128, and 9–10 with 256 (the misses near-ties
/// with the 11th), over 3,000 to 300,000 lines per device.
pub const DEVICE_TOP_K: usize = 256;
/// A line as a device's heavy-hitter summary stores it: up to [`DEVICE_LINE_MAX`] bytes, owned, no
/// heap (a one-byte length).
pub type DeviceLine = sketch_nostd::heapless::Vec<u8, DEVICE_LINE_MAX, u8>;
/// A device's heavy hitters: Space-Saving with 256 counters (46 KiB: the lines' text is most of it;
/// a microcontroller would count a field such as the path, in far smaller slots). No sketch beside
/// it (the device's count-min sketch answers "how often" for any line); the top lines arrive early
/// and keep nearly exact counts.
pub type DeviceTop = SpaceSaving<DeviceLine, DEVICE_TOP_K>;

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
}

/// What the host keeps about one device.
#[derive(Clone, Debug)]
struct Device {
    addr: SocketAddr,
    last_seen: Instant,
    ok: u64,
    bad: u64,
    lost: u64,
    last_seq: Option<u32>,
    /// Refused frames since the last good one: they arrived, so a sequence gap they explain is
    /// not a loss.
    bad_since_ok: u64,
    bytes: u64,
    seen: Option<Box<DeviceSeen>>,
    freq: Option<Box<DeviceFreq>>,
    distinct: Option<Box<DeviceDistinct>>,
    top: Option<Box<DeviceTop>>,
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
        match Self::decode(bytes) {
            Ok((device, seq, sketch)) => {
                self.by_addr.insert(from, device);
                let d = self.devices.entry(device).or_insert_with(|| Device {
                    addr: from,
                    last_seen: now,
                    ok: 0,
                    bad: 0,
                    lost: 0,
                    last_seq: None,
                    bad_since_ok: 0,
                    bytes: 0,
                    seen: None,
                    freq: None,
                    distinct: None,
                    top: None,
                });
                d.addr = from;
                d.last_seen = now;
                d.ok += 1;
                d.bytes += n;
                if let Some(last) = d.last_seq {
                    // Frames in between that never arrived (a restart resets the count).
                    let gap = u64::from(seq.wrapping_sub(last).saturating_sub(1)).min(1 << 20);
                    d.lost += gap.saturating_sub(d.bad_since_ok);
                }
                d.last_seq = Some(seq);
                d.bad_since_ok = 0;
                match sketch {
                    DeviceSketch::Seen(s) => d.seen = Some(s),
                    DeviceSketch::Freq(f) => d.freq = Some(f),
                    DeviceSketch::Distinct(h) => d.distinct = Some(h),
                    DeviceSketch::Top(t) => d.top = Some(t),
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
        // Space-Saving hashes nothing it sends (its envelope's seed is always 0, which its decoder
        // checks); every other sketch must hash with the devices' seed to merge (the distinct
        // counter with Redis's).
        let expected = match header.kind {
            SketchKind::HyperLogLog => DEVICE_HLL_SEED, // REDIS HOOK (issue 16)
            _ => DEVICE_SEED,
        };
        if header.kind != SketchKind::SpaceSaving && header.seed != expected {
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
            _ => return Err(Refused::UnexpectedKind),
        };
        Ok((raw.device, raw.seq, sketch))
    }

    /// Each device's latest distinct counter, by device id (for the Redis sink).
    // REDIS HOOK (issue 16)
    pub fn distinct_sketches(&self) -> impl Iterator<Item = (u64, &DeviceDistinct)> {
        self.devices
            .iter()
            .filter_map(|(&id, d)| d.distinct.as_deref().map(|h| (id, h)))
    }

    /// The figures for the UI, as of `now`.
    #[must_use]
    pub fn stats(&self, now: Instant) -> FleetStats {
        let mut merged: Option<DeviceSeen> = None;
        let mut merged_freq: Option<DeviceFreq> = None;
        let mut merged_distinct: Option<DeviceDistinct> = None;
        let mut merged_top: Option<DeviceTop> = None;
        let mut rows = Vec::with_capacity(self.devices.len());
        for (&id, d) in &self.devices {
            let held = d.seen.as_ref().map(|s| s.cardinality());
            // Bloom union, cell-wise saturating count-min sums, register-wise HLL max: seeds are
            // checked when decoding. Space-Saving merges any two summaries of one type.
            if let Some(s) = d.seen.as_deref() {
                merge_into(&mut merged, s, DeviceSeen::merge);
            }
            if let Some(f) = d.freq.as_deref() {
                merge_into(&mut merged_freq, f, DeviceFreq::merge);
            }
            if let Some(h) = d.distinct.as_deref() {
                merge_into(&mut merged_distinct, h, DeviceDistinct::merge);
            }
            if let Some(t) = d.top.as_deref() {
                merge_into(&mut merged_top, t, DeviceTop::merge);
            }
            rows.push(DeviceRow {
                id,
                addr: d.addr.to_string(),
                last_seen: now.saturating_duration_since(d.last_seen),
                ok: d.ok,
                bad: d.bad,
                lost: d.lost,
                bytes: d.bytes,
                held,
                lines: d.freq.as_ref().map(|f| f.total()),
                distinct: d.distinct.as_ref().map(|h| h.cardinality()),
            });
        }
        FleetStats {
            ok: rows.iter().map(|r| r.ok).sum(),
            bad: rows.iter().map(|r| r.bad).sum::<u64>() + self.unattributed_bad,
            unattributed_bad: self.unattributed_bad,
            lost: rows.iter().map(|r| r.lost).sum(),
            bytes: self.bytes,
            errors: self
                .errors
                .iter()
                .map(|(k, v)| ((*k).to_string(), *v))
                .collect(),
            held_sum: rows.iter().filter_map(|r| r.held).sum(),
            held_merged: merged.as_ref().map_or(0.0, DeviceSeen::cardinality),
            merged_fill: merged.as_ref().map_or(0.0, DeviceSeen::fill_ratio),
            seen_bytes: std::mem::size_of::<DeviceSeen>() as u64,
            lines_merged: merged_freq.as_ref().map_or(0, DeviceFreq::total),
            bound_merged: merged_freq.as_ref().map_or(0, DeviceFreq::error_bound),
            freq_bytes: std::mem::size_of::<DeviceFreq>() as u64,
            distinct_bytes: std::mem::size_of::<DeviceDistinct>() as u64,
            top_bytes: std::mem::size_of::<DeviceTop>() as u64,
            heavy: merged_top
                .as_ref()
                .map(|t| heavy_stats(t, merged_freq.as_ref())),
            merged_distinct: merged_distinct.as_ref().map(|h| {
                let (mut d, r): (DistinctStats, RegisterStats) = hll_stats(h);
                d.sum_of_parts = Some(rows.iter().filter_map(|r| r.distinct).sum());
                (d, r)
            }),
            rows,
        }
    }
}

/// The merged heavy hitters: the top lines of the merged Space-Saving summary, each with its
/// Space-Saving bounds and the merged count-min estimate.
/// Adds `sketch` to the running merge `acc`, which starts as a copy of the first one. The fleet's
/// merges cannot fail (see [`Fleet::stats`]), so their result is not looked at.
fn merge_into<T: Clone, E>(
    acc: &mut Option<T>,
    sketch: &T,
    merge: impl FnOnce(&mut T, &T) -> Result<(), E>,
) {
    match acc {
        Some(m) => {
            let _ = merge(m, sketch);
        }
        None => *acc = Some(sketch.clone()),
    }
}

fn heavy_stats(top: &DeviceTop, freq: Option<&DeviceFreq>) -> HeavyStats {
    let (total, bound, epsilon, delta) = freq.map_or((top.total(), 0, 0.0, 0.0), |f| {
        (f.total(), f.error_bound(), f.epsilon(), f.delta())
    });
    // A row is noise if its guaranteed count is within what any line could reach: the larger of
    // the count-min's ε·N and the summary's own bound.
    let noise_at = bound.max(top.error_bound());
    let rows = top
        .sorted()
        .iter()
        .take(SHOWN_TOP)
        .map(|c| HeavyRow {
            line: printable(c.key, SHOWN_CHARS),
            // Without a count-min sketch yet, the summary's own upper bound.
            estimate: freq.map_or(c.count, |f| f.estimate(c.key.as_slice())),
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
        delta,
        width: DeviceFreq::WIDTH,
        depth: DeviceFreq::DEPTH,
        cm_bytes: std::mem::size_of::<DeviceFreq>() as u64,
        topk_bytes: std::mem::size_of::<DeviceTop>() as u64,
        list: "Space-Saving",
        per_device: true,
        summary_bound: Some(top.error_bound()),
        overlong: top.overlong(),
    }
}

impl FleetStats {
    /// Writes the fleet's merged view into a snapshot: datagrams are what "lines" count, the
    /// merged HyperLogLog is the distinct count, the merged heavy hitters are the heavy hitters.
    pub fn fill(self, snap: &mut Snapshot) {
        snap.totals.lines = self.ok + self.bad;
        snap.totals.bytes = self.bytes;
        if let Some((d, r)) = self.merged_distinct.clone() {
            snap.distinct = Some(d);
            snap.registers = Some(r);
        }
        snap.heavy.clone_from(&self.heavy);
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
