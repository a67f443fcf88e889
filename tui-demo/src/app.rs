//! The live view's state and its key handling. Pure: no terminal, no threads. Keys map to methods
//! that change the state and may return an [`Action`] for the ingest side.

use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::ingest::Command;
use crate::snapshot::Snapshot;
use crate::ui::theme::Theme;

/// Synthetic rates `+` and `-` step through (lines per second; 0 = as fast as possible, last).
pub const RATES: [u64; 11] = [
    1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 0,
];

/// Running or paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ingesting and redrawing.
    Live,
    /// Ingest is paused; the view keeps the last snapshot.
    Paused,
    /// The user asked to quit.
    Quit,
}

/// The panels, in focus order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Panel {
    /// The distinct count (HyperLogLog).
    Distinct,
    /// Heavy hitters (count-min and top-k).
    Heavy,
    /// The dedupe / anti-spam Bloom filter.
    Dedupe,
    /// The 64-bit micro filter.
    Micro,
    /// The HyperLogLog's register histogram.
    Registers,
    /// Device mode: the fleet.
    Devices,
    /// Ingest throughput.
    Throughput,
    /// `--value-field N`: a numeric field's quantiles.
    Quantiles,
}

impl Panel {
    /// Every panel, in focus order.
    pub const ALL: [Self; 8] = [
        Self::Distinct,
        Self::Devices,
        Self::Heavy,
        Self::Dedupe,
        Self::Micro,
        Self::Registers,
        Self::Throughput,
        Self::Quantiles,
    ];

    /// The panel's name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Distinct => "Distinct",
            Self::Heavy => "Heavy hitters",
            Self::Dedupe => "Dedupe",
            Self::Micro => "Micro filter",
            Self::Registers => "HLL registers",
            Self::Devices => "Devices",
            Self::Throughput => "Ingest",
            Self::Quantiles => "Quantiles",
        }
    }
}

/// What the ingest side should do after a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A command for the ingest thread.
    Ingest(Command),
    /// A new synthetic rate (lines per second, 0 = unlimited).
    SetRate(u64),
}

/// The live view's state.
#[derive(Clone, Debug)]
pub struct App {
    /// Live, paused or quitting.
    pub mode: Mode,
    /// The focused panel.
    pub focus: Panel,
    /// The help overlay is shown.
    pub help: bool,
    /// The focused panel fills the screen.
    pub zoom: bool,
    /// The synthetic rate, if the source is synthetic.
    pub rate: Option<u64>,
    /// The latest snapshot.
    pub snapshot: Arc<Snapshot>,
    /// Colours (or none).
    pub theme: Theme,
    /// Frames drawn per second, measured.
    pub fps: f64,
}

impl App {
    /// A new view. `rate` is `Some` for the synthetic source.
    #[must_use]
    pub fn new(rate: Option<u64>, theme: Theme) -> Self {
        Self {
            mode: Mode::Live,
            focus: Panel::Dedupe,
            help: false,
            zoom: false,
            rate,
            snapshot: Arc::default(),
            theme,
            fps: 0.0,
        }
    }

    /// The panels that have something real to show, in focus order: a panel appears once its
    /// sketch is running.
    #[must_use]
    pub fn panels(&self) -> Vec<Panel> {
        let s = &self.snapshot;
        Panel::ALL
            .into_iter()
            .filter(|p| match p {
                Panel::Distinct => s.distinct.is_some(),
                Panel::Heavy => s.heavy.is_some(),
                Panel::Registers => s.registers.is_some(),
                Panel::Devices => s.devices.is_some(),
                // Line panels: not in device mode, where the host sees sketches, not lines.
                Panel::Dedupe | Panel::Micro => s.devices.is_none(),
                Panel::Throughput => true,
                Panel::Quantiles => s.quantiles.is_some(),
            })
            .collect()
    }

    /// Handles a key press.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => self.quit(),
            KeyCode::Char('q' | 'Q') => self.quit(),
            KeyCode::Esc if self.help => {
                self.help = false;
                None
            }
            KeyCode::Esc if self.zoom => {
                self.zoom = false;
                None
            }
            KeyCode::Esc => self.quit(),
            KeyCode::Char('?' | 'h') | KeyCode::F(1) => {
                self.help = !self.help;
                None
            }
            KeyCode::Char('p' | 'P' | ' ') => Some(self.toggle_pause()),
            KeyCode::Char('r' | 'R') => Some(Action::Ingest(Command::Reset)),
            KeyCode::Tab | KeyCode::Right | KeyCode::Down => {
                self.cycle_focus(1);
                None
            }
            KeyCode::BackTab | KeyCode::Left | KeyCode::Up => {
                self.cycle_focus(-1);
                None
            }
            KeyCode::Enter | KeyCode::Char('z') => {
                self.zoom = !self.zoom;
                None
            }
            KeyCode::Char('+' | '=') => self.step_rate(1),
            KeyCode::Char('-' | '_') => self.step_rate(-1),
            _ => None,
        }
    }

    fn quit(&mut self) -> Option<Action> {
        self.mode = Mode::Quit;
        Some(Action::Ingest(Command::Quit))
    }

    /// Pauses or resumes ingest.
    pub fn toggle_pause(&mut self) -> Action {
        let pause = self.mode == Mode::Live;
        self.mode = if pause { Mode::Paused } else { Mode::Live };
        Action::Ingest(Command::Pause(pause))
    }

    /// The focused panel among those shown: the chosen one, or the first one if the chosen one is
    /// not shown (in device mode, say).
    #[must_use]
    pub fn focused(&self) -> Panel {
        let panels = self.panels();
        if panels.contains(&self.focus) {
            self.focus
        } else {
            panels.first().copied().unwrap_or(self.focus)
        }
    }

    /// Moves the focus by `step` panels among those shown, wrapping around.
    pub fn cycle_focus(&mut self, step: isize) {
        let panels = self.panels();
        let n = panels.len() as isize;
        if n == 0 {
            return;
        }
        let current = self.focused();
        let at = panels.iter().position(|&p| p == current).unwrap_or(0) as isize;
        let next = (at + step).rem_euclid(n) as usize;
        if let Some(&p) = panels.get(next) {
            self.focus = p;
        }
    }

    /// Steps the synthetic rate up (`+1`) or down (`-1`) through [`RATES`].
    pub fn step_rate(&mut self, step: isize) -> Option<Action> {
        let rate = self.rate?;
        let at = RATES.iter().position(|&r| r == rate).unwrap_or_else(|| {
            // An unusual --rate: start from the nearest step below it.
            RATES
                .iter()
                .rposition(|&r| r != 0 && r <= rate)
                .unwrap_or(0)
        }) as isize;
        let next = (at + step).clamp(0, RATES.len() as isize - 1) as usize;
        let new = RATES.get(next).copied().unwrap_or(rate);
        self.rate = Some(new);
        Some(Action::SetRate(new))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn app() -> App {
        App::new(Some(50_000), Theme { color: false })
    }

    #[test]
    fn quit_keys() {
        for k in [
            key(KeyCode::Char('q')),
            key(KeyCode::Esc),
            KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL),
        ] {
            let mut a = app();
            assert_eq!(a.on_key(k), Some(Action::Ingest(Command::Quit)));
            assert_eq!(a.mode, Mode::Quit);
        }
        // A plain 'c' does nothing.
        let mut a = app();
        assert_eq!(a.on_key(key(KeyCode::Char('c'))), None);
        assert_eq!(a.mode, Mode::Live);
    }

    #[test]
    fn esc_closes_help_and_zoom_before_quitting() {
        let mut a = app();
        a.on_key(key(KeyCode::Char('?')));
        assert!(a.help);
        assert_eq!(a.on_key(key(KeyCode::Esc)), None);
        assert!(!a.help);
        a.on_key(key(KeyCode::Enter));
        assert!(a.zoom);
        assert_eq!(a.on_key(key(KeyCode::Esc)), None);
        assert!(!a.zoom);
        assert_eq!(
            a.on_key(key(KeyCode::Esc)),
            Some(Action::Ingest(Command::Quit))
        );
    }

    #[test]
    fn pause_toggles() {
        let mut a = app();
        assert_eq!(
            a.on_key(key(KeyCode::Char('p'))),
            Some(Action::Ingest(Command::Pause(true)))
        );
        assert_eq!(a.mode, Mode::Paused);
        assert_eq!(
            a.on_key(key(KeyCode::Char('p'))),
            Some(Action::Ingest(Command::Pause(false)))
        );
        assert_eq!(a.mode, Mode::Live);
        assert_eq!(
            a.on_key(key(KeyCode::Char('r'))),
            Some(Action::Ingest(Command::Reset))
        );
    }

    #[test]
    fn focus_cycles_both_ways() {
        let mut a = app();
        let panels = a.panels();
        assert_eq!(a.focus, panels[0]);
        a.on_key(key(KeyCode::Tab));
        assert_eq!(a.focus, panels[1]);
        a.on_key(key(KeyCode::Left));
        a.on_key(key(KeyCode::Left));
        assert_eq!(a.focus, *panels.last().unwrap());
        for _ in 0..panels.len() {
            a.on_key(key(KeyCode::Down));
        }
        assert_eq!(a.focus, *panels.last().unwrap());
    }

    #[test]
    fn rate_steps_and_stops_at_the_ends() {
        let mut a = app();
        assert_eq!(
            a.on_key(key(KeyCode::Char('+'))),
            Some(Action::SetRate(100_000))
        );
        assert_eq!(
            a.on_key(key(KeyCode::Char('-'))),
            Some(Action::SetRate(50_000))
        );
        for _ in 0..20 {
            a.on_key(key(KeyCode::Char('+')));
        }
        assert_eq!(a.rate, Some(0), "unlimited is the top step");
        for _ in 0..20 {
            a.on_key(key(KeyCode::Char('-')));
        }
        assert_eq!(a.rate, Some(1_000));
        let mut odd = App::new(Some(30_000), Theme { color: false });
        assert_eq!(odd.step_rate(1), Some(Action::SetRate(50_000)));
        // No rate keys for a file or stdin.
        let mut file = App::new(None, Theme { color: false });
        assert_eq!(file.on_key(key(KeyCode::Char('+'))), None);
    }

    #[test]
    fn key_releases_are_ignored() {
        let mut a = app();
        let mut k = key(KeyCode::Char('q'));
        k.kind = KeyEventKind::Release;
        assert_eq!(a.on_key(k), None);
        assert_eq!(a.mode, Mode::Live);
    }
}
