//! `--value-field N`: a numeric field of every line (a response size, a latency) fed to a
//! [`QuantileSketch`], with the exact values kept beside it while the exact table is on, so the
//! quantiles panel and the report show each estimate next to the truth.

use sketch_nostd::QuantileSketch;

use crate::snapshot::{QuantileRow, QuantileStats};

/// The quantile sketch: α = 0.99% (35 buckets per power of two), 2,048 `u32` counters
/// (8,256 bytes), 58 powers of two of room (for instance 10^-3 … 10^14) before the lowest buckets
/// collapse.
pub type Values = QuantileSketch<35, 2_048>;

/// The quantiles shown and reported.
pub const QUANTILES: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

/// The sketch of one field, and the exact values while there are at most `cap` of them.
#[derive(Clone, Debug)]
pub struct ValueField {
    /// 0-based field index.
    index: u16,
    sketch: Box<Values>,
    /// Every value, until there are more than `cap` (then emptied for good).
    exact: Vec<f64>,
    cap: usize,
    capped: bool,
    /// Lines without the field, or whose field is not a number.
    missing: u64,
}

impl ValueField {
    /// Field `number` (from 1, as on the command line), with at most `cap` values kept exactly
    /// (0: none).
    #[must_use]
    pub fn new(number: u16, cap: usize) -> Self {
        Self {
            index: number.saturating_sub(1),
            sketch: Box::new(Values::new()),
            exact: Vec::new(),
            cap,
            capped: cap == 0,
            missing: 0,
        }
    }

    /// The field as a number: whitespace-separated field `N` of `line`, parsed as an `f64`
    /// (`1834`, `0.042`, `-3`, `1e6`); `None` if missing or not a number (or NaN).
    #[must_use]
    pub fn parse(line: &[u8], index: u16) -> Option<f64> {
        let field = line
            .split(u8::is_ascii_whitespace)
            .filter(|f| !f.is_empty())
            .nth(usize::from(index))?;
        let v: f64 = std::str::from_utf8(field).ok()?.parse().ok()?;
        (!v.is_nan()).then_some(v)
    }

    /// Counts the field of one line.
    pub fn line(&mut self, line: &[u8]) {
        let Some(v) = Self::parse(line, self.index) else {
            self.missing += 1;
            return;
        };
        self.sketch.insert(v);
        if !self.capped {
            if self.exact.len() < self.cap {
                self.exact.push(v);
            } else {
                self.capped = true;
                self.exact = Vec::new();
            }
        }
    }

    /// The figures for the panel and the report.
    #[must_use]
    pub fn stats(&self) -> QuantileStats {
        let s = &self.sketch;
        let exact = (!self.capped && !self.exact.is_empty()).then(|| exact_quantiles(&self.exact));
        QuantileStats {
            field: self.index + 1,
            count: s.count(),
            missing: self.missing,
            alpha: Values::ALPHA,
            bytes: std::mem::size_of::<Values>() as u64,
            min: s.min(),
            max: s.max(),
            collapsed_below: s.collapsed_below(),
            exact_on: !self.capped,
            rows: QUANTILES
                .iter()
                .enumerate()
                .filter_map(|(i, &q)| {
                    Some(QuantileRow {
                        q,
                        estimate: s.quantile(q)?,
                        exact: exact.map(|e| e[i]),
                    })
                })
                .collect(),
        }
    }
}

/// The exact [`QUANTILES`] of `values`, with the sketch's rank definition (the element of rank
/// `⌊q·(n − 1)⌋` from 0): a copy, partitioned once per quantile (linear time, no full sort).
#[must_use]
pub fn exact_quantiles(values: &[f64]) -> [f64; 4] {
    let mut v = values.to_vec();
    let n = v.len();
    let mut out = [f64::NAN; 4];
    // Ranks rise with q: each selection runs on the part above the previous one.
    let mut from = 0;
    for (o, &q) in out.iter_mut().zip(&QUANTILES) {
        let rank = ((q * (n - 1) as f64) as usize).max(from);
        let rest = v.get_mut(from..).unwrap_or_default();
        if rest.is_empty() {
            break;
        }
        let (_, x, _) = rest.select_nth_unstable_by(rank - from, f64::total_cmp);
        *o = *x;
        from = rank;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_parse_as_numbers() {
        let line = b"1.2.3.4 - - \"GET / HTTP/1.1\" 200 1834 4210 \"curl/8.5.0\"";
        assert_eq!(ValueField::parse(line, 7), Some(1834.0));
        assert_eq!(ValueField::parse(line, 8), Some(4210.0));
        assert_eq!(ValueField::parse(line, 0), None); // not a number
        assert_eq!(ValueField::parse(line, 40), None);
        assert_eq!(ValueField::parse(b"x -2.5e3", 1), Some(-2500.0));
        assert_eq!(ValueField::parse(b"x NaN", 1), None);
    }

    #[test]
    fn exact_quantiles_use_the_sketch_rank() {
        let values: Vec<f64> = (0..1_001).rev().map(f64::from).collect();
        assert_eq!(exact_quantiles(&values), [500.0, 900.0, 990.0, 999.0]);
        assert_eq!(exact_quantiles(&[7.0]), [7.0; 4]);
    }

    #[test]
    fn estimates_within_alpha_of_exact_and_the_cap_turns_exact_off() {
        let mut f = ValueField::new(2, 10_000);
        for i in 0..5_000u32 {
            // A spread of values over four decades, and a line without a number.
            let v = 1.0 + f64::from(i * 7_919 % 5_000).powf(1.7);
            f.line(format!("x {v}").as_bytes());
        }
        f.line(b"x -");
        let s = f.stats();
        assert_eq!((s.count, s.missing, s.field), (5_000, 1, 2));
        assert!(s.exact_on && s.rows.len() == 4);
        for r in &s.rows {
            let exact = r.exact.unwrap();
            assert!((r.estimate - exact).abs() <= s.alpha * exact, "{r:?}");
        }
        let mut small = ValueField::new(1, 3);
        for v in ["1", "2", "3", "4"] {
            small.line(v.as_bytes());
        }
        let s = small.stats();
        assert!(!s.exact_on && s.rows.iter().all(|r| r.exact.is_none()));
        assert_eq!(s.count, 4);
        assert_eq!(std::mem::size_of::<Values>(), 8_256);
    }
}
