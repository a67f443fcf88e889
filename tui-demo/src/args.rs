//! Command-line arguments, parsed by hand: a dozen flags do not need a parser dependency, and the
//! demo stays quick to build on small machines.

use std::ffi::OsString;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;

use crate::ingest::engine::KeyFields;
use crate::source::{Input, SourceSpec};

/// The usage text.
pub const USAGE: &str = "\
tui-demo: a live terminal feed of sketch-nostd sketches

USAGE:
    tui-demo [OPTIONS]                  the synthetic access log (default)
    tui-demo --input FILE|- [OPTIONS]   the lines of FILE, or of stdin with '-'
    tui-demo --listen 127.0.0.1:PORT    sketch frames from devices over UDP
    tui-demo --emit N [--to ADDR]       simulate N devices sending sketch frames to ADDR
    tui-demo --generate SIZE            write SIZE bytes of synthetic log to stdout (e.g. 1G)

KEYS (live view):
    q, Esc, Ctrl-C  quit            p  pause / resume      r  reset counts
    Tab, arrows     switch panel    Enter  zoom the panel  ?  help
    +, -            synthetic rate

OPTIONS:
    --input FILE|-    read lines from FILE, or from stdin with '-' (lines are bytes: any encoding,
                      CRLF, lines of any length)
    --field N[,M..]   count a line's whitespace-separated fields N, M… (from 1) instead of the whole
                      line: real logs start with a timestamp, so whole lines rarely repeat
                      (e.g. --field 1 for client addresses, --field 7 for paths)
    --rate N          synthetic lines per second [default: 50000; 0 = as fast as possible];
                      with --emit, lines per second per device [default: 1000]
    --seed N          synthetic log seed [default: 1]
    --report          print a summary instead of the live view; automatic when stdout is not a
                      terminal. Runs until the input ends, --seconds or --lines
    --json            the summary as JSON
    --seconds N       stop after N seconds
    --lines N         stop after N lines [headless synthetic default: 1000000]
    --exact-cap N     distinct lines counted exactly before the exact table stops growing
                      [default: 2000000; 0 turns exact counting off]
    --clear-at P      the dedupe filter clears itself when its false-positive estimate passes P
                      [default: 0.01]
    --listen ADDR     receive sketch frames from devices over UDP on ADDR (e.g. 127.0.0.1:7777)
    --emit N          run N simulated devices: each counts its own synthetic log with the no_std
                      sketches and sends them as frames every --period ms to --to (loopback only)
                      until --seconds or Ctrl-C
    --to ADDR         where --emit sends [default: 127.0.0.1:7777]
    --period MS       how often each device sends [default: 500]
    --corrupt P       flip a bit in this fraction of the frames sent, to see them refused [default: 0]
    -h, --help        this text
    -V, --version     the version

Respects NO_COLOR.
";

/// What to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Parsed {
    /// Run with these options.
    Run(Options),
    /// Print the usage.
    Help,
    /// Print the version.
    Version,
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
    /// Heavy-hitter rows shown and reported (`--top`).
    pub top: usize,
    /// `--generate SIZE`: write synthetic log and exit.
    pub generate: Option<u64>,
    /// `--emit N`: simulate N devices sending frames.
    pub emit: Option<u32>,
    /// Where `--emit` sends.
    pub to: SocketAddr,
    /// How often each emitted device sends its sketches.
    pub period_ms: u64,
    /// Fraction of emitted frames corrupted on purpose.
    pub corrupt: f64,
}

/// The synthetic log's default rate, lines per second.
pub const DEFAULT_RATE: u64 = 50_000;
/// An emitted device's default rate, lines per second.
pub const DEFAULT_DEVICE_RATE: u64 = 1_000;
/// Where `--emit` sends by default, and a good `--listen` address.
pub const DEFAULT_DEVICE_ADDR: &str = "127.0.0.1:7777";

impl Options {
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
            top: crate::ingest::engine::DEFAULT_TOP,
            generate: None,
            emit: None,
            to: SocketAddr::from(([127, 0, 0, 1], 7777)),
            period_ms: 500,
            corrupt: 0.0,
        }
    }
}

/// A bad argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

fn bad(msg: impl Into<String>) -> ArgError {
    ArgError(msg.into())
}

/// Parses a size such as `4096`, `64k`, `500M`, `1G` (powers of 1024).
///
/// # Errors
/// When the text is not a size.
pub fn parse_size(s: &str) -> Result<u64, ArgError> {
    let s = s.trim();
    let (digits, shift) = match s.char_indices().last() {
        Some((i, c @ ('k' | 'K' | 'm' | 'M' | 'g' | 'G'))) => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                _ => 30,
            };
            (s.get(..i).unwrap_or_default(), shift)
        }
        _ => (s, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| bad(format!("'{s}' is not a size (e.g. 4096, 64k, 500M, 1G)")))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| bad(format!("'{s}' is too large")))
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> Result<T, ArgError> {
    v.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| bad(format!("{flag}: '{v}' is not a valid number")))
}

/// Parses the arguments (without the program name).
///
/// # Errors
/// Unknown flags, missing or malformed values, conflicting sources.
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Parsed, ArgError> {
    let mut o = Options::default();
    let mut seed = 1u64;
    let mut input: Option<SourceSpec> = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg
            .into_string()
            .map_err(|a| bad(format!("argument {a:?} is not valid UTF-8")))?;
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, ArgError> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args
                    .next()
                    .map(|v| v.to_string_lossy().into_owned())
                    .ok_or_else(|| bad(format!("{name} needs a value"))),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Parsed::Help),
            "-V" | "--version" => return Ok(Parsed::Version),
            "--input" | "-i" => {
                let v = value("--input")?;
                let spec = if v == "-" {
                    SourceSpec::Lines(Input::Stdin)
                } else {
                    SourceSpec::Lines(Input::File(PathBuf::from(v)))
                };
                if input.replace(spec).is_some() {
                    return Err(bad("give one source: --input or --listen"));
                }
            }
            "--listen" => {
                let v = value("--listen")?;
                let addr: SocketAddr = v.parse().map_err(|_| {
                    bad(format!(
                        "--listen: '{v}' is not an address like 127.0.0.1:7777"
                    ))
                })?;
                if input.replace(SourceSpec::Device(addr)).is_some() {
                    return Err(bad("give one source: --input or --listen"));
                }
            }
            "--rate" => o.rate = Some(number("--rate", &value("--rate")?)?),
            "--seed" => seed = number("--seed", &value("--seed")?)?,
            "--report" => o.output = Output::Report,
            "--json" => {
                o.json = true;
                o.output = Output::Report;
            }
            "--seconds" => {
                let s: f64 = number("--seconds", &value("--seconds")?)?;
                if !(s.is_finite() && s >= 0.0) {
                    return Err(bad("--seconds must be a non-negative number"));
                }
                o.seconds = Some(s);
            }
            "--lines" => o.lines = Some(number("--lines", &value("--lines")?)?),
            "--exact-cap" => o.exact_cap = number("--exact-cap", &value("--exact-cap")?)?,
            "--clear-at" => {
                let p: f64 = number("--clear-at", &value("--clear-at")?)?;
                if !(p > 0.0 && p < 1.0) {
                    return Err(bad("--clear-at must be between 0 and 1, e.g. 0.01"));
                }
                o.clear_at = p;
            }
            "--generate" => o.generate = Some(parse_size(&value("--generate")?)?),
            "--field" | "-f" => {
                let v = value("--field")?;
                let numbers: Result<Vec<u16>, _> = v.split(',').map(|n| n.trim().parse()).collect();
                o.key = numbers
                    .ok()
                    .and_then(|n| KeyFields::from_numbers(&n))
                    .ok_or_else(|| {
                        bad(format!(
                            "--field: '{v}' is not a field number or a list of up to {} (e.g. 1 or 1,7)",
                            KeyFields::MAX
                        ))
                    })?;
            }
            "--emit" => {
                let n: u32 = number("--emit", &value("--emit")?)?;
                if n == 0 || n > 1_000 {
                    return Err(bad("--emit takes 1 to 1000 devices"));
                }
                o.emit = Some(n);
            }
            "--to" => {
                let v = value("--to")?;
                let addr: SocketAddr = v.parse().map_err(|_| {
                    bad(format!("--to: '{v}' is not an address like 127.0.0.1:7777"))
                })?;
                if !addr.ip().is_loopback() {
                    return Err(bad(
                        "--to: the device simulator only sends to loopback addresses (127.0.0.1)",
                    ));
                }
                o.to = addr;
            }
            "--period" => {
                o.period_ms = number("--period", &value("--period")?)?;
                if o.period_ms == 0 {
                    return Err(bad("--period must be at least 1 ms"));
                }
            }
            "--corrupt" => {
                let p: f64 = number("--corrupt", &value("--corrupt")?)?;
                if !(0.0..=1.0).contains(&p) {
                    return Err(bad("--corrupt must be between 0 and 1"));
                }
                o.corrupt = p;
            }
            other => return Err(bad(format!("unknown argument '{other}' (try --help)"))),
        }
    }
    o.source = input.unwrap_or(SourceSpec::Synthetic { seed });
    Ok(Parsed::Run(o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Parsed, ArgError> {
        parse(args.iter().map(OsString::from))
    }

    fn run(args: &[&str]) -> Options {
        match p(args) {
            Ok(Parsed::Run(o)) => o,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn defaults_are_the_synthetic_live_view() {
        let o = run(&[]);
        assert_eq!(o, Options::default());
        assert_eq!(o.source, SourceSpec::Synthetic { seed: 1 });
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
        assert_eq!(o.source, SourceSpec::Lines(Input::Stdin));
        assert_eq!(o.output, Output::Report);
        assert_eq!(o.seconds, Some(2.5));
        assert_eq!(o.lines, Some(1_000));
        let o = run(&["--json", "--seed", "9", "--rate", "0", "--exact-cap", "0"]);
        assert!(o.json && o.output == Output::Report);
        assert_eq!((o.rate, o.exact_cap), (Some(0), 0));
        assert_eq!(o.source, SourceSpec::Synthetic { seed: 9 });
        let o = run(&["--input", "app.log"]);
        assert_eq!(o.source, SourceSpec::Lines(Input::File("app.log".into())));
        let o = run(&["--listen", "127.0.0.1:7777"]);
        assert!(matches!(o.source, SourceSpec::Device(a) if a.port() == 7777));
        assert_eq!(run(&["--generate", "1G"]).generate, Some(1 << 30));
        assert_eq!(run(&["--field", "1,7"]).key.numbers(), [1, 7]);
        assert!(run(&[]).key.is_whole_line());
        assert_eq!(p(&["-h"]), Ok(Parsed::Help));
        assert_eq!(p(&["--version"]), Ok(Parsed::Version));
    }

    #[test]
    fn mistakes_are_reported() {
        for bad in [
            &["--bogus"][..],
            &["--rate"],
            &["--rate", "fast"],
            &["--seconds", "-1"],
            &["--clear-at", "2"],
            &["--listen", "nowhere"],
            &["--input", "a", "--input", "b"],
            &["--generate", "1T"],
            &["--field", "0"],
            &["--field", "1,2,3,4,5"],
            &["--field", "x"],
        ] {
            assert!(p(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_size("64k"), Ok(65_536));
        assert_eq!(parse_size("3"), Ok(3));
        assert!(parse_size("").is_err());
    }
}
