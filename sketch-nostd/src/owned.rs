//! What the heavy-hitter summaries ([`TopK`](crate::TopK), [`SpaceSaving`](crate::SpaceSaving))
//! store and list: keys held by value ([`OwnedKey`]) and listed entries ([`Counted`]).

use crate::hash::Key;

/// A key type that heavy-hitter summaries can store by value, and the borrowed form it is looked up
/// and hashed by.
///
/// | stored `Self` | looked up as `Borrowed` | a key that does not fit |
/// | --- | --- | --- |
/// | `u8`…`u128`, `i8`…`i128`, `usize`, `isize`, `bool`, `char` | the same type | — |
/// | `[u8; N]` | `[u8; N]` | — |
/// | `heapless::String<N>` | `str` | longer than `N` bytes |
/// | `heapless::Vec<u8, N>` | `[u8]` | longer than `N` bytes |
///
/// **A key longer than its slot** is still counted in full (the sketch hashes the whole key), but it
/// is never listed: [`from_borrowed`](Self::from_borrowed) returns `None`, the summary skips it and
/// counts the event in its `overlong()` counter, so a slot that is too small shows up instead of
/// silently merging long keys that share a prefix. To group long keys by a prefix on purpose, cut them
/// before adding them.
///
/// Hashing goes through `Borrowed`, so the stored and the borrowed form of a key hash the same, and
/// keys compare through `Borrowed`'s `Ord` (numbers by value, strings and bytes lexicographically).
///
/// ```
/// use sketch_nostd::OwnedKey;
/// type Line = heapless::String<8>;
/// assert_eq!(Line::from_borrowed("GET /").unwrap().as_borrowed(), "GET /");
/// assert!(Line::from_borrowed("GET /index.html").is_none()); // 15 bytes do not fit in 8
/// assert_eq!(u32::from_borrowed(&7), Some(7));
/// ```
pub trait OwnedKey: Clone {
    /// The borrowed form keys are passed in as (`str` for strings, `[u8]` for byte vectors, the type
    /// itself for integers and arrays). Its `Ord` breaks ties between equal counts, so that what a
    /// summary lists, evicts and merges depends only on its contents (see
    /// [`TopK::sorted`](crate::TopK::sorted)).
    type Borrowed: Key + Ord + ?Sized;

    /// An owned copy of `key`, or `None` if it does not fit.
    ///
    /// ```
    /// use sketch_nostd::OwnedKey;
    /// assert!(heapless::Vec::<u8, 2>::from_borrowed(&[1, 2, 3][..]).is_none());
    /// ```
    fn from_borrowed(key: &Self::Borrowed) -> Option<Self>;

    /// The stored key in its borrowed form.
    ///
    /// ```
    /// use sketch_nostd::OwnedKey;
    /// assert_eq!([1u8, 2].as_borrowed(), &[1, 2]);
    /// ```
    fn as_borrowed(&self) -> &Self::Borrowed;
}

macro_rules! owned_by_value {
    ($($t:ty),*) => {$(
        impl OwnedKey for $t {
            type Borrowed = $t;
            #[inline]
            fn from_borrowed(key: &$t) -> Option<Self> {
                Some(*key)
            }
            #[inline]
            fn as_borrowed(&self) -> &$t {
                self
            }
        }
    )*};
}
owned_by_value!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, bool, char);

impl<const N: usize> OwnedKey for [u8; N] {
    type Borrowed = [u8; N];
    #[inline]
    fn from_borrowed(key: &[u8; N]) -> Option<Self> {
        Some(*key)
    }
    #[inline]
    fn as_borrowed(&self) -> &[u8; N] {
        self
    }
}

impl<const N: usize, L: heapless::LenType> OwnedKey for heapless::String<N, L> {
    type Borrowed = str;
    #[inline]
    fn from_borrowed(key: &str) -> Option<Self> {
        Self::try_from(key).ok()
    }
    #[inline]
    fn as_borrowed(&self) -> &str {
        self.as_str()
    }
}

impl<const N: usize, L: heapless::LenType> OwnedKey for heapless::Vec<u8, N, L> {
    type Borrowed = [u8];
    #[inline]
    fn from_borrowed(key: &[u8]) -> Option<Self> {
        Self::from_slice(key).ok()
    }
    #[inline]
    fn as_borrowed(&self) -> &[u8] {
        self.as_slice()
    }
}

/// A listed key of a heavy-hitter summary, as [`TopK`](crate::TopK) and
/// [`SpaceSaving`](crate::SpaceSaving) list it (`sorted()` by count, `entries()` in storage order):
/// its count, never below the true count, and the most the count can exceed the truth,
/// `count − error ≤ true count ≤ count`.
///
/// For [`SpaceSaving`](crate::SpaceSaving) the error is the entry's own, and the lower bound always
/// holds. For [`TopK`](crate::TopK) it is the sketch's [`error_bound`](crate::TopK::error_bound)
/// (ε·N, at most the count), and the lower bound holds with probability at least `1 − δ`.
///
/// ```
/// let c = sketch_nostd::Counted { key: &"k", count: 10, error: 3 };
/// assert_eq!(c.guaranteed(), 7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted<'a, T> {
    /// The key.
    pub key: &'a T,
    /// Its count: never below the true count.
    pub count: u64,
    /// The most `count` can be above the true count.
    pub error: u64,
}

impl<T> Counted<'_, T> {
    /// `count − error`, a count the key is guaranteed to have reached.
    ///
    /// ```
    /// let c = sketch_nostd::Counted { key: &1u8, count: 4, error: 4 };
    /// assert_eq!(c.guaranteed(), 0);
    /// ```
    #[must_use]
    pub const fn guaranteed(&self) -> u64 {
        self.count.saturating_sub(self.error)
    }
}
