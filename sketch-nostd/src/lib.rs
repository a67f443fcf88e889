//! Probabilistic sketches for the edge: fixed-size, `no_std`, no heap, no `unsafe`.
//!
//! Every sketch here is a plain value whose size is fixed by its const parameters, so it can live in a
//! `static`, on a microcontroller's stack or inside another struct, and its memory is known before the
//! first key arrives. Sketches answer with a known error in a known direction:
//!
//! | question | sketch | method | error |
//! | --- | --- | --- | --- |
//! | "is it there?" | [`Bloom`], [`BlockedBloom`] (one cache line per key), [`MicroBloom`], [`MicroBloom32`] | `contains` | false positives only, at a rate fixed by the size |
//! | "is it there?", with delete | [`CountingBloom`] | `contains`, `remove` | false positives only, as a Bloom filter with one 4-bit counter per bit; removing a key that was never inserted can cause false negatives |
//! | "is it there?", with delete, smaller | [`CuckooFilter`] | `contains`, `remove` | false positives only, ≈ 8·load/2^f with f-bit fingerprints (3.1% for `u8`, 0.012% for `u16` when full); inserts fail (changing nothing) above ~95% load; removing a never-inserted key can cause false negatives |
//! | "how often?" | [`CountMin`] (and [`CountingBloom`], up to 15) | `estimate` | overestimates only, by at most ε·N with probability 1 − δ (N = total count) |
//! | "what is hot?" | [`TopK`] (count-min + heap), [`SpaceSaving`] | `sorted` | listed counts never under; Space-Saving's at most N/K over |
//! | "how slow?" (p50, p99, …) | [`QuantileSketch`] | `quantile`, `rank` | every quantile within ±α of the true value (α = 0.99% with 35 buckets per power of two; 1 … 10^9 in 4.2 KB), the lowest buckets collapse when the range overflows |
//! | "how many distinct?" | [`HyperLogLog`] ([`Hll10`], [`Hll12`], [`Hll14`], …); roughly, any Bloom filter | `cardinality` | ≈ 1.04/√m relative (0.81% in 12 KB), 0.83/√m for a single stream, near-exact below ~2,000 |
//!
//! # One vocabulary
//!
//! Every sketch names the same idea the same way, with the same return type:
//!
//! | idea | method |
//! | --- | --- |
//! | add a key | `insert(&key)` (filters, HyperLogLog); counting sketches `add(&key, n)` and `increment(&key)`; every one `insert_hash` / `add_hash` for a hash computed by the caller |
//! | membership | `contains(&key) -> bool` |
//! | delete | `remove(&key) -> Result<(), RemoveError>` ([`CountingBloom`], [`CuckooFilter`]) |
//! | frequency of one key | `estimate(&key) -> u64`, never below the true count |
//! | distinct count | `cardinality() -> f64` |
//! | combine | `merge(&other) -> Result<(), MergeError>`, leaving `self` unchanged on an error; also the [`Sketch`] trait |
//! | error bound | `error_bound()` for the counting sketches (the most an estimate is over, in counts) |
//! | sorted listing | `sorted()`, a `heapless::Vec` of [`Counted`] (key, count, error), largest first; `entries()` the same items in storage order |
//! | seed | `with_seed(seed)` and `seed()`; `new()` is seed 0 ([`MicroBloom`]'s seed is a const parameter) |
//! | raw parts | `from_parts(storage, seed, …)`: the storage, then the seed, then any other state, as the accessors return them; `Result<Self, PartsError>`, refusing parts no sketch can reach (count-min, top-k, Space-Saving, cuckoo, HyperLogLog and its sparse form `from_coupons`, [`hll::DeviceHll`]); `const` and infallible for the filters whose every bit pattern is valid (Bloom family, [`MicroBloom`], whose seed is its type's); [`TopK`] takes its sketch, which holds the seed; [`QuantileSketch`] keeps its bucket layout private and is rebuilt from its encoding only |
//! | `Debug` | parameters, seed and a summary (bits set, keys listed, `N`), never every cell |
//!
//! The update rule of count-min and top-k is one type parameter, [`counter::Conservative`] by
//! default for both (much smaller overestimates; heavy keys are counted nearly exactly), or
//! [`counter::Standard`] (whose merges equal the sketch of both streams exactly).
//!
//! Hashing ([`hash`]) is xxh3-64 over a canonical byte encoding of each key ([`Key`]), so a sketch
//! built on a 32-bit Cortex-M0 and one built on a 64-bit host hash identically and can be merged.
//! [`sizing`] turns a target error into const parameters at compile time.
//!
//! ```
//! use sketch_nostd::{sizing::{k_for, words_for}, Bloom};
//!
//! // A "seen URL" set for 10,000 URLs at 1% false positives: 11,992 bytes, fixed.
//! let mut seen: Bloom<{ words_for(10_000, 0.01) }, { k_for(10_000, 0.01) }> = Bloom::with_seed(7);
//! for url in ["https://a.example/", "https://b.example/x"] {
//!     seen.insert(url);
//! }
//! assert!(seen.contains("https://a.example/"));
//! assert_eq!(core::mem::size_of_val(&seen), 11_992);
//!
//! // Filters built elsewhere with the same parameters and seed merge; another seed is refused.
//! let mut other = Bloom::with_seed(7);
//! other.insert("https://c.example/");
//! seen.merge(&other)?;
//! assert!(seen.contains("https://c.example/"));
//! assert!(seen.merge(&Bloom::with_seed(8)).is_err());
//! # Ok::<(), sketch_nostd::MergeError>(())
//! ```
//!
//! The crate never panics on input: parameters that cannot work are compile errors, merges of
//! incompatible sketches return [`MergeError`], and decoding any bytes returns a `Result`.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
// The blocked filter's run-time kernel choice (`blocked::kernel`) keeps its CPU check in a `OnceLock`.
#[cfg(all(feature = "std", not(test)))]
extern crate std;

pub mod blocked;
pub mod bloom;
pub mod counter;
pub mod counting;
pub mod countmin;
pub mod cuckoo;
pub mod error;
mod filter;
mod float;
#[cfg(feature = "wire")]
pub mod fuse;
pub mod hash;
pub mod hll;
mod lookup;
pub mod micro;
mod num;
pub mod owned;
pub mod quantile;
pub mod redis;
pub mod sizing;
mod sketch;
mod sort;
pub mod spacesaving;
pub mod topk;
mod tracker;
#[cfg(feature = "wire")]
#[cfg_attr(docsrs, doc(cfg(feature = "wire")))]
pub mod wire;

/// The `heapless` crate (0.9) whose `String<N>` and `Vec<u8, N>` hold the keys of [`TopK`] and
/// [`SpaceSaving`] (see [`OwnedKey`]), re-exported so that the versions always match.
pub use heapless;

pub use blocked::BlockedBloom;
pub use bloom::Bloom;
pub use counting::CountingBloom;
pub use countmin::CountMin;
pub use cuckoo::CuckooFilter;
#[cfg(feature = "alloc")]
pub use error::BuildError;
pub use error::{CapacityError, MergeError, PartsError, RedisError, RemoveError};
pub use hash::Key;
pub use hll::DeviceHll;
pub use hll::{
    Hll10, Hll11, Hll12, Hll13, Hll14, Hll15, Hll16, Hll17, Hll18, Hll4, Hll5, Hll6, Hll7, Hll8,
    Hll9, HyperLogLog,
};
pub use micro::{MicroBloom, MicroBloom32};
pub use owned::{Counted, OwnedKey};
pub use quantile::QuantileSketch;
pub use redis::RedisHll;
pub use sketch::Sketch;
pub use spacesaving::SpaceSaving;
pub use topk::TopK;
#[cfg(feature = "wire")]
pub use wire::WireError;

/// The README's example, compiled and run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
