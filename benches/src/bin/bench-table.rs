//! Regenerates the performance tables of docs/performance.md from criterion's last run and the accuracy figures:
//!
//! ```sh
//! cargo bench -p sketch-benches            # timings -> target/criterion
//! cargo run --release -p sketch-benches --bin bench-table
//! ```
//!
//! The tables go between the `bench-table` markers of docs/performance.md (nothing else is touched); with
//! `--print` they are printed instead. `--only FAMILY` (e.g. `--only quantile`, after
//! `cargo bench -p sketch-benches --bench main -- quantile/`) prints that family's table alone,
//! with only its accuracy figures computed.

use sketch_benches::{accuracy, table};
use std::path::Path;

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// The load averages `cargo bench -p sketch-benches` recorded at the start and end of its last full
/// run, and of the filtered runs after it (`start end [filter]` per line).
fn run_load(root: &Path) -> String {
    let text = std::fs::read_to_string(root.join("target/criterion/sketch-benches-load.txt"))
        .unwrap_or_default();
    let runs: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let (start, end) = (it.next()?, it.next()?);
            Some(match it.next() {
                Some(filter) => format!("{start} → {end} in a later run of `{filter}` only"),
                None => format!("{start} → {end} during the run"),
            })
        })
        .collect();
    if runs.is_empty() {
        "load average not recorded".into()
    } else {
        format!("1-minute load average {}", runs.join("; "))
    }
}

fn main() -> Result<(), String> {
    let print = std::env::args().any(|a| a == "--print");
    let only = std::env::args().skip_while(|a| a != "--only").nth(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let timings = table::read_criterion(&root.join("target/criterion"))?;
    if let Some(key) = only {
        let family = table::FAMILIES
            .iter()
            .find(|f| f.key == key)
            .ok_or_else(|| format!("--only {key}: no such family"))?;
        let cells = accuracy::of_family(&key).unwrap_or_default();
        println!("{}", table::render_family(family, &timings, &cells));
        return Ok(());
    }
    let cells = accuracy::all();
    let cores = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    let generated = format!(
        "Measured with `cargo bench -p sketch-benches` (criterion, `bench` profile: thin LTO, one codegen \
         unit) then `cargo run --release -p sketch-benches --bin bench-table`, on {cores} cores of an \
         {} (`nproc` = {cores}; {}). Timings are ns per \
         operation over the whole key set, the first decile of criterion's samples (on this shared \
         machine the slower samples time the other processes); compare the ratios, which come from one \
         run, rather than absolute times. Accuracy and byte rows come from `--bin accuracy` (fixed \
         seeds, no timing).\n\n{}",
        cpu_model(),
        run_load(&root),
        table::render(&timings, &cells)
    );
    if print {
        println!("{generated}");
        return Ok(());
    }
    let doc_path = root.join("docs/performance.md");
    let doc =
        std::fs::read_to_string(&doc_path).map_err(|e| format!("{}: {e}", doc_path.display()))?;
    std::fs::write(&doc_path, table::splice(&doc, &generated)?)
        .map_err(|e| format!("{}: {e}", doc_path.display()))?;
    println!(
        "docs/performance.md: {} timings, {} figures",
        timings.len(),
        cells.len()
    );
    Ok(())
}
