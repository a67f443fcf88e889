//! The heavy-hitters panel: the top-k lines with their count-min estimate beside the true count,
//! a bar per line, and the ε·N bound no estimate should pass.

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
        let cost = format!(
            "count-min {}×{} {} + top-{} {}",
            s.depth,
            s.width,
            bytes(s.cm_bytes),
            s.k,
            bytes(s.topk_bytes)
        );
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
        let num_w = if wide { 10 } else { 7 };
        let bar_w = if wide {
            12
        } else if w >= 50 {
            6
        } else {
            0
        };
        lines.push(Line::from(Span::styled(
            format!(
                "{:>num_w$} {:>num_w$} {:>6} {:bar_w$} line",
                "estimate", "true", "over", "",
            ),
            t.dim(),
        )));
        let top = s.rows.first().map_or(1, |r| r.estimate.max(1));
        for r in &s.rows {
            let num = |x: u64| if wide { count(x) } else { short(x as f64) };
            let (truth, over, over_style) = match r.exact {
                Some(x) => {
                    let over = r.estimate.saturating_sub(x);
                    let style = if r.estimate < x || over > s.bound {
                        t.bad()
                    } else {
                        t.good()
                    };
                    (num(x), format!("+{}", short(over as f64)), style)
                }
                None => ("?".to_string(), "?".to_string(), t.dim()),
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
        Paragraph::new(lines).render(inner, buf);
    }
}
