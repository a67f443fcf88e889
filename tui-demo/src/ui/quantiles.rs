//! The quantiles panel (`--value-field N`): p50, p90, p99 and p999 of a numeric field from a
//! `QuantileSketch`, the guarantee (±α), and the exact value beside each while the exact table is on.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{framed, kv, panel_block};
use crate::human::{bytes, count, percent};
use crate::report::quantile_name;
use crate::snapshot::QuantileStats;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct QuantilesPanel<'a> {
    /// The sketch's figures.
    pub stats: &'a QuantileStats,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

/// A value in at most 10 columns: integers as they are, others with 4 significant digits.
#[must_use]
pub fn value(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e10 {
        format!("{x:.0}")
    } else if x != 0.0 && (x.abs() >= 1e6 || x.abs() < 1e-3) {
        format!("{x:.3e}")
    } else {
        let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{x:.digits$}")
    }
}

/// The panel's lines: the guarantee, then one line per quantile (estimate, exact, error).
#[must_use]
pub fn lines(s: &QuantileStats, t: Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from({
        let mut v = kv("values", count(s.count), t);
        v.push(Span::styled(
            format!(" · each within ±{} of the truth", percent(s.alpha)),
            t.dim(),
        ));
        v
    })];
    out.push(Line::from(Span::styled(
        format!(
            "{:>5} {:>11} {:>11} {:>7}",
            "",
            "sketch",
            if s.exact_on { "exact" } else { "(exact off)" },
            "error"
        ),
        t.dim(),
    )));
    for r in &s.rows {
        let mut spans = vec![
            Span::styled(format!("{:>5} ", quantile_name(r.q)), t.accent()),
            Span::styled(format!("{:>11}", value(r.estimate)), t.value()),
        ];
        if let Some(x) = r.exact {
            let err = if x == 0.0 {
                0.0
            } else {
                (r.estimate - x).abs() / x.abs()
            };
            spans.push(Span::raw(format!(" {:>11}", value(x))));
            spans.push(Span::styled(
                format!(" {:>7}", percent(err)),
                if err <= s.alpha { t.good() } else { t.bad() },
            ));
        }
        out.push(Line::from(spans));
    }
    if let (Some(lo), Some(hi)) = (s.min, s.max) {
        out.push(Line::from(Span::styled(
            format!("min {} · max {} (exact)", value(lo), value(hi)),
            t.dim(),
        )));
    }
    if s.missing > 0 {
        out.push(Line::from(Span::styled(
            format!(
                "{} lines without a number in field {}",
                count(s.missing),
                s.field
            ),
            t.warn(),
        )));
    }
    if let Some(c) = s.collapsed_below {
        out.push(Line::from(Span::styled(
            format!("collapsed below {}: quantiles there may be lower", value(c)),
            t.warn(),
        )));
    }
    out
}

impl Widget for &QuantilesPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let s = self.stats;
        let title = format!("Quantiles · field {}", s.field);
        let cost = format!("{} sketch", bytes(s.bytes));
        let inner = framed(
            panel_block(&title, &cost, self.theme, self.focused),
            area,
            buf,
        );
        if inner.is_empty() {
            return;
        }
        Paragraph::new(lines(s, self.theme)).render(inner, buf);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::QuantileRow;

    #[test]
    fn rows_show_estimate_exact_and_error() {
        let s = QuantileStats {
            field: 9,
            count: 1_000,
            alpha: 0.0099,
            bytes: 8_256,
            min: Some(3.0),
            max: Some(90_000.0),
            exact_on: true,
            rows: vec![QuantileRow {
                q: 0.99,
                estimate: 1_005.0,
                exact: Some(1_000.0),
            }],
            ..QuantileStats::default()
        };
        let text: Vec<String> = lines(&s, Theme { color: false })
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert!(text[0].contains("±0.99%"), "{text:?}");
        assert!(text[2].contains("p99") && text[2].contains("1005") && text[2].contains("1000"));
        assert!(text[2].contains("0.50%"), "{text:?}");
        assert_eq!(
            (value(0.04213), value(1e12 + 0.5)),
            ("0.04213".into(), "1.000e12".into())
        );
    }
}
