//! Prefilters built by the compiler, at run time and read in place from their bytes answer
//! identically; corrupted or truncated bytes are refused by the views without a panic.

use sketch_nostd::hash::const_hash64_u64;
use sketch_nostd::sizing::{blocked_blocks_for, k_for, words_for};
use sketch_nostd::wire::{self, BlockedBloomRef, BloomRef, Wire};
use sketch_nostd::{BlockedBloom, Bloom};
use sketch_rng::SplitMix64;
use sketch_tests::prefilter::{probe_urls, BLOCKED_PREFIXES};

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

/// Whether the decoders read format `version` for `kind`.
fn readable_version(kind: wire::SketchKind, version: u8) -> bool {
    (kind.min_format_version()..=wire::FORMAT_VERSION).contains(&version)
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
            // Another format version this library reads for the kind is the same filter.
            if i == 2 && readable_version(wire::SketchKind::BlockedBloom, bad[2]) {
                let v = BlockedBloomRef::new(&bad).expect("a readable version");
                assert_eq!(v.seed(), SEED, "byte {i} ^ {flip:#x}");
                assert!(v.contains(&1u64) == U64_BLOCKED.contains(&1u64));
                continue;
            }
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

mod fuse {
    use super::*;
    use sketch_nostd::fuse::{BinaryFuse16, BinaryFuse16Ref, BinaryFuse8, BinaryFuse8Ref};
    use sketch_nostd::wire::SketchKind;
    use sketch_nostd::WireError;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The bytes of small filters, pinned: the binary fuse wire encoding (kinds 12 and 13) and its
    /// construction (shape, construction seeds, peeling order, assignment) are a public interface,
    /// like every golden in `wire_golden.rs`. Changing them means bumping the format version.
    #[test]
    fn goldens() {
        let f8 = BinaryFuse8::from_keys(["a", "b", "c"], 7).unwrap();
        assert_eq!(
            hex(f8.as_bytes()),
            concat!(
                "534b020c",                                         // "SK", version 2, kind 12
                "080103",           // SEGMENT_LENGTH 8, SEGMENT_COUNT 1, KEYS 3
                "07",               // seed
                "0bf56c113293b60d", // construction seed, little-endian
                "0000000000d600000000000000000000002000000000008b", // 24 fingerprints
            )
        );
        let f16 = BinaryFuse16::from_keys([1u64, 2, 3, 4], 7).unwrap();
        assert_eq!(
            hex(f16.as_bytes()),
            concat!(
                "534b020d080104070bf56c113293b60d",
                "0000000000000000000000000000000000006ed4000000000000000000000000",
                "00000000caa2000000005ae041720000"
            )
        );
        for (bytes, kind) in [
            (f8.as_bytes(), SketchKind::BinaryFuse8),
            (f16.as_bytes(), SketchKind::BinaryFuse16),
        ] {
            let h = wire::peek(bytes).unwrap();
            assert_eq!((h.version, h.kind, h.seed), (2, kind, 7));
            assert_eq!(h.params()[..2], [8, 1]);
        }
        assert!(["a", "b", "c"].iter().all(|k| f8.contains(*k)));
        assert!((1..=4u64).all(|k| f16.contains(&k)));
    }

    #[test]
    fn built_filters_and_views_answer_identically() {
        let urls = probe_urls();
        let f8 = BinaryFuse8::from_keys(BLOCKED_PREFIXES.iter().copied(), SEED).unwrap();
        let f16 = BinaryFuse16::from_keys(BLOCKED_PREFIXES.iter().copied(), SEED).unwrap();
        let v8 = BinaryFuse8Ref::new(f8.as_bytes()).unwrap();
        let v16 = BinaryFuse16Ref::new(f16.as_bytes()).unwrap();
        for url in &urls {
            assert_eq!(v8.contains(url.as_str()), f8.contains(url.as_str()));
            assert_eq!(v16.contains(url.as_str()), f16.contains(url.as_str()));
        }
        assert!(BLOCKED_PREFIXES
            .iter()
            .all(|u| v8.contains(*u) && v16.contains(*u)));

        // u64 keys: every member found; a different input order builds the same bytes.
        let f = BinaryFuse8::from_keys(U64_KEYS, SEED).unwrap();
        let reversed = BinaryFuse8::from_keys(U64_KEYS.iter().rev().copied(), SEED).unwrap();
        assert_eq!(f.as_bytes(), reversed.as_bytes());
        let view = BinaryFuse8Ref::new(f.as_bytes()).unwrap();
        for k in u64_probes() {
            assert_eq!(view.contains(&k), f.contains(&k));
        }
        assert!(U64_KEYS.iter().all(|k| view.contains(k)));
    }

    #[test]
    fn views_refuse_truncated_and_corrupted_envelopes() {
        let f = BinaryFuse16::from_keys(U64_KEYS, SEED).unwrap();
        let bytes = f.as_bytes();
        for n in (0..bytes.len())
            .step_by(97)
            .chain(bytes.len() - 3..bytes.len())
        {
            assert!(BinaryFuse16Ref::new(&bytes[..n]).is_err(), "{n}");
        }
        let mut long = bytes.to_vec();
        long.push(0);
        assert_eq!(BinaryFuse16Ref::new(&long), Err(WireError::TrailingBytes));
        assert!(matches!(
            BinaryFuse8Ref::new(bytes),
            Err(WireError::WrongKind { .. })
        ));
        // Magic, version, kind, SEGMENT_LENGTH and SEGMENT_COUNT: changing any of their bytes is
        // refused (the body no longer has the array's length, or the values are out of range).
        // KEYS and the seed only describe the keys (any value up to the array length is valid).
        let h = wire::peek(bytes).unwrap();
        let keys_at = 4 + h.params()[..2]
            .iter()
            .map(|&p| varint_len(p))
            .sum::<usize>();
        for i in 0..keys_at {
            for flip in [1u8, 2, 0x40, 0x80] {
                let mut bad = bytes.to_vec();
                bad[i] ^= flip;
                // Another format version this library reads for the kind is the same filter.
                if i == 2 && readable_version(wire::SketchKind::BinaryFuse16, bad[2]) {
                    let v = BinaryFuse16Ref::new(&bad).expect("a readable version");
                    assert!(v.contains("x") == BinaryFuse16Ref::new(bytes).unwrap().contains("x"));
                    continue;
                }
                assert!(BinaryFuse16Ref::new(&bad).is_err(), "byte {i} ^ {flip:#x}");
            }
        }
        // Random bytes, and random bytes behind a valid start: errors or answers, never a panic.
        let mut rng = SplitMix64(17);
        for len in [0usize, 4, 12, 20, 40, 300] {
            for _ in 0..300 {
                let mut junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                if len > 4 {
                    junk[..4].copy_from_slice(&bytes[..4]);
                }
                if let Ok(v) = BinaryFuse16Ref::new(&junk) {
                    let _ = v.contains("x");
                }
            }
        }
    }

    fn varint_len(v: u64) -> usize {
        (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
    }
}

/// The cuckoo filter's view: a deletable set kept on a host, queried in place on a device.
mod cuckoo {
    use super::*;
    use sketch_nostd::wire::{CuckooFilterRef, SketchKind};
    use sketch_nostd::{CuckooFilter, WireError};

    /// 512 buckets of four 16-bit slots, and of four 8-bit slots.
    type C16 = CuckooFilter<512>;
    type C8 = CuckooFilter<512, u8>;

    /// A filter at 90% load after inserts and removes: every slot form occurs (empty slots where
    /// keys were removed, full buckets); with a full small filter, a victim too.
    fn loaded<F: sketch_nostd::cuckoo::Fingerprint>() -> CuckooFilter<512, F> {
        let mut f = CuckooFilter::<512, F>::with_seed(SEED);
        for &k in &U64_KEYS[..1_900] {
            f.insert(&k).expect("fits at 93% load");
        }
        for &k in U64_KEYS[..1_900].iter().step_by(10) {
            f.remove(&k).expect("inserted");
        }
        f
    }

    fn check<F: sketch_nostd::cuckoo::Fingerprint>(f: &CuckooFilter<512, F>, buf: &mut [u8]) {
        let bytes = wire::encode_view(f, buf).unwrap();
        assert_eq!(&wire::decode::<CuckooFilter<512, F>>(bytes).unwrap(), f);
        let view = CuckooFilterRef::<F>::new(bytes).unwrap();
        let (mut yes, mut no) = (0, 0);
        for k in u64_probes() {
            assert_eq!(view.contains(&k), f.contains(&k), "{k}");
            if view.contains(&k) {
                yes += 1;
            } else {
                no += 1;
            }
        }
        // Members (1,710 kept) answer yes and most of the 20,000 others no: the comparison
        // tested both answers.
        assert!(yes >= 1_710 && no > 15_000, "{yes} {no}");
        for url in probe_urls() {
            assert_eq!(view.contains(url.as_str()), f.contains(url.as_str()));
        }
    }

    #[test]
    fn views_answer_as_the_filter() {
        let mut buf = vec![0u8; C16::MAX_ENCODED_LEN];
        check(&loaded::<u16>(), &mut buf);
        check(&loaded::<u8>(), &mut buf);
        // A victim: one bucket, five fingerprints (the fifth waits in the victim slot).
        let mut small = CuckooFilter::<1, u8>::with_seed(3);
        for k in 0..5u32 {
            small.insert(&k).unwrap();
        }
        assert!(small.victim().is_some());
        let mut buf = [0u8; CuckooFilter::<1, u8>::MAX_ENCODED_LEN];
        let view =
            CuckooFilterRef::<u8>::new(wire::encode_view(&small, &mut buf).unwrap()).unwrap();
        for k in 0..200u32 {
            assert_eq!(view.contains(&k), small.contains(&k), "{k}");
        }
        assert!((0..5u32).all(|k| view.contains(&k)));
    }

    #[test]
    fn corrupted_truncated_and_other_bodies_are_refused() {
        let f = loaded::<u8>();
        let mut buf = vec![0u8; C8::MAX_ENCODED_LEN];
        let bytes = wire::encode_view(&f, &mut buf).unwrap().to_vec();
        for n in (0..bytes.len())
            .step_by(5)
            .chain(bytes.len() - 3..bytes.len())
        {
            assert!(CuckooFilterRef::<u8>::new(&bytes[..n]).is_err(), "{n}");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert_eq!(
            CuckooFilterRef::<u8>::new(&long),
            Err(WireError::TrailingBytes)
        );
        // The other fingerprint width is refused by name.
        assert!(matches!(
            CuckooFilterRef::<u16>::new(&bytes),
            Err(WireError::WrongParameter {
                name: "FINGERPRINT_BITS",
                ..
            })
        ));
        // Another kind.
        let mut other = vec![0u8; U64Blocked::MAX_ENCODED_LEN];
        let blocked = wire::encode_view(&U64_BLOCKED, &mut other).unwrap();
        assert!(matches!(
            CuckooFilterRef::<u8>::new(blocked),
            Err(WireError::WrongKind {
                expected: SketchKind::CuckooFilter,
                ..
            })
        ));
        // Every change to the envelope, the victim or the tag is refused or read as another
        // valid filter (another seed, size or victim), and then answers without a panic.
        let slots_at = bytes.len() - 4 * 512;
        for i in 0..slots_at {
            for flip in [1u8, 0x80, 0xff] {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                if let Ok(v) = CuckooFilterRef::<u8>::new(&bad) {
                    assert!(
                        v.seed() != SEED || i == 2 || i == slots_at - 2,
                        "byte {i} ^ {flip:#x} accepted"
                    );
                    let _ = v.contains(&1u64);
                }
            }
        }
        // The sparse body `encode` picks for a lightly loaded filter cannot be viewed, and the
        // victim must be in a bucket and non-empty.
        let mut light = C8::with_seed(1);
        light.insert("one").unwrap();
        let mut sparse = vec![0u8; C8::MAX_ENCODED_LEN];
        let sparse = wire::encode(&light, &mut sparse).unwrap();
        assert!(matches!(
            CuckooFilterRef::<u8>::new(sparse),
            Err(WireError::BadEncoding { .. })
        ));
        let mut victim = vec![0u8; C8::MAX_ENCODED_LEN];
        let good = wire::encode_view(&light, &mut victim).unwrap().to_vec();
        let at = good.len() - 4 * 512 - 2; // the victim varint (0: none), then the tag
        assert_eq!(&good[at..at + 2], &[0, 0]);
        let mut bad = good[..at].to_vec();
        bad.extend([0x81, 0x04, 7, 0]); // bucket 512 (varint 513): past the end
        bad.extend(&good[at + 2..]);
        assert!(matches!(
            CuckooFilterRef::<u8>::new(&bad),
            Err(WireError::BadEncoding { .. })
        ));
        let mut bad = good[..at].to_vec();
        bad.extend([1, 0, 0]); // bucket 0, fingerprint 0
        bad.extend(&good[at + 2..]);
        assert!(matches!(
            CuckooFilterRef::<u8>::new(&bad),
            Err(WireError::BadEncoding { .. })
        ));
        let mut ok = good[..at].to_vec();
        ok.extend([1, 9, 0]); // bucket 0, fingerprint 9: valid, as `decode` reads it
        ok.extend(&good[at + 2..]);
        let decoded: C8 = wire::decode(&ok).unwrap();
        assert_eq!(decoded.victim(), Some((0, 9)));
        assert!(CuckooFilterRef::<u8>::new(&ok).is_ok());
        // Random bytes: errors or answers, never a panic.
        let mut rng = SplitMix64(8);
        for len in [0usize, 3, 9, 40, 2_100] {
            for _ in 0..200 {
                let mut junk: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                if len > 8 {
                    junk[..4].copy_from_slice(&bytes[..4]);
                }
                if let Ok(v) = CuckooFilterRef::<u8>::new(&junk) {
                    let _ = v.contains("x");
                }
            }
        }
    }
}
