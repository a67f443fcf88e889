//! End to end in a real terminal: the demo runs in a detached tmux session of a fixed size, keys are
//! sent with `send-keys`, the screen is read with `capture-pane`, and after quitting the shell must
//! be back, in cooked mode (a typed command runs when Enter is pressed).
//!
//! tmux is required: if it is missing these tests FAIL and say so (`scripts/test-all.sh` installs it).
//! Each test uses its own tmux server socket, so tests and other tmux users never interfere.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tui-demo");
const WAIT: Duration = Duration::from_secs(30);

/// A tmux server of our own with one session running a plain shell.
struct Tmux {
    socket: String,
    /// The server's socket file, removed on drop.
    socket_path: String,
}

impl Tmux {
    fn start(name: &str, width: u16, height: u16) -> Self {
        match Command::new("tmux").arg("-V").output() {
            Ok(o) if o.status.success() => {}
            _ => panic!(
                "tmux is required for the end-to-end tests and was not found: install it \
                 (apt-get install tmux); scripts/test-all.sh does this in CI"
            ),
        }
        let mut t = Self {
            socket: format!("tui-demo-e2e-{name}-{}", std::process::id()),
            socket_path: String::new(),
        };
        let _ = t.run(&["kill-server"]);
        let out = t.run(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
            "env PS1='E2E> ' sh",
        ]);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t.wait_for("the shell prompt", |s| s.contains("E2E>"));
        let path = t.run(&["display-message", "-p", "#{socket_path}"]);
        t.socket_path = String::from_utf8_lossy(&path.stdout).trim().to_string();
        t
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Types text literally, then presses Enter.
    fn type_line(&self, text: &str) {
        assert!(self
            .run(&["send-keys", "-t", "e2e", "-l", text])
            .status
            .success());
        self.keys(&["Enter"]);
    }

    /// Sends tmux key names (`q`, `Tab`, `C-c`, `Enter`, ...).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    /// Waits until the screen satisfies `cond`, failing with the last screen after [`WAIT`].
    fn wait_for(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if cond(&s) {
                return s;
            }
            assert!(
                start.elapsed() < WAIT,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The pid of the program running in the pane's shell, if any.
    fn child_pid(&self) -> Option<u32> {
        let out = self.run(&["list-panes", "-t", "e2e", "-F", "#{pane_pid}"]);
        let shell: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
        let children =
            std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).ok()?;
        children.split_whitespace().next()?.parse().ok()
    }

    /// Asserts the demo is gone and the terminal is back in cooked mode: a typed command runs.
    fn assert_shell_is_back(&self, exit_marker: &str) {
        self.wait_for("the demo to exit", |s| s.contains(exit_marker));
        assert_eq!(self.child_pid(), None, "the demo process is still running");
        self.type_line("echo cooked-$((40+2))");
        let s = self.wait_for("the shell to run a command", |s| s.contains("cooked-42"));
        assert!(
            !s.contains("◆ sketch-nostd"),
            "the demo's screen is still shown:\n{s}"
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        // The server's socket file can outlive a killed server: remove it too.
        if !self.socket_path.is_empty() {
            let _ = std::fs::remove_file(&self.socket_path);
        }
    }
}

fn is_live(s: &str) -> bool {
    s.contains("◆ sketch-nostd") && s.contains("LIVE") && s.contains("Dedupe")
}

#[test]
fn keys_drive_the_live_view_and_q_restores_the_shell() {
    let t = Tmux::start("keys", 100, 30);
    t.type_line(&format!("NO_COLOR=1 {BIN} --rate 20000; echo exit=$?"));
    t.wait_for("the live view", is_live);
    // The first frame may come before the first snapshot; every panel shows within a few frames.
    let panels = [
        "Distinct",
        "Heavy hitters",
        "HLL registers",
        "Dedupe",
        "Micro filter",
        "Ingest",
        "117.0 KiB",
        "rate: 20.0k/s",
    ];
    t.wait_for("every panel", |s| panels.iter().all(|p| s.contains(p)));
    // Lines are being counted: the header's line count grows.
    t.wait_for("lines to be counted", |s| {
        s.lines()
            .next()
            .is_some_and(|h| h.contains("k lines") || h.contains("M lines"))
    });

    t.keys(&["?"]);
    t.wait_for("the help overlay", |s| s.contains("pause / resume"));
    t.keys(&["?"]);
    t.wait_for("the help to close", |s| !s.contains("pause / resume"));

    t.keys(&["p"]);
    t.wait_for("pause", |s| s.contains("PAUSED"));
    t.keys(&["p"]);
    t.wait_for("resume", |s| s.contains("LIVE"));

    t.keys(&["+"]);
    t.wait_for("the faster rate", |s| s.contains("rate: 50.0k/s"));

    // Zoom the focused panel (Distinct first), then move the focus: only the zoomed panel is
    // shown. Without colours the focused panel's border is thick (┏), the others' rounded (╭).
    t.keys(&["Enter"]);
    t.wait_for("zoom", |s| {
        s.contains("┏ Distinct") && !s.contains("Heavy hitters")
    });
    t.keys(&["Tab"]);
    t.wait_for("focus to move", |s| {
        s.contains("┏ Heavy hitters") && !s.contains(" Distinct ")
    });
    t.keys(&["Escape"]);
    t.wait_for("unzoom", |s| {
        s.contains("┏ Heavy hitters") && s.contains("╭ Distinct")
    });

    // A reset is asked for twice: the first `r` says what a second one does.
    t.keys(&["r"]);
    t.wait_for("the reset's question", |s| {
        s.contains("r again: reset all counts (and the next --save)")
    });
    t.keys(&["r"]);
    t.wait_for("the key bar back", |s| {
        !s.contains("r again") && s.contains("q quit")
    });
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
}

#[test]
fn stdin_mode_reads_keys_from_the_terminal() {
    let t = Tmux::start("stdin", 100, 30);
    t.type_line(&format!(
        "printf 'a\\nb\\na\\n' | {BIN} --input -; echo exit=$?"
    ));
    let s = t.wait_for("the end of input", |s| s.contains("END OF INPUT"));
    assert!(s.contains("stdin"), "{s}");
    assert!(s.contains("3 lines"), "{s}");
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
    // The summary is printed on the restored terminal.
    let s = t.screen();
    assert!(s.contains("sketch-nostd report · stdin"), "{s}");
    assert!(s.contains("lines  3 "), "{s}");
    // An empty input still gets its summary on quit (it got none: a user test).
    t.type_line("clear");
    t.type_line(&format!("{BIN} --input /dev/null; echo empty=$?"));
    t.wait_for("the end of input", |s| s.contains("END OF INPUT"));
    t.keys(&["q"]);
    t.assert_shell_is_back("empty=0");
    let s = t.screen();
    assert!(
        s.contains("sketch-nostd report · /dev/null") && s.contains("lines  0 "),
        "{s}"
    );
    // Without --input, a pipe on stdin is the source (it was left unread for the synthetic log).
    t.type_line("clear");
    t.type_line(&format!("printf 'a\\nb\\n' | {BIN}; echo piped=$?"));
    let s = t.wait_for("the end of input", |s| s.contains("END OF INPUT"));
    assert!(s.contains("stdin") && s.contains("2 lines"), "{s}");
    t.keys(&["q"]);
    t.assert_shell_is_back("piped=0");
}

#[test]
fn stdin_as_the_terminal_is_refused_by_the_live_view() {
    // Found by a user test: `--input -` with stdin the terminal froze the view (the line reader
    // and the key reader took turns at the keystrokes, so `q` seldom arrived).
    let t = Tmux::start("stdin-tty", 100, 30);
    t.type_line(&format!("{BIN} --input -; echo exit=$?"));
    t.wait_for("the refusal", |s| s.contains("that is this terminal"));
    t.assert_shell_is_back("exit=1");
    // The terminal by another name (a user test found these froze the view as `-` had).
    for name in ["/dev/tty", "/dev/stdin"] {
        t.type_line("clear");
        t.type_line(&format!("{BIN} --input {name}; echo name-exit=$?"));
        let refusal = format!("--input {name}: that is this terminal");
        t.wait_for("the refusal", |s| s.contains(&refusal));
        t.assert_shell_is_back("name-exit=1");
    }
    // Typed into the headless report, the lines are read until Ctrl-D.
    t.type_line("clear");
    t.type_line(&format!("{BIN} report --input -; echo report-exit=$?"));
    t.type_line("a");
    t.type_line("a");
    t.keys(&["C-d"]);
    let s = t.wait_for("the report", |s| s.contains("report-exit=0"));
    assert!(s.contains("lines  2 "), "{s}");
    t.assert_shell_is_back("report-exit=0");
}

#[test]
fn ctrl_c_sigterm_and_a_panic_restore_the_terminal() {
    let t = Tmux::start("signals", 100, 30);
    t.type_line(&format!("{BIN}; echo exit=$?"));
    t.wait_for("the live view", is_live);
    t.keys(&["C-c"]);
    t.assert_shell_is_back("exit=130");

    t.type_line("clear");
    t.type_line(&format!("{BIN}; echo term-exit=$?"));
    t.wait_for("the live view", is_live);
    let pid = t.child_pid().expect("the demo's pid");
    let killed = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    t.assert_shell_is_back("term-exit=143");

    t.type_line("clear");
    t.type_line(&format!(
        "TUI_DEMO_PANIC_AFTER_FRAMES=3 {BIN}; echo panic-exit=$?"
    ));
    let s = t.wait_for("the panic to be reported", |s| s.contains("panic-exit=101"));
    assert!(
        s.contains("panicked"),
        "the panic message is printed on the restored screen:\n{s}"
    );
    t.assert_shell_is_back("panic-exit=101");
}

#[test]
fn a_fifo_without_a_writer_shows_the_view_and_q_quits() {
    // Found by a user test: the open of a FIFO waited for a writer before the view drew, so the
    // screen stayed blank and `q` went unread.
    let t = Tmux::start("fifo", 100, 30);
    let dir = std::env::temp_dir().join(format!("tui-demo-e2e-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pipe = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&pipe).status();
    assert!(made.as_ref().is_ok_and(|s| s.success()), "mkfifo: {made:?}");
    t.type_line(&format!("{BIN} --input {}; echo exit=$?", pipe.display()));
    let s = t.wait_for("the live view", is_live);
    assert!(s.contains("0 lines"), "{s}");
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_directory_as_input_shows_the_error_and_exits_1() {
    let t = Tmux::start("dir", 100, 30);
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap();
    t.type_line(&format!("NO_COLOR=1 {BIN} --input {dir}; echo exit=$?"));
    let s = t.wait_for("the error", |s| s.contains("directory"));
    assert!(s.contains(dir), "{s}");
    t.assert_shell_is_back("exit=1");
    let s = t.screen();
    assert!(
        s.contains(&format!("tui-demo: {dir}")),
        "the error is printed after the view:\n{s}"
    );
}

#[test]
fn a_panic_in_the_ingest_thread_restores_the_terminal_and_is_reported() {
    // The ingest thread panics while the draw loop runs: the loop notices within a frame, leaves
    // the view, and the message is printed on the restored screen; nothing hangs.
    let t = Tmux::start("ingest-panic", 100, 30);
    t.type_line(&format!(
        "TUI_DEMO_PANIC_INGEST_AFTER=20 {BIN}; echo ingest-panic-exit=$?"
    ));
    // The echo's line, not the typed command's (which contains the same words).
    let s = t.wait_for("the demo to exit", |s| {
        s.lines().any(|l| l.starts_with("ingest-panic-exit="))
    });
    assert!(s.contains("ingest-panic-exit=101"), "{s}");
    assert!(
        s.contains("thread 'ingest'") && s.contains("panics on purpose after 20 snapshots"),
        "the panic message is printed on the restored screen:\n{s}"
    );
    t.assert_shell_is_back("ingest-panic-exit=101");
}

/// Another program writing over the view (`tail -F`'s notes on the terminal it shares: here over
/// the Distinct panel's bottom border, which no frame changes) stays on
/// screen, since a frame draws only the cells that changed; Ctrl-L draws them all again. The view
/// is paused first: its frames then change nothing, so the other program's bytes cannot land
/// between two writes of a frame (under a loaded machine they once did, and the view moved them).
#[test]
fn ctrl_l_draws_over_another_program_s_output() {
    let t = Tmux::start("redraw", 100, 30);
    t.type_line(&format!("NO_COLOR=1 {BIN} --rate 1000; echo exit=$?"));
    t.wait_for("the live view", is_live);
    t.keys(&["p"]);
    t.wait_for("the paused view", |s| s.contains("PAUSED"));
    let tty = t.run(&["display-message", "-p", "-t", "e2e", "#{pane_tty}"]);
    let tty = String::from_utf8_lossy(&tty.stdout).trim().to_string();
    std::fs::write(&tty, "\x1b[9;5HSTRAY-OUTPUT-OVER-THE-VIEW").unwrap();
    t.wait_for("the stray output on screen", |s| s.contains("STRAY-OUTPUT"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        t.screen().contains("STRAY-OUTPUT"),
        "redrawn without Ctrl-L"
    );
    t.keys(&["C-l"]);
    t.wait_for("the view drawn again", |s| {
        s.contains("PAUSED") && s.contains("Dedupe") && !s.contains("STRAY-OUTPUT")
    });
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
}

#[test]
fn a_tiny_terminal_still_works() {
    let t = Tmux::start("tiny", 24, 6);
    t.type_line(&format!("{BIN}; echo exit=$?"));
    // The first panel has the focus (it was the third, Dedupe).
    t.wait_for("the focused panel", |s| s.contains("Distinct"));
    t.keys(&["Tab"]);
    t.wait_for("the next panel", |s| s.contains("Heavy"));
    t.keys(&["q"]);
    t.wait_for("the demo to exit", |s| s.contains("exit=0"));
}

#[test]
fn a_vanished_terminal_ends_the_demo() {
    // The pane's terminal disappears under the running demo (a closed window, a dropped ssh
    // session): the demo must exit, not spin on a dead tty, and make its last save as on any
    // other way out (found by a user test: the watchdog exited first, and the file never came).
    let dir = std::env::temp_dir().join(format!("tui-demo-e2e-hangup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("app.log");
    let lines: String = (0..3_000).map(|i| format!("GET /{}\n", i % 30)).collect();
    std::fs::write(&log, lines).unwrap();
    let save = dir.join("hangup.sk");
    let (log_s, save_s) = (log.to_str().unwrap(), save.to_str().unwrap());
    let t = Tmux::start("hangup", 100, 30);
    // Followed: the input never ends, and the save waits for the way out (every hour otherwise).
    t.type_line(&format!(
        "NO_COLOR=1 {BIN} --input {log_s} --follow --save {save_s} --save-every 3600; echo exit=$?"
    ));
    t.wait_for("the lines read", |s| is_live(s) && s.contains("3.0k lines"));
    let pid = t.child_pid().expect("the demo's pid");
    let _ = t.run(&["kill-server"]);
    let start = Instant::now();
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .is_ok_and(|s| s.split(' ').nth(2).is_none_or(|state| state != "Z"))
    };
    while alive(pid) && start.elapsed() < Duration::from_secs(15) {
        std::thread::sleep(Duration::from_millis(100));
    }
    if alive(pid) {
        // Do not leave it spinning after the test: it was started by this test.
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
        panic!("the demo (pid {pid}) still runs 15 s after its terminal went away");
    }
    let merged = Command::new(BIN)
        .args(["merge", save_s, "--json"])
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(v["lines"], 3_000, "{v}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_live_view_saves_its_sketches_and_merge_reports_them() {
    let dir = std::env::temp_dir().join(format!("tui-demo-e2e-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("app.log");
    let lines: String = (0..5_000).map(|i| format!("GET /{}\n", i % 50)).collect();
    std::fs::write(&log, lines).unwrap();
    let save = dir.join("live.sk");
    let (log, save) = (log.to_str().unwrap(), save.to_str().unwrap());
    let t = Tmux::start("save", 120, 60);
    t.type_line(&format!(
        "NO_COLOR=1 {BIN} --input {log} --save {save} --save-every 0.2; echo exit=$?"
    ));
    t.wait_for("the end of input", |s| s.contains("END OF INPUT"));
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
    t.type_line("clear");
    t.type_line(&format!(
        "{BIN} merge {save} {save} --report; echo merge-exit=$?"
    ));
    // Two copies of one run of 50 lines × 100: every count doubles to exactly 200.
    let s = t.wait_for("the merged report", |s| s.contains("merge-exit=0"));
    assert!(
        s.contains("lines  10,000 (counted by the saved sketches)"),
        "{s}"
    );
    let rows = s
        .lines()
        .filter(|l| l.contains("GET /") && l.split_whitespace().take(2).all(|n| n == "200"))
        .count();
    assert_eq!(rows, 10, "{s}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A growing, rotated file followed live: the last-minute window shows only what came in the last
/// minute (the run's clock sped up ten times by the `TUI_DEMO_TIME_SCALE` test hook, so a minute is
/// six seconds), since start shows everything, and the sketches saved on quit merge into a report
/// of every line, rotation included.
#[test]
fn windows_follow_and_save_on_a_growing_file() {
    let dir = std::env::temp_dir().join(format!("tui-demo-e2e-follow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("app.log");
    let append = |text: String| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    };
    append((0..1_000).map(|i| format!("old {}\n", i % 20)).collect());
    let save = dir.join("live.sk");
    let (log_s, save_s) = (log.to_str().unwrap(), save.to_str().unwrap());
    let t = Tmux::start("follow", 120, 40);
    t.type_line(&format!(
        "TUI_DEMO_TIME_SCALE=10 NO_COLOR=1 {BIN} --input {log_s} --follow --save {save_s} \
         --save-every 0.2; echo exit=$?"
    ));
    t.wait_for("the first lines", |s| {
        is_live(s) && s.contains("1.0k lines")
    });
    assert!(t.screen().contains("since start"), "{}", t.screen());
    // Ninety seconds of the run's time later, new lines arrive.
    std::thread::sleep(Duration::from_secs(9));
    append((0..500).map(|i| format!("new {}\n", i % 5)).collect());
    t.wait_for("the appended lines", |s| s.contains("1.5k lines"));
    t.keys(&["w"]);
    let s = t.wait_for("the last minute", |s| {
        s.contains("last 1 min") && s.contains("estimate 5 ")
    });
    assert!(s.contains("new 0") && !s.contains("old 0"), "{s}");
    assert!(s.contains("since start only"), "{s}");
    // w steps through 5 and 15 minutes back to since start.
    t.keys(&["w", "w", "w"]);
    t.wait_for("since start", |s| {
        s.contains("since start · ring") && s.contains("1.5k lines")
    });
    // Rotation: the old file is renamed, a new one takes its name: every line, 27 distinct.
    std::fs::rename(&log, dir.join("app.log.1")).unwrap();
    append((0..100).map(|i| format!("rotated {}\n", i % 2)).collect());
    t.wait_for("the rotated file's lines", |s| {
        s.contains("1.6k lines") && s.contains("estimate 27 ") && s.contains("exact    27")
    });
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
    t.type_line("clear");
    t.type_line(&format!(
        "{BIN} merge {save_s} {save_s} --report; echo merge-exit=$?"
    ));
    let s = t.wait_for("the merged report", |s| s.contains("merge-exit=0"));
    assert!(
        s.contains("lines  3,200 (counted by the saved sketches)"),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--value-field 9` at 80×24: the quantiles panel shows the four quantiles with their exact values
/// in the micro filter's place, `w` turns the exact values off (kept since start only) and says so,
/// and focusing the micro filter brings it back into that place.
#[test]
fn the_quantiles_panel_live_at_80x24() {
    let t = Tmux::start("quantiles", 80, 24);
    t.type_line(&format!(
        "NO_COLOR=1 {BIN} --value-field 9 --rate 20000; echo exit=$?"
    ));
    let s = t.wait_for("the quantiles panel", |s| {
        s.contains("Quantiles field 9") && s.contains("p999") && s.contains("exact   error")
    });
    assert!(s.contains("±0.99%") && !s.contains("Micro filter"), "{s}");
    t.keys(&["w"]);
    t.wait_for("the window's quantiles", |s| {
        s.contains("last 1 min") && s.contains("exact: since start") && s.contains("p999")
    });
    // The focus starts on Distinct; then come Heavy hitters, Dedupe, Quantiles, the micro filter.
    t.keys(&["Tab", "Tab", "Tab", "Tab"]);
    t.wait_for("the micro filter in its place", |s| {
        s.contains("Micro filter") && !s.contains("Quantiles field 9")
    });
    t.keys(&["q"]);
    t.assert_shell_is_back("exit=0");
}
