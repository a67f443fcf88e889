//! Instructions per operation on Cortex-M0, M3, M4F and RISC-V (RV32IMAC), counted exactly under QEMU.
//!
//! The firmware built with the `cost` feature (`tests/firmware/src/cost.rs`) runs each operation over
//! 64 keys between two calls of `cost_mark`. QEMU runs it with one instruction per translation block
//! and logs every block it executes (`-singlestep -d nochain,exec`), so each log line is one executed
//! instruction, named by the function it is in. This test counts the lines between the marks,
//! subtracts the bare loop's count, and writes the table to `target/firmware-cost.md` (printed at the
//! end of `scripts/test-all.sh`, copied into the README). Instruction counts are exact and repeatable;
//! cycles differ by core (loads, multiplies, branches) and are not measured.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::process::Stdio;

use sketch_tests::qemu::{self, Target, TARGETS};

/// Keys per segment, as `cost::N` in the firmware.
const KEYS: u64 = 64;

/// The instructions executed in each segment between two `cost_mark` calls, and the segment names
/// the firmware printed.
fn segments(target: &Target) -> (Vec<u64>, Vec<String>) {
    let elf = qemu::build_firmware(target, &["cost"]);
    let mut child = qemu::qemu(target, &elf)
        .args(["-singlestep", "-d", "nochain,exec"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start QEMU");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let printed = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    // The log is millions of lines: counted as it streams, never stored.
    let (mut counts, mut marks, mut in_mark, mut current) = (Vec::new(), 0u64, false, 0u64);
    let log = BufReader::new(child.stderr.take().expect("piped stderr"));
    for line in log.split(b'\n') {
        let line = line.expect("read QEMU's log");
        if !line.starts_with(b"Trace") {
            continue;
        }
        if line.ends_with(b"] cost_mark") {
            if !in_mark {
                marks += 1;
                if marks % 2 == 0 {
                    counts.push(current);
                }
                current = 0;
            }
            in_mark = true;
        } else {
            in_mark = false;
            current += marks % 2;
        }
    }
    let status = child.wait().expect("wait for qemu");
    let printed = printed.join().expect("stdout thread").expect("read stdout");
    assert!(
        status.success() && printed.lines().any(|l| l == "OK"),
        "cost firmware on {} failed ({status}):\n{printed}",
        target.triple
    );
    let names = printed
        .lines()
        .filter_map(|l| l.strip_prefix("COST "))
        .map(str::to_owned)
        .collect();
    (counts, names)
}

#[test]
fn instructions_per_operation_on_every_target() {
    let mut columns = Vec::new();
    let mut names = Vec::new();
    for target in &TARGETS {
        let (counts, printed) = segments(target);
        // One pair of marks per named segment: otherwise the log was misread.
        assert_eq!(
            counts.len(),
            printed.len(),
            "{}: {} measured segments for {} names",
            target.triple,
            counts.len(),
            printed.len()
        );
        assert!(printed.len() > 2, "{}: no segments", target.triple);
        let base = counts[0];
        let per_op: Vec<f64> = counts
            .iter()
            .map(|&c| c.saturating_sub(base) as f64 / KEYS as f64)
            .collect();
        // Every operation on a key hashes it, so it costs at least the bare hash (segment 1):
        // a segment below that would mean the marks were paired wrongly.
        let hash = per_op[1];
        assert!(
            hash > 10.0,
            "{}: an xxh3 hash in {hash} instructions",
            target.triple
        );
        for (name, &cost) in printed.iter().zip(&per_op).skip(2) {
            if !name.contains("estimate") || name.contains("CountMin") {
                assert!(
                    cost >= hash,
                    "{} {name}: {cost} instructions, below the hash alone ({hash})",
                    target.triple
                );
            }
        }
        if names.is_empty() {
            names = printed;
        } else {
            assert_eq!(names, printed, "the targets ran different segments");
        }
        columns.push((target, per_op));
    }
    let mut table = String::from("| operation (per key, loop subtracted) |");
    for (target, _) in &columns {
        let _ = write!(table, " {} |", target.board);
    }
    table.push_str("\n| --- |");
    table.push_str(&" ---: |".repeat(columns.len()));
    table.push('\n');
    for (i, name) in names.iter().enumerate().skip(1) {
        let _ = write!(table, "| {name} |");
        for (_, per_op) in &columns {
            let _ = write!(table, " {:.0} |", per_op[i]);
        }
        table.push('\n');
    }
    println!("{table}");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&dir).expect("target dir");
    std::fs::write(dir.join("firmware-cost.md"), &table).expect("write firmware-cost.md");
}
