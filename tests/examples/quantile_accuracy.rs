//! The accuracy table of `docs/quantiles.md`: the measured relative error of p50, p90, p99 and p999
//! of `QuantileSketch` at α = 1% over 1 … 10^9 (35 buckets per octave, 1,047 `u32` counters,
//! 4,256 bytes) on 10^6, 10^7 and 10^8 seeded values of each distribution of
//! `sketch_tests::dists`, from one sketch and from a merge of 16 (value `i` into sketch `i % 16`).
//!
//! `cargo run --release -p sketch-tests --example quantile_accuracy` (about a minute a distribution;
//! the exact quantiles hold 10^8 `f64`s, 800 MB). Prints the markdown table; exits non-zero if any
//! error exceeds α.

use sketch_nostd::QuantileSketch;
use sketch_tests::dists::Dist;

type Q = QuantileSketch<35, 1_047>;
const QS: [f64; 4] = [0.5, 0.9, 0.99, 0.999];

fn main() {
    println!(
        "| distribution | values | p50 | p90 | p99 | p999 | worst after merging 16 | collapsed |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |");
    let mut worst_all: f64 = 0.0;
    for (i, dist) in Dist::ALL.into_iter().enumerate() {
        for exp in [6u32, 7, 8] {
            let n = 10usize.pow(exp);
            let mut values = dist.values(n, 0xacc0 + 100 * i as u64 + u64::from(exp));
            let mut one = Box::new(Q::new());
            let mut parts: Vec<Q> = (0..16).map(|_| Q::new()).collect();
            for (j, &v) in values.iter().enumerate() {
                one.insert(v);
                parts[j % 16].insert(v);
            }
            let mut merged = Box::new(Q::new());
            for p in &parts {
                merged.merge(p).expect("same parameters");
            }
            let mut errs = Vec::new();
            let mut worst_merged: f64 = 0.0;
            for q in QS {
                let rank = (q * (n - 1) as f64) as usize;
                let (_, &mut truth, _) = values.select_nth_unstable_by(rank, f64::total_cmp);
                let err = |est: Option<f64>| (est.expect("not empty") - truth).abs() / truth;
                errs.push(err(one.quantile(q)));
                worst_merged = worst_merged.max(err(merged.quantile(q)));
            }
            let worst = errs.iter().copied().fold(worst_merged, f64::max);
            worst_all = worst_all.max(worst);
            let cells: Vec<String> = errs.iter().map(|e| format!("{:.3}%", e * 100.0)).collect();
            println!(
                "| {} | 10^{exp} | {} | {:.3}% | {} |",
                dist.name(),
                cells.join(" | "),
                worst_merged * 100.0,
                if one.is_collapsed() || merged.is_collapsed() {
                    "yes"
                } else {
                    "no"
                },
            );
        }
    }
    println!(
        "\nα = {:.4}%; worst error measured {:.4}%",
        Q::ALPHA * 100.0,
        worst_all * 100.0
    );
    if worst_all > Q::ALPHA {
        eprintln!("an error exceeds α");
        std::process::exit(1);
    }
}
