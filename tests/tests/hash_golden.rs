//! Golden vectors: key → hash → positions → filter bits.
//!
//! These values are part of the public interface. Sketches are built on microcontrollers and merged on
//! hosts, and serialized sketches outlive library versions, so a change here silently corrupts every
//! stored or in-flight sketch. If one of these assertions fails, the change is a breaking format change,
//! not a test to update.

use sketch_nostd::{
    hash::{hash64, hash64_short, reduce, Probe, SHORT_KEY_MAX},
    Bloom, MicroBloom, MicroBloom32,
};

const LONG_URL: &str = "https://example.com/some/longer/path?with=query&and=more-than-128-bytes-of-text-so-that-xxh3-takes-its-long-input-path-0123456789abcdef";

#[test]
fn xxh3_of_the_empty_input_is_the_reference_value() {
    // XXH3_64bits("") from the xxHash reference implementation, independent of this crate.
    assert_eq!(hash64("", 0), 0x2d06_8005_38d3_94c2);
}

#[test]
fn hashes_are_pinned() {
    let cases: [(&[u8], u64, u64); 12] = [
        (b"", 0x0, 0x2d06800538d394c2),
        (b"a", 0x0, 0xe6c632b61e964e1f),
        (b"user:42", 0x0, 0x9fc1e605fa7174aa),
        (LONG_URL.as_bytes(), 0x0, 0xbb9cbf25f9a90d6c),
        (b"", 0x1, 0x4dc5b0cc826f6703),
        (b"a", 0x1, 0xd2f6d0996f37a720),
        (b"user:42", 0x1, 0xe8bb52a8a1847081),
        (LONG_URL.as_bytes(), 0x1, 0x05d6ba96f54add5b),
        (b"", 0xdeadbeef, 0x6676ee0cdb2228c2),
        (b"a", 0xdeadbeef, 0x66ef85b72eb5691b),
        (b"user:42", 0xdeadbeef, 0x7e6d78c95616a20f),
        (LONG_URL.as_bytes(), 0xdeadbeef, 0x0fd5cd753bca0f55),
    ];
    for (key, seed, want) in cases {
        assert_eq!(hash64(key, seed), want, "key {key:?}, seed {seed:#x}");
        // The compact xxh3 for firmware gives the same value for every key it takes.
        let short = (key.len() <= SHORT_KEY_MAX).then_some(want);
        assert_eq!(
            hash64_short(key, seed),
            short,
            "key {key:?}, seed {seed:#x}"
        );
    }
    // Past 240 bytes xxh3 takes its long-input (striped) path.
    assert_eq!(hash64(&[0xabu8; 300], 0), 0xc3bba68e636e3292);
    assert_eq!(hash64(&[0xabu8; 300], 1), 0x55a8de5116e070a6);
    assert_eq!(hash64(&[0xabu8; 300], 0xdeadbeef), 0x1c964208810e17b4);
}

#[test]
fn integers_hash_as_little_endian_bytes() {
    assert_eq!(hash64(&42u64, 0), 0xd5a6f8c838df27c8);
    assert_eq!(hash64(&42u64, 1), 0x67572691c5abfc9c);
    assert_eq!(hash64(&42u64, 0xdeadbeef), 0xcd506fb8795767e2);
    assert_eq!(hash64(&-1i32, 0), 0xcd6b1c920d3f662c);
    assert_eq!(hash64(&-1i32, 1), 0xf9c9ded06ae77463);
    assert_eq!(hash64(&-1i32, 0xdeadbeef), 0xbc6847a9bf1bc2b8);
    // usize is widened to u64, so 32- and 64-bit targets agree.
    assert_eq!(hash64(&42usize, 0), 0xd5a6f8c838df27c8);
}

#[test]
fn positions_are_pinned() {
    let probe = Probe::new(hash64("user:42", 0));
    let positions: Vec<u32> = (0..7).map(|i| reduce(probe.nth(i), 100_032)).collect();
    assert_eq!(positions, [97860, 60253, 22647, 85072, 47465, 9858, 72283]);
}

#[test]
fn filter_bits_are_pinned() {
    let mut bloom = Bloom::<2, 3>::with_seed(5);
    for key in ["a", "b", "c"] {
        bloom.insert(key);
    }
    assert_eq!(bloom.as_words(), &[0x0004001002000030, 0x0002000008000090]);

    let mut micro = MicroBloom::<3>::new();
    for key in ["class", "id", "href"] {
        micro.insert(key);
    }
    assert_eq!(micro.bits(), 0x08100c0110000808);

    let mut micro32 = MicroBloom32::<2, 7>::new();
    for key in [1u32, 2, 3] {
        micro32.insert(&key);
    }
    assert_eq!(micro32.bits(), 0x41003804);
}

#[test]
fn mix32_is_murmur3_fmix32() {
    // MurmurHash3's fmix32 (fmix32(1) = 0x514e28b7 is the published reference value); the cuckoo
    // filter's alternate buckets depend on it, so it is pinned like the key hashes.
    use sketch_nostd::hash::mix32;
    let pinned = [
        (0u32, 0u32),
        (1, 0x514e_28b7),
        (2, 0x30f4_c306),
        (0xff, 0x6c63_d583),
        (0xffff, 0xa23b_ae67),
        (0xdead_beef, 0x0de5_c6a9),
    ];
    for (x, want) in pinned {
        assert_eq!(mix32(x), want, "mix32({x:#x})");
    }
}
