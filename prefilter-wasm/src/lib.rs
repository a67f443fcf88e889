//! A prefilter for a web page: [`sketch_nostd`]'s zero-copy views compiled to
//! `wasm32-unknown-unknown` and called from JavaScript through plain exported functions (no
//! wasm-bindgen, so no extra tool is needed to build it).
//!
//! The page fetches the filter bytes as a file (a binary fuse filter, read with
//! [`BinaryFuse8Ref`] or [`BinaryFuse16Ref`], or the dense encoding of a `BlockedBloom` or
//! `Bloom`, see [`sketch_nostd::wire::encode_view`]), copies them into the buffer that
//! [`prefilter_filter_buffer`] returns, and calls [`prefilter_load`]; then, for each URL, copies its
//! UTF-8 bytes into [`prefilter_key_buffer`] and calls [`prefilter_query`]: 0 means "definitely
//! not in the filter" (safe), 1 "maybe" (ask the server). `www/` holds the page.
//!
//! The same functions work natively, which is how the answers are checked:
//!
//! ```
//! use prefilter_wasm::{load, query};
//! use sketch_nostd::fuse::BinaryFuse8;
//!
//! let filter = BinaryFuse8::from_keys(["https://bad.example/"], 0).expect("built");
//! assert_eq!(load(filter.as_bytes()), Ok(12)); // the wire kind
//! assert_eq!(query(filter.as_bytes(), b"https://bad.example/"), Ok(true));
//! ```

use std::sync::Mutex;

use sketch_nostd::fuse::{BinaryFuse16Ref, BinaryFuse8Ref};
use sketch_nostd::wire::{self, BlockedBloomRef, BloomRef, SketchKind};
use sketch_nostd::WireError;

/// The filter's bytes, as the page wrote them.
static FILTER: Mutex<Vec<u8>> = Mutex::new(Vec::new());
/// The key being queried.
static KEY: Mutex<Vec<u8>> = Mutex::new(Vec::new());

/// A view of any prefilter kind the page may load.
enum View<'a> {
    Bloom(BloomRef<'a>),
    Blocked(BlockedBloomRef<'a>),
    Fuse8(BinaryFuse8Ref<'a>),
    Fuse16(BinaryFuse16Ref<'a>),
}

impl<'a> View<'a> {
    fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        match wire::peek(bytes)?.kind {
            SketchKind::Bloom => BloomRef::new(bytes).map(Self::Bloom),
            SketchKind::BlockedBloom => BlockedBloomRef::new(bytes).map(Self::Blocked),
            SketchKind::BinaryFuse8 => BinaryFuse8Ref::new(bytes).map(Self::Fuse8),
            SketchKind::BinaryFuse16 => BinaryFuse16Ref::new(bytes).map(Self::Fuse16),
            other => Err(WireError::WrongKind {
                expected: SketchKind::BinaryFuse8,
                found: other as u8,
            }),
        }
    }

    fn contains(&self, key: &[u8]) -> bool {
        match self {
            Self::Bloom(v) => v.contains(key),
            Self::Blocked(v) => v.contains(key),
            Self::Fuse8(v) => v.contains(key),
            Self::Fuse16(v) => v.contains(key),
        }
    }
}

/// Checks that `filter` holds a prefilter a page can query; returns its wire kind byte.
///
/// ```
/// assert!(prefilter_wasm::load(b"not a filter").is_err());
/// ```
///
/// # Errors
/// The [`WireError`] of the view: not a filter, truncated, corrupted, or a kind that is not a
/// Bloom, blocked Bloom or binary fuse filter.
pub fn load(filter: &[u8]) -> Result<u8, WireError> {
    let kind = wire::peek(filter)?.kind as u8;
    View::new(filter).map(|_| kind)
}

/// The answer of the filter in `filter` for the key `key` (the bytes of a URL): `false` for
/// "definitely not in the filter", `true` for "maybe".
///
/// ```
/// use sketch_nostd::{wire::{self, Wire}, BlockedBloom};
/// let f = BlockedBloom::<4, 8>::from_keys(&["https://bad.example/"], 0);
/// let mut buf = [0u8; BlockedBloom::<4, 8>::MAX_ENCODED_LEN];
/// let bytes = wire::encode_view(&f, &mut buf)?;
/// assert_eq!(prefilter_wasm::query(bytes, b"https://bad.example/"), Ok(true));
/// # Ok::<(), sketch_nostd::WireError>(())
/// ```
///
/// # Errors
/// As [`load`].
pub fn query(filter: &[u8], key: &[u8]) -> Result<bool, WireError> {
    View::new(filter).map(|v| v.contains(key))
}

/// Makes the filter buffer `len` bytes long (zeroed) and returns its address in the module's memory,
/// for JavaScript to copy the filter's bytes into before calling [`prefilter_load`].
#[allow(unsafe_code)] // `no_mangle` only: the symbol is exported by name; no unsafe operation.
#[no_mangle]
pub extern "C" fn prefilter_filter_buffer(len: usize) -> *mut u8 {
    resize(&FILTER, len)
}

/// Makes the key buffer `len` bytes long and returns its address, for JavaScript to copy a URL's
/// UTF-8 bytes into before calling [`prefilter_query`].
#[allow(unsafe_code)] // `no_mangle` only.
#[no_mangle]
pub extern "C" fn prefilter_key_buffer(len: usize) -> *mut u8 {
    resize(&KEY, len)
}

/// Validates the filter buffer: its wire kind (1, 10, 12 or 13) if it holds a prefilter, −1 if not.
#[allow(unsafe_code)] // `no_mangle` only.
#[no_mangle]
pub extern "C" fn prefilter_load() -> i32 {
    load(&lock(&FILTER)).map_or(-1, i32::from)
}

/// The filter's answer for the first `len` bytes of the key buffer: 0 "definitely not" (safe),
/// 1 "maybe" (ask the server), −1 if the filter buffer holds no valid prefilter.
#[allow(unsafe_code)] // `no_mangle` only.
#[no_mangle]
pub extern "C" fn prefilter_query(len: usize) -> i32 {
    let key = lock(&KEY);
    let key = key.get(..len).unwrap_or(&key);
    query(&lock(&FILTER), key).map_or(-1, i32::from)
}

fn lock(m: &Mutex<Vec<u8>>) -> std::sync::MutexGuard<'_, Vec<u8>> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn resize(m: &Mutex<Vec<u8>>, len: usize) -> *mut u8 {
    let mut buf = lock(m);
    buf.clear();
    buf.resize(len, 0);
    buf.as_mut_ptr()
}
