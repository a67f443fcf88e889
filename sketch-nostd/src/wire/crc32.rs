//! The frame checksum: CRC-32/ISO-HDLC (the zlib, Ethernet and PNG CRC), computed byte by byte as a
//! frame is written, and over a whole payload when one is checked.
//!
//! Computed bit by bit: eight steps a byte (shift right, xor the polynomial if the bit shifted out
//! was 1), no table. Why: a device frames rarely and its flash is what runs out, so the smallest
//! code wins over the fastest; the table-driven and 16-entry forms were measured against it on a
//! Cortex-M0 (figures and method: `docs/firmware.md`, "The frame CRC").
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
