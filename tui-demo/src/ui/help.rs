//! The help overlay.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget, Wrap};

use super::theme::Theme;

/// The overlay, centred over whatever it is drawn on.
#[derive(Clone, Copy, Debug)]
pub struct Help {
    /// The theme.
    pub theme: Theme,
}

const KEYS: [(&str, &str); 8] = [
    ("q Esc Ctrl-C", "quit (Esc first closes help or zoom)"),
    ("p Space", "pause / resume ingest"),
    ("r", "reset every count and sketch"),
    ("Tab ← → ↑ ↓", "move the focus between panels"),
    ("Enter z", "zoom the focused panel"),
    ("w", "window: since start, last 1 / 5 / 15 min"),
    ("+ -", "synthetic log rate up / down"),
    ("?", "this help"),
];

const ABOUT: [&str; 3] = [
    "Every figure comes from a fixed-size no_std sketch, shown next to what it costs;",
    "the exact reference beside it is a hash table that stops growing at --exact-cap.",
    "NO_COLOR turns colours off. --report prints a summary instead (see --help).",
];

impl Widget for Help {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let w = area.width.min(84);
        let h = area.height.min(KEYS.len() as u16 + ABOUT.len() as u16 + 2);
        let r = Rect {
            x: area.x + (area.width - w) / 2,
            y: area.y + (area.height - h) / 2,
            width: w,
            height: h,
        };
        Clear.render(r, buf);
        let mut lines: Vec<Line> = KEYS
            .iter()
            .filter(|(k, _)| !k.is_empty())
            .map(|(k, what)| {
                Line::from(vec![
                    Span::styled(format!("{k:>14}  "), t.accent()),
                    Span::raw(*what),
                ])
            })
            .collect();
        lines.push(Line::default());
        lines.extend(ABOUT.iter().map(|a| Line::from(Span::styled(*a, t.dim()))));
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(
                Block::bordered()
                    .border_type(BorderType::Double)
                    .border_style(t.border(true))
                    .title(Span::styled(" help · ? to close ", t.accent())),
            )
            .render(r, buf);
    }
}
