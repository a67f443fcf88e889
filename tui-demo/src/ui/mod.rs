//! Drawing: one file per panel, each drawing from a [`Snapshot`](crate::snapshot::Snapshot) only.
//!
//! [`App`] is drawn with `impl Widget for &App` (no cloning per frame): a title bar, the panels laid
//! out for the terminal's size, a key bar, and the help overlay. Everything degrades to fit: below
//! 60×14 of panels' area only the focused panel is shown, in a short grid the least needed panels
//! step aside ([`crate::layout`]), and every panel draws its most important line first.

pub mod dedupe;
pub mod devices;
pub mod distinct;
pub mod heavy;
pub mod help;
pub mod micro;
pub mod quantiles;
pub mod registers;
pub mod throughput;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Paragraph, Widget};

use crate::app::{App, Mode, Panel};
use crate::human;
pub use crate::layout::layout;
pub use crate::theme;
use theme::Theme;

/// A panel's block: a rounded border, the panel's name and what it costs in the title, a brighter
/// border when it has focus (a thick one without colours).
#[must_use]
pub fn panel_block(name: &str, cost: &str, theme: Theme, focused: bool) -> Block<'static> {
    // Without colours a bold border alone hardly shows (and not at all in a capture): the focused
    // panel's border is drawn thick.
    let border = if focused && !theme.color {
        BorderType::Thick
    } else {
        BorderType::Rounded
    };
    Block::bordered()
        .border_type(border)
        .border_style(theme.border(focused))
        .title(Line::from(vec![
            Span::styled(format!(" {name} "), theme.accent()),
            Span::styled(format!("{cost} "), theme.cost()),
        ]))
}

/// The first of `texts` (the callers give them longest first) that fits whole in `room` cells:
/// text that does not fit is said shorter or not at all, never cut.
///
/// ```
/// use tui_demo::ui::first_fitting;
/// assert_eq!(first_fitting(["a long way", "short"], 6), Some("short"));
/// assert_eq!(first_fitting(["a long way"], 3), None);
/// ```
#[must_use]
pub fn first_fitting<S: AsRef<str>>(texts: impl IntoIterator<Item = S>, room: usize) -> Option<S> {
    texts
        .into_iter()
        .find(|t| t.as_ref().chars().count() <= room)
}

/// The first of `costs` (longest first) that fits whole in the title of a panel `width` cells wide
/// named `name` (the borders' corners and the spaces around each part included), else the last.
#[must_use]
pub fn fitting_cost(name: &str, width: u16, costs: &[String]) -> String {
    let room = usize::from(width).saturating_sub(name.chars().count() + 5);
    first_fitting(costs, room)
        .or(costs.last())
        .cloned()
        .unwrap_or_default()
}

/// Renders a block and returns its inner area.
pub fn framed(block: Block<'_>, area: Rect, buf: &mut Buffer) -> Rect {
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// A bar of `width` cells filled to `fraction` (clamped to 0..=1), with eighth-block precision.
#[must_use]
pub fn bar(fraction: f64, width: usize) -> (String, String) {
    const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let f = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let eighths = (f * width as f64 * 8.0).round() as usize;
    let full = eighths / 8;
    let mut filled = "█".repeat(full.min(width));
    let mut used = full.min(width);
    if full < width && !eighths.is_multiple_of(8) {
        filled.push(EIGHTHS.get(eighths % 8).copied().unwrap_or(' '));
        used += 1;
    }
    (filled, "░".repeat(width - used))
}

/// Spans of a bar: the filled part in `style`, the rest dim.
#[must_use]
pub fn bar_spans(fraction: f64, width: usize, style: Style, theme: Theme) -> Vec<Span<'static>> {
    let (filled, empty) = bar(fraction, width);
    vec![
        Span::styled(filled, style),
        Span::styled(empty, theme.dim()),
    ]
}

/// A label (dim) followed by a value (bold).
#[must_use]
pub fn kv(label: &str, value: String, theme: Theme) -> Vec<Span<'static>> {
    vec![
        Span::styled(format!("{label} "), theme.dim()),
        Span::styled(value, theme.value()),
    ]
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.is_empty() {
            return;
        }
        let (header, body, footer) = if area.height >= 6 {
            let [h, b, f] = Layout::vertical([
                Constraint::Length(1),
                Constraint::Min(0),
                Constraint::Length(1),
            ])
            .areas(area);
            (Some(h), b, Some(f))
        } else {
            (None, area, None)
        };
        if let Some(h) = header {
            self.render_header(h, buf);
        }
        let placed = layout(body, &self.panels(), self.focused(), self.zoom);
        let single = placed.len() == 1;
        for (panel, rect) in placed {
            self.render_panel(panel, rect, buf);
        }
        if let Some(f) = footer {
            self.render_footer(f, buf, single);
        }
        if self.help {
            // Over the panels only: the header and the key bar stay in sight.
            help::Help {
                theme: self.theme,
                scroll: self.help_scroll,
                max: &self.help_max,
            }
            .render(body, buf);
        }
    }
}

impl App {
    fn render_panel(&self, panel: Panel, area: Rect, buf: &mut Buffer) {
        let s = &self.snapshot;
        let focused = panel == self.focused();
        match panel {
            Panel::Distinct => {
                if let Some(d) = &s.distinct {
                    (&distinct::DistinctPanel {
                        stats: d,
                        exact: &s.exact,
                        windowed: s.window.as_ref().is_some_and(|w| w.intervals > 0),
                        theme: self.theme,
                        focused,
                    })
                        .render(area, buf);
                }
            }
            Panel::Heavy => {
                if let Some(h) = &s.heavy {
                    let empty = s.no_heavy_rows();
                    (&heavy::HeavyPanel {
                        stats: h,
                        empty: &empty,
                        theme: self.theme,
                        focused,
                    })
                        .render(area, buf);
                }
            }
            Panel::Registers => {
                if let Some(r) = &s.registers {
                    (&registers::RegistersPanel {
                        stats: r,
                        theme: self.theme,
                        focused,
                    })
                        .render(area, buf);
                }
            }
            Panel::Devices => {
                if let Some(d) = &s.devices {
                    (&devices::DevicesPanel {
                        stats: d,
                        theme: self.theme,
                        focused,
                    })
                        .render(area, buf);
                }
            }
            Panel::Dedupe => (&dedupe::DedupePanel {
                stats: &s.dedupe,
                exact: &s.exact,
                theme: self.theme,
                focused,
            })
                .render(area, buf),
            Panel::Micro => (&micro::MicroPanel {
                stats: &s.micro,
                theme: self.theme,
                focused,
            })
                .render(area, buf),
            Panel::Quantiles => {
                if let Some(q) = &s.quantiles {
                    (&quantiles::QuantilesPanel {
                        stats: q,
                        windowed: s.window.as_ref().is_some_and(|w| w.intervals > 0),
                        theme: self.theme,
                        focused,
                    })
                        .render(area, buf);
                }
            }
            Panel::Throughput => (&throughput::ThroughputPanel {
                stats: &s.throughput,
                totals: &s.totals,
                window: s.window.as_ref(),
                follow: &s.follow,
                unit: if s.devices.is_some() {
                    "frames"
                } else {
                    "lines"
                },
                theme: self.theme,
                focused,
            })
                .render(area, buf),
        }
    }

    fn render_header(&self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let s = &self.snapshot;
        buf.set_style(area, t.header());
        let state = match (self.mode, &s.finished) {
            (Mode::Paused, _) => Span::styled(" ⏸ PAUSED ", t.warn()),
            (_, Some(Some(_))) => Span::styled(" ✖ ERROR ", t.bad()),
            (_, Some(None)) => Span::styled(" ■ END OF INPUT ", t.warn()),
            _ => Span::styled(" ● LIVE ", t.good()),
        };
        let secs = s.elapsed.as_secs();
        let unit = if s.devices.is_some() {
            "frames"
        } else {
            "lines"
        };
        let lines = format!(" {} {unit}", human::short(s.totals.lines as f64));
        let rest = format!(
            " │ {}/s │ {}:{:02}",
            human::short(s.throughput.lines_per_sec),
            secs / 60,
            secs % 60
        );
        // A window other than since start says so first thing (since start is said in Ingest).
        let window = s
            .window
            .as_ref()
            .filter(|w| w.intervals > 0)
            .map_or(String::new(), |w| format!(" │ {}", w.label));
        // What a narrow header gives up, in order: the title's name, the rate and clock, the line
        // count, then the source's end; never the state (PAUSED, END OF INPUT) nor the window.
        // The source is shown whole if any of these fits it (a listener's address and port).
        let full = " ◆ sketch-nostd ";
        let candidates = [
            (full, format!("{lines}{rest}{window} ")),
            (" ◆ ", format!("{lines}{rest}{window} ")),
            (" ◆ ", format!("{lines}{window} ")),
            (" ◆ ", format!("{window} ")),
            ("", format!("{window} ")),
        ];
        let width = area.width as usize;
        let source_len = s.source.chars().count();
        // What of the source a candidate must leave room for: a path's file name whole (with
        // its "…"; the title took its room at 75-85 columns), else 12 characters.
        let name_len = s
            .source
            .rsplit('/')
            .next()
            .filter(|_| s.source.contains('/'))
            .map_or(0, |n| n.chars().count() + 1);
        let least = name_len.clamp(12, 40).min(source_len);
        let fixed = |(title, stats): &(&str, String)| {
            title.chars().count() + stats.chars().count() + state.width() + 3
        };
        let [.., last] = &candidates;
        let chosen = candidates
            .iter()
            .find(|c| fixed(c) + source_len <= width)
            .or_else(|| candidates.iter().find(|c| fixed(c) + least <= width))
            .or_else(|| {
                candidates
                    .iter()
                    .find(|c| fixed(c) + source_len.min(12) <= width)
            })
            .unwrap_or(last);
        let room = width.saturating_sub(fixed(chosen)).max(1);
        // A path gives up its start (the file's name is what tells it apart), other labels their
        // end.
        let source = if s.source.contains('/') {
            throughput::tail(&human::printable(s.source.as_bytes(), 4096), room)
        } else {
            human::printable(s.source.as_bytes(), room)
        };
        let (title, stats) = chosen;
        let line = Line::from(vec![
            Span::styled(
                *title,
                t.header().add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Span::raw(format!("│ {source} │")),
            Span::raw(stats.as_str()),
            state,
        ]);
        Paragraph::new(line).style(t.header()).render(area, buf);
    }

    fn render_footer(&self, area: Rect, buf: &mut Buffer, single: bool) {
        let t = self.theme;
        let s = &self.snapshot;
        let line = if self.reset_asked {
            // Asked first: the reset empties every sketch, and the next `--save` writes that.
            // The longest wording that fits (at 40 columns the whole one was cut mid-word).
            let said = first_fitting(RESET_QUESTION, usize::from(area.width).saturating_sub(2))
                .unwrap_or(RESET_QUESTION[RESET_QUESTION.len() - 1]);
            Line::from(vec![
                Span::styled(" r", t.accent()),
                Span::styled(said, t.warn()),
            ])
        } else if let Some(Some(err)) = &s.finished {
            with_keys(
                Line::from(Span::styled(format!(" source error: {err}"), t.bad())),
                area.width,
                t,
            )
        } else if let Some(e) = &s.save_error {
            // A failed save is shown until one succeeds (the run then ends with it).
            with_keys(
                Line::from(Span::styled(format!(" --save failed: {e}"), t.bad())),
                area.width,
                t,
            )
        } else if let Some(r) = s.redis.as_ref().filter(|r| r.last_error.is_some()) {
            // REDIS HOOK: a lost Redis connection is shown until a write succeeds.
            with_keys(
                Line::from(Span::styled(format!(" {}", r.line()), t.bad())),
                area.width,
                t,
            )
        } else if s.follow.iter().any(|f| f.waiting) {
            // --follow of a name that does not exist (yet, or any more): nothing new comes
            // until it does (a removed file is still read if it grows).
            let waiting: Vec<&str> = s
                .follow
                .iter()
                .filter(|f| f.waiting)
                .map(|f| f.file.as_str())
                .collect();
            with_keys(
                Line::from(Span::styled(waiting_notice(&waiting, area.width), t.warn())),
                area.width,
                t,
            )
        } else if let Some(burst) = &s.burst {
            with_keys(
                Line::from(vec![
                    Span::styled(
                        " ⚡ burst: ",
                        t.warn().add_modifier(ratatui::style::Modifier::BOLD),
                    ),
                    Span::styled(human::printable(burst.as_bytes(), 200), t.warn()),
                ]),
                area.width,
                t,
            )
        } else {
            let mut spans = Vec::new();
            if single {
                // One panel on screen (a small terminal, or zoom): which one of how many.
                let panels = self.panels();
                let at = panels
                    .iter()
                    .position(|&p| p == self.focused())
                    .unwrap_or(0);
                spans.push(Span::styled(
                    format!(
                        " ◀ {}/{} {} ▶ ",
                        at + 1,
                        panels.len(),
                        self.focused().name()
                    ),
                    t.accent().add_modifier(ratatui::style::Modifier::REVERSED),
                ));
            }
            // Below 100 columns the rate is left to the header.
            let wide = area.width >= 100;
            // Once the synthetic log has ended (`--lines`, `--seconds`) its rate is nothing to
            // set any more.
            let rate = match self.rate.filter(|_| s.finished.is_none()) {
                Some(0) if wide => Some("rate: max".to_string()),
                Some(r) if wide => Some(format!("rate: {}/s", human::short(r as f64))),
                Some(_) => Some("rate".to_string()),
                None => None,
            };
            let pause = if self.mode == Mode::Paused {
                "resume"
            } else {
                "pause"
            };
            // (key, what, rank): in this order on screen; where they do not all fit, the
            // highest ranks go first (zoomed at 80 columns, `?` was cut off, and `w` and `?` at
            // 59), so quit, help, pause and the window stay.
            let mut keys: Vec<(&str, String, u8)> = vec![
                ("q", "quit".into(), 0),
                ("p", pause.into(), 2),
                ("r", "reset".into(), 4),
                ("Tab", "focus".into(), 3),
                // Zoomed, the way back is worth more room than the way in was.
                if self.zoom {
                    ("Enter", "unzoom".into(), 2)
                } else {
                    ("Enter", "zoom".into(), 5)
                },
            ];
            if s.window.is_some() {
                keys.push(("w", "window".into(), 2));
            }
            if let Some(rate) = rate {
                keys.push(("+/-", rate, 6));
            }
            keys.push(("?", "help".into(), 1));
            let fps = (self.fps > 0.0).then(|| format!(" {:.0} fps", self.fps));
            // `--redis`: room for its status at least as " │ redis N" (keys give way to it).
            let redis_least = s.redis.as_ref().map_or(0, |r| {
                format!(" │ redis {}", human::count(r.keys_written))
                    .chars()
                    .count()
            });
            let used = |keys: &[(&str, String, u8)]| -> usize {
                let shown: usize = spans.iter().map(Span::width).sum();
                shown
                    + redis_least
                    + keys
                        .iter()
                        .map(|(k, what, _)| k.chars().count() + what.chars().count() + 3)
                        .sum::<usize>()
            };
            while used(&keys) > usize::from(area.width) {
                let Some(last) = keys.iter().map(|k| k.2).max().filter(|&r| r > 1) else {
                    break;
                };
                keys.retain(|k| k.2 != last);
            }
            let room = used(&keys) + fps.as_ref().map_or(0, |f| f.chars().count());
            for (k, what, _) in keys {
                spans.push(Span::styled(format!(" {k}"), t.accent()));
                spans.push(Span::styled(format!(" {what} "), t.dim()));
            }
            if let Some(fps) = fps.filter(|_| room <= usize::from(area.width)) {
                spans.push(Span::styled(fps, t.dim()));
            }
            if let Some(r) = &s.redis {
                // Whole where it fits, else its count of writes alone (it was cut at 120
                // columns inside the key prefix).
                let used: usize = spans.iter().map(Span::width).sum();
                let long = format!(" │ {}", r.line());
                let room = usize::from(area.width).saturating_sub(used);
                // Then shorter, down to the count alone (at 80 columns "redis: 53 key" was cut).
                let n = human::count(r.keys_written);
                let said = first_fitting(
                    [
                        long,
                        format!(" │ redis: {n} key writes"),
                        format!(" │ redis: {n} writes"),
                    ],
                    room,
                )
                .unwrap_or_else(|| format!(" │ redis {n}"));
                spans.push(Span::styled(said, t.dim()));
            }
            Line::from(spans)
        };
        Paragraph::new(line).render(area, buf);
    }
}

/// A notice in the footer, where the key bar was, and the two keys a reader needs most after it:
/// the notice is cut (`…`) where both do not fit (a missing followed file's notice hid every key,
/// and a long one or a narrow terminal still did). Below 30 columns, the notice alone.
fn with_keys(notice: Line<'static>, width: u16, t: Theme) -> Line<'static> {
    let keys = notice_keys(t);
    let keys_w: usize = keys.iter().map(Span::width).sum();
    let width = usize::from(width);
    if width < 30 {
        return notice;
    }
    let budget = width - keys_w;
    let mut line = Line::default();
    let mut used = 0;
    for span in notice.spans {
        let w = span.width();
        if used + w <= budget {
            used += w;
            line.spans.push(span);
            continue;
        }
        let kept: String = span
            .content
            .chars()
            .take(budget.saturating_sub(used + 1))
            .collect();
        line.spans
            .push(Span::styled(format!("{kept}…"), span.style));
        break;
    }
    line.spans.extend(keys);
    line
}

/// The reset's question after its ` r`, longest first: the footer shows the longest that fits.
const RESET_QUESTION: [&str; 4] = [
    " again: reset all counts (and the next --save) · any other key: keep them",
    " again: reset all counts · any other key: keep them",
    " again: reset all counts · other keys: no",
    " again: reset all?",
];

/// The keys [`with_keys`] puts after a notice.
fn notice_keys(t: Theme) -> [Span<'static>; 5] {
    [
        Span::styled(" │", t.dim()),
        Span::styled(" q", t.accent()),
        Span::styled(" quit ", t.dim()),
        Span::styled(" ?", t.accent()),
        Span::styled(" help", t.dim()),
    ]
}

/// The footer's notice of followed names that do not exist: the first (its path's end where it
/// does not fit `width` beside the keys) and how many more.
fn waiting_notice(waiting: &[&str], width: u16) -> String {
    let said = match waiting.len() {
        0 | 1 => " does not exist; waiting for it to appear".to_string(),
        n => format!(" (+{} more) do not exist; waiting", n - 1),
    };
    // " --follow: " before the path, the keys after the notice.
    let keys: usize = notice_keys(Theme { color: false })
        .iter()
        .map(Span::width)
        .sum();
    let room = usize::from(width).saturating_sub(11 + said.chars().count() + keys);
    let name = waiting.first().copied().unwrap_or_default();
    format!(
        " --follow: {}{said}",
        throughput::tail(&human::printable(name.as_bytes(), 4096), room.max(12))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_fill_exactly() {
        assert_eq!(bar(0.0, 4), (String::new(), "░░░░".into()));
        assert_eq!(bar(1.0, 4), ("████".into(), String::new()));
        assert_eq!(bar(0.5, 4), ("██".into(), "░░".into()));
        assert_eq!(bar(f64::NAN, 2), (String::new(), "░░".into()));
        assert_eq!(bar(7.0, 0), (String::new(), String::new()));
        let (f, e) = bar(0.3, 10);
        assert_eq!(f.chars().count() + e.chars().count(), 10);
    }

    #[test]
    fn layout_fits_and_degrades() {
        let panels: Vec<Panel> = Panel::ALL
            .into_iter()
            .filter(|p| *p != Panel::Devices)
            .collect();
        let big = layout(Rect::new(0, 0, 120, 38), &panels, Panel::Micro, false);
        assert_eq!(big.len(), panels.len());
        for (_, r) in &big {
            assert!(r.right() <= 120 && r.bottom() <= 38);
        }
        let small = layout(Rect::new(0, 0, 50, 10), &panels, Panel::Micro, false);
        assert_eq!(small, vec![(Panel::Micro, Rect::new(0, 0, 50, 10))]);
        let zoomed = layout(Rect::new(0, 0, 120, 38), &panels, Panel::Throughput, true);
        assert_eq!(zoomed.len(), 1);
        assert!(layout(Rect::new(0, 0, 0, 0), &panels, Panel::Micro, false).is_empty());
    }
}
