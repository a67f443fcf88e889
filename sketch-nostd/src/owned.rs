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

    /// A number that orders like the key, or ties: whenever `a.as_borrowed() < b.as_borrowed()`,
    /// `a.order_prefix() <= b.order_prefix()`. Integers give their value (shifted to unsigned,
    /// the high half of a 128-bit one), strings, byte vectors and arrays their first 8 bytes
    /// (big-endian, zero-padded). A summary sorts its counters by this number first, and only
    /// keys that tie compare in full; the default, 0 for every key, is always right (and leaves
    /// every comparison to the full key).
    ///
    /// ```
    /// use sketch_nostd::OwnedKey;
    /// assert!((-3i32).order_prefix() < 2i32.order_prefix());
    /// type Line = heapless::String<16>;
    /// let (get, post) = (Line::try_from("GET /a").unwrap(), Line::try_from("POST /").unwrap());
    /// assert!(get.order_prefix() < post.order_prefix());
    /// ```
    #[inline]
    fn order_prefix(&self) -> u64 {
        0
    }
}

/// The first 8 bytes of `bytes` as a big-endian number, zero-padded: it orders like the bytes
/// (lexicographically) or ties.
#[inline]
fn bytes_prefix(bytes: &[u8]) -> u64 {
    let mut first = [0u8; 8];
    for (d, s) in first.iter_mut().zip(bytes) {
        *d = *s;
    }
    u64::from_be_bytes(first)
}

macro_rules! owned_by_value {
    ($($t:ty => |$v:ident| $prefix:expr),* $(,)?) => {$(
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
            #[inline]
            fn order_prefix(&self) -> u64 {
                let $v = *self;
                $prefix
            }
        }
    )*};
}
/// The sign bit, flipped so that signed values order as unsigned ones.
const SIGN: u64 = 1 << 63;
owned_by_value!(
    u8 => |v| u64::from(v),
    u16 => |v| u64::from(v),
    u32 => |v| u64::from(v),
    u64 => |v| v,
    u128 => |v| (v >> 64) as u64,
    usize => |v| v as u64,
    i8 => |v| i64::from(v) as u64 ^ SIGN,
    i16 => |v| i64::from(v) as u64 ^ SIGN,
    i32 => |v| i64::from(v) as u64 ^ SIGN,
    i64 => |v| v as u64 ^ SIGN,
    i128 => |v| (v >> 64) as i64 as u64 ^ SIGN,
    isize => |v| v as i64 as u64 ^ SIGN,
    bool => |v| u64::from(v),
    char => |v| u64::from(u32::from(v)),
);

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
    #[inline]
    fn order_prefix(&self) -> u64 {
        bytes_prefix(self)
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
    #[inline]
    fn order_prefix(&self) -> u64 {
        bytes_prefix(self.as_bytes())
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
    #[inline]
    fn order_prefix(&self) -> u64 {
        bytes_prefix(self)
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

#[cfg(test)]
mod tests {
    use super::OwnedKey;
    use sketch_rng::SplitMix64;

    /// `order_prefix` orders like the keys or ties, on random pairs of each key type: values
    /// drawn near each other (a shared high part) as well as far apart, so that both the bits it
    /// keeps and those it drops decide.
    #[test]
    fn order_prefixes_order_like_the_keys() {
        fn monotone<T: OwnedKey + core::fmt::Debug>(mut draw: impl FnMut(&mut SplitMix64) -> T) {
            let mut rng = SplitMix64(11);
            let mut strict = 0;
            for _ in 0..20_000 {
                let (a, b) = (draw(&mut rng), draw(&mut rng));
                let (pa, pb) = (a.order_prefix(), b.order_prefix());
                if a.as_borrowed() < b.as_borrowed() {
                    assert!(pa <= pb, "{a:?} < {b:?}: {pa:#x} > {pb:#x}");
                    strict += usize::from(pa < pb);
                }
            }
            // The prefixes tell most pairs apart (the default 0 would tell none).
            assert!(strict > 1_000, "{strict}");
        }
        // A full random value or one near 0 (small magnitudes, either sign).
        fn bits(rng: &mut SplitMix64) -> u128 {
            let x = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            if rng.chance(0.5) {
                x
            } else {
                (x % 1_000).wrapping_sub(500)
            }
        }
        monotone(|r| bits(r) as u8);
        monotone(|r| bits(r) as u16);
        monotone(|r| bits(r) as u32);
        monotone(|r| bits(r) as u64);
        monotone(|r| bits(r) as usize);
        monotone(bits);
        monotone(|r| bits(r) as i8);
        monotone(|r| bits(r) as i16);
        monotone(|r| bits(r) as i32);
        monotone(|r| bits(r) as i64);
        monotone(|r| bits(r) as isize);
        monotone(|r| bits(r) as i128);
        monotone(|r| r.chance(0.5));
        monotone(|r| char::from_u32(r.below(0x11_0000) as u32).unwrap_or('x'));
        // Bytes from a small alphabet, of any length up to 12: shared prefixes and prefixes of
        // each other.
        fn text(rng: &mut SplitMix64) -> heapless::Vec<u8, 12> {
            let len = rng.below(13) as usize;
            (0..len)
                .map(|_| b"ab\0\xff"[rng.below(4) as usize])
                .collect()
        }
        monotone(text);
        monotone(|r| {
            let t = text(r);
            heapless::String::<12>::try_from(core::str::from_utf8(&t).unwrap_or("\u{ff}")).unwrap()
        });
        monotone(|r| {
            let t = text(r);
            core::array::from_fn::<u8, 10, _>(|i| t.get(i).copied().unwrap_or(7))
        });
        monotone(|r| [r.below(3) as u8, r.below(3) as u8]);
    }
}
