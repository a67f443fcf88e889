//! Headless report tests on fixed input: the binary run as a script would run it, and the report
//! function called directly.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tui_demo::args::{Options, Output};
use tui_demo::source::SourceSpec;

const BIN: &str = env!("CARGO_BIN_EXE_tui-demo");

/// Runs the binary with `args`, feeding `input` on stdin (a pipe; none, `/dev/null`, when `input`
/// is empty, so that without `--input` the synthetic log is read); returns (status, stdout,
/// stderr).
fn run(args: &[&str], input: &[u8]) -> (std::process::ExitStatus, String, String) {
    run_piped(args, (!input.is_empty()).then_some(input))
}

/// Runs the binary with `args`, stdin a pipe fed `input` if there is one, else `/dev/null`.
fn run_piped(args: &[&str], input: Option<&[u8]>) -> (std::process::ExitStatus, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tui-demo");
    let writer = child.stdin.take().map(|mut stdin| {
        let input = input.unwrap_or_default().to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        })
    });
    let out = child.wait_with_output().expect("wait");
    if let Some(w) = writer {
        w.join().unwrap();
    }
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// An empty directory of this test process's own, `tui-demo-NAME-PID` under the system's.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tui-demo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A log with repeats, CRLF, invalid UTF-8, an escape sequence, a 300 KiB line, and a last line
/// without a newline.
fn awkward_input() -> Vec<u8> {
    let mut v = Vec::new();
    for _ in 0..3 {
        v.extend_from_slice(b"GET /a 200\n");
    }
    v.extend_from_slice(b"GET /b 200\r\n");
    v.extend_from_slice(b"GET /b 200\n"); // same key as the CRLF line
    v.extend_from_slice(b"bad \xff\xfe bytes\n");
    v.extend_from_slice(b"\x1b[31mred\x1b[0m\n");
    v.extend(std::iter::repeat_n(b'x', 300 * 1024));
    v.push(b'\n');
    v.extend_from_slice(b"GET /a 200\n");
    v.extend_from_slice(b"no newline at the end");
    v
}

#[test]
fn json_report_on_awkward_input() {
    let (status, out, err) = run(&["--input", "-", "--json"], &awkward_input());
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["source"], "stdin");
    assert_eq!(v["lines"], 10);
    assert_eq!(v["bytes"], awkward_input().len() as u64);
    assert_eq!(v["crlf"], 1);
    assert_eq!(v["non_utf8"], 1);
    assert_eq!(v["long"], 1);
    // Distinct: "GET /a 200", "GET /b 200" (CRLF stripped), the bad bytes, the escape line, the
    // long line, the last line.
    assert_eq!(v["exact"]["distinct"], 6);
    assert_eq!(v["exact"]["capped"], false);
    assert_eq!(v["dedupe"]["passed"], 6);
    assert_eq!(v["dedupe"]["suppressed"], 4);
    let recent: Vec<(&str, bool)> = v["dedupe"]["recent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["line"].as_str().unwrap(), s["cut"].as_bool().unwrap()))
        .collect();
    assert_eq!(recent[2], ("bad \u{fffd}\u{fffd} bytes", false));
    assert_eq!(
        recent[3],
        ("\u{1b}[31mred\u{1b}[0m", false),
        "the line as it was: JSON escapes the escape character"
    );
    assert!(out.contains(r#""\u001b[31mred\u001b[0m""#), "{out}");
    assert_eq!(
        recent[4],
        ("x".repeat(240).as_str(), true),
        "long line kept cut, and said so"
    );
    assert_eq!(recent[5], ("no newline at the end", false));
    assert_eq!(v["micro"]["lookups"], 10);
    // Six distinct lines: the HyperLogLog is exact while sparse.
    assert_eq!(v["distinct"]["estimate"].as_f64().unwrap().round(), 6.0);
    assert_eq!(v["distinct"]["estimator"], "sparse");

    // The heavy hitters: "GET /a 200" four times, "GET /b 200" twice (CRLF or not), exactly.
    let rows = v["heavy"]["rows"].as_array().unwrap();
    assert_eq!(rows[0]["line"], "GET /a 200");
    assert_eq!(
        (rows[0]["estimate"].as_u64(), rows[0]["exact"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(rows[1]["line"], "GET /b 200");
    assert_eq!(rows[1]["estimate"], 2);
    assert_eq!(v["heavy"]["total"], 10);
}

/// Keys a terminal must not be sent as they are, each with the text the JSON keeps of it (the key
/// as it was, invalid UTF-8 as U+FFFD) as a heavy hitter and as a recently passed line (each with
/// whether it was cut), and what the text report shows of it.
struct Hostile {
    raw: Vec<u8>,
    row: (String, bool),
    recent: (String, bool),
    shown: String,
}

fn hostile_keys() -> Vec<Hostile> {
    let same = |raw: &[u8], shown: &str| Hostile {
        raw: raw.to_vec(),
        row: (String::from_utf8_lossy(raw).into_owned(), false),
        recent: (String::from_utf8_lossy(raw).into_owned(), false),
        shown: shown.to_string(),
    };
    let accented = format!("x{}", "é".repeat(150)); // 301 bytes, 151 characters
    vec![
        same(b"GET /\x1b[31m\tx", "GET /␛[31m→x"),
        same(
            "user \u{202e}gnp.exe\u{2066}x\u{200f}".as_bytes(),
            "user ·gnp.exe·x·",
        ),
        // What the text report draws in place of control characters, in a key of its own: the
        // JSON tells it from the escape sequence above.
        same(
            "a literal ␛[31m→x and · and …".as_bytes(),
            "a literal ␛[31m→x and · and …",
        ),
        same(b"bad \xff\xfe bytes", "bad \u{fffd}\u{fffd} bytes"),
        same(b"nul \0 bell \x07 del \x7f", "nul · bell · del ·"),
        // 300 bytes: a heavy hitter's text is its first 200 characters, a recent line's its first
        // 240 bytes.
        Hostile {
            raw: vec![b'y'; 300],
            row: ("y".repeat(200), true),
            recent: ("y".repeat(240), true),
            shown: format!("{}…", "y".repeat(199)),
        },
        // 240 bytes end inside the 120th `é`: it is left out, not half kept.
        Hostile {
            raw: accented.clone().into_bytes(),
            row: (accented.clone(), false),
            recent: (format!("x{}", "é".repeat(119)), true),
            shown: accented,
        },
        // Longer than the 128 KiB read buffer: hashed whole, its first 256 bytes kept, which end
        // inside the 86th `€` (3 bytes each).
        Hostile {
            raw: "€".repeat(70_000).into_bytes(),
            row: ("€".repeat(85), true),
            recent: ("€".repeat(80), true),
            shown: format!("{}…", "€".repeat(84)),
        },
    ]
}

/// Text a terminal is sent raw: no control character but the newline, no bidirectional control.
fn assert_terminal_safe(text: &str) {
    let bad = text.chars().find(|&c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    });
    assert_eq!(bad, None, "in\n{text}");
}

/// The JSON report gives a consumer the keys back as they were, and says which were cut; the text
/// report (and a merge's) still sends a terminal no control character. Before, the JSON had the
/// text report's symbols (`GET /␛[31m→x`), which a key holding `␛` could also be, and no cut flag.
#[test]
fn json_has_the_raw_keys_and_the_text_report_their_symbols() {
    let keys = hostile_keys();
    let mut input = Vec::new();
    for k in &keys {
        input.extend_from_slice(&k.raw);
        input.push(b'\n');
    }
    let dir = temp_dir("raw-keys");
    let saved = dir.join("a.sk").to_str().unwrap().to_string();
    let (status, out, err) = run(&["--input", "-", "--json", "--save", &saved], &input);
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).expect("valid JSON");
    let text_cut = |r: &Value| {
        (
            r["line"].as_str().unwrap().to_string(),
            r["cut"].as_bool().expect("a cut flag"),
        )
    };
    let rows: Vec<(String, bool)> = v["heavy"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(text_cut)
        .collect();
    let recent: Vec<(String, bool)> = v["dedupe"]["recent"]
        .as_array()
        .unwrap()
        .iter()
        .map(text_cut)
        .collect();
    assert_eq!(rows.len(), keys.len());
    for k in &keys {
        assert!(rows.contains(&k.row), "{:?} not among {rows:?}", k.row);
    }
    let want: Vec<(String, bool)> = keys.iter().map(|k| k.recent.clone()).collect();
    assert_eq!(recent, want);
    // ESC and tab reach the JSON as escapes: the report is still one line.
    assert!(out.contains(r#""GET /\u001b[31m\tx""#), "{out}");
    assert_eq!(out.lines().count(), 1);

    // A merge of the saved file: the same keys.
    let (status, merged, err) = run(&["merge", &saved, "--json"], b"");
    assert!(status.success(), "{err}");
    let m: Value = serde_json::from_str(&merged).unwrap();
    let mut merged_rows: Vec<(String, bool)> = m["heavy"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(text_cut)
        .collect();
    let mut run_rows = rows.clone();
    merged_rows.sort();
    run_rows.sort();
    assert_eq!(merged_rows, run_rows);

    // The text reports draw symbols, as before, and end a cut key with `…`.
    for args in [vec!["--input", "-"], vec!["merge", &saved]] {
        let (status, table, err) = run(&args, &input);
        assert!(status.success(), "{err}");
        assert_terminal_safe(&table);
        let lines: Vec<&str> = table.lines().collect();
        for k in &keys {
            assert!(
                lines
                    .iter()
                    .any(|l| l.ends_with(&format!("   {}", k.shown))),
                "{args:?}: no row ends with {:?} in\n{table}",
                k.shown
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn table_report_when_stdout_is_not_a_terminal() {
    // No --report: stdout is a pipe here, so the demo reports instead of drawing.
    let (status, out, err) = run(&["--input", "-"], b"a\nb\na\n");
    assert!(status.success(), "{err}");
    for needle in [
        "sketch-nostd report · stdin",
        "lines  3 ",
        "exact distinct lines",
        "dedupe passed",
        "dedupe suppressed",
        "Bloom 117.0 KiB",
        "micro filter skipped",
    ] {
        assert!(out.contains(needle), "missing {needle:?} in\n{out}");
    }
    let row = out
        .lines()
        .find(|l| l.starts_with("exact distinct lines"))
        .unwrap();
    assert!(row.split_whitespace().any(|w| w == "2"), "{row}");
}

#[test]
fn a_file_source_and_a_missing_file() {
    let dir = temp_dir("report");
    let path = dir.join("app.log");
    std::fs::write(&path, b"one\ntwo\none\n").unwrap();
    let (status, out, _) = run(&["--input", path.to_str().unwrap(), "--json"], b"");
    assert!(status.success());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 3);
    assert_eq!(v["exact"]["distinct"], 2);
    std::fs::remove_dir_all(&dir).unwrap();

    let (status, out, err) = run(&["--input", "/nonexistent/app.log", "--report"], b"");
    assert_eq!(status.code(), Some(1));
    assert!(out.is_empty());
    assert!(err.contains("/nonexistent/app.log"), "{err}");
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    let (status, _, err) = run(&["--rate", "fast"], b"");
    assert_eq!(status.code(), Some(2));
    assert!(err.contains("--rate"), "{err}");
    let (status, out, _) = run(&["--help"], b"");
    assert!(status.success());
    assert!(out.contains("Usage") && out.contains("--input"));
    // The synthetic log's seed with a file to read was accepted and ignored (a user test).
    let (status, _, err) = run(&["report", "--input", "-", "--seed", "5"], b"");
    assert_eq!(status.code(), Some(2));
    assert!(err.contains("--seed") && err.contains("--input"), "{err}");
    // A file named .gz that is not gzip: said so, by name (it was "unexpected end of file").
    let path = std::env::temp_dir().join(format!("tui-demo-notgz-{}.log.gz", std::process::id()));
    std::fs::write(&path, "plain text\n").unwrap();
    let (status, _, err) = run(&["report", "--input", path.to_str().unwrap()], b"");
    let _ = std::fs::remove_file(&path);
    assert_eq!(status.code(), Some(1));
    assert!(
        err.contains(path.to_str().unwrap()) && err.contains("not gzip"),
        "{err}"
    );
}

#[test]
fn a_pipe_on_stdin_is_read_without_input() {
    // Found by a user test: `tail -f app.log | tui-demo` showed the synthetic log and left the
    // pipe unread. Without --input, stdin that is a pipe (or a file) is the source; an empty pipe
    // is an empty input; --seed still asks for the synthetic log.
    let (status, out, err) = run_piped(&["report", "--json"], Some(b"a\nb\na\n"));
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["source"].as_str(), v["lines"].as_u64()),
        (Some("stdin"), Some(3))
    );
    assert_eq!(v["exact"]["distinct"], 2);
    let (_, out, _) = run_piped(&["--json"], Some(b""));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["source"].as_str(), v["lines"].as_u64()),
        (Some("stdin"), Some(0))
    );
    let (_, out, _) = run_piped(
        &["report", "--json", "--seed", "2", "--lines", "10"],
        Some(b"x\n"),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "synthetic access log (seed 2)");
    assert_eq!(v["lines"], 10);
    // A file on stdin too; /dev/null (no input given) leaves the synthetic log.
    let dir = temp_dir("stdin-file");
    let path = dir.join("a.log");
    std::fs::write(&path, "f\nf\n").unwrap();
    let out = Command::new(BIN)
        .args(["report", "--json"])
        .stdin(std::fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["source"].as_str(), v["lines"].as_u64()),
        (Some("stdin"), Some(2))
    );
    let (_, out, _) = run(&["report", "--json", "--lines", "10"], b"");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "synthetic access log (seed 1)");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn line_limit_and_exact_cap() {
    let input: Vec<u8> = (0..1_000)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect();
    let (status, out, _) = run(
        &[
            "--input",
            "-",
            "--json",
            "--lines",
            "500",
            "--exact-cap",
            "100",
        ],
        &input,
    );
    assert!(status.success());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 500);
    assert_eq!(v["exact"]["distinct"], 100);
    assert_eq!(v["exact"]["capped"], true);
    // The bytes are those of the lines counted, not of the chunk read (found by a user test:
    // `--lines 3` reported 128 KiB), from stdin and from a file read by ingest itself.
    let first_500: usize = (0..500).map(|i| format!("line {i}\n").len()).sum();
    assert_eq!(v["bytes"], first_500 as u64);
    let path = std::env::temp_dir().join(format!("tui-demo-lines-{}.log", std::process::id()));
    std::fs::write(&path, &input).unwrap();
    let (status, out, _) = run(
        &["--input", path.to_str().unwrap(), "--json", "--lines", "3"],
        &[],
    );
    let _ = std::fs::remove_file(&path);
    assert!(status.success());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["lines"].as_u64(), v["bytes"].as_u64()),
        (Some(3), Some(21))
    );
    // The clock starts before ingest does: it read these before the report's clock started, and
    // said 5.7e-7 s (a user test). Starting threads and opening the file take longer than 10 µs.
    assert!(v["seconds"].as_f64().unwrap() > 1e-5, "{v}");
}

#[test]
fn seconds_stops_a_source_that_never_ends() {
    // stdin stays open (like `tail -f`): --seconds ends the run, with what arrived counted.
    let mut child = Command::new(BIN)
        .args(["--input", "-", "--json", "--seconds", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"a\nb\nc\n").unwrap();
    stdin.flush().unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "did not stop");
        std::thread::sleep(Duration::from_millis(50));
    }
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    drop(stdin);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 3);
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // `tui-demo generate 1G | head -c 100`: the reader goes away, the demo exits 0, no panic.
    let mut child = Command::new(BIN)
        .args(["generate", "1G"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut head = [0u8; 100];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut head)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(head.starts_with(b"1") || head[0].is_ascii_digit());
}

#[test]
fn the_report_function_is_deterministic_on_the_synthetic_log() {
    let opts = Options {
        source: SourceSpec::Synthetic { seed: 3 },
        output: Output::Report,
        lines: Some(50_000),
        ..Options::default()
    };
    let a = tui_demo::report::run(&opts).unwrap();
    let b = tui_demo::report::run(&opts).unwrap();
    assert_eq!(a.totals, b.totals);
    assert_eq!(a.totals.lines, 50_000);
    assert_eq!(a.exact, b.exact);
    assert_eq!(a.dedupe.passed, b.dedupe.passed);
    assert_eq!(a.micro, b.micro);
    // Every line either passed or was suppressed; the exact table saw every distinct line.
    assert_eq!(a.dedupe.passed + a.dedupe.suppressed, 50_000);
    // Before the filter's first clear, exactly the first occurrences pass, less the false positives.
    assert_eq!(a.dedupe.clears, 0);
    assert_eq!(a.dedupe.never_seen, a.exact.distinct);
    assert_eq!(
        a.dedupe.passed,
        a.exact.distinct - a.dedupe.false_suppressed
    );
}

#[test]
fn device_mode_end_to_end_over_loopback_udp() {
    // A free port: bind, read it, release it.
    let port = std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    // The listener outlives the emitter by a wide margin: under a loaded machine (the full test run)
    // starting the emitter can take a second, and a datagram that arrives after the listener's end
    // would read as lost (once seen with 3 s: 179 of 180).
    let host = Command::new(BIN)
        .args(["listen", &addr, "--json", "--seconds", "6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let emit = Command::new(BIN)
        .args([
            "emit",
            "3",
            "--to",
            &addr,
            "--seconds",
            "1.5",
            "--rate",
            "200",
            "--period",
            "100",
            "--corrupt",
            "0.2",
        ])
        .output()
        .unwrap();
    assert!(
        emit.status.success(),
        "{}",
        String::from_utf8_lossy(&emit.stderr)
    );
    let summary = String::from_utf8_lossy(&emit.stderr).into_owned();
    // "3 devices → udp …: N lines counted, F frames sent (C corrupted on purpose), …"
    let number_before = |word: &str| -> u64 {
        let i = summary
            .find(word)
            .unwrap_or_else(|| panic!("{word:?} in {summary}"));
        let digits: String = summary[..i]
            .trim_end()
            .rsplit(' ')
            .next()
            .unwrap()
            .replace(',', "");
        digits.trim_start_matches('(').parse().unwrap()
    };
    let sent = number_before("frames sent");
    let corrupted = number_before("corrupted on purpose");
    let out = host.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let d = &v["devices"];
    assert_eq!(d["rows"].as_array().unwrap().len(), 3, "{d}");
    let ok = d["ok"].as_u64().unwrap();
    let bad = d["bad"].as_u64().unwrap();
    assert_eq!(ok + bad, sent, "every datagram was received and judged");
    assert_eq!(
        bad, corrupted,
        "every corrupted frame was refused, and only those"
    );
    assert_eq!(d["lost"], 0, "refused is not lost");
    assert!(d["held_merged"].as_f64().unwrap() > 0.0);
    // Each device sent its count-min; merged by adding, the total is the sum of the devices'.
    let per_device: u64 = d["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["lines"].as_u64().unwrap())
        .sum();
    assert!(per_device > 0);
    assert_eq!(d["lines_merged"].as_u64().unwrap(), per_device);
    // `lines` is lines (a user test read the datagrams it was), and what only a run over the
    // lines knows is null: the host reads none.
    assert_eq!(v["lines"], d["lines_merged"]);
    for line_figure in [
        "lines_per_sec",
        "non_utf8",
        "crlf",
        "long",
        "missing_field",
        "exact",
    ] {
        assert!(v[line_figure].is_null(), "{line_figure}: {v}");
    }
    assert!(v["bytes"].as_u64().unwrap() > 0, "the datagrams' bytes");
    // Distinct lines over the fleet: the merged HyperLogLog never exceeds the sum of the parts.
    let merged = v["distinct"]["estimate"].as_f64().unwrap();
    let sum = v["distinct"]["sum_of_parts"].as_f64().unwrap();
    assert!(merged > 0.0 && merged <= sum * 1.01, "{merged} vs {sum}");
    assert!(d["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["distinct"].as_f64().unwrap() > 0.0));
}

#[test]
fn field_keys_make_a_timestamped_log_countable() {
    // Every line is distinct (timestamps), but field 2 (the client) repeats.
    let input =
        b"[10:00:01] alice GET /\n[10:00:02] bob GET /\n[10:00:03] alice GET /x\n[10:00:04]\n";
    let (status, out, err) = run(&["--input", "-", "--json", "--field", "2"], input);
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "stdin · key: field 2");
    assert_eq!(v["lines"], 4);
    assert_eq!(v["missing_field"], 1);
    // The line without field 2 has no key (it was counted as the empty key, a third distinct).
    assert_eq!(v["exact"]["distinct"], 2, "alice and bob");
    assert_eq!(v["heavy"]["total"], 3);
    assert_eq!(v["heavy"]["rows"][0]["line"], "alice");
    assert_eq!(v["heavy"]["rows"][0]["exact"], 2);
    // The table says what it counts: keys, not lines (found by a user test: it said "distinct
    // lines" of fields, regex captures and JSON values).
    let (status, table, err) = run(&["--input", "-", "--field", "2"], input);
    assert!(status.success(), "{err}");
    for label in ["distinct keys (HLL p=14)", "exact distinct keys"] {
        assert!(
            table.lines().any(|l| l.starts_with(label)),
            "{label}: {table}"
        );
    }
    assert!(!table.contains("distinct lines"), "{table}");
}

/// Starts the binary with stdin kept open (a source that never ends); returns the child.
fn start_open(args: &[&str]) -> std::process::Child {
    Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tui-demo")
}

/// Sends `signal` to the child once it has run a moment, and waits for it (at most 30 s).
fn signal_and_wait(child: std::process::Child, signal: &str) -> std::process::Output {
    std::thread::sleep(Duration::from_millis(500));
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
    let start = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(start.elapsed() < Duration::from_secs(30));
    out
}

#[test]
fn huge_seconds_do_not_panic() {
    // A defect once: `--seconds 1e19` and `1e20` overflowed Instant/Duration and panicked.
    for s in ["1e19", "1e20"] {
        let (status, out, err) = run(&["--seconds", s, "--lines", "1000", "--json"], b"");
        assert!(status.success(), "{s}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["lines"], 1000);
        let (status, out, err) = run(&["--input", "-", "--seconds", s, "--json"], b"a\nb\n");
        assert!(status.success(), "{s}: {err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["lines"], 2);
    }
    // The device simulator too: it runs (no panic) until stopped.
    let child = start_open(&["emit", "1", "--seconds", "1e20", "--to", "127.0.0.1:9"]);
    let out = signal_and_wait(child, "TERM");
    assert_eq!(out.status.code(), Some(143), "{out:?}");
}

#[test]
fn a_directory_as_input_is_an_error_naming_it() {
    let dir = temp_dir("dir");
    let path = dir.to_str().unwrap();
    for mode in ["--report", "--json"] {
        let (status, out, err) = run(&["--input", path, mode], b"");
        assert_eq!(status.code(), Some(1), "{mode}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(
            err.contains(path) && err.contains("directory"),
            "{mode}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn stop_signals_exit_130_and_143_with_the_report() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let mut child = start_open(&["--input", "-", "--json"]);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"a\nb\na\n").unwrap();
        stdin.flush().unwrap();
        let out = signal_and_wait(child, signal);
        drop(stdin);
        assert_eq!(out.status.code(), Some(code), "SIG{signal}: {out:?}");
        // What was counted before the signal is still reported.
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["lines"], 3, "SIG{signal}");
    }
}

#[test]
fn listen_on_port_0_reports_the_bound_port() {
    let (status, out, err) = run(
        &["listen", "127.0.0.1:0", "--seconds", "0.2", "--json"],
        b"",
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let source = v["source"].as_str().unwrap();
    let port: u16 = source.rsplit(':').next().unwrap().parse().unwrap();
    assert_ne!(port, 0, "{source}");
}

#[test]
fn several_inputs_are_read_one_after_the_other() {
    // A defect once: two --input were refused ("give one source"). A file without a final newline
    // does not join its last line to the next file's first.
    let dir = temp_dir("several");
    let (a, b) = (dir.join("a.log"), dir.join("b.log"));
    std::fs::write(&a, b"x\ny").unwrap();
    std::fs::write(&b, b"y\nz\n").unwrap();
    let (status, out, err) = run(
        &[
            "--input",
            a.to_str().unwrap(),
            "--input",
            b.to_str().unwrap(),
            "--json",
        ],
        b"",
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 4);
    assert_eq!(v["exact"]["distinct"], 3);
    // --lines counts across the files.
    let (_, out, _) = run(
        &[
            "--input",
            a.to_str().unwrap(),
            "-i",
            b.to_str().unwrap(),
            "--lines",
            "3",
            "--json",
        ],
        b"",
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 3);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn saved_sketches_merge_into_the_report_of_one_run() {
    let dir = temp_dir("save");
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let log = |seed: &str, path: &str| {
        let out = Command::new(BIN)
            .args(["generate", "300k", "--seed", seed])
            .output()
            .unwrap();
        assert!(out.status.success());
        std::fs::write(path, out.stdout).unwrap();
    };
    log("1", &p("a.log"));
    log("2", &p("b.log"));
    for (input, save) in [("a.log", "a.sk"), ("b.log", "b.sk")] {
        let (status, _, err) = run(&["report", "--input", &p(input), "--save", &p(save)], b"");
        assert!(status.success(), "{err}");
    }
    let (status, merged, err) = run(
        &["merge", &p("a.sk"), &p("b.sk"), "--report", "--json"],
        b"",
    );
    assert!(status.success(), "{err}");
    let (_, one, _) = run(
        &["report", "--json", "-i", &p("a.log"), "-i", &p("b.log")],
        b"",
    );
    let (m, o): (Value, Value) = (
        serde_json::from_str(&merged).unwrap(),
        serde_json::from_str(&one).unwrap(),
    );
    assert_eq!(m["lines"], o["lines"]);
    // HyperLogLog merges exactly: the same registers. The estimates differ only by estimator (one
    // stream uses the martingale estimate, a merge the histogram one): within one standard error.
    assert_eq!(m["registers"]["counts"], o["registers"]["counts"]);
    let (me, oe) = (
        m["distinct"]["estimate"].as_f64().unwrap(),
        o["distinct"]["estimate"].as_f64().unwrap(),
    );
    let rse = m["distinct"]["rse"].as_f64().unwrap();
    assert!((me - oe).abs() <= rse * oe, "{me} vs {oe}");
    // The merged list keeps the guarantee: its bracket holds the one run's exact count.
    let exact: std::collections::HashMap<&str, u64> = o["heavy"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_str().unwrap(), r["exact"].as_u64().unwrap()))
        .collect();
    let rows = m["heavy"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    for r in rows {
        if let Some(&x) = exact.get(r["line"].as_str().unwrap()) {
            let (lo, hi) = (
                r["bounds"][0].as_u64().unwrap(),
                r["bounds"][1].as_u64().unwrap(),
            );
            assert!(lo <= x && x <= hi, "{r}: exact {x}");
        }
    }
    // The table too, and a file that is not a saved one is refused by name.
    let (status, table, _) = run(&["merge", &p("a.sk"), &p("b.sk")], b"");
    assert!(
        status.success() && table.contains("heavy hitters"),
        "{table}"
    );
    let (status, _, err) = run(&["merge", &p("a.sk"), &p("a.log")], b"");
    assert_eq!(status.code(), Some(1));
    assert!(err.contains(&p("a.log")), "{err}");
    // Why a table of quantiles has no exact column: a merge has sketches only, a run with
    // --exact-cap 0 turned them off (both said "exact off (more than 0 values)", a user test).
    let (status, _, err) = run(
        &[
            "report",
            "-i",
            &p("a.log"),
            "--value-field",
            "9",
            "--save",
            &p("q.sk"),
        ],
        b"",
    );
    assert!(status.success(), "{err}");
    let (_, table, _) = run(&["merge", &p("q.sk")], b"");
    assert!(
        table.contains("no exact values: saved sketches only"),
        "{table}"
    );
    let (_, table, _) = run(
        &[
            "report",
            "-i",
            &p("a.log"),
            "--value-field",
            "9",
            "--exact-cap",
            "0",
        ],
        b"",
    );
    assert!(table.contains("exact off (--exact-cap 0)"), "{table}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_field_range_keys_the_rest_of_the_line() {
    // `--field 3-`: the timestamp and host are dropped, the message (with its spacing) is the key.
    let input =
        b"10:00:01 web1 disk  full on /var\n10:00:02 web2 disk  full on /var\n10:00:03 web1 ok\n";
    let (status, out, err) = run(&["--input", "-", "--field", "3-", "--json"], input);
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "stdin · key: field 3-");
    assert_eq!(v["exact"]["distinct"], 2);
    assert_eq!(v["heavy"]["rows"][0]["line"], "disk  full on /var");
    assert_eq!(v["heavy"]["rows"][0]["exact"], 2);
}

/// `--window 1m` headless, on a source whose lines come in two bursts 90 s apart on the run's
/// clock (the test hook `TUI_DEMO_TIME_SCALE=20` runs that clock 20 times faster, so 4.5 s of
/// wall time): the window holds the second burst only, since start both; the JSON and the table
/// give the same figures.
#[test]
fn a_window_reports_only_its_last_minute() {
    let report = |window: &str, json: bool| {
        let mut args = vec!["report", "--input", "-", "--window", window];
        if json {
            args.push("--json");
        }
        let mut child = Command::new(BIN)
            .args(&args)
            .env("NO_COLOR", "1")
            .env("TUI_DEMO_TIME_SCALE", "20")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tui-demo");
        let mut stdin = child.stdin.take().unwrap();
        let old: String = (0..500).map(|i| format!("old {}\n", i % 50)).collect();
        let new: String = (0..200).map(|i| format!("new {}\n", i % 7)).collect();
        stdin.write_all(old.as_bytes()).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(4_500));
        stdin.write_all(new.as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let v: Value = serde_json::from_str(&report("1m", true)).expect("JSON");
    assert_eq!(v["window"]["window"], "1m");
    assert_eq!(v["window"]["label"], "last 1 min");
    assert_eq!(v["lines"], 200, "{v}");
    assert_eq!(v["heavy"]["total"], 200);
    let rows = v["heavy"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    assert!(rows
        .iter()
        .all(|r| r["line"].as_str().unwrap().starts_with("new ") && r["exact"].is_null()));
    assert_eq!(v["distinct"]["estimate"].as_f64().unwrap().round(), 7.0);
    let history = v["window"]["lines"].as_array().unwrap();
    assert_eq!(history.first(), Some(&Value::from(500)), "{history:?}");
    // The rate is the window's lines over the time the window covers, not over the whole run
    // (found by a user test: `--window 1m --seconds 100` at 1,000 lines/s said 700).
    // `seconds` is the window's time too (the run's wall time here is 1/20 of the clock the
    // windows keep; a user test found `seconds` was the run's beside the window's lines).
    let (covered, seconds) = (
        v["window"]["covered"].as_f64().unwrap(),
        v["seconds"].as_f64().unwrap(),
    );
    assert_eq!(covered, seconds, "{v}");
    let rate = v["lines_per_sec"].as_f64().unwrap();
    assert!(
        (rate - 200.0 / covered).abs() <= 1e-9 * rate,
        "{rate} vs 200 / {covered}"
    );
    // The table says the same.
    let table = report("1m", false);
    assert!(table.contains("window last 1 min: covers"), "{table}");
    assert!(
        table.lines().any(|l| l.starts_with("lines  200 ")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("distinct lines (HLL p=14)") && l.contains(" 7 ")),
        "{table}"
    );
    // Since start: both bursts.
    let v: Value = serde_json::from_str(&report("all", true)).unwrap();
    assert_eq!(v["lines"], 700);
    assert_eq!(v["window"]["intervals"], 0);
}

/// `--json-key`, `--key-regex` and `--strip-timestamp` headless: the keys counted, and lines without
/// a key left out of the sketches (and counted as such; `lines` is every line read, as `wc -l`).
#[test]
fn regex_json_and_timestamp_keys() {
    let json: String = (0..300)
        .map(|i| format!("{{\"ts\":{i},\"req\":{{\"path\":\"/p{}\"}}}}\n", i % 3))
        .chain(["not json\n".to_string(), "{\"ts\":1}\n".to_string()])
        .collect();
    let (status, out, err) = run(
        &["report", "--input", "-", "--json-key", "req.path", "--json"],
        json.as_bytes(),
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 302);
    assert_eq!(v["missing_field"], 2);
    assert_eq!(v["heavy"]["total"], 300);
    assert_eq!(v["exact"]["distinct"], 3);
    assert_eq!(v["heavy"]["rows"][0]["exact"], 100);
    assert!(
        v["source"]
            .as_str()
            .unwrap()
            .ends_with("key: JSON /req/path"),
        "{}",
        v["source"]
    );

    let log: String = (0..200)
        .map(|i| {
            format!(
                "2024-05-01T12:00:{:02}.{i:03}Z user=u{} GET /x\n",
                i % 60,
                i % 4
            )
        })
        .collect();
    let (status, out, err) = run(
        &[
            "report",
            "--input",
            "-",
            "--key-regex",
            r"user=(?P<key>\w+)",
            "--json",
        ],
        log.as_bytes(),
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["lines"].as_u64(), v["exact"]["distinct"].as_u64()),
        (Some(200), Some(4))
    );
    assert_eq!(v["heavy"]["rows"][0]["exact"], 50);
    // Found by a user test: with no line matching, `--lines 10` read 10 lines and said 0.
    let (status, out, err) = run(
        &[
            "report",
            "--input",
            "-",
            "--key-regex",
            r"nobody=(\w+)",
            "--lines",
            "10",
            "--json",
        ],
        log.as_bytes(),
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["lines"].as_u64(), v["missing_field"].as_u64()),
        (Some(10), Some(10))
    );
    // Whole lines differ by their timestamps; stripped, they are four lines.
    let (_, out, _) = run(&["report", "--input", "-", "--json"], log.as_bytes());
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exact"]["distinct"], 200);
    let (status, out, err) = run(
        &["report", "--input", "-", "--strip-timestamp", "--json"],
        log.as_bytes(),
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exact"]["distinct"], 4);
    assert_eq!(
        v["heavy"]["rows"][0]["line"].as_str().unwrap().len(),
        "user=u0 GET /x".len()
    );
    // A bad pattern is a usage error naming the problem.
    let (status, _, err) = run(&["report", "--key-regex", "("], b"");
    assert_eq!(status.code(), Some(2));
    assert!(err.contains("--key-regex"), "{err}");
}

/// The quantile rows of a JSON report, checked against `sorted` (every value of the field, sorted):
/// each exact value is the element of rank ⌊q·(n − 1)⌋ (the sketch's rank), each estimate within the
/// sketch's α of it (its guarantee: the values span far less than its 58 octaves, so nothing
/// collapsed), and the extremes exact.
fn check_quantiles(q: &Value, sorted: &[f64], what: &str) {
    assert_eq!(q["count"], sorted.len() as u64, "{what}");
    assert_eq!(q["exact_on"], true, "{what}");
    assert_eq!(q["collapsed_below"], Value::Null, "{what}");
    let alpha = q["alpha"].as_f64().unwrap();
    assert!(alpha > 0.009 && alpha <= 0.01, "{what}: α {alpha}");
    let rows = q["rows"].as_array().unwrap();
    let qs: Vec<f64> = rows.iter().map(|r| r["q"].as_f64().unwrap()).collect();
    assert_eq!(qs, [0.5, 0.9, 0.99, 0.999], "{what}");
    for r in rows {
        let p = r["q"].as_f64().unwrap();
        let truth = sorted[(p * (sorted.len() - 1) as f64) as usize];
        let (est, exact) = (
            r["estimate"].as_f64().unwrap(),
            r["exact"].as_f64().unwrap(),
        );
        assert_eq!(exact, truth, "{what} q {p}");
        assert!(
            (est - truth).abs() <= alpha * truth.abs(),
            "{what} q {p}: {est} vs {truth}"
        );
    }
    assert_eq!(q["min"].as_f64(), sorted.first().copied(), "{what}");
    assert_eq!(q["max"].as_f64(), sorted.last().copied(), "{what}");
}

/// What a run does not have is `null` in the JSON, not 0: with exact counting off, the exact table
/// and the dedupe filter's false positives measured against it (they read 0 distinct lines and
/// 0 of 0, found by a user test); a log's count-min parameters, which only device mode has (they
/// read width 0, depth 0).
#[test]
fn json_has_null_for_what_the_run_does_not_have() {
    let input: Vec<u8> = (0..300)
        .flat_map(|i| format!("k{}\n", i % 40).into_bytes())
        .collect();
    let (status, out, err) = run(&["--input", "-", "--json", "--exact-cap", "0"], &input);
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exact"], Value::Null);
    assert_eq!(v["dedupe"]["false_suppressed"], Value::Null);
    assert_eq!(v["dedupe"]["never_seen"], Value::Null);
    assert_eq!(v["dedupe"]["passed"], 40);
    assert_eq!(v["heavy"]["count_min"], Value::Null);
    assert!(v["heavy"].get("width").is_none(), "{}", v["heavy"]);
    // With exact counting on, the measured figures are there.
    let (_, out, _) = run(&["--input", "-", "--json"], &input);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["exact"]["distinct"], 40);
    // The exact table is kept since the start only, which the JSON says (a window's report had
    // since-start figures there without a word: a user test).
    assert_eq!(v["exact"]["covers"], "since start");
    assert_eq!(
        (&v["dedupe"]["false_suppressed"], &v["dedupe"]["never_seen"]),
        (&Value::from(0), &Value::from(40))
    );
}

/// One outlier far above the rest (a garbage value in a real log) collapses the sketch's lowest
/// buckets, where every quantile below it then lands: each such row says so, in the table as on
/// screen and in the JSON (`collapsed: true`), where only the stats' `collapsed_below` said it and
/// the estimates read as normal ones (found by a user test). A row above the collapse has none.
#[test]
fn quantiles_in_the_collapsed_bucket_say_so_row_by_row() {
    let mut input: Vec<u8> = (1..=1_000)
        .flat_map(|i| format!("x {i}\n").into_bytes())
        .collect();
    input.extend_from_slice(b"x 1e30\n");
    let (status, out, err) = run(&["--input", "-", "--value-field", "2", "--json"], &input);
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let q = &v["quantiles"];
    let floor = q["collapsed_below"].as_f64().expect("collapsed");
    for r in q["rows"].as_array().unwrap() {
        assert!(r["estimate"].as_f64().unwrap() <= floor, "{r}");
        assert_eq!(r["collapsed"], true, "{r}");
    }
    let (status, table, err) = run(&["--input", "-", "--value-field", "2"], &input);
    assert!(status.success(), "{err}");
    for p in ["p50", "p90", "p99", "p999"] {
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{p} ")))
            .unwrap_or_else(|| panic!("{p} in {table}"));
        assert!(row.ends_with("or lower (collapsed)"), "{row}");
    }
    let max = table
        .lines()
        .find(|l| l.trim_start().starts_with("max "))
        .unwrap();
    assert!(!max.contains("collapsed"), "{max}");
    // Without the outlier nothing collapses: no row says it.
    let (_, out, _) = run(
        &["--input", "-", "--value-field", "2", "--json"],
        &input[..input.len() - 7],
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(v["quantiles"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["collapsed"] == false));
}

/// `--value-field`: on a seeded synthetic log, the report's quantiles of the response size (field
/// 8) and the latency (field 9) are within α of the exact ones computed here from the log itself;
/// the table's "field N quantiles" section shows the same figures as the JSON.
#[test]
fn value_field_quantiles_within_alpha_of_exact_on_the_synthetic_log() {
    const LINES: usize = 40_000;
    let mut log = Vec::new();
    tui_demo::source::synthetic::generate(5, 8 << 20, &mut log).unwrap();
    let lines: Vec<&[u8]> = log.split(|&b| b == b'\n').take(LINES).collect();
    assert_eq!(lines.len(), LINES);
    let mut input = lines.join(&b'\n');
    input.push(b'\n');
    for field in [8usize, 9] {
        let mut values: Vec<f64> = lines
            .iter()
            .map(|l| {
                let mut f = l.split(u8::is_ascii_whitespace).filter(|f| !f.is_empty());
                let text = f.nth(field - 1).unwrap();
                std::str::from_utf8(text).unwrap().parse().unwrap()
            })
            .collect();
        values.sort_by(f64::total_cmp);
        let field_arg = field.to_string();
        let args = ["--input", "-", "--value-field", &field_arg];
        let (status, out, err) = run(&[&args[..], &["--json"]].concat(), &input);
        assert!(status.success(), "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        let q = &v["quantiles"];
        assert_eq!(q["field"], field as u64);
        assert_eq!(q["missing"], 0);
        check_quantiles(q, &values, &format!("field {field}"));
        // The table: the same estimates, exact values and errors, as the panel prints them.
        let (status, table, err) = run(&args, &input);
        assert!(status.success(), "{err}");
        assert!(
            table.contains(&format!(
                "field {field} quantiles: QuantileSketch (8.1 KiB)"
            )),
            "{table}"
        );
        for r in q["rows"].as_array().unwrap() {
            let p = r["q"].as_f64().unwrap();
            let (est, x) = (
                r["estimate"].as_f64().unwrap(),
                r["exact"].as_f64().unwrap(),
            );
            let row = format!(
                "{:>8} {:>14} {:>14} {:>9}",
                tui_demo::human::quantile_name(p),
                tui_demo::human::value(est),
                tui_demo::human::value(x),
                tui_demo::human::percent((est - x).abs() / x)
            );
            assert!(table.contains(&row), "{row:?} not in\n{table}");
        }
    }
    // The synthetic latency is what its documentation says: a median near 2 ms.
    let (_, out, _) = run(&["--input", "-", "--value-field", "9", "--json"], &input);
    let v: Value = serde_json::from_str(&out).unwrap();
    let p50 = v["quantiles"]["rows"][0]["exact"].as_f64().unwrap();
    assert!((1_000.0..4_000.0).contains(&p50), "{p50}");
}

/// A known input: `seq 1 100000` gives p50 = 50,000 (rank ⌊0.5·99,999⌋ = 49,999: the value
/// 50,000), p99 = 99,000 and so on, each estimate within α (1%) of it; a line without a number is
/// counted as such, not as a value; `--exact-cap` below the count turns the exact values off
/// without touching the estimates.
#[test]
fn value_field_on_seq_1_to_100000() {
    let mut input: Vec<u8> = (1..=100_000u32)
        .flat_map(|i| format!("{i}\n").into_bytes())
        .collect();
    input.extend_from_slice(b"-\nn/a\n");
    let (status, out, err) = run(&["--input", "-", "--value-field", "1", "--json"], &input);
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let q = &v["quantiles"];
    assert_eq!(q["missing"], 2);
    let sorted: Vec<f64> = (1..=100_000u32).map(f64::from).collect();
    check_quantiles(q, &sorted, "seq 1 100000");
    let exact: Vec<f64> = q["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["exact"].as_f64().unwrap())
        .collect();
    assert_eq!(exact, [50_000.0, 90_000.0, 99_000.0, 99_900.0]);
    let (status, out, err) = run(
        &[
            "--input",
            "-",
            "--value-field",
            "1",
            "--exact-cap",
            "1000",
            "--json",
        ],
        &input,
    );
    assert!(status.success(), "{err}");
    let capped: Value = serde_json::from_str(&out).unwrap();
    let c = &capped["quantiles"];
    assert_eq!(
        (c["exact_on"].clone(), c["exact_cap"].clone()),
        (false.into(), 1_000.into())
    );
    for (a, b) in c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(q["rows"].as_array().unwrap())
    {
        assert_eq!(a["exact"], Value::Null);
        assert_eq!(a["estimate"], b["estimate"]);
    }
    // Without --value-field, no quantiles at all.
    let (_, out, _) = run(&["--input", "-", "--json"], b"1\n2\n");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["quantiles"], Value::Null);
}

/// `--window 1m` with `--value-field`: the report answers for the window (all of this short run):
/// the same estimates as since the start, no exact values (kept since the start only), and the
/// table says so.
#[test]
fn value_field_in_a_window() {
    let input: Vec<u8> = (1..=20_000u32)
        .flat_map(|i| format!("x {i}\n").into_bytes())
        .collect();
    let json = |extra: &[&str]| -> Value {
        let args = [&["--input", "-", "--value-field", "2", "--json"][..], extra].concat();
        let (status, out, err) = run(&args, &input);
        assert!(status.success(), "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let all = json(&[]);
    let win = json(&["--window", "1m"]);
    assert_eq!(win["window"]["window"], "1m");
    let (a, w) = (&all["quantiles"], &win["quantiles"]);
    assert_eq!(
        (w["count"].clone(), w["exact_on"].clone()),
        (20_000.into(), false.into())
    );
    for (x, y) in a["rows"]
        .as_array()
        .unwrap()
        .iter()
        .zip(w["rows"].as_array().unwrap())
    {
        assert_eq!(x["estimate"], y["estimate"]);
        assert!(x["exact"].is_number());
        assert_eq!(y["exact"], Value::Null);
    }
    let (status, table, err) = run(
        &["--input", "-", "--value-field", "2", "--window", "1m"],
        &input,
    );
    assert!(status.success(), "{err}");
    assert!(
        table.contains("exact values since the start only"),
        "{table}"
    );
}

/// `--value-json PATH` on a JSON-lines log: numbers and strings holding numbers are values, lines
/// that are not JSON or lack the value are counted as without one; the figures are within α of the
/// exact ones, and the report names the value by its JSON pointer.
#[test]
fn value_json_on_a_json_lines_log() {
    let mut input = Vec::new();
    for i in 1..=10_000u32 {
        let line = if i % 2 == 0 {
            format!("{{\"path\":\"/a\",\"req\":{{\"ms\":{i}}}}}\n")
        } else {
            format!("{{\"path\":\"/b\",\"req\":{{\"ms\":\"{i}\"}}}}\n")
        };
        input.extend_from_slice(line.as_bytes());
    }
    input.extend_from_slice(b"not json\n{\"req\":{}}\n{\"req\":{\"ms\":null}}\n");
    let (status, out, err) = run(
        &["--input", "-", "--value-json", "req.ms", "--json"],
        &input,
    );
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let q = &v["quantiles"];
    assert_eq!(
        (q["json"].clone(), q["field"].clone()),
        ("/req/ms".into(), Value::Null)
    );
    assert_eq!(q["missing"], 3);
    let sorted: Vec<f64> = (1..=10_000u32).map(f64::from).collect();
    check_quantiles(q, &sorted, "--value-json req.ms");
    let (status, table, err) = run(&["--input", "-", "--value-json", "req.ms"], &input);
    assert!(status.success(), "{err}");
    assert!(
        // The path as given (it said "/req/ms", the JSON pointer made of it).
        table.contains("req.ms quantiles: QuantileSketch") && !table.contains("/req/ms"),
        "{table}"
    );
    assert!(table.contains("3 lines without a number"), "{table}");
}

/// Values from -3 to 1e300 (the user test's file): every row of the quantile table fits its
/// columns, errors beyond 1000% are capped (one was 280 digits long) and an infinite error is not
/// shown as 0%.
#[test]
fn extreme_values_fit_the_quantile_table() {
    let input = b"a 5\nb -3\nc 0\nd 1e300\ne nan\nf 12ms\ng 0.001\nh\ni 1e-300\nj inf\n";
    let (status, out, err) = run(&["report", "--input", "-", "--value-field", "2"], input);
    assert!(status.success(), "{err}");
    // (A quantile in the collapsed bucket has a note after its columns.)
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("estimate"))
        .skip(1)
        .map(|l| l.strip_suffix("   or lower (collapsed)").unwrap_or(l))
        .collect();
    assert_eq!(table.len(), 6, "min, p50 … p999, max:\n{out}");
    for row in &table {
        // label 8, estimate 14, exact 14, error 9, with a space between.
        assert!(row.chars().count() <= 48, "too wide: {row:?}\n{out}");
        let error = row.split_whitespace().last().unwrap_or_default();
        assert!(error.chars().count() <= 7, "{row:?}");
    }
    // Wherever the estimate is 1e30 times the exact value or more, the error says so.
    for row in &table[1..5] {
        let cells: Vec<f64> = row
            .split_whitespace()
            .skip(1)
            .take(2)
            .map(|c| c.replace(',', "").parse().unwrap_or(f64::NAN))
            .collect();
        if cells.len() == 2 && cells[1] != 0.0 && (cells[0] / cells[1]).abs() > 1e30 {
            assert!(row.ends_with(">1000%"), "{row:?}\n{out}");
        }
    }
}

/// `merge --json`: what only a run over the lines knows (exact counts, the filters, bytes, time,
/// rates, odd lines) is `null`, as the table leaves it out; they were zeros. The keys are those of
/// a run's report, in the same order: one schema.
#[test]
fn merge_json_has_null_for_what_a_merge_does_not_know() {
    let dir = temp_dir("merge-null");
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    std::fs::write(p("a.log"), b"x\ny\nx\nz\r\n").unwrap();
    let (status, run_json, err) = run(
        &[
            "report",
            "--json",
            "--input",
            &p("a.log"),
            "--save",
            &p("a.sk"),
        ],
        b"",
    );
    assert!(status.success(), "{err}");
    let (status, merged, err) = run(&["merge", &p("a.sk"), &p("a.sk"), "--json"], b"");
    assert!(status.success(), "{err}");
    let keys = top_level_keys(&run_json);
    assert_eq!(
        keys[..4],
        ["source", "seconds", "lines", "bytes"],
        "{keys:?}"
    );
    assert_eq!(keys.last().map(String::as_str), Some("follow"), "{keys:?}");
    assert_eq!(top_level_keys(&merged), keys);
    let m: Value = serde_json::from_str(&merged).unwrap();
    for k in [
        "seconds",
        "bytes",
        "non_utf8",
        "crlf",
        "long",
        "missing_field",
        "exact",
        "dedupe",
        "micro",
        "lines_per_sec",
        "bytes_per_sec",
    ] {
        assert_eq!(m[k], Value::Null, "{k} in {merged}");
    }
    // What the sketches know is there.
    assert_eq!(m["lines"], 8);
    assert!(m["distinct"]["estimate"].as_f64().unwrap() > 2.5);
    assert_eq!(m["heavy"]["rows"][0]["exact"], Value::Null);
    // The table leaves out the same figures.
    let (status, table, _) = run(&["merge", &p("a.sk"), &p("a.sk")], b"");
    assert!(status.success());
    assert!(
        table.contains("lines  8 (counted by the saved sketches)"),
        "{table}"
    );
    for absent in [
        "exact distinct",
        "dedupe",
        "micro filter",
        "lines/s",
        "CRLF",
    ] {
        assert!(!table.contains(absent), "{absent}:\n{table}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The keys of a JSON object's top level, in the order written (serde_json's map sorts them).
fn top_level_keys(json: &str) -> Vec<String> {
    let (mut depth, mut in_string, mut escaped) = (0, false, false);
    let (mut keys, mut current, mut expect_key) = (Vec::new(), String::new(), false);
    for c in json.chars() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    in_string = false;
                    if expect_key {
                        keys.push(std::mem::take(&mut current));
                        expect_key = false;
                    }
                    continue;
                }
                _ => {}
            }
            if expect_key {
                current.push(c);
            }
            continue;
        }
        match c {
            '{' | '[' => {
                depth += 1;
                expect_key = depth == 1;
            }
            '}' | ']' => depth -= 1,
            ',' => expect_key = depth == 1,
            '"' => in_string = true,
            _ => {}
        }
    }
    keys
}

/// `--save` to a path that cannot be written fails at the start, naming it, whatever the source:
/// it used to be found only at exit (after reading all the input or the `--seconds`), with the
/// report thrown away.
#[test]
fn an_unwritable_save_path_fails_at_once_naming_it() {
    let dir = temp_dir("badsave");
    let log = dir.join("a.log");
    std::fs::write(&log, b"x\ny\n").unwrap();
    let missing = dir.join("no-such-dir").join("x.sk");
    let (log, missing, as_dir) = (
        log.to_str().unwrap(),
        missing.to_str().unwrap(),
        dir.to_str().unwrap(),
    );
    for args in [
        vec!["report", "--input", log, "--save", missing],
        vec!["report", "--seconds", "20", "--save", missing],
        vec![
            "report",
            "--input",
            "-",
            "--save",
            missing,
            "--seconds",
            "20",
        ],
        vec!["report", "--seconds", "20", "--save", as_dir],
    ] {
        let start = Instant::now();
        // stdin stays open: a source that never ends (but for `--seconds`, which bounds the test).
        let out = start_open(&args).wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{args:?}: not at once"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(
            err.contains("--save") && err.contains(args[4]),
            "{args:?}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The check leaves an earlier save whole (the run saves over it only once it has counted
/// something), and a save that fails at the end anyway still prints the report, then exits 1.
#[test]
fn an_earlier_save_is_kept_and_a_failed_last_save_still_reports() {
    let dir = temp_dir("lastsave");
    let save = dir.join("x.sk");
    std::fs::write(&save, b"an earlier save").unwrap();
    let save_s = save.to_str().unwrap();
    let mut child = start_open(&["report", "--input", "-", "--save", save_s]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"a\nb\na\n").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(700));
    assert_eq!(std::fs::read(&save).unwrap(), b"an earlier save");
    assert!(!dir.join("x.sk.tmp").exists());
    // The directory goes away: the save on exit fails.
    std::fs::remove_dir_all(&dir).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(stdout.contains("lines  3 "), "the report first: {stdout}");
    assert!(err.contains("--save") && err.contains(save_s), "{err}");
}

/// `--redis` to a server that never answers (a port bound and dropped): the run's report is
/// printed, then it exits 1 naming the server, since what it was to write was not written (it
/// exited 0).
#[test]
fn redis_writes_that_fail_to_the_end_exit_1_after_the_report() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{port}");
    let (status, out, err) = run(&["report", "--redis", &url, "--input", "-"], b"a\nb\na\n");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(out.contains("lines  3 "), "the report first: {out}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!("tui-demo: --redis {url}/0: ")),
        "{err}"
    );
    // JSON too.
    let (status, out, _) = run(
        &["report", "--json", "--redis", &url, "--input", "-"],
        b"a\n",
    );
    assert_eq!(status.code(), Some(1));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["lines"], 1);
}

/// Lines longer than the read buffer (128 KiB) are keyed whole with `--field`, `--key-regex`,
/// `--json-key` and give their values to `--value-json`, up to `LONG_KEPT_MAX` (4 MiB); a longer
/// one has no key and no value. Found by a user test: keys and values were taken from a long
/// line's first 256 bytes, so a JSON line had none (its JSON cut short) and two lines differing
/// past byte 256 were one key.
#[test]
fn long_lines_are_keyed_whole() {
    let pad = "x".repeat(140_000);
    let mut input = String::new();
    for user in ["bob", "amy", "bob"] {
        input += &format!("{{\"pad\":\"{pad}\",\"user\":\"{user}\",\"ms\":5}}\n");
    }
    // Field 3 differs after the pad; the regex's match is past it.
    input += &format!("a {pad}X 200 id=7\n");
    input += &format!("a {pad}Y 404 id=8\n");
    // Longer than what is kept of a line: no key, no value.
    let huge = "y".repeat(tui_demo::source::LONG_KEPT_MAX + 10);
    input += &format!("{{\"user\":\"zed\",\"ms\":1,\"pad\":\"{huge}\"}}\n");
    let report = |args: &[&str]| -> Value {
        let mut all = vec!["report", "--json", "--input", "-"];
        all.extend_from_slice(args);
        let (status, out, err) = run(&all, input.as_bytes());
        assert!(status.success(), "{err}");
        serde_json::from_str(&out).unwrap()
    };
    let rows = |v: &Value| -> Vec<(String, u64)> {
        v["heavy"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["line"].as_str().unwrap().to_string(),
                    r["estimate"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let v = report(&["--json-key", "user", "--value-json", "ms"]);
    assert_eq!(v["long"], 6);
    // The two field-keyed lines are not JSON; the huge one is too long.
    assert_eq!(v["missing_field"], 3);
    assert_eq!(rows(&v), [("bob".to_string(), 2), ("amy".to_string(), 1)]);
    assert_eq!(
        (
            v["quantiles"]["count"].as_u64(),
            v["quantiles"]["missing"].as_u64()
        ),
        (Some(3), Some(3))
    );
    let v = report(&["--field", "3"]);
    assert_eq!(v["exact"]["distinct"], 2, "200 and 404");
    assert_eq!(rows(&v).len(), 2);
    let v = report(&["--field", "2"]);
    // The pads ending X and Y (the JSON lines have no field 2): one key each, not one.
    assert_eq!(v["exact"]["distinct"], 2);
    assert_eq!(v["missing_field"], 4);
    let v = report(&["--key-regex", r"id=(\d+)"]);
    assert_eq!(rows(&v), [("7".to_string(), 1), ("8".to_string(), 1)]);
    // The table says what was done with them: keyed whole up to the bound (it said "hashed
    // whole", as of whole lines, of the line too long to key: a user test).
    let (_, table, _) = run(
        &["report", "--input", "-", "--field", "3"],
        input.as_bytes(),
    );
    assert!(
        table.contains(
            "6 longer than the read buffer (keyed whole up to 4.0 MiB) · 4 without the key"
        ),
        "{table}"
    );
    let (_, table, _) = run(&["report", "--input", "-"], input.as_bytes());
    assert!(
        table.contains("6 longer than the read buffer (hashed whole)"),
        "{table}"
    );
}

/// `merge --top N` past the rows whose text the saving run kept (its `--top`): those rows say so,
/// `"line": null` in JSON and `(text not kept)` in the table. Found by a user test: they said
/// `"line": "?"`, which a real line `?` also says.
#[test]
fn merged_rows_without_text_are_null() {
    let dir = temp_dir("merge-no-text");
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // 30 lines of distinct counts (101 to 130), a real line "?" seen 200 times, then 1,000 lines
    // seen once: the run keeps the text of the lines that may make its top 5 only.
    let mut log = String::new();
    for i in 1..=30 {
        log += &format!("line {i}\n").repeat(100 + i);
    }
    log += &"?\n".repeat(200);
    for i in 0..1_000 {
        log += &format!("once {i}\n");
    }
    std::fs::write(p("a.log"), &log).unwrap();
    let (status, _, err) = run(
        &[
            "report",
            "--input",
            &p("a.log"),
            "--top",
            "5",
            "--save",
            &p("a.sk"),
        ],
        b"",
    );
    assert!(status.success(), "{err}");
    let (status, out, err) = run(&["merge", &p("a.sk"), "--top", "20", "--json"], b"");
    assert!(status.success(), "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let rows = v["heavy"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    assert_eq!(rows[0]["line"], "?", "a real line ?");
    let known = rows.iter().filter(|r| r["line"].is_string()).count();
    assert!(known >= 5, "{rows:?}");
    for r in rows.iter().filter(|r| !r["line"].is_string()) {
        assert!(r["line"].is_null() && r["cut"].is_null(), "{r}");
    }
    assert!(
        known < 20,
        "the run kept the text of its top rows only: {rows:?}"
    );
    let (status, table, err) = run(&["merge", &p("a.sk"), "--top", "20"], b"");
    assert!(status.success(), "{err}");
    assert!(table.contains("(text not kept)"), "{table}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `listen` on port 0 says the port the system gave on stderr at once, so that devices can be
/// pointed at it while it runs (found by a user test: in a report it first showed at the end).
#[test]
fn listen_on_port_0_says_its_port_at_once() {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(["listen", "127.0.0.1:0", "--report", "--seconds", "30"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tui-demo");
    let mut first = String::new();
    std::io::BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // Still running: the line came before the end.
    assert!(child.try_wait().unwrap().is_none(), "{first}");
    let _ = child.kill();
    let _ = child.wait();
    let port: u16 = first
        .trim()
        .strip_prefix("tui-demo: listening for devices on udp 127.0.0.1:")
        .unwrap_or_else(|| panic!("{first}"))
        .parse()
        .unwrap();
    assert_ne!(port, 0);
}

/// An empty heavy-hitter list in the table says why, as the panel does (found by a user test: an
/// empty report printed a bare header).
#[test]
fn an_empty_heavy_list_in_the_table_says_why() {
    let (status, out, err) = run(&["report", "--input", "-", "--field", "3"], b"a b\n");
    assert!(status.success(), "{err}");
    assert!(out.contains("(no keys: 1 line without one)"), "{out}");
    let (status, out, err) = run(&["report", "--input", "-"], b"");
    assert!(status.success(), "{err}");
    assert!(out.contains("(no lines yet)"), "{out}");
}
