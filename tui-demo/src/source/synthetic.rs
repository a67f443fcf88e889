//! A synthetic web access log, so every panel has something to show with no arguments.
//!
//! Lines look like a combined-format access log without the timestamp (so that repeated requests
//! are repeated lines, which is what the dedupe and heavy-hitter panels are about):
//!
//! ```text
//! 203.0.113.42 - - "GET /api/v1/cart HTTP/1.1" 200 1834 2417 "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"
//! ```
//!
//! Field 8 is the response size in bytes, field 9 the latency in µs (`--value-field 8` or `9`): a
//! log-normal-like spread (median 2 ms, server errors slower, `304`s faster) fixed per client, path
//! and status, so that a repeated request is still a repeated line.
//!
//! Clients (100,000) and paths (3,000) are drawn from Zipf distributions, the status varies per
//! request. Every 8–20 seconds (at the current rate) a burst starts: one client repeats one request
//! (a credential-stuffing bot, a scanner, a flood) for 2–4 seconds, as a good share of the traffic.
//! The generator is seeded: the same seed gives the same log.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::zipf::{mix, rng, Rng, Zipf};
use super::{send, Batch, Control, SourceEvent, SourceMsg};

/// Number of distinct clients.
pub const CLIENTS: usize = 100_000;
/// Number of distinct paths.
pub const PATHS: usize = 3_000;
/// Lines per batch sent to ingest.
const BATCH_LINES: usize = 2_048;
/// The nominal rate used to time bursts when the rate is unlimited.
const UNLIMITED_HINT: u64 = 1_000_000;

const USER_AGENTS: [&str; 10] = [
    "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Mobile/15E148",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) Chrome/126.0 Mobile",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Edg/126.0",
    "curl/8.5.0",
    "Go-http-client/2.0",
    "okhttp/4.12.0",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
];

const TOP_PATHS: [(&str, &str); 16] = [
    ("GET", "/"),
    ("GET", "/api/v1/health"),
    ("GET", "/static/js/app.js"),
    ("GET", "/static/css/main.css"),
    ("GET", "/favicon.ico"),
    ("GET", "/api/v1/cart"),
    ("POST", "/api/v1/events"),
    ("GET", "/search"),
    ("GET", "/products"),
    ("POST", "/login"),
    ("GET", "/api/v1/session"),
    ("GET", "/static/img/logo.svg"),
    ("GET", "/api/v1/recommendations"),
    ("POST", "/api/v1/cart/items"),
    ("GET", "/account"),
    ("GET", "/robots.txt"),
];

const BURSTS: [(&str, u16, u32, &str); 4] = [
    ("POST /login", 401, 61, "python-requests/2.31.0"),
    (
        "GET /wp-login.php",
        404,
        153,
        "Mozilla/5.0 (compatible; scanner/1.0)",
    ),
    (
        "GET /api/v1/search?q=%27%20OR%201%3D1--",
        400,
        87,
        "sqlmap/1.7.2",
    ),
    ("GET /", 200, 5_120, "curl/8.5.0"),
];

/// A path's part of a line, formatted once: ` - - "GET /cart HTTP/1.1" ` (between the client's
/// address and the status), and whether it is a static file (which are `200` or `304`).
#[derive(Clone, Debug)]
struct PathLine {
    request: Box<[u8]>,
    is_static: bool,
}

impl PathLine {
    fn new(method: &str, name: &str) -> Self {
        Self {
            request: format!(" - - \"{method} {name} HTTP/1.1\" ")
                .into_bytes()
                .into(),
            is_static: name.starts_with("/static/"),
        }
    }
}

/// A burst in progress.
#[derive(Clone, Debug)]
struct Burst {
    line: Vec<u8>,
    left: u64,
    share: f64,
}

/// The access-log generator.
#[derive(Clone, Debug)]
pub struct Generator {
    rng: Rng,
    clients: Arc<Zipf>,
    paths: Arc<Zipf>,
    /// Each path's request, formatted once.
    path_lines: Arc<Vec<PathLine>>,
    rate_hint: u64,
    burst: Option<Burst>,
    until_burst: u64,
}

impl Generator {
    /// A generator; equal seeds give equal logs.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        let mut rng = rng(seed);
        let path_lines = (0..PATHS)
            .map(|r| {
                let (method, name) = path_name(r, seed);
                PathLine::new(method, &name)
            })
            .collect();
        let rate_hint = 50_000;
        let until_burst = rate_hint * (3 + rng.below(3));
        Self {
            rng,
            clients: Arc::new(Zipf::new(CLIENTS, 1.05)),
            paths: Arc::new(Zipf::new(PATHS, 1.15)),
            path_lines: Arc::new(path_lines),
            rate_hint,
            burst: None,
            until_burst,
        }
    }

    /// Another generator over the same clients and paths (the tables are shared, not copied) with
    /// its own random stream: what a device in a fleet sees of the same traffic.
    #[must_use]
    pub fn fork(&self, seed: u64) -> Self {
        let mut rng = rng(seed);
        let until_burst = self.rate_hint * (3 + rng.below(10));
        Self {
            rng,
            clients: Arc::clone(&self.clients),
            paths: Arc::clone(&self.paths),
            path_lines: Arc::clone(&self.path_lines),
            rate_hint: self.rate_hint,
            burst: None,
            until_burst,
        }
    }

    /// Tells the generator the current rate (lines per second, 0 for unlimited), so bursts keep
    /// their length in seconds.
    pub fn set_rate_hint(&mut self, rate: u64) {
        let rate = if rate == 0 { UNLIMITED_HINT } else { rate };
        if rate != self.rate_hint {
            let scale = rate as f64 / self.rate_hint as f64;
            self.until_burst = (self.until_burst as f64 * scale) as u64;
            if let Some(b) = self.burst.as_mut() {
                b.left = (b.left as f64 * scale) as u64;
            }
            self.rate_hint = rate;
        }
    }

    /// Appends one line (without a newline) to `out`, and says whether a burst started or ended.
    pub fn next_line(&mut self, out: &mut Vec<u8>) -> Option<SourceEvent> {
        let mut event = None;
        if self.burst.is_none() {
            self.until_burst = self.until_burst.saturating_sub(1);
            if self.until_burst == 0 {
                let line = self.burst_line();
                let seconds = 2 + self.rng.below(3);
                self.burst = Some(Burst {
                    left: self.rate_hint * seconds,
                    share: 0.3 + self.rng.below(40) as f64 / 100.0,
                    line: line.clone(),
                });
                event = Some(SourceEvent::BurstStarted {
                    line: String::from_utf8_lossy(&line).into_owned(),
                });
            }
        }
        if let Some(b) = self.burst.as_mut() {
            b.left = b.left.saturating_sub(1);
            let repeat = self.rng.chance(b.share);
            if repeat {
                out.extend_from_slice(&b.line);
            }
            if b.left == 0 {
                self.burst = None;
                self.until_burst = self.rate_hint * (8 + self.rng.below(13));
                event = Some(SourceEvent::BurstEnded);
            }
            if repeat {
                return event;
            }
        }
        self.regular_line(out);
        event
    }

    /// Appends a line of traffic, formatted by hand into `out` (`write!` cost more than everything
    /// else a line takes): `{ip} - - "{method} {path} HTTP/1.1" {status} {size} {latency} "{ua}"`.
    fn regular_line(&mut self, out: &mut Vec<u8>) {
        let client = self.clients.sample(&mut self.rng) as u64;
        let path = self.paths.sample(&mut self.rng);
        // `sample` draws below the sampler's length, PATHS, which is the table's.
        let request = &self.path_lines[path];
        let roll = self.rng.below(1_000);
        let status: u16 = if request.is_static {
            if roll < 700 {
                200
            } else {
                304
            }
        } else {
            match roll {
                0..=929 => 200,
                930..=959 => 404,
                960..=979 => 302,
                980..=994 => 500,
                _ => 503,
            }
        };
        let size = match status {
            200 => 200 + mix(path as u64 ^ 0xb17e) % 48_000,
            304 => 0,
            _ => 100 + mix(u64::from(status)) % 400,
        };
        let ua = USER_AGENTS
            .get((mix(client ^ 0x0a9e) % USER_AGENTS.len() as u64) as usize)
            .copied()
            .unwrap_or("-");
        let latency = latency_us(
            client ^ (path as u64) << 24 ^ u64::from(status) << 48,
            status,
        );
        push_ip(out, client);
        out.extend_from_slice(&request.request);
        push_tail(out, status, size, latency, ua);
    }

    fn burst_line(&mut self) -> Vec<u8> {
        let (request, status, size, ua) = BURSTS
            .get(self.rng.below(BURSTS.len() as u64) as usize)
            .copied()
            .unwrap_or(BURSTS[0]);
        let bot = self.rng.next_u64() | 1 << 63;
        let latency = latency_us(u64::from(size) << 16 ^ u64::from(status), status);
        let mut line = Vec::with_capacity(160);
        push_ip(&mut line, bot);
        line.extend_from_slice(b" - - \"");
        line.extend_from_slice(request.as_bytes());
        line.extend_from_slice(b" HTTP/1.1\" ");
        push_tail(&mut line, status, u64::from(size), latency, ua);
        line
    }
}

/// Appends ` {status} {size} {latency} "{ua}"`, the end of every line.
fn push_tail(out: &mut Vec<u8>, status: u16, size: u64, latency: u64, ua: &str) {
    let mut digits = itoa::Buffer::new();
    out.extend_from_slice(digits.format(status).as_bytes());
    out.push(b' ');
    out.extend_from_slice(digits.format(size).as_bytes());
    out.push(b' ');
    out.extend_from_slice(digits.format(latency).as_bytes());
    out.extend_from_slice(b" \"");
    out.extend_from_slice(ua.as_bytes());
    out.push(b'"');
}

/// Appends a client's address, derived from its rank (or any other number): `a.b.c.d`.
fn push_ip(out: &mut Vec<u8>, n: u64) {
    let h = mix(n.wrapping_add(0x1b873593));
    let a = [
        1u8, 23, 31, 45, 62, 77, 89, 103, 131, 146, 172, 185, 198, 203, 212,
    ][(h % 15) as usize];
    let mut digits = itoa::Buffer::new();
    for (i, octet) in [a, (h >> 8) as u8, (h >> 16) as u8, ((h >> 24) as u8).max(1)]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            out.push(b'.');
        }
        out.extend_from_slice(digits.format(octet).as_bytes());
    }
}

/// A response time in µs for `key`, the same for the same key (no draw from the generator's random
/// stream, so the rest of the log is what it was without it): log-normal-like (the sum of four
/// uniforms stands in for a normal deviate), median 2 ms, 40 ms for server errors, 0.6 ms for
/// `304 Not Modified`, σ = 1.1 in the logarithm. At most 1.8·10^6 (7 digits): z ≤ 2/√(1/3).
fn latency_us(key: u64, status: u16) -> u64 {
    let h = mix(key ^ 0x1a7e_9c1e);
    let sum: f64 = (0..4)
        .map(|i| ((h >> (16 * i)) & 0xffff) as f64 / 65_536.0)
        .sum();
    // The sum of four U(0, 1) has mean 2 and standard deviation √(4/12).
    let z = (sum - 2.0) / (1.0f64 / 3.0).sqrt();
    let median = match status {
        500.. => 40_000.0,
        304 => 600.0,
        _ => 2_000.0,
    };
    (median * (1.1 * z).exp()).round().max(1.0) as u64
}

/// The method and path of path rank `r`: a few famous ones, then generated ones.
fn path_name(r: usize, seed: u64) -> (&'static str, String) {
    if let Some((m, p)) = TOP_PATHS.get(r) {
        return (m, (*p).to_string());
    }
    let h = mix(r as u64 ^ seed.rotate_left(17));
    let n = h >> 40;
    let words = [
        "lamp", "desk", "chair", "kettle", "boots", "jacket", "tent", "bike", "drill", "mug",
    ];
    let word = words.get((h % 10) as usize).copied().unwrap_or("item");
    match (h >> 8) % 7 {
        0 => ("GET", format!("/products/{word}-{}", n % 10_000)),
        1 => ("GET", format!("/api/v1/orders/{}", n % 1_000_000)),
        2 => ("GET", format!("/users/{}/profile", n % 500_000)),
        3 => ("GET", format!("/images/{}.webp", n % 100_000)),
        4 => ("GET", format!("/blog/{}/{word}-guide", 2019 + n % 7)),
        5 => ("POST", format!("/api/v1/orders/{}/items", n % 1_000_000)),
        _ => ("GET", format!("/search?q={word}&page={}", 1 + n % 20)),
    }
}

/// Runs the generator on the current thread, paced by `control.rate`, until `limit` lines, a stop
/// request, or ingest hanging up.
pub fn run(seed: u64, limit: Option<u64>, control: &Control, tx: &SyncSender<SourceMsg>) {
    let mut g = Generator::new(seed);
    let mut left = limit.unwrap_or(u64::MAX);
    let mut rate = control.rate.load(Ordering::Relaxed);
    g.set_rate_hint(rate);
    let mut epoch = Instant::now();
    let mut epoch_lines: u64 = 0;
    while left > 0 {
        if control.stopped() {
            return;
        }
        let now_rate = control.rate.load(Ordering::Relaxed);
        if now_rate != rate {
            rate = now_rate;
            g.set_rate_hint(rate);
            epoch = Instant::now();
            epoch_lines = 0;
        }
        let want = if rate == 0 {
            BATCH_LINES as u64
        } else {
            let due = (rate as f64 * epoch.elapsed().as_secs_f64()) as u64;
            // After a pause (ingest stopped reading) do not flood: catch up at most 0.2 s.
            epoch_lines = epoch_lines.max(due.saturating_sub(rate / 5));
            due.saturating_sub(epoch_lines).min(BATCH_LINES as u64)
        };
        if want == 0 {
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        let want = want.min(left);
        let mut batch = Batch::with_capacity(want as usize * 110, want as usize);
        for _ in 0..want {
            // The line is written straight into the batch's buffer.
            let mut start = batch.data.len();
            let event = g.next_line(&mut batch.data);
            if let Some(event) = event {
                // The lines before this one go first, then the event, then this line.
                let line = batch.data.split_off(start);
                if !batch.lines.is_empty() {
                    let full =
                        std::mem::replace(&mut batch, Batch::with_capacity(want as usize * 110, 0));
                    if !send(tx, SourceMsg::Lines(full)) {
                        return;
                    }
                }
                if !send(tx, SourceMsg::Event(event)) {
                    return;
                }
                start = batch.data.len();
                batch.data.extend_from_slice(&line);
            }
            batch.end_line(start);
        }
        epoch_lines += want;
        left -= want;
        if !send(tx, SourceMsg::Lines(batch)) {
            return;
        }
    }
    let _ = send(tx, SourceMsg::End(None));
}

/// Writes at least `bytes` bytes of synthetic log (whole lines) to `out`: `--generate`.
///
/// # Errors
/// Write errors (a closed pipe ends the output early and is reported as such).
pub fn generate(seed: u64, bytes: u64, out: &mut impl Write) -> std::io::Result<()> {
    let mut g = Generator::new(seed);
    let mut written = 0u64;
    let mut buf = Vec::with_capacity(1 << 16);
    while written < bytes {
        buf.clear();
        while buf.len() < (1 << 16) - 512 && written + (buf.len() as u64) < bytes {
            g.next_line(&mut buf);
            buf.push(b'\n');
        }
        out.write_all(&buf)?;
        written += buf.len() as u64;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn same_seed_same_log_and_bursts_happen() {
        let mut a = Generator::new(7);
        let mut b = Generator::new(7);
        let (mut la, mut lb) = (Vec::new(), Vec::new());
        let mut bursts = 0;
        let mut counts: HashMap<Vec<u8>, u32> = HashMap::new();
        for _ in 0..300_000 {
            la.clear();
            lb.clear();
            if let Some(SourceEvent::BurstStarted { .. }) = a.next_line(&mut la) {
                bursts += 1;
            }
            b.next_line(&mut lb);
            assert_eq!(la, lb);
            assert!(
                la.len() > 40 && la.len() < 200,
                "{}",
                String::from_utf8_lossy(&la)
            );
            *counts.entry(la.clone()).or_default() += 1;
        }
        // The first burst starts within 3–5 s (150k–250k lines) at the default 50k lines/s hint.
        assert!(bursts >= 1, "no burst in 6 s of log");
        // Repeated lines exist (dedupe has work) but most lines are distinct enough.
        let distinct = counts.len();
        assert!(distinct > 50_000 && distinct < 290_000, "{distinct}");
        let top = counts.values().max().copied().unwrap_or(0);
        assert!(top > 1_000, "top line seen {top} times");
    }

    /// The log's bytes are pinned: a hash (`hash64`, whose values are golden-tested in the library)
    /// of what the generator wrote before its lines were formatted by hand instead of with `write!`,
    /// so a faster formatter cannot change a byte of any seed's log. Three streams: `generate` (the
    /// default 50k lines/s burst timing, first burst included), a generator at a 100 lines/s hint
    /// (a burst every 800–2,000 lines: every kind of burst line), and a device's fork.
    #[test]
    fn log_bytes_are_pinned() {
        use sketch_nostd::hash::hash64;
        let mut out = Vec::new();
        generate(1, 36_000_000, &mut out).unwrap();
        let lines = out.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(
            (lines, out.len(), hash64(&out[..], 0)),
            (314_743, 36_000_017, 1_619_768_559_391_519_290)
        );

        let mut slow = Generator::new(2);
        slow.set_rate_hint(100);
        let mut out = Vec::new();
        let mut bursts = 0;
        for _ in 0..200_000 {
            if let Some(SourceEvent::BurstStarted { .. }) = slow.next_line(&mut out) {
                bursts += 1;
            }
            out.push(b'\n');
        }
        assert_eq!(
            (bursts, out.len(), hash64(&out[..], 0)),
            (115, 22_714_331, 4_602_656_099_755_030_054)
        );

        let mut device = Generator::new(3).fork(11);
        device.set_rate_hint(500);
        let mut out = Vec::new();
        for _ in 0..100_000 {
            device.next_line(&mut out);
            out.push(b'\n');
        }
        assert_eq!(
            (out.len(), hash64(&out[..], 0)),
            (11_370_693, 2_701_229_691_811_888_038)
        );
    }

    #[test]
    fn generate_writes_whole_lines() {
        let mut out = Vec::new();
        generate(1, 10_000, &mut out).unwrap();
        assert!(out.len() >= 10_000 && out.len() < 10_300);
        assert_eq!(out.last(), Some(&b'\n'));
    }
}
