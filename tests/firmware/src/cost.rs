//! Instruction counts per operation (feature `cost`): each operation runs over the same [`N`] keys
//! between two calls of [`cost_mark`], and the host test (`tests/tests/firmware.rs`,
//! `instructions_per_operation_on_every_target`) runs this firmware under QEMU with one instruction
//! per translation block and every executed block logged (`-singlestep -d nochain,exec`), then
//! counts the instructions between consecutive marks. Counting is exact and repeatable, unlike time.
//!
//! The first segment is the bare loop (keys made and consumed, no sketch): its count is subtracted
//! from every other segment. The names of the segments are printed as `COST <name>` lines after the
//! measurements, in order, so that printing never falls inside a measured segment.

use crate::arch::hprintln;
use core::hint::black_box;
use sketch_nostd::{
    countmin::{Conservative, Standard},
    hash::hash64,
    hll::DeviceHll10,
    wire, BlockedBloom, Bloom, CountMin, CountingBloom, CuckooFilter, Hll10, MicroBloom,
    SpaceSaving, TopK,
};

/// Keys per measured segment.
pub const N: u32 = 64;

/// Marks the boundary between two measured segments; the host finds it by its symbol name.
#[inline(never)]
#[no_mangle]
pub extern "C" fn cost_mark() {
    black_box(());
}

/// The keys of a segment: 64 distinct u32 keys from `base`.
fn keys(base: u32) -> impl Iterator<Item = u32> {
    (base..base + N).map(black_box)
}

/// Runs `op` on every key of a segment between two marks.
#[inline(never)]
fn segment(base: u32, mut op: impl FnMut(u32)) {
    cost_mark();
    for key in keys(base) {
        op(key);
    }
    cost_mark();
}

/// The segments, in the order they run.
pub const NAMES: [&str; 23] = [
    "loop (subtracted)",
    "xxh3-64 hash of a u32",
    "MicroBloom<3> insert",
    "MicroBloom<3> contains",
    "Bloom<64, 7> insert",
    "Bloom<64, 7> contains",
    "BlockedBloom<8, 8> insert",
    "BlockedBloom<8, 8> contains",
    "CountingBloom<16, 5> insert",
    "CountingBloom<16, 5> contains",
    "CuckooFilter<32> insert",
    "CuckooFilter<32> contains",
    "CountMin<64, 4, u16> add",
    "CountMin<64, 4, u16, Conservative> add",
    "CountMin<64, 4, u16> estimate",
    "Hll10 insert (dense)",
    "DeviceHll10 insert (registers only)",
    "MicroBloom<3> encode_frame (one 20-byte frame)",
    "Hll10 estimate",
    "Hll10 estimate (merged: Ertl's)",
    "Hll10 estimate, both 3σ bounds (merged)",
    "SpaceSaving<u32, 16> add",
    "TopK<u32, 8, 64, 4> add",
];

/// Runs every segment, then prints the names.
///
/// # Errors
/// If a sketch is not in the state its segment is meant to measure.
pub fn run() -> Result<(), &'static str> {
    segment(0, |k| {
        black_box(k);
    });
    segment(0, |k| {
        black_box(hash64(&k, 7));
    });

    let mut micro = MicroBloom::<3>::new();
    segment(0, |k| {
        black_box(micro.insert(&k));
    });
    segment(32, |k| {
        black_box(micro.contains(&k));
    });

    let mut bloom = Bloom::<64, 7>::new();
    segment(0, |k| {
        black_box(bloom.insert(&k));
    });
    segment(32, |k| {
        black_box(bloom.contains(&k));
    });

    let mut blocked = BlockedBloom::<8, 8>::new();
    segment(0, |k| {
        black_box(blocked.insert(&k));
    });
    segment(32, |k| {
        black_box(blocked.contains(&k));
    });

    let mut counting = CountingBloom::<16, 5>::new();
    segment(0, |k| {
        black_box(counting.insert(&k));
    });
    segment(32, |k| {
        black_box(counting.contains(&k));
    });

    let mut cuckoo = CuckooFilter::<32>::new();
    segment(0, |k| {
        black_box(cuckoo.insert(&k).is_ok());
    });
    segment(32, |k| {
        black_box(cuckoo.contains(&k));
    });

    let mut standard = CountMin::<64, 4, u16, Standard>::new();
    let mut conservative = CountMin::<64, 4, u16, Conservative>::new();
    segment(0, |k| {
        black_box(standard.add(&(k & 15), 1));
    });
    segment(0, |k| {
        black_box(conservative.add(&(k & 15), 1));
    });
    segment(0, |k| {
        black_box(standard.estimate(&k));
    });

    // 1,000 keys: past the sparse form's 192 coupons, so the inserts measured are dense ones.
    let mut hll = Hll10::new();
    for k in 1_000..2_000u32 {
        hll.insert(&k);
    }
    if hll.is_sparse() {
        return Err("cost: the HLL is still sparse");
    }
    segment(0, |k| {
        hll.insert(&k);
    });
    // The device sketch, filled as the full one was.
    let mut device = DeviceHll10::new();
    for k in 1_000..2_000u32 {
        device.insert(&k);
    }
    segment(0, |k| {
        device.insert(&k);
    });
    if !device.registers().eq(hll.registers()) {
        return Err("cost: the device HLL's registers differ from the full one's");
    }
    // One frame per key: the device id varies, so no frame is computed ahead.
    let mut buf = [0u8; 64];
    segment(0, |k| {
        black_box(wire::encode_frame(u64::from(k & 63), 1, &micro, &mut buf).is_ok());
    });
    segment(0, |_| {
        black_box(hll.cardinality());
    });
    // After a merge: Ertl's estimator, in the integer arithmetic of `hll/num.rs`.
    let mut other = Hll10::new();
    other.insert(&0u32);
    if hll.merge(&other).is_err() || hll.is_single_stream() {
        return Err("cost: the merged HLL is still a single stream");
    }
    segment(0, |_| {
        black_box(hll.cardinality());
    });
    segment(0, |_| {
        black_box((hll.lower_bound(3), hll.upper_bound(3)));
    });

    let mut saving = SpaceSaving::<u32, 16>::new();
    let mut top = TopK::<u32, 8, 64, 4>::new();
    segment(0, |k| {
        black_box(saving.increment(&(k & 31)));
    });
    segment(0, |k| {
        black_box(top.increment(&(k & 31)));
    });

    for name in NAMES {
        hprintln!("COST {}", name);
    }
    Ok(())
}
