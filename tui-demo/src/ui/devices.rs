//! The device table (device mode): who sent what, what was refused, and what each device adds to
//! the merged view.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{first_fitting, fitting_cost, framed, kv, panel_block};
use crate::human::{bytes, count, short};
use crate::snapshot::{DeviceRow, FleetStats};

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

/// A device row's frames ok, refused (in the warning style when any), lost, and lines counted, each
/// right-aligned in its width (`widths`, in that order) and followed by a space: the cells the
/// compact and the wide table share.
fn count_cells(
    r: &DeviceRow,
    t: Theme,
    [ok, bad, lost, counted]: [usize; 4],
) -> [Span<'static>; 4] {
    [
        Span::raw(format!("{:>ok$} ", short(r.ok as f64))),
        Span::styled(
            format!("{:>bad$} ", short(r.bad as f64)),
            if r.bad > 0 { t.warn() } else { t.dim() },
        ),
        Span::raw(format!("{:>lost$} ", short(r.lost as f64))),
        Span::raw(format!(
            "{:>counted$} ",
            r.lines.map_or("-".into(), |n| short(n as f64))
        )),
    ]
}

impl DevicesPanel<'_> {
    /// The device table in 36 columns: id, last seen, frames ok / refused / lost, lines counted
    /// and distinct count (the share and the sender's address left out).
    fn compact_table(&self, lines: &mut Vec<Line<'static>>) {
        let (s, t) = (self.stats, self.theme);
        lines.push(Line::from(Span::styled(
            format!(
                "{:>4} {:>5} {:>4} {:>3} {:>4} {:>5} {:>5}",
                "dev", "seen", "ok", "bad", "lost", "lines", "dist"
            ),
            t.dim(),
        )));
        for r in &s.rows {
            let stale = r.last_seen.as_secs_f64() > 5.0;
            let mut cells = vec![
                Span::styled(format!("{:>4} ", r.id), t.value()),
                Span::styled(
                    format!("{:>4.1}s ", r.last_seen.as_secs_f64().min(99.9)),
                    if stale { t.warn() } else { t.good() },
                ),
            ];
            cells.extend(count_cells(r, t, [4, 3, 4, 5]));
            cells.push(Span::raw(format!(
                "{:>5}",
                r.distinct.map_or("-".into(), short)
            )));
            lines.push(Line::from(cells));
        }
        if s.rows.is_empty() {
            lines.push(Line::from(Span::styled("no device yet: emit 8", t.dim())));
        }
    }
}

impl Widget for &DevicesPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, t) = (self.stats, self.theme);
        let n = s.rows.len();
        let (bloom, cm, hll, top) = (
            bytes(s.seen_bytes),
            bytes(s.freq_bytes),
            bytes(s.distinct_bytes),
            bytes(s.top_bytes),
        );
        // The longest description whose title fits whole.
        let cost = fitting_cost(
            "Devices",
            area.width,
            &[
                format!("{n} × (Bloom {bloom} + count-min {cm} + HLL {hll} + Space-Saving {top})"),
                format!("{n} × (Bloom {bloom} + CM {cm} + HLL {hll} + SS {top})"),
                format!(
                    "{n} × {}",
                    bytes(s.seen_bytes + s.freq_bytes + s.distinct_bytes + s.top_bytes)
                ),
            ],
        );
        let inner = framed(panel_block("Devices", &cost, t, self.focused), area, buf);
        if inner.is_empty() {
            return;
        }
        // A narrow panel (80×24) drops the notes and uses a compact table, so nothing is cut.
        let narrow = inner.width < 60;
        let mut lines = Vec::new();
        let mut frames = kv(
            "frames",
            if narrow {
                short(s.ok as f64)
            } else {
                count(s.ok)
            },
            t,
        );
        frames.push(Span::styled(" ok · ", t.dim()));
        frames.push(Span::styled(
            if narrow {
                short(s.bad as f64)
            } else {
                count(s.bad)
            },
            if s.bad > 0 { t.warn() } else { t.value() },
        ));
        frames.push(Span::styled(" refused · ", t.dim()));
        frames.push(Span::styled(
            if narrow {
                short(s.lost as f64)
            } else {
                count(s.lost)
            },
            t.value(),
        ));
        frames.push(Span::styled(" lost", t.dim()));
        if s.repeated > 0 && !narrow {
            // Datagrams the network delivered twice: not frames of their own.
            frames.push(Span::styled(
                format!(" · {} repeated", count(s.repeated)),
                t.dim(),
            ));
        }
        if !narrow {
            frames.push(Span::styled(" · ", t.dim()));
            frames.push(Span::styled(bytes(s.bytes), t.cost()));
        }
        lines.push(Line::from(frames));
        if !s.errors.is_empty() {
            let why: Vec<String> = s
                .errors
                .iter()
                .map(|(k, n)| format!("{k} {}", count(*n)))
                .collect();
            let mut v = vec![Span::styled("refused: ", t.dim())];
            v.push(Span::styled(why.join(", "), t.warn()));
            if s.unattributed_bad > 0 && !narrow {
                v.push(Span::styled(
                    format!(" ({} from unknown senders)", count(s.unattributed_bad)),
                    t.dim(),
                ));
            }
            lines.push(Line::from(v));
        }
        if let Some(ids) = s.shared_id_list() {
            // Short, to fit the panel at 80×24 (the report has the whole warning); the ids that
            // do not fit end with `…`.
            let room = usize::from(inner.width.saturating_sub(1));
            let text = format!("⚠ ids of two devices: {ids}");
            let text = crate::human::KeyText::new(text.as_bytes(), false, room).printable();
            lines.push(Line::from(Span::styled(text, t.warn())));
        }
        if s.lines_merged > 0 {
            let mut counted = kv("lines counted", count(s.lines_merged), t);
            counted.push(Span::styled(
                if narrow {
                    " · ε·N "
                } else {
                    " (count-min merged by adding) · ε·N "
                },
                t.dim(),
            ));
            counted.push(Span::styled(count(s.bound_merged), t.value()));
            lines.push(Line::from(counted));
        }
        let label = if narrow {
            "held: merged ≈"
        } else {
            "lines held: merged ≈"
        };
        let mut merged = kv(label, short(s.held_merged), t);
        merged.push(Span::styled(" vs sum ", t.dim()));
        merged.push(Span::styled(short(s.held_sum), t.value()));
        if !narrow {
            // What they hold goes down as well as up: each filter clears itself when full. The
            // longest note that fits (at 120×32 it was cut after "each").
            let used: usize = merged.iter().map(Span::width).sum();
            let note = first_fitting(
                [
                    " (OR: shared lines once; each clears when full)",
                    " (OR: shared lines once)",
                ],
                usize::from(inner.width).saturating_sub(used),
            );
            if let Some(note) = note {
                merged.push(Span::styled(note, t.dim()));
            }
        }
        lines.push(Line::from(merged));
        let table_at = lines.len();
        if narrow {
            self.compact_table(&mut lines);
            let lines = fit_rows(lines, table_at, s.rows.len(), inner.height.into(), t);
            Paragraph::new(lines).render(inner, buf);
            return;
        }
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
            let mut cells = vec![
                Span::styled(format!("{:>6} ", r.id), t.value()),
                Span::styled(from(&r.addr), t.dim()),
                Span::styled(
                    format!("{:>5.1}s ", r.last_seen.as_secs_f64()),
                    if stale { t.warn() } else { t.good() },
                ),
            ];
            cells.extend(count_cells(r, t, [6, 5, 5, 7]));
            cells.push(Span::raw(format!("{share:>6} ")));
            cells.push(Span::raw(format!(
                "{:>8}",
                r.distinct.map_or("-".into(), short)
            )));
            lines.push(Line::from(cells));
        }
        if s.rows.is_empty() {
            lines.push(Line::from(Span::styled(
                "no device yet: try `tui-demo --emit 8` in another terminal",
                t.dim(),
            )));
        }
        let lines = fit_rows(lines, table_at, s.rows.len(), inner.height.into(), t);
        Paragraph::new(lines).render(inner, buf);
    }
}

/// Fits the panel's `lines` (summary lines, then from `table_at` the table's header and its
/// `rows` device rows) into `height` lines: when they do not all fit, the summary lines after the
/// first give way until two device rows fit (devices are what the panel is for), and the last
/// line left says how many rows are not shown and how to see them, rather than cutting them off
/// without a word.
fn fit_rows(
    mut lines: Vec<Line<'static>>,
    table_at: usize,
    rows: usize,
    height: usize,
    t: Theme,
) -> Vec<Line<'static>> {
    if lines.len() <= height || rows == 0 {
        return lines;
    }
    // Summary lines dropped (from the second on) while fewer than two rows and the hint fit.
    let mut table_at = table_at;
    while table_at > 1 && height < table_at + 1 + 2.min(rows) + 1 {
        lines.remove(table_at - 1);
        table_at -= 1;
    }
    if lines.len() <= height {
        return lines;
    }
    let shown = height.saturating_sub(table_at + 2);
    lines.truncate(table_at + 1 + shown);
    lines.push(Line::from(Span::styled(
        format!("+{} more · Enter: zoom", rows - shown),
        t.warn(),
    )));
    lines.truncate(height);
    lines
}
