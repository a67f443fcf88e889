//! `--value-field N`: a numeric field of every line (a response size, a latency) fed to the
//! library's [`QuantileSketch`], with the exact values kept beside it while the exact table is on,
//! so the quantiles panel and the report show each estimate next to the truth.
//!
//! The field is counted on every line read (whatever its key), after `--strip-timestamp` like the
//! key's fields; for JSON-lines logs it is a JSON value instead (`--value-json PATH`, as
//! `--json-key` names one). The windows' ring keeps one more sketch per interval ([`crate::ingest::ring`]); in
//! device mode each device sends its own sketch and the host merges them
//! ([`crate::ingest::fleet`]).

use std::cell::RefCell;

use sketch_nostd::QuantileSketch;

use crate::snapshot::{QuantileRow, QuantileStats};

/// The quantile sketch: α = 0.99% (35 buckets per power of two), 2,048 `u32` counters
/// (8,256 bytes): 58 powers of two of room (for instance 10^-3 … 10^14) before the lowest buckets
/// collapse.
pub type Values = QuantileSketch<35, 2_048>;

/// The quantiles shown and reported.
pub const QUANTILES: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

/// The sketch of one field since the start, and its exact values while there are at most `cap` of
/// them.
#[derive(Clone, Debug)]
pub struct ValueField {
    /// The field's number, from 1 (0 with `json`).
    number: u16,
    /// `--value-json`: the JSON pointer of the value in a JSON-lines log.
    json: Option<String>,
    sketch: Box<Values>,
    /// Every value, until there are more than `cap` (then emptied for good). Reading the figures
    /// sorts what came since the last read, hence the cell.
    exact: RefCell<ExactValues>,
    cap: usize,
    capped: bool,
}

impl ValueField {
    /// Field `number` (from 1, as on the command line), with at most `cap` values kept exactly
    /// (0: none).
    #[must_use]
    pub fn new(number: u16, cap: usize) -> Self {
        Self {
            number,
            json: None,
            sketch: Box::new(Values::new()),
            exact: RefCell::new(ExactValues::default()),
            cap,
            capped: cap == 0,
        }
    }

    /// The value at JSON pointer `pointer` (`/latency_ms`; [`KeyRule::json`] makes one from a
    /// dotted path) of JSON-lines input, with at most `cap` values kept exactly.
    ///
    /// [`KeyRule::json`]: crate::ingest::key::KeyRule::json
    #[must_use]
    pub fn json(pointer: String, cap: usize) -> Self {
        Self {
            json: Some(pointer),
            ..Self::new(0, cap)
        }
    }

    /// The value at a JSON pointer of a JSON line: a number, or a string holding one (`"12.5"`);
    /// `None` if the line is not JSON, lacks it, or it is no finite number.
    ///
    /// ```
    /// use tui_demo::ingest::values::ValueField;
    /// assert_eq!(ValueField::parse_json(br#"{"req":{"ms":12.5}}"#, "/req/ms"), Some(12.5));
    /// assert_eq!(ValueField::parse_json(br#"{"ms":"7"}"#, "/ms"), Some(7.0));
    /// assert_eq!(ValueField::parse_json(b"ms=7", "/ms"), None);
    /// assert_eq!(ValueField::parse_json(b"\xEF\xBB\xBF{\"ms\":3}", "/ms"), Some(3.0));
    /// ```
    #[must_use]
    pub fn parse_json(line: &[u8], pointer: &str) -> Option<f64> {
        let value: serde_json::Value = serde_json::from_slice(super::key::json_text(line)).ok()?;
        let v = match value.pointer(pointer)? {
            serde_json::Value::Number(n) => n.as_f64()?,
            serde_json::Value::String(s) => s.trim().parse().ok()?,
            _ => return None,
        };
        v.is_finite().then_some(v)
    }

    /// The figures of a window's sketch `q` of this field (no exact values: they are kept since
    /// the start only).
    #[must_use]
    pub fn window_stats(&self, q: &Values, missing: u64) -> QuantileStats {
        self.label(quantile_stats(q, None, missing, None))
    }

    /// Names the field in `s`: its number, or its JSON pointer.
    fn label(&self, mut s: QuantileStats) -> QuantileStats {
        s.field = self.json.is_none().then_some(self.number);
        s.json.clone_from(&self.json);
        s
    }

    /// The field as a number: whitespace-separated field `number` (from 1) of `line`, parsed as an
    /// `f64` (`1834`, `0.042`, `-3`, `1e6`); `None` if missing, not a number, NaN or infinite.
    ///
    /// ```
    /// use tui_demo::ingest::values::ValueField;
    /// assert_eq!(ValueField::parse(b"GET /a 200 1834 2417", 5), Some(2417.0));
    /// assert_eq!(ValueField::parse(b"GET /a 200 - 2417", 4), None);
    /// ```
    #[must_use]
    pub fn parse(line: &[u8], number: u16) -> Option<f64> {
        let field = line
            .split(u8::is_ascii_whitespace)
            .filter(|f| !f.is_empty())
            .nth(usize::from(number).checked_sub(1)?)?;
        let v: f64 = std::str::from_utf8(field).ok()?.parse().ok()?;
        v.is_finite().then_some(v)
    }

    /// Counts the field of one line; returns its value, `None` if the line has no number there.
    pub fn line(&mut self, line: &[u8]) -> Option<f64> {
        let v = match &self.json {
            Some(pointer) => Self::parse_json(line, pointer),
            None => Self::parse(line, self.number),
        }?;
        self.sketch.insert(v);
        if !self.capped {
            let exact = self.exact.get_mut();
            if exact.len() < self.cap {
                exact.push(v);
            } else {
                self.capped = true;
                *exact = ExactValues::default();
            }
        }
        Some(v)
    }

    /// The figures since the start, each quantile beside its exact value while the values are all
    /// kept; `missing` is the count of lines without a number.
    #[must_use]
    pub fn stats(&self, missing: u64) -> QuantileStats {
        let exact = if self.capped {
            None
        } else {
            self.exact.borrow_mut().quantiles()
        };
        let mut s = self.label(quantile_stats(&self.sketch, None, missing, exact));
        s.exact_on = !self.capped;
        s.exact_cap = self.cap as u64;
        s.exact_bytes = self.exact.borrow().bytes();
        s
    }

    /// The sketch since the start.
    #[must_use]
    pub fn sketch(&self) -> &Values {
        &self.sketch
    }

    /// The field's number (from 1), or `None` with `--value-json`.
    #[must_use]
    pub fn field(&self) -> Option<u16> {
        self.json.is_none().then_some(self.number)
    }

    /// `--value-json`: the JSON pointer of the value.
    #[must_use]
    pub fn json_pointer(&self) -> Option<&str> {
        self.json.as_deref()
    }
}

/// The figures of any quantile sketch of the `QuantileSketch` family: [`QUANTILES`] (each beside its
/// exact value if `exact` is given), the guarantee, count, extremes and the collapse.
#[must_use]
pub fn quantile_stats<const SUB: usize, const BUCKETS: usize>(
    q: &QuantileSketch<SUB, BUCKETS>,
    field: Option<u16>,
    missing: u64,
    exact: Option<[f64; 4]>,
) -> QuantileStats {
    QuantileStats {
        field,
        json: None,
        count: q.count(),
        missing,
        alpha: q.error_bound(),
        bytes: std::mem::size_of::<QuantileSketch<SUB, BUCKETS>>() as u64,
        min: q.min(),
        max: q.max(),
        collapsed_below: q.collapsed_below(),
        exact_on: false,
        exact_cap: 0,
        exact_bytes: 0,
        rows: QUANTILES
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| {
                let estimate = q.quantile(p)?;
                Some(QuantileRow {
                    q: p,
                    estimate,
                    exact: exact.and_then(|e| e.get(i).copied()),
                    collapsed: q.collapsed_below().is_some_and(|c| estimate <= c),
                })
            })
            .collect(),
    }
}

/// Every value, for the exact quantiles: a sorted run and the values since, sorted when read and
/// merged into the run once they are an eighth of it. A quantile is then the element of a rank in
/// two sorted runs, found by a binary search: a read costs the sort of what is new (and now and
/// then a merge, linear, amortized to a few moves per value), never a pass over all the values, so
/// the live view can read the figures 20 times a second over millions of values.
#[derive(Clone, Debug, Default)]
pub struct ExactValues {
    /// Sorted.
    run: Vec<f64>,
    /// Sorted when read; values are appended to it.
    recent: Vec<f64>,
}

impl ExactValues {
    /// Adds a value (finite: [`ValueField::parse`] refuses the others).
    pub fn push(&mut self, v: f64) {
        self.recent.push(v);
    }

    /// Values held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.run.len() + self.recent.len()
    }

    /// Memory of the values held (what the vectors have allocated).
    #[must_use]
    pub fn bytes(&self) -> u64 {
        ((self.run.capacity() + self.recent.capacity()) * std::mem::size_of::<f64>()) as u64
    }

    /// Whether none is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The exact [`QUANTILES`], with the sketch's rank definition (the element of rank
    /// `⌊q·(n − 1)⌋` from 0, the product rounded as the sketch rounds it); `None` if empty.
    ///
    /// ```
    /// let mut e = tui_demo::ingest::values::ExactValues::default();
    /// for v in (0..1_001).rev() {
    ///     e.push(f64::from(v));
    /// }
    /// assert_eq!(e.quantiles(), Some([500.0, 900.0, 990.0, 999.0]));
    /// ```
    pub fn quantiles(&mut self) -> Option<[f64; 4]> {
        let last = self.len().checked_sub(1)?;
        // A stable sort is a run-adaptive merge sort: the part sorted at the last read is not
        // sorted again.
        self.recent.sort_by(f64::total_cmp);
        if self.recent.len() > self.run.len() / 8 {
            let mut merged = Vec::with_capacity(self.len());
            let (mut a, mut b) = (self.run.iter().peekable(), self.recent.iter().peekable());
            while let (Some(&&x), Some(&&y)) = (a.peek(), b.peek()) {
                if x.total_cmp(&y).is_le() {
                    merged.push(x);
                    a.next();
                } else {
                    merged.push(y);
                    b.next();
                }
            }
            merged.extend(a);
            merged.extend(b);
            self.run = merged;
            self.recent.clear();
        }
        let mut out = [0.0; 4];
        for (o, &q) in out.iter_mut().zip(&QUANTILES) {
            *o = kth(&self.run, &self.recent, (q * last as f64) as usize)?;
        }
        Some(out)
    }
}

/// The element of rank `k` (from 0) of the union of two sorted slices: of the `k + 1` smallest,
/// `i` come from `a`, the first `i` whose `a[i]` is not below the last one taken from `b` (found
/// by a binary search). `None` if `k` is past the end.
fn kth(a: &[f64], b: &[f64], k: usize) -> Option<f64> {
    let take = k.checked_add(1).filter(|&t| t <= a.len() + b.len())?;
    let (mut lo, mut hi) = (take.saturating_sub(b.len()), take.min(a.len()));
    while lo < hi {
        let i = lo + (hi - lo) / 2;
        // Taking `i` from `a` and `take − i` from `b`: take more from `a` if its next is below
        // the last taken from `b`.
        let more = match (a.get(i), (take - i).checked_sub(1).and_then(|j| b.get(j))) {
            (Some(x), Some(y)) => x.total_cmp(y).is_lt(),
            _ => false,
        };
        if more {
            lo = i + 1;
        } else {
            hi = i;
        }
    }
    let from_a = lo.checked_sub(1).and_then(|i| a.get(i));
    let from_b = (take - lo).checked_sub(1).and_then(|j| b.get(j));
    match (from_a, from_b) {
        (Some(x), Some(y)) => Some(x.max(*y)),
        (Some(x), None) | (None, Some(x)) => Some(*x),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse_as_numbers() {
        let line = b"1.2.3.4 - - \"GET / HTTP/1.1\" 200 1834 4210 \"curl/8.5.0\"";
        assert_eq!(ValueField::parse(line, 8), Some(1834.0));
        assert_eq!(ValueField::parse(line, 9), Some(4210.0));
        assert_eq!(ValueField::parse(line, 1), None); // an address, not a number
        assert_eq!(ValueField::parse(line, 0), None);
        assert_eq!(ValueField::parse(line, 40), None);
        assert_eq!(ValueField::parse(b"x -2.5e3", 2), Some(-2500.0));
        assert_eq!(ValueField::parse(b"x NaN", 2), None);
        assert_eq!(ValueField::parse(b"x inf", 2), None);
        assert_eq!(ValueField::parse(b"x \xff", 2), None);
    }

    #[test]
    fn exact_quantiles_use_the_sketch_rank() {
        // Ranks ⌊q·(n − 1)⌋ of 0 … 999 shuffled: the sketch reports the same ranks.
        let mut e = ExactValues::default();
        for i in 0..1_000u32 {
            e.push(f64::from(i * 7_919 % 1_000));
        }
        let exact = e.quantiles().unwrap();
        assert_eq!(exact, [499.0, 899.0, 989.0, 998.0]);
        let mut q = Values::new();
        for i in 0..1_000u32 {
            q.insert(i);
        }
        for (p, x) in QUANTILES.iter().zip(exact) {
            let e = q.quantile(*p).unwrap();
            assert!((e - x).abs() <= Values::ALPHA * x, "{p}: {e} vs {x}");
        }
        let mut one = ExactValues::default();
        assert_eq!(one.quantiles(), None);
        one.push(7.0);
        assert_eq!(one.quantiles(), Some([7.0; 4]));
    }

    #[test]
    fn reads_between_pushes_agree_with_a_full_sort() {
        // Values arrive in chunks of many sizes, read after each: the sorted run and the recent
        // values (merged or not) always give the ranks of a full sort, duplicates and negative
        // values included.
        let mut e = ExactValues::default();
        let mut all = Vec::new();
        let mut x = 12_345u64;
        for chunk in [1usize, 2, 3, 50, 7, 400, 1, 1, 90, 3_000, 5, 20_000, 13] {
            for _ in 0..chunk {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let v = ((x >> 40) % 5_000) as f64 - 1_000.0;
                e.push(v);
                all.push(v);
            }
            all.sort_by(f64::total_cmp);
            let want = QUANTILES.map(|q| all[(q * (all.len() - 1) as f64) as usize]);
            assert_eq!(e.quantiles(), Some(want), "{} values", all.len());
            assert_eq!(e.len(), all.len());
        }
        // Every rank, split between the two runs in many ways.
        for k in 0..all.len() {
            let (a, b) = all.split_at((k * 31) % all.len());
            assert_eq!(kth(b, a, k), Some(all[k]), "{k}");
        }
        assert_eq!(kth(&all, &[], all.len()), None);
    }

    #[test]
    fn estimates_within_alpha_of_exact_and_the_cap_turns_exact_off() {
        let mut f = ValueField::new(2, 10_000);
        for i in 0..5_000u32 {
            // A spread of values over four decades.
            let v = 1.0 + f64::from(i * 7_919 % 5_000).powf(1.7);
            assert_eq!(f.line(format!("x {v}").as_bytes()), Some(v));
        }
        assert_eq!(f.line(b"x -"), None);
        let s = f.stats(1);
        assert_eq!((s.count, s.missing, s.field), (5_000, 1, Some(2)));
        assert!(s.exact_on && s.rows.len() == 4);
        assert!(s.exact_bytes >= 5_000 * 8, "{}", s.exact_bytes);
        for r in &s.rows {
            let exact = r.exact.unwrap();
            assert!((r.estimate - exact).abs() <= s.alpha * exact, "{r:?}");
        }
        // Reading the figures again (the values were reordered) gives the same.
        assert_eq!(f.stats(1), s);
        let mut small = ValueField::new(1, 3);
        for v in ["1", "2", "3", "4"] {
            small.line(v.as_bytes());
        }
        let s = small.stats(0);
        assert!(!s.exact_on && s.rows.iter().all(|r| r.exact.is_none()));
        assert_eq!((s.count, s.exact_cap, s.exact_bytes), (4, 3, 0));
        assert_eq!(std::mem::size_of::<Values>(), 8_256);
    }
}
