//! The dedupe / log anti-spam panel: a Bloom filter suppressing lines it has already seen, clearing
//! itself when its false-positive estimate passes a threshold.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{bar_spans, first_fitting, framed, kv, panel_block};
use crate::human::{bytes, count, percent, short};
use crate::snapshot::{DedupeStats, ExactStats};

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct DedupePanel<'a> {
    /// The filter's figures.
    pub stats: &'a DedupeStats,
    /// The exact reference (for the measured false-positive rate and its cost).
    pub exact: &'a ExactStats,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

impl Widget for &DedupePanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let cost = format!("Bloom {} · k={}", bytes(s.bytes), s.hashes);
        let name = if area.width >= 50 {
            "Dedupe · anti-spam"
        } else {
            "Dedupe"
        };
        let inner = framed(panel_block(name, &cost, t, self.focused), area, buf);
        if inner.is_empty() {
            return;
        }
        let w = inner.width as usize;
        let wide = w >= 48;
        let n = |x: u64| if wide { count(x) } else { short(x as f64) };
        let total = s.passed + s.suppressed;
        let share = if total > 0 {
            s.suppressed as f64 / total as f64
        } else {
            0.0
        };
        let mut lines = Vec::new();
        let mut first = kv("passed", n(s.passed), t);
        first.extend(kv(" · dropped", n(s.suppressed), t));
        // The share only whole (cut, "dropped 39.1k 39.3" read as another count).
        let used: usize = first.iter().map(Span::width).sum();
        if let Some(share) = first_fitting([format!(" {}", percent(share))], w.saturating_sub(used))
        {
            first.push(Span::styled(share, t.good()));
        }
        lines.push(Line::from(first));

        let bar_w = if w >= 28 { (w - 21).min(40) } else { 0 };
        let mut fill = vec![Span::styled("fill   ", t.dim())];
        fill.extend(bar_spans(s.fill, bar_w, t.bar(), t));
        fill.push(Span::styled(format!(" {}", percent(s.fill)), t.value()));
        lines.push(Line::from(fill));

        let toward_clear = if s.clear_at > 0.0 {
            s.fp_estimate / s.clear_at
        } else {
            0.0
        };
        let fp_style = if toward_clear > 0.8 {
            t.warn()
        } else {
            t.bar()
        };
        let mut fp = vec![Span::styled("FP est ", t.dim())];
        fp.extend(bar_spans(toward_clear, bar_w, fp_style, t));
        fp.push(Span::styled(
            format!(" {}", percent(s.fp_estimate)),
            t.value(),
        ));
        fp.push(Span::styled(format!("/{}", percent(s.clear_at)), t.dim()));
        lines.push(Line::from(fp));

        let measured = if self.exact.cap == 0 {
            vec![Span::styled("measured FP: exact counting off", t.dim())]
        } else if s.never_seen == 0 {
            vec![Span::styled("measured FP: no new line yet", t.dim())]
        } else {
            let rate = s.false_suppressed as f64 / s.never_seen as f64;
            let mut v = kv("measured FP", percent(rate), t);
            v.push(Span::styled(
                format!(
                    " ({} of {} new{})",
                    n(s.false_suppressed),
                    short(s.never_seen as f64),
                    if self.exact.capped { ", to cap" } else { "" }
                ),
                t.dim(),
            ));
            v
        };
        lines.push(Line::from(measured));

        let mut held = kv("cleared", format!("{}×", count(s.clears)), t);
        held.extend(kv(" · holds ≈", short(s.held), t));
        held.push(Span::styled(" lines", t.dim()));
        lines.push(Line::from(held));
        if self.exact.cap > 0 {
            lines.push(Line::from(vec![
                Span::styled("an exact set of them: ", t.dim()),
                Span::styled(
                    bytes(self.exact.key_bytes.max(self.exact.table_bytes)),
                    t.cost(),
                ),
            ]));
        }

        if inner.height as usize > lines.len() + 1 && !s.recent.is_empty() {
            lines.push(Line::from(Span::styled(
                format!("─ passed lately {}", "─".repeat(w.saturating_sub(16))),
                t.dim(),
            )));
            for l in s.recent.iter().rev() {
                lines.push(Line::from(Span::raw(l.in_a_list())));
            }
        }
        Paragraph::new(lines).render(inner, buf);
    }
}
