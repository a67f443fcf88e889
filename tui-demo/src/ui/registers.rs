//! The HyperLogLog register histogram: how many registers hold each value. A healthy sketch looks
//! like a geometric bump around log2(n/m); the zero column shrinks as registers fill.

use ratatui::buffer::Buffer;
use ratatui::layout::{Direction, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph, Widget};

use super::theme::Theme;
use super::{framed, panel_block};
use crate::human::{bytes, count, short};
use crate::snapshot::RegisterStats;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct RegistersPanel<'a> {
    /// The registers' histogram.
    pub stats: &'a RegisterStats,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

impl Widget for &RegistersPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let cost = if area.width >= 50 {
            format!(
                "{} × 6 bits = {}",
                count(u64::from(s.registers)),
                bytes(s.bytes)
            )
        } else {
            format!("{} × 6 b {}", short(f64::from(s.registers)), bytes(s.bytes))
        };
        let inner = framed(
            panel_block("HLL registers", &cost, t, self.focused),
            area,
            buf,
        );
        if inner.is_empty() {
            return;
        }
        // The legend: what the axes are, and the scale's top (the bars' numbers show only when
        // they fit).
        let tallest = s.counts.iter().copied().max().unwrap_or(0);
        let inner = if inner.height >= 5 {
            let legend = if inner.width >= 60 {
                format!(
                    "↑ registers per value (tallest {}) · → value: leading zeros + 1",
                    short(f64::from(tallest))
                )
            } else {
                format!("↑ registers, ≤{} · → value", short(f64::from(tallest)))
            };
            Paragraph::new(Line::styled(legend, t.dim())).render(Rect { height: 1, ..inner }, buf);
            Rect {
                y: inner.y + 1,
                height: inner.height - 1,
                ..inner
            }
        } else {
            inner
        };
        // Values from 0 to the highest one present (at least 0..=8 so the shape reads).
        let last = s
            .counts
            .iter()
            .rposition(|&c| c > 0)
            .unwrap_or(0)
            .max(8)
            .min(s.counts.len().saturating_sub(1));
        let values = s.counts.get(..=last).unwrap_or_default();
        // Bars one or two cells wide with a gap, as many values as fit.
        let n = values.len().max(1) as u16;
        let bar_width = if inner.width >= n * 2 { 2 } else { 1 };
        let gap = u16::from(inner.width >= n * (bar_width + 1));
        let bars: Vec<Bar> = values
            .iter()
            .map(|&c| {
                Bar::default()
                    .value(u64::from(c))
                    .text_value(if bar_width >= 2 && gap > 0 && c > 0 {
                        short(f64::from(c))
                    } else {
                        String::new()
                    })
                    .style(t.bar())
            })
            .collect();
        if inner.height < 2 {
            return;
        }
        let chart = Rect {
            height: inner.height - 1,
            ..inner
        };
        BarChart::default()
            .direction(Direction::Vertical)
            .bar_width(bar_width)
            .bar_gap(gap)
            .value_style(t.value())
            .data(BarGroup::default().bars(&bars))
            .render(chart, buf);
        // The value axis under the bars, every `step`-th value where the labels need more room
        // than a bar has (the chart's own labels are cut to a bar's width: 10 … 17 showed as 1).
        let axis = Rect {
            y: inner.y + inner.height - 1,
            height: 1,
            ..inner
        };
        Paragraph::new(Line::styled(
            value_axis(values.len(), bar_width + gap, axis.width),
            t.dim(),
        ))
        .render(axis, buf);
    }
}

/// The labels of `n` values whose bars start every `pitch` cells, in `width` cells: each under its
/// bar's first cell, every value or every 2nd, 5th or 10th where two-digit labels need the room.
///
/// ```
/// use tui_demo::ui::registers::value_axis;
/// assert_eq!(value_axis(12, 3, 40), "0  1  2  3  4  5  6  7  8  9  10 11");
/// assert_eq!(value_axis(18, 1, 30), "0    5    10   15");
/// ```
#[must_use]
pub fn value_axis(n: usize, pitch: u16, width: u16) -> String {
    let pitch = usize::from(pitch.max(1));
    let widest = n.saturating_sub(1).to_string().len();
    let step = [1, 2, 5, 10]
        .into_iter()
        .find(|s| s * pitch > widest)
        .unwrap_or(10);
    let mut axis = String::new();
    for v in (0..n).step_by(step) {
        let at = v * pitch;
        let label = v.to_string();
        if at + label.len() > usize::from(width) {
            break;
        }
        while axis.len() < at {
            axis.push(' ');
        }
        axis.push_str(&label);
    }
    axis
}
