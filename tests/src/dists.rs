//! Seeded value distributions for the quantile sketch's accuracy tests, its accuracy table
//! (`examples/quantile_accuracy.rs`) and its benchmark: latencies in microseconds, all within
//! 1 … 10^9, the range the 1% quantile sketch is sized for.

use sketch_rng::SplitMix64;

/// A distribution of positive values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Uniform on `[1, 10^6)`.
    Uniform,
    /// Log-normal, median 1,000 (e^6.9), σ = 1 (in ln): a service's latency.
    LogNormal,
    /// Pareto with minimum 1 and shape 1.16 (the "80/20" tail): response sizes.
    Pareto,
    /// 70% log-normal around 200 (σ = 0.2) and 30% around 20,000 (σ = 0.3): cache hits and misses.
    Bimodal,
}

impl Dist {
    /// Every distribution, in table order.
    pub const ALL: [Dist; 4] = [Dist::Uniform, Dist::LogNormal, Dist::Pareto, Dist::Bimodal];

    /// The name in tables.
    pub fn name(self) -> &'static str {
        match self {
            Dist::Uniform => "uniform",
            Dist::LogNormal => "lognormal",
            Dist::Pareto => "pareto",
            Dist::Bimodal => "bimodal",
        }
    }

    /// One value.
    pub fn sample(self, rng: &mut SplitMix64) -> f64 {
        match self {
            Dist::Uniform => 1.0 + rng.next_f64() * 999_999.0,
            Dist::LogNormal => (6.9 + normal(rng)).exp(),
            // 1 − u is in (0, 1]: the largest value is 2^(53/1.16) ≈ 6·10^13 at worst, far beyond
            // reach at 10^8 samples (P(x > 10^9) = 10^(−9·1.16) ≈ 3.6·10^-11 per sample).
            Dist::Pareto => (1.0 - rng.next_f64()).powf(-1.0 / 1.16),
            Dist::Bimodal => {
                if rng.next_f64() < 0.7 {
                    (200f64.ln() + 0.2 * normal(rng)).exp()
                } else {
                    (20_000f64.ln() + 0.3 * normal(rng)).exp()
                }
            }
        }
    }

    /// `n` values from `seed`.
    pub fn values(self, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = SplitMix64(seed);
        (0..n).map(|_| self.sample(&mut rng)).collect()
    }
}

/// A standard normal variate (Box–Muller, one of the pair).
fn normal(rng: &mut SplitMix64) -> f64 {
    let u = 1.0 - rng.next_f64(); // (0, 1]
    let v = rng.next_f64();
    (-2.0 * u.ln()).sqrt() * (core::f64::consts::TAU * v).cos()
}

/// The exact `q`-quantile of `sorted` with the sketch's rank definition: the element of rank
/// `⌊q·(n − 1)⌋`, from 0.
pub fn exact_quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[(q * (sorted.len() - 1) as f64) as usize]
}
