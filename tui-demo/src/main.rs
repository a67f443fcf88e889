//! `tui-demo`: arguments, terminal set-up and restore, the panic hook, the draw/event loop.
//!
//! The terminal is restored on every way out: `q`/`Esc`, Ctrl-C (a key in raw mode), SIGINT,
//! SIGTERM and SIGHUP (flags checked every frame), a panic of the draw loop (the hook restores before
//! the message is printed), a panic of another thread such as ingest (the hook keeps the message
//! and raises a flag; the draw loop sees it within a frame, leaves the view, and the message is
//! printed on the restored screen), and a write error such as a broken pipe or a vanished terminal
//! (the loop ends with the error and the guard restores). Broken pipes in headless output end the
//! program quietly.
#![forbid(unsafe_code)]

use std::io::{self, IsTerminal};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event};
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::crossterm::{cursor, execute};
use ratatui::Terminal;

use tui_demo::app::{Action, App, Mode};
use tui_demo::args::{self, Options, Output};
use tui_demo::ingest;
use tui_demo::source::{synthetic, SourceSpec};
use tui_demo::ui::theme::Theme;
use tui_demo::{emit, report};

/// Time between frames: 25 frames per second.
const FRAME: Duration = Duration::from_millis(40);

fn main() -> ExitCode {
    let mut opts = match args::parse(std::env::args_os()) {
        Ok(o) => o,
        // Help and version print and exit 0; mistakes print and exit 2. A closed stdout is fine.
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    opts.stdin_by_default(stdin_has_lines());
    let result = if let Some(size) = opts.generate {
        let seed = match opts.source {
            SourceSpec::Synthetic { seed } => seed,
            _ => 1,
        };
        synthetic::generate(
            seed,
            size,
            &mut io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
        )
        .map(|()| 0)
    } else if let Some(devices) = opts.emit {
        let signal = match signals() {
            Ok(s) => s,
            Err(e) => {
                report::say(e);
                return ExitCode::FAILURE;
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let watch = Arc::clone(&signal);
        let stop2 = Arc::clone(&stop);
        // emit::run watches a flag; a signal sets it.
        std::thread::spawn(move || loop {
            if watch.load(Ordering::Relaxed) != 0 {
                stop2.store(true, Ordering::Relaxed);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        });
        let seed = match opts.source {
            SourceSpec::Synthetic { seed } => seed,
            _ => 1,
        };
        emit::run(
            &emit::EmitOptions {
                devices,
                to: opts.to,
                rate: opts.rate.unwrap_or(args::DEFAULT_DEVICE_RATE),
                period: Duration::from_millis(opts.period_ms),
                corrupt: opts.corrupt,
                seconds: opts.seconds,
                seed,
                value_field: opts.value_field,
                first_id: opts.first_id,
            },
            &stop,
            &mut io::stderr(),
        )
        .map(|_| signal.load(Ordering::Relaxed))
    } else if opts.output == Output::Report || !io::stdout().is_terminal() {
        headless(&opts)
    } else {
        live(&opts)
    };
    match result {
        // Stopped by a signal (or Ctrl-C in the live view): 128 + its number, as shells expect.
        Ok(sig) if sig != 0 => ExitCode::from(128 + sig as u8),
        // Another thread panicked in the live view: its message, the usual panic exit code.
        Err(e) if PANICKED.load(Ordering::SeqCst) => {
            report::say(e);
            ExitCode::from(101)
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            report::say(e);
            ExitCode::FAILURE
        }
    }
}

/// The headless report; a stop signal ends the input early and the report of what was counted is
/// still printed. Returns the signal's number, or 0.
fn headless(opts: &Options) -> io::Result<usize> {
    let signal = signals()?;
    let snapshot = report::run_until(opts, &signal)?;
    let mut out = io::stdout().lock();
    let written = if opts.json {
        report::write_json(&snapshot, &mut out)
    } else {
        report::write_table(&snapshot, &mut out)
    };
    // A source or save that failed fails the run, after its report, and even when nothing reads
    // the report (a closed stdout ends quietly, but it hid a damaged gzip's exit 1).
    report::outcome(&snapshot)?;
    written?;
    Ok(signal.load(Ordering::Relaxed))
}

/// Registers SIGINT, SIGTERM and SIGHUP: the flag holds the number of the last one received (0
/// while none was).
fn signals() -> io::Result<Arc<AtomicUsize>> {
    let flag = Arc::new(AtomicUsize::new(0));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register_usize(sig, Arc::clone(&flag), sig as usize)?;
    }
    Ok(flag)
}

/// Whether the terminal is in raw mode on the alternate screen (so restore runs once).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// A thread other than the draw loop panicked while the live view was up: its message, for the
/// draw loop to print once the terminal is restored.
static PANICKED: AtomicBool = AtomicBool::new(false);
static PANIC_MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// The message kept by the panic hook, if a thread panicked.
fn panic_message() -> Option<String> {
    PANIC_MESSAGE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
}

fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(io::stdout(), LeaveAlternateScreen, cursor::Show);
    }
}

/// Ends the process if the terminal goes away or a stop signal is not acted on.
///
/// crossterm 0.29's `event::poll` spins without returning once its terminal is gone (its unix
/// event source retries a read that keeps returning 0 or EIO; crossterm issue #793), so the draw
/// loop can neither see the signal flag nor fail a write. This thread checks five times a second:
/// if stdout is no longer a terminal (hung up), or a stop signal or another thread's panic came more
/// than a second ago and the loop has not finished, it restores what it can, has ingest quit with
/// its last save (`--save` keeps what was counted, as on any other way out: a closed terminal lost
/// it), and exits (129 for a terminal gone, as for SIGHUP).
fn watchdog(signalled: Arc<AtomicUsize>, ingest: ingest::Stopper) -> io::Result<()> {
    std::thread::Builder::new()
        .name("watchdog".into())
        .spawn(move || {
            let mut signal_seen: Option<Instant> = None;
            loop {
                std::thread::sleep(Duration::from_millis(200));
                if !ACTIVE.load(Ordering::SeqCst) {
                    return; // the live view is being left normally
                }
                let hung_up = !io::stdout().is_terminal();
                let sig = signalled.load(Ordering::Relaxed);
                if sig != 0 || PANICKED.load(Ordering::SeqCst) {
                    signal_seen.get_or_insert_with(Instant::now);
                }
                let stuck = signal_seen.is_some_and(|t| t.elapsed() > Duration::from_secs(1));
                if hung_up || stuck {
                    restore();
                    // Said where stderr still goes (a file, a log); a closed one is ignored.
                    if !ingest.quit_and_wait(Duration::from_secs(5)) {
                        report::say("ingest did not quit within 5 s");
                    }
                    if let Some(message) = panic_message() {
                        report::say(message);
                        std::process::exit(101);
                    }
                    let code = match sig {
                        0 if hung_up => {
                            report::say("the terminal went away");
                            128 + signal_hook::consts::SIGHUP
                        }
                        0 => 1,
                        sig => 128 + sig as i32,
                    };
                    std::process::exit(code);
                }
            }
        })
        .map(|_| ())
}

/// Restores the terminal when dropped, whatever path leaves the live view.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
    }
}

/// The live view, then the summary of what it counted printed on the restored terminal (as the
/// report's table). Returns the number of the signal that ended it (SIGINT for Ctrl-C), or 0.
fn live(opts: &Options) -> io::Result<usize> {
    // The view reads its keys from the terminal on stdin when there is one: lines typed there
    // would be split between the keys and the log, and `q` would not reach the view.
    if let SourceSpec::Lines(inputs) = &opts.source {
        if let Some(name) = inputs.iter().find_map(a_terminal) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "--input {name}: that is this terminal, which the live view reads its keys \
                     from; pipe the log in (`command | tui-demo --input -`), give a file, or \
                     type lines into `tui-demo report --input -` (Ctrl-D ends them)"
                ),
            ));
        }
    }
    let (result, last) = live_view(opts);
    // The view's guard has restored the terminal: what was counted stays on the screen.
    if let Some(snap) = last {
        // Whenever the view ran, even over nothing (an empty file, a reset just before quitting:
        // a user test quit those to a blank shell); not after a failure that counted nothing.
        if result.is_ok() || snap.totals.lines > 0 || snap.devices.is_some() {
            // The summary's rates are the run's averages, as the report's are.
            let mut snap = tui_demo::snapshot::Snapshot::clone(&snap);
            snap.average_rates();
            let mut out = io::stdout().lock();
            let _ = report::write_table(&snap, &mut out);
        }
    }
    result
}

/// Whether stdin is a pipe or a file (`tail -f app.log | tui-demo`, `tui-demo < app.log`), whose
/// lines are then counted when no `--input` names a source; a terminal, `/dev/null` or a closed
/// stdin leave the synthetic log.
fn stdin_has_lines() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata().ok())
        .is_some_and(|m| m.file_type().is_fifo() || m.is_file())
}

/// The input's name if it is a terminal (stdin on one, `/dev/tty`, `/dev/stdin` on one): the
/// live view cannot read lines from the terminal it takes its keys from. A path is opened only if
/// it is a character device (opening a FIFO would wait for a writer).
fn a_terminal(input: &tui_demo::source::Input) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    use tui_demo::source::Input;
    match input {
        Input::Stdin => io::stdin().is_terminal().then(|| "-".to_string()),
        Input::File(path) | Input::Follow(path) | Input::FollowNew(path) => {
            (std::fs::metadata(path).is_ok_and(|m| m.file_type().is_char_device())
                && std::fs::File::open(path).is_ok_and(|f| f.is_terminal()))
            .then(|| path.display().to_string())
        }
    }
}

/// The live view itself; returns its outcome and the last snapshot.
fn live_view(opts: &Options) -> (io::Result<usize>, Option<Arc<tui_demo::snapshot::Snapshot>>) {
    let handle = match ingest::spawn(
        &opts.source,
        opts.engine_options(),
        opts.source_rate(),
        opts.lines,
        opts.save.clone().map(|path| ingest::SavePlan {
            path,
            every: opts.save_every,
        }),
        // REDIS HOOK: `--redis` hands the ingest thread a Redis writer.
        match tui_demo::redis_sink::RedisSink::from_options(opts) {
            Ok(r) => r,
            Err(e) => return (Err(e), None),
        },
    ) {
        Ok(h) => h,
        Err(e) => return (Err(e), None),
    };
    let mut result = live_run(opts, &handle);
    // Ingest makes its last save when it quits: wait for it, then read its last snapshot.
    let latest = Arc::clone(&handle.latest);
    let _ = handle.finish();
    let last = latest.lock().map(|s| Arc::clone(&s)).unwrap_or_default();
    if let (Ok(_), Err(e)) = (&result, report::outcome(&last)) {
        result = Err(e);
    }
    (result, Some(last))
}

fn live_run(opts: &Options, handle: &ingest::Handle) -> io::Result<usize> {
    let synthetic = matches!(opts.source, SourceSpec::Synthetic { .. });
    let signalled = signals()?;
    let previous = std::panic::take_hook();
    let draw_loop = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == draw_loop || !ACTIVE.load(Ordering::SeqCst) {
            restore();
            previous(info);
            return;
        }
        // Another thread: the draw loop may be writing to the terminal right now, so leave the
        // terminal to it and keep the message for after the restore.
        let thread = std::thread::current();
        let message = format!("thread '{}' {info}", thread.name().unwrap_or("<unnamed>"));
        *PANIC_MESSAGE
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(message);
        PANICKED.store(true, Ordering::SeqCst);
    }));

    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let _restore = Restore;
    execute!(io::stdout(), EnterAlternateScreen, cursor::Hide)?;
    watchdog(Arc::clone(&signalled), handle.stopper())?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;

    let mut app = App::new(synthetic.then_some(opts.live_rate()), Theme::from_env());
    app.window = opts.window;
    handle.send(ingest::Command::Window(opts.window));
    let deadline = tui_demo::clock::deadline(Instant::now(), opts.seconds);
    let result = run(&mut terminal, &mut app, handle, &signalled, deadline);
    handle.send(ingest::Command::Quit);
    let sig = result?;
    // A source that failed (a directory, a read error) ends the program with its error, once the
    // user has seen it on screen and quit.
    if let Some(Some(e)) = &handle.snapshot().finished {
        return Err(io::Error::other(e.clone()));
    }
    Ok(sig)
}

fn run(
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    app: &mut App,
    handle: &ingest::Handle,
    signalled: &AtomicUsize,
    deadline: Option<Instant>,
) -> io::Result<usize> {
    // Test hook for the end-to-end test of the panic path: panic after this many frames.
    let panic_after: Option<u32> = std::env::var("TUI_DEMO_PANIC_AFTER_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut drawn = 0u32;
    let mut next = Instant::now();
    let mut fps_since = Instant::now();
    let mut frames = 0u32;
    loop {
        let sig = signalled.load(Ordering::Relaxed);
        if sig != 0 || deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(sig);
        }
        if PANICKED.load(Ordering::SeqCst) || !handle.alive() || !ACTIVE.load(Ordering::SeqCst) {
            // Ingest or the source panicked (or stopped, which it only does when asked): leave the
            // view; the guard restores the terminal and `main` prints why.
            return Err(io::Error::other(panic_message().unwrap_or_else(|| {
                "the ingest thread stopped unexpectedly".to_string()
            })));
        }
        app.snapshot = handle.snapshot();
        terminal.draw(|frame| {
            app.area = frame.area();
            frame.render_widget(&*app, frame.area());
        })?;
        frames += 1;
        drawn += 1;
        if panic_after.is_some_and(|n| drawn >= n) {
            panic!("TUI_DEMO_PANIC_AFTER_FRAMES: panicking on purpose after {drawn} frames");
        }
        let since = fps_since.elapsed();
        if since >= Duration::from_secs(1) {
            app.fps = f64::from(frames) / since.as_secs_f64();
            frames = 0;
            fps_since = Instant::now();
        }
        next += FRAME;
        let now = Instant::now();
        if next < now {
            next = now + FRAME;
        }
        // crossterm's poll is the tick: wait for input until the next frame is due.
        while event::poll(next.saturating_duration_since(Instant::now()))? {
            if let Event::Key(key) = event::read()? {
                // Ctrl-C reaches a raw-mode terminal as a key: it ends the view as SIGINT would.
                let ctrl_c = key.code == event::KeyCode::Char('c')
                    && key.modifiers.contains(event::KeyModifiers::CONTROL);
                if ctrl_c {
                    return Ok(signal_hook::consts::SIGINT as usize);
                }
                match app.on_key(key) {
                    Some(Action::Ingest(command)) => handle.send(command),
                    Some(Action::SetRate(rate)) => {
                        handle.control.rate.store(rate, Ordering::Relaxed)
                    }
                    // Another program's output over the view (`tail -F`'s notes on stderr): the
                    // next frame draws every cell, not only those that changed.
                    Some(Action::Redraw) => terminal.clear()?,
                    None => {}
                }
                if app.mode == Mode::Quit {
                    return Ok(0);
                }
            }
        }
    }
}
