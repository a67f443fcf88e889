//! Time windows: every panel answers "since start" or "the last 1 / 5 / 15 minutes" (`w` switches,
//! `--window` in a report). A leaf module: the window names and the interval length, shared by the
//! arguments, the ingest ring ([`crate::ingest::ring`]), the snapshot and the view.
//!
//! Time is cut into intervals of [`INTERVAL`]; the last [`INTERVALS`] closed ones are kept, each with
//! its own sketches, and a window is the open interval merged with the closed ones it reaches back
//! to: "last 1 min" is the open interval and the four before it, so it covers between 60 and 75
//! seconds (the figure shown on screen says which).

use std::time::Duration;

/// One interval of the ring: its sketches are merged on demand into a window.
pub const INTERVAL: Duration = Duration::from_secs(15);

/// Closed intervals kept: 15 minutes of them.
pub const INTERVALS: usize = 60;

/// A window of time the figures answer for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Window {
    /// Everything since the start (or the last reset).
    #[default]
    All,
    /// The last minute.
    Min1,
    /// The last 5 minutes.
    Min5,
    /// The last 15 minutes.
    Min15,
}

impl Window {
    /// Every window, in the order `w` steps through them.
    pub const ALL: [Self; 4] = [Self::All, Self::Min1, Self::Min5, Self::Min15];

    /// Its length in minutes (`None` for since start).
    #[must_use]
    pub const fn minutes(self) -> Option<u32> {
        match self {
            Self::All => None,
            Self::Min1 => Some(1),
            Self::Min5 => Some(5),
            Self::Min15 => Some(15),
        }
    }

    /// Closed intervals merged with the open one (`None` for since start).
    ///
    /// ```
    /// use tui_demo::window::Window;
    /// assert_eq!(Window::Min1.intervals(), Some(4));
    /// assert_eq!(Window::Min15.intervals(), Some(tui_demo::window::INTERVALS));
    /// ```
    #[must_use]
    pub const fn intervals(self) -> Option<usize> {
        match self.minutes() {
            Some(m) => Some((m as u64 * 60 / INTERVAL.as_secs()) as usize),
            None => None,
        }
    }

    /// The name shown on screen and in reports.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::All => "since start",
            Self::Min1 => "last 1 min",
            Self::Min5 => "last 5 min",
            Self::Min15 => "last 15 min",
        }
    }

    /// The command line's name: `all`, `1m`, `5m`, `15m`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Min1 => "1m",
            Self::Min5 => "5m",
            Self::Min15 => "15m",
        }
    }

    /// The next window (`w`), wrapping around.
    #[must_use]
    pub fn next(self) -> Self {
        let at = Self::ALL.iter().position(|&w| w == self).unwrap_or(0);
        Self::ALL
            .get((at + 1) % Self::ALL.len())
            .copied()
            .unwrap_or_default()
    }

    /// Parses `all` (or `start`), `1m`, `5m`, `15m` (the `m` may be left out).
    ///
    /// ```
    /// use tui_demo::window::Window;
    /// assert_eq!(Window::parse("5m"), Some(Window::Min5));
    /// assert_eq!(Window::parse("15"), Some(Window::Min15));
    /// assert_eq!(Window::parse("all"), Some(Window::All));
    /// assert_eq!(Window::parse("2m"), None);
    /// ```
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        let t = text.trim();
        match t.strip_suffix('m').unwrap_or(t) {
            "all" | "start" => Some(Self::All),
            "1" => Some(Self::Min1),
            "5" => Some(Self::Min5),
            "15" => Some(Self::Min15),
            _ => None,
        }
    }
}

impl std::fmt::Display for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cycle_and_parse_back() {
        let mut w = Window::All;
        for expected in [Window::Min1, Window::Min5, Window::Min15, Window::All] {
            w = w.next();
            assert_eq!(w, expected);
            assert_eq!(Window::parse(w.name()), Some(w));
        }
        assert_eq!(Window::Min5.intervals(), Some(20));
        assert_eq!(Window::All.intervals(), None);
    }
}
