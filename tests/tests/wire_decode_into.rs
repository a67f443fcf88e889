//! The in-place decoder (`wire::decode_into`, `wire::take_into`, `Frame::decode_into`) against the
//! reference decoder (`wire::decode`, through postcard's serde layers): on the golden bytes, the
//! fuzz seeds, fresh encodings of every type at several fill levels, every truncation and single-bit
//! flip of those, and random bytes (alone and after a valid envelope), both must give the same result
//! for every sketch type — the same sketch, or the same error.
//!
//! After an error the target must hold what `decode_into` documents: unchanged after an error in
//! the envelope, empty with its own seed after an error in the body (or trailing bytes).

use proptest::prelude::*;
use sketch_nostd::countmin::Conservative;
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll14, Hll4};
use sketch_nostd::wire::{self, Frame, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32,
    SpaceSaving, TopK, WireError,
};

fn enc<T: Wire>(v: &T) -> Vec<u8> {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    wire::encode(v, &mut buf).unwrap().to_vec()
}

/// One type under test: a non-empty target with a seed no input uses, the same emptied, the seed the
/// type fixes (if any), and equality.
struct Case<T> {
    prior: T,
    empty: T,
    fixed_seed: Option<u64>,
    same: fn(&T, &T) -> bool,
}

/// Equality for types without `PartialEq` (the heavy-hitter summaries): their encoding is canonical.
fn same_bytes<T: Wire>(a: &T, b: &T) -> bool {
    enc(a) == enc(b)
}

impl<T: Wire + Clone> Case<T> {
    fn new(prior: T, clear: fn(&mut T), fixed_seed: Option<u64>) -> Self
    where
        T: PartialEq,
    {
        Self::with_eq(prior, clear, fixed_seed, T::eq)
    }

    fn with_eq(
        prior: T,
        clear: fn(&mut T),
        fixed_seed: Option<u64>,
        same: fn(&T, &T) -> bool,
    ) -> Self {
        let mut empty = prior.clone();
        clear(&mut empty);
        Self {
            prior,
            empty,
            fixed_seed,
            same,
        }
    }

    /// `true` if `bytes` start with a complete envelope this type accepts: an error is then in the
    /// body (or trailing bytes).
    fn body_reached(&self, bytes: &[u8]) -> bool {
        wire::peek(bytes).is_ok_and(|h| {
            h.kind == T::KIND
                && h.params().iter().eq(T::PARAMS.iter().map(|p| &p.1))
                && self.fixed_seed.is_none_or(|s| s == h.seed)
        })
    }

    /// Both decoders on `bytes`; returns whether they accepted it.
    fn check(&self, bytes: &[u8]) -> bool {
        let name = core::any::type_name::<T>();
        let reference = wire::decode::<T>(bytes);
        let mut target = self.prior.clone();
        let in_place = wire::decode_into(bytes, &mut target);
        let ok = match (&reference, &in_place) {
            (Ok(v), Ok(())) => {
                assert!((self.same)(v, &target), "{name}: differ on {bytes:02x?}");
                true
            }
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{name}: different errors on {bytes:02x?}");
                let (expected, what) = if self.body_reached(bytes) {
                    (&self.empty, "empty")
                } else {
                    (&self.prior, "unchanged")
                };
                assert!(
                    (self.same)(&target, expected),
                    "{name}: target not {what} after {a:?} on {bytes:02x?}"
                );
                false
            }
            _ => panic!(
                "{name}: {:?} by value, {in_place:?} in place, on {bytes:02x?}",
                reference.as_ref().err()
            ),
        };
        // `take_into` leaves the same bytes as `take`.
        let mut target = self.prior.clone();
        let rest = wire::take_into(bytes, &mut target);
        match wire::take::<T>(bytes) {
            Ok((v, r)) => {
                assert_eq!(rest, Ok(r), "{name}: take_into on {bytes:02x?}");
                assert!((self.same)(&v, &target), "{name}");
            }
            Err(e) => assert_eq!(rest, Err(e), "{name}: take_into on {bytes:02x?}"),
        }
        ok
    }
}

fn bloom<const W: usize, const K: u32>(seed: u64, n: u32) -> Bloom<W, K> {
    let mut f = Bloom::with_seed(seed);
    for k in 0..n {
        f.insert(&k);
    }
    f
}

fn hll<const P: u8, const B: usize>(seed: u64, n: u32) -> sketch_nostd::HyperLogLog<P, B> {
    let mut h = sketch_nostd::HyperLogLog::with_seed(seed);
    for k in 0..n {
        h.insert(&k);
    }
    h
}

fn count_min<const W: usize, const D: usize, C, U>(seed: u64, n: u32) -> CountMin<W, D, C, U>
where
    C: sketch_nostd::countmin::Counter,
    U: sketch_nostd::countmin::UpdatePolicy,
{
    let mut cm = CountMin::with_seed(seed);
    for k in 0..n {
        cm.add(&(k % 13), u64::from(k % 5));
    }
    cm
}

fn top_k(seed: u64, n: u32) -> TopK<u32, 4, 16, 2, u16> {
    let mut t = TopK::with_seed(seed);
    for k in 0..n {
        t.add(&(k % 11), u64::from(k % 4));
    }
    t
}

fn space_saving(n: u32) -> SpaceSaving<u32, 4> {
    let mut s = SpaceSaving::new();
    for k in 0..n {
        s.add(&(k % 11), u64::from(k % 4));
    }
    s
}

fn counting(seed: u64, n: u32) -> CountingBloom<4, 3> {
    let mut f = CountingBloom::with_seed(seed);
    for k in 0..n {
        f.insert(&(k % 20));
    }
    f
}

fn cuckoo<const B: usize, F: sketch_nostd::cuckoo::Fingerprint>(
    seed: u64,
    n: u32,
) -> CuckooFilter<B, F> {
    let mut f = CuckooFilter::with_seed(seed);
    for k in 0..n {
        let _ = f.insert(&k);
    }
    f
}

fn blocked(seed: u64, n: u32) -> BlockedBloom<2, 8> {
    let mut f = BlockedBloom::with_seed(seed);
    for k in 0..n {
        f.insert(&k);
    }
    f
}

/// A `u8`-constructible string key for the heavy-hitter cases.
type Str6 = HString<6>;

/// Every type the fuzz target decodes, with a prior whose seed (0xabc) no input uses.
struct Cases {
    bloom8: Case<Bloom<8, 3>>,
    bloom1: Case<Bloom<1, 1>>,
    bloom200: Case<Bloom<200, 7>>,
    bloom1563: Case<Bloom<1563, 7>>,
    micro: Case<MicroBloom<3>>,
    micro32: Case<MicroBloom32<2, 0xbeef>>,
    cm16: Case<CountMin<16, 3, u16>>,
    cm8: Case<CountMin<8, 2, u8, Conservative>>,
    cm64: Case<CountMin<4, 4, u64>>,
    blocked: Case<BlockedBloom<2, 8>>,
    top_u32: Case<TopK<u32, 4, 16, 2, u16>>,
    top_str: Case<TopK<Str6, 2, 8, 2, u8>>,
    ss_u32: Case<SpaceSaving<u32, 4>>,
    ss_str: Case<SpaceSaving<Str6, 2, u8>>,
    ss_char: Case<SpaceSaving<char, 3, u64>>,
    counting: Case<CountingBloom<4, 3>>,
    cuckoo8: Case<CuckooFilter<8, u8>>,
    cuckoo16: Case<CuckooFilter<2>>,
    hll4: Case<Hll4>,
    hll10: Case<Hll10>,
    hll14: Case<Hll14>,
}

fn str_key(k: u32) -> Str6 {
    let mut s = Str6::new();
    let _ = s.push_str(&format!("k{}", k % 11));
    s
}

impl Cases {
    fn new() -> Self {
        const S: u64 = 0xabc;
        let mut top_str = TopK::<Str6, 2, 8, 2, u8>::with_seed(S);
        let mut ss_str = SpaceSaving::<Str6, 2, u8>::new();
        let mut ss_char = SpaceSaving::<char, 3, u64>::new();
        for k in 0..30u32 {
            top_str.increment(&str_key(k));
            ss_str.increment(&str_key(k));
            ss_char.increment(&char::from(b'a' + (k % 7) as u8));
        }
        let mut hll14 = hll::<14, 12_288>(S, 20_000);
        hll14.merge(&hll(S, 10)).unwrap(); // dense, no martingale
        Self {
            bloom8: Case::new(bloom(S, 5), Bloom::clear, None),
            bloom1: Case::new(bloom(S, 1), Bloom::clear, None),
            bloom200: Case::new(bloom(S, 500), Bloom::clear, None),
            bloom1563: Case::new(bloom(S, 50), Bloom::clear, None),
            micro: Case::new(MicroBloom::from_parts(0x8001), MicroBloom::clear, Some(0)),
            micro32: Case::new(
                MicroBloom32::from_parts(0x8001),
                MicroBloom32::clear,
                Some(0xbeef),
            ),
            cm16: Case::new(count_min(S, 100), CountMin::clear, None),
            cm8: Case::new(count_min(S, 100), CountMin::clear, None),
            cm64: Case::new(count_min(S, 100), CountMin::clear, None),
            blocked: Case::new(blocked(S, 30), BlockedBloom::clear, None),
            top_u32: Case::with_eq(top_k(S, 50), TopK::clear, None, same_bytes),
            top_str: Case::with_eq(top_str, TopK::clear, None, same_bytes),
            ss_u32: Case::with_eq(space_saving(50), SpaceSaving::clear, None, same_bytes),
            ss_str: Case::with_eq(ss_str, SpaceSaving::clear, None, same_bytes),
            ss_char: Case::with_eq(ss_char, SpaceSaving::clear, None, same_bytes),
            counting: Case::new(counting(S, 30), CountingBloom::clear, None),
            cuckoo8: Case::new(cuckoo(S, 40), CuckooFilter::clear, None),
            cuckoo16: Case::new(cuckoo(S, 9), CuckooFilter::clear, None),
            hll4: Case::new(hll(S, 100), Hll4::clear, None),
            hll10: Case::new(hll(S, 30), Hll10::clear, None),
            hll14: Case::new(hll14, Hll14::clear, None),
        }
    }

    /// Both decoders as every type; returns how many types accepted the bytes.
    fn check(&self, bytes: &[u8]) -> usize {
        [
            self.bloom8.check(bytes),
            self.bloom1.check(bytes),
            self.bloom200.check(bytes),
            self.bloom1563.check(bytes),
            self.micro.check(bytes),
            self.micro32.check(bytes),
            self.cm16.check(bytes),
            self.cm8.check(bytes),
            self.cm64.check(bytes),
            self.blocked.check(bytes),
            self.top_u32.check(bytes),
            self.top_str.check(bytes),
            self.ss_u32.check(bytes),
            self.ss_str.check(bytes),
            self.ss_char.check(bytes),
            self.counting.check(bytes),
            self.cuckoo8.check(bytes),
            self.cuckoo16.check(bytes),
            self.hll4.check(bytes),
            self.hll10.check(bytes),
            self.hll14.check(bytes),
        ]
        .into_iter()
        .filter(|&ok| ok)
        .count()
    }
}

/// The hex literals of the golden test (sketches and a frame), as bytes.
fn golden_inputs() -> Vec<Vec<u8>> {
    let source = include_str!("wire_golden.rs");
    let mut out = Vec::new();
    for literal in source.split('"').skip(1).step_by(2) {
        let hex: String = literal.split_whitespace().collect();
        if hex.len() >= 16
            && hex.len().is_multiple_of(2)
            && hex.bytes().all(|b| b.is_ascii_hexdigit())
        {
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            out.push(bytes);
        }
    }
    out
}

/// The decode fuzz target's seeds (golden encodings and regressions).
fn fuzz_seeds() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/decode");
    std::fs::read_dir(&dir)
        .expect("fuzz/seeds/decode exists")
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect()
}

/// Fresh encodings of every type, empty, small and large (sparse, zero-run, dense, every HLL form),
/// with seeds other than the priors'.
fn fresh_inputs() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (seed, n) in [(0u64, 0u32), (7, 3), (300, 40), (u64::MAX, 3_000)] {
        out.push(enc(&bloom::<8, 3>(seed, n)));
        out.push(enc(&bloom::<200, 7>(seed, n)));
        out.push(enc(&count_min::<
            16,
            3,
            u16,
            sketch_nostd::countmin::Standard,
        >(seed, n)));
        out.push(enc(&count_min::<8, 2, u8, Conservative>(seed, n)));
        out.push(enc(
            &count_min::<4, 4, u64, sketch_nostd::countmin::Standard>(seed, n),
        ));
        out.push(enc(&blocked(seed, n)));
        out.push(enc(&top_k(seed, n)));
        out.push(enc(&space_saving(n)));
        out.push(enc(&counting(seed, n)));
        out.push(enc(&cuckoo::<8, u8>(seed, n.min(40))));
        out.push(enc(&cuckoo::<2, u16>(seed, n.min(9))));
        out.push(enc(&hll::<4, 12>(seed, n)));
        out.push(enc(&hll::<10, 768>(seed, n)));
        let mut dense = hll::<10, 768>(seed, n);
        dense.to_dense();
        out.push(enc(&dense));
        out.push(enc(&hll::<14, 12_288>(seed, n * 10)));
    }
    out.push(enc(&MicroBloom::<3>::from_parts(0x1234_5678)));
    out.push(enc(&MicroBloom32::<2, 0xbeef>::from_parts(0x1234)));
    out
}

fn all_inputs() -> Vec<Vec<u8>> {
    let mut inputs = golden_inputs();
    assert!(inputs.len() >= 30, "{} golden literals", inputs.len());
    inputs.extend(fuzz_seeds());
    inputs.extend(fresh_inputs());
    inputs
}

#[test]
fn both_decoders_agree_on_golden_and_fresh_encodings() {
    let cases = Cases::new();
    let mut accepted = 0;
    for input in all_inputs() {
        accepted += cases.check(&input);
    }
    // Most inputs are valid for exactly one type (the fuzz seeds' types overlap the list).
    assert!(accepted >= 90, "{accepted} accepted");
}

#[test]
fn both_decoders_agree_on_every_truncation_and_trailing_byte() {
    let cases = Cases::new();
    for input in all_inputs() {
        for n in 0..input.len() {
            assert_eq!(cases.check(&input[..n]), 0, "a truncation decoded");
        }
        let mut longer = input.clone();
        longer.push(0);
        cases.check(&longer);
    }
}

#[test]
fn both_decoders_agree_on_every_single_bit_flip() {
    let cases = Cases::new();
    for input in all_inputs() {
        // Every bit of short inputs; of long ones (dense sketches), the first and last 48 bytes.
        let n = input.len();
        for byte in (0..n).filter(|&i| n <= 400 || i < 48 || i >= n - 48) {
            for bit in 0..8 {
                let mut bad = input.clone();
                bad[byte] ^= 1 << bit;
                cases.check(&bad);
            }
        }
    }
}

#[test]
fn the_target_after_an_error_is_documented() {
    // A dense HLL: registers are decoded straight into the target, then checked.
    let mut h = hll::<10, 768>(9, 5_000);
    h.to_dense();
    let bytes = enc(&h);
    let mut target = hll::<10, 768>(0xabc, 100);
    let before = target.clone();
    // Envelope: unchanged.
    let mut wrong_p = bytes.clone();
    wrong_p[4] = 11;
    assert!(matches!(
        wire::decode_into(&wrong_p, &mut target),
        Err(WireError::WrongParameter { name: "P", .. })
    ));
    assert!(target == before);
    // Body: empty, with its own seed.
    assert_eq!(
        wire::decode_into(&bytes[..bytes.len() - 1], &mut target),
        Err(WireError::Truncated)
    );
    assert!(target.is_empty() && target.seed() == 0xabc && target.is_sparse());
    // Trailing bytes: the body decoded, then refused: empty too.
    let mut longer = bytes.clone();
    longer.push(1);
    let mut target = before.clone();
    assert_eq!(
        wire::decode_into(&longer, &mut target),
        Err(WireError::TrailingBytes)
    );
    assert!(target.is_empty() && target.seed() == 0xabc);
    // A register above the maximum rank, found after all of them were written.
    let mut packed = h.clone();
    packed.to_dense();
    let mut regs = *packed.dense_registers().unwrap();
    regs[767] |= 0xfc; // register 1023 (bits 2..8 of the last byte) = 63 > 55
    let bad = [&bytes[..6], &[1u8, 0][..], &regs[..]].concat();
    let mut target = before.clone();
    assert!(matches!(
        wire::decode_into(&bad, &mut target),
        Err(WireError::BadRegister { index: 1023, .. })
    ));
    assert_eq!(
        wire::decode::<Hll10>(&bad).err(),
        wire::decode_into(&bad, &mut before.clone()).err()
    );
    assert!(target.is_empty() && target.seed() == 0xabc);
    // Success: the envelope's seed replaces the target's.
    wire::decode_into(&bytes, &mut target).unwrap();
    assert!(target == h && target.seed() == 9);

    // A micro filter's fixed seed is part of the envelope: unchanged.
    let mut m = MicroBloom32::<2, 0xbeef>::from_parts(5);
    let other = enc(&MicroBloom32::<2, 0xbeee>::from_parts(1));
    assert!(matches!(
        wire::decode_into(&other, &mut m),
        Err(WireError::WrongParameter { name: "SEED", .. })
    ));
    assert_eq!(m.bits(), 5);
}

#[test]
fn frames_decode_in_place_as_by_value() {
    let mut sketch = hll::<10, 768>(3, 4_000);
    sketch.to_dense();
    let sent = Frame {
        device: 0x77,
        seq: 12,
        sketch,
    };
    let mut buf = vec![0u8; Frame::<Hll10>::MAX_ENCODED_LEN];
    let frame = sent.encode(&mut buf).unwrap().to_vec();
    let prior = Frame {
        device: 1,
        seq: 2,
        sketch: hll::<10, 768>(0xabc, 10),
    };
    for byte in 0..frame.len() {
        for bit in [0, 3, 7] {
            let mut bad = frame.clone();
            bad[byte] ^= 1 << bit;
            let reference = Frame::<Hll10>::decode(&mut bad.clone());
            let mut rx = prior.clone();
            let in_place = Frame::decode_into(&mut bad.clone(), &mut rx);
            assert_eq!(reference.as_ref().err(), in_place.as_ref().err());
            match reference {
                Ok(f) => assert_eq!(f, rx),
                Err(_) => assert!((rx.device, rx.seq) == (1, 2)),
            }
        }
    }
    let mut rx = prior.clone();
    Frame::decode_into(&mut frame.clone(), &mut rx).unwrap();
    assert_eq!(rx, sent);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1_000))]

    #[test]
    fn both_decoders_agree_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        thread_local!(static CASES: Cases = Cases::new());
        CASES.with(|c| c.check(&bytes));
    }

    #[test]
    fn both_decoders_agree_on_random_bodies(
        which in 0usize..64,
        cut in 0usize..64,
        tail in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        // A valid input's envelope and part of its body, then random bytes.
        thread_local!(static STATE: (Cases, Vec<Vec<u8>>) = (Cases::new(), fresh_inputs()));
        STATE.with(|(cases, inputs)| {
            let input = &inputs[which % inputs.len()];
            let keep = (12 + cut).min(input.len());
            cases.check(&[&input[..keep], &tail[..]].concat());
        });
    }
}
