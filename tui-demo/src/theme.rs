//! Colours, or none: with `NO_COLOR` set (to anything non-empty) every style is plain text with at
//! most bold, dim or reversed.

use ratatui::style::{Color, Modifier, Style};

/// The palette.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Whether to use colour at all.
    pub color: bool,
}

impl Theme {
    /// Colour unless `NO_COLOR` is set and non-empty (<https://no-color.org>).
    #[must_use]
    pub fn from_env() -> Self {
        Self::from_no_color(std::env::var_os("NO_COLOR").as_deref())
    }

    /// The theme for a given `NO_COLOR` value.
    #[must_use]
    pub fn from_no_color(no_color: Option<&std::ffi::OsStr>) -> Self {
        Self {
            color: no_color.is_none_or(|v| v.is_empty()),
        }
    }

    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// Titles and highlights.
    #[must_use]
    pub fn accent(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The figures themselves.
    #[must_use]
    pub fn value(self) -> Style {
        self.fg(Color::White).add_modifier(Modifier::BOLD)
    }

    /// What something costs (bytes).
    #[must_use]
    pub fn cost(self) -> Style {
        self.fg(Color::Magenta)
    }

    /// Labels and secondary text.
    #[must_use]
    pub fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// Good news (within bounds).
    #[must_use]
    pub fn good(self) -> Style {
        self.fg(Color::Green)
    }

    /// Attention (close to a threshold, a burst).
    #[must_use]
    pub fn warn(self) -> Style {
        self.fg(Color::Yellow)
    }

    /// Bad news (out of bounds, errors).
    #[must_use]
    pub fn bad(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// Filled part of bars and set bits.
    #[must_use]
    pub fn bar(self) -> Style {
        self.fg(Color::Cyan)
    }

    /// A panel's border.
    #[must_use]
    pub fn border(self, focused: bool) -> Style {
        match (focused, self.color) {
            (true, true) => Style::new().fg(Color::Yellow),
            (true, false) => Style::new().add_modifier(Modifier::BOLD),
            (false, true) => Style::new().fg(Color::DarkGray),
            (false, false) => Style::new(),
        }
    }

    /// The title bar.
    #[must_use]
    pub fn header(self) -> Style {
        if self.color {
            Style::new().bg(Color::Blue).fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::REVERSED)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn no_color_turns_colours_off() {
        assert!(Theme::from_no_color(None).color);
        assert!(Theme::from_no_color(Some(OsStr::new(""))).color);
        let plain = Theme::from_no_color(Some(OsStr::new("1")));
        assert!(!plain.color);
        for s in [
            plain.accent(),
            plain.good(),
            plain.bad(),
            plain.header(),
            plain.border(true),
            plain.dim(),
        ] {
            assert_eq!(s.fg, None);
            assert_eq!(s.bg, None);
        }
    }
}
