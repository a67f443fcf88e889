//! The windows' ring: one interval of [`INTERVAL`] at a time gets its own distinct counter and
//! heavy-hitter summary; the last [`INTERVALS`] closed intervals are kept (bounded memory, shown on
//! screen), and a window is their merge with the library's own [`Sketch::merge`], made on demand.
//!
//! Time is never read here: [`Ring::advance`] is told the run's time, so tests drive it exactly.
//! Counters (lines, bytes, the filters' counts) are not kept per interval: the engine's running
//! totals are recorded when an interval opens, and a window's counts are the difference.
//!
//! The merge of the closed intervals a window reaches back to is cached until the next interval
//! closes, so a refresh merges one interval (the open one) into a copy of it.
//!
//! "Since start" is a merge too ([`Ring::since_start`]): the intervals that left the ring merged into
//! one summary as they leave, the closed ones and the open one. So a line is counted once, in the
//! open interval, not also in a since-start copy of every sketch: half the per-line work of the
//! heavy-hitter summary, the costliest step of a line. A run shorter than one interval (a report
//! of a file read within 15 s) answers from the open interval alone, as one summary would.

use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;
use std::time::Duration;

use sketch_nostd::Sketch;

use super::engine::{Distinct, Heavy};
use super::values::Values;
use super::SEED;
use crate::exact::PassThrough;
use crate::human::KeyText;
use crate::window::{Window, INTERVAL, INTERVALS};

/// Characters of a heavy hitter's text kept ([`KeyText`]).
pub const TOP_SHOWN: usize = 200;
/// How often (in lines) the count a line needs to be shown is recomputed.
const THRESHOLD_EVERY: u32 = 65_536;

/// The text of the lines ([`KeyText`]: as they were, cut to [`TOP_SHOWN`] characters) by line
/// hash. The keys are already uniform 64-bit hashes, so the map uses them as they are
/// ([`PassThrough`], as the exact table does) instead of SipHashing them again: the map is looked
/// up for every line counted.
pub type Names = HashMap<u64, KeyText, BuildHasherDefault<PassThrough>>;

/// A heavy-hitter summary with the text of the lines it may show (keys are line hashes).
#[derive(Clone, Debug)]
pub struct Named {
    /// The summary.
    pub heavy: Box<Heavy>,
    /// The text of the lines that may be shown, by key (pruned as the list changes).
    pub names: Names,
    /// Rows whose text is kept: the first `keep` as the list ranks them ([`ranked`]).
    ///
    /// [`ranked`]: super::engine::ranked
    keep: usize,
    /// The `keep`-th largest count and guaranteed count as of the last recount: a line's text is
    /// kept when either of its own reaches them. Every listed row has its text: a noise row is
    /// among the `keep` largest counts, which never go down (an event raises one count, or
    /// replaces the smallest with one more), so a stale value is only lower; a row past the noise
    /// is among the `keep` largest guaranteed counts, which go down only when a row of the
    /// smallest count leaves, that is while they are at most that count, below the row's own.
    show_at: (u64, u64),
    until_show: u32,
    /// `names` is pruned when it grows past this.
    names_limit: usize,
}

impl Named {
    /// An empty summary keeping the text of its `keep` largest rows.
    #[must_use]
    pub fn new(keep: usize) -> Self {
        Self {
            heavy: Box::new(Heavy::new()),
            names: Names::with_capacity_and_hasher(4 * keep, BuildHasherDefault::default()),
            keep,
            show_at: (0, 0),
            until_show: THRESHOLD_EVERY,
            names_limit: 8 * keep + 64,
        }
    }

    /// Empties it, keeping its allocations.
    pub fn clear(&mut self) {
        self.heavy.clear();
        self.names.clear();
        self.show_at = (0, 0);
        self.until_show = THRESHOLD_EVERY;
        self.names_limit = 8 * self.keep + 64;
    }

    /// Counts one key: `shown` is its bytes (or only their start, when `partial`: a streamed long
    /// line), `hash` the hash of all of it.
    pub fn add(&mut self, shown: &[u8], partial: bool, hash: u64) {
        let count = self.heavy.increment(&hash);
        // A listed line's count or guaranteed count reached the kept rows' (see `show_at`) when
        // it was last seen: its text is recorded at that moment. The count first (the guaranteed
        // count is at most it), which spares the second lookup for most lines.
        let (at_count, at_guaranteed) = self.show_at;
        if count >= at_guaranteed
            && !self.names.contains_key(&hash)
            && (count >= at_count || self.heavy.bounds(&hash).0 >= at_guaranteed)
        {
            self.names
                .insert(hash, KeyText::new(shown, partial, TOP_SHOWN));
            if self.names.len() > self.names_limit {
                self.recount();
            }
        }
        self.until_show -= 1;
        if self.until_show == 0 {
            self.until_show = THRESHOLD_EVERY;
            self.recount();
        }
    }

    /// Merges `other` into this summary (the library's mergeable-summaries rule: every bracket of
    /// the result holds its true count over both), keeping the text of the lines either kept that
    /// may still be shown.
    ///
    /// # Panics
    /// If the summaries' seeds differ (those of one run share theirs).
    pub fn absorb(&mut self, other: &Named) {
        self.heavy
            .merge(&other.heavy)
            .expect("the ring's intervals share their seed");
        for (k, v) in &other.names {
            self.names.entry(*k).or_insert_with(|| v.clone());
        }
        self.recount();
    }

    /// Recomputes the counts a line needs to be kept, and forgets the text of lines below both.
    fn recount(&mut self) {
        // The `keep`-th largest of each, selected rather than sorted (this runs every 65,536
        // lines).
        let nth = self.keep.saturating_sub(1);
        let mut counts: Vec<u64> = self.heavy.entries().map(|c| c.count).collect();
        let mut guaranteed: Vec<u64> = self.heavy.entries().map(|c| c.guaranteed()).collect();
        let nth_largest = |v: &mut Vec<u64>| {
            if nth < v.len() {
                *v.select_nth_unstable_by(nth, |a, b| b.cmp(a)).1
            } else {
                0
            }
        };
        self.show_at = (nth_largest(&mut counts), nth_largest(&mut guaranteed));
        let (at_count, at_guaranteed) = self.show_at;
        let heavy = &self.heavy;
        self.names.retain(|k, _| {
            let (g, c) = heavy.bounds(k);
            c >= at_count || g >= at_guaranteed
        });
        // When many lines tie at the cut-off (all-distinct input) many names stay: recount again
        // only once the map has doubled, so the cost per line stays constant.
        self.names_limit = (8 * self.keep + 64).max(2 * self.names.len());
    }
}

/// Merges `parts` into a copy of the first with the library's merge (the sketches of one run share
/// their parameters and seed, so a refusal is a bug, reported as such).
///
/// ```
/// use sketch_nostd::Hll10;
/// let (mut a, mut b) = (Hll10::with_seed(1), Hll10::with_seed(1));
/// a.insert("x");
/// b.insert("y");
/// let all = tui_demo::ingest::ring::merged([&a, &b]).unwrap().unwrap();
/// assert_eq!(all.cardinality().round(), 2.0);
/// ```
///
/// # Errors
/// The library's refusal (different seeds).
pub fn merged<'a, S: Sketch + Clone + 'a>(
    parts: impl IntoIterator<Item = &'a S>,
) -> Result<Option<S>, sketch_nostd::MergeError> {
    let mut parts = parts.into_iter();
    let Some(first) = parts.next() else {
        return Ok(None);
    };
    let mut all = first.clone();
    for p in parts {
        all.merge(p)?;
    }
    Ok(Some(all))
}

/// One interval's sketches.
#[derive(Clone, Debug)]
struct Interval {
    /// Its number: it covers `[index·INTERVAL, (index+1)·INTERVAL)` of the run's time.
    index: u64,
    distinct: Box<Distinct>,
    heavy: Named,
    /// The engine's running counters when it opened.
    at_start: Counters,
    /// Lines counted in it, and its distinct estimate (set when it closes).
    lines: u64,
    estimate: f64,
    /// `--value-field`: the values of the interval.
    values: Option<Box<Values>>,
}

/// Sketches merged over several intervals: those that left the ring, or "since start".
#[derive(Clone, Debug)]
struct Parts {
    distinct: Box<Distinct>,
    heavy: Named,
}

impl Parts {
    fn of(i: &Interval) -> Self {
        Self {
            distinct: i.distinct.clone(),
            heavy: i.heavy.clone(),
        }
    }

    fn absorb(&mut self, i: &Interval) {
        self.distinct
            .merge(&i.distinct)
            .expect("the ring's intervals share their seed");
        self.heavy.absorb(&i.heavy);
    }
}

impl Interval {
    fn new(index: u64, keep: usize, at_start: Counters, values: bool) -> Self {
        Self {
            index,
            distinct: Box::new(Distinct::with_seed(SEED)),
            heavy: Named::new(keep),
            at_start,
            lines: 0,
            estimate: 0.0,
            values: values.then(|| Box::new(Values::new())),
        }
    }

    /// Makes `self` an empty interval `index`, keeping its allocations.
    fn reuse(&mut self, index: u64, at_start: Counters) {
        self.index = index;
        self.distinct.clear();
        self.heavy.clear();
        self.at_start = at_start;
        self.lines = 0;
        self.estimate = 0.0;
        if let Some(v) = self.values.as_mut() {
            v.clear();
        }
    }
}

/// The running counters a window's counts are differences of: the totals, the dedupe filter's and
/// the micro filter's counts (the engine's own types).
pub type Counters = super::engine::Counters;

/// A window's sketches, merged.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Distinct lines in the window.
    pub distinct: Box<Distinct>,
    /// Heavy hitters in the window, with the text of the lines they may list.
    pub heavy: Named,
    /// The counters at the window's start (subtract from the current ones).
    pub at_start: Counters,
    /// `--value-field`: the window's values.
    pub values: Option<Box<Values>>,
    /// Intervals merged (the open one included).
    pub intervals: usize,
    /// The time the window covers: from its oldest interval's start to now.
    pub covered: Duration,
}

/// The ring of intervals.
#[derive(Clone, Debug)]
pub struct Ring {
    open: Interval,
    closed: VecDeque<Interval>,
    /// Intervals that left the ring, kept for reuse.
    spare: Vec<Interval>,
    /// Rows whose text each interval keeps.
    keep: usize,
    now: Duration,
    /// The merge of the closed intervals of a window, valid while the open interval is the same.
    cache: Option<Cache>,
    /// Each interval keeps a quantile sketch of `--value-field`.
    values: bool,
    /// The intervals that left the ring, merged as they left.
    retired: Option<Box<Parts>>,
    /// The merge of `retired` and the closed intervals, and the open interval it was made for.
    all: std::cell::RefCell<Option<(u64, Box<Parts>)>>,
}

/// The merge of a window's closed intervals.
#[derive(Clone, Debug)]
struct Cache {
    window: Window,
    /// The open interval when it was made: it is stale once another opens.
    open: u64,
    distinct: Box<Distinct>,
    heavy: Box<Heavy>,
    names: Names,
    values: Option<Box<Values>>,
}

impl Ring {
    /// An empty ring at time 0; every interval keeps the text of its `keep` largest rows.
    #[must_use]
    pub fn new(keep: usize) -> Self {
        Self {
            open: Interval::new(0, keep, Counters::default(), false),
            closed: VecDeque::with_capacity(INTERVALS),
            spare: Vec::new(),
            keep,
            now: Duration::ZERO,
            cache: None,
            values: false,
            retired: None,
            all: std::cell::RefCell::new(None),
        }
    }

    /// The same ring, each interval also keeping a quantile sketch of `--value-field`
    /// ([`Ring::value`]).
    #[must_use]
    pub fn with_values(mut self) -> Self {
        self.values = true;
        self.open.values = Some(Box::new(Values::new()));
        self
    }

    /// Counts one value of `--value-field` in the open interval (nothing without
    /// [`Ring::with_values`]).
    pub fn value(&mut self, v: f64) {
        if let Some(q) = self.open.values.as_mut() {
            q.insert(v);
        }
    }

    /// The interval number of a time.
    fn index(t: Duration) -> u64 {
        (t.as_nanos() / INTERVAL.as_nanos()) as u64
    }

    /// Moves the ring to time `now` (time only goes forward: an earlier time is ignored), closing
    /// the open interval if `now` is past it; `counters` are the engine's running counters.
    pub fn advance(&mut self, now: Duration, counters: &Counters) {
        if now <= self.now {
            return;
        }
        self.now = now;
        let to = Self::index(now);
        if to == self.open.index {
            return;
        }
        // Empty intervals for a quiet spell, but never more than the ring holds.
        let from = (self.open.index + 1).max(to.saturating_sub(INTERVALS as u64));
        for index in from..=to {
            let mut next = match self.spare.pop() {
                Some(mut s) => {
                    s.reuse(index, counters.clone());
                    s
                }
                None => Interval::new(index, self.keep, counters.clone(), self.values),
            };
            std::mem::swap(&mut self.open, &mut next);
            // `next` is the interval that just closed.
            next.lines = counters.totals.lines - next.at_start.totals.lines;
            next.estimate = next.distinct.cardinality();
            self.closed.push_back(next);
            while self.closed.len() > INTERVALS {
                if let Some(old) = self.closed.pop_front() {
                    match self.retired.as_mut() {
                        Some(r) => r.absorb(&old),
                        None => self.retired = Some(Box::new(Parts::of(&old))),
                    }
                    self.spare.push(old);
                }
            }
        }
        self.spare.truncate(2);
        self.cache = None;
    }

    /// Counts one key in the open interval: `shown` is its bytes (or only their start, when
    /// `partial`), `hash` the hash of all of it.
    pub fn line(&mut self, shown: &[u8], partial: bool, hash: u64) {
        self.open.distinct.insert_hash(hash);
        self.open.heavy.add(shown, partial, hash);
    }

    /// The distinct counter and the heavy-hitter summary since the start: the intervals that left
    /// the ring, the closed ones and the open one, merged with the library's merges (HyperLogLog by
    /// register max, which equals one counter over all the lines; Space-Saving by the
    /// mergeable-summaries rule, so every bracket holds its true count since the start). The merge
    /// of all but the open interval is kept until the next interval closes.
    #[must_use]
    pub fn since_start(&self) -> (Box<Distinct>, Named) {
        let mut all = self.all.borrow_mut();
        if !matches!(&*all, Some((open, _)) if *open == self.open.index) {
            let mut parts = self.retired.clone();
            for i in &self.closed {
                match parts.as_mut() {
                    Some(p) => p.absorb(i),
                    None => parts = Some(Box::new(Parts::of(i))),
                }
            }
            *all = parts.map(|p| (self.open.index, p));
        }
        match all.as_ref() {
            // Only the open interval so far: its own sketches, as one summary would be.
            None => (self.open.distinct.clone(), self.open.heavy.clone()),
            Some((_, base)) => {
                let mut p = base.clone();
                p.absorb(&self.open);
                (p.distinct, p.heavy)
            }
        }
    }

    /// The run's time as last told.
    #[must_use]
    pub fn now(&self) -> Duration {
        self.now
    }

    /// The sketches of window `w` (its closed intervals and the open one), merged; `None` for
    /// [`Window::All`], which the engine's own sketches answer.
    pub fn window(&mut self, w: Window) -> Option<Merged> {
        let n = w.intervals()?;
        let first = self.open.index.saturating_sub(n as u64);
        let parts: Vec<&Interval> = self.closed.iter().filter(|i| i.index >= first).collect();
        let oldest = parts.first().copied().unwrap_or(&self.open);
        let (at_start, start_index, intervals) =
            (oldest.at_start.clone(), oldest.index, parts.len() + 1);
        let valid = matches!(&self.cache, Some(c) if c.window == w && c.open == self.open.index);
        if !valid {
            let distinct = merged(parts.iter().map(|i| &*i.distinct))
                .expect("the ring's intervals share their seed")
                .map_or_else(|| Box::new(Distinct::with_seed(SEED)), Box::new);
            let heavy = merged(parts.iter().map(|i| &*i.heavy.heavy))
                .expect("the ring's intervals share their seed")
                .map_or_else(|| Box::new(Heavy::new()), Box::new);
            let values = self.values.then(|| {
                let mut all = Box::new(Values::new());
                for q in parts.iter().filter_map(|i| i.values.as_deref()) {
                    all.merge(q)
                        .expect("quantile sketches of one type always merge");
                }
                all
            });
            let mut names = Names::default();
            for i in &parts {
                for (k, v) in &i.heavy.names {
                    names.entry(*k).or_insert_with(|| v.clone());
                }
            }
            self.cache = Some(Cache {
                window: w,
                open: self.open.index,
                distinct,
                heavy,
                names,
                values,
            });
        }
        let Cache {
            distinct,
            heavy,
            names,
            values,
            ..
        } = self.cache.as_ref()?;
        let mut values = values.clone();
        if let (Some(all), Some(open)) = (values.as_mut(), self.open.values.as_deref()) {
            all.merge(open)
                .expect("quantile sketches of one type always merge");
        }
        let mut distinct = distinct.clone();
        let mut h = Named::new(self.keep);
        *h.heavy = (**heavy).clone();
        h.names.clone_from(names);
        distinct
            .merge(&self.open.distinct)
            .expect("the ring's intervals share their seed");
        h.heavy
            .merge(&self.open.heavy.heavy)
            .expect("the ring's intervals share their seed");
        for (k, v) in &self.open.heavy.names {
            h.names.entry(*k).or_insert_with(|| v.clone());
        }
        let start = INTERVAL.saturating_mul(u32::try_from(start_index).unwrap_or(u32::MAX));
        Some(Merged {
            distinct,
            heavy: h,
            values,
            at_start,
            intervals,
            covered: self.now.saturating_sub(start),
        })
    }

    /// Lines and distinct lines (the interval's own HyperLogLog estimate, rounded) per closed
    /// interval, oldest first, then the open interval's so far; `counters` are the engine's
    /// running counters.
    #[must_use]
    pub fn history(&self, counters: &Counters) -> (Vec<u64>, Vec<u64>) {
        self.closed
            .iter()
            .map(|i| (i.lines, i.estimate.round() as u64))
            .chain(std::iter::once((
                counters.totals.lines - self.open.at_start.totals.lines,
                self.open.distinct.cardinality().round() as u64,
            )))
            .unzip()
    }

    /// Intervals held (the open one included).
    #[must_use]
    pub fn len(&self) -> usize {
        self.closed.len() + 1
    }

    /// Always false: the open interval is always there.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Bytes of one interval's sketches (the lines' text beside them is not counted).
    #[must_use]
    pub fn interval_bytes() -> u64 {
        (std::mem::size_of::<Distinct>() + std::mem::size_of::<Heavy>()) as u64
    }

    /// Bytes of one interval's sketches in this ring: [`Ring::interval_bytes`], and the quantile
    /// sketch with `--value-field`.
    #[must_use]
    pub fn bytes_per_interval(&self) -> u64 {
        Self::interval_bytes() + u64::from(self.values) * std::mem::size_of::<Values>() as u64
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use sketch_nostd::hash::hash64;

    use crate::ingest::engine::{hll_stats, Distinct, Engine, EngineOptions};
    use crate::ingest::SEED;
    use crate::snapshot::Snapshot;
    use crate::source::Batch;
    use crate::window::{Window, INTERVALS};

    use super::Ring;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    /// Feeds `lines` at time `t`.
    fn feed_at(e: &mut Engine, t: Duration, lines: &[String]) {
        e.advance(t);
        let mut b = Batch::default();
        for l in lines {
            b.push(l.as_bytes());
        }
        e.apply(&b);
    }

    fn window(e: &mut Engine, w: Window) -> Snapshot {
        let mut s = Snapshot::default();
        e.fill_window(&mut s, w);
        s
    }

    /// `n` lines: line `i` is `"{tag} {i % distinct}"`, so heavy keys repeat.
    fn lines(tag: &str, n: u32, distinct: u32) -> Vec<String> {
        (0..n)
            .map(|i| format!("{tag} {}", (i * i) % distinct))
            .collect()
    }

    #[test]
    fn a_window_holds_exactly_the_lines_of_its_intervals() {
        let mut e = Engine::new(EngineOptions::default());
        let old = lines("old", 5_000, 700);
        let new = lines("new", 3_000, 300);
        feed_at(&mut e, secs(5), &old); // interval 0
        feed_at(&mut e, secs(20), &new[..1_000]); // interval 1
        feed_at(&mut e, secs(62), &new[1_000..]); // interval 4
        e.advance(secs(80)); // open: interval 5 (75–90 s)

        // The last minute: the open interval and the four before it, 1–4: only the new lines.
        let s = window(&mut e, Window::Min1);
        let w = s.window.as_ref().unwrap();
        assert_eq!((w.window, w.intervals), (Window::Min1, 5));
        assert_eq!(w.covered, secs(80 - 15), "from the start of interval 1");
        assert_eq!(s.totals.lines, 3_000);
        assert_eq!(
            s.totals.bytes,
            new.iter().map(|l| l.len() as u64 + 1).sum::<u64>()
        );
        // Merged by register max, the window's registers are those of one sketch of its lines.
        let mut one = Distinct::with_seed(SEED);
        for l in &new {
            one.insert_hash(hash64(l.as_bytes(), SEED));
        }
        assert_eq!(s.registers.as_ref(), Some(&hll_stats(&one).1));
        // The heavy list is the window's: every row a new line, its bracket holding its count in
        // the window; no exact counts in a window.
        let mut truth: HashMap<&str, u64> = HashMap::new();
        for l in &new {
            *truth.entry(l.as_str()).or_default() += 1;
        }
        let h = s.heavy.as_ref().unwrap();
        assert_eq!(h.total, 3_000);
        assert_eq!(h.rows.len(), 10);
        for r in &h.rows {
            let x = truth[r.line()];
            let (lo, hi) = r.bounds.unwrap();
            assert!(lo <= x && x <= hi, "{r:?} true {x}");
            assert_eq!(r.exact, None);
        }
        // The dedupe filter's counts in the window: the new lines passed once each, since the
        // old lines never repeat them.
        assert_eq!(s.dedupe.passed + s.dedupe.suppressed, 3_000);
        assert_eq!(s.dedupe.passed, truth.len() as u64);

        // Since start: everything, with exact counts.
        let all = window(&mut e, Window::All);
        assert_eq!(all.totals.lines, 8_000);
        assert_eq!(all.window.as_ref().unwrap().intervals, 0);
        assert!(all.heavy.unwrap().rows.iter().all(|r| r.exact.is_some()));
        // Five minutes reach back to the start: the same lines as since start.
        let five = window(&mut e, Window::Min5);
        assert_eq!(five.totals.lines, 8_000);
        assert_eq!(five.registers, all.registers);
        assert_eq!(five.window.unwrap().covered, secs(80));
    }

    #[test]
    fn the_ring_is_bounded_and_quiet_time_empties_the_windows() {
        let mut e = Engine::new(EngineOptions::default());
        // Two hours, a line every 5 s: the ring never holds more than 15 minutes.
        for t in (0..7_200).step_by(5) {
            feed_at(&mut e, secs(t), &[format!("tick {}", t % 600)]);
        }
        let s = window(&mut e, Window::Min15);
        let w = s.window.unwrap();
        assert_eq!(w.held, INTERVALS + 1);
        assert_eq!(w.bytes, w.max_bytes);
        // The closed intervals and the open one.
        assert_eq!(
            (w.lines.len(), w.distinct.len()),
            (INTERVALS + 1, INTERVALS + 1)
        );
        assert!(w.lines.iter().all(|&n| n == 3), "{:?}", w.lines);
        // 15 min of closed intervals and the open one (7,195 s is 10 s into it).
        assert_eq!(w.covered, secs(15 * 60 + 10));
        assert_eq!(s.totals.lines, 15 * 12 + 3);
        // An hour without input: every window is empty, since start is not.
        e.advance(secs(7_200 + 3_600));
        for w in [Window::Min1, Window::Min5, Window::Min15] {
            let s = window(&mut e, w);
            assert_eq!(s.totals.lines, 0, "{w:?}");
            assert_eq!(s.heavy.unwrap().rows.len(), 0);
            assert_eq!(s.distinct.unwrap().estimate, 0.0);
        }
        assert_eq!(window(&mut e, Window::All).totals.lines, 1_440);
        let w = window(&mut e, Window::Min1).window.unwrap();
        assert!(w.lines.iter().all(|&n| n == 0));
        assert_eq!(w.held, INTERVALS + 1);
    }

    #[test]
    fn quantiles_answer_for_the_window() {
        use crate::ingest::values::{quantile_stats, Values};
        let mut e = Engine::new(EngineOptions {
            value_field: Some(2),
            ..EngineOptions::default()
        });
        // Old requests are slow (10,000 … 14,999), new ones fast (1 … 3,000), and some lines
        // have no number.
        let old: Vec<String> = (0..5_000).map(|i| format!("old {}", 10_000 + i)).collect();
        let new: Vec<String> = (1..=3_000).map(|i| format!("new {i}")).collect();
        feed_at(&mut e, secs(5), &old); // interval 0
        feed_at(&mut e, secs(20), &new[..1_000]); // interval 1
        feed_at(&mut e, secs(62), &new[1_000..]); // interval 4
        feed_at(&mut e, secs(63), &["new -".to_string()]);
        e.advance(secs(80));
        // The last minute holds the new values only: its merged sketch is, bucket for bucket, a
        // sketch of them alone, so its figures are exactly that sketch's (no exact values in a
        // window).
        let mut one = Values::new();
        for i in 1..=3_000u32 {
            one.insert(i);
        }
        let s = window(&mut e, Window::Min1);
        let q = s.quantiles.expect("quantiles");
        assert_eq!(q, quantile_stats(&one, Some(2), 1, None));
        assert!(q.rows[0].estimate < 2_000.0, "{q:?}");
        // Since start: every value, with the exact ones beside the estimates.
        let all = window(&mut e, Window::All).quantiles.unwrap();
        assert_eq!((all.count, all.missing, all.exact_on), (8_000, 1, true));
        let p50 = &all.rows[0];
        assert_eq!(
            p50.exact,
            Some(10_999.0),
            "rank 3,999 of 1 … 3,000, 10,000 … 14,999"
        );
        assert!((p50.estimate - 10_999.0).abs() <= all.alpha * 10_999.0);
        // Five minutes reach back to the start: the same sketch as since start.
        let five = window(&mut e, Window::Min5).quantiles.unwrap();
        assert_eq!(five.rows.len(), 4);
        for (a, b) in five.rows.iter().zip(&all.rows) {
            assert_eq!(a.estimate, b.estimate);
        }
        // The ring's memory counts the quantile sketch of every interval.
        let w = window(&mut e, Window::All).window.unwrap();
        let per = Ring::interval_bytes() + std::mem::size_of::<Values>() as u64;
        assert_eq!((w.held, w.bytes), (6, 6 * per));
        assert_eq!(w.max_bytes, (INTERVALS as u64 + 1) * per);
    }

    #[test]
    fn the_history_counts_each_interval() {
        let mut e = Engine::new(EngineOptions::default());
        feed_at(&mut e, secs(1), &lines("a", 100, 100));
        feed_at(&mut e, secs(16), &lines("b", 40, 4));
        feed_at(&mut e, secs(46), &lines("c", 7, 7));
        e.advance(secs(61));
        let w = window(&mut e, Window::All).window.unwrap();
        assert_eq!(
            w.lines,
            [100, 40, 0, 7, 0],
            "the open interval (60–75 s) last"
        );
        // Each interval's own HyperLogLog: small counts are exact in its sparse form.
        let distinct = |l: Vec<String>| {
            l.into_iter()
                .collect::<std::collections::HashSet<_>>()
                .len() as u64
        };
        let expected = [
            distinct(lines("a", 100, 100)),
            distinct(lines("b", 40, 4)),
            0,
            distinct(lines("c", 7, 7)),
            0,
        ];
        assert_eq!(expected, [22, 2, 0, 4, 0], "squares modulo 100, 4 and 7");
        assert_eq!(w.distinct, expected);
        // Time never goes back: an earlier time changes nothing.
        e.advance(secs(3));
        assert_eq!(
            window(&mut e, Window::All).window.unwrap().lines,
            [100, 40, 0, 7, 0]
        );
        // A reset starts the run's time again.
        e.reset();
        e.advance(secs(2));
        assert_eq!(
            window(&mut e, Window::All).window.unwrap().lines,
            [0],
            "only the open interval"
        );
    }
}
