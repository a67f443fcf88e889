//! The register values of a sketch in order, whether it is sparse or dense.

use core::fmt;

use super::{registers, sparse, HyperLogLog};

impl<const P: u8, const BYTES: usize> HyperLogLog<P, BYTES> {
    /// Every register value in order, `m` of them, whether the sketch is sparse or dense (while
    /// sparse, the values the coupons would set). Two sketches fed the same keys in any grouping and
    /// order, and merged in any way, yield the same registers.
    ///
    /// ```
    /// let mut h = sketch_nostd::Hll4::new();
    /// h.insert_hash(0x3200_0000_0000_0000); // register 3, rank 3
    /// let regs: Vec<u8> = h.registers().collect();
    /// assert_eq!(regs.len(), 16);
    /// assert_eq!(regs[3], 3);
    /// assert_eq!(regs.iter().filter(|&&r| r != 0).count(), 1);
    /// ```
    #[must_use]
    pub fn registers(&self) -> Registers<'_> {
        Registers {
            sparse: (!self.dense).then(|| sparse::Cursor::new(BYTES, true)),
            ..Registers::packed(&self.data, Self::P32)
        }
    }
}

/// Iterator over the register values of a [`HyperLogLog`], from [`HyperLogLog::registers`].
///
/// Its `Debug` shows the precision, the form read and the position, not the sketch's bytes.
#[derive(Clone)]
pub struct Registers<'a> {
    bytes: &'a [u8],
    p: u32,
    next: usize,
    sparse: Option<sparse::Cursor>,
}

impl<'a> Registers<'a> {
    /// The `2^p` packed 6-bit registers in `bytes`, in order (the dense form; `DeviceHll`'s only one).
    pub(super) fn packed(bytes: &'a [u8], p: u32) -> Self {
        Self {
            bytes,
            p,
            next: 0,
            sparse: None,
        }
    }
}

impl Iterator for Registers<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        let i = self.next;
        if i >= 1 << self.p {
            return None;
        }
        self.next += 1;
        let Some(cursor) = &mut self.sparse else {
            return Some(registers::get(self.bytes, i));
        };
        let mut value = 0;
        while let Some(coupon) = cursor.peek(self.bytes) {
            let (j, rank) = sparse::register_of(coupon, self.p);
            if j > i {
                break;
            }
            value = value.max(rank);
            cursor.advance();
        }
        Some(value)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (1usize << self.p).saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for Registers<'_> {}

impl fmt::Debug for Registers<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registers")
            .field("precision", &self.p)
            .field("sparse", &self.sparse.is_some())
            .field("next", &self.next)
            .field("remaining", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn debug_is_a_summary_not_the_registers() {
        let mut h = crate::Hll14::new();
        h.insert("a");
        let mut regs = h.registers();
        regs.next();
        assert_eq!(
            format!("{regs:?}"),
            "Registers { precision: 14, sparse: true, next: 1, remaining: 16383 }"
        );
        h.to_dense();
        assert_eq!(
            format!("{:?}", h.registers()),
            "Registers { precision: 14, sparse: false, next: 0, remaining: 16384 }"
        );
    }
}
