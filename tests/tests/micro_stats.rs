//! False-positive rate of the micro filters against theory.
//!
//! The `K` positions of a key are independent bit fields of its hash, each uniform over the word, so
//! for a given filter an absent key passes with probability exactly fill^K (repeated positions within a
//! key do not change that). Over many filters and probes the number of false positives is a sum of
//! Bernoulli(fill_i^K) draws, with variance Σ q(1 − q); the test allows 4σ (two-sided probability of a
//! spurious failure 6·10⁻⁵, and the seeds are fixed).

use sketch_nostd::{MicroBloom, MicroBloom32};

const FILTERS: u64 = 200;
const PROBES_PER_FILTER: u64 = 1_000;

macro_rules! check_micro {
    ($ty:ty, $keys:expr) => {{
        let (mut fp, mut expected, mut variance) = (0u64, 0.0f64, 0.0f64);
        for f in 0..FILTERS {
            let mut filter = <$ty>::new();
            let base = f << 32;
            for key in base..base + $keys {
                filter.insert(&key);
            }
            for key in base..base + $keys {
                assert!(filter.contains(&key), "false negative");
            }
            let q = filter.estimated_fp_rate();
            let probes = (base + 1_000_000)..(base + 1_000_000 + PROBES_PER_FILTER);
            fp += probes.filter(|key| filter.contains(key)).count() as u64;
            expected += q * PROBES_PER_FILTER as f64;
            variance += q * (1.0 - q) * PROBES_PER_FILTER as f64;
        }
        let tol = 4.0 * variance.sqrt();
        assert!(
            (fp as f64 - expected).abs() <= tol,
            "{}: {fp} false positives, expected {expected:.1} ± {tol:.1}",
            stringify!($ty)
        );
    }};
}

#[test]
fn micro_bloom_fp_rate_is_fill_to_the_k() {
    check_micro!(MicroBloom<4>, 4);
    check_micro!(MicroBloom<3, 77>, 8);
    check_micro!(MicroBloom<10>, 2);
    check_micro!(MicroBloom32<2>, 3);
    check_micro!(MicroBloom32<12, 5>, 1);
}
