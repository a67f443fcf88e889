//! The membership tests of the Bloom and counting Bloom filters, written once over what they read:
//! the owned filter's `u64` words or the dense wire body's bytes (the zero-copy views in
//! `wire::view`). Both read the same cell at the same index, so an owned filter and a view of its
//! encoding answer alike by construction. (The blocked filter's test is `blocked::kernel`.)

use crate::hash::{reduce, Probe};

/// Cells of a filter read by index: bits (the Bloom filter) or 4-bit counters (the counting Bloom
/// filter), from `u64` words or from their little-endian bytes. An index past the end reads 0.
pub(crate) trait Cells {
    /// Bit `i` (`0` or `1`).
    fn bit(&self, i: u32) -> u32;
    /// Four-bit counter `i`.
    fn nibble(&self, i: u32) -> u32;
}

impl Cells for [u64] {
    #[inline(always)]
    fn bit(&self, i: u32) -> u32 {
        self.get((i / 64) as usize)
            .map_or(0, |w| ((w >> (i % 64)) & 1) as u32)
    }

    #[inline(always)]
    fn nibble(&self, i: u32) -> u32 {
        self.get((i / 16) as usize)
            .map_or(0, |w| ((w >> (4 * (i % 16))) & 0xF) as u32)
    }
}

/// The dense wire body: word `j` as 8 little-endian bytes, so bit `i` is bit `i % 8` of byte
/// `i / 8` and counter `i` the low (even `i`) or high nibble of byte `i / 2`.
impl Cells for [u8] {
    #[inline(always)]
    fn bit(&self, i: u32) -> u32 {
        self.get((i / 8) as usize)
            .map_or(0, |&b| u32::from(b >> (i % 8)) & 1)
    }

    #[inline(always)]
    fn nibble(&self, i: u32) -> u32 {
        self.get((i / 2) as usize)
            .map_or(0, |&b| u32::from(b >> (4 * (i % 2))) & 0xF)
    }
}

/// The Bloom filter's test: all `k` probes of `hash` into `m` bits are set.
///
/// Branch-free: all `k` cells are read whatever they hold. An early exit mispredicts once per absent
/// key and serialises the cache misses of consecutive lookups; this measured faster for both absent
/// and present keys, in and out of cache (benches/bloom.rs). Counting the set bits, rather than
/// AND-ing `k` booleans, compiles on x86-64 to one `bt` + `adc` per probe.
#[inline(always)]
pub(crate) fn bloom_contains<C: Cells + ?Sized>(cells: &C, m: u32, k: u32, hash: u64) -> bool {
    let probe = Probe::new(hash);
    let mut set = 0u32;
    for i in 0..k {
        let bit = reduce(probe.nth(i), m);
        debug_assert!(bit < m, "reduce stays below m");
        set += cells.bit(bit);
    }
    set == k
}

/// The counting Bloom filter's test: all `k` probes of `hash` into `m` counters are non-zero
/// (branch-free, as [`bloom_contains`]).
#[inline(always)]
pub(crate) fn counting_contains<C: Cells + ?Sized>(cells: &C, m: u32, k: u32, hash: u64) -> bool {
    let probe = Probe::new(hash);
    let mut all = true;
    for i in 0..k {
        let counter = reduce(probe.nth(i), m);
        debug_assert!(counter < m, "reduce stays below m");
        all &= cells.nibble(counter) != 0;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::Cells;

    #[test]
    fn words_and_their_le_bytes_read_the_same_cells() {
        let words = [
            0x0123_4567_89ab_cdef_u64,
            0xfedc_ba98_7654_3210,
            0x8000_0000_0000_0001,
        ];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for i in 0..200 {
            assert_eq!(words[..].bit(i), bytes[..].bit(i), "bit {i}");
            assert_eq!(words[..].nibble(i), bytes[..].nibble(i), "counter {i}");
        }
        assert_eq!(words[..].bit(0), 1);
        assert_eq!(words[..].nibble(1), 0xe);
        assert_eq!(words[..].bit(191), 1);
        assert_eq!((words[..].bit(192), bytes[..].nibble(48)), (0, 0)); // past the end
    }
}
