//! The checks behind the fuzz targets: every decoder on arbitrary bytes must return (never panic),
//! and whatever decodes must re-encode within its size bound and decode to the same value.

use sketch_nostd::countmin::Conservative;
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll14, Hll4, HyperLogLog};
use sketch_nostd::wire::{self, Frame, FrameDecoder, RawFrame, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32,
    QuantileSketch, SpaceSaving, TopK,
};

/// The in-place decoder on `data`, into an empty `T` (seed 0): the same result as `decode` (compared
/// with `same`), and the target a valid sketch afterwards, empty after an error.
fn in_place<T: Wire + Default>(data: &[u8], same: impl Fn(&T, &T) -> bool) {
    let mut target = T::default();
    let result = wire::decode_into(data, &mut target);
    match (wire::decode::<T>(data), result) {
        (Ok(v), Ok(())) => assert!(same(&v, &target), "decode_into gave another sketch"),
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "decode_into gave another error");
            assert!(same(&target, &T::default()), "not empty after an error");
        }
        (a, b) => panic!("decode: {:?}, decode_into: {b:?}", a.err()),
    }
    let mut target = T::default();
    let rest = wire::take_into(data, &mut target);
    assert_eq!(rest, wire::take::<T>(data).map(|(_, r)| r));
}

/// Equality of summaries without `PartialEq`: their encoding is canonical.
fn same_bytes<T: Wire>(a: &T, b: &T) -> bool {
    let (mut x, mut y) = (vec![0u8; T::MAX_ENCODED_LEN], vec![0u8; T::MAX_ENCODED_LEN]);
    wire::encode(a, &mut x).ok() == wire::encode(b, &mut y).ok()
}

/// Decodes `data` as a `T` with the typed decoder, in place, and through postcard's serde path; all
/// must agree, and a decoded value must survive a round trip.
fn decoder<T: Wire + PartialEq + Default + core::fmt::Debug>(data: &[u8]) {
    in_place::<T>(data, T::eq);
    let typed = wire::take::<T>(data);
    let serde = postcard::take_from_bytes::<T>(data);
    match (&typed, &serde) {
        (Ok((a, rest_a)), Ok((b, rest_b))) => {
            assert_eq!(a, b);
            assert_eq!(rest_a, rest_b);
            round_trip(a);
        }
        (Err(_), Err(_)) => {}
        _ => panic!(
            "typed and serde decoders disagree: {typed:?} vs {}",
            serde.is_ok()
        ),
    }
    if let Ok(v) = wire::decode::<T>(data) {
        round_trip(&v);
    }
}

/// [`decoder`] for summaries without `PartialEq`: their encoding is canonical, so whatever decodes
/// must re-encode to bytes that decode and re-encode to themselves.
fn canonical_decoder<T: Wire + Default>(data: &[u8]) {
    in_place::<T>(data, same_bytes);
    let typed = wire::take::<T>(data);
    let serde = postcard::take_from_bytes::<T>(data);
    assert_eq!(
        typed.is_ok(),
        serde.is_ok(),
        "typed and serde decoders disagree"
    );
    if let Ok((v, _)) = typed {
        canonical_round_trip(&v);
    }
}

/// Encodes `v`, decodes it, and checks that re-encoding gives the same bytes.
pub fn canonical_round_trip<T: Wire>(v: &T) {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(v, &mut buf)
        .expect("MAX_ENCODED_LEN is always enough")
        .to_vec();
    assert_eq!(bytes.len(), wire::encoded_len(v));
    let back = wire::decode::<T>(&bytes).expect("own encoding decodes");
    let mut again = vec![0u8; T::MAX_ENCODED_LEN];
    assert_eq!(wire::encode(&back, &mut again).unwrap(), &bytes[..]);
}

/// Encodes `v`, checks the size promises, and decodes it back.
pub fn round_trip<T: Wire + PartialEq + core::fmt::Debug>(v: &T) {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let bytes = wire::encode(v, &mut buf).expect("MAX_ENCODED_LEN is always enough");
    assert_eq!(bytes.len(), wire::encoded_len(v));
    assert_eq!(&wire::decode::<T>(bytes).expect("own encoding decodes"), v);
}

/// A HyperLogLog's estimates, for any content a decoder accepts (the integer arithmetic of
/// `hll/num.rs` runs with overflow checks here): finite, in [0, 2^64], ordered as bands are.
pub fn estimates<const P: u8, const B: usize>(h: &HyperLogLog<P, B>) {
    const MAX: f64 = 18_446_744_073_709_551_616.0; // 2^64
    let e = h.cardinality();
    let rse = h.relative_standard_error();
    assert!((0.0..=MAX).contains(&e), "estimate {e}");
    assert!(rse.is_finite() && rse > 0.0, "rse {rse}");
    let h_est = h.histogram_estimate();
    assert!((0.0..=MAX).contains(&h_est), "histogram {h_est}");
    for sigmas in [1, 3] {
        let (lo, hi) = (h.lower_bound(sigmas), h.upper_bound(sigmas));
        assert!(lo <= e && e <= hi, "{lo} <= {e} <= {hi}");
        assert!(lo >= 0.0 && hi <= MAX, "{lo} {hi}");
    }
}

/// Builds words from the input, cycling it.
fn words<const W: usize>(data: &[u8]) -> [u64; W] {
    core::array::from_fn(|i| {
        let mut b = [0u8; 8];
        for (j, x) in b.iter_mut().enumerate() {
            *x = data
                .get((i * 8 + j) % data.len().max(1))
                .copied()
                .unwrap_or(0);
        }
        u64::from_le_bytes(b)
    })
}

/// The `decode` target: every sketch decoder on `data`, and sketches built from `data` round-tripped.
pub fn decode(data: &[u8]) {
    let _ = wire::peek(data);
    decoder::<Bloom<8, 3>>(data);
    decoder::<Bloom<1, 1>>(data);
    decoder::<Bloom<200, 7>>(data);
    decoder::<Bloom<1563, 7>>(data);
    decoder::<MicroBloom<3>>(data);
    decoder::<MicroBloom32<2, 0xbeef>>(data);
    decoder::<CountMin<16, 3, u16>>(data);
    decoder::<CountMin<8, 2, u8, Conservative>>(data);
    decoder::<CountMin<4, 4, u64>>(data);
    decoder::<BlockedBloom<2, 8>>(data);
    canonical_decoder::<TopK<u32, 4, 16, 2, u16>>(data);
    canonical_decoder::<TopK<HString<6>, 2, 8, 2, u8>>(data);
    canonical_decoder::<SpaceSaving<u32, 4>>(data);
    canonical_decoder::<SpaceSaving<HString<6>, 2, u8>>(data);
    canonical_decoder::<SpaceSaving<char, 3, u64>>(data);
    decoder::<CountingBloom<4, 3>>(data);
    decoder::<CuckooFilter<8, u8>>(data);
    decoder::<CuckooFilter<2>>(data);
    decoder::<Hll4>(data);
    decoder::<Hll10>(data);
    decoder::<Hll14>(data);
    if let Ok(h) = wire::decode::<Hll4>(data) {
        estimates(&h);
    }
    if let Ok(h) = wire::decode::<Hll10>(data) {
        estimates(&h);
    }
    if let Ok(h) = wire::decode::<Hll14>(data) {
        estimates(&h);
    }

    // Encoders: sketches whose content comes from the input (sparse inputs give sparse filters).
    let seed = data
        .first()
        .map_or(0, |&b| u64::from(b) << 56 | u64::from(b));
    round_trip(&Bloom::<8, 3>::from_parts(words(data), seed));
    let mut sparse = words::<200>(data);
    for (i, w) in sparse.iter_mut().enumerate() {
        if data.get(i % data.len().max(1)).is_some_and(|b| b & 3 != 0) {
            *w = 0;
        }
    }
    round_trip(&Bloom::<200, 7>::from_parts(sparse, seed));
    round_trip(&MicroBloom::<3>::from_parts(words::<1>(data)[0]));
    let cells = words::<12>(data);
    let mut cm = [[0u16; 16]; 3];
    for (i, c) in cm.iter_mut().flatten().enumerate() {
        let w = cells[i / 4] >> (16 * (i % 4));
        *c = if w & 0x8000 != 0 {
            0
        } else {
            w as u16 & 0x0fff
        };
    }
    if let Ok(cm) = CountMin::<16, 3, u16>::from_parts(cm, seed, u64::MAX) {
        round_trip(&cm);
    }
    round_trip(&CountingBloom::<8, 3>::from_parts(words(data), seed));
    let w = words::<16>(data);
    let block = |i: usize| sketch_nostd::blocked::Block(core::array::from_fn(|j| w[8 * i + j]));
    round_trip(&BlockedBloom::<2, 8>::from_parts(
        [block(0), block(1)],
        seed,
    ));
    let mut cuckoo = CuckooFilter::<4, u8>::with_seed(seed);
    // At most 14 inserts into 16 slots: a full filter spends 500 kicks on every failed insert.
    for chunk in data.chunks(3).take(14) {
        if chunk.first().is_some_and(|b| b & 1 == 0) {
            let _ = cuckoo.remove(chunk);
        } else {
            let _ = cuckoo.insert(chunk);
        }
    }
    round_trip(&cuckoo);
    // Heavy hitters fed the input as a stream of (key, count) pairs.
    let mut top = TopK::<u32, 4, 16, 2, u16>::with_seed(seed);
    let mut ss = SpaceSaving::<u32, 4>::new();
    for pair in data.chunks(2) {
        let key = u32::from(pair[0] % 16);
        let count = u64::from(pair.get(1).copied().unwrap_or(1));
        top.add(&key, count);
        ss.add(&key, count);
    }
    canonical_round_trip(&top);
    canonical_round_trip(&ss);
    // HLL: keys from the input (sparse, then dense), and registers straight from it.
    let mut h = Hll10::with_seed(seed);
    for chunk in data.chunks(2) {
        h.insert(chunk);
        if h.coupon_count() % 7 == 3 {
            round_trip(&h);
        }
    }
    round_trip(&h);
    estimates(&h);
    h.to_dense();
    round_trip(&h);
    estimates(&h);
    let mut regs = [0u8; 12];
    for (i, r) in regs.iter_mut().enumerate() {
        *r = data.get(i).copied().unwrap_or(0);
    }
    if let Ok(h) = Hll4::from_parts(&regs, seed, None) {
        round_trip(&h);
        estimates(&h);
    }
}

/// Checks one frame's sketch as every type a host might try.
fn sketch_of(raw: &RawFrame<'_>) {
    let _ = raw.header();
    let mut h = Hll10::default();
    assert_eq!(
        raw.decode_sketch_into(&mut h).err(),
        raw.decode_sketch::<Hll10>().err()
    );
    estimates(&h);
    if let Ok(f) = raw.to_frame::<Bloom<8, 3>>() {
        frame_round_trip(&f);
    }
    if let Ok(f) = raw.to_frame::<MicroBloom<3>>() {
        frame_round_trip(&f);
    }
    if let Ok(f) = raw.to_frame::<MicroBloom32<2, 0xbeef>>() {
        frame_round_trip(&f);
    }
    if let Ok(f) = raw.to_frame::<CountMin<16, 3, u16>>() {
        frame_round_trip(&f);
    }
    if let Ok(f) = raw.to_frame::<Hll10>() {
        frame_round_trip(&f);
    }
    if let Ok(f) = raw.to_frame::<CuckooFilter<8, u8>>() {
        frame_round_trip(&f);
    }
}

/// Encodes a frame and decodes it back, as a datagram and through the stream decoder.
pub fn frame_round_trip<T: Wire + PartialEq + core::fmt::Debug + Clone>(f: &Frame<T>) {
    let mut buf = vec![0u8; Frame::<T>::MAX_ENCODED_LEN];
    let bytes = f
        .encode(&mut buf)
        .expect("MAX_ENCODED_LEN is always enough")
        .to_vec();
    assert_eq!(bytes.last(), Some(&0));
    assert!(!bytes[..bytes.len() - 1].contains(&0));
    assert_eq!(
        &Frame::<T>::decode(&mut bytes.clone()).expect("own frame decodes"),
        f
    );
}

/// `payload` with a valid CRC-32, COBS-encoded and delimited: a frame whose contents are arbitrary.
fn valid_frame(payload: &[u8]) -> Vec<u8> {
    let crc = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC).checksum(payload);
    let mut raw = payload.to_vec();
    raw.extend_from_slice(&crc.to_le_bytes());
    let mut out = cobs::encode_vec(&raw);
    out.push(0);
    out
}

/// The `frames` target: the stream decoder fed byte by byte (a small buffer, so over-long frames
/// happen too), the whole input as one datagram, and the input as the payload of a frame with a
/// valid checksum (so the device id, sequence number and sketch decoders behind the CRC are reached).
pub fn frames(data: &[u8]) {
    let framed = valid_frame(data);
    let mut rx = FrameDecoder::<{ Frame::<Bloom<8, 3>>::MAX_ENCODED_LEN }>::new();
    let mut seen = 0;
    rx.feed(&framed, |r| {
        seen += 1;
        if let Ok(raw) = r {
            sketch_of(&raw);
        }
    });
    assert!(seen <= 1, "one frame in, at most one result out");
    let mut copy = framed.clone();
    if let Ok(raw) = RawFrame::decode(&mut copy) {
        sketch_of(&raw);
    }

    let mut rx = FrameDecoder::<64>::new();
    rx.feed(data, |r| {
        if let Ok(raw) = r {
            sketch_of(&raw);
        }
    });
    let mut big = FrameDecoder::<{ Frame::<Bloom<8, 3>>::MAX_ENCODED_LEN }>::new();
    big.feed(data, |r| {
        if let Ok(raw) = r {
            sketch_of(&raw);
        }
    });
    let mut copy = data.to_vec();
    if let Ok(raw) = RawFrame::decode(&mut copy) {
        sketch_of(&raw);
    }
}

/// Redis HyperLogLog strings: [`RedisHll::decode`] on arbitrary bytes returns (never panics); the
/// in-place decoder agrees with it and leaves its target empty after an error; whatever decodes
/// re-encodes (dense, sparse when possible, and the smaller of the two) to strings that decode to
/// the same registers, and its header's cached cardinality reads back.
pub fn redis(data: &[u8]) {
    use sketch_nostd::redis::{RedisHll, DENSE_LEN};

    let decoded = RedisHll::decode(data);
    let mut into = RedisHll::new();
    into.insert("not empty");
    let in_place = into.decode_into(data);
    assert_eq!(decoded.as_ref().err(), in_place.err().as_ref());
    let Ok(h) = decoded else {
        assert!(into.is_empty(), "not empty after an error");
        return;
    };
    assert!(into == h, "decode_into gave other registers");
    assert!(RedisHll::cached_cardinality(data).is_ok());
    let mut buf = [0u8; DENSE_LEN];
    let dense = h.encode_dense(&mut buf).to_vec();
    assert_eq!(RedisHll::decode(&dense).as_ref(), Ok(&h));
    let smallest = h.encode(&mut buf).to_vec();
    assert_eq!(RedisHll::decode(&smallest).as_ref(), Ok(&h));
    let mut sparse_buf = vec![0u8; 2 * DENSE_LEN];
    match h.encode_sparse(&mut sparse_buf) {
        Ok(s) => {
            assert_eq!(Some(s.len()), h.sparse_len());
            assert_eq!(RedisHll::decode(s).as_ref(), Ok(&h));
        }
        Err(_) => assert_eq!(h.sparse_len(), None),
    }
}

/// A quantile sketch's queries, for any content a decoder or a merge gives: quantiles within the
/// extremes and non-decreasing in `q`, ranks non-decreasing and at most the count.
pub fn quantile_queries<const S: usize, const B: usize, C: sketch_nostd::quantile::Counter>(
    q: &QuantileSketch<S, B, C>,
) {
    let mut last = f64::NEG_INFINITY;
    for i in 0..=20 {
        match q.quantile(f64::from(i) / 20.0) {
            Some(v) => {
                let (lo, hi) = (q.min().unwrap(), q.max().unwrap());
                assert!(lo <= v && v <= hi, "{v} outside [{lo}, {hi}]");
                assert!(v >= last, "quantiles decrease: {last} then {v}");
                last = v;
            }
            None => assert!(q.is_empty()),
        }
    }
    let mut below = 0;
    for x in [
        f64::NEG_INFINITY,
        -1e6,
        -1.0,
        0.0,
        1.0,
        1e3,
        1e9,
        f64::INFINITY,
    ] {
        let r = q.rank(x);
        assert!(r >= below && r <= q.count(), "rank({x}) = {r}");
        below = r;
    }
    let _ = (q.sum(), q.collapsed_below(), q.is_saturated());
}

/// Values from the input, 4 bytes each: small integers of both signs, floats from the bits (NaN,
/// infinities and subnormals included) and zero.
fn quantile_values(data: &[u8]) -> impl Iterator<Item = f64> + '_ {
    data.chunks(4).map(|c| {
        let mut b = [0u8; 4];
        b[..c.len()].copy_from_slice(c);
        let w = u32::from_le_bytes(b);
        match w & 3 {
            0 => f64::from(w as i32 >> 2),
            1 => f64::from(f32::from_bits(w)),
            2 => f64::from_bits(u64::from(w) << 32 | u64::from(w)),
            _ => 0.0,
        }
    })
}

/// [`decoder`] for one quantile sketch type, then its queries, and a merge with a sketch built from
/// the input (which must round-trip too).
fn quantile_decoder<const S: usize, const B: usize, C>(data: &[u8])
where
    C: sketch_nostd::quantile::Counter,
    QuantileSketch<S, B, C>: Wire,
{
    decoder::<QuantileSketch<S, B, C>>(data);
    let mut built = QuantileSketch::<S, B, C>::new();
    for v in quantile_values(data) {
        built.insert(v);
    }
    round_trip(&built);
    quantile_queries(&built);
    if let Ok(mut d) = wire::decode::<QuantileSketch<S, B, C>>(data) {
        quantile_queries(&d);
        let count = d.count();
        d.merge(&built).expect("same parameters merge");
        // Less when a collapse moves counts into a full counter (saturated), never more.
        assert!(d.count() <= count + built.count());
        round_trip(&d);
        quantile_queries(&d);
    }
}

/// The `quantile` target: [`QuantileSketch`] decoders of several shapes (the benchmark's α = 1% with
/// `u32` counters, a narrow `u16` one that collapses, one bucket per octave with `u64` counters).
pub fn quantile(data: &[u8]) {
    let _ = wire::peek(data);
    quantile_decoder::<35, 1_047, u32>(data);
    quantile_decoder::<35, 70, u16>(data);
    quantile_decoder::<8, 48, u16>(data);
    quantile_decoder::<1, 4, u64>(data);
}
