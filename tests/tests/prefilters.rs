//! Prefilters built by the compiler, at run time and read in place from their bytes answer
//! identically; corrupted or truncated bytes are refused by the views without a panic.

use sketch_nostd::hash::const_hash64_u64;
use sketch_nostd::sizing::{blocked_blocks_for, k_for, words_for};
use sketch_nostd::wire::{self, BlockedBloomRef, BloomRef, Wire};
use sketch_nostd::{BlockedBloom, Bloom};
use sketch_tests::prefilter::{probe_urls, BLOCKED_PREFIXES};
use sketch_tests::rng::SplitMix64;

const N: usize = 2_000;
const SEED: u64 = 0x5afe;

/// `N` distinct `u64` keys, computed by the compiler.
const U64_KEYS: [u64; N] = {
    let mut keys = [0u64; N];
    let mut i = 0;
    while i < N {
        keys[i] = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0xdead_beef;
        i += 1;
    }
    keys
};

type UrlBloom = Bloom<{ words_for(16, 0.01) }, { k_for(16, 0.01) }>;
type UrlBlocked = BlockedBloom<{ blocked_blocks_for(16, 0.01, 8) }, 8>;
type U64Bloom = Bloom<{ words_for(N as u64, 0.01) }, { k_for(N as u64, 0.01) }>;
type U64Blocked = BlockedBloom<{ blocked_blocks_for(N as u64, 0.01, 8) }, 8>;

static URL_BLOOM: UrlBloom = Bloom::from_keys(BLOCKED_PREFIXES, SEED);
static URL_BLOCKED: UrlBlocked = BlockedBloom::from_keys(BLOCKED_PREFIXES, SEED);
static U64_BLOOM: U64Bloom = Bloom::from_u64_keys(&U64_KEYS, SEED);
static U64_BLOCKED: U64Blocked = BlockedBloom::from_u64_keys(&U64_KEYS, SEED);
static BYTES_BLOOM: UrlBloom = Bloom::from_byte_keys(&[b"\x00\xff", b"abc", b""], SEED);
/// Hashes computed by the compiler, one per key type the crate hashes as `u64`.
static HASHED: U64Blocked = BlockedBloom::from_hashes(
    &[const_hash64_u64(7, SEED), const_hash64_u64(u64::MAX, SEED)],
    SEED,
);

/// Probe keys: every member, and as many non-members.
fn u64_probes() -> Vec<u64> {
    let mut rng = SplitMix64(99);
    U64_KEYS
        .iter()
        .copied()
        .chain((0..20_000).map(|_| rng.next_u64()))
        .collect()
}

#[test]
fn const_built_filters_equal_runtime_built_ones() {
    let mut bloom = UrlBloom::with_seed(SEED);
    let mut blocked = UrlBlocked::with_seed(SEED);
    for url in BLOCKED_PREFIXES {
        bloom.insert(*url);
        blocked.insert(*url);
    }
    assert_eq!(URL_BLOOM, bloom);
    assert_eq!(URL_BLOCKED, blocked);

    let mut bloom = U64Bloom::with_seed(SEED);
    let mut blocked = U64Blocked::with_seed(SEED);
    for k in U64_KEYS {
        bloom.insert(&k);
        blocked.insert(&k);
    }
    assert_eq!(U64_BLOOM, bloom);
    assert_eq!(U64_BLOCKED, blocked);

    let mut bytes = UrlBloom::with_seed(SEED);
    for k in [&b"\x00\xff"[..], b"abc", b""] {
        bytes.insert(k);
    }
    assert_eq!(BYTES_BLOOM, bytes);

    let mut hashed = U64Blocked::with_seed(SEED);
    hashed.insert(&7u64);
    hashed.insert(&u64::MAX);
    assert_eq!(HASHED, hashed);
    // Equal filters that are not empty: the comparison was not of two empty filters.
    assert!(U64_BLOCKED.fill_ratio() > 0.3 && URL_BLOOM.count_ones() > 16);
}

#[test]
fn views_answer_as_const_and_runtime_filters() {
    let mut buf = vec![0u8; U64Bloom::MAX_ENCODED_LEN.max(U64Blocked::MAX_ENCODED_LEN)];
    let view = BloomRef::new(wire::encode_view(&U64_BLOOM, &mut buf).unwrap()).unwrap();
    let (mut members, mut maybes) = (0, 0);
    for k in u64_probes() {
        assert_eq!(view.contains(&k), U64_BLOOM.contains(&k), "{k}");
        maybes += usize::from(view.contains(&k));
    }
    members += U64_KEYS.iter().filter(|k| view.contains(*k)).count();
    assert_eq!(members, N);
    // About 1% of the 20,000 non-members answer "maybe" (a 1% filter); far more would mean the
    // view reads the wrong bits. 2,000 + 200 is a 9σ bound on the Binomial(20,000, 0.01) count.
    assert!((N + 100..N + 400).contains(&maybes), "{maybes}");

    let view = BlockedBloomRef::new(wire::encode_view(&U64_BLOCKED, &mut buf).unwrap()).unwrap();
    for k in u64_probes() {
        assert_eq!(view.contains(&k), U64_BLOCKED.contains(&k), "{k}");
    }

    let mut other = buf.clone();
    let view = BloomRef::new(wire::encode_view(&URL_BLOOM, &mut buf).unwrap()).unwrap();
    let blocked =
        BlockedBloomRef::new(wire::encode_view(&URL_BLOCKED, &mut other).unwrap()).unwrap();
    for url in probe_urls() {
        assert_eq!(
            view.contains(url.as_str()),
            URL_BLOOM.contains(url.as_str()),
            "{url}"
        );
        assert_eq!(
            blocked.contains(url.as_str()),
            URL_BLOCKED.contains(url.as_str()),
            "{url}"
        );
    }
    assert!(BLOCKED_PREFIXES
        .iter()
        .all(|u| view.contains(*u) && blocked.contains(*u)));
}

#[test]
fn corrupted_or_truncated_views_are_refused_never_a_panic() {
    let mut buf = vec![0u8; U64Blocked::MAX_ENCODED_LEN];
    let bytes = wire::encode_view(&U64_BLOCKED, &mut buf).unwrap().to_vec();
    let body_at = bytes.len() - 64 * U64Blocked::BITS / 512;
    // Every truncation is refused.
    for n in (0..bytes.len())
        .step_by(7)
        .chain(bytes.len() - 8..bytes.len())
    {
        assert!(BlockedBloomRef::new(&bytes[..n]).is_err(), "{n}");
        assert!(BloomRef::new(&bytes[..n]).is_err(), "{n}");
    }
    // Every change to the envelope or the body tag is refused or, for the seed (any seed is
    // valid), read as another seed; a change in the body is another valid filter.
    for i in 0..body_at {
        for flip in [1u8, 0x80, 0xff] {
            let mut bad = bytes.clone();
            bad[i] ^= flip;
            if let Ok(v) = BlockedBloomRef::new(&bad) {
                assert_ne!(v.seed(), SEED, "byte {i} ^ {flip:#x} accepted");
                let _ = v.contains(&1u64);
            }
            assert!(BloomRef::new(&bad).is_err() || bad[3] == 1, "byte {i}");
        }
    }
    // Random bytes after a valid envelope, and random bytes: errors or answers, never a panic.
    let mut rng = SplitMix64(5);
    for len in [0usize, 1, 5, 9, 60, 200, 2_000] {
        for _ in 0..200 {
            let mut junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            if len > 8 && rng.next_u64().is_multiple_of(2) {
                junk[..4].copy_from_slice(&bytes[..4]);
            }
            if let Ok(v) = BlockedBloomRef::new(&junk) {
                let _ = v.contains("x");
            }
            if let Ok(v) = BloomRef::new(&junk) {
                let _ = v.contains("x");
            }
        }
    }
}
