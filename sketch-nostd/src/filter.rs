//! What the bit- and counter-array filters share ([`Bloom`](crate::Bloom),
//! [`BlockedBloom`](crate::BlockedBloom), [`CountingBloom`](crate::CountingBloom),
//! [`MicroBloom`](crate::MicroBloom)): the estimates from the fill, the in-place loader and the
//! element-wise merge.

use crate::error::{check_seeds, MergeError};

/// (fill)^k: the false-positive rate of a filter with this fraction of bits set.
pub(crate) fn fp_rate_from_fill(fill: f64, k: u32) -> f64 {
    libm::pow(fill, f64::from(k))
}

/// Swamidass–Baldi estimate of the number of keys in `m` bits with `ones` set and `k` hashes.
pub(crate) fn cardinality_from_fill(ones: u32, m: u32, k: u32) -> f64 {
    if ones >= m {
        return f64::INFINITY;
    }
    let m = f64::from(m);
    -(m / f64::from(k)) * libm::log1p(-f64::from(ones) / m)
}

/// Zeroes `array`, lets `fill` write it in place, then stores `seed` in `slot` if `fill` succeeds and
/// zeroes the array again if it fails: the loader of the filters whose every bit pattern is valid
/// (`Bloom`, `BlockedBloom`, `CountingBloom`), for decoders that must not make a second filter-sized
/// value.
#[cfg(feature = "wire")]
pub(crate) fn load_zeroed<T: Copy, const N: usize, E>(
    array: &mut [T; N],
    zero: T,
    (slot, seed): (&mut u64, u64),
    fill: impl FnOnce(&mut [T; N]) -> Result<(), E>,
) -> Result<(), E> {
    array.fill(zero);
    let result = fill(array);
    match result {
        Ok(()) => *slot = seed,
        Err(_) => array.fill(zero),
    }
    result
}

/// `mine[i] = op(mine[i], theirs[i])` for every element if the seeds `(ours, theirs)` are equal;
/// nothing changes if they differ. The merges of the filters that combine word by word: union and
/// intersection of `Bloom` and `BlockedBloom`, union of `CountingBloom`.
pub(crate) fn combine<'a, 'b, T: Copy + 'a + 'b>(
    (ours, their_seed): (u64, u64),
    mine: impl IntoIterator<Item = &'a mut T>,
    theirs: impl IntoIterator<Item = &'b T>,
    op: impl Fn(T, T) -> T,
) -> Result<(), MergeError> {
    check_seeds(ours, their_seed)?;
    for (m, &t) in mine.into_iter().zip(theirs) {
        *m = op(*m, t);
    }
    Ok(())
}
