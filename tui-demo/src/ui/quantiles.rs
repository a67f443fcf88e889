//! The quantiles panel (`--value-field N`): p50, p90, p99 and p999 of a numeric field from the
//! library's `QuantileSketch`, the guarantee (±α), and the exact value and the error beside each
//! while the exact values are kept; then the warnings (collapse, lines without a number) and the
//! exact extremes. Lines come most important first, so a short panel keeps the quantiles.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{framed, panel_block};
use crate::human::{bytes, count, percent, quantile_name, relative_error, short, value};
use crate::snapshot::QuantileStats;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct QuantilesPanel<'a> {
    /// The sketch's figures.
    pub stats: &'a QuantileStats,
    /// The figures are a window's: exact values (kept since the start) do not apply.
    pub windowed: bool,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

/// Columns of a quantile row: name, estimate, exact, error (36 characters).
const ROW: [usize; 4] = [4, 11, 11, 7];

/// The panel's lines for an inner width of `width` columns.
#[must_use]
pub fn lines(s: &QuantileStats, windowed: bool, width: usize, t: Theme) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    // The guarantee first: what every figure below is worth.
    let mut head = vec![
        Span::styled(count(s.count), t.value()),
        Span::styled(format!(" values · each ±{}", percent(s.alpha)), t.dim()),
    ];
    let missing = format!(" · {} no number", short(s.missing as f64));
    let used: usize = head.iter().map(Span::width).sum();
    if s.missing > 0 && used + missing.chars().count() <= width {
        head.push(Span::styled(missing, t.warn()));
    }
    out.push(Line::from(head));
    // Why there is no exact column, in the 20 columns beside the estimates' (38 at 80×24).
    let why_no_exact = if windowed {
        "exact: since start"
    } else if s.from_devices() {
        "merged, no exact"
    } else if !s.exact_on {
        "exact: off (cap)"
    } else {
        ""
    };
    let header = if why_no_exact.is_empty() {
        format!(
            "{:>w1$} {:>w2$} {:>w3$}",
            "sketch",
            "exact",
            "error",
            w1 = ROW[0] + 1 + ROW[1],
            w2 = ROW[2],
            w3 = ROW[3]
        )
    } else {
        format!("{:>w$}  {why_no_exact}", "sketch", w = ROW[0] + 1 + ROW[1])
    };
    out.push(Line::from(Span::styled(header, t.dim())));
    for r in &s.rows {
        let mut spans = vec![
            Span::styled(
                format!("{:<w$} ", quantile_name(r.q), w = ROW[0]),
                t.accent(),
            ),
            // In the collapsed bucket the value is a bound, "≤", on every row (the note after the
            // rows is below the panel's fold at 80×24, and a row with an exact value had none).
            Span::styled(
                format!(
                    "{:>w$}",
                    if r.collapsed {
                        format!("≤{}", value(r.estimate))
                    } else {
                        value(r.estimate)
                    },
                    w = ROW[1]
                ),
                if r.collapsed { t.warn() } else { t.value() },
            ),
        ];
        if let Some(x) = r.exact {
            // The same error as the report's table: none against an exact 0, capped when huge.
            let err = relative_error(r.estimate, x);
            spans.push(Span::raw(format!(" {:>w$}", value(x), w = ROW[2])));
            spans.push(Span::styled(
                format!(
                    " {:>w$}",
                    err.map_or_else(|| "-".into(), percent),
                    w = ROW[3]
                ),
                match err {
                    Some(e) if e <= s.alpha => t.good(),
                    Some(_) => t.bad(),
                    None => t.dim(),
                },
            ));
        } else if r.collapsed {
            // Reported at the collapsed bucket: it may be a lower value (no guarantee there).
            spans.push(Span::styled(" or lower (collapsed)", t.warn()));
        }
        out.push(Line::from(spans));
    }
    if let Some(c) = s.collapsed_below {
        out.push(Line::from(Span::styled(
            format!("collapsed: ≤{} may be lower", value(c)),
            t.warn(),
        )));
    }
    if s.missing > 0 {
        out.push(Line::from(Span::styled(
            format!("{} lines without a number", count(s.missing)),
            t.warn(),
        )));
    }
    if let (Some(lo), Some(hi)) = (s.min, s.max) {
        out.push(Line::from(vec![
            Span::styled("min ", t.dim()),
            Span::styled(value(lo), t.value()),
            Span::styled(" · max ", t.dim()),
            Span::styled(value(hi), t.value()),
            Span::styled(" (exact)", t.dim()),
        ]));
    }
    if s.exact_bytes > 0 {
        // What the exact column costs, beside the sketch.
        out.push(Line::from(Span::styled(
            format!(
                "exact values {} vs sketch {}",
                bytes(s.exact_bytes),
                bytes(s.bytes)
            ),
            t.dim(),
        )));
    }
    out
}

impl Widget for &QuantilesPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let s = self.stats;
        let title = if s.from_devices() {
            "Quantiles".to_string()
        } else {
            format!("Quantiles {}", s.label())
        };
        let cost = bytes(s.bytes);
        let inner = framed(
            panel_block(&title, &cost, self.theme, self.focused),
            area,
            buf,
        );
        if inner.is_empty() {
            return;
        }
        Paragraph::new(lines(s, self.windowed, inner.width as usize, self.theme))
            .render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::QuantileRow;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn rows_show_estimate_exact_and_error() {
        let s = QuantileStats {
            field: Some(9),
            count: 1_000,
            missing: 3,
            alpha: 0.0099,
            bytes: 8_256,
            min: Some(3.0),
            max: Some(90_000.0),
            exact_on: true,
            rows: vec![QuantileRow {
                q: 0.99,
                estimate: 1_005.0,
                exact: Some(1_000.0),
                collapsed: false,
            }],
            ..QuantileStats::default()
        };
        let shown = text(&lines(&s, false, 38, Theme { color: false }));
        // Lines without a number are in the first line when it has room, always further down.
        assert_eq!(shown[0], "1,000 values · each ±0.99%");
        let wide = text(&lines(&s, false, 40, Theme { color: false }));
        assert_eq!(wide[0], "1,000 values · each ±0.99% · 3 no number");
        assert_eq!(shown[2], "p99        1,005       1,000   0.50%");
        assert_eq!(shown[3], "3 lines without a number");
        assert_eq!(shown[4], "min 3 · max 90,000 (exact)");
        assert!(shown.iter().all(|l| l.chars().count() <= 38), "{shown:?}");
        // In a window, no exact value: the header says why.
        let mut windowed = s.clone();
        windowed.rows[0].exact = None;
        let w = text(&lines(&windowed, true, 38, Theme { color: false }));
        assert!(w[1].ends_with("exact: since start"), "{w:?}");
        assert!(w.iter().all(|l| l.chars().count() <= 38), "{w:?}");
        assert_eq!(w[2].trim_end(), "p99        1,005");
    }

    #[test]
    fn extreme_values_fit_and_huge_errors_are_capped() {
        // The user test's values -3 … 1e300: an estimate of 2.49e282 against an exact 1e-300 is an
        // infinite error (it showed 0%), a 1e280-fold one showed 280 digits.
        let row = |q, estimate, exact| QuantileRow {
            q,
            estimate,
            exact: Some(exact),
            collapsed: false,
        };
        let s = QuantileStats {
            field: Some(2),
            count: 7,
            alpha: 0.0099,
            min: Some(-3.0),
            max: Some(1e300),
            exact_on: true,
            rows: vec![
                row(0.5, 2.49e282, 1e-300),
                row(0.9, 1e300, 5.0),
                row(0.99, -1e-300, -1e-300),
                row(0.999, 4.0, 0.0),
            ],
            ..QuantileStats::default()
        };
        let shown = text(&lines(&s, false, 38, Theme { color: false }));
        assert!(shown.iter().all(|l| l.chars().count() <= 38), "{shown:?}");
        assert_eq!(shown[2], "p50    2.490e282  1.000e-300  >1000%");
        assert_eq!(shown[3], "p90    1.000e300           5  >1000%");
        assert_eq!(shown[4], "p99  -1.000e-300 -1.000e-300      0%");
        // No relative error against an exact 0.
        assert_eq!(shown[5], "p999           4           0       -");
    }

    #[test]
    fn a_collapse_is_said() {
        let s = QuantileStats {
            field: Some(2),
            count: 10,
            alpha: 0.0099,
            collapsed_below: Some(4.0),
            rows: vec![
                QuantileRow {
                    q: 0.5,
                    estimate: 4.0,
                    exact: None,
                    collapsed: true,
                },
                QuantileRow {
                    q: 0.9,
                    estimate: 500.0,
                    exact: None,
                    collapsed: false,
                },
            ],
            ..QuantileStats::default()
        };
        let first = text(&lines(&s, false, 40, Theme { color: false }));
        assert!(first[2].ends_with("or lower (collapsed)"), "{first:?}");
        assert!(first[2].contains("≤4"), "{first:?}");
        assert!(
            !first[3].contains("collapsed") && !first[3].contains('≤'),
            "{first:?}"
        );
        assert_eq!(first[4], "collapsed: ≤4 may be lower");
        // Beside an exact value too (found by a user test: such a row said nothing).
        let mut s = s;
        s.rows[0].exact = Some(1.0);
        let shown = text(&lines(&s, false, 40, Theme { color: false }));
        assert!(shown[2].contains("≤4"), "{shown:?}");
    }
}
