//! Errors, one type per concern.
//!
//! * [`MergeError`]: two sketches of the same type that cannot be combined (different seeds). Sketches
//!   of different sizes or parameters are different types, so combining them does not compile.

use core::fmt;

/// Why two sketches could not be merged. The sketch that was asked to merge is left unchanged.
///
/// ```
/// use sketch_nostd::{Bloom, MergeError};
///
/// let mut a = Bloom::<4, 3>::with_seed(1);
/// let b = Bloom::<4, 3>::with_seed(2);
/// assert_eq!(a.union(&b), Err(MergeError::SeedMismatch { ours: 1, theirs: 2 }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MergeError {
    /// The sketches hash with different seeds, so their cells mean different things.
    SeedMismatch {
        /// The seed of the sketch that was asked to merge.
        ours: u64,
        /// The seed of the other sketch.
        theirs: u64,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SeedMismatch { ours, theirs } => write!(
                f,
                "cannot merge sketches with different seeds ({ours:#x} and {theirs:#x})"
            ),
        }
    }
}

impl core::error::Error for MergeError {}

/// Checks that two seeds agree before a merge.
pub(crate) const fn check_seeds(ours: u64, theirs: u64) -> Result<(), MergeError> {
    if ours == theirs {
        Ok(())
    } else {
        Err(MergeError::SeedMismatch { ours, theirs })
    }
}
