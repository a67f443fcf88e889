//! Deadlines from `--seconds`, which may be any non-negative number: one too far away to represent
//! (`1e19`, `1e20`: past `Duration`'s or `Instant`'s range) is no deadline at all, never a panic.

use std::time::{Duration, Instant};

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
        // panicked in `Instant + Duration::from_secs_f64` (issue 15).
        for s in [1e19, 1e20, f64::MAX, f64::INFINITY] {
            assert_eq!(deadline(now, Some(s)), None, "{s}");
        }
        assert_eq!(deadline(now, Some(0.0)), Some(now));
        assert_eq!(deadline(now, Some(-1.0)), None);
    }
}
