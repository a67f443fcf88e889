//! The device table (device mode): who sent what, what was refused, and what each device adds to
//! the merged view.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{framed, kv, panel_block};
use crate::human::{bytes, count, short};
use crate::snapshot::FleetStats;

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct DevicesPanel<'a> {
    /// The fleet.
    pub stats: &'a FleetStats,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

impl Widget for &DevicesPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let cost = format!(
            "{} × (Bloom {} + count-min {} + HLL {} + Space-Saving {})",
            s.rows.len(),
            bytes(s.seen_bytes),
            bytes(s.freq_bytes),
            bytes(s.distinct_bytes),
            bytes(s.top_bytes)
        );
        let inner = framed(panel_block("Devices", &cost, t, self.focused), area, buf);
        if inner.is_empty() {
            return;
        }
        let mut lines = Vec::new();
        let mut frames = kv("frames", count(s.ok), t);
        frames.push(Span::styled(" ok · ", t.dim()));
        frames.push(Span::styled(
            count(s.bad),
            if s.bad > 0 { t.warn() } else { t.value() },
        ));
        frames.push(Span::styled(" refused · ", t.dim()));
        frames.push(Span::styled(count(s.lost), t.value()));
        frames.push(Span::styled(" lost · ", t.dim()));
        frames.push(Span::styled(bytes(s.bytes), t.cost()));
        lines.push(Line::from(frames));
        if !s.errors.is_empty() {
            let why: Vec<String> = s
                .errors
                .iter()
                .map(|(k, n)| format!("{k} {}", count(*n)))
                .collect();
            let mut v = vec![Span::styled("refused: ", t.dim())];
            v.push(Span::styled(why.join(", "), t.warn()));
            if s.unattributed_bad > 0 {
                v.push(Span::styled(
                    format!(" ({} from unknown senders)", count(s.unattributed_bad)),
                    t.dim(),
                ));
            }
            lines.push(Line::from(v));
        }
        if s.lines_merged > 0 {
            let mut counted = kv("lines counted", count(s.lines_merged), t);
            counted.push(Span::styled(
                " (count-min merged by adding) · ε·N ",
                t.dim(),
            ));
            counted.push(Span::styled(count(s.bound_merged), t.value()));
            lines.push(Line::from(counted));
        }
        let mut merged = kv("lines held: merged ≈", short(s.held_merged), t);
        merged.push(Span::styled(" vs sum ", t.dim()));
        merged.push(Span::styled(short(s.held_sum), t.value()));
        merged.push(Span::styled(" (OR: shared lines once)", t.dim()));
        lines.push(Line::from(merged));
        // The sender's address only when there is room for it.
        let wide = inner.width >= 80;
        let from = |a: &str| {
            if wide {
                format!("{a:<21} ")
            } else {
                String::new()
            }
        };
        lines.push(Line::from(Span::styled(
            format!(
                "{:>6} {}{:>6} {:>6} {:>5} {:>5} {:>7} {:>6} {:>8}",
                "device",
                from("from"),
                "seen",
                "ok",
                "bad",
                "lost",
                "lines",
                "share",
                "distinct"
            ),
            t.dim(),
        )));
        for r in &s.rows {
            let stale = r.last_seen.as_secs_f64() > 5.0;
            // Its share of the merged view: the lines it counted over all lines counted.
            let share = match r.lines {
                Some(n) if s.lines_merged > 0 => {
                    format!("{:.0}%", 100.0 * n as f64 / s.lines_merged as f64)
                }
                _ => "-".into(),
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{:>6} ", r.id), t.value()),
                Span::styled(from(&r.addr), t.dim()),
                Span::styled(
                    format!("{:>5.1}s ", r.last_seen.as_secs_f64()),
                    if stale { t.warn() } else { t.good() },
                ),
                Span::raw(format!("{:>6} ", short(r.ok as f64))),
                Span::styled(
                    format!("{:>5} ", short(r.bad as f64)),
                    if r.bad > 0 { t.warn() } else { t.dim() },
                ),
                Span::raw(format!("{:>5} ", short(r.lost as f64))),
                Span::raw(format!(
                    "{:>7} ",
                    r.lines.map_or("-".into(), |n| short(n as f64))
                )),
                Span::raw(format!("{share:>6} ")),
                Span::raw(format!("{:>8}", r.distinct.map_or("-".into(), short))),
            ]));
        }
        if s.rows.is_empty() {
            lines.push(Line::from(Span::styled(
                "no device yet: try `tui-demo --emit 8` in another terminal",
                t.dim(),
            )));
        }
        Paragraph::new(lines).render(inner, buf);
    }
}
