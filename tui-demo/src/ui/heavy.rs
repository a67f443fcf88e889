//! The heavy-hitters panel: the top lines of a Space-Saving summary, each with the range its true
//! count is guaranteed to lie in (`count − error ≤ true ≤ count`), the true count when the exact
//! table knows it, a bar per line, and `noise` in text on rows whose guaranteed count is at most
//! ε·N (any line could have been counted that often).
//!
//! In device mode the summary is the devices' merged one, and the upper end of the range is the
//! smaller of its count and the merged count-min's estimate.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{fitting_cost, framed, panel_block};
use crate::human::{bytes, count, percent, short};
use crate::snapshot::HeavyStats;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct HeavyPanel<'a> {
    /// The heavy hitters.
    pub stats: &'a HeavyStats,
    /// What an empty list says: "no lines yet", or why there is no row although lines were read
    /// (a window without lines, lines without keys).
    pub empty: &'a str,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

impl Widget for &HeavyPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let devices = s.per_device;
        let cost = if let Some(c) = s.count_min.as_ref().filter(|_| devices) {
            // The longest description whose title fits whole.
            let (k, top, cm) = (s.k, bytes(s.topk_bytes), bytes(c.bytes));
            fitting_cost(
                "Heavy hitters",
                area.width,
                &[
                    format!(
                        "Space-Saving {k} {top} + count-min {}×{} {cm} per device",
                        c.depth, c.width
                    ),
                    format!("Space-Saving {k} {top} + count-min {cm}"),
                    format!("Space-Saving {k} {top}"),
                    format!("{k} ctrs {top} + CM {cm}"),
                    format!("{k} ctrs {top}"),
                ],
            )
        } else if area.width >= 60 {
            format!("Space-Saving {} counters {}", s.k, bytes(s.topk_bytes))
        } else {
            // Narrow: the title still fits whole.
            format!("{} ctrs {}", s.k, bytes(s.topk_bytes))
        };
        let inner = framed(
            panel_block("Heavy hitters", &cost, t, self.focused),
            area,
            buf,
        );
        if inner.is_empty() {
            return;
        }
        let w = inner.width as usize;
        let mut lines = Vec::new();
        let mut head = vec![
            Span::styled("ε·N ", t.dim()),
            Span::styled(count(s.bound), t.value()),
            Span::styled(
                format!(" (ε {}, N {})", percent(s.epsilon), short(s.total as f64)),
                t.dim(),
            ),
        ];
        if w >= 60 {
            head.push(Span::styled(" · truth in [≥, ≤]; noise: ≥ ≤ ε·N", t.dim()));
        }
        lines.push(Line::from(head));
        let wide = w >= 70;
        // Columns: guaranteed, upper, true, bar, noise mark, line.
        let num_w = if wide { 10 } else { 7 };
        let bar_w = if wide {
            10
        } else if w >= 50 {
            5
        } else {
            0
        };
        lines.push(Line::from(Span::styled(
            format!(
                "{:>num_w$} {:>num_w$} {:>num_w$} {:bar_w$} line",
                "true ≥", "true ≤", "exact", "",
            ),
            t.dim(),
        )));
        let top = s.rows.iter().map(|r| r.estimate).max().unwrap_or(1).max(1);
        for r in &s.rows {
            let num = |x: u64| if wide { count(x) } else { short(x as f64) };
            // The summary's bracket, as the JSON's `bounds`: in device mode the merged count-min's
            // estimate is no bound (a device's count-min frame can be older than its summary's).
            let (lower, upper) = r.bounds.unwrap_or((0, r.estimate));
            let (truth, truth_style) = match r.exact {
                Some(x) if (lower..=upper).contains(&x) => (num(x), t.good()),
                Some(x) => (num(x), t.bad()),
                None => ("?".to_string(), t.dim()),
            };
            let mut spans = vec![
                Span::styled(format!("{:>num_w$} ", num(lower)), t.value()),
                Span::styled(format!("{:>num_w$} ", num(upper)), t.dim()),
                Span::styled(format!("{truth:>num_w$} "), truth_style),
            ];
            if bar_w > 0 {
                let (filled, empty) = super::bar(upper as f64 / top as f64, bar_w);
                spans.push(Span::styled(filled, t.bar()));
                spans.push(Span::raw(" ".repeat(empty.chars().count() + 1)));
            }
            if r.noise {
                spans.push(Span::styled("noise ", t.warn()));
            }
            spans.push(Span::raw(r.printable()));
            lines.push(Line::from(spans));
        }
        if s.rows.is_empty() {
            lines.push(Line::from(Span::styled(self.empty, t.dim())));
        }
        if s.overlong > 0 {
            lines.push(Line::from(Span::styled(
                format!(
                    "{} lines too long to list (still counted)",
                    count(s.overlong)
                ),
                t.dim(),
            )));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}
