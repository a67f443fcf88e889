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
//!   is two `vpmuludq`, two `vpsrlq`, two `vpsllvq`, two `vpandn`, a `vpor` and a `vptest`. With
//!   `std` on x86-64 (where `pulp`'s tokens make AVX2 operations safe to call) the test is written
//!   with those operations instead (`avx2`: each word shifted so that the key's bit is its sign
//!   bit, one `vpmulld` for the eight shifts, one `vtestpd`), three vector operations fewer;
//! * the **narrow** form, word by word: it counts the key's set bits (x86-64: `imul`, `shr`, `bt`,
//!   `adc` per word, the carry flag being the bit, no mask built) and sets them with `bts`. Without
//!   AVX2 (SSE2-only x86-64, aarch64, wasm with or without `simd128`, MCUs) the wide form stays
//!   scalar and costs more instructions than this one: SSE2 and wasm SIMD shift every lane by one
//!   amount, and LLVM keeps aarch64's multiply-shift scalar.
//!
//! [`dispatch`] runs the wide form where the build has AVX2; with the `std` feature on x86-64 built
//! without it, the wide form compiled for x86-64-v3 when the CPU has AVX2, through
//! [`pulp`](https://docs.rs/pulp)'s safe tokens (`V3::try_new` checks the CPU once and caches it;
//! `V3::vectorize` runs the wide form inside a function compiled with those features); the narrow
//! form everywhere else. No `unsafe` here: the token proves the features. (A build with AVX2 and
//! `std` gets the tokens of AVX and AVX2 alone, whose checks are compile-time constants there.)

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

/// The wide test in portable code: every bit of the key's masks is set in `words`. The compiler
/// vectorises it where the build has AVX2; with `std` on x86-64 the wide form is `avx2::contains`
/// instead (this one then serves the tests).
#[cfg(any(test, not(all(feature = "std", target_arch = "x86_64"))))]
#[inline(always)]
fn contains_masks(words: &[u64; 8], low: u32, k: u32) -> bool {
    words
        .iter()
        .zip(masks(low, k))
        .fold(0, |missing, (w, m)| missing | (m & !w))
        == 0
}

/// The wide test (the form [`dispatch`] runs where there is AVX2).
#[cfg(not(all(feature = "std", target_arch = "x86_64")))]
#[inline(always)]
fn contains_wide(_: Wide, words: &[u64; 8], low: u32, k: u32) -> bool {
    contains_masks(words, low, k)
}

/// The wide test with `std` on x86-64: [`avx2::contains`].
#[cfg(all(feature = "std", target_arch = "x86_64"))]
#[inline(always)]
fn contains_wide(simd: Wide, words: &[u64; 8], low: u32, k: u32) -> bool {
    avx2::contains(simd, words, low, k)
}

/// The block test written with AVX2 operations, through `pulp`'s AVX and AVX2 tokens (`std` on
/// x86-64 only: the tokens are what make the operations safe to call, and [`dispatch`] hands them
/// over only where the CPU has the features and the code is compiled for them).
///
/// The portable wide form builds the key's eight masks and tests `mask AND NOT word`; here each word
/// is instead shifted left so that the key's bit becomes its sign bit, and one `vtestpd` checks the
/// eight sign bits at once. Word `i`'s shift is `63 − bit = (NOT (low·SALT[i] mod 2^32)) >> 26`,
/// computed for the eight words in one `vpmulld` over 32-bit lanes (`low·SALT[i] mod 2^32` is all
/// that [`bit_in_word`] uses), then widened to the 64-bit lanes of the two halves of the block by
/// two unpacks against zero; the salts sit in the lanes in the order that makes the unpacks give
/// words 0–3 and 4–7. Per lookup, after the block's two loads: `vmovd`, `vpbroadcastd`,
/// `vpmulld`, `vpxor`, `vpsrld`, two `vpunpck*dq`, two `vpsllvq`, `vpand`, `vtestpd`, where the
/// portable form takes two `vpmuludq`, two `vpsrlq`, two `vpand`, two `vpsllvq`, two `vpandn`,
/// `vpor` and `vptest` (and its result lands in the carry flag, which a count takes with one `adc`).
/// Same bits, same answers.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
mod avx2 {
    use super::{Wide, SALT};
    use core::arch::x86_64::__m256i;
    use pulp::core_arch::x86::Avx;

    /// The salts in the 32-bit lanes of the multiply: the unpacks take lanes 0, 1, 4, 5 (the low
    /// pairs of each 128-bit half) to the 64-bit lanes of words 0–3, and lanes 2, 3, 6, 7 to words
    /// 4–7.
    const LANE_SALTS: [u32; 8] = [
        SALT[0], SALT[1], SALT[4], SALT[5], SALT[2], SALT[3], SALT[6], SALT[7],
    ];

    /// Four words as one vector (from a block's words: the compiler makes it one unaligned load).
    #[inline(always)]
    fn words4(avx: Avx, [a, b, c, d]: [u64; 4]) -> __m256i {
        avx._mm256_setr_epi64x(a as i64, b as i64, c as i64, d as i64)
    }

    /// Sign bits set in the lanes of the words a key with `k` bits does not probe (none for `k = 8`;
    /// a constant when `k` is one).
    #[inline(always)]
    fn unprobed(avx: Avx, first: u32, k: u32) -> __m256i {
        let lane = |i: u32| if first + i >= k { i64::MIN } else { 0 };
        avx._mm256_setr_epi64x(lane(0), lane(1), lane(2), lane(3))
    }

    /// Whether the key whose low hash half is `low` may be in the block `words` (its bit set in each
    /// of the first `k` words).
    #[inline(always)]
    pub(super) fn contains((avx, avx2): Wide, words: &[u64; 8], low: u32, k: u32) -> bool {
        let salts = LANE_SALTS.map(|s| s as i32);
        let products = avx2._mm256_mullo_epi32(
            avx._mm256_set1_epi32(low as i32),
            avx._mm256_setr_epi32(
                salts[0], salts[1], salts[2], salts[3], salts[4], salts[5], salts[6], salts[7],
            ),
        );
        // 63 − bit in each 32-bit lane.
        let shifts = avx2
            ._mm256_srli_epi32::<26>(avx2._mm256_xor_si256(products, avx._mm256_set1_epi32(-1)));
        let zero = avx._mm256_setzero_si256();
        let [a, b, c, d, e, f, g, h] = *words;
        let low_half = avx2._mm256_or_si256(
            avx2._mm256_sllv_epi64(
                words4(avx, [a, b, c, d]),
                avx2._mm256_unpacklo_epi32(shifts, zero),
            ),
            unprobed(avx, 0, k),
        );
        let high_half = avx2._mm256_or_si256(
            avx2._mm256_sllv_epi64(
                words4(avx, [e, f, g, h]),
                avx2._mm256_unpackhi_epi32(shifts, zero),
            ),
            unprobed(avx, 4, k),
        );
        let both = avx2._mm256_and_si256(low_half, high_half);
        // Every lane's sign bit set: `vtestpd` against all ones sets the carry flag.
        avx._mm256_testc_pd(
            avx._mm256_castsi256_pd(both),
            avx._mm256_castsi256_pd(avx._mm256_set1_epi64x(-1)),
        ) != 0
    }
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
    dispatch(Contains::<K> { words, low })
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
            return dispatch(ContainsLe::<8> { bytes, low });
        }
        return contains_le_any_k(bytes, low, k);
    }
    dispatch(ContainsLeAnyK { bytes, low, k })
}

/// [`contains_le`] for a `k` other than 8 where the wide form may run: out of line (see there).
#[cfg(feature = "wire")]
#[inline(never)]
fn contains_le_any_k(bytes: &[u8; 64], low: u32, k: u32) -> bool {
    dispatch(ContainsLeAnyK { bytes, low, k })
}

/// Sets the key's bits in the block; `true` if one of them was clear.
#[inline(always)]
pub(crate) fn insert<const K: u32>(words: &mut [u64; 8], low: u32) -> bool {
    dispatch(Insert::<K> { words, low })
}

/// Whether [`dispatch`] can run the wide form in this build.
#[cfg(feature = "wire")]
const HAS_WIDE: bool = cfg!(any(
    target_feature = "avx2",
    all(feature = "std", target_arch = "x86_64")
));

/// What the wide form is given: with `std` on x86-64, `pulp`'s tokens for AVX and AVX2, which make
/// their operations safe to call ([`avx2`]); elsewhere nothing.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
type Wide = (pulp::core_arch::x86::Avx, pulp::core_arch::x86::Avx2);
/// What the wide form is given (nothing without `std` on x86-64).
#[cfg(not(all(feature = "std", target_arch = "x86_64")))]
type Wide = ();

/// One block operation in its two forms, of which [`dispatch`] runs one. Every implementation's
/// methods are `#[inline(always)]`, down to the kernels above, so that the wide form run inside
/// `pulp`'s AVX2 function is compiled with its features, AVX2 operations included. (With closures
/// here, the compiler left a large one, the view's, a function of its own outside the AVX2 function,
/// and each of its AVX2 operations a call.)
trait BlockOp {
    /// The answer.
    type Out;
    /// The wide form, given the tokens of the CPU features.
    fn wide(self, simd: Wide) -> Self::Out;
    /// The narrow form.
    fn narrow(self) -> Self::Out;
}

/// [`contains`] as a [`BlockOp`].
struct Contains<'a, const K: u32> {
    words: &'a [u64; 8],
    low: u32,
}

impl<const K: u32> BlockOp for Contains<'_, K> {
    type Out = bool;
    #[inline(always)]
    fn wide(self, simd: Wide) -> bool {
        contains_wide(simd, self.words, self.low, K)
    }
    #[inline(always)]
    fn narrow(self) -> bool {
        contains_narrow(self.words, self.low, K)
    }
}

/// [`insert`] as a [`BlockOp`].
struct Insert<'a, const K: u32> {
    words: &'a mut [u64; 8],
    low: u32,
}

impl<const K: u32> BlockOp for Insert<'_, K> {
    type Out = bool;
    #[inline(always)]
    fn wide(self, _: Wide) -> bool {
        insert_wide(self.words, self.low, K)
    }
    #[inline(always)]
    fn narrow(self) -> bool {
        insert_narrow(self.words, self.low, K)
    }
}

/// [`contains_le`] with `k = K` as a [`BlockOp`].
#[cfg(feature = "wire")]
struct ContainsLe<'a, const K: u32> {
    bytes: &'a [u8; 64],
    low: u32,
}

#[cfg(feature = "wire")]
impl<const K: u32> BlockOp for ContainsLe<'_, K> {
    type Out = bool;
    #[inline(always)]
    fn wide(self, simd: Wide) -> bool {
        contains_wide(simd, &words_le(self.bytes), self.low, K)
    }
    #[inline(always)]
    fn narrow(self) -> bool {
        contains_narrow(&words_le(self.bytes), self.low, K)
    }
}

/// [`contains_le`] with a run-time `k` as a [`BlockOp`].
#[cfg(feature = "wire")]
struct ContainsLeAnyK<'a> {
    bytes: &'a [u8; 64],
    low: u32,
    k: u32,
}

#[cfg(feature = "wire")]
impl BlockOp for ContainsLeAnyK<'_> {
    type Out = bool;
    #[inline(always)]
    fn wide(self, simd: Wide) -> bool {
        contains_wide(simd, &words_le(self.bytes), self.low, self.k)
    }
    #[inline(always)]
    fn narrow(self) -> bool {
        contains_narrow(&words_le(self.bytes), self.low, self.k)
    }
}

/// Runs `op`'s wide form, compiled for x86-64-v3 if the library is built for plain x86-64 with
/// `std` and the CPU has AVX2, or as it is if the build has AVX2; otherwise its narrow form (see
/// the [module](self) docs).
#[inline(always)]
fn dispatch<O: BlockOp>(op: O) -> O::Out {
    #[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
    {
        if let Some(&v3) = V3_TOKEN.get() {
            return v3.vectorize(InV3(op, v3));
        }
        // Out of line, so that the lookup's straight path (one load, one compare, a tail call into
        // the AVX2 function) keeps to scratch registers: with the CPU check's first call or the
        // narrow form inlined here, every lookup saved and restored three callee-saved registers.
        outline(op)
    }
    // Built with AVX2 (x86-64-v3): the tokens of AVX and AVX2 alone, whose checks are the build's
    // own features, known at compile time (`is_x86_feature_detected!` tests them first), so no check
    // is left. (`pulp::x86::V3::try_new` would load and test a cached flag on every lookup.)
    #[cfg(all(feature = "std", target_arch = "x86_64", target_feature = "avx2"))]
    match (
        pulp::core_arch::x86::Avx::try_new(),
        pulp::core_arch::x86::Avx2::try_new(),
    ) {
        (Some(avx), Some(avx2)) => op.wide((avx, avx2)),
        _ => op.narrow(),
    }
    #[cfg(not(all(feature = "std", target_arch = "x86_64")))]
    if cfg!(target_feature = "avx2") {
        op.wide(())
    } else {
        op.narrow()
    }
}

/// A [`BlockOp`]'s wide form as the function that `pulp`'s `V3::vectorize` compiles with the
/// features of x86-64-v3 (its `call` inlined into that function, and everything below it).
#[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
struct InV3<O>(O, pulp::x86::V3);

#[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
impl<O: BlockOp> pulp::NullaryFnOnce for InV3<O> {
    type Output = O::Out;
    #[inline(always)]
    fn call(self) -> O::Out {
        let Self(op, v3) = self;
        op.wide((v3.avx, v3.avx2))
    }
}

/// The first call's CPU check, and the narrow form on a CPU without AVX2 (see [`dispatch`]).
#[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
#[inline(never)]
fn outline<O: BlockOp>(op: O) -> O::Out {
    match pulp::x86::V3::try_new() {
        Some(v3) => {
            // Another thread may have set it first: the same token.
            let _ = V3_TOKEN.set(v3);
            v3.vectorize(InV3(op, v3))
        }
        None => op.narrow(),
    }
}

/// `pulp`'s token for x86-64-v3's features (AVX2, BMI2, FMA, …), set once the CPU is found to have
/// them. The token is a zero-sized proof, so a lookup's check is one load and one compare of the
/// cell's state; an `OnceLock<Option<V3>>` (also caching "no AVX2") cost a second load and
/// compare per lookup. A CPU without AVX2 leaves it empty and asks `V3::try_new` (the standard
/// library's cached feature bits) on each call of the narrow form.
#[cfg(all(feature = "std", target_arch = "x86_64", not(target_feature = "avx2")))]
static V3_TOKEN: std::sync::OnceLock<pulp::x86::V3> = std::sync::OnceLock::new();

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

    /// The portable wide form and the narrow form called directly (here, without AVX2 unless the
    /// build has it) and the dispatched entry points (with `std` on an AVX2 CPU: the wide form
    /// compiled for it, the AVX2 test with `std` on x86-64).
    const FORMS: [(&str, Insert, Contains); 3] = [
        ("masks", insert_wide, contains_masks),
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

    /// The AVX2 test itself, run inside `pulp`'s AVX2 function as `dispatch` runs it, answers as the
    /// portable test for every `k` (its own `k` run-time here, as in the view's general path), on
    /// empty, single-key and fuller blocks (so both answers occur). Needs an AVX2 CPU: without one it
    /// says so and checks nothing (the dispatched form then is the narrow one, tested above).
    #[cfg(all(feature = "std", target_arch = "x86_64"))]
    #[test]
    fn the_avx2_test_answers_as_the_portable_one() {
        let Some(v3) = pulp::x86::V3::try_new() else {
            eprintln!("no AVX2 on this CPU: the AVX2 test is not run");
            return;
        };
        let mut blocks = [[0u64; 8]; 2];
        let (mut yes, mut no) = (0, 0);
        for (n, low) in lows().enumerate() {
            if n % 64 == 0 {
                blocks = [[0; 8], [0; 8]];
            }
            insert_wide(&mut blocks[1], low, 8);
            for block in &blocks {
                for probe in [low, low.rotate_left(9)] {
                    for k in 1..=8 {
                        let want = contains_masks(block, probe, k);
                        let got =
                            v3.vectorize(|| avx2::contains((v3.avx, v3.avx2), block, probe, k));
                        assert_eq!(got, want, "k {k} low {probe:#x} block {block:x?}");
                        if want {
                            yes += 1
                        } else {
                            no += 1
                        }
                    }
                }
            }
        }
        assert!(yes > 1_000 && no > 1_000, "{yes} {no}");
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
