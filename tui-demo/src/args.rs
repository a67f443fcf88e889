//! The command line, parsed by `clap` (derive): subcommands `live` (the default), `report`,
//! `listen`, `emit`, `generate` and `merge`, each taking only the flags it uses, so no flag is
//! silently ignored. Paths are `OsString`s end to end: non-UTF-8 file names work.
//!
//! [`parse`] turns the parsed command line into [`Options`], what the rest of the program reads.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use crate::ingest::engine::{EngineOptions, KeyFields, DEFAULT_TOP};
use crate::ingest::key::{KeyRule, TimestampStrip};
use crate::redis_sink::{RedisOptions, RedisTarget};
use crate::source::{Input, SourceSpec};
use crate::window::Window;

/// The synthetic log's default rate, lines per second.
pub const DEFAULT_RATE: u64 = 50_000;
/// An emitted device's default rate, lines per second.
pub const DEFAULT_DEVICE_RATE: u64 = 1_000;
/// Where `emit` sends by default, and a good `listen` address.
pub const DEFAULT_DEVICE_ADDR: &str = "127.0.0.1:7777";

/// The command line.
#[derive(Debug, Parser)]
#[command(
    name = "tui-demo",
    version,
    about = "A live terminal feed of sketch-nostd sketches over a log, stdin or a fleet of devices",
    args_conflicts_with_subcommands = true,
    after_help = "KEYS (live view):\n    q, Esc  quit           Ctrl-C  quit (exit 130)   p  pause / resume\n    r r     reset counts   Tab, arrows  move between panels   Enter  zoom\n    w       window: since start, last 1 / 5 / 15 min\n    ?       help           +, -    synthetic rate   Ctrl-L  redraw\n\nWithout a subcommand: `live`, or `report` when stdout is not a terminal.\nWithout --input or --seed: stdin when it is a pipe or a file, else the synthetic log.\nRespects NO_COLOR."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Cmd>,
    /// Without a subcommand: the options of `live` / `report`.
    #[command(flatten)]
    pub run: RunArgs,
    /// Print a summary instead of the live view (as `report`).
    #[arg(long)]
    pub report: bool,
    /// Print the summary as JSON (as `report --json`).
    #[arg(long)]
    pub json: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// The live view over a log, stdin, or the synthetic access log (the default).
    Live(RunArgs),
    /// Ingest until the input ends, --seconds or --lines, then print a summary.
    Report {
        /// The source and key options.
        #[command(flatten)]
        run: RunArgs,
        /// The summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Receive sketch frames from devices over UDP and show their merged view.
    ///
    /// Quantiles: the devices choose the field (`emit N --value-field F`) and send their quantile
    /// sketches, which the host merges; `listen` takes no `--value-field`.
    Listen {
        /// The address to listen on (port 0: any free port, shown in the header).
        #[arg(default_value = DEFAULT_DEVICE_ADDR)]
        addr: SocketAddr,
        /// Stop after this many seconds (more than 0).
        #[arg(long, value_parser = positive_seconds, allow_negative_numbers = true)]
        seconds: Option<f64>,
        /// Print a summary instead of the live view.
        #[arg(long)]
        report: bool,
        /// The summary as JSON.
        #[arg(long)]
        json: bool,
        /// Write the devices' merged sketches to FILE in the wire format at exit and every
        /// --save-every seconds (`merge` reads such files, from this host and others).
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Seconds between two saves while running.
        #[arg(long, default_value_t = 60.0, value_parser = positive_seconds, requires = "save", allow_negative_numbers = true)]
        save_every: f64,
        /// Where to write the HyperLogLogs for Redis.
        #[command(flatten)]
        redis: RedisArgs,
        /// Refused with the reason (the devices choose the field), not ignored.
        #[arg(long, hide = true, value_name = "N", value_parser = devices_choose)]
        value_field: Option<u16>,
    },
    /// Run N simulated devices that count their own synthetic logs with the no_std sketches and
    /// send them as frames to a loopback address.
    Emit {
        /// Number of devices (1 to 1000).
        #[arg(value_parser = clap::value_parser!(u32).range(1..=1000), allow_negative_numbers = true)]
        devices: u32,
        /// Where to send (loopback only).
        #[arg(long, default_value = DEFAULT_DEVICE_ADDR, value_parser = loopback)]
        to: SocketAddr,
        /// Lines per second per device (5000, 50k, …; at least 1: a device has no "unlimited").
        #[arg(long, default_value_t = DEFAULT_DEVICE_RATE, value_parser = device_rate, allow_negative_numbers = true)]
        rate: u64,
        /// How often each device sends, in milliseconds.
        #[arg(long, default_value_t = 500, value_parser = period_ms, allow_negative_numbers = true)]
        period: u64,
        /// Flip a bit in this fraction of the frames sent, to see them refused.
        #[arg(long, default_value_t = 0.0, value_parser = fraction, allow_negative_numbers = true)]
        corrupt: f64,
        /// Stop after this many seconds (more than 0; else at Ctrl-C).
        #[arg(long, value_parser = positive_seconds, allow_negative_numbers = true)]
        seconds: Option<f64>,
        /// Seed of the devices' logs.
        #[arg(long, default_value_t = 1, value_parser = number::<u64>, allow_negative_numbers = true)]
        seed: u64,
        /// The first device's id (the others follow): several emitters feed one host with ids
        /// of their own (two `emit 2` both numbered theirs 1 and 2, and the host mixed them).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
        first_id: u64,
        /// Each device also keeps a quantile sketch of its log's field N (from 1) as a number
        /// (8: response size, 9: latency in µs) and sends it; `listen` merges them.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), allow_negative_numbers = true)]
        value_field: Option<u16>,
    },
    /// Merge files written by --save (by other runs or hosts, devices' hosts too: listen --save)
    /// and report them.
    ///
    /// Files of one kind merge: runs' over lines, or devices' fleets (`listen --save`, reported
    /// as `listen --report` reports them); a run's file with a devices' file is refused.
    Merge {
        /// The saved files.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Accepted for symmetry with `report`: merge always prints a report.
        #[arg(long)]
        report: bool,
        /// The summary as JSON.
        #[arg(long)]
        json: bool,
        /// Heavy-hitter rows reported (1 to 200; a run's files hold the text of at least the rows
        /// the run showed, `--top` there, and of the lines that came near them; rows past those
        /// say "(text not kept)", `null` in JSON; devices' files hold their summary's 256 lines).
        #[arg(long, default_value_t = DEFAULT_TOP, value_parser = top, allow_negative_numbers = true)]
        top: usize,
    },
    /// Write SIZE bytes of synthetic access log to stdout (e.g. 1G), to the end of the line that
    /// reaches SIZE.
    Generate {
        /// Bytes to write: 4096, 64k, 500M, 1G.
        #[arg(value_parser = parse_size, allow_negative_numbers = true)]
        size: u64,
        /// The log's seed.
        #[arg(long, default_value_t = 1, value_parser = number::<u64>, allow_negative_numbers = true)]
        seed: u64,
    },
}

/// The options of `live` and `report`: the source, what is counted, when to stop.
#[derive(Clone, Debug, Args)]
pub struct RunArgs {
    /// Read lines from FILE (repeat for several files, read one after the other), or from stdin
    /// with '-'. Lines are bytes: any encoding, CRLF, any length. Without --input (or --seed):
    /// stdin when it is a pipe or a file (`tail -f app.log | tui-demo`), else the synthetic log.
    #[arg(long, short = 'i', value_name = "FILE")]
    pub input: Vec<PathBuf>,
    /// Count whitespace-separated fields N, M… (from 1, up to four) instead of the whole line,
    /// e.g. 1 or 1,7; a last N- runs to the end of the line (3-: all but the first two fields).
    #[arg(long, short = 'f', value_name = "N[,M..]", value_parser = fields, allow_negative_numbers = true)]
    pub field: Option<KeyFields>,
    /// Count a regular expression's capture instead: the group named `key`, else group 1, else
    /// the whole match (lines it does not match are not counted), e.g. 'user=(\w+)'.
    #[arg(long, value_name = "REGEX", value_parser = KeyRule::regex, conflicts_with_all = ["field", "json_key"])]
    pub key_regex: Option<KeyRule>,
    /// Count a field of JSON-lines input: a dotted path (user.id, items.0.sku) or a JSON pointer
    /// (/user/id); lines without it are not counted.
    #[arg(long, value_name = "PATH", value_parser = KeyRule::json, conflicts_with = "field")]
    pub json_key: Option<KeyRule>,
    /// Remove a leading timestamp before taking the key (ISO 8601 and 2024/05/01 12:00:00, a date
    /// alone, syslog with or without a priority (<34>), RFC 5424's nil timestamp, ctime, common log
    /// format, time of day, Unix seconds to nanoseconds; optionally in brackets).
    #[arg(long)]
    pub strip_timestamp: bool,
    /// Quantiles (p50 … p999, each within ±1%) of whitespace-separated field N (from 1, after
    /// --strip-timestamp) read as a number, e.g. 8 for the synthetic log's response size, 9 for
    /// its latency in µs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..), allow_negative_numbers = true)]
    pub value_field: Option<u16>,
    /// Or quantiles of a JSON-lines log's value at PATH (a dotted path, latency_ms or req.ms, or a
    /// JSON pointer): a number, or a string holding one.
    #[arg(long, value_name = "PATH", value_parser = json_pointer, conflicts_with = "value_field")]
    pub value_json: Option<String>,
    /// Lines per second: the synthetic log's [default: 50000 live, unlimited in a report], or the
    /// speed to replay files or stdin at [default: unlimited]; 0 = unlimited. A whole number,
    /// or with k / M / G: 50k, 1M.
    #[arg(long, value_parser = count, allow_negative_numbers = true)]
    pub rate: Option<u64>,
    /// Keep reading the --input files as they grow, like tail -F: across rotation (a new file
    /// under the name) and truncation, and waiting for a name that does not exist yet; several
    /// files are followed side by side.
    #[arg(long, requires = "input")]
    pub follow: bool,
    /// With --follow: start at each file's end, counting only the lines written from now on
    /// (tail -F -n 0); a file that appears under the name later is read from its start.
    #[arg(long, requires = "follow")]
    pub from_end: bool,
    /// The synthetic log's seed (with no --input; it is read even when stdin is a pipe)
    /// [default: 1].
    #[arg(long, conflicts_with = "input", value_parser = number::<u64>, allow_negative_numbers = true)]
    pub seed: Option<u64>,
    /// Stop after this many seconds (more than 0): the live view quits, a report prints what was
    /// counted.
    #[arg(long, value_parser = positive_seconds, allow_negative_numbers = true)]
    pub seconds: Option<f64>,
    /// Stop after this many lines (at least 1) [report on the synthetic log without --seconds:
    /// 1000000]: the input ends there (the live view shows END OF INPUT until q).
    #[arg(long, value_parser = lines_limit, allow_negative_numbers = true)]
    pub lines: Option<u64>,
    /// Distinct lines counted exactly before the exact table stops growing (0: off).
    #[arg(long, default_value_t = 2_000_000, value_parser = number::<usize>, allow_negative_numbers = true)]
    pub exact_cap: usize,
    /// The dedupe filter clears itself when its false-positive estimate passes this.
    #[arg(long, default_value_t = 0.01, value_parser = open_fraction, allow_negative_numbers = true)]
    pub clear_at: f64,
    /// Heavy-hitter rows shown and reported (1 to 200).
    #[arg(long, default_value_t = DEFAULT_TOP, value_parser = top, allow_negative_numbers = true)]
    pub top: usize,
    /// The time window every figure answers for: all (since start), 1m, 5m or 15m (the live view
    /// starts with it; `w` switches).
    #[arg(long, default_value = "all", value_parser = window)]
    pub window: Window,
    /// Write the sketches since the start (whatever --window shows) to FILE in the wire format at
    /// exit and every --save-every seconds (`merge` reads such files).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Seconds between two saves while running.
    #[arg(long, default_value_t = 60.0, value_parser = positive_seconds, requires = "save", allow_negative_numbers = true)]
    pub save_every: f64,
    /// Where to write the HyperLogLogs for Redis.
    #[command(flatten)]
    pub redis: RedisArgs,
}

/// `--redis URL` and `--redis-name NAME`, for `live`, `report` and `listen`.
#[derive(Clone, Debug, Default, Args)]
pub struct RedisArgs {
    /// Write the HyperLogLogs (each device's and the fleet's, or the log's) to Redis on every
    /// refresh as Redis HyperLogLog strings under {tui-demo}:NAME:*, for PFCOUNT / PFMERGE across
    /// hosts: redis://HOST:PORT[/DB]; a password from the URL or REDIS_PASSWORD, never shown.
    #[arg(long, value_name = "URL", value_parser = RedisTarget::parse)]
    pub redis: Option<RedisTarget>,
    /// The NAME in those keys [default: the host name, plus :PORT with listen].
    #[arg(long, value_name = "NAME", requires = "redis", value_parser = redis_name)]
    pub redis_name: Option<String>,
}

impl RedisArgs {
    fn options(self) -> Option<Box<RedisOptions>> {
        self.redis.map(|target| {
            Box::new(RedisOptions {
                target,
                name: self.redis_name,
            })
        })
    }
}

/// A `--redis-name`: non-empty, no spaces, no braces (braces would move the keys out of the
/// `{tui-demo}` hash slot).
fn redis_name(v: &str) -> Result<String, String> {
    if v.is_empty() || v.contains(['{', '}']) || v.chars().any(char::is_whitespace) {
        return Err(
            "a non-empty name without spaces or braces (braces would move the keys out of the {tui-demo} hash slot)"
                .into(),
        );
    }
    Ok(v.to_string())
}

/// Headless or live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Live view if stdout is a terminal, else a report.
    Auto,
    /// A report, as a table or JSON.
    Report,
}

/// Parsed options.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The source.
    pub source: SourceSpec,
    /// Lines per second asked for with `--rate` (0 = unlimited): the synthetic log's rate, or each
    /// emitted device's.
    pub rate: Option<u64>,
    /// Report or live.
    pub output: Output,
    /// Report as JSON.
    pub json: bool,
    /// Stop after this many seconds.
    pub seconds: Option<f64>,
    /// Stop after this many lines.
    pub lines: Option<u64>,
    /// Exact-table cap.
    pub exact_cap: usize,
    /// Dedupe clear threshold.
    pub clear_at: f64,
    /// What is counted: whole lines or some fields (`--field`).
    pub key: KeyFields,
    /// Or a regex capture or a JSON field (`--key-regex`, `--json-key`).
    pub rule: KeyRule,
    /// `--strip-timestamp`.
    pub strip: Option<TimestampStrip>,
    /// Heavy-hitter rows shown and reported (`--top`).
    pub top: usize,
    /// `--value-field N`: the field whose numbers feed the quantile sketch (emitted devices' too).
    pub value_field: Option<u16>,
    /// `--value-json PATH`: or a JSON value's, by its JSON pointer.
    pub value_json: Option<String>,
    /// The window the figures answer for (`--window`).
    pub window: Window,
    /// `generate SIZE`: write synthetic log and exit.
    pub generate: Option<u64>,
    /// `emit N`: simulate N devices sending frames.
    pub emit: Option<u32>,
    /// Where `emit` sends.
    pub to: SocketAddr,
    /// How often each emitted device sends its sketches.
    pub period_ms: u64,
    /// The first emitted device's id.
    pub first_id: u64,
    /// Fraction of emitted frames corrupted on purpose.
    pub corrupt: f64,
    /// `--save FILE`: where the sketches are written.
    pub save: Option<PathBuf>,
    /// Time between two saves.
    pub save_every: std::time::Duration,
    /// `merge FILES…`: the saved files to merge and report.
    pub merge: Option<Vec<PathBuf>>,
    /// `--redis URL` and `--redis-name NAME`: where to write the HyperLogLogs.
    pub redis: Option<Box<RedisOptions>>,
    /// The source is the synthetic log only because neither `--input` nor `--seed` was given:
    /// stdin that is a pipe or a file takes its place ([`Options::stdin_by_default`]).
    pub synthetic_by_default: bool,
}

impl Options {
    /// The engine's settings.
    #[must_use]
    pub fn engine_options(&self) -> EngineOptions {
        EngineOptions {
            exact_cap: self.exact_cap,
            clear_at: self.clear_at,
            key: self.key,
            rule: self.rule.clone(),
            strip: self.strip.clone(),
            top: self.top,
            value_field: self.value_field,
            value_json: self.value_json.clone(),
        }
    }

    /// The source's rate in the live view: `--rate`, or [`DEFAULT_RATE`] for the synthetic log
    /// and unlimited (0) for files and stdin.
    #[must_use]
    pub fn source_rate(&self) -> u64 {
        match self.source {
            SourceSpec::Synthetic { .. } => self.live_rate(),
            _ => self.rate.unwrap_or(0),
        }
    }

    /// Reads stdin instead of the synthetic log when neither `--input` nor `--seed` was given and
    /// `stdin_has_lines` (stdin is a pipe or a file: `tail -f app.log | tui-demo` counts the log,
    /// as a filter would, where it showed the synthetic log and left the pipe unread).
    ///
    /// ```
    /// use tui_demo::{args, source::{Input, SourceSpec}};
    /// let mut o = args::parse(["tui-demo", "report"].map(Into::into)).unwrap();
    /// o.stdin_by_default(true);
    /// assert_eq!(o.source, SourceSpec::Lines(vec![Input::Stdin]));
    /// let mut o = args::parse(["tui-demo", "report", "--seed", "3"].map(Into::into)).unwrap();
    /// o.stdin_by_default(true);
    /// assert_eq!(o.source, SourceSpec::Synthetic { seed: 3 });
    /// ```
    pub fn stdin_by_default(&mut self, stdin_has_lines: bool) {
        if self.synthetic_by_default && stdin_has_lines {
            self.source = SourceSpec::Lines(vec![Input::Stdin]);
            self.synthetic_by_default = false;
        }
    }

    /// The live synthetic rate: `--rate`, or [`DEFAULT_RATE`].
    #[must_use]
    pub fn live_rate(&self) -> u64 {
        self.rate.unwrap_or(DEFAULT_RATE)
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            source: SourceSpec::Synthetic { seed: 1 },
            rate: None,
            output: Output::Auto,
            json: false,
            seconds: None,
            lines: None,
            exact_cap: 2_000_000,
            clear_at: 0.01,
            key: KeyFields::whole_line(),
            rule: KeyRule::Line,
            strip: None,
            top: DEFAULT_TOP,
            value_field: None,
            value_json: None,
            window: Window::All,
            generate: None,
            emit: None,
            to: SocketAddr::from(([127, 0, 0, 1], 7777)),
            period_ms: 500,
            first_id: 1,
            corrupt: 0.0,
            save: None,
            save_every: std::time::Duration::from_secs(60),
            merge: None,
            redis: None,
            synthetic_by_default: false,
        }
    }
}

impl RunArgs {
    fn options(self, output: Output, json: bool) -> Result<Options, String> {
        let stdin = self.input.iter().filter(|p| p.as_os_str() == "-").count();
        if stdin > 1 {
            return Err("--input: stdin ('-') can be read once".into());
        }
        if stdin == self.input.len() && self.follow {
            // It was ignored: a file redirected to stdin was read to its end and the run ended.
            // (Beside followed files, stdin is read as it comes, side by side with them.)
            return Err(
                "--follow: stdin ('-') cannot be followed (it is read as it comes, until its \
                 writer closes it); give the file's name, or pipe `tail -F FILE` in"
                    .into(),
            );
        }
        // One file given twice would have its lines counted twice (`merge` says so of a file
        // given twice; a run counted it silently: found by a user test). The same file under two
        // names too (a link); a name that does not exist yet (followed) by its text.
        let mut seen: Vec<(&PathBuf, Option<(u64, u64)>)> = Vec::new();
        // The input already given that `p` (of file id `id`) names, by its name or its inode.
        let already =
            |seen: &[(&PathBuf, Option<(u64, u64)>)], p: &PathBuf, id: Option<(u64, u64)>| {
                seen.iter()
                    .find(|(q, qid)| *q == p || (id.is_some() && *qid == id))
                    .map(|(q, _)| q.display().to_string())
            };
        for p in self.input.iter().filter(|p| p.as_os_str() != "-") {
            let id = file_id(p);
            if let Some(first) = already(&seen, p, id) {
                return Err(format!(
                    "--input {first} and {}: the same file, whose lines would be counted twice \
                     (give it once)",
                    p.display()
                ));
            }
            seen.push((p, id));
        }
        // `--save` onto an input replaced the log with the sketches, without a word (a user test).
        if let Some(save) = &self.save {
            if let Some(input) = already(&seen, save, file_id(save)) {
                return Err(format!(
                    "--save {} is the file read (--input {input}): the sketches would overwrite \
                     it (give another file)",
                    save.display()
                ));
            }
        }
        let synthetic_by_default = self.input.is_empty() && self.seed.is_none();
        let source = if self.input.is_empty() {
            SourceSpec::Synthetic {
                seed: self.seed.unwrap_or(1),
            }
        } else {
            SourceSpec::Lines(
                self.input
                    .into_iter()
                    .map(|p| {
                        if p.as_os_str() == "-" {
                            Input::Stdin
                        } else if self.follow && self.from_end {
                            Input::FollowNew(p)
                        } else if self.follow {
                            Input::Follow(p)
                        } else {
                            Input::File(p)
                        }
                    })
                    .collect(),
            )
        };
        Ok(Options {
            source,
            rate: self.rate,
            output,
            json,
            seconds: self.seconds,
            lines: self.lines,
            exact_cap: self.exact_cap,
            clear_at: self.clear_at,
            key: self.field.unwrap_or_else(KeyFields::whole_line),
            rule: self.key_regex.or(self.json_key).unwrap_or(KeyRule::Line),
            strip: self.strip_timestamp.then(TimestampStrip::new),
            top: self.top,
            value_field: self.value_field,
            value_json: self.value_json,
            window: self.window,
            save: self.save,
            save_every: seconds_duration(self.save_every),
            redis: self.redis.options(),
            synthetic_by_default,
            ..Options::default()
        })
    }
}

/// Parses the arguments (with the program name first, as `std::env::args_os` gives them).
///
/// # Errors
/// A `clap` error: `--help` and `--version` too (its `exit` prints them and exits 0; mistakes
/// exit 2).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Options, clap::Error> {
    let cli = Cli::try_parse_from(args)?;
    let invalid =
        |m: String| clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, format!("{m}\n"));
    let report = |r: bool, j: bool| {
        if r || j {
            Output::Report
        } else {
            Output::Auto
        }
    };
    match cli.command {
        None => cli
            .run
            .options(report(cli.report, cli.json), cli.json)
            .map_err(invalid),
        Some(Cmd::Live(run)) => run.options(Output::Auto, false).map_err(invalid),
        Some(Cmd::Report { run, json }) => run.options(Output::Report, json).map_err(invalid),
        Some(Cmd::Listen {
            addr,
            seconds,
            report: r,
            json,
            save,
            save_every,
            redis,
            value_field: _,
        }) => Ok(Options {
            source: SourceSpec::Device(addr),
            redis: redis.options(),
            seconds,
            output: report(r, json),
            json,
            save,
            save_every: seconds_duration(save_every),
            ..Options::default()
        }),
        Some(Cmd::Emit {
            devices, first_id, ..
        }) if first_id.checked_add(u64::from(devices) - 1).is_none() => Err(invalid(format!(
            "--first-id {first_id}: {devices} devices from it would pass the largest id, {}",
            u64::MAX
        ))),
        Some(Cmd::Emit {
            devices,
            to,
            rate,
            period,
            corrupt,
            seconds,
            seed,
            first_id,
            value_field,
        }) => Ok(Options {
            source: SourceSpec::Synthetic { seed },
            emit: Some(devices),
            first_id,
            to,
            rate: Some(rate),
            period_ms: period,
            corrupt,
            seconds,
            value_field,
            ..Options::default()
        }),
        Some(Cmd::Merge {
            files,
            report: _,
            json,
            top,
        }) => Ok(Options {
            merge: Some(files),
            output: Output::Report,
            json,
            top,
            ..Options::default()
        }),
        Some(Cmd::Generate { size, seed }) => Ok(Options {
            source: SourceSpec::Synthetic { seed },
            generate: Some(size),
            ..Options::default()
        }),
    }
}

/// Parses a size such as `4096`, `64k`, `500M`, `1G` (powers of 1024).
///
/// # Errors
/// When the text is not a size.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (digits, unit) = suffixed(s);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{s}' is not a size (e.g. 4096, 64k, 500M, 1G)"))?;
    n.checked_mul(unit.map_or(1, |u| 1 << (10 * u)))
        .ok_or_else(|| format!("'{s}' is too large"))
}

/// A number's digits and its unit suffix, if any: `k`, `M`, `G` (either case) as 1, 2, 3 (the
/// power of 1,024 for sizes, of 1,000 for counts).
fn suffixed(s: &str) -> (&str, Option<u32>) {
    match s.char_indices().last() {
        Some((i, c @ ('k' | 'K' | 'm' | 'M' | 'g' | 'G'))) => (
            s.get(..i).unwrap_or_default(),
            Some(match c.to_ascii_lowercase() {
                'k' => 1,
                'm' => 2,
                _ => 3,
            }),
        ),
        _ => (s, None),
    }
}

/// A `--value-json` path as a JSON pointer, as `--json-key` reads one.
fn json_pointer(v: &str) -> Result<String, String> {
    match KeyRule::json(v)? {
        KeyRule::Json(pointer) => Ok(pointer),
        _ => Err("a field name or path, e.g. latency_ms or /req/ms".into()),
    }
}

/// A number that may have `_` separators (`1_000_000`).
/// A count of lines: a whole number, with `_` between digits or a decimal suffix `k`, `M`, `G`
/// (×1,000, ×1,000,000, ×1,000,000,000): `5000`, `50k`, `1M`.
fn count(v: &str) -> Result<u64, String> {
    let t = v.trim().replace('_', "");
    let (digits, unit) = suffixed(&t);
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("'{v}' is not a whole number (e.g. 5000, 50k, 1M)"))?;
    n.checked_mul(unit.map_or(1, |u| 1_000u64.pow(u)))
        .ok_or_else(|| format!("'{v}' is too large"))
}

/// `--lines`: a [`count`] of at least 1 (0 read nothing, or was taken for "no limit").
fn lines_limit(v: &str) -> Result<u64, String> {
    match count(v)? {
        0 => Err("must be at least 1 (without --lines the input is read to its end)".into()),
        n => Ok(n),
    }
}

/// A file's device and inode, telling one file under two names (a link); `None` for what is not a
/// file (yet).
fn file_id(p: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| (m.dev(), m.ino()))
}

/// `emit --period`: whole milliseconds, at least 1 (clap's range said "0 is not in
/// 1..18446744073709551615").
fn period_ms(v: &str) -> Result<u64, String> {
    match number::<u64>(v) {
        Ok(0) => Err("at least 1 ms".into()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "'{v}' is not a whole number of milliseconds (e.g. 500)"
        )),
    }
}

/// `emit --rate`: a [`count`] of at least 1 (0, "unlimited" elsewhere, sent no line at all).
fn device_rate(v: &str) -> Result<u64, String> {
    match count(v)? {
        0 => Err("a device's rate is at least 1 line a second".into()),
        n => Ok(n),
    }
}

fn number<T: std::str::FromStr>(v: &str) -> Result<T, String> {
    v.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("'{v}' is not a valid number"))
}

/// `listen --value-field`: always refused, saying where the field is chosen.
fn devices_choose(_: &str) -> Result<u16, String> {
    Err(
        "the devices choose the field: give it to them (emit N --value-field F); \
         the host merges the quantile sketches they send"
            .into(),
    )
}

/// `--save-every`'s seconds as a duration (one past what a duration holds is no limit).
fn seconds_duration(s: f64) -> std::time::Duration {
    std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::MAX)
}

/// A positive number of seconds; any size (a limit past what a clock holds is no limit).
fn positive_seconds(v: &str) -> Result<f64, String> {
    let s: f64 = number(v)?;
    // (NaN is refused too.)
    if s.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err("must be a number of seconds more than 0".into());
    }
    Ok(s)
}

/// A fraction in 0..=1.
fn fraction(v: &str) -> Result<f64, String> {
    let p: f64 = number(v)?;
    if !(0.0..=1.0).contains(&p) {
        return Err("must be between 0 and 1".into());
    }
    Ok(p)
}

/// A fraction strictly between 0 and 1.
fn open_fraction(v: &str) -> Result<f64, String> {
    let p: f64 = number(v)?;
    if !(p > 0.0 && p < 1.0) {
        return Err("must be between 0 and 1, e.g. 0.01".into());
    }
    Ok(p)
}

/// A loopback socket address.
fn loopback(v: &str) -> Result<SocketAddr, String> {
    let addr: SocketAddr = v
        .parse()
        .map_err(|_| format!("'{v}' is not an address like 127.0.0.1:7777"))?;
    if !addr.ip().is_loopback() {
        return Err("the device simulator only sends to loopback addresses (127.0.0.1)".into());
    }
    Ok(addr)
}

/// Rows of the heavy-hitter list: 1 to 200.
fn top(v: &str) -> Result<usize, String> {
    let n: usize = number(v)?;
    if !(1..=200).contains(&n) {
        return Err("must be between 1 and 200".into());
    }
    Ok(n)
}

/// A window: `all`, `1m`, `5m`, `15m`.
fn window(v: &str) -> Result<Window, String> {
    Window::parse(v).ok_or_else(|| format!("'{v}' is not a window: all, 1m, 5m or 15m"))
}

/// Field numbers: `1`, `1,7`, `3-` (field 3 to the end of the line).
fn fields(v: &str) -> Result<KeyFields, String> {
    KeyFields::parse(v).ok_or_else(|| {
        format!(
            "'{v}' is not a field number or a list of up to {} (e.g. 1, 1,7 or 3- for field 3 to the end)",
            KeyFields::MAX
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Options, clap::Error> {
        parse(
            std::iter::once("tui-demo")
                .chain(args.iter().copied())
                .map(OsString::from),
        )
    }

    fn run(args: &[&str]) -> Options {
        p(args).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    }

    #[test]
    fn one_file_given_twice_is_refused() {
        let dir = std::env::temp_dir().join(format!("tui-demo-args-twice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (a, link) = (dir.join("a.log"), dir.join("link.log"));
        std::fs::write(&a, "x\n").unwrap();
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let (a, link) = (a.to_str().unwrap(), link.to_str().unwrap());
        let missing = dir.join("later.log");
        let missing = missing.to_str().unwrap();
        for (args, first, second) in [
            (vec!["-i", a, "-i", a], a, a),
            (vec!["-i", a, "-i", link], a, link),
            (
                vec!["--follow", "-i", missing, "-i", missing],
                missing,
                missing,
            ),
        ] {
            let err = p(&args).unwrap_err().to_string();
            assert!(
                err.contains(&format!("--input {first} and {second}: the same file")),
                "{args:?}: {err}"
            );
        }
        // Two files, or a file and stdin, are two inputs.
        assert!(p(&["-i", a, "-i", "-"]).is_ok());
        // Nor is an input the file saved to, under its name or another (it was overwritten).
        for args in [
            vec!["-i", a, "--save", a],
            vec!["report", "-i", "-", "-i", a, "--save", link],
            vec!["--follow", "-i", missing, "--save", missing],
        ] {
            let err = p(&args).unwrap_err().to_string();
            assert!(
                err.contains("is the file read (--input ") && err.contains("would overwrite it"),
                "{args:?}: {err}"
            );
        }
        assert!(p(&["-i", a, "--save", missing]).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn defaults_are_the_synthetic_live_view() {
        let o = run(&[]);
        // The synthetic log unless stdin has lines (main decides): the one difference.
        assert!(o.synthetic_by_default);
        let o = Options {
            synthetic_by_default: false,
            ..o
        };
        assert_eq!(o, Options::default());
        assert_eq!(o.source, SourceSpec::Synthetic { seed: 1 });
        assert!(run(&["live"]).synthetic_by_default);
        // Not with a seed, an input, or another command (listen, emit, generate, merge).
        for args in [
            &["--seed", "1"][..],
            &["--input", "a.log"],
            &["listen"],
            &["emit", "1"],
            &["generate", "1k"],
            &["merge", "a.sk"],
        ] {
            assert!(!run(args).synthetic_by_default, "{args:?}");
        }
    }

    #[test]
    fn counts_take_decimal_suffixes_and_say_what_they_want() {
        // Found by a user test: `--lines 1M` was refused (`generate` takes 64k), and `--rate 0.5`
        // said "invalid digit found in string".
        assert_eq!(run(&["report", "--lines", "1M"]).lines, Some(1_000_000));
        assert_eq!(run(&["--rate", "50k"]).rate, Some(50_000));
        assert_eq!(run(&["--rate", "1_000"]).rate, Some(1_000));
        assert_eq!(count("2G"), Ok(2_000_000_000));
        let err = p(&["--rate", "0.5"]).unwrap_err().to_string();
        assert!(err.contains("'0.5' is not a whole number"), "{err}");
        // `--follow -` was ignored (a user test): refused, saying what to do instead.
        let err = p(&["report", "--follow", "-i", "-"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("stdin ('-') cannot be followed"), "{err}");
        assert!(p(&["report", "--follow", "-i", "a.log"]).is_ok());
        // `emit --rate 0` sent nothing (a user test): refused, where 0 is unlimited elsewhere.
        let err = p(&["emit", "1", "--rate", "0"]).unwrap_err().to_string();
        assert!(err.contains("at least 1 line a second"), "{err}");
        assert_eq!(run(&["emit", "1", "--rate", "2k"]).rate, Some(2_000));
        assert!(count("99999999999999999999k").is_err() && count("18446744073709552k").is_err());
    }

    #[test]
    fn flags_and_values() {
        let o = run(&[
            "--input",
            "-",
            "--report",
            "--seconds=2.5",
            "--lines",
            "1_000",
        ]);
        assert_eq!(o.source, SourceSpec::Lines(vec![Input::Stdin]));
        assert_eq!(o.output, Output::Report);
        assert_eq!(o.seconds, Some(2.5));
        assert_eq!(o.lines, Some(1_000));
        let o = run(&[
            "report",
            "--json",
            "--seed",
            "9",
            "--rate",
            "0",
            "--exact-cap",
            "0",
        ]);
        assert!(o.json && o.output == Output::Report);
        assert_eq!((o.rate, o.exact_cap), (Some(0), 0));
        assert_eq!(o.source, SourceSpec::Synthetic { seed: 9 });
        let o = run(&["--input", "a.log", "-i", "b.log"]);
        assert_eq!(
            o.source,
            SourceSpec::Lines(vec![
                Input::File("a.log".into()),
                Input::File("b.log".into())
            ])
        );
        let o = run(&["listen", "127.0.0.1:0"]);
        assert!(matches!(o.source, SourceSpec::Device(a) if a.port() == 0));
        let o = run(&["emit", "3", "--period", "20", "--seconds", "1e20"]);
        assert_eq!((o.emit, o.period_ms, o.seconds), (Some(3), 20, Some(1e20)));
        assert_eq!(run(&["generate", "1G"]).generate, Some(1 << 30));
        assert_eq!(run(&["--field", "1,7"]).key.numbers(), [1, 7]);
        assert_eq!(run(&["--field", "3-"]).key.to_string(), "3-");
        assert_eq!(run(&["--top", "25"]).top, 25);
        let o = run(&["report", "--value-field", "9"]);
        assert_eq!(
            (o.value_field, o.engine_options().value_field),
            (Some(9), Some(9))
        );
        assert_eq!(
            run(&["emit", "2", "--value-field", "8"]).value_field,
            Some(8)
        );
        assert_eq!(run(&[]).value_field, None);
        let o = run(&["report", "--value-json", "req.ms"]);
        assert_eq!(o.engine_options().value_json.as_deref(), Some("/req/ms"));
        assert_eq!(run(&["report", "--window", "5m"]).window, Window::Min5);
        assert_eq!(run(&["--window", "15"]).window, Window::Min15);
        let o = run(&["report", "--save", "a.sk", "--save-every", "5"]);
        assert_eq!(
            (o.save, o.save_every),
            (Some("a.sk".into()), std::time::Duration::from_secs(5))
        );
        let o = run(&[
            "listen",
            "127.0.0.1:0",
            "--save",
            "f.sk",
            "--save-every",
            "2",
        ]);
        assert_eq!(
            (o.save, o.save_every),
            (Some("f.sk".into()), std::time::Duration::from_secs(2))
        );
        let o = run(&["merge", "a.sk", "b.sk", "--report"]);
        assert_eq!(o.merge, Some(vec!["a.sk".into(), "b.sk".into()]));
        assert!(run(&[]).key.is_whole_line());
        assert_eq!(
            run(&["--follow", "--from-end", "-i", "a.log"]).source,
            SourceSpec::Lines(vec![Input::FollowNew("a.log".into())])
        );
        let o = run(&["--input", "a.log", "--follow", "--rate", "100", "-i", "-"]);
        assert_eq!(
            o.source,
            SourceSpec::Lines(vec![Input::Follow("a.log".into()), Input::Stdin])
        );
        assert_eq!((o.source_rate(), run(&["-i", "a"]).source_rate()), (100, 0));
        assert_eq!(run(&[]).source_rate(), DEFAULT_RATE);
        let o = run(&["--key-regex", "user=(\\w+)", "--strip-timestamp"]);
        assert_eq!(o.rule, KeyRule::regex("user=(\\w+)").unwrap());
        assert!(o.strip.is_some());
        assert_eq!(
            run(&["report", "--json-key", "a.b"]).rule,
            KeyRule::Json("/a/b".into())
        );
    }

    #[test]
    fn non_utf8_paths_are_kept() {
        use std::os::unix::ffi::OsStringExt;
        let name = OsString::from_vec(b"log-\xff.txt".to_vec());
        let o = parse([OsString::from("tui-demo"), "--input".into(), name.clone()]).unwrap();
        assert_eq!(o.source, SourceSpec::Lines(vec![Input::File(name.into())]));
    }

    #[test]
    fn mistakes_are_reported() {
        for bad in [
            &["--bogus"][..],
            &["--rate"],
            &["--rate", "fast"],
            &["--seconds", "-1"],
            &["--clear-at", "2"],
            &["listen", "nowhere"],
            &["--input", "-", "--input", "-"],
            &["generate", "1T"],
            &["--field", "0"],
            &["--value-field", "0"],
            &["--value-field", "x"],
            &["--value-json", ""],
            &["--value-json", "a", "--value-field", "2"],
            &["listen", "--value-field", "9"],
            &["listen", "--save-every", "5"],
            &["listen", "--save", "a", "--save-every", "0"],
            &["--field", "1,2,3,4,5"],
            &["--field", "x"],
            &["--field", "-"],
            &["--field", "2-,3"],
            &["--top", "0"],
            &["--window", "2m"],
            &["--follow"],
            &["--key-regex", "("],
            &["--key-regex", "a", "--field", "1"],
            &["--json-key", "a", "--key-regex", "b"],
            &["--json-key", ""],
            &["merge"],
            &["--save-every", "5"],
            &["--save", "a", "--save-every", "0"],
            &["emit", "0"],
            &["emit", "2", "--to", "192.0.2.1:7777"],
            // Flags of another mode are refused, not ignored.
            &["live", "--json"],
            &["generate", "1k", "--input", "x"],
            &["listen", "--input", "x"],
            &["--input", "x", "generate", "1k"],
        ] {
            assert!(p(bad).is_err(), "{bad:?}");
        }
        let e = p(&["listen", "--value-field", "9"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("the devices choose the field"), "{e}");
        // A negative number is the value's mistake, said as such (found by a user test: clap took
        // `-1` for a flag, "unexpected argument '-1' found").
        for (bad, says) in [
            (&["--seconds", "-1"][..], "more than 0"),
            (&["-i", "a.log", "--from-end"], "--follow"),
            (
                &["emit", "2", "--first-id", "18446744073709551615"],
                "would pass the largest id",
            ),
            // 0 read the whole file without --follow and nothing with it (a user test).
            (&["--seconds", "0"], "more than 0"),
            (&["listen", "--seconds", "0"], "more than 0"),
            (
                &["--lines", "0"],
                "at least 1 (without --lines the input is read to its end)",
            ),
            (&["--rate", "-5"], "not a whole number"),
            (&["--lines", "-3"], "not a whole number"),
            (&["--top", "-1"], "--top"),
            (&["--exact-cap", "-1"], "not a valid number"),
            (&["emit", "-1"], "'-1'"),
            (&["generate", "-5"], "'-5'"),
            (&["--seed", "-1"], "'-1' is not a valid number"),
            (&["emit", "2", "--period", "-1"], "--period"),
            (&["emit", "2", "--period", "0"], "at least 1 ms"),
            (
                &["emit", "2", "--period", "1.5"],
                "not a whole number of milliseconds",
            ),
            (&["--value-field", "-2"], "--value-field"),
            (&["--field", "-2"], "--field"),
            (&["--save", "a", "--save-every", "-1"], "more than 0"),
            (&["--save", "a", "--save-every", "0"], "more than 0"),
        ] {
            let e = p(bad).unwrap_err().to_string();
            assert!(
                e.contains(says) && !e.contains("unexpected argument"),
                "{bad:?}: {e}"
            );
        }
        assert_eq!(parse_size("64k"), Ok(65_536));
        assert_eq!(parse_size("3"), Ok(3));
        assert!(parse_size("").is_err());
    }
}
