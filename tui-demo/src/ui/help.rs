//! The help overlay.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Clear, Paragraph, Widget};

use super::theme::Theme;

/// The overlay, centred over whatever it is drawn on; it scrolls when it does not fit.
#[derive(Clone, Copy, Debug)]
pub struct Help<'a> {
    /// The theme.
    pub theme: Theme,
    /// Lines scrolled past (clamped to what there is).
    pub scroll: u16,
    /// Told the most the help can be scrolled as drawn ([`crate::app::App::help_max`]).
    pub max: &'a std::cell::Cell<u16>,
}

const KEYS: [(&str, &str); 10] = [
    ("q Esc Ctrl-C", "quit (Esc first closes help or zoom)"),
    (
        "p Space",
        "pause / resume the figures (counting goes on: nothing is missed)",
    ),
    (
        "r r",
        "reset every count and sketch (asked twice: the next --save too)",
    ),
    (
        "Tab Shift-Tab",
        "move the focus to the next / previous panel",
    ),
    ("← → ↑ ↓", "move the focus to the panel on that side"),
    ("Enter z", "zoom the focused panel"),
    ("w", "window: since start, last 1 / 5 / 15 min"),
    ("+ -", "synthetic log rate up / down"),
    ("?", "this help"),
    (
        "Ctrl-L",
        "draw the screen again (after another program wrote over it)",
    ),
];

/// The text under the keys: paragraphs, wrapped to the overlay's width (a wrapped paragraph's
/// later lines indented by two).
const ABOUT: [&str; 13] = [
    "Every figure comes from a fixed-size no_std sketch, shown next to what it costs; the exact reference beside it is a hash table that stops growing at --exact-cap.",
    "",
    "Distinct: HyperLogLog estimate ±1σ; the scale is its 2σ band, ● the estimate, │ the exact count (◀ ▶ when outside the band).",
    "Heavy hitters: Space-Saving; every true count lies in [true ≥, true ≤]; 'noise' marks a row whose guaranteed count is at most ε·N.",
    "Dedupe: a Bloom filter passing first sightings; it clears itself at --clear-at.",
    "Micro filter: 64 bits in front of the last 8 lines; ■ a set bit.",
    "Quantiles (--value-field N): p50 … p999 of field N, each within ±α; the exact value and the error beside each while the values are kept (not in a window).",
    "HLL registers: ↑ how many registers hold each value, → the value (leading zeros of a hash + 1): a bump near log2(distinct / registers).",
    "Ingest: lines per second; per 15 s interval the lines and distinct lines (oldest left, ≤ the scale's top), the window and the ring's memory.",
    "Windows (w): since start, or the last 1 / 5 / 15 minutes, merged from 15 s intervals; exact counts are kept since start only.",
    "",
    "NO_COLOR turns colours off. --report prints a summary instead (see --help).",
    "↑ ↓ PgUp PgDn scroll this help.",
];

impl Widget for Help<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = self.theme;
        let w = area.width.min(86);
        // Wrapped here, by words, so the overlay knows how far it scrolls.
        let width = usize::from(w.saturating_sub(2)).max(1);
        let mut lines: Vec<Line> = Vec::new();
        for (k, what) in KEYS.iter().filter(|(k, _)| !k.is_empty()) {
            let (key_w, indent) = if width >= 40 { (14, 16) } else { (0, 2) };
            for (i, part) in wrap(what, width.saturating_sub(indent).max(1))
                .into_iter()
                .enumerate()
            {
                let head = if i == 0 {
                    format!("{k:>key_w$}  ")
                } else {
                    " ".repeat(indent)
                };
                if i == 0 && key_w == 0 {
                    lines.push(Line::from(Span::styled(k.to_string(), t.accent())));
                    lines.push(Line::from(vec![
                        Span::raw(" ".repeat(indent)),
                        Span::raw(part),
                    ]));
                } else {
                    lines.push(Line::from(vec![
                        Span::styled(head, t.accent()),
                        Span::raw(part),
                    ]));
                }
            }
        }
        lines.push(Line::default());
        for a in ABOUT {
            // Its first line as wide as the overlay, the later ones indented by two.
            let Some(head) = wrap(a, width).into_iter().next() else {
                lines.push(Line::default());
                continue;
            };
            let rest = a.get(head.len()..).unwrap_or_default().trim();
            lines.push(Line::from(Span::styled(head, t.dim())));
            if rest.is_empty() {
                continue;
            }
            for part in wrap(rest, width.saturating_sub(2).max(1)) {
                lines.push(Line::from(Span::styled(format!("  {part}"), t.dim())));
            }
        }
        let total = lines.len() as u16;
        let paragraph = Paragraph::new(lines);
        let h = area.height.min(total + 2);
        let r = Rect {
            x: area.x + (area.width - w) / 2,
            y: area.y + (area.height - h) / 2,
            width: w,
            height: h,
        };
        Clear.render(r, buf);
        let inner_h = h.saturating_sub(2);
        let max = total.saturating_sub(inner_h);
        self.max.set(max);
        let scroll = self.scroll.min(max);
        let title = if max > 0 {
            format!(" help · ↑↓ scroll {}/{} · ? to close ", scroll, max)
        } else {
            " help · ? to close ".to_string()
        };
        paragraph
            .scroll((scroll, 0))
            .block(
                Block::bordered()
                    .border_type(BorderType::Double)
                    .border_style(t.border(true))
                    .title(Span::styled(title, t.accent())),
            )
            .render(r, buf);
    }
}

/// Splits `text` into lines of at most `width` characters, at spaces (a longer word is cut).
#[must_use]
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let line = out.last_mut().expect("never empty");
            let used = line.chars().count();
            let sep = usize::from(used > 0);
            if used + sep + word.len() <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used == 0 {
                // A word longer than a line: cut it.
                let rest = word.split_off(width.min(word.len()));
                line.extend(word.iter());
                word = rest;
                out.push(String::new());
                if word.is_empty() {
                    break;
                }
                continue;
            }
            out.push(String::new());
        }
    }
    if out.len() > 1 && out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_long_words() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 5), [""]);
        assert_eq!(wrap("fits exactly", 12), ["fits exactly"]);
    }
}
