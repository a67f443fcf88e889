//! Time: deadlines from `--seconds`, and the clock the windows run on.
//!
//! A deadline may be any non-negative number of seconds: one too far away to represent (`1e19`,
//! `1e20`: past `Duration`'s or `Instant`'s range) is no deadline at all, never a panic.
//!
//! The windows' time comes from a [`Clock`] handed to ingest, never from `Instant::now()` inside the
//! engine: [`WallClock`] in a run, [`ManualClock`] in tests, which set the time exactly.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Test hook: the wall clock runs this many times faster (e.g. `60`: a minute a second), so an
/// end-to-end test sees windows close without waiting minutes.
pub const TIME_SCALE_VAR: &str = "TUI_DEMO_TIME_SCALE";

/// Where the run's time comes from: the time since the clock started.
pub trait Clock: Send + std::fmt::Debug {
    /// The time since the start.
    fn now(&self) -> Duration;
}

/// The wall clock (sped up by [`TIME_SCALE_VAR`] if set, for tests).
#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    start: Instant,
    scale: f64,
}

impl WallClock {
    /// A clock starting now.
    #[must_use]
    pub fn new() -> Self {
        let scale = std::env::var(TIME_SCALE_VAR)
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .unwrap_or(1.0);
        Self {
            start: Instant::now(),
            scale,
        }
    }
}

impl Default for WallClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for WallClock {
    fn now(&self) -> Duration {
        let t = self.start.elapsed();
        if self.scale == 1.0 {
            t
        } else {
            Duration::try_from_secs_f64(t.as_secs_f64() * self.scale).unwrap_or(Duration::MAX)
        }
    }
}

/// A clock that moves only when told: clones share the time.
///
/// ```
/// use std::time::Duration;
/// use tui_demo::clock::{Clock, ManualClock};
/// let c = ManualClock::default();
/// let seen_by_ingest = c.clone();
/// c.set(Duration::from_secs(75));
/// assert_eq!(seen_by_ingest.now(), Duration::from_secs(75));
/// ```
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicU64>);

impl ManualClock {
    /// Sets the time.
    pub fn set(&self, t: Duration) {
        self.0.store(
            u64::try_from(t.as_nanos()).unwrap_or(u64::MAX),
            Ordering::SeqCst,
        );
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.0.load(Ordering::SeqCst))
    }
}

/// The instant `seconds` after `start`, or `None` when there is no limit or it lies beyond what an
/// `Instant` can hold (which no run reaches).
///
/// ```
/// use std::time::Instant;
/// let now = Instant::now();
/// assert!(tui_demo::clock::deadline(now, Some(1.5)).is_some());
/// assert_eq!(tui_demo::clock::deadline(now, Some(1e20)), None);
/// assert_eq!(tui_demo::clock::deadline(now, None), None);
/// ```
#[must_use]
pub fn deadline(start: Instant, seconds: Option<f64>) -> Option<Instant> {
    let d = Duration::try_from_secs_f64(seconds?).ok()?;
    start.checked_add(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_limits_are_no_limit() {
        let now = Instant::now();
        // 1e19 s fits a Duration (u64 seconds) but not an Instant; 1e20 fits neither: both
        // panicked in `Instant + Duration::from_secs_f64`.
        for s in [1e19, 1e20, f64::MAX, f64::INFINITY] {
            assert_eq!(deadline(now, Some(s)), None, "{s}");
        }
        assert_eq!(deadline(now, Some(0.0)), Some(now));
        assert_eq!(deadline(now, Some(-1.0)), None);
    }
}
