//! What ingest publishes and the UI and the report read: plain numbers, no sketches, no locks.
//!
//! Every figure that has a cost carries it (`*_bytes`), so the UI can show each number next to what
//! it costs.

use std::time::Duration;

use serde::Serialize;

/// Serializes a duration as seconds (a JSON number).
fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Totals over the input.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Lines read, with a key or not (a last line without a newline too; the sketches' totals
    /// count keys).
    pub lines: u64,
    /// Input bytes, newlines included.
    pub bytes: u64,
    /// Lines that are not valid UTF-8 (hashed as bytes all the same).
    pub non_utf8: u64,
    /// Lines that ended in CR LF.
    pub crlf: u64,
    /// Lines too long to hold, hashed while streaming.
    pub long: u64,
    /// Lines without a key, not counted by the sketches: lacking a field the key is made of
    /// (`--field`), not matched (`--key-regex`), not JSON or without the field (`--json-key`).
    pub missing_field: u64,
}

/// The exact reference: a hash table of every distinct line seen, up to a cap.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExactStats {
    /// Distinct lines counted exactly (all of them unless `capped`).
    pub distinct: u64,
    /// The cap was reached: lines first seen after that are not counted exactly.
    pub capped: bool,
    /// The cap, in distinct lines (0 = exact counting off).
    pub cap: u64,
    /// Memory of the table (capacity × entry size).
    pub table_bytes: u64,
    /// Bytes of the distinct lines themselves: what an exact set of the lines would hold.
    pub key_bytes: u64,
}

/// The dedupe / anti-spam filter: a Bloom filter that suppresses lines it has already seen.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DedupeStats {
    /// Lines that passed (first time seen since the last clear).
    pub passed: u64,
    /// Lines suppressed as repeats.
    pub suppressed: u64,
    /// Lines suppressed although never seen before (false positives), measured against the exact
    /// table while it is not capped (in the JSON, `null` with exact counting off).
    #[serde(skip)]
    pub false_suppressed: u64,
    /// Never-seen lines checked against the filter while the exact table was not capped (the
    /// denominator of the measured false-positive rate; `null` in the JSON with exact counting
    /// off).
    #[serde(skip)]
    pub never_seen: u64,
    /// Fraction of bits set.
    pub fill: f64,
    /// The filter's own false-positive estimate from its fill, `fill^k`.
    pub fp_estimate: f64,
    /// The estimate at which the filter clears itself.
    pub clear_at: f64,
    /// Times the filter was cleared.
    pub clears: u64,
    /// Bits in the filter.
    pub bits: u64,
    /// Hash functions.
    pub hashes: u32,
    /// Memory of the filter.
    pub bytes: u64,
    /// The filter's estimate of the distinct lines it holds.
    pub held: f64,
    /// The most recent lines that passed, newest last: their text as it was, the first 240 bytes
    /// of a longer one (in JSON, `{"line": …, "cut": …}`).
    pub recent: Vec<crate::human::KeyText>,
}

/// The micro filter: a 64-bit Bloom filter in front of the last few distinct lines.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MicroStats {
    /// The filter's 64 bits.
    pub bits: u64,
    /// Bits set per key.
    pub hashes: u32,
    /// Keys the small set holds.
    pub set_len: usize,
    /// Bytes of the small set (hashes).
    pub set_bytes: u64,
    /// Lookups made.
    pub lookups: u64,
    /// Lookups the filter answered "definitely not", skipping the set scan.
    pub skipped: u64,
    /// "Maybe" answers confirmed by the set (the line repeats a recent one).
    pub hits: u64,
    /// "Maybe" answers the set refuted: measured false positives.
    pub false_positives: u64,
    /// The filter's own false-positive estimate, `fill^k`.
    pub fp_estimate: f64,
}

/// Ingest throughput.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Throughput {
    /// Lines per second, one sample per [`Throughput::interval`], oldest first.
    #[serde(skip)]
    pub history: Vec<u64>,
    /// Sampling interval.
    #[serde(skip)]
    pub interval: Duration,
    /// Lines per second over the last sample.
    pub lines_per_sec: f64,
    /// Input bytes per second over the last sample.
    pub bytes_per_sec: f64,
    /// The highest sample in the history.
    #[serde(skip)]
    pub peak: u64,
}

/// The distinct count: a HyperLogLog beside the exact table.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DistinctStats {
    /// The sketch's estimate.
    pub estimate: f64,
    /// Its relative standard error (1σ) with the estimator in use.
    pub rse: f64,
    /// The sketch's lower bound at 2σ.
    pub lower: f64,
    /// The sketch's upper bound at 2σ.
    pub upper: f64,
    /// The estimator in use ("sparse", "martingale", "histogram").
    pub estimator: &'static str,
    /// The precision `p` (2^p registers).
    pub precision: u8,
    /// Memory of the sketch.
    pub bytes: u64,
    /// Device mode: the sum of the devices' own estimates (what adding counts would claim).
    pub sum_of_parts: Option<f64>,
}

/// The HyperLogLog's registers, as a histogram of their values.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RegisterStats {
    /// `counts[v]` registers hold the value `v`.
    pub counts: Vec<u32>,
    /// Number of registers.
    pub registers: u32,
    /// Memory of the registers (6 bits each).
    pub bytes: u64,
}

/// One heavy hitter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HeavyRow {
    /// The line as it was, cut to 200 characters ([`KeyText`](crate::human::KeyText): its
    /// `line` and `cut` are the row's own members in JSON, `null` when unknown); a terminal is
    /// shown its [`printable`](crate::human::KeyText::printable) text. `None` when the text was not
    /// kept: `merge --top N` asks for more rows than the saving runs kept the text of.
    pub key: Option<crate::human::KeyText>,
    /// The estimate (never below the true count): the Space-Saving count, or in device mode the
    /// merged count-min's.
    pub estimate: u64,
    /// The true count, when the exact table knows the line.
    pub exact: Option<u64>,
    /// The Space-Saving summary's bracket of the true count, `(lower, upper)`: guaranteed.
    pub bounds: Option<(u64, u64)>,
    /// The guaranteed count is at most ε·N: the row may be noise (any line could reach its count).
    pub noise: bool,
}

impl HeavyRow {
    /// The line's text (empty when it was not kept).
    #[must_use]
    pub fn line(&self) -> &str {
        self.key.as_ref().map_or("", |k| k.line.as_str())
    }

    /// The text a terminal is shown: [`in_a_list`](crate::human::KeyText::in_a_list), or
    /// `(text not kept)`.
    #[must_use]
    pub fn printable(&self) -> String {
        self.key.as_ref().map_or_else(
            || "(text not kept)".into(),
            crate::human::KeyText::in_a_list,
        )
    }
}

impl Serialize for HeavyRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        /// The row's JSON: the key's members first, `null` when its text was not kept.
        #[derive(Serialize)]
        struct Row<'a> {
            line: Option<&'a str>,
            cut: Option<bool>,
            estimate: u64,
            exact: Option<u64>,
            bounds: Option<(u64, u64)>,
            noise: bool,
        }
        Row {
            line: self.key.as_ref().map(|k| k.line.as_str()),
            cut: self.key.as_ref().map(|k| k.cut),
            estimate: self.estimate,
            exact: self.exact,
            bounds: self.bounds,
            noise: self.noise,
        }
        .serialize(s)
    }
}

/// The count-min sketch beside the heavy-hitter list in device mode.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CountMinStats {
    /// δ: an estimate exceeds the truth by more than ε·N with at most this probability.
    pub delta: f64,
    /// Counters per row.
    pub width: usize,
    /// Rows.
    pub depth: usize,
    /// Memory of one device's sketch.
    pub bytes: u64,
}

/// Heavy hitters: a Space-Saving list (with a count-min sketch in device mode).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HeavyStats {
    /// The top lines, highest estimate first.
    pub rows: Vec<HeavyRow>,
    /// Capacity of the top-k list.
    pub k: usize,
    /// N, the total of all updates.
    pub total: u64,
    /// ε·N: no estimate exceeds the truth by more (with probability 1 − δ in device mode, where
    /// the estimates are count-min's; always for Space-Saving).
    pub bound: u64,
    /// ε.
    pub epsilon: f64,
    /// Device mode: the devices' count-min sketch, whose estimates the rows show beside the
    /// summary's brackets (`null` in the JSON of a log, which has none).
    pub count_min: Option<CountMinStats>,
    /// Memory of the top-k list.
    pub topk_bytes: u64,
    /// The list's algorithm: "top" (count-min plus a min-heap) or "Space-Saving".
    pub list: &'static str,
    /// Device mode: the costs are per device, the figures those of the merged sketches.
    pub per_device: bool,
    /// Space-Saving's error bound: no unlisted line was counted more often (device mode).
    pub summary_bound: Option<u64>,
    /// Lines too long for the list's key slots (counted elsewhere, never listed).
    pub overlong: u64,
}

/// One device, as the host sees it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DeviceRow {
    /// The device id from its frames.
    pub id: u64,
    /// Where its frames come from.
    pub addr: String,
    /// Time since its last good frame (seconds in JSON).
    #[serde(serialize_with = "secs")]
    pub last_seen: Duration,
    /// Good frames.
    pub ok: u64,
    /// Frames that failed a check.
    pub bad: u64,
    /// Frames missing from its sequence numbers.
    pub lost: u64,
    /// Datagrams that repeated a frame already taken (not counted in `ok`).
    pub repeated: u64,
    /// Bytes received from it.
    pub bytes: u64,
    /// Lines its dedupe filter holds (the filter's own estimate).
    pub held: Option<f64>,
    /// Lines it counted (its count-min total N).
    pub lines: Option<u64>,
    /// Distinct lines it saw (its HyperLogLog estimate).
    pub distinct: Option<f64>,
    /// Its frames came from two senders taking turns (A, B, A): two devices share its id, and
    /// its figures mix theirs. A device that restarts sends from a new address once: no turns.
    pub shared: bool,
}

/// Device mode: the fleet and its merged view.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FleetStats {
    /// One row per device, by id.
    pub rows: Vec<DeviceRow>,
    /// Good frames.
    pub ok: u64,
    /// Bad frames, attributed or not.
    pub bad: u64,
    /// Bad frames from addresses no good frame came from.
    pub unattributed_bad: u64,
    /// Frames missing from sequence numbers.
    pub lost: u64,
    /// Datagrams that repeated a frame already taken (not counted in `ok`).
    pub repeated: u64,
    /// Bytes received.
    pub bytes: u64,
    /// Why frames were refused, with counts.
    pub errors: Vec<(String, u64)>,
    /// The sum of the devices' dedupe-filter estimates.
    pub held_sum: f64,
    /// The merged (OR-ed) filter's estimate: lines held by any device, counted once.
    pub held_merged: f64,
    /// The merged filter's fill.
    pub merged_fill: f64,
    /// Bytes of one device filter (and of the merged one).
    pub seen_bytes: u64,
    /// Lines counted by all devices: the merged count-min's total.
    pub lines_merged: u64,
    /// The merged count-min's ε·N bound.
    pub bound_merged: u64,
    /// Bytes of one device count-min (and of the merged one).
    pub freq_bytes: u64,
    /// Bytes of one device HyperLogLog (and of the merged one).
    pub distinct_bytes: u64,
    /// Bytes of one device heavy-hitter summary (and of the merged one).
    pub top_bytes: u64,
    /// The merged heavy hitters, once a device sent its summary.
    pub heavy: Option<HeavyStats>,
    /// The merged HyperLogLog: distinct lines over all devices, and its registers.
    pub merged_distinct: Option<(DistinctStats, RegisterStats)>,
    /// The merged quantile sketches, once a device sent one (`emit --value-field N`); also the
    /// snapshot's `quantiles`.
    pub quantiles: Option<QuantileStats>,
}

/// Which window the figures answer for, and the ring of intervals behind the windows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WindowStats {
    /// The window (`all`, `1m`, `5m`, `15m` in JSON).
    #[serde(serialize_with = "window_name")]
    pub window: crate::window::Window,
    /// Its name on screen: "since start", "last 5 min".
    pub label: &'static str,
    /// The time the figures cover (seconds in JSON): a window reaches back to the start of its
    /// oldest interval, so "last 1 min" covers 60 to 75 s once the run is that long.
    #[serde(serialize_with = "secs")]
    pub covered: Duration,
    /// Intervals merged for the window (0 since start: the run's own sketches answer).
    pub intervals: usize,
    /// The length of one interval (seconds in JSON).
    #[serde(serialize_with = "secs")]
    pub interval: Duration,
    /// Intervals held in the ring, the open one included.
    pub held: usize,
    /// Memory of the intervals' sketches held now.
    pub bytes: u64,
    /// The most the ring holds: its memory once 15 minutes have passed.
    pub max_bytes: u64,
    /// Lines per interval, oldest first (up to 15 minutes of closed ones, then the open one so
    /// far).
    pub lines: Vec<u64>,
    /// Distinct lines per interval (each interval's own HyperLogLog), as `lines`.
    pub distinct: Vec<u64>,
}

fn window_name<S: serde::Serializer>(w: &crate::window::Window, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(w.name())
}

/// Everything the UI draws, as of one moment.
///
/// Its JSON (the report's `--json`) is one object: `source`, `seconds`, the [`Totals`] and the
/// [`Throughput`] rates at the top level, then one member per figure. A figure the snapshot does not
/// have is `null`: the sketches' options while none runs, and with [`sketches_only`](Self::sketches_only)
/// (`merge`) everything only a run over the lines knows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// Where lines come from.
    pub source: String,
    /// The figures come from saved sketches alone (`merge`): no line was read, so there are no
    /// exact counts, filters, input bytes, time or rates. The text report leaves them out and the
    /// JSON has `null` for them (`seconds`, `bytes`, `non_utf8`, `crlf`, `long`, `missing_field`,
    /// `exact`, `dedupe`, `micro`, `lines_per_sec`, `bytes_per_sec`).
    pub sketches_only: bool,
    /// The source ended (`Some(None)` at end of input, `Some(Some(e))` on an error).
    pub finished: Option<Option<String>>,
    /// A burst in progress in the synthetic log: the repeated line.
    pub burst: Option<String>,
    /// The figures shown are frozen (`p`); counting goes on.
    pub paused: bool,
    /// Time since start (or the last reset), not counting pauses (`seconds` in JSON, but when a
    /// window answers: then [`counted_over`](Self::counted_over), the window's).
    pub elapsed: Duration,
    /// Totals (at the top level of the JSON).
    pub totals: Totals,
    /// Exact reference counts.
    pub exact: ExactStats,
    /// The dedupe filter.
    pub dedupe: DedupeStats,
    /// The micro filter.
    pub micro: MicroStats,
    /// Throughput (`lines_per_sec`, `bytes_per_sec` at the top level of the JSON).
    pub throughput: Throughput,
    /// The distinct count, once a HyperLogLog is running.
    pub distinct: Option<DistinctStats>,
    /// The HyperLogLog's registers.
    pub registers: Option<RegisterStats>,
    /// Heavy hitters, once a count-min sketch is running.
    pub heavy: Option<HeavyStats>,
    /// The window the figures answer for, and the per-interval history (not in device mode).
    pub window: Option<WindowStats>,
    /// Device mode: the fleet.
    pub devices: Option<FleetStats>,
    /// `--value-field N`: the quantiles of a numeric field (in device mode, of the devices'
    /// sketches merged).
    pub quantiles: Option<QuantileStats>,
    /// `--redis`: the Redis writer's state.
    pub redis: Option<crate::redis_sink::RedisStatus>,
    /// `--save`: why the last save failed, if it did.
    pub save_error: Option<String>,
    /// `--follow`: the followed files and what has happened to each (empty when none is).
    pub follow: Vec<Followed>,
    /// The keys are not whole lines (`--field`, `--key-regex`, `--json-key`, `--strip-timestamp`):
    /// the table says "distinct keys" (the JSON's source says how they are made).
    pub keyed: bool,
}

/// A followed file (`--follow`): whether it is waited for, and its rotations and truncations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Followed {
    /// Its name, as given.
    pub file: String,
    /// The name does not exist (yet): it is waited for, as `tail -F` does.
    pub waiting: bool,
    /// Times a new file under the name was opened (log rotation), the old one read to its end.
    pub rotations: u64,
    /// Times the file was cut shorter than what was read (`> app.log`) and read again from its
    /// start.
    pub truncations: u64,
}

impl Followed {
    /// What has happened, in words (empty when nothing has): `waiting for it to appear`, then
    /// its [`changes`](Self::changes).
    ///
    /// ```
    /// use tui_demo::snapshot::Followed;
    /// let f = Followed { file: "app.log".into(), rotations: 1, truncations: 2, ..Followed::default() };
    /// assert_eq!(f.what(), "1 rotation · 2 truncations");
    /// let w = Followed { waiting: true, ..f };
    /// assert_eq!(w.what(), "waiting for it to appear · 1 rotation · 2 truncations");
    /// ```
    #[must_use]
    pub fn what(&self) -> String {
        let changes = self.changes();
        match (self.waiting, changes.is_empty()) {
            (false, _) => changes,
            (true, true) => "waiting for it to appear".into(),
            (true, false) => format!("waiting for it to appear · {changes}"),
        }
    }

    /// Its rotations and truncations, in words (empty when there were none): what the Ingest
    /// panel shows (the footer says a name is waited for).
    #[must_use]
    pub fn changes(&self) -> String {
        let plural = crate::human::count_of;
        let mut parts = Vec::new();
        if self.rotations > 0 {
            parts.push(plural(self.rotations, "rotation"));
        }
        if self.truncations > 0 {
            parts.push(plural(self.truncations, "truncation"));
        }
        parts.join(" · ")
    }
}

impl Snapshot {
    /// What an empty heavy-hitter list says, in the panel and the table: why it has no row.
    ///
    /// ```
    /// use tui_demo::snapshot::Snapshot;
    /// let mut s = Snapshot::default();
    /// assert_eq!(s.no_heavy_rows(), "no lines yet");
    /// s.totals.lines = 3;
    /// s.totals.missing_field = 3;
    /// assert_eq!(s.no_heavy_rows(), "no keys: 3 lines without one");
    /// ```
    #[must_use]
    pub fn no_heavy_rows(&self) -> String {
        // The totals are the window's when one answers.
        let window = self.window.as_ref().filter(|w| w.intervals > 0);
        match (window, self.totals.lines, self.totals.missing_field) {
            (Some(w), 0, _) => format!("no lines in the {}", w.label),
            (_, 1.., missing @ 1..) => format!(
                "no keys: {} without one",
                crate::human::count_of(missing, "line")
            ),
            // (Device mode: frames came, the heavy hitters' not yet.)
            _ => "no lines yet".to_string(),
        }
    }

    /// The time the snapshot's lines were counted in: a window's (the intervals it merges) when
    /// it answers for one, else the run's ([`elapsed`](Self::elapsed)). The report's `lines … in
    /// S s` and the JSON's `seconds`.
    #[must_use]
    pub fn counted_over(&self) -> Duration {
        match &self.window {
            Some(win) if win.intervals > 0 => win.covered,
            _ => self.elapsed,
        }
    }

    /// Makes the rates the run's averages (its lines and bytes over the time they were counted
    /// in: the run's, or a window's) rather than the last seconds', as a summary states them, and
    /// the live view once the input has ended.
    ///
    /// ```
    /// let mut s = tui_demo::snapshot::Snapshot::default();
    /// s.totals.lines = 1_000;
    /// s.elapsed = std::time::Duration::from_secs(4);
    /// s.average_rates();
    /// assert_eq!(s.throughput.lines_per_sec, 250.0);
    /// ```
    pub fn average_rates(&mut self) {
        let secs = self.counted_over().as_secs_f64().max(1e-9);
        self.throughput.lines_per_sec = self.totals.lines as f64 / secs;
        self.throughput.bytes_per_sec = self.totals.bytes as f64 / secs;
    }
}

impl Serialize for Snapshot {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Json::of(self).serialize(s)
    }
}

/// The JSON of a [`Snapshot`] (derived, so its members are its fields, in order): what only a run
/// over the lines knows is `None` (`null`) for a merge of saved sketches
/// ([`Snapshot::sketches_only`]) and in device mode, where `lines` is the lines the devices
/// counted (their count-min sketches merged), not the datagrams the host received (`devices.ok`
/// and `devices.bad`).
#[derive(Serialize)]
struct Json<'a> {
    source: &'a str,
    seconds: Option<f64>,
    lines: u64,
    bytes: Option<u64>,
    non_utf8: Option<u64>,
    crlf: Option<u64>,
    long: Option<u64>,
    missing_field: Option<u64>,
    exact: Option<ExactJson<'a>>,
    dedupe: Option<DedupeJson<'a>>,
    micro: Option<&'a MicroStats>,
    lines_per_sec: Option<f64>,
    bytes_per_sec: Option<f64>,
    distinct: &'a Option<DistinctStats>,
    registers: &'a Option<RegisterStats>,
    heavy: &'a Option<HeavyStats>,
    window: &'a Option<WindowStats>,
    devices: &'a Option<FleetStats>,
    quantiles: &'a Option<QuantileStats>,
    follow: &'a [Followed],
}

/// [`ExactStats`] in the JSON, saying what they cover: the exact table is kept since the start
/// only, so in a window's report its figures are not the window's (the text report says so; the
/// JSON did not).
#[derive(Serialize)]
struct ExactJson<'a> {
    #[serde(flatten)]
    stats: &'a ExactStats,
    covers: &'static str,
}

/// [`DedupeStats`] in the JSON: its measured false positives `null` without an exact table.
#[derive(Serialize)]
struct DedupeJson<'a> {
    #[serde(flatten)]
    stats: &'a DedupeStats,
    false_suppressed: Option<u64>,
    never_seen: Option<u64>,
}

impl<'a> Json<'a> {
    fn of(snap: &'a Snapshot) -> Self {
        let known = !snap.sketches_only;
        let run = |x: u64| known.then_some(x);
        // In device mode the host reads datagrams, not lines: what it knows of lines is what the
        // devices' sketches say.
        let fleet = snap.devices.as_ref();
        let read_lines = known && fleet.is_none();
        let line = |x: u64| read_lines.then_some(x);
        let exact_on = snap.exact.cap > 0;
        let (t, r) = (&snap.totals, &snap.throughput);
        Self {
            source: &snap.source,
            // The lines' time, as `lines` are the window's when it answers for one (it was the
            // run's beside a window's lines, found by a user test).
            seconds: known.then_some(snap.counted_over().as_secs_f64()),
            lines: fleet.map_or(t.lines, |f| f.lines_merged),
            bytes: run(t.bytes),
            non_utf8: line(t.non_utf8),
            crlf: line(t.crlf),
            long: line(t.long),
            missing_field: line(t.missing_field),
            // Exact counting off (`--exact-cap 0`): no exact table, and nothing measured against
            // one (they read 0 distinct lines and a false-positive rate of 0 / 0).
            exact: (read_lines && exact_on).then_some(ExactJson {
                stats: &snap.exact,
                covers: "since start",
            }),
            dedupe: read_lines.then_some(DedupeJson {
                false_suppressed: exact_on.then_some(snap.dedupe.false_suppressed),
                never_seen: exact_on.then_some(snap.dedupe.never_seen),
                stats: &snap.dedupe,
            }),
            micro: read_lines.then_some(&snap.micro),
            lines_per_sec: read_lines.then_some(r.lines_per_sec),
            bytes_per_sec: known.then_some(r.bytes_per_sec),
            distinct: &snap.distinct,
            registers: &snap.registers,
            heavy: &snap.heavy,
            window: &snap.window,
            devices: &snap.devices,
            quantiles: &snap.quantiles,
            follow: &snap.follow,
        }
    }
}

/// `--value-field N`: a numeric field's quantiles from a `QuantileSketch`, each beside the exact
/// value while the exact values are kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QuantileStats {
    /// The field's number (from 1); `null` with `--value-json` and in device mode.
    pub field: Option<u16>,
    /// `--value-json`: the JSON pointer of the value.
    pub json: Option<String>,
    /// Values counted.
    pub count: u64,
    /// Lines without the field, or whose field is not a number.
    pub missing: u64,
    /// The guarantee: every quantile within ±alpha (relative) of the true value, above the
    /// collapsed buckets.
    pub alpha: f64,
    /// Memory of the sketch (fixed; per device in device mode).
    pub bytes: u64,
    /// The smallest value (exact).
    pub min: Option<f64>,
    /// The largest value (exact).
    pub max: Option<f64>,
    /// The lowest buckets collapsed (the values spanned more than the sketch holds): quantiles
    /// reported at this value may be lower ones. `None` while nothing collapsed.
    pub collapsed_below: Option<f64>,
    /// Every value since the start is also kept exactly (at most `exact_cap` of them).
    pub exact_on: bool,
    /// The most values kept exactly (`--exact-cap`; 0: none).
    pub exact_cap: u64,
    /// Memory of the exact values kept (0 when none are).
    pub exact_bytes: u64,
    /// p50, p90, p99, p999.
    pub rows: Vec<QuantileRow>,
}

impl QuantileStats {
    /// What the values are, as the panel's title and the report name them: `field 9`, the JSON
    /// pointer `/latency_ms`, or `devices' values` (device mode).
    #[must_use]
    pub fn label(&self) -> String {
        match (self.field, &self.json) {
            (Some(f), _) => format!("field {f}"),
            (None, Some(p)) => crate::human::json_path(p),
            (None, None) => "devices' values".to_string(),
        }
    }

    /// Device mode: the devices' merged sketches, with no field named and no exact values.
    #[must_use]
    pub fn from_devices(&self) -> bool {
        self.field.is_none() && self.json.is_none()
    }
}

/// One quantile.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QuantileRow {
    /// The quantile (0.99 for p99).
    pub q: f64,
    /// The sketch's estimate.
    pub estimate: f64,
    /// The exact value (rank `⌊q·(n − 1)⌋` from 0, as the sketch ranks), while the values are kept
    /// (since the start only, not in a window or in device mode).
    pub exact: Option<f64>,
    /// The estimate is the collapsed bucket's value ([`QuantileStats::collapsed_below`]): the
    /// quantile may be any lower value too, without the ±alpha guarantee (the panel and the report
    /// say `or lower (collapsed)`).
    pub collapsed: bool,
}
