//! The micro filter panel: the 64 bits of a `MicroBloom`, live, in front of a tiny set.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{framed, kv, panel_block};
use crate::human::{bytes, count, percent};
use crate::snapshot::MicroStats;

/// Bits per grid row.
const ROW: u32 = 16;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct MicroPanel<'a> {
    /// The filter's figures.
    pub stats: &'a MicroStats,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

/// The 64 bits as four rows of sixteen cells, bit 0 top left; `cell` is 1 or 2 columns wide.
#[must_use]
pub fn grid(bits: u64, cell: u16, theme: Theme) -> Vec<Line<'static>> {
    let (on, off) = if cell >= 2 {
        ("■ ", "· ")
    } else {
        ("■", "·")
    };
    (0..64 / ROW)
        .map(|row| {
            let spans: Vec<Span<'static>> = (0..ROW)
                .map(|col| {
                    if bits >> (row * ROW + col) & 1 == 1 {
                        Span::styled(on, theme.bar())
                    } else {
                        Span::styled(off, theme.dim())
                    }
                })
                .collect();
            Line::from(spans)
        })
        .collect()
}

impl Widget for &MicroPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let cost = format!("{} filter · {} set", bytes(8), bytes(s.set_bytes));
        let inner = framed(
            panel_block("Micro filter", &cost, t, self.focused),
            area,
            buf,
        );
        if inner.is_empty() {
            return;
        }
        let frac = |n: u64| {
            if s.lookups > 0 {
                n as f64 / s.lookups as f64
            } else {
                0.0
            }
        };
        let maybes = s.hits + s.false_positives;
        let measured_fp = if s.lookups > s.hits {
            s.false_positives as f64 / (s.lookups - s.hits) as f64
        } else {
            0.0
        };
        let mut stats = vec![
            Line::from(kv("lookups", count(s.lookups), t)),
            Line::from({
                let mut v = kv("skipped", percent(frac(s.skipped)), t);
                v.push(Span::styled(" no set scan", t.dim()));
                v
            }),
            Line::from({
                // Of the "maybe" answers, those the set confirmed: the line repeats a recent one.
                let of_maybes = if maybes > 0 {
                    s.hits as f64 / maybes as f64
                } else {
                    0.0
                };
                let mut v = kv("repeats", percent(of_maybes), t);
                v.push(Span::styled(
                    format!(" of {} maybe", count(maybes)),
                    t.dim(),
                ));
                v
            }),
            Line::from({
                let mut v = kv("FP", percent(measured_fp), t);
                v.push(Span::styled(
                    format!(" measured, {} est", percent(s.fp_estimate)),
                    t.dim(),
                ));
                v
            }),
            Line::from(Span::styled(
                format!("k={} · set: last {} distinct lines", s.hashes, s.set_len),
                t.dim(),
            )),
        ];
        // Two-column cells and figures beside the grid when there is room; one-column cells next;
        // the grid above the figures last.
        let cell = if inner.width >= 32 + 34 { 2 } else { 1 };
        let grid_w = ROW as u16 * cell;
        let grid = grid(s.bits, cell, t);
        if inner.width >= grid_w + 24 {
            let g = Rect {
                width: grid_w,
                ..inner
            };
            let r = Rect {
                x: inner.x + grid_w + 2,
                width: inner.width - grid_w - 2,
                ..inner
            };
            Paragraph::new(grid).render(g, buf);
            Paragraph::new(stats).render(r, buf);
        } else {
            let mut lines = grid;
            lines.append(&mut stats);
            Paragraph::new(lines).render(inner, buf);
        }
    }
}
