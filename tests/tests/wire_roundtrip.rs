//! Round trips of the wire format: random sketch → bytes → sketch is the identity, and merging
//! after transport equals merging before. The typed rejections of bad bytes are in
//! `wire_rejections.rs`.

use proptest::prelude::*;
use sketch_nostd::countmin::Conservative;
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll12, Hll4};
use sketch_nostd::wire::{self, Frame, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32,
    SpaceSaving, TopK, WireError,
};
use sketch_rng::SplitMix64;
use sketch_tests::wire::{encoded, pack};

/// Words with a controllable density: each word is the AND of `and` random words (so bits are set
/// with probability 2^-and), or zero with probability `zero_pct`%.
fn words<const W: usize>() -> impl Strategy<Value = [u64; W]> {
    (0u32..=6, 0u32..=100, any::<u64>()).prop_map(|(and, zero_pct, seed)| {
        let mut rng = SplitMix64(seed);
        let mut next = move || rng.next_u64();
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
        let h = Hll10::from_parts(&pack::<768>(&regs), seed, hip).unwrap();
        round_trip(&h)?;
    }

    #[test]
    fn hll4_registers_round_trip(regs in hll_registers(16, 61), seed in any::<u64>()) {
        round_trip(&Hll4::from_parts(&pack::<12>(&regs), seed, Some(1.5)).unwrap())?;
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
        let f = CuckooFilter::<8>::from_parts(buckets, seed, victim).unwrap();
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
        round_trip(&MicroBloom::<4>::from_parts(bits))?;
        round_trip(&MicroBloom::<2, 99>::from_parts(bits))?;
        round_trip(&MicroBloom32::<3>::from_parts(small))?;
        round_trip(&MicroBloom32::<1, { u64::MAX }>::from_parts(small))?;
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
        let (a, b) = (MicroBloom::<3>::from_parts(a), MicroBloom::<3>::from_parts(b));
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
    let m = MicroBloom32::<2>::from_parts(0xdead_beef);
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
