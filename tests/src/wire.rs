//! Helpers of the wire-format tests: a sketch's encoding as a `Vec`, and registers packed by hand.

use sketch_nostd::wire::{self, Wire};

/// The bytes [`wire::encode`] writes for `sketch`.
///
/// # Panics
/// If encoding fails (it cannot into a buffer of `T::MAX_ENCODED_LEN` bytes).
pub fn encoded<T: Wire>(sketch: &T) -> Vec<u8> {
    let mut buf = vec![0u8; T::MAX_ENCODED_LEN];
    let n = wire::encode(sketch, &mut buf).unwrap().len();
    buf.truncate(n);
    buf
}

/// Packs register values LSB-first at 6 bits each, independently of the library (register `i` at
/// bits `6i..6i+6`), so the tests also pin the documented layout.
pub fn pack<const BYTES: usize>(values: &[u8]) -> [u8; BYTES] {
    let mut out = [0u8; BYTES];
    for (i, &v) in values.iter().enumerate() {
        for bit in 0..6 {
            if v >> bit & 1 == 1 {
                let at = 6 * i + bit;
                out[at / 8] |= 1 << (at % 8);
            }
        }
    }
    out
}
