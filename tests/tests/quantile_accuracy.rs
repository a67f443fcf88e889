//! Accuracy of the quantile sketch (its targets at test sizes): α = 1% over 1 … 10^9 in 1,047
//! buckets; p50, p90, p99 and p999 of uniform, log-normal, Pareto and bimodal values, 10^3 to 10^5 of
//! them (seeded), from one sketch and from a merge of 16, each within α of the exact quantile.
//!
//! The bound is not statistical: while no bucket collapsed (asserted), the reported quantile is the
//! representative of the bucket holding the element of rank ⌊q·(n − 1)⌋, within α of anything in that
//! bucket. So the tolerance is exactly `ALPHA`, with no slack. `examples/quantile_accuracy.rs`
//! regenerates the table in `docs/quantiles.md` with 10^6 … 10^8 values.

use sketch_nostd::countmin::Counter;
use sketch_nostd::sizing::{quantile_buckets, quantile_sub_buckets};
use sketch_nostd::QuantileSketch;
use sketch_tests::dists::{exact_quantile, Dist};

const SUB: usize = quantile_sub_buckets(0.01);
const BUCKETS: usize = quantile_buckets(0.01, 1.0, 1e9);
type Q32 = QuantileSketch<SUB, BUCKETS, u32>;
type Q16 = QuantileSketch<SUB, BUCKETS, u16>;

const QS: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

fn check<C: Counter>(name: &str, q: &QuantileSketch<SUB, BUCKETS, C>, sorted: &[f64]) {
    assert!(!q.is_collapsed() && !q.is_saturated(), "{name}");
    assert_eq!(q.count(), sorted.len() as u64, "{name}");
    for p in QS {
        let truth = exact_quantile(sorted, p);
        let est = q.quantile(p).unwrap();
        let err = (est - truth).abs() / truth;
        assert!(
            err <= q.error_bound(),
            "{name} p{p}: {est} vs {truth} ({err})"
        );
    }
}

#[test]
fn sized_for_the_target() {
    assert_eq!((SUB, BUCKETS), (35, 1_047));
    const { assert!(Q32::ALPHA <= 0.01) };
    assert!(core::mem::size_of::<Q32>() <= 4_608); // 4.5 KB
    assert!(core::mem::size_of::<Q16>() <= 2_304); // half
}

#[test]
fn every_distribution_within_alpha_alone_and_merged() {
    for (i, dist) in Dist::ALL.into_iter().enumerate() {
        for n in [1_000, 10_000, 100_000] {
            let values = dist.values(n, 0x5eed + i as u64 * 1_000 + n as u64);
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);

            let mut one = Box::new(Q32::new());
            let mut half = Box::new(Q16::new());
            let mut parts: Vec<Q32> = (0..16).map(|_| Q32::new()).collect();
            for (j, &v) in values.iter().enumerate() {
                one.insert(v);
                half.insert(v);
                parts[j % 16].insert(v);
            }
            let mut merged = Box::new(Q32::new());
            for p in &parts {
                merged.merge(p).unwrap();
            }
            let name = format!("{} n={n}", dist.name());
            check(&name, &one, &sorted);
            check(&format!("{name} u16"), &half, &sorted);
            check(&format!("{name} merged"), &merged, &sorted);
            // Merging buckets is exact: the merge holds the same counts as one sketch of everything.
            assert!(merged.rank(1e9) == one.rank(1e9));
            for p in QS {
                assert_eq!(merged.quantile(p), one.quantile(p), "{name}");
            }
        }
    }
}

#[test]
fn integer_latencies_within_alpha() {
    // Microsecond latencies as integers: the same buckets as the f64s.
    let values: Vec<u64> = Dist::LogNormal
        .values(50_000, 77)
        .iter()
        .map(|v| v.round().max(1.0) as u64)
        .collect();
    let mut q = Q32::new();
    let mut f = Q32::new();
    for &v in &values {
        q.insert(v);
        f.insert(v as f64);
    }
    assert!(q == f);
    let mut sorted: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    sorted.sort_by(f64::total_cmp);
    check("integers", &q, &sorted);
}
