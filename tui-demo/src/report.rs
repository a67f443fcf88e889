//! Headless mode (`--report`, or whenever stdout is not a terminal): ingest until the input ends,
//! `--seconds` or `--lines`, then print a summary table or JSON. Scripts and tests use this.

use std::io::{self, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::Instant;

use crate::args::Options;
use crate::human::{bytes, count, count_f, percent, short};
use crate::ingest::{Engine, EngineOptions};
use crate::snapshot::Snapshot;
use crate::source::{self, Control, SourceMsg, SourceSpec};

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
/// # Errors
/// When the source cannot be opened or fails while reading.
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
    // Headless, the synthetic log runs as fast as ingest takes it unless a rate was asked for.
    let rate = opts.rate.unwrap_or(if synthetic {
        0
    } else {
        crate::args::DEFAULT_RATE
    });
    let control = Control::new(rate);
    let started = source::spawn(&opts.source, limit, std::sync::Arc::clone(&control))?;
    let (rx, source, spec) = (started.rx, started.thread, started.spec);
    let mut engine = Engine::new(EngineOptions {
        exact_cap: opts.exact_cap,
        clear_at: opts.clear_at,
        key: opts.key,
        top: opts.top,
        value_field: opts.value_field,
    });
    let mut fleet = crate::ingest::fleet::Fleet::new();
    let device_mode = matches!(opts.source, SourceSpec::Device(_));
    // REDIS HOOK (issue 16): `--redis` writes the HyperLogLogs as they grow and at the end.
    let mut redis = crate::redis_sink::RedisSink::from_options(opts)?;
    let start = Instant::now();
    let deadline = crate::clock::deadline(start, opts.seconds);
    let mut error = None;
    // The source hung up without saying it ended: it panicked.
    let mut hung_up = false;
    let mut next_save = crate::clock::deadline(start, Some(opts.save_every.as_secs_f64()));
    // Waits are sliced so that a stop signal is seen within this long.
    const SLICE: std::time::Duration = std::time::Duration::from_millis(50);
    loop {
        if signal.load(Ordering::Relaxed) != 0 {
            break;
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            break;
        }
        if let (Some(path), Some(due)) = (&opts.save, next_save) {
            if now >= due {
                engine.saved().write(path)?;
                next_save = crate::clock::deadline(now, Some(opts.save_every.as_secs_f64()));
            }
        }
        let wait = deadline.map_or(SLICE, |d| d.saturating_duration_since(now).min(SLICE));
        let msg = match rx.recv_timeout(wait) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => {
                hung_up = true;
                break;
            }
        };
        match msg {
            SourceMsg::Lines(batch) => {
                engine.apply(&batch);
                if let Some(r) = redis.as_mut() {
                    r.lines(&batch); // REDIS HOOK (issue 16)
                }
            }
            SourceMsg::Event(_) => {}
            SourceMsg::Datagram { from, mut bytes } => {
                fleet.datagram(from, &mut bytes, Instant::now());
            }
            SourceMsg::End(e) => {
                error = e;
                break;
            }
        }
        if let Some(r) = redis.as_mut() {
            r.refresh(Instant::now(), device_mode.then_some(&fleet)); // REDIS HOOK (issue 16)
        }
    }
    control.stop.store(true, Ordering::Relaxed);
    // REDIS HOOK (issue 16): the final state, written before the report (a bounded wait); how it
    // went goes to stderr, beside the report.
    let redis_status = redis.as_mut().map(|r| {
        r.flush(
            device_mode.then_some(&fleet),
            std::time::Duration::from_secs(5),
        );
        r.status()
    });
    if let Some(status) = &redis_status {
        eprintln!("tui-demo: {}", status.line());
    }
    if let (Some(path), false) = (&opts.save, device_mode) {
        engine.saved().write(path)?;
    }
    if let Some(e) = error {
        return Err(io::Error::other(e));
    }
    // A source that dropped its channel has returned or is unwinding, so joining it cannot block;
    // a panic must not pass for the end of the input.
    if hung_up {
        if let Err(message) = crate::ingest::joined(source) {
            return Err(io::Error::other(format!(
                "the source thread panicked: {message}"
            )));
        }
    }
    let elapsed = start.elapsed();
    let mut snap = Snapshot {
        source: crate::ingest::label(
            &spec,
            &EngineOptions {
                key: opts.key,
                ..EngineOptions::default()
            },
        ),
        finished: Some(None),
        elapsed,
        redis: redis_status,
        ..Snapshot::default()
    };
    if !device_mode {
        engine.fill(&mut snap);
    }
    if device_mode {
        fleet.stats(Instant::now()).fill(&mut snap);
    }
    let secs = elapsed.as_secs_f64().max(1e-9);
    snap.throughput.lines_per_sec = snap.totals.lines as f64 / secs;
    snap.throughput.bytes_per_sec = snap.totals.bytes as f64 / secs;
    Ok(snap)
}

/// Writes the summary as an aligned table.
///
/// # Errors
/// Write errors (a closed pipe among them).
pub fn write_table(s: &Snapshot, w: &mut impl Write) -> io::Result<()> {
    let t = &s.totals;
    writeln!(w, "sketch-nostd report · {}", s.source)?;
    if let Some(f) = &s.devices {
        return write_fleet(s, f, w);
    }
    if s.dedupe.bits == 0 {
        writeln!(
            w,
            "lines  {} (counted by the saved sketches)",
            count(t.lines)
        )?;
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
            &format!("distinct lines (HLL p={})", h.precision),
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
    if s.dedupe.bits > 0 {
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
        heavy_rows(h, w)?;
    }
    if let Some(q) = &s.quantiles {
        write_quantiles(q, w)?;
    }
    w.flush()
}

/// `--value-field N`: the quantiles, each beside the exact value while the exact table is on.
fn write_quantiles(q: &crate::snapshot::QuantileStats, w: &mut impl Write) -> io::Result<()> {
    writeln!(w)?;
    writeln!(
        w,
        "field {} quantiles: QuantileSketch ({}), every quantile within ±{} of the true value; {} values{}{}",
        q.field,
        bytes(q.bytes),
        percent(q.alpha),
        count(q.count),
        if q.missing > 0 {
            format!(", {} lines without a number there", count(q.missing))
        } else {
            String::new()
        },
        q.collapsed_below
            .map_or(String::new(), |c| format!("; collapsed below {c}: lower quantiles may be lower"))
    )?;
    writeln!(
        w,
        "{:>8} {:>16} {:>16} {:>9}",
        "", "estimate", "exact", "error"
    )?;
    // The extremes are exact; the quantiles have their exact value while the exact table is on.
    let mut rows: Vec<(String, f64, Option<f64>)> = Vec::new();
    if let Some(m) = q.min {
        rows.push(("min".to_owned(), m, Some(m)));
    }
    rows.extend(
        q.rows
            .iter()
            .map(|r| (quantile_name(r.q), r.estimate, r.exact)),
    );
    if let Some(m) = q.max {
        rows.push(("max".to_owned(), m, Some(m)));
    }
    for (label, e, exact) in rows {
        let value = crate::ui::quantiles::value;
        let (exact_text, error) = match exact {
            Some(x) if x != 0.0 => (value(x), percent((e - x).abs() / x.abs())),
            Some(x) => (value(x), "-".to_owned()),
            None => ("-".to_owned(), "-".to_owned()),
        };
        writeln!(w, "{label:>8} {:>16} {exact_text:>16} {error:>9}", value(e))?;
    }
    Ok(())
}

/// `p50`, `p90`, `p99`, `p999` for 0.5 … 0.999.
#[must_use]
pub fn quantile_name(q: f64) -> String {
    let digits = format!("{q}");
    let tail = digits.strip_prefix("0.").unwrap_or(&digits);
    if tail.len() == 1 {
        format!("p{tail}0")
    } else {
        format!("p{tail}")
    }
}

fn write_fleet(
    s: &Snapshot,
    f: &crate::snapshot::FleetStats,
    w: &mut impl Write,
) -> io::Result<()> {
    writeln!(
        w,
        "frames  {} ok · {} refused ({} from unknown senders) · {} lost · {} in {:.2} s",
        count(f.ok),
        count(f.bad),
        count(f.unattributed_bad),
        count(f.lost),
        bytes(f.bytes),
        s.elapsed.as_secs_f64()
    )?;
    for (why, n) in &f.errors {
        writeln!(w, "refused  {why}: {}", count(*n))?;
    }
    writeln!(
        w,
        "lines held by the devices' dedupe filters: merged ≈ {} vs sum {} (Bloom {} each)",
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
            "heavy hitters over all devices: their Space-Saving summaries ({} counters, {} each) merged; \
             estimates from the merged count-min; ε·N = {} (N {}){}",
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
        heavy_rows(h, w)?;
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
        s.elapsed.as_secs_f64(),
        short(s.throughput.lines_per_sec),
        bytes(s.throughput.bytes_per_sec as u64)
    )?;
    writeln!(
        w,
        "input  {} not UTF-8 · {} CRLF · {} longer than the read buffer (hashed whole){}",
        count(t.non_utf8),
        count(t.crlf),
        count(t.long),
        if t.missing_field > 0 {
            format!(" · {} without the key's fields", count(t.missing_field))
        } else {
            String::new()
        }
    )
}

/// Writes one row of the table: what, its value, its cost or a note.
type RowFn<'a> = dyn Fn(&mut dyn Write, &str, String, String) -> io::Result<()> + 'a;

/// The rows of the exact table, the dedupe filter and the micro filter.
fn table_lines(s: &Snapshot, w: &mut impl Write, row: &RowFn<'_>) -> io::Result<()> {
    let e = &s.exact;
    if e.cap == 0 {
        row(
            w,
            "exact distinct lines",
            "off".into(),
            "--exact-cap 0".into(),
        )?;
    } else {
        row(
            w,
            "exact distinct lines",
            format!("{}{}", if e.capped { "≥" } else { "" }, count(e.distinct)),
            format!(
                "{} table, {} of distinct lines{}",
                bytes(e.table_bytes),
                bytes(e.key_bytes),
                if e.capped { " (capped)" } else { "" }
            ),
        )?;
    }
    if let (Some(h), false, true) = (&s.distinct, e.capped, e.cap > 0) {
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
fn heavy_rows(h: &crate::snapshot::HeavyStats, w: &mut impl Write) -> io::Result<()> {
    writeln!(
        w,
        "{:>12} {:>12} {:>12} {:>5}   line",
        "true ≥", "true ≤", "exact", ""
    )?;
    for r in &h.rows {
        let (lo, hi) = r
            .bounds
            .map_or((0, r.estimate), |(lo, hi)| (lo, hi.min(r.estimate)));
        writeln!(
            w,
            "{:>12} {:>12} {:>12} {:>5}   {}",
            count(lo),
            count(hi),
            r.exact.map_or_else(|| "?".into(), count),
            if r.noise { "noise" } else { "" },
            r.line
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
