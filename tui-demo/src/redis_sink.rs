//! `--redis URL`: the host's HyperLogLogs, written to Redis as Redis's own HyperLogLog strings.
//!
//! In device mode (`--listen`) every device's distinct counter and their merge (the fleet as this host
//! sees it) go to Redis on every refresh; in log mode (`--input`, the synthetic log) a
//! Redis-compatible HyperLogLog of the lines (or the `--field` keys) does. The devices count with
//! [`RedisHll`] (MurmurHash64A, Redis's register and value), so the keys are exactly what
//! `PFADD` of the same lines would have built: `PFCOUNT`, `PFMERGE` and further `PFADD`s work on
//! them, and across hosts. Keys, all under the hash tag `{tui-demo}` so that a Redis Cluster keeps
//! them in one slot (which multi-key `PFCOUNT` and `PFMERGE` need):
//!
//! | key | holds |
//! | --- | --- |
//! | `{tui-demo}:NAME:device:ID` | device `ID`'s latest distinct counter |
//! | `{tui-demo}:NAME:fleet` | the merge of this host's devices |
//! | `{tui-demo}:NAME:log` | log mode: the lines (or keys) counted |
//!
//! `NAME` is `--redis-name`, by default the host name (and in device mode the listening port), so
//! several hosts write side by side and `PFCOUNT {tui-demo}:a:fleet {tui-demo}:b:fleet` counts their
//! fleets' union.
//!
//! Writes happen on a thread of their own, so a slow or lost Redis never holds up ingest or the
//! view: the ingest side hands over the newest set of strings (an older one not yet written is
//! dropped), the writer connects (with a timeout), writes them in one pipeline, and on any error
//! drops the connection, reports the error in the view, and retries with the newest strings after a
//! back-off of up to five seconds. Only keys whose registers changed since they were last written
//! are written again, except after a reconnection: the server may have restarted empty, so every
//! key is written once more.
//!
//! The password comes from the URL (`redis://:PASSWORD@host:port/db` or
//! `redis://USER:PASSWORD@…`) or, when the URL has none, from the `REDIS_PASSWORD` environment
//! variable. It is never shown: the view and messages name the server by address and database only.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use redis::{ConnectionAddr, ConnectionInfo, IntoConnectionInfo};
use sketch_nostd::hash::hash64;
use sketch_nostd::redis::{RedisHll, DENSE_LEN};

use crate::ingest::engine::{EngineOptions, KeyFound};
use crate::ingest::fleet::Fleet;
use crate::source::Batch;

/// The hash tag every key starts with (Redis Cluster hashes only what is inside the braces).
pub const KEY_TAG: &str = "{tui-demo}";
/// The environment variable a password is taken from when the URL has none.
pub const PASSWORD_VAR: &str = "REDIS_PASSWORD";
/// At most one set of strings is built per this interval (a refresh of the view is 50 ms).
pub const WRITE_EVERY: Duration = Duration::from_millis(250);
/// Connect, read and write timeout.
const TIMEOUT: Duration = Duration::from_secs(2);
/// The longest wait between two attempts after an error.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// A Redis server to write to, parsed from `--redis URL`. Its `Debug` and [`shown`](Self::shown)
/// never include the password.
#[derive(Clone)]
pub struct RedisTarget {
    info: Box<ConnectionInfo>,
    shown: String,
}

impl RedisTarget {
    /// Parses `redis://HOST:PORT[/DB]` (with an optional `USER:PASSWORD@` or `:PASSWORD@`), taking
    /// the password from `REDIS_PASSWORD` when the URL has none.
    ///
    /// # Errors
    /// A message (without the URL's password) when it is not a Redis URL.
    pub fn parse(url: &str) -> Result<Self, String> {
        Self::parse_with(url, std::env::var(PASSWORD_VAR).ok())
    }

    /// [`parse`](Self::parse) with the environment's password given.
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_with(url: &str, env_password: Option<String>) -> Result<Self, String> {
        let mut info = url
            .into_connection_info()
            .map_err(|e| format!("--redis: not a Redis URL like redis://127.0.0.1:6379/0 ({e})"))?;
        if info.redis_settings().password().is_none() {
            if let Some(p) = env_password.filter(|p| !p.is_empty()) {
                let settings = info.redis_settings().clone().set_password(p);
                info = info.set_redis_settings(settings);
            }
        }
        let addr = match info.addr() {
            ConnectionAddr::Tcp(host, port) => format!("redis://{host}:{port}"),
            ConnectionAddr::TcpTls { host, port, .. } => format!("rediss://{host}:{port}"),
            ConnectionAddr::Unix(path) => format!("redis+unix://{}", path.display()),
            _ => "redis".to_string(),
        };
        let shown = format!("{addr}/{}", info.redis_settings().db());
        Ok(Self {
            info: Box::new(info),
            shown,
        })
    }

    /// The server as shown to the user: address and database, never the password.
    #[must_use]
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Whether a password will be sent (from the URL or the environment).
    #[must_use]
    pub fn has_password(&self) -> bool {
        self.info.redis_settings().password().is_some()
    }
}

impl std::fmt::Debug for RedisTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTarget")
            .field("server", &self.shown)
            .field("password", &self.has_password())
            .finish()
    }
}

impl PartialEq for RedisTarget {
    fn eq(&self, other: &Self) -> bool {
        self.shown == other.shown && self.has_password() == other.has_password()
    }
}

/// `--redis URL` and `--redis-name NAME`.
#[derive(Clone, Debug, PartialEq)]
pub struct RedisOptions {
    /// The server.
    pub target: RedisTarget,
    /// This host's name in the keys (`None`: [`default_name`]).
    pub name: Option<String>,
}

/// What the view shows about the Redis writer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RedisStatus {
    /// The server (address and database, no password).
    pub server: String,
    /// Whether the last attempt succeeded.
    pub connected: bool,
    /// Pipelines written.
    pub writes: u64,
    /// Key writes (a key is written again when its registers changed: the same key can count
    /// several times).
    pub keys_written: u64,
    /// Failed attempts (connects and writes).
    pub failures: u64,
    /// The last error, until a write succeeds.
    pub last_error: Option<String>,
    /// The key names this host writes under (`{tui-demo}:NAME`).
    pub prefix: String,
    /// At the end of the run ([`RedisSink::flush`]), what was handed over was not all written: the
    /// last attempt failed or was still under way. The run then exits non-zero.
    pub unwritten_at_exit: bool,
}

impl RedisStatus {
    /// One line for the view's footer.
    #[must_use]
    pub fn line(&self) -> String {
        match (&self.last_error, self.connected) {
            (Some(e), _) => format!(
                "redis {}: DISCONNECTED, retrying ({} failures): {e}",
                self.server, self.failures
            ),
            (None, true) => format!(
                "redis {}: {} key writes under {}:*",
                self.server, self.keys_written, self.prefix
            ),
            (None, false) => format!("redis {}: connecting…", self.server),
        }
    }
}

/// Strings to write: key → Redis HyperLogLog string.
type Strings = Vec<(String, Vec<u8>)>;

/// State shared with the writer thread.
#[derive(Default)]
struct Shared {
    pending: Mutex<Option<Strings>>,
    wake: Condvar,
    stop: AtomicBool,
    /// Set by the writer when it has nothing left to write.
    idle: Mutex<bool>,
    idle_changed: Condvar,
    status: Mutex<RedisStatus>,
    /// Set by the writer on every new connection: the server may have restarted empty, so the
    /// next strings include every key, changed or not.
    resync: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The Redis writer: builds the strings on the ingest side, writes them on its own thread.
pub struct RedisSink {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    prefix: String,
    key: EngineOptions,
    /// Log mode: the lines counted, as Redis would count them.
    log: Option<Box<RedisHll>>,
    key_buf: Vec<u8>,
    last_built: Option<Instant>,
    /// The hash of each key's registers as last handed over: unchanged keys are not rewritten.
    written: HashMap<String, u64>,
    /// The name is the default one of a listener that asked for port 0: the port it is given
    /// replaces the 0 ([`bound`](Self::bound)).
    port_pending: bool,
}

impl std::fmt::Debug for RedisSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSink")
            .field("prefix", &self.prefix)
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

/// The default `NAME` in key names: the host name (from the kernel, else `HOSTNAME`, else
/// `host`), with `:PORT` in device mode.
#[must_use]
pub fn default_name(listen_port: Option<u16>) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_string());
    match listen_port {
        Some(p) => format!("{host}:{p}"),
        None => host,
    }
}

impl RedisSink {
    /// The sink `--redis` asks for, if it does: device mode with `--listen`, log mode otherwise.
    ///
    /// # Errors
    /// When the writer thread cannot start.
    pub fn from_options(opts: &crate::args::Options) -> std::io::Result<Option<Self>> {
        let Some(redis) = opts.redis.as_deref() else {
            return Ok(None);
        };
        let listen = match &opts.source {
            crate::source::SourceSpec::Device(addr) => Some(addr.port()),
            _ => None,
        };
        let name = redis.name.clone().unwrap_or_else(|| default_name(listen));
        let mut sink = Self::start(
            redis.target.clone(),
            &name,
            listen.is_none(),
            opts.engine_options(),
        )?;
        sink.port_pending = redis.name.is_none() && listen == Some(0);
        Ok(Some(sink))
    }

    /// A listener asked for port 0 is on `port`: the default name takes it (the keys were named
    /// `HOST:0`, so two such hosts wrote over each other's). Nothing else changes.
    pub fn bound(&mut self, port: u16) {
        if std::mem::take(&mut self.port_pending) {
            self.prefix = format!("{KEY_TAG}:{}", default_name(Some(port)));
            lock(&self.shared.status).prefix.clone_from(&self.prefix);
        }
    }

    /// Starts the writer for `target`, writing keys under `{tui-demo}:NAME`. `log_mode` keeps a
    /// Redis-compatible HyperLogLog of the lines fed to [`lines`](Self::lines), counting the same
    /// keys as the engine (`key`).
    ///
    /// # Errors
    /// When the writer thread cannot start.
    pub fn start(
        target: RedisTarget,
        name: &str,
        log_mode: bool,
        key: EngineOptions,
    ) -> std::io::Result<Self> {
        let prefix = format!("{KEY_TAG}:{name}");
        let shared = Arc::new(Shared::default());
        *lock(&shared.status) = RedisStatus {
            server: target.shown().to_string(),
            prefix: prefix.clone(),
            ..RedisStatus::default()
        };
        let writer = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("redis".into())
            .spawn(move || write_loop(&target, &writer))?;
        Ok(Self {
            shared,
            thread: Some(thread),
            prefix,
            key,
            log: log_mode.then(|| Box::new(RedisHll::new())),
            key_buf: Vec::new(),
            last_built: None,
            written: HashMap::new(),
            port_pending: false,
        })
    }

    /// The key prefix, `{tui-demo}:NAME`.
    #[must_use]
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Log mode: counts a batch of lines (or their `--field` keys), as `PFADD` of them would. A
    /// line longer than the source keeps is counted by its kept prefix when the key is the whole
    /// line, and not at all when the key is taken from inside it (as ingest counts it).
    pub fn lines(&mut self, batch: &Batch) {
        let Some(log) = self.log.as_deref_mut() else {
            return;
        };
        let partial = batch.long.is_some_and(|l| l.len > batch.data.len() as u64);
        for (bytes, _) in batch.iter() {
            if partial && !self.key.whole_line() {
                continue;
            }
            match self.key.key_of(bytes, &mut self.key_buf) {
                KeyFound::Whole => {
                    log.insert(bytes);
                }
                KeyFound::Made => {
                    log.insert(self.key_buf.as_slice());
                }
                KeyFound::Missing => {}
            }
        }
    }

    /// Forgets the log-mode count (the view's reset). Keys already written stay until overwritten.
    pub fn reset(&mut self) {
        if let Some(log) = self.log.as_deref_mut() {
            log.clear();
        }
        self.written.clear();
    }

    /// Hands the current HyperLogLogs to the writer, at most once per [`WRITE_EVERY`].
    pub fn refresh(&mut self, now: Instant, fleet: Option<&Fleet>) {
        if self
            .last_built
            .is_some_and(|t| now.duration_since(t) < WRITE_EVERY)
        {
            return;
        }
        self.last_built = Some(now);
        self.hand_over(fleet);
    }

    /// Hands the current HyperLogLogs to the writer now, and waits up to `limit` for them to be
    /// written (or to fail). For the end of a run: whether they were all written is kept in the
    /// status ([`RedisStatus::unwritten_at_exit`]) and returned.
    pub fn flush(&mut self, fleet: Option<&Fleet>, limit: Duration) -> bool {
        self.hand_over(fleet);
        let deadline = Instant::now() + limit;
        let mut idle = lock(&self.shared.idle);
        while !*idle {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            idle = self
                .shared
                .idle_changed
                .wait_timeout(idle, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        // The writer is idle only with nothing pending; a failed write is put back as pending.
        let idle = *idle;
        let mut status = lock(&self.shared.status);
        status.unwritten_at_exit = !idle || status.last_error.is_some();
        !status.unwritten_at_exit
    }

    /// The writer's state, for the view.
    #[must_use]
    pub fn status(&self) -> RedisStatus {
        lock(&self.shared.status).clone()
    }

    /// Builds the strings of whatever changed and hands them over (replacing older ones not yet
    /// written: the newer strings contain them, register maxima only grow).
    fn hand_over(&mut self, fleet: Option<&Fleet>) {
        if self.shared.resync.swap(false, Ordering::SeqCst) {
            self.written.clear();
        }
        let mut strings = Strings::new();
        let mut buf = vec![0u8; DENSE_LEN];
        if let Some(fleet) = fleet {
            let mut merged = RedisHll::new();
            let mut any = false;
            for (id, h) in fleet.distinct_sketches() {
                // A counter with another seed never gets past the fleet's decoder.
                let Ok(device) = RedisHll::from_hll14(&h) else {
                    continue;
                };
                let _ = merged.merge(&device);
                any = true;
                self.push(
                    format!("{}:device:{id}", self.prefix),
                    &device,
                    &mut buf,
                    &mut strings,
                );
            }
            if any {
                self.push(
                    format!("{}:fleet", self.prefix),
                    &merged,
                    &mut buf,
                    &mut strings,
                );
            }
        }
        if let Some(log) = self.log.take() {
            self.push(format!("{}:log", self.prefix), &log, &mut buf, &mut strings);
            self.log = Some(log);
        }
        let mut pending = lock(&self.shared.pending);
        match pending.as_mut() {
            // Keys the writer has not written yet stay, newer strings replace older ones.
            Some(old) => {
                for (k, v) in strings {
                    match old.iter_mut().find(|(ok, _)| *ok == k) {
                        Some(slot) => slot.1 = v,
                        None => old.push((k, v)),
                    }
                }
            }
            None if !strings.is_empty() => *pending = Some(strings),
            None => return,
        }
        *lock(&self.shared.idle) = false;
        self.shared.wake.notify_one();
    }

    /// Adds `key`'s string if its registers changed since last handed over.
    fn push(&mut self, key: String, h: &RedisHll, buf: &mut [u8], out: &mut Strings) {
        let fingerprint = hash64(&h.register_bytes()[..], 0);
        if self.written.get(&key) == Some(&fingerprint) {
            return;
        }
        let Ok(buf) = <&mut [u8; DENSE_LEN]>::try_from(buf) else {
            return;
        };
        out.push((key.clone(), h.encode(buf).to_vec()));
        self.written.insert(key, fingerprint);
    }
}

impl Drop for RedisSink {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.wake.notify_one();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The writer thread: waits for strings, writes them, reconnects and retries on errors, and
/// writes what is pending once more when asked to stop.
fn write_loop(target: &RedisTarget, shared: &Shared) {
    let client = redis::Client::open((*target.info).clone());
    let mut con: Option<redis::Connection> = None;
    let mut backoff = Duration::from_millis(250);
    loop {
        let batch = {
            let mut pending = lock(&shared.pending);
            while pending.is_none() && !shared.stop.load(Ordering::SeqCst) {
                *lock(&shared.idle) = true;
                shared.idle_changed.notify_all();
                pending = shared
                    .wake
                    .wait_timeout(pending, Duration::from_millis(200))
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
            pending.take()
        };
        let stopping = shared.stop.load(Ordering::SeqCst);
        let Some(batch) = batch else {
            break; // stopping with nothing left to write
        };
        let reconnect = con.is_none();
        let result = match &client {
            Ok(client) => write(client, &mut con, &batch),
            Err(e) => Err(e.to_string()),
        };
        if reconnect && con.is_some() {
            shared.resync.store(true, Ordering::SeqCst);
        }
        let mut status = lock(&shared.status);
        match result {
            Ok(()) => {
                status.connected = true;
                status.writes += 1;
                status.keys_written += batch.len() as u64;
                status.last_error = None;
                backoff = Duration::from_millis(250);
            }
            Err(e) => {
                con = None;
                status.connected = false;
                status.failures += 1;
                status.last_error = Some(e);
                drop(status);
                if stopping {
                    break;
                }
                // Put the strings back unless newer ones arrived (which contain them), and wait.
                {
                    let mut pending = lock(&shared.pending);
                    let newer = pending.take();
                    let mut merged = batch;
                    for (k, v) in newer.into_iter().flatten() {
                        match merged.iter_mut().find(|(mk, _)| *mk == k) {
                            Some(slot) => slot.1 = v,
                            None => merged.push((k, v)),
                        }
                    }
                    *pending = Some(merged);
                }
                let until = Instant::now() + backoff;
                while Instant::now() < until && !shared.stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
                continue;
            }
        }
        if stopping && lock(&shared.pending).is_none() {
            break;
        }
    }
    *lock(&shared.idle) = true;
    shared.idle_changed.notify_all();
}

/// Connects if needed and writes `batch` in one pipeline. Errors come back as text without the
/// password (the client's errors name the server by address only).
fn write(
    client: &redis::Client,
    con: &mut Option<redis::Connection>,
    batch: &Strings,
) -> Result<(), String> {
    if con.is_none() {
        let c = client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(|e| e.to_string())?;
        c.set_read_timeout(Some(TIMEOUT))
            .map_err(|e| e.to_string())?;
        c.set_write_timeout(Some(TIMEOUT))
            .map_err(|e| e.to_string())?;
        *con = Some(c);
    }
    let Some(c) = con.as_mut() else {
        return Err("no connection".into());
    };
    let mut pipe = redis::pipe();
    for (k, v) in batch {
        pipe.cmd("SET").arg(k).arg(v.as_slice()).ignore();
    }
    pipe.exec(c).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_password_is_never_shown() {
        let t = RedisTarget::parse_with("redis://:s3cret@127.0.0.1:6380/2", None).unwrap();
        assert_eq!(t.shown(), "redis://127.0.0.1:6380/2");
        assert!(t.has_password());
        assert!(!format!("{t:?}").contains("s3cret"));
        let t = RedisTarget::parse_with("redis://127.0.0.1:6380", Some("fromenv".into())).unwrap();
        assert!(t.has_password());
        assert_eq!(t.shown(), "redis://127.0.0.1:6380/0");
        assert!(!format!("{t:?}").contains("fromenv"));
        let t = RedisTarget::parse_with("redis://127.0.0.1:6380", Some(String::new())).unwrap();
        assert!(!t.has_password());
        let e = RedisTarget::parse_with("http://:pw@x", None).unwrap_err();
        assert!(!e.contains("pw@"), "{e}");
    }

    #[test]
    fn an_unreachable_server_is_reported_and_retried_not_fatal() {
        // Port 1 on loopback: nothing listens there, the connect is refused at once.
        let target = RedisTarget::parse_with("redis://127.0.0.1:1", None).unwrap();
        let mut sink = RedisSink::start(target, "t", true, EngineOptions::default()).unwrap();
        assert!(
            !sink.flush(None, Duration::from_secs(5)),
            "nothing was written"
        );
        assert!(sink.status().unwritten_at_exit);
        let start = Instant::now();
        while sink.status().failures < 2 && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
        }
        let s = sink.status();
        assert!(!s.connected);
        assert!(s.failures >= 2, "it retries: {s:?}");
        assert!(s.line().contains("DISCONNECTED"), "{}", s.line());
        drop(sink); // stops promptly
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}
