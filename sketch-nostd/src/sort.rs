//! Sorting for the canonical orders of heavy-hitter summaries ([`Tracker::sorted`] and the wire
//! encoder).
//!
//! A heapsort: in place, O(n log n) comparisons in the worst case, no recursion, and a few hundred
//! bytes of Cortex-M0 code per element type. `core`'s `sort_unstable_by` is faster on large inputs,
//! but on a Cortex-M0 it linked about 9 KB (its quicksort, small-sort networks and pivot selection),
//! most of a heavy-hitter firmware's wire code, for summaries of at most a few hundred entries. The
//! callers' orders are total (ties broken by key), so the result does not depend on the algorithm.
//!
//! [`Tracker::sorted`]: crate::tracker::Tracker::sorted

use core::{cmp::Ordering, mem};

/// Sorts `v` in ascending order of `compare`, which must be a total order. Written with checked
/// accesses only, so it has no panic path.
pub(crate) fn sort_by<T>(v: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut less = |a: &T, b: &T| compare(a, b) == Ordering::Less;
    let len = v.len();
    // Build a max-heap, then move its maximum to the end of the shrinking heap, one at a time.
    for node in (0..len / 2).rev() {
        sift_down(v, node, &mut less);
    }
    for end in (1..len).rev() {
        let Some((top, rest)) = v.get_mut(..=end).and_then(<[T]>::split_first_mut) else {
            return;
        };
        if let Some(last) = rest.last_mut() {
            mem::swap(top, last);
        }
        if let Some(heap) = v.get_mut(..end) {
            sift_down(heap, 0, &mut less);
        }
    }
}

/// Restores the heap order of `heap` below `node`.
fn sift_down<T>(heap: &mut [T], mut node: usize, less: &mut impl FnMut(&T, &T) -> bool) {
    loop {
        let mut child = 2 * node + 1;
        let Some(left) = heap.get(child) else {
            return;
        };
        if heap.get(child + 1).is_some_and(|right| less(left, right)) {
            child += 1;
        }
        let Some((upper, lower)) = heap.split_at_mut_checked(child) else {
            return;
        };
        let (Some(parent), Some(larger)) = (upper.get_mut(node), lower.first_mut()) else {
            return;
        };
        if !less(parent, larger) {
            return;
        }
        mem::swap(parent, larger);
        node = child;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_core() {
        let mut state = 0x1234_5678_9abc_def0u64;
        for len in (0..40).chain([100, 255, 256, 1_000]) {
            for modulus in [3u64, 1_000, u64::MAX] {
                let mut v: Vec<(u64, u32)> = (0..len)
                    .map(|i| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        (state % modulus, i)
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_unstable();
                sort_by(&mut v, |a, b| a.cmp(b));
                assert_eq!(v, want, "len {len}, values mod {modulus}");
                // Descending, as the summaries list their counts.
                sort_by(&mut v, |a, b| b.cmp(a));
                want.reverse();
                assert_eq!(v, want);
            }
        }
    }
}
