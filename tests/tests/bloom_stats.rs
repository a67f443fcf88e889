//! The Bloom reference table, reproduced with tolerances from the binomial distribution.
//!
//! The rows are measured by `sketch_tests::bloom_table`, which the `bloom_table` example prints, so
//! the example and this test cannot drift apart.

use sketch_tests::bloom_table::{table, Row, N, PROBES};

/// How many standard deviations a measurement may stray: a 4σ two-sided normal band is left with
/// probability 6·10⁻⁵, so with fixed seeds a failure means the hashing or the filter is wrong, not luck.
const Z: f64 = 4.0;

/// Standard deviation of the measured FP rate around the filter's own rate q = fill^k.
///
/// Given the filter, each never-inserted probe hits k positions that are (for a well-mixed hash)
/// independent and uniform, so it is a false positive with probability q = fill^k, independently of the
/// other probes: the count of false positives is Binomial(PROBES, q), with σ = √(q(1 − q)/PROBES).
fn sigma_given_filter(q: f64) -> f64 {
    (q * (1.0 - q) / PROBES as f64).sqrt()
}

/// Standard deviation of the measured FP rate around the formula p = (1 − e^(−kn/m))^k.
///
/// Two independent sources add in variance: the binomial sampling of the probes (as above, at p), and
/// the filter's own fill, which is random. The number of clear bits after kn uniform throws into m bits
/// has variance m·e^(−a)·(1 − (1 + a)·e^(−a)) with a = kn/m (the classical occupancy problem), so the
/// fill ρ has σ_ρ = √that / m, and q = ρ^k moves by dq/dρ·σ_ρ = k·p/ρ·σ_ρ.
fn sigma_around_formula(row: &Row) -> f64 {
    let m = row.m as f64;
    let a = f64::from(row.k) * N as f64 / m;
    let var_clear = m * (-a).exp() * (1.0 - (1.0 + a) * (-a).exp());
    let rho = 1.0 - (-a).exp();
    let sigma_fill = f64::from(row.k) * row.formula / rho * var_clear.sqrt() / m;
    (sigma_given_filter(row.formula).powi(2) + sigma_fill.powi(2)).sqrt()
}

#[test]
fn reference_table_matches_the_formula_within_binomial_tolerance() {
    for seed in [0, 0x5eed_cafe] {
        for row in table(seed) {
            let measured = row.measured();
            assert_eq!(row.missed, 0, "k = {}: a false negative", row.k);

            let q = row.fill.powi(row.k as i32);
            let tol = Z * sigma_given_filter(q);
            assert!(
                (measured - q).abs() <= tol,
                "seed {seed:#x}, k = {}: measured FP {measured:.5} vs fill^k {q:.5} (±{tol:.5})",
                row.k
            );

            let tol = Z * sigma_around_formula(&row);
            assert!(
                (measured - row.formula).abs() <= tol,
                "seed {seed:#x}, k = {}: measured FP {measured:.5} vs formula {:.5} (±{tol:.5})",
                row.k,
                row.formula
            );
        }
    }
}

#[test]
fn k_near_optimal_gives_the_lowest_rate() {
    // m/n ≈ 10 bits per key: the optimum k = (m/n)·ln 2 ≈ 6.9, so k = 7 must beat k = 1, 2, 14.
    let rows = table(7);
    let fp = |k: u32| rows.iter().find(|r| r.k == k).map(Row::measured).unwrap();
    for worse in [1, 2, 14] {
        assert!(
            fp(7) < fp(worse),
            "k = 7: {} vs k = {worse}: {}",
            fp(7),
            fp(worse)
        );
    }
}

#[test]
fn estimated_fp_and_len_track_the_truth() {
    use sketch_nostd::Bloom;
    let mut f = Bloom::<1_563, 7>::with_seed(3);
    for key in 0..N {
        f.insert(&key);
    }
    // Both estimates are functions of the number of clear bits Z, whose σ is given by the occupancy
    // variance above: σ_Z = √(m·e^(−a)·(1 − (1 + a)·e^(−a))), a = kn/m.
    let (m, k) = (100_032.0_f64, 7.0_f64);
    let a = k * N as f64 / m;
    let z = m * (-a).exp();
    let sigma_z = (z * (1.0 - (1.0 + a) * (-a).exp())).sqrt();

    // Swamidass–Baldi n̂ = −(m/k)·ln(Z/m): |dn̂/dZ| = m/(k·Z).
    let len = f.cardinality();
    let tol = Z * m / (k * z) * sigma_z;
    assert!(
        (len - N as f64).abs() <= tol,
        "cardinality {len} vs {N} (±{tol:.1})"
    );

    // fill^k with fill = 1 − Z/m: |dq/dZ| = k·q/(m·fill).
    let expected = sketch_nostd::sizing::fp_rate(100_032, N, 7);
    let est = f.estimated_fp_rate();
    let tol = Z * k * expected / (m - z) * sigma_z;
    assert!(
        (est - expected).abs() <= tol,
        "estimated_fp_rate {est} vs {expected} (±{tol:.6})"
    );
}
