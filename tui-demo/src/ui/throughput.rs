//! The ingest throughput panel: lines per second as a sparkline.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline, Widget};

use super::theme::Theme;
use super::{framed, kv, panel_block};
use crate::human::{bytes, count, short};
use crate::snapshot::{Throughput, Totals};

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct ThroughputPanel<'a> {
    /// Throughput figures.
    pub stats: &'a Throughput,
    /// Totals.
    pub totals: &'a Totals,
    /// What is counted: "lines", or "frames" in device mode.
    pub unit: &'static str,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

impl Widget for &ThroughputPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let cost = format!("{}/s", bytes(s.bytes_per_sec as u64));
        let inner = framed(panel_block("Ingest", &cost, t, self.focused), area, buf);
        if inner.is_empty() {
            return;
        }
        let mut first = vec![Span::styled(
            format!("{} {}/s", short(s.lines_per_sec), self.unit),
            t.value(),
        )];
        first.extend(kv(" · peak", short(s.peak as f64), t));
        let mut second = kv("total", count(self.totals.lines), t);
        second.extend(kv(" ·", bytes(self.totals.bytes), t));
        let odd = [
            (self.totals.non_utf8, "not UTF-8"),
            (self.totals.crlf, "CRLF"),
            (self.totals.long, "long"),
            (self.totals.missing_field, "no key field"),
        ];
        for (n, what) in odd {
            if n > 0 {
                second.push(Span::styled(format!(" · {} {what}", count(n)), t.warn()));
            }
        }
        let text = vec![Line::from(first), Line::from(second)];
        let text_h = (text.len() as u16).min(inner.height);
        Paragraph::new(text).render(
            Rect {
                height: text_h,
                ..inner
            },
            buf,
        );
        let spark = Rect {
            y: inner.y + text_h,
            height: inner.height - text_h,
            ..inner
        };
        if spark.is_empty() {
            return;
        }
        let n = spark.width as usize;
        let data: Vec<u64> = s.history.iter().rev().take(n).rev().copied().collect();
        Sparkline::default()
            .data(&data)
            .max((s.peak + s.peak / 4).max(1))
            .style(t.bar())
            .render(spark, buf);
    }
}
