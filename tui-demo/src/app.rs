//! The live view's state and its key handling. Pure: no terminal, no threads. Keys map to methods
//! that change the state and may return an [`Action`] for the ingest side.

use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::ingest::Command;
use crate::snapshot::Snapshot;
use crate::theme::Theme;

/// Synthetic rates `+` and `-` step through (lines per second; 0 = as fast as possible, last).
pub const RATES: [u64; 11] = [
    1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 0,
];

/// Running or paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Ingesting and redrawing.
    Live,
    /// The figures are frozen (the view keeps the last snapshot); counting goes on.
    Paused,
    /// The user asked to quit.
    Quit,
}

pub use crate::layout::Panel;

/// What the ingest side should do after a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A command for the ingest thread.
    Ingest(Command),
    /// A new synthetic rate (lines per second, 0 = unlimited).
    SetRate(u64),
    /// Draw the whole screen again (Ctrl-L: another program wrote over it).
    Redraw,
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
    /// The window the figures answer for (`w` steps through them).
    pub window: crate::window::Window,
    /// Lines of help scrolled past.
    pub help_scroll: u16,
    /// The most the help could be scrolled as last drawn (its lines past the overlay's height):
    /// scrolling stops there, so a key back up always moves it.
    pub help_max: std::cell::Cell<u16>,
    /// The terminal's area as last drawn: arrows move the focus by where the panels are.
    pub area: ratatui::layout::Rect,
    /// `r` was pressed once: a second `r` resets every count (and what `--save` writes next);
    /// any other key keeps them.
    pub reset_asked: bool,
}

impl App {
    /// A new view. `rate` is `Some` for the synthetic source.
    #[must_use]
    pub fn new(rate: Option<u64>, theme: Theme) -> Self {
        Self {
            mode: Mode::Live,
            // The first panel (it was the dedupe filter, the third, from before the others).
            focus: Panel::ALL[0],
            help: false,
            zoom: false,
            rate,
            snapshot: Arc::default(),
            theme,
            fps: 0.0,
            window: crate::window::Window::All,
            help_scroll: 0,
            help_max: std::cell::Cell::new(0),
            area: ratatui::layout::Rect::new(0, 0, 80, 24),
            reset_asked: false,
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
        // A reset is asked for twice: one key next to others wiped every count, and what the
        // next save writes, without a word (found by a user test).
        let reset_asked = std::mem::take(&mut self.reset_asked);
        match key.code {
            KeyCode::Char('c') if ctrl => self.quit(),
            KeyCode::Char('l') if ctrl => Some(Action::Redraw),
            KeyCode::Char('q' | 'Q') => self.quit(),
            // Esc answers the reset's question "no", as any other key but `r` (it quit), and only
            // that: a help open behind the question stays (one Esc did both).
            KeyCode::Esc if reset_asked => None,
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
                self.help_scroll = 0;
                None
            }
            KeyCode::Up | KeyCode::Char('k') if self.help => self.scroll_help(-1),
            KeyCode::Down | KeyCode::Char('j') if self.help => self.scroll_help(1),
            KeyCode::PageUp if self.help => self.scroll_help(-10),
            KeyCode::PageDown if self.help => self.scroll_help(10),
            // The help is over the panels: their keys wait until it closes (Tab moved the focus
            // behind it).
            KeyCode::Tab
            | KeyCode::BackTab
            | KeyCode::Left
            | KeyCode::Right
            | KeyCode::Enter
            | KeyCode::Char('z')
                if self.help =>
            {
                None
            }
            KeyCode::Char('p' | 'P' | ' ') => Some(self.toggle_pause()),
            KeyCode::Char('r' | 'R') if reset_asked => Some(Action::Ingest(Command::Reset)),
            KeyCode::Char('r' | 'R') => {
                self.reset_asked = true;
                None
            }
            KeyCode::Char('w' | 'W') if self.snapshot.devices.is_none() => {
                self.window = self.window.next();
                Some(Action::Ingest(Command::Window(self.window)))
            }
            KeyCode::Tab => {
                self.cycle_focus(1);
                None
            }
            KeyCode::BackTab => {
                self.cycle_focus(-1);
                None
            }
            KeyCode::Right => self.move_focus(1, 0),
            KeyCode::Left => self.move_focus(-1, 0),
            KeyCode::Down => self.move_focus(0, 1),
            KeyCode::Up => self.move_focus(0, -1),
            KeyCode::Enter | KeyCode::Char('z') => {
                self.zoom = !self.zoom;
                None
            }
            KeyCode::Char('+' | '=') => self.step_rate(1),
            KeyCode::Char('-' | '_') => self.step_rate(-1),
            _ => None,
        }
    }

    /// Scrolls the help by `lines`, within what it has as last drawn (after a resize the
    /// offset may be past it: a key back up starts from the end).
    fn scroll_help(&mut self, lines: i32) -> Option<Action> {
        let max = self.help_max.get();
        let from = i32::from(self.help_scroll.min(max));
        self.help_scroll = u16::try_from((from + lines).clamp(0, i32::from(max))).unwrap_or(0);
        None
    }

    fn quit(&mut self) -> Option<Action> {
        self.mode = Mode::Quit;
        Some(Action::Ingest(Command::Quit))
    }

    /// Freezes or unfreezes the figures shown ([`Command::Pause`]: counting goes on).
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

    /// The panels as laid out on the last drawn area, and the body they fill.
    #[must_use]
    pub fn placed(&self) -> Vec<(Panel, ratatui::layout::Rect)> {
        let a = self.area;
        let body = if a.height >= 6 {
            ratatui::layout::Rect {
                y: a.y + 1,
                height: a.height - 2,
                ..a
            }
        } else {
            a
        };
        crate::layout::layout(body, &self.panels(), self.focused(), self.zoom)
    }

    /// Moves the focus to the nearest panel on the side `(dx, dy)` points to (its gap weighed
    /// once, its offset across twice), staying put at an edge; with one panel on screen (small
    /// terminal, zoom) arrows step through the panels as Tab does.
    pub fn move_focus(&mut self, dx: i32, dy: i32) -> Option<Action> {
        let placed = self.placed();
        let current = self.focused();
        let Some(&(_, from)) = placed.iter().find(|(p, _)| *p == current) else {
            self.cycle_focus(if dx + dy > 0 { 1 } else { -1 });
            return None;
        };
        if placed.len() < 2 {
            self.cycle_focus(if dx + dy > 0 { 1 } else { -1 });
            return None;
        }
        let centre = |r: ratatui::layout::Rect| {
            (
                i32::from(r.x) * 2 + i32::from(r.width),
                i32::from(r.y) * 2 + i32::from(r.height),
            )
        };
        let (fx, fy) = centre(from);
        let best = placed
            .iter()
            .filter(|(p, _)| *p != current)
            .filter_map(|&(p, r)| {
                let (cx, cy) = centre(r);
                let (along, across) = (
                    dx * (cx - fx) + dy * (cy - fy),
                    dy * (cx - fx) + dx * (cy - fy),
                );
                // On that side: past the focused panel's edge in that direction.
                let beyond = match (dx, dy) {
                    (1, _) => r.x >= from.right(),
                    (-1, _) => r.right() <= from.x,
                    (_, 1) => r.y >= from.bottom(),
                    _ => r.bottom() <= from.y,
                };
                (beyond && along > 0).then_some((along + 2 * across.abs(), p))
            })
            .min_by_key(|&(score, _)| score);
        if let Some((_, p)) = best {
            self.focus = p;
        }
        None
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
    use ratatui::layout::Rect;

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
    }

    #[test]
    fn a_reset_is_asked_for_twice() {
        let mut a = app();
        // The first `r` only asks (the footer says what a second one does).
        assert_eq!(a.on_key(key(KeyCode::Char('r'))), None);
        assert!(a.reset_asked);
        assert_eq!(
            a.on_key(key(KeyCode::Char('r'))),
            Some(Action::Ingest(Command::Reset))
        );
        assert!(!a.reset_asked);
        // Any other key in between keeps the counts.
        a.on_key(key(KeyCode::Char('r')));
        a.on_key(key(KeyCode::Tab));
        assert!(!a.reset_asked);
        assert_eq!(a.on_key(key(KeyCode::Char('r'))), None);
        assert_eq!(
            a.on_key(key(KeyCode::Char('p'))),
            Some(Action::Ingest(Command::Pause(true)))
        );
        assert_eq!(a.on_key(key(KeyCode::Char('r'))), None);
        // Esc keeps the counts too, and does not quit (it did).
        a.on_key(key(KeyCode::Char('p')));
        assert_eq!(a.on_key(key(KeyCode::Char('r'))), None);
        assert_eq!(a.on_key(key(KeyCode::Esc)), None);
        assert!(!a.reset_asked && a.mode != Mode::Quit);
        // With the help open, Esc answers the question only; the next one closes the help.
        a.on_key(key(KeyCode::Char('?')));
        a.on_key(key(KeyCode::Char('r')));
        assert_eq!(a.on_key(key(KeyCode::Esc)), None);
        assert!(!a.reset_asked && a.help);
        a.on_key(key(KeyCode::Esc));
        assert!(!a.help && a.mode != Mode::Quit);
    }

    #[test]
    fn ctrl_l_redraws_and_the_first_panel_has_the_focus() {
        let mut a = app();
        let ctrl_l = KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL);
        assert_eq!(a.on_key(ctrl_l), Some(Action::Redraw));
        a.snapshot = Arc::new(Snapshot {
            distinct: Some(Default::default()),
            heavy: Some(Default::default()),
            ..Snapshot::default()
        });
        // The first panel shown, not the third (Dedupe, the default from before the others).
        assert_eq!(a.focused(), Panel::Distinct);
        a.on_key(key(KeyCode::Tab));
        assert_eq!(a.focused(), Panel::Heavy);
    }

    #[test]
    fn focus_cycles_both_ways() {
        let mut a = app();
        let panels = a.panels();
        assert_eq!(a.focused(), panels[0]);
        a.on_key(key(KeyCode::Tab));
        assert_eq!(a.focus, panels[1]);
        a.on_key(key(KeyCode::BackTab));
        a.on_key(key(KeyCode::BackTab));
        assert_eq!(a.focus, *panels.last().unwrap());
        for _ in 0..panels.len() {
            a.on_key(key(KeyCode::Tab));
        }
        assert_eq!(a.focus, *panels.last().unwrap());
    }

    #[test]
    fn arrows_move_to_the_panel_on_that_side() {
        let mut a = app();
        a.snapshot = Arc::new(Snapshot {
            distinct: Some(Default::default()),
            heavy: Some(Default::default()),
            registers: Some(Default::default()),
            ..Snapshot::default()
        });
        for area in [Rect::new(0, 0, 80, 24), Rect::new(0, 0, 120, 40)] {
            a.area = area;
            // Left column: Distinct, Dedupe, Micro; right: Heavy, Registers, Ingest.
            a.focus = Panel::Distinct;
            let steps = [
                (KeyCode::Down, Panel::Dedupe),
                (KeyCode::Down, Panel::Micro),
                (KeyCode::Down, Panel::Micro),
                (KeyCode::Right, Panel::Throughput),
                (KeyCode::Up, Panel::Registers),
                (KeyCode::Up, Panel::Heavy),
                (KeyCode::Up, Panel::Heavy),
                (KeyCode::Left, Panel::Distinct),
                (KeyCode::Left, Panel::Distinct),
            ];
            for (k, want) in steps {
                a.on_key(key(k));
                assert_eq!(a.focus, want, "{k:?} at {area:?}");
            }
        }
        // One panel on screen: arrows step through them like Tab.
        a.area = Rect::new(0, 0, 40, 10);
        a.focus = Panel::Distinct;
        a.on_key(key(KeyCode::Right));
        assert_eq!(a.focus, a.panels()[1]);
    }

    #[test]
    fn help_scrolls_with_arrows_while_open() {
        let mut a = app();
        a.on_key(key(KeyCode::Char('?')));
        // As drawn, the help has 20 lines more than the overlay holds.
        a.help_max.set(20);
        a.on_key(key(KeyCode::Down));
        a.on_key(key(KeyCode::PageDown));
        assert_eq!(a.help_scroll, 11);
        a.on_key(key(KeyCode::Up));
        assert_eq!(a.help_scroll, 10);
        assert_eq!(
            a.focused(),
            Panel::Dedupe,
            "arrows scroll the help, not the focus"
        );
        // Scrolling stops at the end, and one key back up moves it (a user test: 50 keys down
        // took 31 back up to move); after a resize that leaves less to scroll, from the new end.
        for _ in 0..50 {
            a.on_key(key(KeyCode::Down));
        }
        assert_eq!(a.help_scroll, 20);
        a.on_key(key(KeyCode::Up));
        assert_eq!(a.help_scroll, 19);
        a.help_max.set(5);
        a.on_key(key(KeyCode::Up));
        assert_eq!(a.help_scroll, 4);
        // The panels' keys wait while the help is open (Tab moved the focus behind it).
        for k in [KeyCode::Tab, KeyCode::Right, KeyCode::Left, KeyCode::Enter] {
            a.on_key(key(k));
        }
        assert_eq!((a.focused(), a.zoom), (Panel::Dedupe, false));
        a.on_key(key(KeyCode::Char('?')));
        assert_eq!(a.help_scroll, 0);
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
    fn w_steps_through_the_windows() {
        use crate::window::Window;
        let mut a = app();
        for expected in [Window::Min1, Window::Min5, Window::Min15, Window::All] {
            assert_eq!(
                a.on_key(key(KeyCode::Char('w'))),
                Some(Action::Ingest(Command::Window(expected)))
            );
            assert_eq!(a.window, expected);
        }
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
