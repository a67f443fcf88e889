//! What the bit- and counter-array filters share ([`Bloom`](crate::Bloom),
//! [`BlockedBloom`](crate::BlockedBloom), [`CountingBloom`](crate::CountingBloom),
//! [`MicroBloom`](crate::MicroBloom)): the estimates from the fill, the in-place loader and the
//! element-wise merge.

use crate::error::{check_seeds, MergeError};

/// (fill)^k: the false-positive rate of a filter with this fraction of bits set.
pub(crate) fn fp_rate_from_fill(fill: f64, k: u32) -> f64 {
    libm::pow(fill, f64::from(k))
}

/// Swamidass–Baldi estimate of the number of keys in `m` bits with `ones` set and `k` hashes.
pub(crate) fn cardinality_from_fill(ones: u32, m: u32, k: u32) -> f64 {
    if ones >= m {
        return f64::INFINITY;
    }
    let m = f64::from(m);
    -(m / f64::from(k)) * libm::log1p(-f64::from(ones) / m)
}

/// Zeroes `array`, lets `fill` write it in place, then stores `seed` in `slot` if `fill` succeeds and
/// zeroes the array again if it fails: the loader of the filters whose every bit pattern is valid
/// (`Bloom`, `BlockedBloom`, `CountingBloom`), for decoders that must not make a second filter-sized
/// value.
#[cfg(feature = "wire")]
pub(crate) fn load_zeroed<T: Copy, const N: usize, E>(
    array: &mut [T; N],
    zero: T,
    (slot, seed): (&mut u64, u64),
    fill: impl FnOnce(&mut [T; N]) -> Result<(), E>,
) -> Result<(), E> {
    array.fill(zero);
    let result = fill(array);
    match result {
        Ok(()) => *slot = seed,
        Err(_) => array.fill(zero),
    }
    result
}

/// `mine[i] = op(mine[i], theirs[i])` for every element if the seeds `(ours, theirs)` are equal;
/// nothing changes if they differ. The merges of the filters that combine word by word: union and
/// intersection of `Bloom` and `BlockedBloom`, union of `CountingBloom`.
pub(crate) fn combine<'a, 'b, T: Copy + 'a + 'b>(
    (ours, their_seed): (u64, u64),
    mine: impl IntoIterator<Item = &'a mut T>,
    theirs: impl IntoIterator<Item = &'b T>,
    op: impl Fn(T, T) -> T,
) -> Result<(), MergeError> {
    check_seeds(ours, their_seed)?;
    for (m, &t) in mine.into_iter().zip(theirs) {
        *m = op(*m, t);
    }
    Ok(())
}

/// The shell of an array filter ([`Bloom`](crate::Bloom), [`BlockedBloom`](crate::BlockedBloom),
/// [`CountingBloom`](crate::CountingBloom)): a type `$Name<const $N: usize, const K: u32>` holding
/// `$cells: [$Cell; $N]` and `seed: u64`, whose own file writes the kernel (`insert_hash`,
/// `contains_hash`), the parameter checks (`$CHECK`, evaluated by `from_parts`), `words()` /
/// `words_mut()` over its 64-bit words, and `$set()`, the number of set bits or non-zero counters
/// out of `Self::$SLOTS`. This writes the rest once: construction, seed, the storage accessor, keyed
/// insert and lookup, clear, emptiness, merge, fill ratio, `Default` and a compact `Debug`.
/// `$ex` is the const parameter list of the doc examples; the docs of `insert` and `merge`, which
/// say what the filter's cells do, come from the caller.
macro_rules! filter_shell {
    (
        $Name:ident<$N:ident, K> { $cells:ident: [$Cell:ty; _] = $zero:expr, check $CHECK:ident }
        example: $ex:literal,
        storage: $(#[$storage_doc:meta])* fn $as_cells:ident;
        set: $set:ident of $SLOTS:ident, $set_name:literal, $set_doc:literal;
        insert: $(#[$insert_doc:meta])* ;
        merge: $op:expr; $(#[$merge_doc:meta])*
    ) => {
        impl<const $N: usize, const K: u32> $Name<$N, K> {
            /// Number of hash functions, `k`: the bits or counters a key sets.
            pub const HASHES: u32 = K;

            /// An empty filter with seed 0.
            ///
            /// ```
            #[doc = concat!("let f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::new();")]
            /// assert!(f.is_empty() && f.seed() == 0);
            /// ```
            #[must_use]
            pub const fn new() -> Self {
                Self::with_seed(0)
            }

            /// An empty filter whose hashes use `seed`. Only filters with equal seeds can be
            /// combined.
            ///
            /// ```
            #[doc = concat!("let f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::with_seed(0xfeed);")]
            /// assert_eq!(f.seed(), 0xfeed);
            /// ```
            #[must_use]
            pub const fn with_seed(seed: u64) -> Self {
                Self::from_parts([$zero; $N], seed)
            }

            #[doc = concat!("A filter from its raw ", stringify!($cells), " and seed, as given by [`",
                stringify!($as_cells), "`](Self::", stringify!($as_cells), ") and [`seed`](Self::seed). ",
                "Every bit pattern is a valid filter.")]
            ///
            /// ```
            #[doc = concat!("use sketch_nostd::", stringify!($Name), ";")]
            #[doc = concat!("let mut a = ", stringify!($Name), "::<", $ex, ">::with_seed(9);")]
            /// a.insert("x");
            #[doc = concat!("let b = ", stringify!($Name), "::<", $ex, ">::from_parts(*a.",
                stringify!($as_cells), "(), a.seed());")]
            /// assert_eq!(a, b);
            /// ```
            #[must_use]
            pub const fn from_parts($cells: [$Cell; $N], seed: u64) -> Self {
                let _ = Self::$CHECK; // evaluates the parameter checks at compile time
                Self { $cells, seed }
            }

            /// Replaces the storage, in place, by what `fill` writes into it (zeroed first), and
            /// the seed by `seed` if `fill` succeeds; if it fails, the filter is left empty with
            /// its own seed. Every bit pattern is a valid filter. Crate-internal: for decoders that
            /// must not make a second filter-sized value (a Cortex-M0 has 16 KB of RAM).
            #[cfg(feature = "wire")]
            pub(crate) fn load<E>(
                &mut self,
                seed: u64,
                fill: impl FnOnce(&mut [$Cell; $N]) -> Result<(), E>,
            ) -> Result<(), E> {
                $crate::filter::load_zeroed(&mut self.$cells, $zero, (&mut self.seed, seed), fill)
            }

            /// The seed this filter hashes with.
            ///
            /// ```
            #[doc = concat!("assert_eq!(sketch_nostd::", stringify!($Name), "::<", $ex, ">::with_seed(3).seed(), 3);")]
            /// ```
            #[must_use]
            pub const fn seed(&self) -> u64 {
                self.seed
            }

            $(#[$storage_doc])*
            #[must_use]
            pub const fn $as_cells(&self) -> &[$Cell; $N] {
                &self.$cells
            }

            $(#[$insert_doc])*
            #[inline]
            pub fn insert<Q: $crate::hash::Key + ?Sized>(&mut self, key: &Q) -> bool {
                self.insert_hash($crate::hash::hash64(key, self.seed))
            }

            /// `false` if the key is definitely not in the filter, `true` if it may be.
            ///
            /// ```
            #[doc = concat!("let mut f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::new();")]
            /// f.insert("a");
            /// assert!(f.contains("a"));
            /// ```
            #[inline]
            #[must_use]
            pub fn contains<Q: $crate::hash::Key + ?Sized>(&self, key: &Q) -> bool {
                self.contains_hash($crate::hash::hash64(key, self.seed))
            }

            /// Empties the filter, keeping the seed.
            ///
            /// ```
            #[doc = concat!("let mut f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::new();")]
            /// f.insert("a");
            /// f.clear();
            /// assert!(f.is_empty());
            /// ```
            pub fn clear(&mut self) {
                self.$cells = [$zero; $N];
            }

            /// `true` if nothing is in the filter (every bit clear, every counter 0).
            ///
            /// ```
            #[doc = concat!("assert!(sketch_nostd::", stringify!($Name), "::<", $ex, ">::new().is_empty());")]
            /// ```
            #[must_use]
            pub fn is_empty(&self) -> bool {
                self.words().all(|&w| w == 0)
            }

            $(#[$merge_doc])*
            pub fn merge(&mut self, other: &Self) -> Result<(), $crate::error::MergeError> {
                $crate::filter::combine((self.seed, other.seed), self.words_mut(), other.words(), $op)
            }

            #[doc = concat!("Fraction of ", $set_doc, ", in `0.0..=1.0`.")]
            ///
            /// ```
            #[doc = concat!("assert_eq!(sketch_nostd::", stringify!($Name), "::<", $ex, ">::new().fill_ratio(), 0.0);")]
            /// ```
            #[must_use]
            pub fn fill_ratio(&self) -> f64 {
                f64::from(self.$set()) / Self::$SLOTS as f64
            }
        }

        impl<const $N: usize, const K: u32> Default for $Name<$N, K> {
            fn default() -> Self {
                Self::new()
            }
        }

        #[doc = concat!("Shows the shape, the seed and the ", $set_doc, ", not the ", stringify!($cells), ".")]
        ///
        /// ```
        #[doc = concat!("let f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::with_seed(3);")]
        /// let s = format!("{f:?}");
        #[doc = concat!("assert!(s.starts_with(\"", stringify!($Name), " { ", stringify!($cells), ": \"), \"{s}\");")]
        #[doc = concat!("assert!(s.ends_with(\"seed: 3, ", $set_name, ": 0, .. }\"), \"{s}\");")]
        /// ```
        impl<const $N: usize, const K: u32> core::fmt::Debug for $Name<$N, K> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($Name))
                    .field(stringify!($cells), &$N)
                    .field("k", &K)
                    .field("seed", &self.seed)
                    .field($set_name, &self.$set())
                    .finish_non_exhaustive()
            }
        }
    };
}
pub(crate) use filter_shell;

/// [`filter_shell`] for the two bit filters ([`Bloom`](crate::Bloom),
/// [`BlockedBloom`](crate::BlockedBloom)), with what they add: intersection, the bits set, and
/// construction at compile time from a list of keys through their own `const fn const_insert_hash`
/// (the bits `insert_hash` sets).
macro_rules! bit_filter_shell {
    (
        $Name:ident<$N:ident, K> { $cells:ident: [$Cell:ty; _] = $zero:expr, check $CHECK:ident }
        example: $ex:literal,
        storage: $(#[$storage_doc:meta])* fn $as_cells:ident;
    ) => {
        $crate::filter::filter_shell! {
            $Name<$N, K> { $cells: [$Cell; _] = $zero, check $CHECK }
            example: $ex,
            storage: $(#[$storage_doc])* fn $as_cells;
            set: count_ones of BITS, "ones", "bits set";
            insert:
            /// Inserts a key. Returns `true` if the key was definitely new (at least one of its
            /// bits was clear), `false` if it may have been inserted before — the answer a log
            /// deduplicator needs.
            ///
            /// ```
            #[doc = concat!("let mut f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::new();")]
            /// assert!(f.insert(&7u32));
            /// assert!(!f.insert(&7u32));
            /// ```
            ;
            merge: |a, b| a | b;
            /// Adds every key of `other` to this filter (bitwise OR): afterwards it answers "maybe"
            /// for every key inserted into either. Fails, leaving `self` unchanged, if the seeds
            /// differ.
            ///
            /// ```
            #[doc = concat!("use sketch_nostd::", stringify!($Name), ";")]
            #[doc = concat!("let (mut a, mut b) = (", stringify!($Name), "::<", $ex, ">::with_seed(1), ",
                stringify!($Name), "::<", $ex, ">::with_seed(1));")]
            /// a.insert("left");
            /// b.insert("right");
            /// a.merge(&b)?;
            /// assert!(a.contains("left") && a.contains("right"));
            /// # Ok::<(), sketch_nostd::MergeError>(())
            /// ```
        }

        impl<const $N: usize, const K: u32> $Name<$N, K> {
            /// Keeps only the bits set in both filters (bitwise AND): afterwards it answers "maybe"
            /// for every key inserted into both (and, as with any Bloom intersection, for somewhat
            /// more keys than a filter built from the common keys alone). Fails, leaving `self`
            /// unchanged, if the seeds differ.
            ///
            /// ```
            #[doc = concat!("use sketch_nostd::", stringify!($Name), ";")]
            #[doc = concat!("let (mut a, mut b) = (", stringify!($Name), "::<", $ex, ">::new(), ",
                stringify!($Name), "::<", $ex, ">::new());")]
            /// a.insert("both");
            /// a.insert("only a");
            /// b.insert("both");
            /// a.intersect(&b)?;
            /// assert!(a.contains("both"));
            /// # Ok::<(), sketch_nostd::MergeError>(())
            /// ```
            pub fn intersect(&mut self, other: &Self) -> Result<(), $crate::error::MergeError> {
                $crate::filter::combine((self.seed, other.seed), self.words_mut(), other.words(), |a, b| a & b)
            }

            /// Number of bits set.
            ///
            /// ```
            #[doc = concat!("let mut f = sketch_nostd::", stringify!($Name), "::<", $ex, ">::new();")]
            /// f.insert("a");
            #[doc = concat!("assert!((1..=sketch_nostd::", stringify!($Name), "::<", $ex, ">::HASHES).contains(&f.count_ones()));")]
            /// ```
            #[must_use]
            pub fn count_ones(&self) -> u32 {
                self.words().map(|w| w.count_ones()).sum()
            }

            /// A filter holding the string keys `keys`, hashed with `seed`; a `const fn`.
            ///
            /// ```
            #[doc = concat!("const F: sketch_nostd::", stringify!($Name), "<", $ex, "> = sketch_nostd::",
                stringify!($Name), "::from_keys(&[\"a\", \"b\"], 3);")]
            /// assert!(F.contains("a") && F.contains(b"b"));
            /// ```
            #[must_use]
            pub const fn from_keys(keys: &[&str], seed: u64) -> Self {
                let mut f = Self::with_seed(seed);
                let mut i = 0;
                while i < keys.len() {
                    f.const_insert_hash($crate::hash::const_hash64(keys[i].as_bytes(), seed));
                    i += 1;
                }
                f
            }

            /// A filter holding the byte-string keys `keys`, hashed with `seed`; a `const fn`.
            ///
            /// ```
            #[doc = concat!("const F: sketch_nostd::", stringify!($Name), "<", $ex, "> = sketch_nostd::",
                stringify!($Name), "::from_byte_keys(&[b\"\\x00\\x01\", b\"ab\"], 0);")]
            /// assert!(F.contains(&[0u8, 1]) && F.contains("ab"));
            /// ```
            #[must_use]
            pub const fn from_byte_keys(keys: &[&[u8]], seed: u64) -> Self {
                let mut f = Self::with_seed(seed);
                let mut i = 0;
                while i < keys.len() {
                    f.const_insert_hash($crate::hash::const_hash64(keys[i], seed));
                    i += 1;
                }
                f
            }

            /// A filter holding the `u64` keys `keys`, hashed with `seed`; a `const fn`.
            ///
            /// ```
            #[doc = concat!("const F: sketch_nostd::", stringify!($Name), "<", $ex, "> = sketch_nostd::",
                stringify!($Name), "::from_u64_keys(&[80, 443], 0);")]
            /// assert!(F.contains(&443u64));
            /// ```
            #[must_use]
            pub const fn from_u64_keys(keys: &[u64], seed: u64) -> Self {
                let mut f = Self::with_seed(seed);
                let mut i = 0;
                while i < keys.len() {
                    f.const_insert_hash($crate::hash::const_hash64_u64(keys[i], seed));
                    i += 1;
                }
                f
            }

            /// A filter holding the keys whose hashes ([`hash64`](crate::hash::hash64) with `seed`)
            /// are `hashes`; a `const fn`, for keys of other types hashed by the caller.
            ///
            /// ```
            #[doc = concat!("use sketch_nostd::{hash::const_hash64, ", stringify!($Name), "};")]
            #[doc = concat!("const F: ", stringify!($Name), "<", $ex, "> = ", stringify!($Name),
                "::from_hashes(&[const_hash64(&7u32.to_le_bytes(), 1)], 1);")]
            /// assert!(F.contains(&7u32));
            /// ```
            #[must_use]
            pub const fn from_hashes(hashes: &[u64], seed: u64) -> Self {
                let mut f = Self::with_seed(seed);
                let mut i = 0;
                while i < hashes.len() {
                    f.const_insert_hash(hashes[i]);
                    i += 1;
                }
                f
            }
        }
    };
}
pub(crate) use bit_filter_shell;
