//! Counting Bloom filter: false-positive rates against the Bloom formula, deletes that restore the
//! filter exactly, counter saturation at the design load, and what removing a never-inserted key does.

use sketch_nostd::{
    sizing::{counting_words_for, fp_rate, k_for},
    CountingBloom, RemoveError,
};

/// How many standard deviations a measurement may stray: a 4σ two-sided normal band is left with
/// probability 6·10⁻⁵, so with fixed seeds a failure means the filter is wrong, not unlucky.
const Z: f64 = 4.0;

/// Keys inserted, probes never inserted, counters (as the Bloom reference table: n = 10,000, m ≈ 100,000).
const N: u64 = 10_000;
const PROBES: u64 = 100_000;
const WORDS: usize = 6_252; // 100,032 counters, as the 1,563-word Bloom table has 100,032 bits
const M: u64 = 16 * WORDS as u64;

/// σ of a measured FP rate around the filter's own rate q = fill^k.
///
/// Given the filter, each never-inserted probe hits k (practically independent, uniform) counters, so
/// it is a false positive with probability q = fill^k independently of the other probes: the count is
/// Binomial(PROBES, q), σ = √(q(1 − q)/PROBES).
fn sigma_given_filter(q: f64, probes: u64) -> f64 {
    (q * (1.0 - q) / probes as f64).sqrt()
}

/// σ of a measured FP rate around the formula p = (1 − e^(−kn/m))^k: the binomial sampling above plus
/// the randomness of the fill (number of zero counters after kn uniform throws into m counters has
/// variance m·e^(−a)·(1 − (1 + a)·e^(−a)), a = kn/m; q = ρ^k moves by k·p/ρ per unit of fill ρ).
fn sigma_around_formula(k: u32, n: u64, m: u64, probes: u64) -> f64 {
    let (m, k) = (m as f64, f64::from(k));
    let p = fp_rate(m as u64, n, k as u32);
    let a = k * n as f64 / m;
    let var_zero = m * (-a).exp() * (1.0 - (1.0 + a) * (-a).exp());
    let rho = 1.0 - (-a).exp();
    let sigma_fill = k * p / rho * var_zero.sqrt() / m;
    (sigma_given_filter(p, probes).powi(2) + sigma_fill.powi(2)).sqrt()
}

fn check_rate<const K: u32>(seed: u64) {
    let mut f = CountingBloom::<WORDS, K>::with_seed(seed);
    for key in 0..N {
        f.insert(&key);
    }
    assert!((0..N).all(|k| f.contains(&k)), "k = {K}: a false negative");
    let fp = (N..N + PROBES).filter(|k| f.contains(k)).count() as f64 / PROBES as f64;

    let q = f.estimated_fp_rate();
    let tol = Z * sigma_given_filter(q, PROBES);
    assert!(
        (fp - q).abs() <= tol,
        "seed {seed:#x}, k = {K}: measured FP {fp:.5} vs fill^k {q:.5} (±{tol:.5})"
    );
    let p = fp_rate(M, N, K);
    let tol = Z * sigma_around_formula(K, N, M, PROBES);
    assert!(
        (fp - p).abs() <= tol,
        "seed {seed:#x}, k = {K}: measured FP {fp:.5} vs formula {p:.5} (±{tol:.5})"
    );
}

#[test]
fn false_positive_rates_match_the_bloom_formula() {
    for seed in [0, 0x5eed_cafe] {
        check_rate::<1>(seed);
        check_rate::<2>(seed);
        check_rate::<4>(seed);
        check_rate::<7>(seed);
        check_rate::<10>(seed);
        check_rate::<14>(seed);
    }
}

#[test]
fn deleting_half_the_keys_gives_the_filter_of_the_other_half() {
    // Without saturation, counters are exact sums, so inserting 2n keys and removing n of them leaves
    // exactly the filter of the remaining n (same bytes), and with it the FP rate of n keys.
    let mut both = CountingBloom::<WORDS, 7>::with_seed(9);
    let mut kept = CountingBloom::<WORDS, 7>::with_seed(9);
    for key in 0..2 * N {
        both.insert(&key);
        if key % 2 == 0 {
            kept.insert(&key);
        }
    }
    assert_eq!(both.saturated_counters(), 0);
    for key in (1..2 * N).step_by(2) {
        assert_eq!(both.remove(&key), Ok(()), "key {key}");
    }
    assert_eq!(both, kept);
    assert!((0..2 * N).step_by(2).all(|k| both.contains(&k)));
    // The removed keys now answer like never-inserted keys: FP at the rate of n keys.
    let fp = (1..2 * N).step_by(2).filter(|k| both.contains(k)).count() as f64 / N as f64;
    let p = fp_rate(M, N, 7);
    let tol = Z * sigma_around_formula(7, N, M, N);
    assert!((fp - p).abs() <= tol, "{fp} vs {p} (±{tol})");
}

#[test]
fn sized_filters_meet_their_target_and_do_not_saturate() {
    // counting_words_for(n, p) counters hold n keys at rate p (the Bloom sizing). The formula at that
    // size is just below p; allow 4σ of the measurement.
    const N: u64 = 10_000;
    type F = CountingBloom<{ counting_words_for(N, 0.01) }, { k_for(N, 0.01) }>;
    assert_eq!(core::mem::size_of::<F>(), 5_991 * 8 + 8);
    let mut f = F::with_seed(1);
    for key in 0..N {
        f.insert(&key);
    }
    let probes = 200_000u64;
    let fp = (N..N + probes).filter(|k| f.contains(k)).count() as f64 / probes as f64;
    let tol = Z * sigma_given_filter(0.01, probes);
    assert!(fp <= 0.01 + tol, "measured {fp} for a 1% design");
    // Fan et al.: P(some counter ≥ 16) ≤ m·(e·ln 2/16)^16 ≈ 1.4·10⁻¹⁵·m ≈ 1.3·10⁻¹⁰ here.
    assert_eq!(f.saturated_counters(), 0);
    assert!(f.count_nonzero() > 0 && f.fill_ratio() < 0.55);
}

#[test]
fn removing_a_definitely_absent_key_is_refused_and_changes_nothing() {
    let mut f = CountingBloom::<64, 5>::with_seed(2);
    for key in 0..50u32 {
        f.insert(&key);
    }
    let mut refused = 0;
    for key in 1_000..3_000u32 {
        let before = f.clone();
        match f.remove(&key) {
            Err(e) => {
                assert_eq!(e, RemoveError::Absent);
                refused += 1;
                assert_eq!(f, before, "a refused remove changed the filter (key {key})");
                assert!(!f.contains(&key));
            }
            // A false positive: the filter cannot tell it from a member (tested below).
            Ok(()) => f = before,
        }
    }
    // 1,024 counters, 250 increments: FP ≈ (1 − e^(−250/1024))^5 ≈ 0.05%, so nearly all are refused.
    assert!(refused >= 1_990, "{refused} of 2,000 refused");
}

#[test]
fn removing_a_false_positive_can_bring_back_false_negatives() {
    // The documented hazard (Fan et al.): a never-inserted key that looks present is removed like a
    // member, taking counts from the members that share its counters. Every member it shares a
    // counter at 1 with becomes a false negative. A small, full filter makes false positives common.
    let mut f = CountingBloom::<16, 3>::with_seed(4);
    let members: Vec<u32> = (0..100).collect();
    for key in &members {
        f.insert(key);
    }
    let mut hazards = 0;
    let mut harmless = 0;
    for probe in 10_000..10_200u32 {
        if !f.contains(&probe) {
            continue;
        }
        let mut g = f.clone();
        assert_eq!(
            g.remove(&probe),
            Ok(()),
            "a false positive is removed like a member"
        );
        let lost = members.iter().filter(|k| !g.contains(*k)).count();
        // A member is lost exactly when the removal brought one of the counters to 0: every non-zero
        // counter was raised by members only, so the members that raised it lose it.
        let zeroed = (0..16 * 16).any(|i| f.counter(i) != Some(0) && g.counter(i) == Some(0));
        assert_eq!(lost > 0, zeroed, "probe {probe}");
        if lost > 0 {
            hazards += 1;
        } else {
            harmless += 1;
        }
    }
    assert!(
        hazards > 0,
        "no false positive caused a false negative ({harmless} harmless)"
    );
}

#[test]
fn union_adds_multisets() {
    let (mut a, mut b, mut both) = (
        CountingBloom::<WORDS, 7>::with_seed(5),
        CountingBloom::<WORDS, 7>::with_seed(5),
        CountingBloom::<WORDS, 7>::with_seed(5),
    );
    for key in 0..N {
        if key % 3 == 0 {
            a.insert(&key);
        } else {
            b.insert(&key);
        }
        both.insert(&key);
    }
    a.merge(&b).unwrap();
    assert_eq!(a, both);
    for key in (0..N).filter(|k| k % 3 == 0) {
        a.remove(&key).unwrap();
    }
    assert!((0..N).filter(|k| k % 3 != 0).all(|k| a.contains(&k)));
    assert!(a.merge(&CountingBloom::with_seed(6)).is_err());
}
