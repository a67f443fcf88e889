//! Corruption: every single-bit flip and every truncation of a sample frame is rejected, a stream
//! decoder resynchronises at the next delimiter, and no byte string makes any decoder panic.

use proptest::prelude::*;
use sketch_nostd::countmin::Conservative;
use sketch_nostd::heapless::String as HString;
use sketch_nostd::hll::{Hll10, Hll14, Hll4};
use sketch_nostd::wire::{self, Frame, FrameDecoder, RawFrame, Wire};
use sketch_nostd::{
    BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, MicroBloom, MicroBloom32,
    SpaceSaving, TopK,
};

type Sample = Bloom<8, 3>;
const MAX: usize = Frame::<Sample>::MAX_ENCODED_LEN;

/// Sample frames: a sparse sketch, a dense one, and a micro filter (all under one decoder type,
/// encoded as `Sample` frames except the micro one).
fn sample_frames() -> Vec<Vec<u8>> {
    let mut sparse = Sample::with_seed(0x5eed);
    let mut dense = Sample::with_seed(1);
    for i in 0..4u32 {
        sparse.insert(&i);
    }
    for i in 0..200u32 {
        dense.insert(&i);
    }
    let mut out = Vec::new();
    for (device, sketch) in [(7u64, sparse), (1 << 40, dense)] {
        let mut buf = [0u8; MAX];
        let frame = Frame {
            device,
            seq: 300,
            sketch,
        };
        out.push(frame.encode(&mut buf).unwrap().to_vec());
    }
    out
}

/// A known-good frame that must come through after any garbage.
fn marker() -> (Frame<Sample>, Vec<u8>) {
    let frame = Frame {
        device: 99,
        seq: 1,
        sketch: Sample::with_seed(99),
    };
    let mut buf = [0u8; MAX];
    let bytes = frame.encode(&mut buf).unwrap().to_vec();
    (frame, bytes)
}

/// Runs `stream` through a fresh stream decoder and returns the frames it accepted.
fn accepted(stream: &[u8]) -> Vec<Frame<Sample>> {
    let mut rx = FrameDecoder::<MAX>::new();
    let mut out = Vec::new();
    rx.feed(stream, |r| {
        if let Ok(f) = r.and_then(|raw| raw.to_frame::<Sample>()) {
            out.push(f);
        }
    });
    out
}

#[test]
fn every_single_bit_flip_is_rejected() {
    let (marker, marker_bytes) = marker();
    for original in sample_frames() {
        for byte in 0..original.len() {
            for bit in 0..8 {
                let mut bad = original.clone();
                bad[byte] ^= 1 << bit;
                let ctx = format!("byte {byte} bit {bit} of {original:02x?}");
                // As one datagram.
                assert!(
                    RawFrame::decode(&mut bad.clone()).is_err(),
                    "accepted a flipped frame: {ctx}"
                );
                // In a stream: nothing but the markers after it gets through. A flipped delimiter
                // merges the bad frame with the next one (both lost); the one after survives.
                let stream = [&bad[..], &marker_bytes, &marker_bytes].concat();
                let got = accepted(&stream);
                assert!(got.iter().all(|f| *f == marker), "accepted garbage: {ctx}");
                assert!(!got.is_empty(), "never resynchronised: {ctx}");
            }
        }
    }
}

#[test]
fn every_truncation_is_rejected() {
    let (marker, marker_bytes) = marker();
    for original in sample_frames() {
        assert!(RawFrame::decode(&mut original.clone()).is_ok());
        // Every proper prefix, with and without a delimiter after it (a frame cut by a reset).
        for n in 0..original.len() - 1 {
            let mut cut = original[..n].to_vec();
            assert!(RawFrame::decode(&mut cut.clone()).is_err(), "prefix {n}");
            cut.push(0);
            assert!(
                RawFrame::decode(&mut cut.clone()).is_err(),
                "prefix {n} + 00"
            );
            let got = accepted(&[&cut[..], &marker_bytes].concat());
            assert_eq!(got, vec![marker.clone()], "prefix {n}");
        }
        // Every byte dropped from the middle.
        for i in 0..original.len() - 1 {
            let mut dropped = original.clone();
            dropped.remove(i);
            assert!(RawFrame::decode(&mut dropped).is_err(), "dropped byte {i}");
        }
    }
}

#[test]
fn over_long_frames_are_dropped_and_the_stream_recovers() {
    let (marker, marker_bytes) = marker();
    let junk = vec![0x55u8; 3 * MAX];
    let stream = [&junk[..], &[0], &marker_bytes].concat();
    let mut rx = FrameDecoder::<MAX>::new();
    let mut results = Vec::new();
    rx.feed(&stream, |r| {
        results.push(r.map(|raw| raw.to_frame::<Sample>().unwrap()))
    });
    assert_eq!(
        results,
        [Err(sketch_nostd::WireError::FrameTooLong), Ok(marker)]
    );
}

/// Every decoder in the crate, on the same bytes: none may panic.
fn decode_everything(bytes: &[u8]) {
    let _ = wire::peek(bytes);
    let _ = wire::decode::<Bloom<8, 3>>(bytes);
    let _ = wire::decode::<Bloom<1, 1>>(bytes);
    let _ = wire::decode::<Bloom<1563, 7>>(bytes);
    let _ = wire::decode::<MicroBloom<3>>(bytes);
    let _ = wire::decode::<MicroBloom32<2, 0xbeef>>(bytes);
    let _ = wire::decode::<CountMin<16, 3, u16>>(bytes);
    let _ = wire::decode::<CountMin<8, 2, u8, Conservative>>(bytes);
    let _ = wire::decode::<CountMin<4, 4, u64>>(bytes);
    let _ = wire::decode::<BlockedBloom<2, 8>>(bytes);
    let _ = wire::decode::<TopK<u32, 4, 16, 2, u16>>(bytes);
    let _ = wire::decode::<TopK<HString<6>, 2, 8, 2, u8>>(bytes);
    let _ = wire::decode::<SpaceSaving<u32, 4>>(bytes);
    let _ = wire::decode::<SpaceSaving<HString<6>, 2, u8>>(bytes);
    let _ = wire::decode::<SpaceSaving<char, 3, u64>>(bytes);
    let _ = wire::decode::<CountingBloom<4, 3>>(bytes);
    let _ = wire::decode::<CuckooFilter<8, u8>>(bytes);
    let _ = wire::decode::<CuckooFilter<2>>(bytes);
    let _ = wire::decode::<Hll4>(bytes);
    let _ = wire::decode::<Hll10>(bytes);
    let _ = wire::decode::<Hll14>(bytes);
    let _ = postcard::from_bytes::<Bloom<8, 3>>(bytes);
    let _ = postcard::from_bytes::<MicroBloom<3>>(bytes);
    let _ = RawFrame::decode(&mut bytes.to_vec());
    let mut rx = FrameDecoder::<64>::new();
    rx.feed(bytes, |r| {
        if let Ok(raw) = r {
            let _ = raw.header();
            let _ = raw.to_frame::<Bloom<8, 3>>();
        }
    });
}

/// Re-encoding whatever decodes gives bytes that decode to the same sketch.
fn consistent<T: Wire + PartialEq + core::fmt::Debug>(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(v) = wire::decode::<T>(bytes) {
        let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
        let again = wire::encode(&v, &mut buf).unwrap();
        prop_assert_eq!(wire::decode::<T>(again).unwrap(), v);
    }
    Ok(())
}

/// The fuzz seeds (golden encodings) and the inputs the fuzzers once crashed on (`regression_*`):
/// every decoder on each, and whatever decodes re-encodes consistently.
#[test]
fn fuzz_seeds_and_regressions_decode_consistently() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/decode");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/seeds/decode exists") {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        decode_everything(&bytes);
        consistent::<Bloom<8, 3>>(&bytes).unwrap();
        consistent::<Hll10>(&bytes).unwrap();
        consistent::<Hll4>(&bytes).unwrap();
        consistent::<CountMin<16, 3, u16>>(&bytes).unwrap();
        consistent::<CuckooFilter<8, u8>>(&bytes).unwrap();
        n += 1;
    }
    assert!(n >= 20, "{n} seeds");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        decode_everything(&bytes);
    }

    #[test]
    fn random_bytes_after_a_valid_header_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..120), tag in 0u8..4,
    ) {
        // Past the envelope, so the body decoders see the random bytes.
        let bytes = [&[0x53, 0x4b, 2, 1, 8, 3, 7, tag][..], &tail].concat();
        decode_everything(&bytes);
        consistent::<Bloom<8, 3>>(&bytes)?;
    }

    #[test]
    fn random_count_min_bodies_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..120), tag in 0u8..3,
    ) {
        // CountMin<16, 3, u16>, seed 7, total 1000 (e8 07), then the random body.
        let bytes = [&[0x53, 0x4b, 2, 5, 16, 3, 2, 0, 7, 0xe8, 0x07, tag][..], &tail].concat();
        decode_everything(&bytes);
        consistent::<CountMin<16, 3, u16>>(&bytes)?;
    }

    #[test]
    fn random_hll_bodies_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..300), state in 0u8..5, tag in 0u8..4,
        version in 1u8..=2,
    ) {
        // Hll10, seed 7, then a state byte and a tag (the martingale, when present, is in the tail),
        // in both format versions (version 1's sparse coupons are converted).
        let bytes = [&[0x53, 0x4b, version, 4, 10, 7, state, tag][..], &tail].concat();
        decode_everything(&bytes);
        consistent::<Hll10>(&bytes)?;
        let bytes = [&[0x53, 0x4b, version, 4, 4, 7, state, tag][..], &tail].concat();
        consistent::<Hll4>(&bytes)?;
    }

    #[test]
    fn random_counting_bodies_never_panic(
        tail in proptest::collection::vec(any::<u8>(), 0..80), tag in 0u8..5,
    ) {
        // CountingBloom<4, 3>, seed 7, then every tag (3 is the two-bit body) and a random body.
        let bytes = [&[0x53, 0x4b, 2, 8, 4, 3, 7, tag][..], &tail].concat();
        decode_everything(&bytes);
        consistent::<CountingBloom<4, 3>>(&bytes)?;
        let bytes = [&[0x53, 0x4b, 2, 10, 2, 8, 7][..], &tail].concat();
        consistent::<BlockedBloom<2, 8>>(&bytes)?;
    }

    #[test]
    fn random_cuckoo_bodies_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..100)) {
        // CuckooFilter<8, u8>, seed 7, then the random body; and the u16 variant.
        let bytes = [&[0x53, 0x4b, 2, 9, 8, 8, 7][..], &tail].concat();
        decode_everything(&bytes);
        consistent::<CuckooFilter<8, u8>>(&bytes)?;
        let bytes = [&[0x53, 0x4b, 2, 9, 2, 16, 7][..], &tail].concat();
        consistent::<CuckooFilter<2>>(&bytes)?;
        let bytes = [&[0x53, 0x4b, 2, 8, 4, 3, 7][..], &tail].concat();
        consistent::<CountingBloom<4, 3>>(&bytes)?;
        let bytes = [&[0x53, 0x4b, 2, 10, 2, 8, 7][..], &tail].concat();
        consistent::<BlockedBloom<2, 8>>(&bytes)?;
    }

    #[test]
    fn random_heavy_hitter_bodies_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        // SpaceSaving<u32, 4>: K, counter bytes, KEY (u32), seed 0, then the random body.
        let bytes = [&[0x53, 0x4b, 2, 7, 4, 4, 0x84, 0x80, 0x80, 0x80, 0x10, 0][..], &tail].concat();
        decode_everything(&bytes);
        if let Ok(ss) = wire::decode::<SpaceSaving<u32, 4>>(&bytes) {
            let mut buf = vec![0u8; SpaceSaving::<u32, 4>::MAX_ENCODED_LEN];
            let again = wire::encode(&ss, &mut buf).unwrap();
            let back = wire::decode::<SpaceSaving<u32, 4>>(again).unwrap();
            prop_assert_eq!(back.sorted(), ss.sorted());
        }
    }

    #[test]
    fn mutated_sketches_decode_to_valid_sketches_or_errors(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..4),
        which in 0usize..2,
    ) {
        let frame = &sample_frames()[which];
        let raw_len = frame.len();
        let mut buf = frame.clone();
        let raw = RawFrame::decode(&mut buf).unwrap();
        let mut bytes = raw.sketch.to_vec();
        for (i, bit) in flips {
            let i = i.index(bytes.len());
            bytes[i] ^= 1 << bit;
        }
        decode_everything(&bytes);
        consistent::<Bloom<8, 3>>(&bytes)?;
        prop_assert!(raw_len > bytes.len());
    }
}
