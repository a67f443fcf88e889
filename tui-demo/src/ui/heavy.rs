//! The heavy-hitters panel: the top-k lines with their count-min estimate beside the true count,
//! a bar per line, and the ε·N bound no estimate should pass.
//!
//! In device mode the host knows no true counts: the lines are the merged Space-Saving summary's,
//! and beside each merged count-min estimate is the count the line is guaranteed to have reached
//! (Space-Saving's lower bound), so "over ≤" is the most the estimate can be above the truth.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{framed, panel_block};
use crate::human::{bytes, count, percent, short};
use crate::snapshot::HeavyStats;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct HeavyPanel<'a> {
    /// The heavy hitters.
    pub stats: &'a HeavyStats,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

impl Widget for &HeavyPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let devices = s.per_device;
        let cost = if devices {
            format!(
                "Space-Saving {} {} + count-min {}×{} {} per device",
                s.k,
                bytes(s.topk_bytes),
                s.depth,
                s.width,
                bytes(s.cm_bytes)
            )
        } else {
            format!(
                "count-min {}×{} {} + top-{} {}",
                s.depth,
                s.width,
                bytes(s.cm_bytes),
                s.k,
                bytes(s.topk_bytes)
            )
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
        lines.push(Line::from(vec![
            Span::styled("ε·N bound ", t.dim()),
            Span::styled(count(s.bound), t.value()),
            Span::styled(
                format!(
                    " (ε {}, δ {}, N {})",
                    percent(s.epsilon),
                    percent(s.delta),
                    short(s.total as f64)
                ),
                t.dim(),
            ),
        ]));
        let wide = w >= 70;
        // Columns: estimate, true, over-estimate, bar, line.
        // Wide enough for the "estimate" header (8) in narrow panels too.
        let num_w = if wide { 10 } else { 8 };
        let bar_w = if wide {
            12
        } else if w >= 46 {
            6
        } else {
            0
        };
        let (true_h, over_h) = if devices {
            ("true ≥", "over ≤")
        } else {
            ("true", "over")
        };
        lines.push(Line::from(Span::styled(
            format!(
                "{:>num_w$} {true_h:>num_w$} {over_h:>6} {:bar_w$} line",
                "estimate", "",
            ),
            t.dim(),
        )));
        let top = s.rows.first().map_or(1, |r| r.estimate.max(1));
        for r in &s.rows {
            let num = |x: u64| if wide { count(x) } else { short(x as f64) };
            let (truth, over, over_style) = match (r.exact, r.bounds) {
                (Some(x), _) => {
                    let over = r.estimate.saturating_sub(x);
                    let style = if r.estimate < x || over > s.bound {
                        t.bad()
                    } else {
                        t.good()
                    };
                    (num(x), format!("+{}", short(over as f64)), style)
                }
                // Device mode: the truth is at least `lower`, so the estimate is at most this
                // much too high; above ε·N only if the summary's own error is large too.
                (None, Some((lower, _))) => {
                    let over = r.estimate.saturating_sub(lower);
                    let style = if r.estimate < lower {
                        t.bad()
                    } else if over > s.bound {
                        t.warn()
                    } else {
                        t.good()
                    };
                    (num(lower), format!("+{}", short(over as f64)), style)
                }
                (None, None) => ("?".to_string(), "?".to_string(), t.dim()),
            };
            let mut spans = vec![
                Span::styled(format!("{:>num_w$} ", num(r.estimate)), t.value()),
                Span::styled(format!("{truth:>num_w$} "), t.dim()),
                Span::styled(format!("{over:>6} "), over_style),
            ];
            if bar_w > 0 {
                let (filled, empty) = super::bar(r.estimate as f64 / top as f64, bar_w);
                spans.push(Span::styled(filled, t.bar()));
                spans.push(Span::raw(" ".repeat(empty.chars().count() + 1)));
            }
            spans.push(Span::raw(r.line.clone()));
            lines.push(Line::from(spans));
        }
        if s.rows.is_empty() {
            lines.push(Line::from(Span::styled("no lines yet", t.dim())));
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
