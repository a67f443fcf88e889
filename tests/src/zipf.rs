//! The seeded reference Zipf stream (weights 1/r over the ranks, drawn with `sketch-rng`'s sampler)
//! and the overestimate statistics of its tables. The one copy: the tests, the `countmin_table`
//! example and the benches (through their dependency on `sketch-tests`) all draw the same events.

use sketch_rng::{SplitMix64, Zipf};

/// The reference stream: `events` draws from Zipf's law with exponent 1 over ranks `1..=keys`
/// (rank `r` with probability `(1/r) / H(keys)`), seeded. Each event is the rank.
pub fn zipf_stream(keys: u32, events: usize, seed: u64) -> Vec<u32> {
    let zipf = Zipf::new(keys as usize, 1.0);
    let mut rng = SplitMix64(seed);
    (0..events)
        .map(|_| zipf.sample(&mut rng) as u32 + 1)
        .collect()
}

/// Exact counts of a stream of ranks in `1..=keys`: `counts[r]` is the count of rank `r`
/// (`counts[0]` is unused).
pub fn exact_counts(stream: &[u32], keys: u32) -> Vec<u64> {
    let mut counts = vec![0u64; keys as usize + 1];
    for &r in stream {
        counts[r as usize] += 1;
    }
    counts
}

/// The reference stream's parameters: 50,000 keys, 200,000 events.
pub const REFERENCE_KEYS: u32 = 50_000;
/// The reference stream's parameters: 50,000 keys, 200,000 events.
pub const REFERENCE_EVENTS: usize = 200_000;
/// The seed the tests and the example use for the reference stream.
pub const REFERENCE_SEED: u64 = 2004;

/// How a frequency estimator's answers compare with the exact counts, over every key of a universe.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overestimates {
    /// The largest `estimate − true` over all keys.
    pub worst: u64,
    /// Keys whose overestimate is above the bound given to [`Overestimates::measure`].
    pub above_bound: usize,
    /// Keys estimated below their true count.
    pub under: usize,
    /// Mean overestimate over every key of the universe, seen in the stream or not.
    pub mean_per_key: f64,
    /// Mean overestimate over the keys that occur in the stream.
    pub mean_per_seen_key: f64,
    /// Mean overestimate over the events: what a query for a random event's key sees.
    pub mean_per_event: f64,
}

impl Overestimates {
    /// Compares `estimate(r)` with `truth[r]` for every rank `r` in `1..truth.len()`
    /// (`truth` as returned by [`exact_counts`]); underestimates count as 0 in the means.
    pub fn measure(truth: &[u64], bound: u64, estimate: impl Fn(u32) -> u64) -> Self {
        let mut o = Self::default();
        let (mut sum, mut sum_seen, mut seen, mut sum_events, mut events) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        for (r, &t) in truth.iter().enumerate().skip(1) {
            let est = estimate(r as u32);
            if est < t {
                o.under += 1;
            }
            let over = est.saturating_sub(t);
            o.worst = o.worst.max(over);
            o.above_bound += usize::from(over > bound);
            sum += over;
            if t > 0 {
                seen += 1;
                sum_seen += over;
                sum_events += over * t;
                events += t;
            }
        }
        let keys = truth.len().saturating_sub(1).max(1) as f64;
        o.mean_per_key = sum as f64 / keys;
        o.mean_per_seen_key = sum_seen as f64 / seen.max(1) as f64;
        o.mean_per_event = sum_events as f64 / events.max(1) as f64;
        o
    }
}

/// The `n` keys with the largest true counts, largest first (ties by rank).
pub fn true_top(truth: &[u64], n: usize) -> Vec<u32> {
    let mut ranks: Vec<u32> = (1..truth.len() as u32).collect();
    ranks.sort_by(|a, b| truth[*b as usize].cmp(&truth[*a as usize]).then(a.cmp(b)));
    ranks.truncate(n);
    ranks
}

/// How a heavy-hitter list compares with the true top `n`.
#[derive(Clone, Debug, PartialEq)]
pub struct TopCheck {
    /// How many of the true top `n` are among the first `n` listed.
    pub recall: usize,
    /// Whether the first `n` listed are exactly the true top `n`, in the same order.
    pub in_order: bool,
    /// The largest `(count − true) / true` among the first `n` listed.
    pub worst_relative_error: f64,
    /// Listed keys (among the first `n`) whose count is below their true count.
    pub under: usize,
}

impl TopCheck {
    /// Compares `listed` (key, count), largest first, with the exact counts `truth`.
    pub fn measure(truth: &[u64], listed: &[(u32, u64)], n: usize) -> Self {
        let top = true_top(truth, n);
        let listed = &listed[..listed.len().min(n)];
        let mut check = Self {
            recall: top
                .iter()
                .filter(|k| listed.iter().any(|(l, _)| l == *k))
                .count(),
            in_order: listed.iter().map(|(k, _)| *k).eq(top.iter().copied()),
            worst_relative_error: 0.0,
            under: 0,
        };
        for &(k, c) in listed {
            let t = truth.get(k as usize).copied().unwrap_or(0);
            check.under += usize::from(c < t);
            let rel = (c as f64 - t as f64) / (t.max(1) as f64);
            check.worst_relative_error = check.worst_relative_error.max(rel);
        }
        check
    }

    /// All of the top-k targets: full recall, true order, never under, within `tolerance`.
    pub fn meets(&self, n: usize, tolerance: f64) -> bool {
        self.recall == n
            && self.in_order
            && self.under == 0
            && self.worst_relative_error <= tolerance
    }
}
