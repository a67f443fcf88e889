//! The frame checksum: CRC-32/ISO-HDLC (the zlib, Ethernet and PNG CRC), computed byte by byte as a
//! frame is written, and over a whole payload when one is checked.
//!
//! Computed bit by bit: eight steps a byte (shift right, xor the polynomial if the bit shifted out
//! was 1), no table. Measured on a Cortex-M0
//! (`docs/firmware.md`): a firmware inserting into a `MicroBloom<3>` and framing it, minus an empty
//! firmware, was 2,372 B with the `crc` crate's 256-entry table (1,028 B of them the table), 1,460 B
//! with its table-less form and 1,288 B with a 16-entry table four bits at a time (the `crc` crate
//! has no such form: its `Table<16>` is 16 × 256 entries, 16 KB); this loop is 68 B smaller than the
//! 16-entry table and its two lookups, for about 60 more instructions per framed byte on the M0
//! (a device frames rarely; its flash is what runs out).
//! The value is CRC-32/ISO-HDLC's (the unit tests check it against the `crc` crate's).
//!
//! Its own module because both paths use it: the send path (`send.rs`) checksums a frame as
//! it writes it, the receive path (`frame.rs`) checks a whole payload.

/// Reflected polynomial of CRC-32/ISO-HDLC.
const POLY: u32 = 0xEDB8_8320;

/// A running checksum.
#[derive(Clone, Copy)]
pub(crate) struct Running(u32);

impl Running {
    /// Adds bytes.
    #[inline]
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            let mut c = self.0 ^ u32::from(b);
            for _ in 0..8 {
                let low = c & 1;
                c >>= 1;
                if low != 0 {
                    c ^= POLY;
                }
            }
            self.0 = c;
        }
    }

    /// The checksum of the bytes added.
    pub(crate) const fn finalize(self) -> u32 {
        !self.0
    }
}

/// A checksum before the first byte.
pub(crate) const fn start() -> Running {
    Running(!0)
}

/// The checksum of `bytes`.
pub(crate) fn checksum(bytes: &[u8]) -> u32 {
    let mut r = start();
    r.update(bytes);
    r.finalize()
}

#[cfg(test)]
mod tests {
    #[test]
    fn equals_the_crc_crates_crc_32_iso_hdlc() {
        let reference = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
        assert_eq!(super::checksum(b"123456789"), 0xCBF4_3926);
        let data: Vec<u8> = (0..2_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for len in [0, 1, 2, 3, 100, 2_000] {
            assert_eq!(
                super::checksum(&data[..len]),
                reference.checksum(&data[..len])
            );
        }
    }
}
