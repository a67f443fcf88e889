//! The exact reference the sketches are compared with: a count per distinct line, up to a cap.
//!
//! Keys are the lines' 64-bit hashes (the same hash the sketches see), so the table costs 16 bytes of
//! payload per distinct line whatever the line length; two different lines collide with probability
//! about n²/2⁶⁵ (under 10⁻⁵ for a million lines), which is negligible next to the sketches' errors.
//! Once the cap is reached no new key is added, so memory stays flat: keys already in the table keep
//! exact counts, later keys are unknown, and the distinct count is marked as a lower bound.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::snapshot::ExactStats;

/// A hasher for keys that are already uniform 64-bit hashes: passes them through.
#[derive(Default, Clone, Copy, Debug)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// What the table knew about a key before this occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// First occurrence.
    New,
    /// Seen before.
    Again,
    /// Not in the table and the table is full: unknown.
    Unknown,
}

/// Exact counts per line hash, up to `cap` distinct lines.
#[derive(Clone, Debug, Default)]
pub struct Exact {
    counts: HashMap<u64, u64, BuildHasherDefault<PassThrough>>,
    cap: usize,
    capped: bool,
    key_bytes: u64,
}

impl Exact {
    /// A table holding at most `cap` distinct lines (0 turns exact counting off).
    #[must_use]
    pub fn new(cap: usize) -> Self {
        Self {
            cap,
            ..Self::default()
        }
    }

    /// Counts one occurrence of the line with this hash and length.
    pub fn observe(&mut self, hash: u64, len: u64) -> Seen {
        if self.cap == 0 {
            // Off (`--exact-cap 0`): nothing to look up.
            self.capped = true;
            return Seen::Unknown;
        }
        if let Some(c) = self.counts.get_mut(&hash) {
            *c += 1;
            return Seen::Again;
        }
        if self.counts.len() >= self.cap {
            self.capped = true;
            return Seen::Unknown;
        }
        self.counts.insert(hash, 1);
        self.key_bytes += len;
        Seen::New
    }

    /// The exact count of a line, if the table knows it.
    #[must_use]
    pub fn count(&self, hash: u64) -> Option<u64> {
        self.counts.get(&hash).copied()
    }

    /// Whether the cap was reached.
    #[must_use]
    pub fn capped(&self) -> bool {
        self.capped
    }

    /// Bytes of memory the table holds: its capacity times (key + count + one control byte).
    #[must_use]
    pub fn table_bytes(&self) -> u64 {
        self.counts.capacity() as u64 * (8 + 8 + 1)
    }

    /// Forgets everything (memory is released too).
    pub fn clear(&mut self) {
        *self = Self::new(self.cap);
    }

    /// The figures for the UI.
    #[must_use]
    pub fn stats(&self) -> ExactStats {
        ExactStats {
            distinct: self.counts.len() as u64,
            capped: self.capped,
            cap: self.cap as u64,
            table_bytes: self.table_bytes(),
            key_bytes: self.key_bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_exactly_up_to_the_cap_then_stays_flat() {
        let mut e = Exact::new(3);
        assert_eq!(e.observe(1, 10), Seen::New);
        assert_eq!(e.observe(1, 10), Seen::Again);
        assert_eq!(e.observe(2, 5), Seen::New);
        assert_eq!(e.observe(3, 5), Seen::New);
        assert_eq!(e.observe(4, 5), Seen::Unknown);
        assert_eq!(e.observe(1, 10), Seen::Again, "known keys keep counting");
        assert_eq!(e.count(1), Some(3));
        assert_eq!(e.count(4), None);
        let s = e.stats();
        assert_eq!((s.distinct, s.capped, s.key_bytes), (3, true, 20));
        assert!(s.table_bytes >= 3 * 17);
        let mut off = Exact::new(0);
        assert_eq!(off.observe(1, 1), Seen::Unknown);
        e.clear();
        assert_eq!(e.stats().distinct, 0);
        assert!(!e.capped());
    }
}
