//! Accuracy and memory figures, measured deterministically (fixed keys and seeds, no timing): the
//! non-timing rows of the performance tables (docs/performance.md).

use crate::adapters::{
    self, counting_words, cuckoo_buckets, BenchKey, Deletable, Distinct, Filter, Frequency, FuseKey,
};
use crate::keys::zipf::{
    exact_counts, zipf_stream, Overestimates, REFERENCE_EVENTS, REFERENCE_KEYS, REFERENCE_SEED,
};
use crate::keys::{as_strs, string_keys, u64_keys, ABSENT_SEED, HUGE, LARGE, MEMBER_SEED, SMALL};
use sketch_nostd::countmin::{Conservative, Standard};
use xorf::Filter as _;

/// One figure of one implementation: a cell of a performance table.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The table (sketch family): `bloom`, `hll`, `countmin`, `deletable`, `quantile`.
    pub family: &'static str,
    /// The row, e.g. `10k u64 · measured FP`.
    pub row: String,
    /// The implementation (column).
    pub column: String,
    /// The formatted figure.
    pub value: String,
}

/// Collects cells for one family.
struct Cells<'a> {
    family: &'static str,
    out: &'a mut Vec<Cell>,
}

impl Cells<'_> {
    fn put(&mut self, row: &str, column: &str, value: String) {
        self.out.push(Cell {
            family: self.family,
            row: row.to_owned(),
            column: column.to_owned(),
            value,
        });
    }
}

/// Absent keys probed for each false-positive rate (enough for about ±1% relative precision at 1%).
pub const FP_PROBES: usize = 1_000_000;

/// Formats a byte count with thousands separators.
#[must_use]
pub fn bytes(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn percent(x: f64) -> String {
    format!("{:.3}%", 100.0 * x)
}

/// Inserts `members`, checks there is no false negative, and returns the false-positive rate over
/// `absent` and the filter's bytes.
fn measure_filter<K: BenchKey, F: Filter<K>>(
    mut f: F,
    members: &[K],
    absent: &[K],
) -> (f64, usize) {
    for k in members {
        f.insert(k);
    }
    assert!(members.iter().all(|k| f.contains(k)), "a false negative");
    let fp = absent.iter().filter(|k| f.contains(k)).count();
    (fp as f64 / absent.len() as f64, f.bytes())
}

fn bloom_scenario<K: BenchKey + FuseKey, F0: Filter<K>, F1: Filter<K>>(
    cells: &mut Cells<'_>,
    label: &str,
    (ours, blocked): (F0, F1),
    members: &[K],
    absent: &[K],
) {
    let n = members.len();
    let ours = measure_filter(ours, members, absent);
    let blocked = measure_filter(blocked, members, absent);
    let fuse = adapters::binary_fuse8(members);
    assert!(members.iter().all(|k| fuse.contains(&k.fuse_key())));
    let fuse_fp = absent
        .iter()
        .filter(|k| fuse.contains(&k.fuse_key()))
        .count() as f64
        / absent.len() as f64;
    let figures = [
        ("sketch-nostd", ours),
        ("sketch-nostd blocked", blocked),
        (
            "fastbloom",
            measure_filter(adapters::fastbloom(n), members, absent),
        ),
        (
            "bloomfilter",
            measure_filter(adapters::bloomfilter::<K>(n), members, absent),
        ),
        (
            "sbbf-rs-safe",
            measure_filter(adapters::sbbf(n), members, absent),
        ),
        (
            "datasketches",
            measure_filter(adapters::datasketches_bloom(n), members, absent),
        ),
        ("xorf BinaryFuse8", (fuse_fp, fuse.fingerprints.len())),
    ];
    for (name, (fp, size)) in figures {
        cells.put(&format!("{label} · measured FP"), name, percent(fp));
        if label.ends_with("u64") {
            let size_label = label.trim_end_matches(" u64");
            cells.put(&format!("{size_label} · bytes"), name, bytes(size));
        }
    }
}

/// [`bloom_scenario`] for `n` u64 keys, then `n` string keys, into new filters from `make`.
fn bloom_size<F0, F1>(
    cells: &mut Cells<'_>,
    (size, n): (&str, usize),
    make: impl Fn() -> (F0, F1),
    absent: &[u64],
    absent_str: &[&str],
) where
    F0: Filter<u64> + for<'a> Filter<&'a str>,
    F1: Filter<u64> + for<'a> Filter<&'a str>,
{
    let members = u64_keys(n, MEMBER_SEED);
    bloom_scenario(cells, &format!("{size} u64"), make(), &members, absent);
    let members = string_keys(n, MEMBER_SEED);
    let members = as_strs(&members);
    bloom_scenario(cells, &format!("{size} str"), make(), &members, absent_str);
}

/// Bloom filters: measured false-positive rate over [`FP_PROBES`] absent keys, and bytes.
pub fn bloom(out: &mut Vec<Cell>) {
    let mut cells = Cells {
        family: "bloom",
        out,
    };
    let absent = u64_keys(FP_PROBES, ABSENT_SEED);
    let absent_str = string_keys(FP_PROBES, ABSENT_SEED);
    let absent_str = as_strs(&absent_str);
    let small = adapters::our_blooms_small;
    bloom_size(&mut cells, ("10k", SMALL), small, &absent, &absent_str);
    let large = adapters::our_blooms_large;
    bloom_size(&mut cells, ("1M", LARGE), large, &absent, &absent_str);
    let members = u64_keys(HUGE, MEMBER_SEED);
    let huge = adapters::our_blooms_huge();
    bloom_scenario(&mut cells, "10M u64", huge, &members, &absent);
}

/// Cardinalities at which HyperLogLog errors are reported.
pub const HLL_CHECKPOINTS: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];
/// Independent key sets (runs) each RMS error is computed over.
pub const HLL_RUNS: u64 = 100;

/// RMS relative error of `make()` at each checkpoint over [`HLL_RUNS`] runs of distinct u64 keys,
/// plus bytes in memory and encoded at the last checkpoint.
fn hll_errors<D: Distinct<u64>>(make: impl Fn() -> D) -> ([f64; 4], Option<usize>, Option<usize>) {
    let mut sq = [0.0; 4];
    let (mut size, mut encoded) = (None, None);
    for run in 0..HLL_RUNS {
        let keys = u64_keys(HLL_CHECKPOINTS[3], 1_000 + run);
        let mut d = make();
        let mut at = 0;
        for (i, k) in keys.iter().enumerate() {
            d.insert(k);
            if i + 1 == HLL_CHECKPOINTS[at] {
                let n = HLL_CHECKPOINTS[at] as f64;
                sq[at] += ((d.estimate() - n) / n).powi(2);
                at += 1;
            }
        }
        size = d.bytes();
        encoded = d.encoded_bytes();
    }
    (sq.map(|s| (s / HLL_RUNS as f64).sqrt()), size, encoded)
}

fn hll_row(
    cells: &mut Cells<'_>,
    name: &str,
    (rms, size, encoded): ([f64; 4], Option<usize>, Option<usize>),
) {
    for (n, e) in HLL_CHECKPOINTS.iter().zip(rms) {
        cells.put(&format!("RMS error · n = {}", bytes(*n)), name, percent(e));
    }
    let show = |b: Option<usize>| b.map_or_else(|| "n/a".to_owned(), bytes);
    cells.put("bytes in memory (n = 1M)", name, show(size));
    cells.put("bytes encoded (n = 1M)", name, show(encoded));
}

/// HyperLogLog at p = 14: RMS relative error at several cardinalities, bytes in memory and encoded.
pub fn hll(out: &mut Vec<Cell>) {
    let mut cells = Cells { family: "hll", out };
    hll_row(&mut cells, "sketch-nostd", hll_errors(adapters::our_hll));
    hll_row(
        &mut cells,
        "hyperloglockless",
        hll_errors(adapters::hyperloglockless),
    );
    hll_row(
        &mut cells,
        "cardinality-estimator",
        hll_errors(adapters::CardinalityEstimator::<u64>::new),
    );
    hll_row(
        &mut cells,
        "hyperloglogplus",
        hll_errors(adapters::hyperloglogplus::<u64>),
    );
    hll_row(
        &mut cells,
        "datasketches Hll6",
        hll_errors(|| adapters::datasketches_hll(datasketches::hll::HllType::Hll6)),
    );
    hll_row(
        &mut cells,
        "datasketches Hll8",
        hll_errors(|| adapters::datasketches_hll(datasketches::hll::HllType::Hll8)),
    );
}

/// Count-min on the reference Zipf stream: worst and mean overestimate over every key, and bytes.
pub fn countmin(out: &mut Vec<Cell>) {
    let mut cells = Cells {
        family: "countmin",
        out,
    };
    let stream = zipf_stream(REFERENCE_KEYS, REFERENCE_EVENTS, REFERENCE_SEED);
    let truth = exact_counts(&stream, REFERENCE_KEYS);
    let bound = (adapters::CM_EPSILON * stream.len() as f64) as u64;
    let mut row = |name: &str, f: &dyn Fn(u32) -> u64, size: usize| {
        let o = Overestimates::measure(&truth, bound, f);
        assert_eq!(o.under, 0, "{name} underestimated");
        cells.put("worst overestimate (ε·N = 200)", name, o.worst.to_string());
        cells.put(
            "mean overestimate per event",
            name,
            format!("{:.2}", o.mean_per_event),
        );
        cells.put("bytes", name, bytes(size));
    };
    fn fed<F: Frequency<u32>>(mut f: F, stream: &[u32]) -> F {
        for k in stream {
            f.add(k);
        }
        f
    }
    let ours = fed(adapters::our_cm::<Standard>(), &stream);
    row(
        "sketch-nostd",
        &|k| ours.estimate(&k),
        Frequency::<u32>::bytes(&ours),
    );
    let ours_c = fed(adapters::our_cm::<Conservative>(), &stream);
    row(
        "sketch-nostd conservative",
        &|k| ours_c.estimate(&k),
        Frequency::<u32>::bytes(&ours_c),
    );
    let ds = fed(adapters::datasketches_cm(), &stream);
    row(
        "datasketches",
        &|k| Frequency::estimate(&ds, &k),
        Frequency::<u32>::bytes(&ds),
    );
    let cms = fed(adapters::count_min_sketch::<u32>(), &stream);
    row(
        "count-min-sketch",
        &|k| Frequency::estimate(&cms, &k),
        Frequency::<u32>::bytes(&cms),
    );
    let st = fed(adapters::streaming_cm::<u32>(), &stream);
    row(
        "streaming_algorithms",
        &|k| Frequency::estimate(&st, &k),
        Frequency::<u32>::bytes(&st),
    );
}

fn deletable_row<F: Deletable<u64>>(
    cells: &mut Cells<'_>,
    size: &str,
    name: &str,
    mut f: F,
    members: &[u64],
    absent: &[u64],
) {
    let inserted = members.iter().filter(|k| f.insert(k)).count();
    assert_eq!(inserted, members.len(), "{name} refused keys");
    assert!(
        members.iter().all(|k| f.contains(k)),
        "{name}: a false negative"
    );
    let fp = absent.iter().filter(|k| f.contains(k)).count() as f64 / absent.len() as f64;
    // Remove half the keys: the rest must still be found.
    let (gone, kept) = members.split_at(members.len() / 2);
    for k in gone {
        f.remove(k);
    }
    assert!(
        kept.iter().all(|k| f.contains(k)),
        "{name}: a false negative after removals"
    );
    cells.put(&format!("{size} u64 · measured FP"), name, percent(fp));
    cells.put(&format!("{size} u64 · bytes"), name, bytes(f.bytes()));
}

/// [`deletable_row`] of our counting Bloom filter (`W` words) and cuckoo filter (`B` buckets).
fn our_deletable_rows<const W: usize, const B: usize>(
    (cells, size, members, absent): (&mut Cells<'_>, &str, &[u64], &[u64]),
) {
    let counting = adapters::our_counting::<W>();
    deletable_row(
        cells,
        size,
        "sketch-nostd counting",
        counting,
        members,
        absent,
    );
    let cuckoo = adapters::our_cuckoo::<B>();
    deletable_row(cells, size, "sketch-nostd cuckoo", cuckoo, members, absent);
}

/// Deletable filters: measured false-positive rate at capacity and bytes.
pub fn deletable(out: &mut Vec<Cell>) {
    let mut cells = Cells {
        family: "deletable",
        out,
    };
    for (n, size) in [(SMALL, "10k"), (LARGE, "1M")] {
        let (members, absent) = (u64_keys(n, MEMBER_SEED), u64_keys(FP_PROBES, ABSENT_SEED));
        let rows = (&mut cells, size, members.as_slice(), absent.as_slice());
        if n == SMALL {
            our_deletable_rows::<{ counting_words(SMALL) }, { cuckoo_buckets(SMALL) }>(rows);
        } else {
            our_deletable_rows::<{ counting_words(LARGE) }, { cuckoo_buckets(LARGE) }>(rows);
        }
        deletable_row(
            &mut cells,
            size,
            "cuckoofilter",
            adapters::cuckoofilter(n),
            &members,
            &absent,
        );
        deletable_row(
            &mut cells,
            size,
            "bloom (counting)",
            adapters::counting_bloom(n),
            &members,
            &absent,
        );
    }
}

/// Quantile sketches on the benchmark's 100,000 log-normal latencies (`benches/quantile.rs`: median
/// 1,000 µs, σ = 1, seed 0x9a11): the worst relative error of p50, p90, p99 and p999 against the
/// exact quantiles (rank `⌊q·(n − 1)⌋`), and the bytes in memory and encoded after all the values.
pub fn quantile(out: &mut Vec<Cell>) {
    use sketch_nostd::{wire, QuantileSketch};
    type Ours = QuantileSketch<35, 1_047, u32>;
    type Ours16 = QuantileSketch<35, 1_047, u16>;
    let values = sketch_tests::dists::Dist::LogNormal.values(100_000, 0x9a11);
    let mut sorted = values.clone();
    sorted.sort_unstable_by(f64::total_cmp);
    let exact = |q: f64| sorted[(q * (sorted.len() - 1) as f64) as usize];
    let worst = |estimate: &dyn Fn(f64) -> f64| {
        [0.5, 0.9, 0.99, 0.999]
            .iter()
            .map(|&q| (estimate(q) - exact(q)).abs() / exact(q))
            .fold(0.0, f64::max)
    };
    let mut ours = Box::new(Ours::new());
    let mut ours16 = Box::new(Ours16::new());
    let mut dd = sketches_ddsketch::DDSketch::new(sketches_ddsketch::Config::defaults());
    for &v in &values {
        ours.insert(v);
        ours16.insert(v);
        dd.add(v);
    }
    let mut cells = Cells {
        family: "quantile",
        out,
    };
    const ERR: &str = "lognormal 100k · worst error of p50 … p999";
    const MEM: &str = "lognormal 100k · bytes in memory";
    const WIRE: &str = "lognormal 100k · bytes encoded";
    let pct = |e: f64| format!("{:.3}%", 100.0 * e);
    cells.put(
        ERR,
        "sketch-nostd",
        pct(worst(&|q| ours.quantile(q).unwrap_or(f64::NAN))),
    );
    cells.put(
        ERR,
        "sketch-nostd u16",
        pct(worst(&|q| ours16.quantile(q).unwrap_or(f64::NAN))),
    );
    cells.put(
        ERR,
        "sketches-ddsketch",
        pct(worst(&|q| {
            dd.quantile(q).ok().flatten().unwrap_or(f64::NAN)
        })),
    );
    cells.put(ERR, "exact (sort)", pct(0.0));
    cells.put(MEM, "sketch-nostd", bytes(core::mem::size_of::<Ours>()));
    cells.put(
        MEM,
        "sketch-nostd u16",
        bytes(core::mem::size_of::<Ours16>()),
    );
    // DDSketch keeps a Vec<u64> of bins per sign (length() counts both) beside its struct.
    cells.put(
        MEM,
        "sketches-ddsketch",
        bytes(core::mem::size_of::<sketches_ddsketch::DDSketch>() + 8 * dd.length()),
    );
    cells.put(MEM, "exact (sort)", bytes(8 * values.len()));
    cells.put(WIRE, "sketch-nostd", bytes(wire::encoded_len(&*ours)));
    cells.put(WIRE, "sketch-nostd u16", bytes(wire::encoded_len(&*ours16)));
    cells.put(WIRE, "sketches-ddsketch", bytes(dd.to_java_bytes().len()));
    cells.put(WIRE, "exact (sort)", bytes(8 * values.len()));
}

/// Every family's figures.
#[must_use]
pub fn all() -> Vec<Cell> {
    let mut out = Vec::new();
    bloom(&mut out);
    hll(&mut out);
    countmin(&mut out);
    deletable(&mut out);
    quantile(&mut out);
    out
}

/// One family's figures (`bloom`, `hll`, `countmin`, `deletable`, `quantile`), for a run of that
/// family's benchmarks alone; `None` for another name.
#[must_use]
pub fn of_family(key: &str) -> Option<Vec<Cell>> {
    let mut out = Vec::new();
    match key {
        "bloom" => bloom(&mut out),
        "hll" => hll(&mut out),
        "countmin" => countmin(&mut out),
        "deletable" => deletable(&mut out),
        "quantile" => quantile(&mut out),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts_get_separators() {
        assert_eq!(bytes(7), "7");
        assert_eq!(bytes(1_234), "1,234");
        assert_eq!(bytes(1_198_208), "1,198,208");
    }
}
