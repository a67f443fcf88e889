//! The sparse form: exact hash "coupons" kept in the register bytes while few keys have been seen.
//!
//! A **coupon** is a `u32` holding the top `b = p + 7` bits of the hash (`key`, an index into 2^b
//! virtual registers: 2^21 at `p = 14`) above 6 bits of rank
//! `ρ' = (leading zeros of the remaining 64 − b bits) + 1`, in `1..=65 − b`:
//! `coupon = key << 6 | ρ'`. Its top `p` key bits are the dense register it updates and the 7 bits
//! below them, with `ρ'`, give that register's rank ([`register_of`]), so converting to dense loses
//! nothing, and 2^b = 128·m virtual registers make linear counting over coupons nearly exact (about
//! n²/2^(b+1) collisions among n keys, a relative standard error of about 1/sqrt(2^(b+1)), 0.05% at
//! `p = 14`). Seven extra bits, rather than more, keep a coupon's share of the wire encoding small
//! (about `b − log2 n + 3.4` bits).
//!
//! **Layout.** The `BYTES` register bytes become `T = BYTES / 4` little-endian `u32` slots; 0 marks an
//! empty slot (a coupon's rank is never 0). It is an ordered linear-probing hash table whose hash is
//! monotone in the key: a coupon lives at or after its *home* slot, and reading the slots in logical
//! order gives the coupons sorted by key. Logical positions run over `W..T + W`: the main slots
//! `W..T` and then `W` overflow slots `0..W` that only catch the run crossing the end of the table
//! (no home lies below `W`). The layout depends only on the set of keys, not on insertion order.
//!
//! **In-place conversion.** A coupon's home is never before the slot holding the last byte of its
//! register's packed image: `4·(home(j) + 1) ≥ ⌈6(j + 1)/8⌉`. So rebuilding the dense array by
//! streaming registers in ascending order from byte 0 never overwrites a slot that has not been read
//! yet; only the `W ≤ 32` overflow slots are copied to the stack first. No 12 KB temporary is needed.

use super::registers;

/// Key bits of a coupon beyond the `p` that choose its dense register.
pub(crate) const EXTRA_BITS: u32 = 7;

/// Bits of the hash that index the virtual registers of the sparse form at precision `p`: `p + 7`.
pub(crate) const fn index_bits(p: u32) -> u32 {
    p + EXTRA_BITS
}

/// The largest valid coupon rank at precision `p`: `64 − (p + 7)` rank bits, plus one.
pub(crate) const fn max_coupon_rank(p: u32) -> u32 {
    65 - index_bits(p)
}

/// Number of virtual registers at precision `p`, `2^(p + 7)`.
pub(crate) const fn virtual_registers(p: u32) -> u64 {
    1 << index_bits(p)
}

/// The most overflow slots any precision uses (they are copied to the stack when converting).
const MAX_OVERFLOW: usize = 32;

/// Number of `u32` slots in `bytes` register bytes.
pub(crate) const fn slots(bytes: usize) -> usize {
    bytes / 4
}

/// Number of overflow slots: `T/16`, at least 1 and at most 32.
pub(crate) const fn overflow_slots(bytes: usize) -> usize {
    let w = slots(bytes) / 16;
    if w < 1 {
        1
    } else if w > MAX_OVERFLOW {
        MAX_OVERFLOW
    } else {
        w
    }
}

/// How many coupons the sparse form holds before it converts to dense: 3/4 of the slots, which keeps
/// linear-probing runs short.
pub(crate) const fn capacity(bytes: usize) -> usize {
    let t = slots(bytes);
    t - t / 4
}

/// The coupon of a 64-bit hash at precision `p`.
#[inline]
pub(crate) fn coupon(hash: u64, p: u32) -> u32 {
    // The key is the top `p + 7` bits, the rank what a register at precision `p + 7` would get.
    let (key, rank) = super::registers::index_rank(hash, index_bits(p));
    (key as u32) << 6 | rank as u32
}

/// `true` if `coupon` could have come from [`coupon`] at precision `p`: a key below `2^(p + 7)` and a
/// rank in `1..=58 − p`.
pub(crate) const fn is_valid(coupon: u32, p: u32) -> bool {
    let rank = coupon & 63;
    key(coupon) >> index_bits(p) == 0 && rank >= 1 && rank <= max_coupon_rank(p)
}

/// The sort key of a coupon (its index bits).
#[inline]
pub(crate) const fn key(coupon: u32) -> u32 {
    coupon >> 6
}

/// The dense register (index, rank) a coupon updates at precision `p` (`4 ≤ p ≤ 18`): the top `p`
/// key bits choose the register; the rank counts leading zeros through the remaining 7 key bits and
/// then continues with the coupon's own rank.
#[inline]
pub(crate) const fn register_of(coupon: u32, p: u32) -> (usize, u8) {
    let _ = p; // the register is the key without its 7 extra bits, whatever p
    let key = key(coupon);
    let below = key & ((1 << EXTRA_BITS) - 1);
    // The leading zeros of the 7 bits, counted by shifting (no `__clzsi2` on a Cortex-M0).
    let rank = if below != 0 {
        let (mut bits, mut rank) = (below << (32 - EXTRA_BITS), 1);
        while bits & 1 << 31 == 0 {
            bits <<= 1;
            rank += 1;
        }
        rank
    } else {
        EXTRA_BITS + (coupon & 63)
    };
    ((key >> EXTRA_BITS) as usize, rank as u8)
}

/// The home slot of coupons for register `j` at precision `p`, in `W..T`: registers spread evenly
/// over the main slots, but never before the slot holding the end of their dense image.
#[inline]
fn home(j: usize, p: u32, t: usize, w: usize) -> usize {
    let spread = w + ((j as u64 * (t - w) as u64) >> p) as usize;
    let image_end = (6 * j + 13) >> 3; // ⌈6(j + 1)/8⌉
    let min = ((image_end + 3) >> 2) - 1;
    if spread > min {
        spread
    } else {
        min
    }
}

/// The physical slot of logical position `l` (`W ≤ l < T + W`).
#[inline]
const fn physical(l: usize, t: usize) -> usize {
    if l < t {
        l
    } else {
        l - t
    }
}

/// The coupon in physical slot `slot` (0 if empty or past the end).
#[inline]
pub(crate) fn read(bytes: &[u8], slot: usize) -> u32 {
    let at = slot.wrapping_mul(4);
    match bytes.get(at..at.wrapping_add(4)) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

#[inline]
fn write(bytes: &mut [u8], slot: usize, coupon: u32) {
    let at = slot.wrapping_mul(4);
    if let Some(dst) = bytes.get_mut(at..at.wrapping_add(4)) {
        dst.copy_from_slice(&coupon.to_le_bytes());
    }
}

/// What [`insert`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// A new key was stored.
    Added,
    /// The key was present with a lower rank, which was raised.
    Raised,
    /// The key was present with at least this rank: nothing changed.
    Unchanged,
    /// The key is new and there is no room for it (or `may_add` was false): nothing changed.
    Full,
}

/// Inserts a coupon, keeping the maximum rank per key. A new key is only stored if `may_add`.
///
/// One pass over the run from the key's home: a slot with the key raises or keeps it; the first
/// larger key is where a new one goes; the run ends at an empty slot, into which the coupons from
/// that place on move up one slot (no room if the run reaches the end of the table).
pub(crate) fn insert(bytes: &mut [u8], p: u32, coupon: u32, may_add: bool) -> Outcome {
    let (t, w) = (slots(bytes.len()), overflow_slots(bytes.len()));
    let wanted = key(coupon);
    let mut l = home((wanted >> EXTRA_BITS) as usize, p, t, w);
    // Where the new coupon goes: the first slot with a larger key, else the empty slot.
    let mut at = usize::MAX;
    loop {
        if l >= t + w {
            return Outcome::Full;
        }
        let here = read(bytes, physical(l, t));
        if here == 0 {
            break;
        }
        if key(here) == wanted {
            if coupon & 63 > here & 63 {
                write(bytes, physical(l, t), coupon);
                return Outcome::Raised;
            }
            return Outcome::Unchanged;
        }
        if key(here) > wanted {
            at = at.min(l);
        }
        l += 1;
    }
    if !may_add {
        return Outcome::Full;
    }
    // Shift the coupons from `at` up into the empty slot `l`.
    let at = at.min(l);
    while l > at {
        let moved = read(bytes, physical(l - 1, t));
        write(bytes, physical(l, t), moved);
        l -= 1;
    }
    write(bytes, physical(at, t), coupon);
    Outcome::Added
}

/// Walks the slots in logical order, yielding coupons sorted by key.
#[derive(Clone, Debug)]
pub(crate) struct Cursor {
    l: usize,
    end: usize,
    t: usize,
}

impl Cursor {
    /// A cursor over the sparse form held in `len` bytes; `active = false` gives an empty cursor.
    pub(crate) const fn new(len: usize, active: bool) -> Self {
        let (t, w) = (slots(len), overflow_slots(len));
        Self {
            l: w,
            end: if active { t + w } else { w },
            t,
        }
    }

    /// The next coupon without consuming it.
    pub(crate) fn peek(&mut self, bytes: &[u8]) -> Option<u32> {
        while self.l < self.end {
            let c = read(bytes, physical(self.l, self.t));
            if c != 0 {
                return Some(c);
            }
            self.l += 1;
        }
        None
    }

    /// Consumes the coupon [`peek`](Self::peek) returned.
    pub(crate) fn advance(&mut self) {
        self.l += 1;
    }

    /// The next coupon.
    pub(crate) fn next(&mut self, bytes: &[u8]) -> Option<u32> {
        let c = self.peek(bytes)?;
        self.advance();
        Some(c)
    }
}

/// Rewrites the sparse form in `bytes` as packed dense registers at precision `p`, in place.
///
/// The coupons are read in logical order (sorted by key, so by register). Before a coupon's
/// register is raised to its rank, every register up to it is cleared: those writes lie below the
/// end of its image, which lies in or before its home slot (see the module docs), so in or before
/// the slot just read. The overflow slots, physically first, are copied to the stack beforehand. A
/// last step past the end clears the registers after the last coupon's. Registers are cleared one
/// at a time (no `memset` routine linked for a byte fill), and raised by the insert's
/// [`registers::raise`].
pub(crate) fn to_dense(bytes: &mut [u8], p: u32) {
    let (t, w) = (slots(bytes.len()), overflow_slots(bytes.len()));
    let mut overflow = [0u32; MAX_OVERFLOW];
    for (slot, o) in overflow.iter_mut().enumerate().take(w) {
        *o = read(bytes, slot);
    }
    // The registers below `next` are cleared.
    let mut next = 0;
    for l in w..=t + w {
        let (j, rank) = if l == t + w {
            (1 << p, 0) // past the last register: clears the rest
        } else {
            let c = if l < t {
                read(bytes, l)
            } else {
                overflow.get(l - t).copied().unwrap_or(0)
            };
            if c == 0 {
                continue;
            }
            register_of(c, p)
        };
        while next <= j {
            registers::clear(bytes, next);
            next += 1;
        }
        registers::raise(bytes, j, rank);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dense_register(hash: u64, p: u32) -> (usize, u8) {
        let idx = (hash >> (64 - p)) as usize;
        let rank = (hash << p | 1 << (p - 1)).leading_zeros() + 1;
        (idx, rank as u8)
    }

    #[test]
    fn coupons_determine_the_dense_register_at_every_precision() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut hashes = vec![0, u64::MAX, 1, 1 << 38, 1 << 37, (1 << 38) - 1];
        for _ in 0..2_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            hashes.push(x);
            hashes.push(x >> (x & 63)); // many leading zeros
            hashes.push(x & !((1u64 << 40) - 1)); // nothing after the key bits
        }
        for p in 4..=18 {
            for &h in &hashes {
                let c = coupon(h, p);
                assert!(is_valid(c, p));
                assert!(!is_valid(c | 1 << (6 + index_bits(p)), p));
                assert_eq!(register_of(c, p), dense_register(h, p), "p={p} h={h:#x}");
            }
        }
        for p in 4..=18 {
            assert_eq!(coupon(0, p) & 63, max_coupon_rank(p));
            assert!(!is_valid(max_coupon_rank(p) + 1, p) && !is_valid(0, p));
        }
        assert_eq!((index_bits(14), max_coupon_rank(14)), (21, 44));
    }

    #[test]
    fn homes_allow_in_place_conversion_at_every_precision() {
        for p in 4..=18u32 {
            let bytes = 3usize << p >> 2;
            let (t, w) = (slots(bytes), overflow_slots(bytes));
            assert!(w < t && capacity(bytes) <= t);
            let mut previous = 0;
            for j in 0..1usize << p {
                let h = home(j, p, t, w);
                let image_end = (6 * j + 6).div_ceil(8);
                assert!(4 * (h + 1) >= image_end, "p={p} j={j}");
                assert!((w..t).contains(&h), "p={p} j={j} home={h}");
                assert!(h >= previous, "homes are monotone");
                previous = h;
            }
        }
    }

    #[test]
    fn sparse_table_keeps_coupons_sorted_and_converts_in_place() {
        let p = 10;
        let mut bytes = [0u8; 768];
        let mut reference = [0u8; 768];
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut added = 0;
        while added < capacity(768) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (j, r) = dense_register(x, p);
            registers::raise(&mut reference, j, r);
            match insert(&mut bytes, p, coupon(x, p), true) {
                Outcome::Added => added += 1,
                Outcome::Full => panic!("full at {added}"),
                _ => {}
            }
            let mut cursor = Cursor::new(768, true);
            let mut last = None;
            let mut n = 0;
            while let Some(c) = cursor.next(&bytes) {
                assert!(last < Some(key(c)));
                last = Some(key(c));
                n += 1;
            }
            assert_eq!(n, added);
        }
        assert_eq!(
            insert(&mut bytes, p, coupon(x, p), true),
            Outcome::Unchanged
        );
        to_dense(&mut bytes, p);
        assert_eq!(bytes, reference);
    }

    #[test]
    fn crowded_top_registers_use_the_overflow_slots_and_still_convert() {
        // Every key maps to the last dense register: the worst case for the layout.
        let p = 10;
        let mut bytes = [0u8; 768];
        let mut reference = [0u8; 768];
        let mut stored = 0;
        // Distinct 17-bit keys (p + 7 bits): the register's 10 bits, then i in the 7 extra bits.
        for i in 0..100u64 {
            let h = (0x3ff << 54) | (i << 47) | (1 << (i % 30));
            let (j, r) = dense_register(h, p);
            assert_eq!(j, 1023);
            registers::raise(&mut reference, j, r);
            match insert(&mut bytes, p, coupon(h, p), true) {
                Outcome::Added => stored += 1,
                Outcome::Full => break,
                other => panic!("{other:?}"),
            }
        }
        // Only the last main slot and the overflow slots can hold them.
        assert_eq!(stored, 1 + overflow_slots(768));
        to_dense(&mut bytes, p);
        let mut expected = [0u8; 768];
        let top = (0..100u64)
            .take(stored)
            .map(|i| dense_register((0x3ff << 54) | (i << 47) | (1 << (i % 30)), p).1)
            .max()
            .unwrap_or(0);
        registers::raise(&mut expected, 1023, top);
        assert_eq!(bytes, expected);
        assert!(reference.iter().zip(&expected).all(|(r, e)| r >= e));
    }
}
