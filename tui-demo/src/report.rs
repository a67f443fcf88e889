//! Headless mode (`--report`, or whenever stdout is not a terminal): the live view's ingest loop
//! ([`crate::ingest`]) runs until the input ends, `--seconds` or `--lines`, then a summary table or
//! JSON is printed. Scripts and tests use this.

use std::io::{self, Write};
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::args::Options;
use crate::human::{bytes, count, count_f, percent, short};
use crate::snapshot::Snapshot;
use crate::source::SourceSpec;

/// Lines the synthetic log produces headless when neither `--lines` nor `--seconds` is given.
pub const DEFAULT_SYNTHETIC_LINES: u64 = 1_000_000;

/// Ingests as the options say and returns the final snapshot.
///
/// # Errors
/// When the source cannot be opened or fails while reading.
pub fn run(opts: &Options) -> io::Result<Snapshot> {
    run_until(opts, &std::sync::atomic::AtomicUsize::new(0))
}

/// [`run`], also ending (with what was counted so far) once `signal` is no longer 0: a stop
/// signal's number, set by its handler.
///
/// A save that failed does not stop the report: it is in the snapshot, for [`outcome`] once the
/// report is printed.
///
/// # Errors
/// When the save file cannot be written at the start, or the source cannot be opened or fails
/// while reading.
pub fn run_until(opts: &Options, signal: &std::sync::atomic::AtomicUsize) -> io::Result<Snapshot> {
    if let Some(files) = &opts.merge {
        return crate::saved::merge_files(files, opts.top);
    }
    let synthetic = matches!(opts.source, SourceSpec::Synthetic { .. });
    let limit = match (opts.lines, opts.seconds) {
        (Some(n), _) => Some(n),
        (None, None) if synthetic => Some(DEFAULT_SYNTHETIC_LINES),
        _ => None,
    };
    // The live view's ingest loop, run headless: every source as fast as ingest takes it unless a
    // rate was asked for. It saves (`--save`) and writes to Redis (`--redis`) as in the live view.
    let redis = crate::redis_sink::RedisSink::from_options(opts)?;
    // From before ingest starts: a small input can be counted before `spawn` returns (`--lines 100`
    // reported 5.7e-7 s and 232M lines/s when the clock started after it).
    let start = Instant::now();
    let handle = crate::ingest::spawn(
        &opts.source,
        opts.engine_options(),
        opts.rate.unwrap_or(0),
        limit,
        opts.save.clone().map(|path| crate::ingest::SavePlan {
            path,
            every: opts.save_every,
        }),
        redis,
    )?;
    handle.send(crate::ingest::Command::Window(opts.window));
    // As `tail -F` says it: a followed name that does not exist yet is waited for (its reader
    // found it missing when it opened it).
    for (name, status) in &handle.follows {
        if status.counts().0 {
            say(format_args!(
                "{name}: does not exist yet; waiting for it to appear (--follow)"
            ));
        }
    }
    if let SourceSpec::Device(addr) = &handle.spec {
        // Said at once: with port 0 the devices cannot be pointed at it otherwise (found by a
        // user test: the port first showed in the report, at the end).
        say(format_args!("listening for devices on udp {addr}"));
    }
    let deadline = crate::clock::deadline(start, opts.seconds);
    // Until the input ends (at once: its snapshot wakes this wait), a stop signal or the deadline
    // (seen within this long).
    const SLICE: std::time::Duration = std::time::Duration::from_millis(5);
    loop {
        if signal.load(Ordering::Relaxed) != 0
            || deadline.is_some_and(|d| Instant::now() >= d)
            || !handle.alive()
            || handle.wait_finished(SLICE)
        {
            break;
        }
    }
    let elapsed = start.elapsed();
    let latest = std::sync::Arc::clone(&handle.latest);
    handle
        .finish()
        .map_err(|m| io::Error::other(format!("the ingest thread panicked: {m}")))?;
    let mut snap = latest
        .lock()
        .map(|s| Snapshot::clone(&s))
        .unwrap_or_default();
    // REDIS HOOK: how the writes went goes to stderr, beside the report.
    if let Some(status) = &snap.redis {
        say(status.line());
    }
    // A source that failed on the way (a damaged gzip, a read error) ends the run with what was
    // counted until then: it is reported, and the failure ([`outcome`]) makes the exit status.
    snap.finished.get_or_insert(None);
    snap.elapsed = elapsed;
    snap.average_rates();
    Ok(snap)
}

/// Writes `tui-demo: MESSAGE` and a newline to stderr, ignoring a closed or full stderr (where
/// `eprintln!` panics: `report --input missing.log 2>&1 | true` ended with a panic's 101).
///
/// ```
/// tui_demo::report::say("a note for stderr");
/// ```
pub fn say(message: impl std::fmt::Display) {
    let _ = writeln!(io::stderr().lock(), "tui-demo: {message}");
}

/// Whether the run did all it was asked, for the exit status once its report is printed (the
/// figures stand either way, of what was read): the input was read to its end or to the limit,
/// `--save`'s last save was written, and `--redis` wrote what it was handed at the end.
///
/// # Errors
/// The failures, naming the input, the file or the server.
pub fn outcome(snap: &Snapshot) -> io::Result<()> {
    let mut failed = Vec::new();
    if let Some(Some(e)) = &snap.finished {
        failed.push(e.clone());
    }
    if let Some(e) = &snap.save_error {
        failed.push(format!("--save: {e}"));
    }
    if let Some(r) = snap.redis.as_ref().filter(|r| r.unwritten_at_exit) {
        failed.push(format!(
            "--redis {}: the last HyperLogLogs were not written ({} failed attempts{})",
            r.server,
            r.failures,
            r.last_error
                .as_ref()
                .map_or_else(String::new, |e| format!("; last: {e}"))
        ));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(io::Error::other(failed.join("; ")))
    }
}

/// What the sketches count: "keys" when they are made from inside lines, else "lines".
fn keys_or_lines(s: &Snapshot) -> &'static str {
    if s.keyed {
        "keys"
    } else {
        "lines"
    }
}

/// Writes the summary as an aligned table.
///
/// # Errors
/// Write errors (a closed pipe among them).
pub fn write_table(s: &Snapshot, w: &mut impl Write) -> io::Result<()> {
    let t = &s.totals;
    writeln!(w, "sketch-nostd report · {}", s.source)?;
    if s.paused {
        // The live view was left paused: its screen showed figures from when it paused, and
        // counting went on (found by a user test: the summary differed from the last screen).
        writeln!(
            w,
            "(the view was paused; these figures include what was counted since)"
        )?;
    }
    if let Some(f) = &s.devices {
        return write_fleet(s, f, w);
    }
    if s.sketches_only {
        // The lines the saving runs read, and, when some had no key, the keys the sketches count.
        let keys = s.heavy.as_ref().map_or(t.lines, |h| h.total);
        if keys == t.lines {
            writeln!(
                w,
                "lines  {} (counted by the saved sketches)",
                count(t.lines)
            )?;
        } else {
            writeln!(
                w,
                "lines  {} (read by the runs that saved them; the sketches count {} keys)",
                count(t.lines),
                count(keys)
            )?;
        }
    } else {
        write_input(s, w)?;
    }
    writeln!(w)?;
    let row = |w: &mut dyn Write, what: &str, value: String, cost: String| {
        writeln!(w, "{what:<26} {value:>14}   {cost}")
    };
    writeln!(w, "{:<26} {:>14}   cost / note", "", "value")?;
    if let Some(h) = &s.distinct {
        row(
            w,
            &format!("distinct {} (HLL p={})", keys_or_lines(s), h.precision),
            count_f(h.estimate),
            format!(
                "±{} 1σ ({}), 2σ band {} … {}; {}",
                percent(h.rse),
                h.estimator,
                count_f(h.lower),
                count_f(h.upper),
                bytes(h.bytes)
            ),
        )?;
    }
    // Saved sketches (`merge`) carry no exact table and no filters: only their own rows.
    if !s.sketches_only {
        table_lines(s, w, &row)?;
    }
    if let Some(h) = &s.heavy {
        writeln!(w)?;
        writeln!(
            w,
            "heavy hitters: Space-Saving, {} counters ({}); every true count lies in [true ≥, true ≤]; \
             ε·N = {} (ε {}, N {}); noise: guaranteed count ≤ ε·N",
            h.k,
            bytes(h.topk_bytes),
            count(h.bound),
            percent(h.epsilon),
            count(h.total)
        )?;
        heavy_rows(s, h, w)?;
    }
    if let Some(q) = &s.quantiles {
        let windowed = s.window.as_ref().is_some_and(|w| w.intervals > 0);
        write_quantiles(q, windowed, s.sketches_only, w)?;
    }
    w.flush()
}

/// `--value-field N`: the quantiles, each beside the exact value while the values are kept, and the
/// exact extremes: the same figures as the quantiles panel.
fn write_quantiles(
    q: &crate::snapshot::QuantileStats,
    windowed: bool,
    sketches_only: bool,
    w: &mut impl Write,
) -> io::Result<()> {
    use crate::human::{quantile_name, value};
    writeln!(w)?;
    let what = q.label();
    writeln!(
        w,
        "{what} quantiles: QuantileSketch ({}), each within ±{} of the true value; {} values{}",
        bytes(q.bytes),
        percent(q.alpha),
        count(q.count),
        if q.missing > 0 {
            format!(", {} lines without a number", count(q.missing))
        } else {
            String::new()
        },
    )?;
    if let Some(c) = q.collapsed_below {
        writeln!(
            w,
            "collapsed: values spanned more than the sketch holds; a quantile reported at {} may be lower",
            value(c)
        )?;
    }
    let exact_note = if windowed {
        "exact values since the start only".to_string()
    } else if q.from_devices() {
        "no exact values in device mode".to_string()
    } else if sketches_only {
        "no exact values: saved sketches only".to_string()
    } else if !q.exact_on && q.exact_cap == 0 {
        "exact off (--exact-cap 0)".to_string()
    } else if !q.exact_on {
        format!("exact off (more than {} values)", count(q.exact_cap))
    } else {
        format!("exact values kept: {}", bytes(q.exact_bytes))
    };
    let header = format!(
        "{:>8} {:>14} {:>14} {:>9}   {exact_note}",
        "", "estimate", "exact", "error"
    );
    writeln!(w, "{}", header.trim_end())?;
    // The extremes are exact; the quantiles have their exact value while the values are kept.
    let mut rows: Vec<(String, f64, Option<f64>, bool)> = Vec::new();
    if let Some(m) = q.min {
        rows.push(("min".to_owned(), m, Some(m), false));
    }
    rows.extend(
        q.rows
            .iter()
            .map(|r| (quantile_name(r.q), r.estimate, r.exact, r.collapsed)),
    );
    if let Some(m) = q.max {
        rows.push(("max".to_owned(), m, Some(m), false));
    }
    for (label, e, exact, collapsed) in rows {
        let (exact_text, error) = match exact {
            Some(x) => (
                value(x),
                crate::human::relative_error(e, x).map_or_else(|| "-".to_owned(), percent),
            ),
            None => ("-".to_owned(), "-".to_owned()),
        };
        // Reported at the collapsed bucket: it may be a lower value (as the panel says).
        let mark = if collapsed {
            "   or lower (collapsed)"
        } else {
            ""
        };
        writeln!(
            w,
            "{label:>8} {:>14} {exact_text:>14} {error:>9}{mark}",
            value(e)
        )?;
    }
    Ok(())
}

fn write_fleet(
    s: &Snapshot,
    f: &crate::snapshot::FleetStats,
    w: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        w,
        "frames  {} ok · {} refused ({} from unknown senders) · {} lost{} · {} {}",
        count(f.ok),
        count(f.bad),
        count(f.unattributed_bad),
        count(f.lost),
        // Datagrams the network delivered twice: not frames of their own.
        if f.repeated > 0 {
            format!(" · {} repeated", count(f.repeated))
        } else {
            String::new()
        },
        bytes(f.bytes),
        // Saved fleets (`merge`) keep no time: their hosts ran side by side.
        if s.sketches_only {
            "received by the hosts that saved them".to_string()
        } else {
            format!("in {:.2} s", s.elapsed.as_secs_f64())
        }
    )?;
    for (why, n) in &f.errors {
        writeln!(w, "refused  {why}: {}", count(*n))?;
    }
    if let Some(warning) = f.shared_ids() {
        writeln!(w, "warning  {warning}")?;
    }
    writeln!(
        w,
        "lines held by the devices' dedupe filters (each clears itself when full): merged ≈ {} vs sum {} (Bloom {} each)",
        count_f(f.held_merged),
        count_f(f.held_sum),
        bytes(f.seen_bytes)
    )?;
    writeln!(
        w,
        "lines counted by the devices: {} (their count-min sketches merged by adding, {} each; ε·N = {})",
        count(f.lines_merged),
        bytes(f.freq_bytes),
        count(f.bound_merged)
    )?;
    if let Some(d) = &s.distinct {
        writeln!(
            w,
            "distinct lines over all devices: {} (HLL p={} merged by register max, ±{} 1σ); the sum of the devices' own counts is {}",
            count_f(d.estimate),
            d.precision,
            percent(d.rse),
            count_f(d.sum_of_parts.unwrap_or(0.0))
        )?;
    }
    writeln!(w)?;
    writeln!(
        w,
        "{:>8} {:<22} {:>8} {:>6} {:>6} {:>10} {:>12} {:>10} {:>10}",
        "device", "from", "ok", "bad", "lost", "bytes", "lines", "distinct", "held"
    )?;
    for r in &f.rows {
        writeln!(
            w,
            "{:>8} {:<22} {:>8} {:>6} {:>6} {:>10} {:>12} {:>10} {:>10}",
            r.id,
            r.addr,
            count(r.ok),
            count(r.bad),
            count(r.lost),
            bytes(r.bytes),
            r.lines.map_or("-".into(), count),
            r.distinct.map_or("-".into(), count_f),
            r.held.map_or("-".into(), count_f)
        )?;
    }
    if let Some(h) = &f.heavy {
        writeln!(w)?;
        writeln!(
            w,
            "heavy hitters over all devices: their Space-Saving summaries ({} counters, {} each) merged, \
             each row's true count in its range; ε·N = {} (N {}){}",
            h.k,
            bytes(h.topk_bytes),
            count(h.bound),
            count(h.total),
            if h.overlong > 0 {
                format!("; {} lines too long to list", count(h.overlong))
            } else {
                String::new()
            }
        )?;
        heavy_rows(s, h, w)?;
    }
    if let Some(q) = &f.quantiles {
        write_quantiles(q, false, false, w)?;
    }
    w.flush()
}

/// The lines about the input: how much, how fast, what was odd in it.
fn write_input(s: &Snapshot, w: &mut impl Write) -> io::Result<()> {
    let t = &s.totals;
    writeln!(
        w,
        "lines  {} ({} in {:.2} s: {} lines/s, {}/s)",
        count(t.lines),
        bytes(t.bytes),
        s.counted_over().as_secs_f64(),
        short(s.throughput.lines_per_sec),
        bytes(s.throughput.bytes_per_sec as u64)
    )?;
    if let Some(win) = &s.window {
        writeln!(w, "window {}", window_line(win))?;
    }
    for f in &s.follow {
        let what = f.what();
        writeln!(
            w,
            "follow {}: {}",
            crate::human::printable(f.file.as_bytes(), 200),
            if what.is_empty() {
                "no rotation or truncation"
            } else {
                &what
            }
        )?;
    }
    writeln!(
        w,
        "input  {} not UTF-8 · {} CRLF · {} longer than the read buffer ({}){}",
        count(t.non_utf8),
        count(t.crlf),
        count(t.long),
        if s.keyed {
            // Keys from inside lines: a long line is kept whole up to a bound, and one longer has
            // no key (among those without it); it said "hashed whole" of those too.
            format!(
                "keyed whole up to {}",
                bytes(crate::source::LONG_KEPT_MAX as u64)
            )
        } else {
            "hashed whole".to_string()
        },
        if t.missing_field > 0 {
            // Lines lacking a field, that the regex does not match or without the JSON field:
            // not counted by the sketches.
            format!(
                " · {} without the key (not counted)",
                count(t.missing_field)
            )
        } else {
            String::new()
        }
    )
}

/// The window the figures answer for, what it covers, and the ring's memory: the same words as the
/// live view's.
///
/// ```
/// use tui_demo::snapshot::WindowStats;
/// let one = WindowStats { label: "last 1 min", intervals: 1, ..WindowStats::default() };
/// assert!(tui_demo::report::window_line(&one).contains("(1 interval merged)"));
/// let five = WindowStats { intervals: 5, ..one };
/// assert!(tui_demo::report::window_line(&five).contains("(5 intervals merged)"));
/// ```
#[must_use]
pub fn window_line(win: &crate::snapshot::WindowStats) -> String {
    let ring = format!(
        "ring of {} s intervals: {} held, {} (at most {})",
        win.interval.as_secs(),
        win.held,
        bytes(win.bytes),
        bytes(win.max_bytes)
    );
    if win.intervals == 0 {
        format!("{} · {ring}", win.label)
    } else {
        format!(
            "{}: covers {} ({} merged) · {ring}",
            win.label,
            crate::human::duration(win.covered),
            crate::human::count_of(win.intervals as u64, "interval")
        )
    }
}

/// Writes one row of the table: what, its value, its cost or a note.
type RowFn<'a> = dyn Fn(&mut dyn Write, &str, String, String) -> io::Result<()> + 'a;

/// The rows of the exact table, the dedupe filter and the micro filter.
fn table_lines(s: &Snapshot, w: &mut impl Write, row: &RowFn<'_>) -> io::Result<()> {
    let e = &s.exact;
    // Exact counts are kept since the start only: a window is not compared with them.
    let windowed = s.window.as_ref().is_some_and(|w| w.intervals > 0);
    if e.cap == 0 {
        row(
            w,
            &format!("exact distinct {}", keys_or_lines(s)),
            "off".into(),
            "--exact-cap 0".into(),
        )?;
    } else {
        row(
            w,
            &format!("exact distinct {}", keys_or_lines(s)),
            format!("{}{}", if e.capped { "≥" } else { "" }, count(e.distinct)),
            format!(
                "{} table, {} of distinct {}{}{}",
                bytes(e.table_bytes),
                bytes(e.key_bytes),
                keys_or_lines(s),
                if e.capped { " (capped)" } else { "" },
                if windowed {
                    "; since start, not in the window"
                } else {
                    ""
                }
            ),
        )?;
    }
    if let (Some(h), false, true, false) = (&s.distinct, e.capped, e.cap > 0, windowed) {
        if e.distinct > 0 {
            let x = e.distinct as f64;
            row(
                w,
                "distinct error",
                format!("{:+.3}%", 100.0 * (h.estimate - x) / x),
                if (h.lower..=h.upper).contains(&x) {
                    "the exact count is within the sketch's 2σ band".into()
                } else {
                    "the exact count is OUTSIDE the sketch's 2σ band".into()
                },
            )?;
        }
    }
    let d = &s.dedupe;
    let total = (d.passed + d.suppressed).max(1);
    row(
        w,
        "dedupe passed",
        count(d.passed),
        format!(
            "Bloom {}, {} bits, k={}",
            bytes(d.bytes),
            count(d.bits),
            d.hashes
        ),
    )?;
    row(
        w,
        "dedupe suppressed",
        count(d.suppressed),
        percent(d.suppressed as f64 / total as f64),
    )?;
    row(
        w,
        "dedupe clears",
        count(d.clears),
        format!("when the FP estimate passes {}", percent(d.clear_at)),
    )?;
    row(
        w,
        "dedupe FP estimate",
        percent(d.fp_estimate),
        "now".into(),
    )?;
    if d.never_seen > 0 {
        row(
            w,
            "dedupe FP measured",
            percent(d.false_suppressed as f64 / d.never_seen as f64),
            format!(
                "{} of {} never-seen lines suppressed",
                count(d.false_suppressed),
                count(d.never_seen)
            ),
        )?;
    }
    let m = &s.micro;
    let looked = m.lookups.max(1) as f64;
    row(
        w,
        "micro filter skipped",
        percent(m.skipped as f64 / looked),
        format!(
            "{} filter + {} set of the last {} lines",
            bytes(8),
            bytes(m.set_bytes),
            m.set_len
        ),
    )?;
    row(
        w,
        "micro filter FP",
        percent(m.false_positives as f64 / (m.lookups.saturating_sub(m.hits)).max(1) as f64),
        format!("measured; estimate {}", percent(m.fp_estimate)),
    )?;
    Ok(())
}

/// The heavy-hitter rows: the bracket of each true count, the exact count when known, the noise
/// mark. The same figures as the panel's.
fn heavy_rows(s: &Snapshot, h: &crate::snapshot::HeavyStats, w: &mut impl Write) -> io::Result<()> {
    if h.rows.is_empty() {
        // Why, as the panel says (an empty report printed a bare header).
        return writeln!(w, "({})", s.no_heavy_rows());
    }
    writeln!(
        w,
        "{:>12} {:>12} {:>12} {:>5}   line",
        "true ≥", "true ≤", "exact", ""
    )?;
    for r in &h.rows {
        // The summary's bracket, as the JSON's `bounds` (the panel's too).
        let (lo, hi) = r.bounds.unwrap_or((0, r.estimate));
        writeln!(
            w,
            "{:>12} {:>12} {:>12} {:>5}   {}",
            count(lo),
            count(hi),
            r.exact.map_or_else(|| "?".into(), count),
            if r.noise { "noise" } else { "" },
            r.printable()
        )?;
    }
    Ok(())
}

/// Writes the summary as one line of JSON.
///
/// # Errors
/// Write errors.
pub fn write_json(s: &Snapshot, w: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer(&mut *w, s)?;
    writeln!(w)?;
    w.flush()
}
