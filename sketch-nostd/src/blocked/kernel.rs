//! The blocked filter's block test and block update, the one place that knows the bit layout at
//! run time: [`BlockedBloom`](super::BlockedBloom) and the zero-copy view
//! ([`BlockedBloomRef`](crate::wire::BlockedBloomRef)) both call it (the `const fn` construction
//! has its own loop, which must stay `const`; a test checks it sets the same bits).
//!
//! A key's bits in a block are eight masks, one per 64-bit word: word `i < K` gets bit
//! `(low·SALT[i] mod 2^32) >> 26` ([`bit_in_word`]), words `i ≥ K` nothing.
//! The kernel has two forms of the same test and update, and [`dispatch`] picks one:
//! * the **wide** form, over whole arrays: "no mask bit missing", `OR_i (mask_i AND NOT word_i) ==
//!   0`, which the compiler vectorises where the target has per-lane variable shifts: with AVX2 it
//!   is two `vpmuludq`, two `vpsrlq`, two `vpsllvq`, two `vpandn`, a `vpor` and a `vptest`;
//! * the **narrow** form, word by word: it counts the key's set bits (x86-64: `imul`, `shr`, `bt`,
//!   `adc` per word, the carry flag being the bit, no mask built) and sets them with `bts`. Without
//!   AVX2 (SSE2-only x86-64, aarch64, wasm with or without `simd128`, MCUs) the wide form stays
//!   scalar and costs more instructions than this one: SSE2 and wasm SIMD shift every lane by one
//!   amount, and LLVM keeps aarch64's multiply-shift scalar.
//!
//! [`dispatch`] runs the wide form where the build has AVX2; with the `std` feature on x86-64 built
//! without it, the wide form compiled for x86-64-v3 when the CPU has AVX2, through
//! [`pulp`](https://docs.rs/pulp)'s safe tokens (`V3::try_new` checks the CPU once and caches it;
//! `V3::vectorize` calls the closure inside a function compiled with those features); the narrow
//! form everywhere else. No `unsafe` here: the token proves the features.

use super::{bit_in_word, SALT};

/// The mask of the bit that a hash whose low half is `low` sets in each of the block's words: one
/// bit in each of the first `k` words, nothing in the others.
#[inline(always)]
fn masks(low: u32, k: u32) -> [u64; 8] {
    let mut masks = [0u64; 8];
    for (i, (mask, salt)) in masks.iter_mut().zip(SALT).enumerate() {
        *mask = u64::from((i as u32) < k) << bit_in_word(low, salt);
    }
    masks
}

/// The words of a block stored as 64 bytes, each word little-endian (the dense wire body).
#[cfg(feature = "wire")]
#[inline(always)]
fn words_le(bytes: &[u8; 64]) -> [u64; 8] {
    let mut words = [0u64; 8];
    for (w, b) in words.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        *w = u64::from_le_bytes(le);
    }
    words
}

/// The wide test: every bit of the key's masks is set in `words`.
#[inline(always)]
fn contains_wide(words: &[u64; 8], low: u32, k: u32) -> bool {
    words
        .iter()
        .zip(masks(low, k))
        .fold(0, |missing, (w, m)| missing | (m & !w))
        == 0
}

/// The narrow test: the key's bit is set in each of the first `k` words.
#[inline(always)]
fn contains_narrow(words: &[u64; 8], low: u32, k: u32) -> bool {
    let mut set = 0u64;
    for (word, salt) in words.iter().zip(SALT).take(k as usize) {
        set += (word >> bit_in_word(low, salt)) & 1;
    }
    set == u64::from(k)
}

/// The wide update: ORs the masks in; `true` if one of the bits was clear.
#[inline(always)]
fn insert_wide(words: &mut [u64; 8], low: u32, k: u32) -> bool {
    let mut missing = 0;
    for (w, m) in words.iter_mut().zip(masks(low, k)) {
        missing |= m & !*w;
        *w |= m;
    }
    missing != 0
}

/// The narrow update: sets each bit (x86-64: `bts`, no mask kept) and collects what changed.
#[inline(always)]
fn insert_narrow(words: &mut [u64; 8], low: u32, k: u32) -> bool {
    let mut changed = 0u64;
    for (word, salt) in words.iter_mut().zip(SALT).take(k as usize) {
        let old = *word;
        *word = old | 1 << bit_in_word(low, salt);
        changed |= *word ^ old;
    }
    changed != 0
}

/// Whether the key whose low hash half is `low` may be in the block `words` (`K` bits per key).
/// `K` is a constant so that it is one inside the AVX2 function too (a run-time `k` there costs
/// five more vector instructions per lookup).
#[inline(always)]
pub(crate) fn contains<const K: u32>(words: &[u64; 8], low: u32) -> bool {
    dispatch(
        words,
        move |w| contains_wide(w, low, K),
        move |w| contains_narrow(w, low, K),
    )
}

/// [`contains`] for a block stored as 64 bytes, each word little-endian (the dense wire body, read
/// in place by the view; no alignment needed), with `k` read at run time (from the envelope).
///
/// Where the wide form may run, `k = 8` (the usual filter) gets its own copy with `k` constant, the
/// only one inlined into the caller; any other `k` takes an out-of-line copy. With both wide copies
/// inline (each its own masks and shifts over two vector registers), the view's `contains_hash`
/// was too large for the compiler to inline into a lookup loop: every lookup was a call, reloading
/// the view's fields, with a `vzeroupper` on the way out, where the owned filter's was inlined. The
/// narrow form (no wide one in the build) is small and stays inline with the run-time `k`.
#[cfg(feature = "wire")]
#[inline(always)]
pub(crate) fn contains_le(bytes: &[u8; 64], low: u32, k: u32) -> bool {
    if HAS_WIDE {
        if k == 8 {
            return dispatch(
                bytes,
                move |b| contains_wide(&words_le(b), low, 8),
                move |b| contains_narrow(&words_le(b), low, 8),
            );
        }
        return contains_le_any_k(bytes, low, k);
    }
    contains_le_any_k_inline(bytes, low, k)
}

/// [`contains_le`] for a `k` other than 8 where the wide form may run: out of line (see there).
#[cfg(feature = "wire")]
#[inline(never)]
fn contains_le_any_k(bytes: &[u8; 64], low: u32, k: u32) -> bool {
    contains_le_any_k_inline(bytes, low, k)
}

/// [`contains_le`] at a run-time `k`, through [`dispatch`].
#[cfg(feature = "wire")]
#[inline(always)]
fn contains_le_any_k_inline(bytes: &[u8; 64], low: u32, k: u32) -> bool {
    dispatch(
        bytes,
        move |b| contains_wide(&words_le(b), low, k),
        move |b| contains_narrow(&words_le(b), low, k),
    )
}

/// Sets the key's bits in the block; `true` if one of them was clear.
#[inline(always)]
pub(crate) fn insert<const K: u32>(words: &mut [u64; 8], low: u32) -> bool {
    dispatch(
        words,
        move |w| insert_wide(w, low, K),
        move |w| insert_narrow(w, low, K),
    )
}

/// Whether [`dispatch`] can run the wide form in this build.
#[cfg(feature = "wire")]
const HAS_WIDE: bool = cfg!(any(
    target_feature = "avx2",
    all(feature = "std", target_arch = "x86_64")
));

/// Runs `wide(state)`, compiled for x86-64-v3 if the library is built for plain x86-64 with `std`
/// and the CPU has AVX2, or as it is if the build has AVX2; otherwise `narrow(state)` (see the
/// [module](self) docs). Both must be `#[inline(always)]` code (the kernels above) for the
/// features to apply to them.
#[inline(always)]
fn dispatch<S, R>(state: S, wide: impl FnOnce(S) -> R, narrow: impl FnOnce(S) -> R) -> R {
    #[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        if let Some(v3) = V3_TOKEN.get() {
            return v3.vectorize(move || wide(state));
        }
        // Out of line, so that the lookup's straight path (one load, one compare, a tail call into
        // the AVX2 function) keeps to scratch registers: with the CPU check's first call or the
        // narrow form inlined here, every lookup saved and restored three callee-saved registers.
        outline(state, move |state| match pulp::x86::V3::try_new() {
            Some(v3) => {
                // Another thread may have set it first: the same token.
                let _ = V3_TOKEN.set(v3);
                v3.vectorize(move || wide(state))
            }
            None => narrow(state),
        })
    }
    #[cfg(not(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2"))))]
    if cfg!(target_feature = "avx2") {
        wide(state)
    } else {
        narrow(state)
    }
}

/// `pulp`'s token for x86-64-v3's features (AVX2, BMI2, FMA, …), set once the CPU is found to have
/// them. The token is a zero-sized proof, so a lookup's check is one load and one compare of the
/// cell's state; an `OnceLock<Option<V3>>` (also caching "no AVX2") cost a second load and
/// compare per lookup. A CPU without AVX2 leaves it empty and asks `V3::try_new` (the standard
/// library's cached feature bits) on each call of the narrow form.
#[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
static V3_TOKEN: std::sync::OnceLock<pulp::x86::V3> = std::sync::OnceLock::new();

/// `f(state)` as a call of its own (see [`dispatch`]).
#[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
#[inline(never)]
fn outline<S, R>(state: S, f: impl FnOnce(S) -> R) -> R {
    f(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Low hash halves spread over the whole `u32` range (a fixed odd-multiplier sequence).
    fn lows() -> impl Iterator<Item = u32> {
        (0..2_000u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i >> 3))
    }

    type Insert = fn(&mut [u64; 8], u32, u32) -> bool;
    type Contains = fn(&[u64; 8], u32, u32) -> bool;

    /// `$f::<K>(args)` with the constant `K` equal to the run-time `$k` (in `1..=8`).
    macro_rules! with_k {
        ($k:expr, $f:ident($($arg:expr),*)) => {
            match $k {
                1 => $f::<1>($($arg),*),
                2 => $f::<2>($($arg),*),
                3 => $f::<3>($($arg),*),
                4 => $f::<4>($($arg),*),
                5 => $f::<5>($($arg),*),
                6 => $f::<6>($($arg),*),
                7 => $f::<7>($($arg),*),
                _ => $f::<8>($($arg),*),
            }
        };
    }

    /// The dispatched entry points, with `k` as their constant `K`.
    fn insert_any(words: &mut [u64; 8], low: u32, k: u32) -> bool {
        with_k!(k, insert(words, low))
    }

    fn contains_any(words: &[u64; 8], low: u32, k: u32) -> bool {
        with_k!(k, contains(words, low))
    }

    /// The wide and the narrow form called directly (here, without AVX2 unless the build has it)
    /// and the dispatched entry points (with `std` on an AVX2 CPU: the wide form compiled for it).
    const FORMS: [(&str, Insert, Contains); 3] = [
        ("wide", insert_wide, contains_wide),
        ("narrow", insert_narrow, contains_narrow),
        ("dispatched", insert_any, contains_any),
    ];

    #[test]
    fn every_form_sets_the_documented_bits_and_finds_them() {
        for (form, insert, contains) in FORMS {
            for k in 1..=8u32 {
                for low in lows() {
                    let mut block = [0u64; 8];
                    assert!(insert(&mut block, low, k), "{form}");
                    assert!(
                        !insert(&mut block, low, k),
                        "{form}: second insert changed nothing"
                    );
                    for (i, (w, salt)) in block.iter().zip(SALT).enumerate() {
                        let want = if (i as u32) < k {
                            1 << bit_in_word(low, salt)
                        } else {
                            0
                        };
                        assert_eq!(*w, want, "{form}: k {k} low {low:#x} word {i}");
                    }
                    assert!(contains(&block, low, k), "{form}");
                    // Clearing any one of the key's bits makes it absent.
                    for i in 0..k as usize {
                        let mut cleared = block;
                        cleared[i] = 0;
                        assert!(!contains(&cleared, low, k), "{form}");
                    }
                }
            }
        }
    }

    /// On fuller blocks (64 keys each) every form answers and updates alike.
    #[test]
    fn every_form_answers_alike_on_full_blocks() {
        let mut blocks = [[0u64; 8]; 3];
        let mut yes = 0;
        for (n, low) in lows().enumerate() {
            let k = 1 + (n % 8) as u32;
            let new: [bool; 3] = core::array::from_fn(|f| FORMS[f].1(&mut blocks[f], low, k));
            assert!(new.iter().all(|&b| b == new[0]), "insert {n}: {new:?}");
            assert!(blocks.iter().all(|b| *b == blocks[0]), "insert {n}");
            let probe = low.rotate_left(7);
            let found: [bool; 3] = core::array::from_fn(|f| FORMS[f].2(&blocks[f], probe, k));
            assert!(
                found.iter().all(|&b| b == found[0]),
                "contains {n}: {found:?}"
            );
            yes += usize::from(found[0]);
            if n % 64 == 63 {
                blocks = [[0; 8]; 3];
            }
        }
        // Both answers occur, so the comparison tested something.
        assert!(yes > 100 && yes < 1_900, "{yes}");
    }

    #[cfg(feature = "wire")]
    #[test]
    fn little_endian_words_of_bytes() {
        let bytes: [u8; 64] = core::array::from_fn(|i| i as u8);
        let words = words_le(&bytes);
        assert_eq!(words[0], 0x0706_0504_0302_0100);
        assert_eq!(words[7], 0x3f3e_3d3c_3b3a_3938);
        let mut block = [0u64; 8];
        for low in lows().take(40) {
            insert::<8>(&mut block, low);
        }
        let le: [u8; 64] = core::array::from_fn(|i| block[i / 8].to_le_bytes()[i % 8]);
        for low in lows() {
            for k in 1..=8 {
                assert_eq!(
                    contains_le(&le, low, k),
                    contains_any(&block, low, k),
                    "k {k}"
                );
            }
        }
    }
}
