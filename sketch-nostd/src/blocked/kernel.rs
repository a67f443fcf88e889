//! The blocked filter's block test and block update, the one place that knows the bit layout at
//! run time: [`BlockedBloom`](super::BlockedBloom) and the zero-copy view
//! ([`BlockedBloomRef`](crate::wire::BlockedBloomRef)) both call it (the `const fn` construction
//! has its own loop, which must stay `const`; a test checks it sets the same bits).
//!
//! A key's bits in a block are eight masks, one per 64-bit word: word `i < K` gets bit
//! `(low·SALT[i] mod 2^32) >> 26` ([`bit_in_word`](super::bit_in_word)), words `i ≥ K` nothing. The
//! test is "no mask bit missing", `OR_i (mask_i AND NOT word_i) == 0`, written over whole arrays so
//! that the compiler vectorises it where the target has per-lane shifts: with AVX2 it is two
//! `vpmuludq`, `vpsrlq`, `vpsllvq`, `vpandn`, a `vpor` and a `vptest`; on SSE2-only x86-64, an MCU or
//! wasm without `simd128` it stays scalar (SSE2 has no per-lane shift, so a vector form costs as
//! much as the scalar one).
//!
//! With the `std` feature on x86-64 built without AVX2, [`dispatch`] runs the kernel compiled for
//! x86-64-v3 (AVX2) when the CPU has it, through [`pulp`](https://docs.rs/pulp)'s safe tokens
//! (`V3::try_new` checks the CPU once and caches it; `V3::vectorize` calls the closure inside a
//! function compiled with those features). No `unsafe` here: the token proves the features.

use super::SALT;

/// The mask of the bit that a hash whose low half is `low` sets in each of the block's words: one
/// bit in each of the first `k` words, nothing in the others.
#[inline(always)]
pub(crate) fn masks(low: u32, k: u32) -> [u64; 8] {
    let mut masks = [0u64; 8];
    for (i, (mask, salt)) in masks.iter_mut().zip(SALT).enumerate() {
        let bit = super::bit_in_word(low, salt);
        *mask = u64::from((i as u32) < k) << bit;
    }
    masks
}

/// Whether every bit of `masks` is set in `words`.
#[inline(always)]
pub(crate) fn all_set(words: &[u64; 8], masks: &[u64; 8]) -> bool {
    words
        .iter()
        .zip(masks)
        .fold(0, |missing, (w, m)| missing | (m & !w))
        == 0
}

/// The words of a block stored as 64 bytes, each word little-endian (the dense wire body).
#[cfg(feature = "wire")]
#[inline(always)]
pub(crate) fn words_le(bytes: &[u8; 64]) -> [u64; 8] {
    let mut words = [0u64; 8];
    for (w, b) in words.iter_mut().zip(bytes.chunks_exact(8)) {
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        *w = u64::from_le_bytes(le);
    }
    words
}

/// Whether the key whose low hash half is `low` may be in the block `words` (`k` bits per key).
#[inline(always)]
pub(crate) fn contains(words: &[u64; 8], low: u32, k: u32) -> bool {
    all_set(words, &masks(low, k))
}

/// Sets the key's bits in the block; `true` if one of them was clear.
#[inline(always)]
pub(crate) fn insert(words: &mut [u64; 8], low: u32, k: u32) -> bool {
    let masks = masks(low, k);
    let mut missing = 0;
    for (w, m) in words.iter_mut().zip(masks) {
        missing |= m & !*w;
        *w |= m;
    }
    missing != 0
}

/// Runs `f`, compiled for x86-64-v3 if the library is built for plain x86-64 with `std` and the
/// CPU has AVX2 (see the [module](self) docs); otherwise calls it as it is. `f` must be
/// `#[inline(always)]` code (the kernels above) for the features to apply to it.
#[inline(always)]
pub(crate) fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
    if let Some(v3) = pulp::x86::V3::try_new() {
        return v3.vectorize(f);
    }
    f()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocked::bit_in_word;

    /// Low hash halves spread over the whole `u32` range (a fixed odd-multiplier sequence).
    fn lows() -> impl Iterator<Item = u32> {
        (0..2_000u32).map(|i| i.wrapping_mul(0x9e37_79b9) ^ (i >> 3))
    }

    #[test]
    fn insert_sets_the_documented_bits_and_contains_finds_them() {
        for k in 1..=8u32 {
            for low in lows() {
                let mut block = [0u64; 8];
                assert!(insert(&mut block, low, k));
                assert!(!insert(&mut block, low, k), "second insert changed nothing");
                for (i, (w, salt)) in block.iter().zip(SALT).enumerate() {
                    let want = if (i as u32) < k {
                        1 << bit_in_word(low, salt)
                    } else {
                        0
                    };
                    assert_eq!(*w, want, "k {k} low {low:#x} word {i}");
                }
                assert!(contains(&block, low, k));
                // Clearing any one of the key's bits makes it absent.
                for i in 0..k as usize {
                    let mut cleared = block;
                    cleared[i] = 0;
                    assert!(!contains(&cleared, low, k));
                }
            }
        }
    }

    #[cfg(feature = "wire")]
    #[test]
    fn little_endian_words_of_bytes() {
        let bytes: [u8; 64] = core::array::from_fn(|i| i as u8);
        let words = words_le(&bytes);
        assert_eq!(words[0], 0x0706_0504_0302_0100);
        assert_eq!(words[7], 0x3f3e_3d3c_3b3a_3938);
    }

    /// The dispatched kernel (AVX2 where the CPU has it, with `std` on x86-64) answers as the plain one.
    #[test]
    fn dispatched_kernel_answers_as_the_plain_one() {
        let mut plain = [0u64; 8];
        let mut fast = [0u64; 8];
        for (n, low) in lows().enumerate() {
            let k = 1 + (n % 8) as u32;
            let new_plain = insert(&mut plain, low, k);
            let new_fast = dispatch(|| insert(&mut fast, low, k));
            assert_eq!((new_plain, plain), (new_fast, fast));
            let probe = low.rotate_left(7);
            assert_eq!(
                contains(&plain, probe, k),
                dispatch(|| contains(&fast, probe, k))
            );
            if n % 64 == 63 {
                (plain, fast) = ([0; 8], [0; 8]);
            }
        }
    }
}
