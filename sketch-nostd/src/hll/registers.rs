//! Dense HyperLogLog registers packed at 6 bits, LSB-first.
//!
//! Register `i` occupies bits `6i .. 6i + 6` of the byte array, counting bit 0 as the least significant
//! bit of byte 0. Four registers fill three bytes exactly, so `m = 2^p` registers (p ≥ 2) take
//! `3·2^p / 4` bytes with no padding bits, and the three bytes `3g .. 3g + 3` read as a little-endian
//! 24-bit integer hold registers `4g .. 4g + 4` at shifts 0, 6, 12 and 18:
//!
//! ```text
//! byte 0:  r1[1:0] r0[5:0]      byte 1:  r2[3:0] r1[5:2]      byte 2:  r3[5:0] r2[5:4]
//! ```
//!
//! Every function here tolerates any slice length and any index: a register past the end reads as 0
//! and cannot be written, so no input makes them panic.

/// The register values of one 3-byte group, `[r0, r1, r2, r3]`.
#[inline]
fn unpack_group(a: u8, b: u8, c: u8) -> [u8; 4] {
    let x = u32::from(a) | u32::from(b) << 8 | u32::from(c) << 16;
    [
        (x & 63) as u8,
        (x >> 6 & 63) as u8,
        (x >> 12 & 63) as u8,
        (x >> 18) as u8,
    ]
}

/// The byte index and bit shift of register `i`; an index too large for any register array locates
/// past every array, so the callers' checked reads refuse it. A compare and a 32-bit multiply: a
/// saturating multiply calls the 64-bit multiply helper on a Cortex-M0.
#[inline]
fn locate(i: usize) -> (usize, u32) {
    let bit = if i < 1 << 28 { i * 6 } else { usize::MAX };
    (bit >> 3, (bit & 7) as u32)
}

/// The register a 64-bit hash goes to at precision `p` (its top `p` bits) and the rank it offers
/// there: the leading zeros of the other bits, plus one (at most `65 − p`). One place for
/// [`HyperLogLog`](super::HyperLogLog)'s dense insert and [`DeviceHll`](super::DeviceHll)'s.
///
/// On 32-bit targets the zeros are counted by shifting, in 32-bit halves (about two steps on
/// average): a Cortex-M0 has no `clz` instruction, and its software `leading_zeros` (`__clzsi2`,
/// 108 B) was linked for the 2^−32 of hashes whose 32 bits below the index are all zero. Those
/// continue in the low half, where a one below the `64 − p` rank bits stops the count at `65 − p`.
/// On 64-bit targets (hosts, whose CPUs count leading zeros in one instruction) the same count is
/// `leading_zeros` of the same bits with that one set: the loop's data-dependent branches cost a
/// host's insert several times the instruction (`hll/u64/insert` in docs/performance.md).
#[inline]
pub(crate) fn index_rank(hash: u64, p: u32) -> (usize, u8) {
    let index = (hash >> (64 - p)) as usize;
    let rest = hash << p;
    let rank = if cfg!(target_pointer_width = "64") {
        ((rest | 1 << (p - 1)).leading_zeros() + 1) as u8
    } else {
        rank_by_shifts(rest, p)
    };
    (index, rank)
}

/// [`index_rank`]'s rank on 32-bit targets: the leading zeros of `rest` (a hash shifted left by
/// `p`), plus one, counted by shifting (see there).
#[inline]
fn rank_by_shifts(rest: u64, p: u32) -> u8 {
    let (mut bits, mut rank) = ((rest >> 32) as u32, 1);
    if bits == 0 {
        (bits, rank) = (rest as u32 | 1 << (p - 1), 33);
    }
    while bits & 1 << 31 == 0 {
        bits <<= 1;
        rank += 1;
    }
    rank
}

/// The value of register `i` (0 if `i` is past the end).
#[inline]
pub(crate) fn get(bytes: &[u8], i: usize) -> u8 {
    let (at, shift) = locate(i);
    let lo = u16::from(bytes.get(at).copied().unwrap_or(0));
    let hi = u16::from(bytes.get(at.wrapping_add(1)).copied().unwrap_or(0));
    ((lo | hi << 8) >> shift & 63) as u8
}

/// Sets register `i` to `max(current, value)`; returns the previous value if it was raised.
///
/// `value` must be below 64 (callers pass a rank ρ ≤ 61). A register at or past the end is ignored.
/// Out of line: one copy for the full and the device insert and the conversion from sparse.
#[cfg_attr(target_pointer_width = "64", inline)]
#[cfg_attr(not(target_pointer_width = "64"), inline(never))]
pub(crate) fn raise(bytes: &mut [u8], i: usize, value: u8) -> Option<u8> {
    let (at, shift) = locate(i);
    let lo = u16::from(*bytes.get(at)?);
    let hi = u16::from(bytes.get(at.wrapping_add(1)).copied().unwrap_or(0));
    let window = lo | hi << 8;
    let old = (window >> shift & 63) as u8;
    if value <= old {
        return None;
    }
    let window = window & !(63 << shift) | u16::from(value & 63) << shift;
    let [lo, hi] = window.to_le_bytes();
    if let Some(b) = bytes.get_mut(at) {
        *b = lo;
    }
    // Shifts 0 and 2 keep the register inside one byte; the last register always has shift 2.
    if shift > 2 {
        if let Some(b) = bytes.get_mut(at.wrapping_add(1)) {
            *b = hi;
        }
    }
    Some(old)
}

/// Sets register `i` to 0 (nothing if `i` is past the end), writing only the bytes that hold it.
/// Used to rebuild the dense array in place from the sparse form (see `sparse::to_dense`).
#[inline]
pub(crate) fn clear(bytes: &mut [u8], i: usize) {
    let (at, shift) = locate(i);
    if let Some(b) = bytes.get_mut(at) {
        *b &= !(63u32 << shift) as u8;
    }
    // Shifts 0 and 2 keep the register inside one byte.
    if shift > 2 {
        if let Some(b) = bytes.get_mut(at.wrapping_add(1)) {
            *b &= !(63u32 << shift >> 8) as u8;
        }
    }
}

/// Every register value in order (four per 3-byte group; a trailing partial group is ignored).
pub(crate) fn iter(bytes: &[u8]) -> impl Iterator<Item = u8> + '_ {
    bytes.chunks_exact(3).flat_map(|g| match *g {
        [a, b, c] => unpack_group(a, b, c),
        _ => [0; 4],
    })
}

/// Calls `f` with every register value in order, four at a time from 3-byte groups (a trailing
/// partial group is ignored), in `u32` arithmetic: no 64-bit shifts, which a Cortex-M0 does with
/// helper calls.
pub(crate) fn for_each(bytes: &[u8], mut f: impl FnMut(u8)) {
    for g in bytes.chunks_exact(3) {
        if let [a, b, c] = *g {
            // One register a step (not four copies of `f`'s body).
            let mut x = u32::from_le_bytes([a, b, c, 0]) | 1 << 24;
            while x != 1 {
                f((x & 63) as u8);
                x >>= 6;
            }
        }
    }
}

/// Register-wise maximum: `ours[i] = max(ours[i], theirs[i])` for every register. One body for
/// every sketch type and precision (callers that keep sums recount them afterwards).
///
/// Four registers at a time, in `u32` (see [`max_lanes`]): registers 0 and 2 of a 3-byte group,
/// then 1 and 3.
#[inline(never)]
pub(crate) fn max_assign(ours: &mut [u8], theirs: &[u8]) {
    for (o, t) in ours.chunks_exact_mut(3).zip(theirs.chunks_exact(3)) {
        if let ([a, b, c], [x, y, z]) = (&mut *o, t) {
            let mine = u32::from_le_bytes([*a, *b, *c, 0]);
            let other = u32::from_le_bytes([*x, *y, *z, 0]);
            let max = max_lanes(mine, other) | max_lanes(mine >> 6, other >> 6) << 6;
            [*a, *b, *c, _] = max.to_le_bytes();
        }
    }
}

/// The larger of each pair of the 6-bit values at bits 0 and 12 of `x` and `y` (the other bits
/// ignored), from one subtraction (SIMD within a register): with a guard bit set above each of
/// `x`'s values, `x − y` keeps it exactly where `x ≥ y`, and no value borrows from the next.
#[inline]
const fn max_lanes(x: u32, y: u32) -> u32 {
    const LANES: u32 = 0x3f | 0x3f << 12;
    const GUARD: u32 = 0x40 | 0x40 << 12;
    let (x, y) = (x & LANES, y & LANES);
    let ge = ((x | GUARD) - y) & GUARD;
    // 0x3f in the lanes where x ≥ y, 0 elsewhere.
    let keep = ge - (ge >> 6);
    x & keep | y & !keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_is_lsb_first_six_bits() {
        let mut bytes = [0u8; 6];
        raise(&mut bytes, 0, 0b10_1010);
        assert_eq!(bytes, [0b10_1010, 0, 0, 0, 0, 0]);
        raise(&mut bytes, 1, 0b11_1111);
        // bits 6..12: two low bits in byte 0, four high bits in byte 1
        assert_eq!(bytes, [0b1110_1010, 0b1111, 0, 0, 0, 0]);
        raise(&mut bytes, 3, 1);
        assert_eq!(bytes[2], 0b0000_0100);
        raise(&mut bytes, 7, 63);
        assert_eq!(bytes[5], 0b1111_1100);
        assert_eq!(get(&bytes, 0), 42);
        assert_eq!(get(&bytes, 1), 63);
        assert_eq!(get(&bytes, 2), 0);
        assert_eq!(get(&bytes, 3), 1);
        assert_eq!(get(&bytes, 7), 63);
        assert_eq!(get(&bytes, 8), 0); // past the end
        assert_eq!(raise(&mut bytes, 8, 5), None);
        assert_eq!(raise(&mut bytes, usize::MAX, 5), None);
    }

    #[test]
    fn index_and_rank_are_the_top_bits_and_the_leading_zeros_below() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut hashes = vec![
            0,
            1,
            u64::MAX,
            1 << 63,
            (1 << 46) - 1,
            1 << 31,
            1 << 32,
            3 << 20,
        ];
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            hashes.extend([x, x >> (x & 63), x & ((1 << (x % 40)) - 1)]);
        }
        for p in [4u32, 10, 14, 18] {
            for &h in &hashes {
                let rank = (h << p | 1 << (p - 1)).leading_zeros() as u8 + 1;
                // The 32-bit targets' count, whichever this target uses.
                assert_eq!(rank_by_shifts(h << p, p), rank, "{h:#x} p {p}");
                assert_eq!(
                    index_rank(h, p),
                    ((h >> (64 - p)) as usize, rank),
                    "{h:#x} p {p}"
                );
            }
        }
    }

    #[test]
    fn raise_only_raises_and_leaves_neighbours_alone() {
        let mut bytes = [0u8; 12];
        for i in 0..16 {
            assert_eq!(raise(&mut bytes, i, (i as u8 * 7) % 60 + 1), Some(0));
        }
        assert_eq!(raise(&mut bytes, 5, 1), None);
        let snapshot = bytes;
        assert_eq!(raise(&mut bytes, 5, 62), Some(36));
        for i in 0..16 {
            let want = if i == 5 { 62 } else { (i as u8 * 7) % 60 + 1 };
            assert_eq!(get(&bytes, i), want);
        }
        assert_ne!(snapshot, bytes);
        assert!(iter(&bytes).eq((0..16).map(|i| get(&bytes, i))));
        let mut all = Vec::new();
        for_each(&bytes, |r| all.push(r));
        assert!(all.iter().copied().eq(iter(&bytes)));
        let mut odd = Vec::new(); // 12 registers: one 6-byte group and one 3-byte group
        for_each(&bytes[..9], |r| odd.push(r));
        assert!(odd.iter().copied().eq(iter(&bytes).take(12)));
    }

    #[test]
    fn clear_zeroes_one_register_and_max_assign_is_registerwise() {
        let mut a = [0xffu8; 24];
        for i in (0..3).chain(4..32) {
            clear(&mut a, i);
            assert_eq!(get(&a, i), 0);
            assert_eq!(get(&a, i + 1), if i < 31 { 63 } else { 0 }); // the next one untouched
        }
        clear(&mut a, 32); // past the end: nothing
        let mut b = [0u8; 24];
        raise(&mut b, 3, 63);
        assert_eq!(a, b);
        let mut b = [0u8; 24];
        raise(&mut b, 3, 17);
        let mut c = [0u8; 24];
        raise(&mut c, 3, 9);
        raise(&mut c, 31, 40);
        max_assign(&mut c, &b);
        assert_eq!(get(&c, 3), 17);
        assert_eq!(get(&c, 31), 40);
        assert_eq!(iter(&c).filter(|&r| r != 0).count(), 2);
    }

    #[test]
    fn max_assign_takes_every_pair_s_maximum() {
        // Every pair of values 0..64 in every position of a group, and random registers.
        let mut rng = sketch_rng::SplitMix64(11);
        for round in 0..2_000u32 {
            let (mut ours, mut theirs) = ([0u8; 48], [0u8; 48]);
            for i in 0..64 {
                let (x, y) = if round < 64 {
                    (round as u8, i as u8)
                } else {
                    (rng.below(64) as u8, rng.below(64) as u8)
                };
                raise(&mut ours, i, x);
                raise(&mut theirs, i, y);
            }
            let before = ours;
            max_assign(&mut ours, &theirs);
            for i in 0..64 {
                assert_eq!(get(&ours, i), get(&before, i).max(get(&theirs, i)), "{i}");
            }
        }
    }
}
