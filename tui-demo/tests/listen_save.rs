//! `listen --save` end to end over loopback UDP: two hosts, each fed by its own simulated devices
//! (`emit`, other seeds), save their fleets' merged sketches; `merge` merges the two files and
//! reports them as `listen --report` reports a fleet. The devices' logs are deterministic (seed and
//! id), so the test counts the lines they counted itself and checks the merged figures against the
//! truth.

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tui_demo::emit::SimDevice;
use tui_demo::ingest::engine::hll_stats;
use tui_demo::saved_fleet::SavedFleet;
use tui_demo::source::synthetic::Generator;

const BIN: &str = env!("CARGO_BIN_EXE_tui-demo");

/// An empty directory of this test process's own.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tui-demo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A free loopback UDP address: bind, read it, release it.
fn free_addr() -> String {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    format!("127.0.0.1:{port}")
}

/// Runs the binary to the end; (exit code, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("a count: {v}"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("a number: {v}"))
}

#[test]
fn two_hosts_save_their_fleets_and_merge_merges_them() {
    let dir = temp_dir("listen-save");
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // Host A hears 2 devices of a fleet seeded 1, host B 3 devices of one seeded 2. The hosts
    // outlive their emitters by a wide margin (a loaded machine can take a second to start one),
    // and save every second as well as at exit.
    let hosts: Vec<(String, &str, &str, &str)> = vec![
        (free_addr(), "a.sk", "2", "1"),
        (free_addr(), "b.sk", "3", "2"),
    ];
    let listening: Vec<_> = hosts
        .iter()
        .map(|(addr, save, _, _)| {
            Command::new(BIN)
                .args(["listen", addr, "--report", "--json", "--seconds", "6"])
                .args(["--save", &p(save), "--save-every", "1"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let emitting: Vec<_> = hosts
        .iter()
        .map(|(addr, _, devices, seed)| {
            Command::new(BIN)
                .args(["emit", devices, "--to", addr, "--seconds", "1.5"])
                .args(["--rate", "200", "--period", "100", "--seed", seed])
                .args(["--value-field", "9"])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for e in emitting {
        let out = e.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let reports: Vec<Value> = listening
        .into_iter()
        .map(|h| {
            let out = h.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).expect("listen's JSON")
        })
        .collect();
    let (a, b) = (&reports[0], &reports[1]);

    // Each file is its host's fleet as its report gave it (saved at exit, after the last frame).
    for ((_, save, devices, _), host) in hosts.iter().zip(&reports) {
        let (code, one, err) = run(&["merge", &p(save), "--json"]);
        assert_eq!(code, Some(0), "{err}");
        let one: Value = serde_json::from_str(&one).unwrap();
        assert_eq!(one["lines"], host["lines"]);
        assert_eq!(one["distinct"]["estimate"], host["distinct"]["estimate"]);
        assert_eq!(one["heavy"], host["heavy"]);
        assert_eq!(one["quantiles"], host["quantiles"]);
        let rows = one["devices"]["rows"].as_array().unwrap();
        assert_eq!(rows.len().to_string(), *devices);
        assert_eq!(one["seconds"], Value::Null, "a merge keeps no time");
    }

    let (code, merged, err) = run(&["merge", &p("a.sk"), &p("b.sk"), "--report", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let m: Value = serde_json::from_str(&merged).unwrap();
    let (md, ad, bd) = (&m["devices"], &a["devices"], &b["devices"]);
    // Totals add up: datagrams (listen's `lines`), frames, the lines the devices counted (the
    // count-min sketches added), the devices' rows.
    assert_eq!(u(&m["lines"]), u(&a["lines"]) + u(&b["lines"]));
    for k in ["ok", "bad", "lost", "bytes", "lines_merged"] {
        assert_eq!(u(&md[k]), u(&ad[k]) + u(&bd[k]), "{k}");
    }
    assert_eq!(u(&md["bad"]), 0);
    assert_eq!(md["rows"].as_array().unwrap().len(), 5);
    assert_eq!(u(&m["heavy"]["total"]), u(&md["lines_merged"]));
    assert_eq!(u(&m["quantiles"]["count"]), u(&md["lines_merged"]));

    // The devices' lines, regenerated: each device counted the first `lines` lines of its log
    // (its row's count-min total; its last frames were sent after its last line).
    let mut exact: HashMap<Vec<u8>, u64> = HashMap::new();
    for ((_, _, _, seed), host) in hosts.iter().zip(&reports) {
        let seed: u64 = seed.parse().unwrap();
        let base = Generator::new(seed);
        for row in host["devices"]["rows"].as_array().unwrap() {
            let mut d = SimDevice::new(u(&row["id"]), seed, &base);
            d.count_lines(u(&row["lines"]), |l| {
                *exact.entry(l.to_vec()).or_default() += 1
            });
        }
    }
    assert_eq!(exact.values().sum::<u64>(), u(&md["lines_merged"]));

    // Distinct lines: exactly the library's merge of the two files' HyperLogLogs (register max:
    // the same registers, so the same estimate), and the true count of the union lies in the 2σ
    // band the report gives. (About 300 lines per device, 1,300 distinct in all; measured in
    // process over 453 line counts from 150 to 600 per device: the truth was always inside, at
    // most 1.03σ from the estimate.)
    let (fa, fb) = (
        SavedFleet::read(&dir.join("a.sk")).unwrap(),
        SavedFleet::read(&dir.join("b.sk")).unwrap(),
    );
    let mut hll = fa
        .sketches
        .distinct
        .clone()
        .expect("host A's devices' HLLs");
    hll.merge(fb.sketches.distinct.as_deref().unwrap()).unwrap();
    let (lib, registers) = hll_stats(&hll);
    let d = &m["distinct"];
    let estimate = f(&d["estimate"]);
    assert!(
        (estimate - lib.estimate).abs() <= 1e-9 * lib.estimate,
        "{estimate} vs {}",
        lib.estimate
    );
    let counts: Vec<u64> = registers.counts.iter().map(|&c| u64::from(c)).collect();
    let reported: Vec<u64> = m["registers"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(u)
        .collect();
    assert_eq!(reported, counts);
    let truth = exact.len() as f64;
    assert!(
        f(&d["lower"]) <= truth && truth <= f(&d["upper"]),
        "true {truth} outside {d}"
    );
    // What adding the devices' counts would claim: the sum of both hosts' sums.
    let sum = f(&a["distinct"]["sum_of_parts"]) + f(&b["distinct"]["sum_of_parts"]);
    assert!((f(&d["sum_of_parts"]) - sum).abs() <= 1e-9 * sum);

    // The merged heavy hitters: every bracket holds the true count over both hosts' devices, and
    // the merged count-min never underestimates.
    let rows = m["heavy"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    for r in rows {
        let x = exact[r["line"].as_str().unwrap().as_bytes()];
        let (lo, hi) = (u(&r["bounds"][0]), u(&r["bounds"][1]));
        assert!(lo <= x && x <= hi, "{r}: true {x}");
        assert!(u(&r["estimate"]) >= x, "{r}: true {x}");
    }

    // The table: listen's, without the time.
    let (code, table, err) = run(&["merge", &p("a.sk"), &p("b.sk")]);
    assert_eq!(code, Some(0), "{err}");
    for needle in [
        "of 5 devices",
        "received by the hosts that saved them",
        "distinct lines over all devices",
        "heavy hitters over all devices",
        "devices' values quantiles",
    ] {
        assert!(table.contains(needle), "{needle:?} in\n{table}");
    }

    // A run's file with a devices' file: refused, both named.
    let (code, _, err) = run(&["report", "--lines", "100", "--save", &p("run.sk")]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = run(&["merge", &p("a.sk"), &p("run.sk")]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains(&p("a.sk")) && err.contains(&p("run.sk")) && err.contains("devices' file"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `listen --save` to a path that cannot be written fails at the start, naming it, as the log
/// runs' `--save` does.
#[test]
fn listen_refuses_an_unwritable_save_path_at_once() {
    let dir = temp_dir("listen-badsave");
    let missing = dir.join("no-such-dir").join("x.sk");
    let missing = missing.to_str().unwrap();
    let start = Instant::now();
    let (code, out, err) = run(&[
        "listen",
        "127.0.0.1:0",
        "--report",
        "--seconds",
        "20",
        "--save",
        missing,
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5), "not at once");
    assert!(out.is_empty());
    assert!(err.contains("--save") && err.contains(missing), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
