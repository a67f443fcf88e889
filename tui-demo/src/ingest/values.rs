//! `--value-field N`: a numeric field of every line (a response size, a latency) fed to the
//! library's [`QuantileSketch`], with the exact values kept beside it while the exact table is on,
//! so the quantiles panel and the report show each estimate next to the truth.
//!
//! The field is counted on every line read (whatever its key), after `--strip-timestamp` like the
//! key's fields. The windows' ring keeps one more sketch per interval ([`crate::ingest::ring`]); in
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
    /// The field's number, from 1.
    number: u16,
    sketch: Box<Values>,
    /// Every value, until there are more than `cap` (then emptied for good). Selection reorders it
    /// in place when the figures are read, hence the cell (the order of the values means nothing).
    exact: RefCell<Vec<f64>>,
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
            sketch: Box::new(Values::new()),
            exact: RefCell::new(Vec::new()),
            cap,
            capped: cap == 0,
        }
    }

    /// The field's number, from 1.
    #[must_use]
    pub fn number(&self) -> u16 {
        self.number
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
        let v = Self::parse(line, self.number)?;
        self.sketch.insert(v);
        if !self.capped {
            let exact = self.exact.get_mut();
            if exact.len() < self.cap {
                exact.push(v);
            } else {
                self.capped = true;
                *exact = Vec::new();
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
            exact_quantiles(&mut self.exact.borrow_mut())
        };
        let mut s = quantile_stats(&self.sketch, Some(self.number), missing, exact);
        s.exact_on = !self.capped;
        s.exact_cap = self.cap as u64;
        s
    }

    /// The sketch since the start.
    #[must_use]
    pub fn sketch(&self) -> &Values {
        &self.sketch
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
        count: q.count(),
        missing,
        alpha: q.error_bound(),
        bytes: std::mem::size_of::<QuantileSketch<SUB, BUCKETS>>() as u64,
        min: q.min(),
        max: q.max(),
        collapsed_below: q.collapsed_below(),
        exact_on: false,
        exact_cap: 0,
        rows: QUANTILES
            .iter()
            .enumerate()
            .filter_map(|(i, &p)| {
                Some(QuantileRow {
                    q: p,
                    estimate: q.quantile(p)?,
                    exact: exact.and_then(|e| e.get(i).copied()),
                })
            })
            .collect(),
    }
}

/// The exact [`QUANTILES`] of `values`, with the sketch's rank definition (the element of rank
/// `⌊q·(n − 1)⌋` from 0, the product rounded as `f64` arithmetic does, as the sketch does): by
/// selection in place, each on the part above the previous one (linear time, no sort). `None` if
/// empty.
///
/// ```
/// let mut v: Vec<f64> = (0..1_001).rev().map(f64::from).collect();
/// let q = tui_demo::ingest::values::exact_quantiles(&mut v);
/// assert_eq!(q, Some([500.0, 900.0, 990.0, 999.0]));
/// ```
pub fn exact_quantiles(values: &mut [f64]) -> Option<[f64; 4]> {
    let n = values.len();
    let last = n.checked_sub(1)?;
    let mut out = [0.0; 4];
    // Ranks rise with q: each selection runs on the part above the previous one.
    let mut from = 0;
    for (o, &q) in out.iter_mut().zip(&QUANTILES) {
        let rank = ((q * last as f64) as usize).clamp(from, last);
        let rest = values.get_mut(from..)?;
        let (_, x, _) = rest.select_nth_unstable_by(rank - from, f64::total_cmp);
        *o = *x;
        from = rank;
    }
    Some(out)
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
        let mut v: Vec<f64> = (0..1_000u32)
            .map(|i| f64::from(i * 7_919 % 1_000))
            .collect();
        let exact = exact_quantiles(&mut v).unwrap();
        assert_eq!(exact, [499.0, 899.0, 989.0, 998.0]);
        let mut q = Values::new();
        for i in 0..1_000u32 {
            q.insert(i);
        }
        for (p, x) in QUANTILES.iter().zip(exact) {
            let e = q.quantile(*p).unwrap();
            assert!((e - x).abs() <= Values::ALPHA * x, "{p}: {e} vs {x}");
        }
        assert_eq!(exact_quantiles(&mut [7.0]), Some([7.0; 4]));
        assert_eq!(exact_quantiles(&mut []), None);
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
        assert_eq!((s.count, s.exact_cap), (4, 3));
        assert_eq!(std::mem::size_of::<Values>(), 8_256);
    }
}
