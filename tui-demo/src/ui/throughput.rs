//! The ingest throughput panel: lines per second as a sparkline, and per window interval the lines
//! and the distinct lines counted (each interval's own HyperLogLog), with the ring's memory.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline, Widget};

use super::theme::Theme;
use super::{framed, kv, panel_block};
use crate::human::{self, bytes, count, short};
use crate::snapshot::{Followed, Throughput, Totals, WindowStats};

/// One row of a text sparkline: the last `width` values, scaled to the largest of them (0 is a
/// blank, anything above 0 at least `▁`).
///
/// ```
/// assert_eq!(tui_demo::ui::throughput::spark(&[0, 1, 4, 8], 8), " ▁▄█");
/// assert_eq!(tui_demo::ui::throughput::spark(&[5, 6, 7], 2), "▇█");
/// ```
#[must_use]
pub fn spark(values: &[u64], width: usize) -> String {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let shown = values
        .get(values.len().saturating_sub(width)..)
        .unwrap_or_default();
    let max = shown.iter().copied().max().unwrap_or(0).max(1);
    shown
        .iter()
        .map(|&v| {
            if v == 0 {
                ' '
            } else {
                let level = ((v as f64 / max as f64) * 8.0).ceil() as usize;
                LEVELS.get(level.clamp(1, 8) - 1).copied().unwrap_or('█')
            }
        })
        .collect()
}

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct ThroughputPanel<'a> {
    /// Throughput figures.
    pub stats: &'a Throughput,
    /// Totals.
    pub totals: &'a Totals,
    /// The windows: per-interval history and the ring's memory (not in device mode).
    pub window: Option<&'a WindowStats>,
    /// `--follow`: the followed files (their rotations and truncations are shown).
    pub follow: &'a [Followed],
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
        let odd: Vec<String> = [
            (self.totals.non_utf8, "not UTF-8"),
            (self.totals.crlf, "CRLF"),
            (self.totals.long, "long"),
            (self.totals.missing_field, "no key field"),
        ]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{} {what}", count(n)))
        .collect();
        let width = inner.width as usize;
        let mut text = vec![Line::from(first)];
        // What was odd in the input after the totals, or on a line of its own where it does not
        // fit beside them (it was cut: "… 10 no key fie").
        let odd_line = odd.join(" · ");
        let beside = Line::from(second.clone()).width() + 3 + odd_line.chars().count();
        if odd.is_empty() {
            text.push(Line::from(second));
        } else if beside <= usize::from(inner.width) {
            second.push(Span::styled(format!(" · {odd_line}"), t.warn()));
            text.push(Line::from(second));
        } else {
            text.push(Line::from(second));
            // As many to a line as fit.
            let mut line = String::new();
            for item in odd {
                if !line.is_empty() && line.chars().count() + 3 + item.chars().count() > width {
                    text.push(Line::from(Span::styled(
                        std::mem::take(&mut line),
                        t.warn(),
                    )));
                }
                if !line.is_empty() {
                    line.push_str(" · ");
                }
                line.push_str(&item);
            }
            text.push(Line::from(Span::styled(line, t.warn())));
        }
        // What happened to followed files (a name still waited for is said in the footer): a
        // line each, the name's end kept when it is cut (the file name, not the directories
        // shared by all: every file's news on one line showed the first's directory, cut).
        let changed: Vec<&Followed> = self
            .follow
            .iter()
            .filter(|f| f.rotations + f.truncations > 0)
            .collect();
        const FOLLOW_LINES: usize = 3;
        for (i, f) in changed.iter().enumerate().take(FOLLOW_LINES) {
            let line = if i + 1 == FOLLOW_LINES && changed.len() > FOLLOW_LINES {
                format!(
                    "and {} more followed files rotated or truncated (the summary on quit lists them)",
                    changed.len() - i
                )
            } else {
                let what = f.changes();
                let room = width.saturating_sub(what.chars().count() + 2).max(8);
                format!(
                    "{}: {what}",
                    tail(&human::printable(f.file.as_bytes(), 4096), room)
                )
            };
            text.push(Line::from(Span::styled(line, t.dim())));
        }
        if let Some(win) = self.window {
            // Per interval, oldest left, newest right, each with its scale's top as a legend.
            let per = format!("/{}s", win.interval.as_secs());
            let width = (inner.width as usize).saturating_sub(9 + 8 + per.len());
            for (what, values) in [("lines", &win.lines), ("distinct", &win.distinct)] {
                let max = values
                    .get(values.len().saturating_sub(width)..)
                    .unwrap_or_default()
                    .iter()
                    .copied()
                    .max()
                    .unwrap_or(0);
                text.push(Line::from(vec![
                    Span::styled(format!("{what:<9}"), t.dim()),
                    Span::styled(format!("{:<width$}", spark(values, width)), t.bar()),
                    Span::styled(format!(" ≤{}{per}", short(max as f64)), t.dim()),
                ]));
            }
            let mut ring = vec![Span::styled(win.label, t.accent())];
            ring.extend(kv(" · ring", bytes(win.bytes), t));
            ring.push(Span::styled(
                format!(" ≤{}", bytes(win.max_bytes)),
                t.cost(),
            ));
            text.push(Line::from(ring));
        }
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

/// The last `max` characters of `name`, `…` first when it is cut (a path's end names the file).
///
/// ```
/// # use tui_demo::ui::throughput::tail;
/// assert_eq!(tail("logs/app.log", 20), "logs/app.log");
/// assert_eq!(tail("very/long/dir/app.log", 8), "…app.log");
/// ```
#[must_use]
pub fn tail(name: &str, max: usize) -> String {
    let n = name.chars().count();
    if n <= max {
        return name.to_string();
    }
    let kept: String = name.chars().skip(n + 1 - max.max(1)).collect();
    format!("…{kept}")
}
