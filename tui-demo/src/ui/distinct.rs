//! The distinct-count panel: the HyperLogLog's estimate, its ±2σ band, the exact count beside it,
//! and the memory of each.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::theme::Theme;
use super::{framed, kv, panel_block};
use crate::human::{bytes, count, count_f, percent};
use crate::snapshot::{DistinctStats, ExactStats};

/// The panel.
#[derive(Clone, Copy, Debug)]
pub struct DistinctPanel<'a> {
    /// The sketch's figures.
    pub stats: &'a DistinctStats,
    /// The exact reference.
    pub exact: &'a ExactStats,
    /// The figures are a window's: exact counts (kept since the start) do not apply.
    pub windowed: bool,
    /// The theme.
    pub theme: Theme,
    /// Whether the panel has focus.
    pub focused: bool,
}

/// The ±2σ band as a one-line scale: `├` and `┤` at the 2σ bounds, `●` at the estimate, `│` at the
/// exact count (clamped to the ends, where `◀`/`▶` say it is outside).
#[must_use]
pub fn band(lower: f64, estimate: f64, upper: f64, exact: Option<f64>, width: usize) -> String {
    if width < 3 {
        return String::new();
    }
    let mut cells: Vec<char> = vec!['─'; width];
    cells[0] = '├';
    cells[width - 1] = '┤';
    let span = (upper - lower).max(f64::MIN_POSITIVE);
    let at = |x: f64| -> usize {
        let f = ((x - lower) / span).clamp(0.0, 1.0);
        (f * (width - 1) as f64).round() as usize
    };
    if let Some(e) = exact {
        let c = if e < lower {
            '◀'
        } else if e > upper {
            '▶'
        } else {
            '│'
        };
        cells[at(e)] = c;
    }
    cells[at(estimate)] = '●';
    cells.into_iter().collect()
}

impl Widget for &DistinctPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (s, e, t) = (self.stats, self.exact, self.theme);
        let cost = format!("HLL p={} · {}", s.precision, bytes(s.bytes));
        let inner = framed(panel_block("Distinct", &cost, t, self.focused), area, buf);
        if inner.is_empty() {
            return;
        }
        let w = inner.width as usize;
        let mut lines = Vec::new();
        let narrow = w < 44;
        let roomy = w >= 62;
        let mut est = kv("estimate", count_f(s.estimate), t);
        est.push(Span::styled(
            if narrow {
                format!(" ±{} 1σ", percent(s.rse))
            } else {
                format!(" ±{} (1σ, {})", percent(s.rse), s.estimator)
            },
            t.dim(),
        ));
        lines.push(Line::from(est));

        // The exact count while the table is complete; past the cap it is only a lower bound.
        let exact = (e.cap > 0 && !e.capped && !self.windowed).then_some(e.distinct as f64);
        let mut ex = match (e.cap, e.capped) {
            _ if self.windowed => vec![Span::styled(
                "exact    since start only (w: window)",
                t.dim(),
            )],
            // The longest that fits the panel (at 80×24 the middle one was cut).
            (0, _) if s.sum_of_parts.is_some() => vec![Span::styled(
                super::first_fitting(
                    [
                        "exact    none: the host sees sketches, not lines",
                        "exact    none: the host sees sketches",
                        "exact    none (sketches only)",
                    ],
                    usize::from(inner.width),
                )
                .unwrap_or("exact    none"),
                t.dim(),
            )],
            (0, _) => vec![Span::styled("exact    off (--exact-cap 0)", t.dim())],
            (_, true) => {
                let mut v = kv("exact   ", format!("≥{}", count(e.distinct)), t);
                v.push(Span::styled(" stopped at the cap", t.warn()));
                v
            }
            (_, false) => kv("exact   ", count(e.distinct), t),
        };
        if e.cap > 0 && !narrow && !self.windowed {
            ex.push(Span::styled(" · table ", t.dim()));
            ex.push(Span::styled(bytes(e.table_bytes), t.cost()));
        }
        lines.push(Line::from(ex));

        if let Some(x) = exact.filter(|&x| x > 0.0) {
            let err = (s.estimate - x) / x;
            let inside = x >= s.lower && x <= s.upper;
            let mut v = kv("error   ", format!("{:+.3}%", err * 100.0), t);
            v.push(if inside {
                Span::styled(" within ±2σ ✓", t.good())
            } else {
                Span::styled(" outside ±2σ", t.bad())
            });
            lines.push(Line::from(v));
        }
        let band_w = w.saturating_sub(2).min(60);
        lines.push(Line::from(vec![
            Span::raw(" "),
            Span::styled(band(s.lower, s.estimate, s.upper, exact, band_w), t.bar()),
        ]));
        lines.push(Line::from(Span::styled(
            format!(" 2σ: {} … {}", count_f(s.lower), count_f(s.upper)),
            t.dim(),
        )));
        if e.cap > 0 && e.key_bytes > 0 && !self.windowed {
            // What an exact set of the distinct lines holds: the lines themselves (or the hash
            // table of their hashes, if that is larger).
            let exact_bytes = e.key_bytes.max(e.table_bytes);
            let mut v = vec![Span::styled(bytes(s.bytes), t.cost())];
            v.push(Span::styled(
                if roomy {
                    " of sketch vs an exact set's "
                } else {
                    " vs "
                },
                t.dim(),
            ));
            v.push(Span::styled(bytes(exact_bytes), t.cost()));
            if let Some((text, smaller)) = against_exact(s.bytes, exact_bytes) {
                v.push(Span::styled(
                    text,
                    if smaller { t.good() } else { t.warn() },
                ));
            }
            lines.push(Line::from(v));
        }
        if let Some(sum) = s.sum_of_parts {
            // The note goes on a line of its own unless the whole fits, so nothing is cut.
            let mut v = kv("sum of the devices' counts", count_f(sum), t);
            let note = "the merge counts shared lines once";
            if Line::from(v.clone()).width() + 2 + note.len() < w {
                v.push(Span::styled(format!(": {note}"), t.dim()));
                lines.push(Line::from(v));
            } else {
                lines.push(Line::from(v));
                lines.push(Line::from(Span::styled(note, t.dim())));
            }
        }
        Paragraph::new(lines).render(inner, buf);
    }
}

/// How the sketch's bytes compare with an exact set's: `": N× less"` (and `true`) when the sketch
/// is smaller, `": N× more"` when it is larger (few distinct lines: the sketch's fixed size is the
/// larger then), with a decimal below 10× (1.6×, where it said 1×), rounded; `None` for an empty
/// side.
fn against_exact(sketch: u64, exact: u64) -> Option<(String, bool)> {
    if sketch == 0 || exact == 0 {
        return None;
    }
    let times = |big: u64, small: u64| {
        let r = big as f64 / small as f64;
        if r < 9.95 {
            format!("{r:.1}")
        } else {
            count(r.round() as u64)
        }
    };
    Some(if exact >= sketch {
        (format!(": {}× less", times(exact, sketch)), true)
    } else {
        (format!(": {}× more", times(sketch, exact)), false)
    })
}

#[cfg(test)]
mod tests {
    use super::{against_exact, band};

    #[test]
    fn the_sketch_against_an_exact_set_never_reads_0x() {
        // Found by a user test: 12.0 KiB against 427 B read "0× less", in the good colour.
        assert_eq!(
            against_exact(12_336, 427),
            Some((": 29× more".into(), false))
        );
        assert_eq!(
            against_exact(12_336, 12_336),
            Some((": 1.0× less".into(), true))
        );
        assert_eq!(
            against_exact(12_336, 4_000_000),
            Some((": 324× less".into(), true))
        );
        // Below 10×, a decimal (a user test: "1× more" for 1.6×, "2× less" for 2.48×).
        assert_eq!(
            against_exact(12_288, 7_600),
            Some((": 1.6× more".into(), false))
        );
        assert_eq!(
            against_exact(12_288, 30_500),
            Some((": 2.5× less".into(), true))
        );
        assert_eq!(
            against_exact(1_000, 9_990),
            Some((": 10× less".into(), true))
        );
        assert_eq!(against_exact(0, 5), None);
        assert_eq!(against_exact(5, 0), None);
    }

    #[test]
    fn the_band_places_estimate_and_exact() {
        assert_eq!(band(90.0, 100.0, 110.0, Some(100.0), 11), "├────●────┤");
        assert_eq!(band(90.0, 100.0, 110.0, Some(95.0), 11), "├──│─●────┤");
        assert_eq!(band(90.0, 100.0, 110.0, Some(200.0), 11), "├────●────▶");
        assert_eq!(band(90.0, 100.0, 110.0, None, 5), "├─●─┤");
        assert_eq!(band(0.0, 0.0, 0.0, Some(0.0), 4), "●──┤");
        assert_eq!(band(1.0, 2.0, 3.0, None, 2), "");
    }
}
