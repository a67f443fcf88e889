//! Golden bytes: the exact encoding of every sketch type (empty, small, dense) and of a frame.
//!
//! These bytes are a public interface: devices in the field send them. If a test here fails, the wire
//! format (or the hashing) changed. Do not update the hex to make it pass: bump
//! `wire::FORMAT_VERSION` and keep a decoder for the old version, then add goldens for the new one.
//! The keys are fixed, so the sketches' contents are too (hashing is pinned by the foundation).
//!
//! Every sketch has two goldens: its encoding in the current format, checked byte for byte, and the
//! bytes an older encoder wrote for the same keys.
//!
//! * Count-min and top-k write version 3 (a key's columns moved, so that rows collide
//!   independently); the bytes versions 2 and 1 wrote for the same keys must be refused with the
//!   version error, since their counters sit in the columns the keys had then.
//! * Every other kind still writes version 2, byte for byte as before, and the version-1 bytes must
//!   still decode to the same sketch. The two differ only in the version byte, except for sparse
//!   HyperLogLog bodies (version 1 kept 26-bit coupons, version 2 keeps `P + 7` bits): those decode,
//!   by the exact conversion, to the sketch the same keys build now.

use sketch_nostd::countmin::{Conservative, Standard};
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll14, Hll4};
use sketch_nostd::wire::{self, Frame, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32,
    SpaceSaving, TopK,
};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Removes whitespace and decodes hex.
fn unhex(hex: &str) -> Vec<u8> {
    let hex: String = hex.split_whitespace().collect();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Checks the encoding of `sketch` against `expected` (hex, whitespace ignored), that the golden
/// bytes decode back to it (typed decoder and plain postcard), and that the size is within the bound;
/// then that `v1`, the version-1 bytes of the same sketch, decode to it too ([`golden_v1`]).
fn golden<T: Wire + PartialEq + core::fmt::Debug>(
    name: &str,
    sketch: &T,
    expected: &str,
    v1: &str,
) {
    golden_v2(name, sketch, expected);
    golden_v1(name, sketch, v1);
}

/// The current-version half of [`golden`].
fn golden_v2<T: Wire + PartialEq + core::fmt::Debug>(name: &str, sketch: &T, expected: &str) {
    let expected: String = expected.split_whitespace().collect();
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf).expect("MAX_ENCODED_LEN is enough");
    assert_eq!(
        hex(bytes),
        expected,
        "{name}: the encoding changed (see this file's header before touching the hex)"
    );
    assert!(bytes.len() <= T::MAX_ENCODED_LEN, "{name}");
    assert_eq!(wire::peek(bytes).unwrap().version, T::KIND.format_version());
    assert_eq!(&wire::decode::<T>(bytes).unwrap(), sketch, "{name}");
    assert_eq!(&postcard::from_bytes::<T>(bytes).unwrap(), sketch, "{name}");
}

/// Version-1 bytes (written before format version 2) still decode, to `sketch`.
fn golden_v1<T: Wire + PartialEq + core::fmt::Debug>(name: &str, sketch: &T, v1: &str) {
    let v1 = unhex(v1);
    assert_eq!(wire::peek(&v1).unwrap().version, 1, "{name} v1");
    assert_eq!(&wire::decode::<T>(&v1).unwrap(), sketch, "{name} v1");
    assert_eq!(
        &postcard::from_bytes::<T>(&v1).unwrap(),
        sketch,
        "{name} v1"
    );
}

/// [`golden`] for summaries without `PartialEq`: the golden bytes decode, and re-encode to themselves
/// (the encoding is canonical); the version-1 bytes decode to a summary that encodes to them too.
fn golden_canonical<T: Wire>(name: &str, sketch: &T, expected: &str, v1: &str) {
    let expected: String = expected.split_whitespace().collect();
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf)
        .expect("MAX_ENCODED_LEN is enough")
        .to_vec();
    assert_eq!(
        hex(&bytes),
        expected,
        "{name}: the encoding changed (see this file's header)"
    );
    let back = wire::decode::<T>(&bytes).unwrap();
    let mut again = vec![0u8; T::MAX_ENCODED_LEN];
    assert_eq!(
        wire::encode(&back, &mut again).unwrap(),
        &bytes[..],
        "{name}"
    );
    assert!(postcard::from_bytes::<T>(&bytes).is_ok(), "{name}");
    let v1 = unhex(v1);
    assert_eq!(wire::peek(&v1).unwrap().version, 1, "{name} v1");
    let old = wire::decode::<T>(&v1).unwrap();
    assert_eq!(
        wire::encode(&old, &mut again).unwrap(),
        &bytes[..],
        "{name} v1"
    );
    assert!(postcard::from_bytes::<T>(&v1).is_ok(), "{name} v1");
}

/// The golden of a kind whose body changed in format version 3 (count-min and top-k: a key's columns
/// moved): the current bytes as [`golden_v2`] checks them, and the bytes versions 2 and 1 wrote for
/// the same keys (`v2`; the version-1 bytes differ only in the version byte), which are refused with
/// the version error: their counters sit in the columns the keys had then.
fn golden_refusing_old<T: Wire + PartialEq + core::fmt::Debug>(
    name: &str,
    sketch: &T,
    expected: &str,
    v2: &str,
) {
    golden_v2(name, sketch, expected);
    refused_old::<T>(name, v2);
}

/// [`golden_refusing_old`] with [`golden_canonical`]'s check of the current bytes.
fn golden_canonical_refusing_old<T: Wire>(name: &str, sketch: &T, expected: &str, v2: &str) {
    let expected: String = expected.split_whitespace().collect();
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf)
        .expect("MAX_ENCODED_LEN is enough")
        .to_vec();
    assert_eq!(
        hex(&bytes),
        expected,
        "{name}: the encoding changed (see this file's header)"
    );
    assert_eq!(wire::peek(&bytes).unwrap().version, wire::FORMAT_VERSION);
    let back = wire::decode::<T>(&bytes).unwrap();
    let mut again = vec![0u8; T::MAX_ENCODED_LEN];
    assert_eq!(
        wire::encode(&back, &mut again).unwrap(),
        &bytes[..],
        "{name}"
    );
    assert!(postcard::from_bytes::<T>(&bytes).is_ok(), "{name}");
    refused_old::<T>(name, v2);
}

/// The version-2 bytes `v2`, and the same with version byte 1, are refused with
/// [`WireError::UnsupportedVersion`](sketch_nostd::WireError::UnsupportedVersion), by every decoder.
fn refused_old<T: Wire>(name: &str, v2: &str) {
    let mut old = unhex(v2);
    for version in [2, 1] {
        old[2] = version;
        let expected = sketch_nostd::WireError::UnsupportedVersion { found: version };
        assert_eq!(
            wire::decode::<T>(&old).err(),
            Some(expected),
            "{name} v{version}"
        );
        assert!(
            postcard::from_bytes::<T>(&old).is_err(),
            "{name} v{version}"
        );
        assert_eq!(wire::peek(&old).err(), Some(expected), "{name} v{version}");
    }
}

/// Version-1 bytes of a dense single-stream [`Hll10`] (seed 7) with the registers of `sketch`.
///
/// The registers a set of keys sets are the same in both versions, but a single stream's martingale
/// estimate starts, when the sketch turns dense, from the sparse form's count, which is linear
/// counting over 2^26 virtual registers in version 1 and 2^17 (p + 7 bits) now: so the estimate a
/// version-1 device sent differs slightly from the one the same keys give now. The bytes must decode
/// to exactly what was sent (these registers with that estimate), and the two estimates must agree
/// to within the sparse form's error at the conversion (about 1/sqrt(2^18) = 0.2% at p = 10).
fn golden_v1_hll10_martingale(name: &str, sketch: &Hll10, v1: &str) {
    let v1 = unhex(v1);
    // magic, version, kind, P, seed (one byte each here), state, then the estimate.
    assert_eq!(v1[..7], [0x53, 0x4b, 1, 4, 10, 7, 3], "{name} v1");
    let sent = f64::from_le_bytes(v1[7..15].try_into().unwrap());
    let now = sketch.martingale_estimate().unwrap();
    assert!(
        (sent / now - 1.0).abs() < 0.002,
        "{name} v1: {sent} vs {now}"
    );
    let expected = Hll10::from_parts(sketch.dense_registers().unwrap(), 7, Some(sent)).unwrap();
    assert!(wire::decode::<Hll10>(&v1).unwrap() == expected, "{name} v1");
    assert!(
        postcard::from_bytes::<Hll10>(&v1).unwrap() == expected,
        "{name} v1"
    );
}

fn bloom<const W: usize, const K: u32>(seed: u64, keys: std::ops::Range<u32>) -> Bloom<W, K> {
    let mut f = Bloom::with_seed(seed);
    for k in keys {
        f.insert(&k);
    }
    f
}

#[test]
fn bloom_empty_small_dense() {
    // Empty: the sparse body with zero set bits.
    golden(
        "bloom empty",
        &Bloom::<8, 3>::with_seed(7),
        "534b02010803070200",
        "534b01010803070200",
    );
    // Three keys: nine bits, as gaps.
    golden(
        "bloom small",
        &bloom::<8, 3>(7, 0..3),
        "534b020108030702090d174812600e0f980142",
        "534b010108030702090d174812600e0f980142",
    );
    // 300 keys in 512 bits: dense.
    golden(
        "bloom dense",
        &bloom::<8, 3>(7, 0..300),
        "
            534b020108030700bef7f7dfbaffd7eeffffef93f6ed7f7ffffffedbbbefffd5
            fffffdef3f8ff7fefeffef9bfff5f575df57dbb7fe7fb72e6ddefdd57feffbff
            fffaffbfd8dfff7d
        ",
        "
            534b010108030700bef7f7dfbaffd7eeffffef93f6ed7f7ffffffedbbbefffd5
            fffffdef3f8ff7fefeffef9bfff5f575df57dbb7fe7fb72e6ddefdd57feffbff
            fffaffbfd8dfff7d
        ",
    );
    // Two full words among zeros: zero runs.
    let mut words = [0u64; 8];
    words[2] = 0x0123_4567_89ab_cdef;
    words[3] = u64::MAX;
    golden(
        "bloom zero runs",
        &Bloom::<8, 3>::from_parts(words, 7),
        "534b0201080307010202efcdab8967452301ffffffffffffffff0400",
        "534b0101080307010202efcdab8967452301ffffffffffffffff0400",
    );
    // A realistic size (1,563 words, 10,000 keys at 1%) with ten keys and a wide seed.
    golden(
        "bloom 1563 words, 10 keys",
        &bloom::<1563, 7>(0xdead_beef_cafe_f00d, 0..10),
        "
            534b02019b0c078de0fbd7fcddefd6de010246db0a8901980bd703b41e002b8e
            0f970fd2198805ab08e702d514b905930cea0ecf09a305c004d101a211c41bf9
            02c00ccf0a6ca301800fae02f50e64f32433e208cd06aa0ad40bd116c00c9f06
            90069e016d77f704ba0fd4058c02d818fd044fc00a980a9527b315cc12ca0fcc
            03fa0aca05e9118604a51ea604fe1aab018e0bec28b704
        ",
        "
            534b01019b0c078de0fbd7fcddefd6de010246db0a8901980bd703b41e002b8e
            0f970fd2198805ab08e702d514b905930cea0ecf09a305c004d101a211c41bf9
            02c00ccf0a6ca301800fae02f50e64f32433e208cd06aa0ad40bd116c00c9f06
            90069e016d77f704ba0fd4058c02d818fd044fc00a980a9527b315cc12ca0fcc
            03fa0aca05e9118604a51ea604fe1aab018e0bec28b704
        ",
    );
}

#[test]
fn micro_bloom_empty_small_dense() {
    golden(
        "micro empty",
        &MicroBloom::<3>::new(),
        "534b020203000000000000000000",
        "534b010203000000000000000000",
    );
    let mut m = MicroBloom::<3>::new();
    for k in ["class", "id", "href"] {
        m.insert(k);
    }
    golden(
        "micro small",
        &m,
        "534b0202030008080010010c1008",
        "534b0102030008080010010c1008",
    );
    for k in 0..100u32 {
        m.insert(&k);
    }
    golden(
        "micro dense",
        &m,
        "534b02020300fffffffff7ffffff",
        "534b01020300fffffffff7ffffff",
    );
}

#[test]
fn micro_bloom32_empty_small_dense() {
    golden(
        "micro32 empty",
        &MicroBloom32::<2, 0xbeef>::new(),
        "534b020302effd0200000000",
        "534b010302effd0200000000",
    );
    let mut m = MicroBloom32::<2, 0xbeef>::new();
    m.insert(&17u32);
    golden(
        "micro32 small",
        &m,
        "534b020302effd0280080000",
        "534b010302effd0280080000",
    );
    for k in 0..100u32 {
        m.insert(&k);
    }
    golden(
        "micro32 dense",
        &m,
        "534b020302effd02ffffffff",
        "534b010302effd02ffffffff",
    );
}

#[test]
fn count_min_empty_small_dense() {
    type Cm = CountMin<16, 3, u16, Standard>;
    golden_refusing_old(
        "count-min empty",
        &Cm::with_seed(7),
        "534b0305100302000700013000",
        "534b0205100302000700013000",
    );
    let mut cm = Cm::with_seed(7);
    for k in ["a", "b", "b", "c", "c", "c"] {
        cm.increment(k);
    }
    golden_refusing_old(
        "count-min small",
        &cm,
        "
            534b030510030200070601050203030f01020101030301010402020303010109
            00
        ",
        "
            534b020510030200070601000103030102070101050103030101040102040101
            020202030b00
        ",
    );
    for k in 0..500u32 {
        cm.add(&k, u64::from(k % 7) * 100);
    }
    golden_refusing_old(
        "count-min dense",
        &cm,
        "
            534b030510030200079e8f0900c02be81c1c25dc1e6c397727b31d0429342140
            1f802548265c2bbc1b841c8c23d0204c1dac26841cec2c08205624c8324b2654
            249821581b7d2e3c28781e8025f41a262ceb1cf433a82f6c20211c8c23901a00
            19982100192035783724130032
        ",
        "
            534b020510030200079e8f0900b72d0019ec2c8c2382256022f82a3c28d4179c
            31cc293421851cdc1e60222823302aac264b26302a141e1027512d5c2b703034
            2100192e1af41aa41ff0231c25591b9821d8278a2ce73ec819c8328c23982148
            26ec13581bc4229c310820bc1b
        ",
    );
    let mut conservative = CountMin::<8, 2, u8, Conservative>::new();
    for k in 0..20u32 {
        conservative.add(&k, 3);
    }
    golden_refusing_old(
        "count-min u8 conservative",
        &conservative,
        "534b030508020101003c0009060000060609090909060306060600",
        "534b020508020101003c0009060609030606000309060900030900",
    );
}

#[test]
fn hyperloglog_empty_small_dense() {
    golden(
        "hll empty",
        &Hll10::with_seed(7),
        "534b02040a07020100",
        "534b01040a07020100",
    );
    let mut h = Hll10::with_seed(7);
    for k in 0..5u32 {
        h.insert(&k);
    }
    golden(
        "hll small (sparse coupons)",
        &h,
        "534b02040a070200050eb21e999e56a03483659456",
        "534b01040a0702000517dc663d7f113a3d3785054acb6bb044dbd20a",
    );
    let mut few = h.clone();
    few.to_dense();
    golden_v2(
        "hll small after to_dense (register list)",
        &few,
        "534b02040a0703f9aa2900190014400105073c7afe6df2563955",
    );
    golden_v1_hll10_martingale(
        "hll small after to_dense (register list)",
        &few,
        "534b01040a07030a00800c000014400105073c7afe6df2563955",
    );
    for k in 5..20_000u32 {
        h.insert(&k);
    }
    golden_v2(
        "hll dense (compact)",
        &h,
        "
            534b02040a0703c4eb54a54048d3400206017956436a697325236d9d8d5a361b
            6a0e2ad390da44c0d069c9c60ce958cf26666e85da766265ada1270debe809ee
            c9b3f3b13ab895dd567acaf6d91d435d6db4a4a4ab4c1a917ea849c5b3a74147
            d00dd5e49c7e569ba49f09b543d4871dba07ce6368d718f796cc8c64c228a74a
            599a34b2b5cca1dbb68d92b1c50db6595bf57942188ba94ee9d16952d8ff3307
            ac89cd644d9aca4eeb54cdd133dbd51060e3b1676d99a685a72bb6293f6cc6d5
            edd16d62b74d15b6ddc311c78fab8a136ae5b3aad83dda49f1d9ad5b357a56a9
            67aaf10c27ad6c6ae154af8f53ea56ef569d36296db6a782db628642d126fdb4
            a44ca6da43996e571cb1b2fa03ab8ed6da23539b16ecaeb64a736a9b0fd8a6eb
            029d1b122db0bbc5ca79543ba4d253b66df3440d361a96ba9adad519b139aa05
            11d693b6763b5a507b5279c22205339e6e0b66d2c0d926e5f453b24e3b3420a9
            4a5b041b09b9719e551a0a5153c0f5a42a9d4346ac4b67db588bec6a9bb33b38
            252eae98aacd51
        ",
    );
    golden_v1_hll10_martingale(
        "hll dense (compact)",
        &h,
        "
            534b01040a0703b4b8e9963b48d3400206017956436a697325236d9d8d5a361b
            6a0e2ad390da44c0d069c9c60ce958cf26666e85da766265ada1270debe809ee
            c9b3f3b13ab895dd567acaf6d91d435d6db4a4a4ab4c1a917ea849c5b3a74147
            d00dd5e49c7e569ba49f09b543d4871dba07ce6368d718f796cc8c64c228a74a
            599a34b2b5cca1dbb68d92b1c50db6595bf57942188ba94ee9d16952d8ff3307
            ac89cd644d9aca4eeb54cdd133dbd51060e3b1676d99a685a72bb6293f6cc6d5
            edd16d62b74d15b6ddc311c78fab8a136ae5b3aad83dda49f1d9ad5b357a56a9
            67aaf10c27ad6c6ae154af8f53ea56ef569d36296db6a782db628642d126fdb4
            a44ca6da43996e571cb1b2fa03ab8ed6da23539b16ecaeb64a736a9b0fd8a6eb
            029d1b122db0bbc5ca79543ba4d253b66df3440d361a96ba9adad519b139aa05
            11d693b6763b5a507b5279c22205339e6e0b66d2c0d926e5f453b24e3b3420a9
            4a5b041b09b9719e551a0a5153c0f5a42a9d4346ac4b67db588bec6a9bb33b38
            252eae98aacd51
        ",
    );
    h.merge(&few).unwrap();
    golden(
        "hll dense merged (no martingale)",
        &h,
        "
            534b02040a07010206017956436a697325236d9d8d5a361b6a0e2ad390da44c0
            d069c9c60ce958cf26666e85da766265ada1270debe809eec9b3f3b13ab895dd
            567acaf6d91d435d6db4a4a4ab4c1a917ea849c5b3a74147d00dd5e49c7e569b
            a49f09b543d4871dba07ce6368d718f796cc8c64c228a74a599a34b2b5cca1db
            b68d92b1c50db6595bf57942188ba94ee9d16952d8ff3307ac89cd644d9aca4e
            eb54cdd133dbd51060e3b1676d99a685a72bb6293f6cc6d5edd16d62b74d15b6
            ddc311c78fab8a136ae5b3aad83dda49f1d9ad5b357a56a967aaf10c27ad6c6a
            e154af8f53ea56ef569d36296db6a782db628642d126fdb4a44ca6da43996e57
            1cb1b2fa03ab8ed6da23539b16ecaeb64a736a9b0fd8a6eb029d1b122db0bbc5
            ca79543ba4d253b66df3440d361a96ba9adad519b139aa0511d693b6763b5a50
            7b5279c22205339e6e0b66d2c0d926e5f453b24e3b3420a94a5b041b09b9719e
            551a0a5153c0f5a42a9d4346ac4b67db588bec6a9bb33b38252eae98aacd51
        ",
        "
            534b01040a07010206017956436a697325236d9d8d5a361b6a0e2ad390da44c0
            d069c9c60ce958cf26666e85da766265ada1270debe809eec9b3f3b13ab895dd
            567acaf6d91d435d6db4a4a4ab4c1a917ea849c5b3a74147d00dd5e49c7e569b
            a49f09b543d4871dba07ce6368d718f796cc8c64c228a74a599a34b2b5cca1db
            b68d92b1c50db6595bf57942188ba94ee9d16952d8ff3307ac89cd644d9aca4e
            eb54cdd133dbd51060e3b1676d99a685a72bb6293f6cc6d5edd16d62b74d15b6
            ddc311c78fab8a136ae5b3aad83dda49f1d9ad5b357a56a967aaf10c27ad6c6a
            e154af8f53ea56ef569d36296db6a782db628642d126fdb4a44ca6da43996e57
            1cb1b2fa03ab8ed6da23539b16ecaeb64a736a9b0fd8a6eb029d1b122db0bbc5
            ca79543ba4d253b66df3440d361a96ba9adad519b139aa0511d693b6763b5a50
            7b5279c22205339e6e0b66d2c0d926e5f453b24e3b3420a94a5b041b09b9719e
            551a0a5153c0f5a42a9d4346ac4b67db588bec6a9bb33b38252eae98aacd51
        ",
    );
    // Spread-out registers: the packed form is smallest.
    let packed = Hll4::from_parts(&[0x5a; 12], 3, None).unwrap();
    golden(
        "hll4 packed",
        &packed,
        "534b0204040301005a5a5a5a5a5a5a5a5a5a5a5a",
        "534b0104040301005a5a5a5a5a5a5a5a5a5a5a5a",
    );
}

/// Sparse HyperLogLogs at p = 14 (the precision of the sparse form's size targets: 21-bit coupons now, 26
/// in version 1, so 5 bits dropped) and p = 4 (11 bits now, 15 dropped), single stream and merged.
/// The version-1 bytes were written by the version-1 encoder (commit 4c6ab18).
#[test]
fn hyperloglog_sparse_at_p14_and_p4() {
    let mut h = Hll14::with_seed(7);
    for k in 0..20u32 {
        h.insert(&k);
    }
    golden(
        "hll14 sparse, 20 keys",
        &h,
        "534b02040e0702001410920368608842d31c3300df18a3c409678c3dbf252bd0b1a24ee834835976d00edf4f142cf536eb0553ee94b3f00e365b5a",
        "
            534b01040e07020014157e72405e0343aa4213149961267ce31f6b941824ce08
            bce7b79cac00ef5891ed844e7106db6276d01dcbf7d3a660a90737db2bc194dd
            5ccee27b07376d4b0b
        ",
    );
    let (mut a, mut b) = (Hll14::with_seed(7), Hll14::with_seed(7));
    for k in 0..10u32 {
        a.insert(&k);
    }
    for k in 5..20u32 {
        b.insert(&k);
    }
    a.merge(&b).unwrap();
    assert!(a.is_sparse() && !a.is_single_stream());
    golden(
        "hll14 sparse merged",
        &a,
        "534b02040e0700001410920368608842d31c3300df18a3c409678c3dbf252bd0b1a24ee834835976d00edf4f142cf536eb0553ee94b3f00e365b5a",
        "
            534b01040e07000014157e72405e0343aa4213149961267ce31f6b941824ce08
            bce7b79cac00ef5891ed844e7106db6276d01dcbf7d3a660a90737db2bc194dd
            5ccee27b07376d4b0b
        ",
    );
    let mut tiny = Hll4::with_seed(7);
    for k in 0..3u32 {
        tiny.insert(&k);
    }
    assert!(tiny.is_sparse());
    golden(
        "hll4 sparse, 3 keys",
        &tiny,
        "534b02040407020003087afae48735",
        "534b0104040702000317dc663d7f5fc2593eda9656",
    );
}

#[test]
fn counting_bloom_empty_small_dense() {
    golden(
        "counting empty",
        &CountingBloom::<4, 3>::with_seed(7),
        "534b02080403070200",
        "534b01080403070200",
    );
    let mut c = CountingBloom::<4, 3>::with_seed(7);
    for k in ["a", "b", "a"] {
        c.insert(k);
    }
    golden(
        "counting small",
        &c,
        "534b02080403070206012e0f24520c",
        "534b01080403070206012e0f24520c",
    );
    for k in 0..100u32 {
        c.insert(&k);
    }
    golden(
        "counting dense",
        &c,
        "
            534b020804030700433474134554934987682148997714554444694233833957
            6422295447454325
        ",
        "
            534b010804030700433474134554934987682148997714554444694233833957
            6422295447454325
        ",
    );
}

#[test]
fn counting_bloom_two_bit() {
    // 20 keys in 128 counters: mostly counters of 0, 1 and 2, so the two-bit body (tag 03): 32 bytes
    // of 2-bit codes (four counters a byte), then the nibbles (count − 3) of the counters coded 3.
    let mut c = CountingBloom::<8, 3>::with_seed(7);
    for k in 0..20u32 {
        c.insert(&k);
    }
    golden(
        "counting two-bit",
        &c,
        "
            534b020808030703400004015101a04652000044070105014104452004000a11
            041004c00655000600
        ",
        "
            534b010808030703400004015101a04652000044070105014104452004000a11
            041004c00655000600
        ",
    );
}

#[test]
fn cuckoo_empty_small_dense() {
    golden(
        "cuckoo empty",
        &CuckooFilter::<8, u8>::with_seed(7),
        "534b0209080807000100",
        "534b0109080807000100",
    );
    let mut f = CuckooFilter::<8, u8>::with_seed(7);
    for k in 0..3u32 {
        f.insert(&k).unwrap();
    }
    golden(
        "cuckoo small",
        &f,
        "534b020908080700010304db03c60308",
        "534b010908080700010304db03c60308",
    );
    for k in 3..32u32 {
        let _ = f.insert(&k);
    }
    golden(
        "cuckoo dense",
        &f,
        "
            534b0209080807000011603c046a712aa52903290436c619dbc04eff0c730139
            65015481bb50410860
        ",
        "
            534b0109080807000011603c046a712aa52903290436c619dbc04eff0c730139
            65015481bb50410860
        ",
    );
    let mut wide = CuckooFilter::<2>::new();
    for k in 0..9u32 {
        let _ = wide.insert(&k);
    }
    assert!(wide.victim().is_some());
    golden(
        "cuckoo u16 with victim",
        &wide,
        "534b020902100001b3480002dbf670159730bbae57cfc835f505b8",
        "534b010902100001b3480002dbf670159730bbae57cfc835f505b8",
    );
}

#[test]
fn top_k_empty_small_dense() {
    type Top = TopK<u32, 4, 16, 2, u16>;
    golden_canonical_refusing_old(
        "topk empty",
        &Top::with_seed(7),
        "534b03060410020201848080801007000120000000",
        "534b02060410020201848080801007000120000000",
    );
    let mut top = Top::with_seed(7);
    for k in [1u32, 2, 2, 3, 3, 3] {
        top.increment(&k);
    }
    golden_canonical_refusing_old(
        "topk small",
        &top,
        "
            534b0306041002020184808080100706010001030301020601010b0103040102
            01010101000003030302020101
        ",
        "
            534b020604100202018480808010070601030101020203020901010501020601
            0301000003030302020101
        ",
    );
    for k in 0..300u32 {
        top.add(&(k % 37), u64::from(k % 5));
    }
    golden_canonical_refusing_old(
        "topk dense",
        &top,
        "
            534b03060410020201848080801007de040100032222240117201e20230e2011
            1410110e20201c1110221424212022230104220f112000040e241d2314222022
        ",
        "
            534b02060410020201848080801007de040101071112231f1c221601131e0e1f
            1b1d1f201f211c201f1f23161f12111d01031b221e00042323032201211d20
        ",
    );
    let mut words = TopK::<HString<6>, 2, 8, 2, u8, Standard>::new();
    for w in ["GET", "PUT", "GET", "a long line"] {
        words.increment(w);
    }
    golden_canonical_refusing_old(
        "topk strings",
        &words,
        "
            534b030602080201008680808060000400020001000001000000000102000100
            00000203474554020350555401
        ",
        "
            534b020602080201008680808060000401020101040103020101020201020100
            000203474554020350555401
        ",
    );
}

#[test]
fn space_saving_empty_small_full() {
    type Ss = SpaceSaving<u32, 4>;
    golden_canonical(
        "space-saving empty",
        &Ss::new(),
        "534b02070404848080801000000000",
        "534b01070404848080801000000000",
    );
    let mut ss = Ss::new();
    for k in [1u32, 2, 2, 3, 3, 3] {
        ss.increment(&k);
    }
    golden_canonical(
        "space-saving small",
        &ss,
        "534b02070404848080801000060003030300020200010100",
        "534b01070404848080801000060003030300020200010100",
    );
    for k in 0..300u32 {
        ss.add(&(k % 37), u64::from(k % 5));
    }
    golden_canonical(
        "space-saving full",
        &ss,
        "
            534b02070404848080801000de04000403990195010298019501239701930101
            96019401
        ",
        "
            534b01070404848080801000de04000403990195010298019501239701930101
            96019401
        ",
    );
    let mut words = SpaceSaving::<HString<6>, 2, u8>::new();
    for w in ["GET", "PUT", "GET", "DELETE", "a long line"] {
        words.increment(w);
    }
    golden_canonical(
        "space-saving strings",
        &words,
        "534b020702018680808060000401020644454c4554450201034745540200",
        "534b010702018680808060000401020644454c4554450201034745540200",
    );
}

#[test]
fn blocked_bloom_empty_small_dense() {
    golden(
        "blocked empty",
        &BlockedBloom::<2, 8>::with_seed(7),
        "534b020a0208070200",
        "534b010a0208070200",
    );
    let mut b = BlockedBloom::<2, 8>::with_seed(7);
    for k in 0..3u32 {
        b.insert(&k);
    }
    golden(
        "blocked small",
        &b,
        "
            534b020a02080702180d5c2c303b40474f320d39211c0821370a2c172139051e
            29
        ",
        "
            534b010a02080702180d5c2c303b40474f320d39211c0821370a2c172139051e
            29
        ",
    );
    for k in 3..200u32 {
        b.insert(&k);
    }
    golden(
        "blocked dense",
        &b,
        "
            534b020a02080700ffefe6f96b7fdffdbdf6bfffdff78ffeff5ebf775febbf7e
            7bdded3fefffff5af57effffeaffbfffffff7fbdee7bf37f79bfdf7eeffdfabb
            e3bff7ebedadefffeff5efffffba5b5bbff9fdffeb7b7dbf1fdfdffcc9fe7fba
            7d786bdfe58dbfff7f5e57aff7ef7fd7e5fffd5bfd7faebf1ddffddccbbefff1
            772ffffbb15ffe2e
        ",
        "
            534b010a02080700ffefe6f96b7fdffdbdf6bfffdff78ffeff5ebf775febbf7e
            7bdded3fefffff5af57effffeaffbfffffff7fbdee7bf37f79bfdf7eeffdfabb
            e3bff7ebedadefffeff5efffffba5b5bbff9fdffeb7b7dbf1fdfdffcc9fe7fba
            7d786bdfe58dbfff7f5e57aff7ef7fd7e5fffd5bfd7faebf1ddffddccbbefff1
            772ffffbb15ffe2e
        ",
    );
}

#[test]
fn frame() {
    let frame = Frame {
        device: 0x1234,
        seq: 7,
        sketch: bloom::<8, 3>(7, 0..3),
    };
    let mut buf = [0u8; Frame::<Bloom<8, 3>>::MAX_ENCODED_LEN];
    let bytes = frame.encode(&mut buf).unwrap();
    assert_eq!(
        hex(bytes),
        "1bb42407534b020108030702090d174812600e0f980142ff898fcd00",
        "the frame encoding changed"
    );
    assert_eq!(Frame::decode(bytes).unwrap(), frame);
    // A frame around a version-1 sketch, as sent before format version 2 (frames have no version of
    // their own: only the sketch inside changed).
    let mut v1 = unhex("1bb42407534b010108030702090d174812600e0f9801427bd2159e00");
    assert_eq!(Frame::decode(&mut v1).unwrap(), frame);
}

/// The quantile sketch (kind 11) is new in format version 2: it has no version-1 bytes.
#[test]
fn quantile_sketch_empty_small_collapsed() {
    use sketch_nostd::QuantileSketch;
    golden_v2(
        "QuantileSketch empty",
        &QuantileSketch::<35, 1_047>::new(),
        // envelope (SUB 35, BUCKETS 1047, 4-byte counters, seed 0), state 0, zero count 0, no
        // negative and no positive window
        "534b020b2397080400 00 00 00 00",
    );
    let mut small = QuantileSketch::<35, 1_047>::new();
    for v in [-2.5f64, 0.0, 1.0, 3.0, 1e8] {
        small.insert(v);
    }
    small.add(250u32, 3);
    golden_v2(
        "QuantileSketch small",
        &small,
        // envelope, state 0, zero count 1;
        // negative window: 1 bucket at key -35,851 (-2.5), zero runs: (0 zeros, 1 literal: 1);
        // positive window: 931 buckets from key 35,805 (1.0), zero runs: (0, 1: 1), (54, 1: 1) for
        // 3, (222, 1: 3) for 250, (651, 1: 1) for 10^8;
        // minimum -2.5, maximum 10^8, sum as f64
        "534b020b2397080400 00 01
         01 8b9802 01 000101
         a307 dd9702 01 000101 360101 de010103 8b050101
         00000000000004c0 0000000084d79741 000000be8fd79741",
    );
    // Two octaves of 8 buckets for -99 … 2,900: the negatives, zero and 1 … 49 collapse into the
    // bucket of 49.3 … 53.8 (key 1,028·8 + 5, zigzag 16,458 = ca8001).
    let mut collapsed = QuantileSketch::<8, 48, u16>::new();
    for v in -99..=2_900i32 {
        collapsed.insert(v);
    }
    assert!(collapsed.is_collapsed());
    golden_v2(
        "QuantileSketch collapsed",
        &collapsed,
        // envelope (SUB 8, BUCKETS 48, 2-byte counters), state 2 (collapsed), floor, zero count 0,
        // no negative window; 48 positive buckets from key 8,229, zero runs: (0 zeros, 48 literals):
        // 153 in the floor's bucket (99 negatives, zero, 1 … 53), … 4 in the last (2,897 … 2,900);
        // minimum -99, maximum 2,900, sum 4,201,500
        "534b020b0830020002 ca8001 00 00
         30 a540 01 0030
         9901 05050607060808090a0a0c0d0d101012131518191b1f2024272a2f32373d41484e545d656e79
         8301 8f01 9c01 a901 ba01 ca01 dc01 f101 04
         0000000000c058c0 0000000000a8a640 0000000007075041",
    );
}
