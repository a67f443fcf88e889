//! Round trips of the wire format: random sketch → bytes → sketch is the identity, merging after
//! transport equals merging before, and every rejection is the typed error it should be.

use proptest::prelude::*;
use sketch_nostd::countmin::{Conservative, Standard};
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll12, Hll4};
use sketch_nostd::wire::{self, Frame, SketchKind, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32,
    SpaceSaving, TopK, WireError,
};

/// Words with a controllable density: each word is the AND of `and` random words (so bits are set
/// with probability 2^-and), or zero with probability `zero_pct`%.
fn words<const W: usize>() -> impl Strategy<Value = [u64; W]> {
    (0u32..=6, 0u32..=100, any::<u64>()).prop_map(|(and, zero_pct, seed)| {
        let mut rng = seed | 1;
        let mut next = move || {
            // xorshift64*: deterministic per case, enough to spread bits.
            rng ^= rng >> 12;
            rng ^= rng << 25;
            rng ^= rng >> 27;
            rng.wrapping_mul(0x2545_f491_4f6c_dd1d)
        };
        core::array::from_fn(|_| {
            if next() % 100 < u64::from(zero_pct) {
                0
            } else {
                (0..and).fold(u64::MAX, |w, _| w & next())
            }
        })
    })
}

/// Encodes with both entry points, checks the size promises, and decodes with both decoders.
fn round_trip<T: Wire + PartialEq + core::fmt::Debug>(sketch: &T) -> Result<(), TestCaseError> {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf).expect("MAX_ENCODED_LEN is enough");
    prop_assert!(bytes.len() <= T::MAX_ENCODED_LEN);
    prop_assert_eq!(bytes.len(), wire::encoded_len(sketch));
    prop_assert_eq!(&wire::decode::<T>(bytes).unwrap(), sketch);
    prop_assert_eq!(&postcard::from_bytes::<T>(bytes).unwrap(), sketch);
    // One byte short never decodes; one byte too many is trailing.
    prop_assert_eq!(
        wire::decode::<T>(&bytes[..bytes.len() - 1]),
        Err(WireError::Truncated)
    );
    let mut longer = bytes.to_vec();
    longer.push(0);
    prop_assert_eq!(wire::decode::<T>(&longer), Err(WireError::TrailingBytes));
    // A buffer one byte short of the encoding is refused, not overrun.
    let n = bytes.len();
    let mut short = vec![0u8; n - 1];
    prop_assert_eq!(
        wire::encode(sketch, &mut short).map(|b| b.len()),
        Err(WireError::BufferTooSmall)
    );
    Ok(())
}

/// For summaries without `PartialEq`: the encoding is canonical, so decoding and re-encoding must
/// give the same bytes. Returns them.
fn canonical_round_trip<T: Wire>(sketch: &T) -> Result<Vec<u8>, TestCaseError> {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(sketch, &mut buf)
        .expect("MAX_ENCODED_LEN is enough")
        .to_vec();
    prop_assert_eq!(bytes.len(), wire::encoded_len(sketch));
    let back = wire::decode::<T>(&bytes).unwrap();
    let mut again = vec![0u8; T::MAX_ENCODED_LEN];
    prop_assert_eq!(wire::encode(&back, &mut again).unwrap(), &bytes[..]);
    let _: T = postcard::from_bytes(&bytes).unwrap();
    prop_assert_eq!(
        wire::decode::<T>(&bytes[..bytes.len() - 1]).err(),
        Some(WireError::Truncated)
    );
    let mut longer = bytes.clone();
    longer.push(0);
    prop_assert_eq!(
        wire::decode::<T>(&longer).err(),
        Some(WireError::TrailingBytes)
    );
    Ok(bytes)
}

type Top = TopK<u32, 8, 32, 3, u16>;
type Words = TopK<HString<5>, 4, 16, 2, u8>;
type Ss = SpaceSaving<u32, 8>;
type SsWords = SpaceSaving<HString<5>, 4, u8>;

fn stream() -> impl Strategy<Value = Vec<(u32, u8)>> {
    proptest::collection::vec((0u32..60, 0u8..20), 0..400)
}

const WORDS: [&str; 8] = ["GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "a", ""];

type Cm = CountMin<32, 3, u16>;

/// A count-min sketch with random counters (zero with probability `zero_pct`%) and a total at least
/// every row's sum.
fn count_min() -> impl Strategy<Value = Cm> {
    (
        proptest::collection::vec(any::<u16>(), 96),
        0u32..=100,
        0u64..1_000,
        any::<u64>(),
        0u32..=16,
    )
        .prop_map(|(raw, zero_pct, extra, seed, shift)| {
            let mut cells = [[0u16; 32]; 3];
            for (i, c) in cells.iter_mut().flatten().enumerate() {
                let r = raw[i];
                *c = if u32::from(r % 100) < zero_pct {
                    0
                } else {
                    r >> shift.min(15)
                };
            }
            let max_row = cells
                .iter()
                .map(|row| row.iter().map(|&c| u64::from(c)).sum::<u64>())
                .max()
                .unwrap_or(0);
            Cm::from_parts(cells, seed, max_row + extra).unwrap()
        })
}

/// Packs 6-bit register values, least significant bit first.
fn pack<const BYTES: usize>(values: &[u8]) -> [u8; BYTES] {
    let mut out = [0u8; BYTES];
    for (i, &v) in values.iter().enumerate() {
        let (byte, shift) = (6 * i / 8, 6 * i % 8);
        let w = u16::from(v & 63) << shift;
        out[byte] |= w as u8;
        if let Some(b) = out.get_mut(byte + 1) {
            *b |= (w >> 8) as u8;
        }
    }
    out
}

/// Dense HLL registers: zero with probability `zero_pct`%, else near `center` (as a real sketch's
/// registers are) or anywhere in range.
fn hll_registers(n: usize, max: u8) -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(any::<u16>(), n),
        0u32..=100,
        0u8..20,
        any::<bool>(),
    )
        .prop_map(move |(raw, zero_pct, center, spread)| {
            raw.iter()
                .map(|&r| {
                    if u32::from(r % 100) < zero_pct {
                        0
                    } else if spread {
                        (r >> 7) as u8 % (max + 1)
                    } else {
                        (center + (r >> 7) as u8 % 4).min(max)
                    }
                })
                .collect()
        })
}

proptest! {
    #[test]
    fn hll_of_keys_round_trips(n in 0u32..4_000, seed in 0u64..4, merge_at in 0u32..4_000) {
        let (mut a, mut b) = (Hll10::with_seed(seed), Hll12::with_seed(seed));
        let mut other = Hll10::with_seed(seed);
        for i in 0..n {
            a.insert(&i);
            b.insert(&i);
            if i >= merge_at {
                other.insert(&(i ^ 0x5555));
            }
        }
        round_trip(&a)?;
        round_trip(&b)?;
        a.merge(&other).unwrap();
        round_trip(&a)?;
    }

    #[test]
    fn hll_dense_registers_round_trip(
        regs in hll_registers(1024, 55), hip in proptest::option::of(0.0f64..1e12), seed in any::<u64>(),
    ) {
        let h = Hll10::from_dense_registers(&pack::<768>(&regs), seed, hip).unwrap();
        round_trip(&h)?;
    }

    #[test]
    fn hll4_registers_round_trip(regs in hll_registers(16, 61), seed in any::<u64>()) {
        round_trip(&Hll4::from_dense_registers(&pack::<12>(&regs), seed, Some(1.5)).unwrap())?;
    }

    #[test]
    fn hll_coupons_round_trip(
        // Hll10: 17-bit coupon indexes (P + 7), ranks 1..=48.
        keys in proptest::collection::btree_map(0u32..1 << 17, 1u32..=48, 0..144),
        single in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let coupons = keys.iter().map(|(&k, &r)| k << 6 | r);
        let h = Hll10::from_coupons(coupons, seed, single).unwrap();
        round_trip(&h)?;
    }

    /// A version-1 sparse body (26-bit coupons, here raw) decodes to the sketch that hashes giving
    /// those coupons build now: the conversion to P + 7 bits is exact.
    #[test]
    fn hll_v1_coupons_decode_to_the_sketch_of_their_hashes(
        keys in proptest::collection::btree_map(0u32..1 << 26, 1u32..=39, 0..144),
        single in any::<bool>(),
    ) {
        let mut bytes = vec![0x53, 0x4b, 1, 4, 10, 3, if single { 2 } else { 0 }, 1];
        // The count as a varint (below 144: one or two bytes).
        if keys.len() < 128 {
            bytes.push(keys.len() as u8);
        } else {
            bytes.extend([keys.len() as u8 | 0x80, 1]);
        }
        let mut now = Hll10::with_seed(3);
        for (&k, &r) in &keys {
            bytes.extend_from_slice(&(k << 6 | r).to_le_bytes());
            // A hash whose v1 coupon is (k, r): k in the top 26 bits, then r − 1 zeros and a one
            // (none for rank 39).
            let low = if r < 39 { 1u64 << (38 - r) } else { 0 };
            now.insert_hash(u64::from(k) << 38 | low);
        }
        if !single {
            // A merged sketch: the same coupons, flagged as no longer a single stream.
            now = Hll10::from_coupons(now.coupons(), 3, false).unwrap();
        }
        prop_assert!(now.is_sparse());
        let back = wire::decode::<Hll10>(&bytes).unwrap();
        prop_assert!(back == now);
        prop_assert_eq!(wire::peek(&bytes).unwrap().version, 1);
        // Re-encoded, it is version 2.
        prop_assert!(wire::decode::<Hll10>(&encoded(&back)).unwrap() == now);
        prop_assert_eq!(encoded(&back)[2], 2);
    }

    #[test]
    fn hll_merge_after_transport_equals_merge_before(
        n in 0u32..3_000, m in 0u32..3_000, seed in 0u64..3,
    ) {
        let (mut a, mut b) = (Hll12::with_seed(seed), Hll12::with_seed(seed));
        for i in 0..n {
            a.insert(&i);
        }
        for i in 0..m {
            b.insert(&(i + n / 2));
        }
        let mut before = a.clone();
        before.merge(&b).unwrap();
        let mut buf = vec![0u8; Hll12::MAX_ENCODED_LEN];
        let mut after: Hll12 = wire::decode(wire::encode(&a, &mut buf).unwrap()).unwrap();
        after.merge(&wire::decode(wire::encode(&b, &mut buf).unwrap()).unwrap()).unwrap();
        prop_assert!(after == before);
        prop_assert_eq!(after.cardinality().to_bits(), before.cardinality().to_bits());
    }

    #[test]
    fn counting_bloom_round_trips(w in words::<12>(), seed in any::<u64>(), n in 0u32..300) {
        round_trip(&CountingBloom::<12, 3>::from_parts(w, seed))?;
        let mut c = CountingBloom::<12, 3>::with_seed(seed);
        for i in 0..n {
            c.insert(&(i % 50));
        }
        round_trip(&c)?;
    }

    #[test]
    fn cuckoo_round_trips(n in 0u32..80, removed in 0u32..80, seed in any::<u64>()) {
        let (mut a, mut b) = (CuckooFilter::<16, u8>::with_seed(seed), CuckooFilter::<8>::with_seed(seed));
        for i in 0..n {
            let _ = a.insert(&i);
            let _ = b.insert(&i);
        }
        for i in 0..removed {
            let _ = a.remove(&(i * 3));
        }
        round_trip(&a)?;
        round_trip(&b)?;
    }

    #[test]
    fn cuckoo_buckets_round_trip(raw in proptest::collection::vec(any::<u64>(), 8), victim in proptest::option::of((0usize..8, 1u16..)), seed in any::<u64>()) {
        let buckets: [u64; 8] = raw.try_into().unwrap();
        let f = CuckooFilter::<8>::from_parts(buckets, victim, seed).unwrap();
        round_trip(&f)?;
    }

    #[test]
    fn counting_merge_after_transport_equals_merge_before(a in words::<12>(), b in words::<12>()) {
        let (a, b) = (CountingBloom::<12, 3>::from_parts(a, 1), CountingBloom::<12, 3>::from_parts(b, 1));
        let mut before = a.clone();
        before.merge(&b).unwrap();
        let mut buf = [0u8; 256];
        let mut after: CountingBloom<12, 3> = wire::decode(wire::encode(&a, &mut buf).unwrap()).unwrap();
        after.merge(&wire::decode(wire::encode(&b, &mut buf).unwrap()).unwrap()).unwrap();
        prop_assert_eq!(after, before);
    }

    #[test]
    fn top_k_round_trips(events in stream(), seed in 0u64..4) {
        let (mut top, mut words) = (Top::with_seed(seed), Words::with_seed(seed));
        let (mut ss, mut ss_words) = (Ss::new(), SsWords::new());
        for &(k, c) in &events {
            top.add(&k, u64::from(c));
            ss.add(&k, u64::from(c));
            let w = WORDS[k as usize % WORDS.len()];
            words.add(w, u64::from(c));
            ss_words.add(w, u64::from(c));
        }
        canonical_round_trip(&top)?;
        canonical_round_trip(&words)?;
        canonical_round_trip(&ss)?;
        canonical_round_trip(&ss_words)?;
        let back: Top = wire::decode(&canonical_round_trip(&top)?).unwrap();
        prop_assert_eq!(back.sorted(), top.sorted());
        let back: Ss = wire::decode(&canonical_round_trip(&ss)?).unwrap();
        prop_assert_eq!(back.sorted(), ss.sorted());
    }

    #[test]
    fn heavy_hitters_merge_after_transport_equals_merge_before(a in stream(), b in stream()) {
        // Keys from a small range with small counts, so that ties at the cut-off are common: a merge
        // breaks them by key, never by heap layout, so the decoded copies (whose heaps were built in
        // the wire's order) merge to exactly the same summary, ties included.
        let (mut ta, mut tb, mut sa, mut sb) = (Top::new(), Top::new(), Ss::new(), Ss::new());
        for &(k, c) in &a {
            ta.add(&k, u64::from(c));
            sa.add(&k, u64::from(c));
        }
        for &(k, c) in &b {
            tb.add(&k, u64::from(c));
            sb.add(&k, u64::from(c));
        }
        let mut before = ta.clone();
        before.merge(&tb).unwrap();
        let mut after: Top = wire::decode(&canonical_round_trip(&ta)?).unwrap();
        after.merge(&wire::decode(&canonical_round_trip(&tb)?).unwrap()).unwrap();
        prop_assert!(after.sketch() == before.sketch());
        prop_assert_eq!(after.sorted(), before.sorted());
        prop_assert!(after == before);
        prop_assert_eq!(canonical_round_trip(&after)?, canonical_round_trip(&before)?);
        let mut before = sa.clone();
        before.merge(&sb).unwrap();
        let mut after: Ss = wire::decode(&canonical_round_trip(&sa)?).unwrap();
        after.merge(&wire::decode(&canonical_round_trip(&sb)?).unwrap()).unwrap();
        prop_assert_eq!(after.total(), before.total());
        prop_assert_eq!(after.sorted(), before.sorted());
        prop_assert!(after == before);
        prop_assert_eq!(canonical_round_trip(&after)?, canonical_round_trip(&before)?);
        // The summaries go on identically: the same key is evicted next.
        for k in 100u32..110 {
            before.increment(&k);
            after.increment(&k);
        }
        prop_assert_eq!(after.sorted(), before.sorted());
    }

    #[test]
    fn blocked_bloom_round_trips(a in words::<16>(), b in words::<16>(), seed in any::<u64>(), n in 0u32..400) {
        use sketch_nostd::blocked::Block;
        let blocks = |w: [u64; 16]| [Block(w[..8].try_into().unwrap()), Block(w[8..].try_into().unwrap())];
        let (a, b) = (BlockedBloom::<2, 8>::from_parts(blocks(a), seed), BlockedBloom::<2, 8>::from_parts(blocks(b), seed));
        round_trip(&a)?;
        let mut before = a.clone();
        before.merge(&b).unwrap();
        let mut buf = [0u8; 256];
        let mut after: BlockedBloom<2, 8> = wire::decode(wire::encode(&a, &mut buf).unwrap()).unwrap();
        after.merge(&wire::decode(wire::encode(&b, &mut buf).unwrap()).unwrap()).unwrap();
        prop_assert_eq!(after, before);
        let mut f = BlockedBloom::<4, 6>::with_seed(seed);
        for i in 0..n {
            f.insert(&i);
        }
        round_trip(&f)?;
    }

    #[test]
    fn count_min_round_trips(cm in count_min()) {
        round_trip(&cm)?;
    }

    #[test]
    fn count_min_of_keys_round_trips(n in 0u32..2_000, seed in 0u64..4) {
        let mut cm = CountMin::<64, 4, u8, Conservative>::with_seed(seed);
        for i in 0..n {
            cm.add(&(i % 97), u64::from(i % 5));
        }
        round_trip(&cm)?;
        let mut wide = CountMin::<16, 2, u64>::with_seed(seed);
        wide.add(&n, u64::MAX - u64::from(n));
        round_trip(&wide)?;
    }

    #[test]
    fn count_min_merge_after_transport_equals_merge_before(a in count_min(), b in count_min()) {
        let b = Cm::from_parts(*b.cells(), a.seed(), b.total()).unwrap();
        let mut before = a.clone();
        before.merge(&b).unwrap();
        let mut buf = vec![0u8; Cm::MAX_ENCODED_LEN];
        let mut after: Cm = wire::decode(wire::encode(&a, &mut buf).unwrap()).unwrap();
        after.merge(&wire::decode(wire::encode(&b, &mut buf).unwrap()).unwrap()).unwrap();
        prop_assert!(after == before);
    }

    #[test]
    fn bloom_round_trips(w in words::<24>(), seed in any::<u64>()) {
        round_trip(&Bloom::<24, 5>::from_parts(w, seed))?;
    }

    #[test]
    fn bloom_one_word_round_trips(w in words::<1>(), seed in any::<u64>()) {
        round_trip(&Bloom::<1, 1>::from_parts(w, seed))?;
    }

    #[test]
    fn bloom_of_keys_round_trips(n in 0usize..3_000, seed in 0u64..4) {
        let mut f = Bloom::<200, 7>::with_seed(seed);
        for i in 0..n {
            f.insert(&(i as u64));
        }
        round_trip(&f)?;
    }

    #[test]
    fn micro_round_trips(bits in any::<u64>(), small in any::<u32>()) {
        round_trip(&MicroBloom::<4>::from_bits(bits))?;
        round_trip(&MicroBloom::<2, 99>::from_bits(bits))?;
        round_trip(&MicroBloom32::<3>::from_bits(small))?;
        round_trip(&MicroBloom32::<1, { u64::MAX }>::from_bits(small))?;
    }

    #[test]
    fn merge_after_transport_equals_merge_before(
        a in words::<24>(), b in words::<24>(), seed in any::<u64>(),
    ) {
        let (a, b) = (Bloom::<24, 5>::from_parts(a, seed), Bloom::<24, 5>::from_parts(b, seed));
        let mut before = a.clone();
        before.merge(&b).unwrap();

        let (mut ba, mut bb) = ([0u8; 256], [0u8; 256]);
        let mut after: Bloom<24, 5> = wire::decode(wire::encode(&a, &mut ba).unwrap()).unwrap();
        after.merge(&wire::decode(wire::encode(&b, &mut bb).unwrap()).unwrap()).unwrap();
        prop_assert_eq!(after, before);
    }

    #[test]
    fn micro_merge_after_transport_equals_merge_before(a in any::<u64>(), b in any::<u64>()) {
        let (a, b) = (MicroBloom::<3>::from_bits(a), MicroBloom::<3>::from_bits(b));
        let mut before = a;
        before.merge(&b).unwrap();
        let mut buf = [0u8; 32];
        let mut after: MicroBloom<3> = wire::decode(wire::encode(&a, &mut buf).unwrap()).unwrap();
        after.merge(&wire::decode(wire::encode(&b, &mut buf).unwrap()).unwrap()).unwrap();
        prop_assert_eq!(after, before);
    }

    #[test]
    fn frames_round_trip(w in words::<24>(), seed in any::<u64>(), device in any::<u64>(), seq in any::<u32>()) {
        let frame = Frame { device, seq, sketch: Bloom::<24, 5>::from_parts(w, seed) };
        let mut buf = [0u8; Frame::<Bloom<24, 5>>::MAX_ENCODED_LEN];
        let bytes = frame.encode(&mut buf).unwrap();
        prop_assert_eq!(bytes.last(), Some(&0));
        prop_assert!(!bytes[..bytes.len() - 1].contains(&0));
        prop_assert_eq!(&Frame::decode(&mut bytes.to_vec()).unwrap(), &frame);
        // Without its delimiter too.
        let n = bytes.len();
        prop_assert_eq!(Frame::decode(&mut bytes[..n - 1]).unwrap(), frame);
    }
}

#[test]
fn a_self_describing_format_round_trips_too() {
    // The serde impls are not postcard-specific: JSON sees an array of bytes and integers.
    let mut f = Bloom::<16, 4>::with_seed(3);
    for i in 0..20u32 {
        f.insert(&i);
    }
    let json = serde_json::to_string(&f).unwrap();
    assert!(json.starts_with("[83,75,2,1,16,4,3,"), "{json}");
    assert_eq!(serde_json::from_str::<Bloom<16, 4>>(&json).unwrap(), f);
    let m = MicroBloom32::<2>::from_bits(0xdead_beef);
    let json = serde_json::to_string(&m).unwrap();
    assert_eq!(serde_json::from_str::<MicroBloom32<2>>(&json).unwrap(), m);
    // Validation errors surface as the format's error (typed ones come from `wire::decode`).
    assert!(serde_json::from_str::<Bloom<16, 5>>(&serde_json::to_string(&f).unwrap()).is_err());
    let err = serde_json::from_str::<Bloom<16, 5>>("[83,75,2,1,16,4]")
        .unwrap_err()
        .to_string();
    assert!(err.contains("parameter K differs"), "{err}");
    // Trailing elements are the format's business: JSON refuses them.
    assert!(serde_json::from_str::<MicroBloom32<2>>("[83,75,2,3,2,0,239,190,173,222,9]").is_err());
    // Version 1 reads through serde too.
    assert_eq!(
        serde_json::from_str::<MicroBloom32<2>>("[83,75,1,3,2,0,239,190,173,222]").unwrap(),
        m
    );
}

fn encoded<T: Wire>(sketch: &T) -> Vec<u8> {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let n = wire::encode(sketch, &mut buf).unwrap().len();
    buf.truncate(n);
    buf
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
    assert!(matches!(
        wire::decode::<SpaceSaving<u64, 2, u8>>(&bytes),
        Err(WireError::WrongParameter { name: "KEY", .. })
    ));
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

proptest! {
    #[test]
    fn counting_at_and_past_its_design_load_round_trips(
        n in 0u32..3_000, removed in 0u32..3_000, seed in 0u64..4,
    ) {
        // CountingBloom<200, 7> holds ~330 keys at 1%: every body gets picked somewhere in 0..3,000
        // (sparse, two-bit around the design load, dense when counters grow).
        let mut f = CountingBloom::<200, 7>::with_seed(seed);
        for i in 0..n {
            f.insert(&i);
        }
        for i in 0..removed.min(n) {
            f.remove(&i).unwrap();
        }
        round_trip(&f)?;
    }

    #[test]
    fn a_decoded_cuckoo_filter_behaves_as_the_original(
        n in 0u32..420, removed in 0u32..420, seed in 0u64..4,
    ) {
        // Up to and past full (400 slots), so victims and failed inserts happen: the decoded filter
        // must make exactly the same decisions afterwards (the kick sequence has no hidden state).
        let mut f = CuckooFilter::<100>::with_seed(seed);
        let inserted: Vec<u32> = (0..n).filter(|k| f.insert(k).is_ok()).collect();
        for k in inserted.iter().take(removed as usize) {
            prop_assert!(f.remove(k).is_ok());
        }
        round_trip(&f)?;
        let mut buf = [0u8; CuckooFilter::<100>::MAX_ENCODED_LEN];
        let mut g: CuckooFilter<100> = wire::decode(wire::encode(&f, &mut buf).unwrap()).unwrap();
        for k in 1_000..1_060u32 {
            prop_assert_eq!(f.insert(&k), g.insert(&k));
        }
        for k in 1_000..1_030u32 {
            prop_assert_eq!(f.remove(&k), g.remove(&k));
        }
        prop_assert_eq!(f, g);
    }
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
