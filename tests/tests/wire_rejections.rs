//! The wire format refuses bad bytes with the typed error each fault calls for (never a panic, never
//! a wrong sketch), and its header names the type. The round trips are in `wire_roundtrip.rs`.

use sketch_nostd::countmin::Standard;
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll4};
use sketch_nostd::wire::{self, SketchKind};
use sketch_nostd::{
    Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32, SpaceSaving, TopK,
    WireError,
};
use sketch_tests::wire::{encoded, pack};

#[test]
fn header_peek_names_the_type() {
    let bytes = encoded(&Bloom::<1563, 7>::with_seed(0xfeed));
    let h = wire::peek(&bytes).unwrap();
    assert_eq!(h.version, SketchKind::Bloom.format_version());
    assert_eq!(h.kind, SketchKind::Bloom);
    assert_eq!(h.params(), &[1563, 7]);
    assert_eq!(h.seed, 0xfeed);
    let bytes = encoded(&MicroBloom32::<4, 11>::new());
    let h = wire::peek(&bytes).unwrap();
    assert_eq!(
        (h.kind, h.params(), h.seed),
        (SketchKind::MicroBloom32, &[4][..], 11)
    );
}

#[test]
fn every_rejection_is_typed() {
    let bloom = encoded(&Bloom::<8, 3>::with_seed(7));
    // 53 4b | 02 | 01 | 08 03 | 07 | 02 00
    assert_eq!(bloom, [0x53, 0x4b, 2, 1, 8, 3, 7, 2, 0]);

    let with = |i: usize, b: u8| {
        let mut v = bloom.clone();
        v[i] = b;
        v
    };
    assert_eq!(
        wire::decode::<Bloom<8, 3>>(&with(0, b'X')),
        Err(WireError::BadMagic)
    );
    for version in [0, wire::FORMAT_VERSION + 1, 0xff] {
        assert_eq!(
            wire::decode::<Bloom<8, 3>>(&with(2, version)),
            Err(WireError::UnsupportedVersion { found: version })
        );
        assert_eq!(
            wire::peek(&with(2, version)),
            Err(WireError::UnsupportedVersion { found: version })
        );
    }
    // Version 1 still decodes (its Bloom body is the same).
    assert_eq!(
        wire::decode::<Bloom<8, 3>>(&with(2, 1)),
        Ok(Bloom::with_seed(7))
    );
    assert_eq!(wire::peek(&with(2, 1)).map(|h| h.version), Ok(1));
    assert_eq!(
        wire::decode::<MicroBloom<3>>(&bloom),
        Err(WireError::WrongKind {
            expected: SketchKind::MicroBloom,
            found: 1
        })
    );
    assert_eq!(
        wire::peek(&with(3, 200)),
        Err(WireError::UnknownKind { found: 200 })
    );
    assert_eq!(
        wire::decode::<Bloom<9, 3>>(&bloom),
        Err(WireError::WrongParameter {
            name: "WORDS",
            expected: 9,
            found: 8
        })
    );
    assert_eq!(
        wire::decode::<Bloom<8, 4>>(&bloom),
        Err(WireError::WrongParameter {
            name: "K",
            expected: 4,
            found: 3
        })
    );
    assert!(matches!(
        wire::decode::<Bloom<8, 3>>(&with(7, 3)),
        Err(WireError::BadEncoding { .. })
    ));
    for n in 0..bloom.len() {
        assert_eq!(
            wire::decode::<Bloom<8, 3>>(&bloom[..n]),
            Err(WireError::Truncated),
            "{n}"
        );
    }
    let mut long = bloom.clone();
    long.push(0);
    assert_eq!(
        wire::decode::<Bloom<8, 3>>(&long),
        Err(WireError::TrailingBytes)
    );

    // Sparse bodies: more bits than the filter has, a position past the end.
    let header = &bloom[..7];
    let body = |tag: u8, b: &[u8]| [header, &[tag], b].concat();
    let bad = |b: &[u8]| wire::decode::<Bloom<8, 3>>(&body(2, b));
    assert!(matches!(
        bad(&[0x81, 0x04]),
        Err(WireError::BadEncoding { .. })
    )); // 513 bits
    assert!(matches!(
        bad(&[1, 0x80, 0x04]),
        Err(WireError::BadEncoding { .. })
    )); // bit 512
    assert!(bad(&[1, 0xff, 0x03]).is_ok()); // bit 511
    assert!(matches!(
        bad(&[2, 0xff, 0x03, 0]),
        Err(WireError::BadEncoding { .. })
    )); // 511, 512
    let over_long_varint = [
        1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
    ];
    assert!(matches!(
        bad(&over_long_varint),
        Err(WireError::BadEncoding { .. })
    ));
    // Zero runs: an empty pair, runs past the end, a missing literal.
    let runs = |b: &[u8]| wire::decode::<Bloom<8, 3>>(&body(1, b));
    assert!(matches!(runs(&[0, 0]), Err(WireError::BadEncoding { .. })));
    assert!(matches!(runs(&[9, 0]), Err(WireError::BadEncoding { .. })));
    assert!(matches!(runs(&[7, 2]), Err(WireError::BadEncoding { .. })));
    assert_eq!(
        runs(&[7, 1, 1, 0, 0, 0, 0, 0, 0]),
        Err(WireError::Truncated)
    );
    assert_eq!(
        runs(&[7, 1, 1, 0, 0, 0, 0, 0, 0, 0]).map(|f| f.as_words()[7]),
        Ok(1)
    );
    let huge = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert!(matches!(
        runs(&[&huge[..], &huge[..]].concat()),
        Err(WireError::BadEncoding { .. })
    ));

    // A seed-typed micro filter refuses another seed.
    let micro = encoded(&MicroBloom::<3, 5>::new());
    assert_eq!(
        wire::decode::<MicroBloom<3, 6>>(&micro),
        Err(WireError::WrongParameter {
            name: "SEED",
            expected: 6,
            found: 5
        })
    );
    assert_eq!(
        wire::decode::<MicroBloom32<3, 5>>(&micro),
        Err(WireError::WrongKind {
            expected: SketchKind::MicroBloom32,
            found: 2
        })
    );

    // Errors say what happened.
    let msg = WireError::WrongParameter {
        name: "K",
        expected: 4,
        found: 3,
    }
    .to_string();
    assert_eq!(
        msg,
        "parameter K differs: this type has 4, the bytes have 3"
    );
}

#[test]
fn count_min_rejections_are_typed() {
    let mut cm = CountMin::<4, 2, u8>::with_seed(1);
    cm.add("x", 200);
    let bytes = encoded(&cm);
    // 53 4b 03 05 | W D bytes rule (1: conservative, the default) | seed | total (varint 200) | tag ...
    assert_eq!(&bytes[..10], [0x53, 0x4b, 3, 5, 4, 2, 1, 1, 1, 0xc8]);
    // Bytes of format versions 1 and 2 put keys in other columns: refused.
    for version in [1, 2] {
        let mut old = bytes.clone();
        old[2] = version;
        assert_eq!(
            wire::decode::<CountMin<4, 2, u8>>(&old),
            Err(WireError::UnsupportedVersion { found: version })
        );
    }
    assert_eq!(
        wire::decode::<CountMin<4, 2, u16>>(&bytes),
        Err(WireError::WrongParameter {
            name: "COUNTER_BYTES",
            expected: 2,
            found: 1
        })
    );
    assert_eq!(
        wire::decode::<CountMin<4, 2, u8, Standard>>(&bytes),
        Err(WireError::WrongParameter {
            name: "CONSERVATIVE",
            expected: 0,
            found: 1
        })
    );
    // A total below a row's sum: total 199 (c7 01) instead of 200 (c8 01).
    let mut low = bytes.clone();
    low[9] = 0xc7;
    assert!(matches!(
        wire::decode::<CountMin<4, 2, u8>>(&low),
        Err(WireError::Inconsistent { .. })
    ));
    // Zero runs with a counter above u8::MAX.
    let header = &bytes[..11];
    let body = [header, &[1, 0, 1, 0x80, 0x02, 7]].concat();
    assert_eq!(
        wire::decode::<CountMin<4, 2, u8>>(&body),
        Err(WireError::BadRegister {
            index: 0,
            value: 256
        })
    );
    let body = [header, &[1, 0, 1, 0xc8, 0x01, 7, 0]].concat();
    assert_eq!(
        wire::decode::<CountMin<4, 2, u8>>(&body).map(|c| c.cells()[0][0]),
        Ok(200)
    );
}

#[test]
fn hll_rejections_are_typed() {
    // Hll4 (P = 4, registers at most 61), seed 3, dense, not single stream, packed.
    let header = [0x53, 0x4b, 2, 4, 4, 3, 1, 0];
    let packed = |regs: &[u8]| [&header[..], &pack::<12>(regs)].concat();
    let mut regs = [1u8; 16];
    assert!(wire::decode::<Hll4>(&packed(&regs)).is_ok());
    regs[5] = 62;
    assert_eq!(
        wire::decode::<Hll4>(&packed(&regs)),
        Err(WireError::BadRegister {
            index: 5,
            value: 62
        })
    );
    assert_eq!(
        wire::decode::<Hll10>(&packed(&regs)),
        Err(WireError::WrongParameter {
            name: "P",
            expected: 10,
            found: 4
        })
    );
    // Unknown state bits and tags.
    let mut bad = packed(&[1; 16]);
    bad[6] = 0x81;
    assert!(matches!(
        wire::decode::<Hll4>(&bad),
        Err(WireError::BadEncoding { .. })
    ));
    bad[6] = 1;
    bad[7] = 9;
    assert!(matches!(
        wire::decode::<Hll4>(&bad),
        Err(WireError::BadEncoding { .. })
    ));
    // A single-stream sketch with a NaN martingale estimate.
    let nan = [
        &[0x53, 0x4b, 2, 4, 4, 3, 3][..],
        &f64::NAN.to_bits().to_le_bytes(),
        &[0],
        &[0; 12],
    ]
    .concat();
    assert!(matches!(
        wire::decode::<Hll4>(&nan),
        Err(WireError::Inconsistent { .. })
    ));
    // Sparse: raw coupons out of order, a rank of 0, more than the sparse form holds.
    let sparse_v = |version: u8, coupons: &[u32]| {
        let mut v = vec![0x53, 0x4b, version, 4, 10, 3, 0, 1, coupons.len() as u8];
        for c in coupons {
            v.extend_from_slice(&c.to_le_bytes());
        }
        v
    };
    let sparse = |coupons: &[u32]| sparse_v(2, coupons);
    assert!(wire::decode::<Hll10>(&sparse(&[1 << 6 | 1, 2 << 6 | 1])).is_ok());
    assert!(matches!(
        wire::decode::<Hll10>(&sparse(&[2 << 6 | 1, 1 << 6 | 1])),
        Err(WireError::Inconsistent { .. })
    ));
    assert!(matches!(
        wire::decode::<Hll10>(&sparse(&[1 << 6])),
        Err(WireError::BadRegister { index: 0, .. })
    ));
    let mut too_many = sparse(&[]);
    too_many[8] = 0x91; // 145 (varint 91 01): the sparse form of Hll10 holds 144
    too_many.push(0x01);
    assert!(matches!(
        wire::decode::<Hll10>(&too_many),
        Err(WireError::Inconsistent { .. })
    ));
    let mut short = sparse(&[1 << 6 | 1, 2 << 6 | 1]);
    short.pop();
    assert_eq!(wire::decode::<Hll10>(&short), Err(WireError::Truncated));
    // Version 2 at P = 10: 17 index bits and ranks up to 48.
    let widest = ((1 << 17) - 1) << 6 | 48;
    assert!(wire::decode::<Hll10>(&sparse(&[widest])).is_ok());
    for bad in [widest + 1, (1 << 17) << 6 | 1] {
        assert_eq!(
            wire::decode::<Hll10>(&sparse(&[bad])),
            Err(WireError::BadRegister {
                index: 0,
                value: u64::from(bad)
            })
        );
    }
    // Version 1: 26 index bits and ranks up to 39, whatever the precision, checked as a version-1
    // decoder did before the conversion.
    let v1 = |coupons: &[u32]| sparse_v(1, coupons);
    // The top index: 9 one bits dropped, the first is set: rank 1.
    let widest = ((1 << 26) - 1) << 6 | 39;
    assert_eq!(
        wire::decode::<Hll10>(&v1(&[widest])).map(|h| h.coupons().collect::<Vec<_>>()),
        Ok(vec![((1 << 17) - 1) << 6 | 1])
    );
    // 9 zero bits dropped: rank 9 + 39, the highest at P = 10.
    let top = ((1 << 17) - 1) << 9 << 6 | 39;
    assert_eq!(
        wire::decode::<Hll10>(&v1(&[top])).map(|h| h.coupons().collect::<Vec<_>>()),
        Ok(vec![((1 << 17) - 1) << 6 | 48])
    );
    assert_eq!(
        wire::decode::<Hll10>(&v1(&[5 << 6 | 40])),
        Err(WireError::BadRegister {
            index: 0,
            value: 5 << 6 | 40
        })
    );
    // Out of order or repeated at 26 bits, even where the 17-bit indexes agree.
    for coupons in [[2 << 6 | 1, 1 << 6 | 1], [1 << 6 | 1, 1 << 6 | 2]] {
        assert!(matches!(
            wire::decode::<Hll10>(&v1(&coupons)),
            Err(WireError::Inconsistent { .. })
        ));
    }
    // Coupons sharing their top 17 bits become one, with the highest rank: here indexes 1 and 2
    // (low 9 bits 000000001 and 000000010: ranks 9 and 8).
    assert_eq!(
        wire::decode::<Hll10>(&v1(&[1 << 6 | 1, 2 << 6 | 1]))
            .map(|h| h.coupons().collect::<Vec<_>>()),
        Ok(vec![9])
    );
    let mut short = v1(&[1 << 6 | 1, 2 << 6 | 1]);
    short.pop();
    assert_eq!(wire::decode::<Hll10>(&short), Err(WireError::Truncated));
}

#[test]
fn cuckoo_rejections_are_typed() {
    let mut f = CuckooFilter::<2, u8>::with_seed(1);
    f.insert("x").unwrap();
    let bytes = encoded(&f);
    // 53 4b 02 09 | BUCKETS 2, BITS 8 | seed 1 | victim 0 | tag ...
    assert_eq!(bytes[..8], [0x53, 0x4b, 2, 9, 2, 8, 1, 0]);
    assert!(matches!(
        wire::decode::<CuckooFilter<2>>(&bytes),
        Err(WireError::WrongParameter {
            name: "FINGERPRINT_BITS",
            ..
        })
    ));
    let body = |b: &[u8]| [&bytes[..7], b].concat();
    let bad = |b: &[u8]| wire::decode::<CuckooFilter<2, u8>>(&body(b));
    assert!(bad(&[0, 1, 1, 3, 9]).is_ok()); // slot 3 holds 9
    assert!(bad(&[2, 7, 1, 0]).is_ok()); // victim in bucket 1 (varint 2), fingerprint 7
    assert!(matches!(
        bad(&[2, 0, 1, 0]),
        Err(WireError::Inconsistent { .. })
    )); // empty victim
    assert!(matches!(
        bad(&[3, 7, 1, 0]),
        Err(WireError::Inconsistent { .. })
    )); // bucket 2 of 2
    assert!(matches!(
        bad(&[0, 1, 1, 8, 9]),
        Err(WireError::BadEncoding { .. })
    )); // slot 8 of 8
    assert!(matches!(
        bad(&[0, 1, 1, 3, 0]),
        Err(WireError::BadEncoding { .. })
    )); // empty listed
    assert!(matches!(
        bad(&[0, 1, 9]),
        Err(WireError::BadEncoding { .. })
    )); // 9 slots of 8
    assert!(matches!(bad(&[0, 2]), Err(WireError::BadEncoding { .. }))); // unknown tag
    assert_eq!(bad(&[0, 0, 1, 2, 3]), Err(WireError::Truncated));
}

#[test]
fn heavy_hitter_rejections_are_typed() {
    let mut ss = SpaceSaving::<u32, 2, u8>::new();
    ss.add(&7, 3);
    let bytes = encoded(&ss);
    // 53 4b 01 07 | K=2, bytes=1, KEY (5-byte varint) | seed 0 | total 3, overlong 0, 1 entry:
    // key 7, count 3, error 0.
    assert_eq!(bytes[11..], [0, 3, 0, 1, 7, 3, 0]);
    let with_tail = |tail: &[u8]| [&bytes[..12], tail].concat();
    assert!(wire::decode::<SpaceSaving<u32, 2, u8>>(&with_tail(&[3, 0, 1, 7, 3, 0])).is_ok());
    // Another key type, another counter width, a nonzero seed.
    let err = wire::decode::<SpaceSaving<u64, 2, u8>>(&bytes).unwrap_err();
    assert!(matches!(err, WireError::WrongParameter { name: "KEY", .. }));
    // Said as the key types, not their codes (a user test read "expected: 4294967304").
    assert_eq!(
        err.to_string(),
        "key type differs: this type has u64 (or usize) keys, the bytes have u32 keys"
    );
    let err = wire::decode::<SpaceSaving<HString<8>, 2, u8>>(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "key type differs: this type has heapless::String<8> keys, the bytes have u32 keys"
    );
    assert!(matches!(
        wire::decode::<SpaceSaving<u32, 2, u16>>(&bytes),
        Err(WireError::WrongParameter {
            name: "COUNTER_BYTES",
            ..
        })
    ));
    // Space-Saving has a seed (its index hash's), carried in the envelope like every sketch's.
    let mut seeded = bytes.clone();
    seeded[11] = 1;
    assert_eq!(
        wire::decode::<SpaceSaving<u32, 2, u8>>(&seeded).map(|s| s.seed()),
        Ok(1)
    );
    // An error above its count; a key twice; more entries than K; a count above u8.
    let bad = |tail: &[u8]| wire::decode::<SpaceSaving<u32, 2, u8>>(&with_tail(tail));
    assert!(matches!(
        bad(&[3, 0, 1, 7, 3, 4]),
        Err(WireError::Inconsistent { .. })
    ));
    assert!(matches!(
        bad(&[3, 0, 2, 7, 1, 0, 7, 2, 0]),
        Err(WireError::Inconsistent { .. })
    ));
    assert!(matches!(
        bad(&[3, 0, 3, 7, 1, 0, 8, 1, 0, 9, 1, 0]),
        Err(WireError::Inconsistent { .. })
    ));
    assert_eq!(
        bad(&[3, 0, 1, 7, 0x80, 0x02, 0]).err(),
        Some(WireError::BadRegister {
            index: 0,
            value: 256
        })
    );
    assert_eq!(bad(&[3, 0, 1, 7, 3]).err(), Some(WireError::Truncated));
    // A string key that is not UTF-8, or longer than its slot.
    let words = encoded(&SpaceSaving::<HString<3>, 2, u8>::new());
    let head = &words[..words.len() - 3];
    let text = |tail: &[u8]| wire::decode::<SpaceSaving<HString<3>, 2, u8>>(&[head, tail].concat());
    assert!(text(&[1, 0, 1, 2, b'o', b'k', 1, 0]).is_ok());
    assert!(matches!(
        text(&[1, 0, 1, 2, 0xff, 0xfe, 1, 0]),
        Err(WireError::BadEncoding { .. })
    ));
    assert!(matches!(
        text(&[1, 0, 1, 4, b'l', b'o', b'n', b'g', 1, 0]),
        Err(WireError::BadEncoding { .. })
    ));
    // A top-k count above the sketch's estimate of its key.
    let mut top = TopK::<u32, 2, 8, 2, u8>::new();
    top.add(&1, 5);
    let mut bytes = encoded(&top);
    let n = bytes.len();
    assert_eq!(bytes[n - 2..], [1, 5]); // key 1, count 5
    bytes[n - 1] = 6;
    assert!(matches!(
        wire::decode::<TopK<u32, 2, 8, 2, u8>>(&bytes),
        Err(WireError::Inconsistent { .. })
    ));
}

#[test]
fn counting_two_bit_rejections_are_typed() {
    // The two-bit body of CountingBloom<1, 1> (16 counters): 4 bytes of codes, then the nibbles.
    let header = &encoded(&CountingBloom::<1, 1>::with_seed(7))[..7];
    let two_bit = |b: &[u8]| wire::decode::<CountingBloom<1, 1>>(&[header, &[3], b].concat());
    // Counters 0 and 1 coded 3 (escaped), counter 2 coded 2: nibbles 12 and 0 give 15 and 3.
    assert_eq!(
        two_bit(&[0x2f, 0, 0, 0, 0x0c]).map(|f| f.as_words()[0]),
        Ok(0x23f)
    );
    assert_eq!(
        two_bit(&[0x2f, 0, 0, 0, 0x0d]),
        Err(WireError::BadRegister {
            index: 0,
            value: 16
        })
    );
    // One escaped counter: its nibble in the low half, and the padding nibble must be 0.
    assert_eq!(
        two_bit(&[0x03, 0, 0, 0, 0x05]).map(|f| f.as_words()[0]),
        Ok(8)
    );
    assert!(matches!(
        two_bit(&[0x03, 0, 0, 0, 0x15]),
        Err(WireError::BadEncoding { .. })
    ));
    assert_eq!(two_bit(&[0x03, 0, 0, 0]), Err(WireError::Truncated));
    assert_eq!(two_bit(&[0x03, 0, 0]), Err(WireError::Truncated));
    // No escapes: exactly the codes.
    assert_eq!(
        two_bit(&[0x26, 0, 0, 0x40]).map(|f| f.as_words()[0]),
        Ok(0x1000_0000_0000_0212)
    );
    // An unknown tag after the two-bit one.
    assert!(matches!(
        wire::decode::<CountingBloom<1, 1>>(&[header, &[4]].concat()),
        Err(WireError::BadEncoding { .. })
    ));
}
