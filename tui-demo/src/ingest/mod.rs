//! The ingest thread: takes what a source sends, applies it to the sketches, and publishes a
//! [`Snapshot`] about 20 times a second. The UI only ever reads snapshots; only control (pause, reset,
//! quit) flows back, through [`Command`]s.

pub mod engine;
pub mod fleet;
pub mod key;
pub mod ring;
pub mod values;
pub mod worker;

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

pub use engine::{Engine, EngineOptions};

use crate::redis_sink::RedisSink;
use crate::snapshot::{Snapshot, Throughput};
use crate::source::{self, Control, SourceEvent, SourceMsg, SourceSpec};

pub use crate::seed::SEED;

/// How often a snapshot is published.
pub const PUBLISH_EVERY: Duration = Duration::from_millis(50);
/// Throughput sampling interval.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(250);
/// Throughput samples kept (one minute).
pub const HISTORY: usize = 240;
/// Samples the rate shown is the mean of (2 s): a log written in bursts once a second read as
/// 20/s and 0/s in turn, one sample of 250 ms at a time.
pub const RATE_SAMPLES: usize = 8;

/// Control sent from the UI to ingest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Freeze or unfreeze the figures shown (the published snapshot). Counting goes on while they
    /// are frozen: a live log cannot wait (a followed file rotates or is truncated under a reader
    /// that stopped, a pipe's writer blocks, devices' datagrams are dropped), so what arrives is
    /// counted and shown on resume. A window switch or a reset is shown at once, then frozen again.
    Pause(bool),
    /// Forget everything counted so far.
    Reset,
    /// Finish (saving first, with a save plan).
    Quit,
    /// Save the sketches as planned: every `every` and on quit (not at once: a file saved before
    /// stays whole until the run has counted something).
    Save(SavePlan),
    /// Publish the figures of this window.
    Window(crate::window::Window),
}

/// Lines-per-second history.
#[derive(Clone, Debug)]
pub struct Meter {
    history: VecDeque<u64>,
    /// The last [`RATE_SAMPLES`] samples' lines, bytes and length, for the rate shown.
    recent: VecDeque<(u64, u64, Duration)>,
    /// Samples taken since the start.
    samples: u64,
    since: Instant,
    lines: u64,
    bytes: u64,
    last: (f64, f64),
}

impl Meter {
    /// An empty meter starting now.
    #[must_use]
    pub fn new() -> Self {
        Self {
            history: VecDeque::with_capacity(HISTORY),
            recent: VecDeque::with_capacity(RATE_SAMPLES),
            samples: 0,
            since: Instant::now(),
            lines: 0,
            bytes: 0,
            last: (0.0, 0.0),
        }
    }

    /// Counts ingested lines and bytes.
    pub fn add(&mut self, lines: u64, bytes: u64) {
        self.lines += lines;
        self.bytes += bytes;
    }

    /// Closes a sample if the interval has passed.
    pub fn tick(&mut self, now: Instant) {
        let dt = now.duration_since(self.since);
        if dt < SAMPLE_EVERY {
            return;
        }
        if self.recent.len() == RATE_SAMPLES {
            self.recent.pop_front();
        }
        self.recent.push_back((self.lines, self.bytes, dt));
        let (lines, bytes, time) = self
            .recent
            .iter()
            .fold((0, 0, Duration::ZERO), |(l, b, t), &(sl, sb, st)| {
                (l + sl, b + sb, t + st)
            });
        let secs = time.as_secs_f64();
        self.last = (lines as f64 / secs, bytes as f64 / secs);
        // The rates shown, rounded as they are shown (77.9/s showed as "78 · peak 77").
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(self.last.0.round() as u64);
        self.samples += 1;
        self.since = now;
        self.lines = 0;
        self.bytes = 0;
    }

    /// How many of the latest rates in the history are means of a full [`RATE_SAMPLES`].
    fn settled(&self) -> usize {
        let full = self.samples.saturating_sub(RATE_SAMPLES as u64 - 1);
        usize::try_from(full).unwrap_or(usize::MAX)
    }

    /// The figures for the UI.
    #[must_use]
    pub fn stats(&self) -> Throughput {
        Throughput {
            history: self.history.iter().copied().collect(),
            interval: SAMPLE_EVERY,
            lines_per_sec: self.last.0,
            bytes_per_sec: self.last.1,
            // The largest rate shown once the mean had its 2 s (a 250 ms sample's rate, as the
            // first ones are, made a steady 5/s read "peak 20"), and the rate shown now.
            peak: self
                .history
                .iter()
                .rev()
                .take(self.settled().max(1))
                .copied()
                .max()
                .unwrap_or(0),
        }
    }
}

impl Default for Meter {
    fn default() -> Self {
        Self::new()
    }
}

/// The latest snapshot, shared between ingest (writer) and the UI (reader).
pub type Latest = Arc<Mutex<Arc<Snapshot>>>;

/// A running ingest thread.
#[derive(Debug)]
pub struct Handle {
    /// Commands to ingest.
    pub commands: Sender<Command>,
    /// The latest snapshot.
    pub latest: Latest,
    /// The source's controls (the synthetic rate).
    pub control: Arc<Control>,
    /// Told each time a snapshot is published.
    changed: Arc<Condvar>,
    thread: std::thread::JoinHandle<()>,
    /// The source as started: for `listen` on port 0, the address the system gave.
    pub spec: SourceSpec,
    /// `--follow`: each followed file's name and its reader's status (waiting for it, …).
    pub follows: Vec<(String, Arc<source::follow::FollowStatus>)>,
    /// Set by ingest once it has quit, its last save and Redis write made.
    quit: Arc<std::sync::atomic::AtomicBool>,
}

/// A way to make ingest quit (with its last save) from another thread, without the [`Handle`].
#[derive(Clone, Debug)]
pub struct Stopper {
    commands: Sender<Command>,
    quit: Arc<std::sync::atomic::AtomicBool>,
}

impl Stopper {
    /// Tells ingest to quit and waits up to `limit` for it to have made its last save (and Redis
    /// write); `true` if it did (`false` at once if it is gone: it panicked).
    #[must_use]
    pub fn quit_and_wait(&self, limit: Duration) -> bool {
        if self.commands.send(Command::Quit).is_err() {
            return self.quit.load(Ordering::SeqCst);
        }
        let start = Instant::now();
        while !self.quit.load(Ordering::SeqCst) {
            if start.elapsed() >= limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }
}

impl Handle {
    /// A [`Stopper`] of this run's ingest.
    #[must_use]
    pub fn stopper(&self) -> Stopper {
        Stopper {
            commands: self.commands.clone(),
            quit: Arc::clone(&self.quit),
        }
    }

    /// The latest snapshot (cheap: clones an `Arc`).
    #[must_use]
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.latest
            .lock()
            .map(|s| Arc::clone(&s))
            .unwrap_or_default()
    }

    /// Waits until a published snapshot says the run is finished (the input is over, or the
    /// source failed), or `timeout` passes; whether it is. Woken by the publication itself, so a
    /// headless report ends as soon as its input does, not at its next poll.
    #[must_use]
    pub fn wait_finished(&self, timeout: Duration) -> bool {
        let latest = self.latest.lock().unwrap_or_else(PoisonError::into_inner);
        let (latest, _) = self
            .changed
            .wait_timeout_while(latest, timeout, |s| s.finished.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        latest.finished.is_some()
    }

    /// Whether the ingest thread is still running (it only stops on [`Command::Quit`] or a panic).
    #[must_use]
    pub fn alive(&self) -> bool {
        !self.thread.is_finished()
    }

    /// Stops the ingest thread and waits for it; a panic comes back as its message.
    ///
    /// # Errors
    /// The panic's message, if the thread panicked.
    pub fn finish(self) -> Result<(), String> {
        self.send(Command::Quit);
        joined(self.thread)
    }

    /// Sends a command; a finished ingest thread ignores it.
    pub fn send(&self, command: Command) {
        let _ = self.commands.send(command);
    }
}

/// Waits for a thread; a panic comes back as its message.
///
/// # Errors
/// The panic's message, if the thread panicked.
pub fn joined(thread: std::thread::JoinHandle<()>) -> Result<(), String> {
    thread.join().map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string())
    })
}

/// The header's name for what is counted: the source, and the key fields if not whole lines.
#[must_use]
pub fn label(spec: &SourceSpec, options: &EngineOptions) -> String {
    match options.describe() {
        None => spec.label(),
        Some(key) => format!("{} · key: {key}", spec.label()),
    }
}

/// Test hook for the end-to-end test of a panic in the ingest thread: the thread panics after
/// publishing this many snapshots.
pub const PANIC_AFTER_VAR: &str = "TUI_DEMO_PANIC_INGEST_AFTER";

/// Starts the source and the ingest thread; `save` and `redis` keep what it
/// counts.
///
/// # Errors
/// When the save file cannot be written ([`crate::saved::check_writable`], before anything
/// starts), the source cannot be opened or a thread cannot start.
pub fn spawn(
    spec: &SourceSpec,
    options: EngineOptions,
    rate: u64,
    limit: Option<u64>,
    save: Option<SavePlan>,
    redis: Option<RedisSink>,
) -> std::io::Result<Handle> {
    // A save file that cannot be written fails the run now, not once it has read everything.
    if let Some(plan) = &save {
        crate::saved::check_writable(&plan.path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("--save: {e}")))?;
    }
    let panic_after = std::env::var(PANIC_AFTER_VAR)
        .ok()
        .and_then(|v| v.parse().ok());
    let handle = spawn_full(
        spec,
        options,
        rate,
        limit,
        panic_after,
        redis,
        Box::new(crate::clock::WallClock::new()),
    )?;
    if let Some(plan) = save {
        handle.send(Command::Save(plan));
    }
    Ok(handle)
}

/// `--save`: where the sketches go and how often.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavePlan {
    /// The file.
    pub path: std::path::PathBuf,
    /// Time between two saves while running (one more is made on quit).
    pub every: Duration,
}

/// [`spawn`], with the thread set to panic after `panic_after` snapshots (for tests).
///
/// # Errors
/// When the source cannot be opened or a thread cannot start.
pub fn spawn_with(
    spec: &SourceSpec,
    options: EngineOptions,
    rate: u64,
    limit: Option<u64>,
    panic_after: Option<u32>,
) -> std::io::Result<Handle> {
    spawn_full(
        spec,
        options,
        rate,
        limit,
        panic_after,
        None,
        Box::new(crate::clock::WallClock::new()),
    )
}

/// [`spawn`] without saving or Redis, with the windows' time from `clock` (for tests).
///
/// # Errors
/// When the source cannot be opened or a thread cannot start.
pub fn spawn_clocked(
    spec: &SourceSpec,
    options: EngineOptions,
    limit: Option<u64>,
    clock: Box<dyn crate::clock::Clock>,
) -> std::io::Result<Handle> {
    spawn_full(spec, options, 0, limit, None, None, clock)
}

fn spawn_full(
    spec: &SourceSpec,
    options: EngineOptions,
    rate: u64,
    limit: Option<u64>,
    panic_after: Option<u32>,
    mut redis: Option<RedisSink>,
    clock: Box<dyn crate::clock::Clock>,
) -> std::io::Result<Handle> {
    let control = Control::new(rate);
    if !options.whole_line() || options.value_field.is_some() || options.value_json.is_some() {
        // Keys or values are taken from inside lines: long lines are kept whole (up to a bound).
        control
            .keep_long
            .store(source::LONG_KEPT_MAX, std::sync::atomic::Ordering::Relaxed);
    }
    let mut follows = Vec::new();
    // Plain files are read on the ingest thread; other sources on their own.
    let (mut feed, spec, source_thread) = match source::inline(spec, limit, &control)? {
        Ok(inline) => (Feed::Inline(Box::new(inline)), spec.clone(), None),
        Err(opened) => {
            let started = source::spawn_opened(spec, limit, Arc::clone(&control), opened)?;
            follows = started.follows;
            (Feed::Thread(started.rx), started.spec, Some(started.thread))
        }
    };
    let spec = &spec;
    // `--listen HOST:0`: the Redis keys are named after the port the system gave.
    if let (Some(r), SourceSpec::Device(addr)) = (redis.as_mut(), spec) {
        r.bound(addr.port());
    }
    let (tx, rx) = channel();
    let latest: Latest = Arc::default();
    let changed = Arc::new(Condvar::new());
    let quit = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut ingest = Ingest {
        label: label(spec, &options),
        keyed: options.describe().is_some(),
        engine: Engine::new(options),
        meter: Meter::new(),
        started: Instant::now(),
        ended: None,
        ended_at: None,
        paused: false,
        frozen: Vec::new(),
        finished: None,
        burst: None,
        latest: Arc::clone(&latest),
        changed: Arc::clone(&changed),
        fleet: matches!(spec, SourceSpec::Device(_)).then(fleet::Fleet::new),
        panic_after,
        published: 0,
        redis,
        save: None,
        next_save: None,
        save_error: None,
        epoch: clock.now(),
        clock,
        window: crate::window::Window::All,
        source_thread,
        follows: follows.clone(),
        quit: Arc::clone(&quit),
    };
    let control2 = Arc::clone(&control);
    let thread = std::thread::Builder::new()
        .name("ingest".into())
        .spawn(move || ingest.run(&mut feed, &rx, &control2))?;
    Ok(Handle {
        commands: tx,
        latest,
        control,
        changed,
        thread,
        spec: spec.clone(),
        follows,
        quit,
    })
}

/// Where ingest takes the source's messages from: a source thread's channel, or plain files it
/// reads itself ([`source::Inline`]).
enum Feed {
    Thread(Receiver<SourceMsg>),
    Inline(Box<source::Inline>),
}

impl Feed {
    /// The next message: from a thread, waiting at most `wait`; read now from a file.
    fn recv_timeout(&mut self, wait: Duration) -> Result<SourceMsg, RecvTimeoutError> {
        match self {
            Self::Thread(rx) => rx.recv_timeout(wait),
            Self::Inline(files) => files.next_msg().ok_or(RecvTimeoutError::Disconnected),
        }
    }
}

struct Ingest {
    engine: Engine,
    /// The keys are not whole lines ([`Snapshot::keyed`]).
    keyed: bool,
    /// `--follow`: each followed file's name and what its reader says has happened to it.
    follows: Vec<(String, Arc<source::follow::FollowStatus>)>,
    label: String,
    meter: Meter,
    started: Instant,
    /// When the input ended: the run's time stops there (a summary's rates are of the reading,
    /// not of how long the view stayed open after it).
    ended: Option<Instant>,
    /// The windows' time when the input ended (their time stops there too).
    ended_at: Option<Duration>,
    /// The figures shown are frozen ([`Command::Pause`]); counting goes on.
    paused: bool,
    /// While paused: every window's figures of the moment the view froze (or of the last command
    /// that showed new figures), so that switching windows shows that moment's, not newer ones.
    frozen: Vec<(crate::window::Window, Arc<Snapshot>)>,
    finished: Option<Option<String>>,
    burst: Option<String>,
    latest: Latest,
    /// Told of each snapshot published ([`Handle::wait_finished`]).
    changed: Arc<Condvar>,
    /// Device mode: the fleet the datagrams come from.
    fleet: Option<fleet::Fleet>,
    /// Test hook: panic after this many snapshots.
    panic_after: Option<u32>,
    published: u32,
    /// `--redis`: the Redis writer.
    redis: Option<RedisSink>,
    /// `--save`: the plan, when the next save is due, and the last save's error.
    save: Option<SavePlan>,
    next_save: Option<Instant>,
    save_error: Option<String>,
    /// The windows' clock, and its time at the start (or the last reset).
    clock: Box<dyn crate::clock::Clock>,
    epoch: Duration,
    /// The window whose figures are published.
    window: crate::window::Window,
    /// Set once it has quit ([`Stopper`]).
    quit: Arc<std::sync::atomic::AtomicBool>,
    /// The source's thread: joined when its channel closes without an end, to tell a panic from
    /// the end of the input.
    source_thread: Option<std::thread::JoinHandle<()>>,
}

impl Ingest {
    fn run(&mut self, source: &mut Feed, commands: &Receiver<Command>, control: &Control) {
        let mut next_publish = Instant::now();
        // A command that came while ingest waited for one (paused, or the input over).
        let mut waited = None;
        loop {
            loop {
                let command = waited.take().map_or_else(|| commands.try_recv(), Ok);
                match command {
                    Ok(Command::Quit) | Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        control.stop.store(true, Ordering::Relaxed);
                        // REDIS HOOK: write the final state (bounded wait).
                        if let Some(r) = self.redis.as_mut() {
                            // Whether it was all written goes into the status.
                            let _ = r.flush(self.fleet.as_ref(), Duration::from_secs(3));
                        }
                        if self.save.is_some() {
                            self.save_now(Instant::now());
                        }
                        // The last figures, for the report or the summary printed on quit.
                        self.publish(Instant::now(), true);
                        self.quit.store(true, Ordering::SeqCst);
                        return;
                    }
                    Ok(Command::Save(plan)) => {
                        self.next_save = Instant::now().checked_add(plan.every);
                        self.save = Some(plan);
                    }
                    Ok(Command::Pause(p)) => self.pause(p),
                    Ok(Command::Window(w)) => {
                        self.window = w;
                        // Paused: the window's figures of the moment the view froze.
                        match self.frozen.iter().find(|(at, _)| *at == w) {
                            Some((_, snap)) if self.paused => self.show(Arc::clone(snap)),
                            _ => self.publish(Instant::now(), true),
                        }
                    }
                    Ok(Command::Reset) => {
                        self.engine.reset();
                        if let Some(r) = self.redis.as_mut() {
                            r.reset(); // REDIS HOOK
                        }
                        if let Some(f) = self.fleet.as_mut() {
                            *f = fleet::Fleet::new();
                        }
                        self.meter = Meter::new();
                        self.epoch = self.clock.now();
                        // After the input ended, the windows' time stays at the reset's.
                        self.ended_at = self.ended_at.map(|_| Duration::ZERO);
                        self.started = Instant::now();
                        self.publish(Instant::now(), true);
                    }
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                }
            }
            if self.finished.is_some() {
                // Nothing to read: wait for a command (the report's quit once the input is over)
                // until the next snapshot is due, rather than sleeping through it.
                let wait = next_publish.saturating_duration_since(Instant::now());
                // A closed channel is seen (and handled) by the next `try_recv`.
                if let Ok(command) = commands.recv_timeout(wait.max(Duration::from_millis(1))) {
                    waited = Some(command);
                }
            } else {
                // Drain what is there, but come back to publish and to read commands in time.
                let until = Instant::now() + Duration::from_millis(10);
                loop {
                    match source.recv_timeout(until.saturating_duration_since(Instant::now())) {
                        Ok(SourceMsg::Lines(batch)) => {
                            self.engine.advance(self.time());
                            let batch = Arc::new(batch);
                            self.engine.apply_shared(&batch);
                            if let Some(r) = self.redis.as_mut() {
                                r.lines(&batch); // REDIS HOOK
                            }
                            self.meter.add(batch.lines.len() as u64, batch.input_bytes);
                        }
                        Ok(SourceMsg::Event(SourceEvent::BurstStarted { line })) => {
                            self.burst = Some(line);
                        }
                        Ok(SourceMsg::Event(SourceEvent::BurstEnded)) => self.burst = None,
                        Ok(SourceMsg::Datagram { from, mut bytes }) => {
                            self.meter.add(1, bytes.len() as u64);
                            if let Some(f) = self.fleet.as_mut() {
                                f.datagram(from, &mut bytes, Instant::now());
                            }
                        }
                        Ok(SourceMsg::End(e)) => {
                            self.finished = Some(e);
                            self.end();
                            // Published at once: a report waits for this snapshot to finish.
                            next_publish = Instant::now();
                            break;
                        }
                        Err(RecvTimeoutError::Timeout) => break,
                        Err(RecvTimeoutError::Disconnected) => {
                            // The source hung up without saying it ended: it has returned or is
                            // unwinding, so joining cannot block; a panic is not the end of input.
                            let panicked = self
                                .source_thread
                                .take()
                                .and_then(|t| joined(t).err())
                                .map(|m| format!("the source thread panicked: {m}"));
                            self.finished.get_or_insert(panicked);
                            self.end();
                            next_publish = Instant::now();
                            break;
                        }
                    }
                    if Instant::now() >= until {
                        break;
                    }
                }
            }
            let now = Instant::now();
            if self.next_save.is_some_and(|due| now >= due) {
                self.save_now(now);
            }
            if now >= next_publish {
                // Once the input has ended the run's time stops, and the rates with it.
                if self.ended.is_none() {
                    self.meter.tick(now);
                }
                self.publish(now, false);
                next_publish = now + PUBLISH_EVERY;
            }
        }
    }

    /// The windows' time: the clock's since the start or the last reset.
    fn time(&self) -> Duration {
        self.ended_at
            .unwrap_or_else(|| self.clock.now().saturating_sub(self.epoch))
    }

    /// The input is over: the run's time stops (the header's clock, the rates, and the windows,
    /// which answer for the last minutes of the reading rather than empty as time goes on).
    fn end(&mut self) {
        if self.ended.is_none() {
            self.ended_at = Some(self.time());
            self.ended = Some(Instant::now());
        }
    }

    /// Writes the sketches as the save plan says, and schedules the next save.
    fn save_now(&mut self, now: Instant) {
        let Some(plan) = &self.save else { return };
        // `listen --save`: the devices' merged sketches, as the host shows them.
        let written = match &self.fleet {
            None => self.engine.saved().write(&plan.path),
            Some(f) => crate::saved_fleet::SavedFleet::of(f, now).write(&plan.path),
        };
        self.save_error = written.err().map(|e| e.to_string());
        self.next_save = crate::clock::deadline(now, Some(plan.every.as_secs_f64()));
    }

    /// Freezes (or unfreezes) the figures shown, showing the change at once ([`Command::Pause`]).
    fn pause(&mut self, pause: bool) {
        if pause != self.paused {
            self.paused = pause;
            self.frozen.clear();
            self.publish(Instant::now(), true);
        }
    }

    /// Makes the figures of `now` (the Redis writer is handed its HyperLogLogs whatever happens);
    /// they replace those shown unless the view is frozen ([`Command::Pause`]) and not `forced`
    /// (a command's effect, the last figures).
    fn publish(&mut self, now: Instant, forced: bool) {
        self.published = self.published.saturating_add(1);
        if let Some(n) = self.panic_after.filter(|&n| self.published > n) {
            panic!("{PANIC_AFTER_VAR}: the ingest thread panics on purpose after {n} snapshots");
        }
        let mut snap = self.figures(now, self.window);
        // REDIS HOOK: hand the HyperLogLogs to the Redis writer, show its state.
        if let Some(r) = self.redis.as_mut() {
            r.refresh(now, self.fleet.as_ref());
            snap.redis = Some(r.status());
        }
        if self.paused && !forced {
            return;
        }
        let snap = Arc::new(snap);
        if self.paused && self.fleet.is_none() {
            // The other windows of the same moment, for a switch while paused.
            self.frozen = crate::window::Window::ALL
                .into_iter()
                .map(|w| {
                    if w == self.window {
                        return (w, Arc::clone(&snap));
                    }
                    let mut other = self.figures(now, w);
                    other.redis.clone_from(&snap.redis);
                    (w, Arc::new(other))
                })
                .collect();
        }
        self.show(snap);
    }

    /// Shows `snap`: it becomes the latest figures.
    fn show(&self, snap: Arc<Snapshot>) {
        if let Ok(mut latest) = self.latest.lock() {
            *latest = snap;
        }
        self.changed.notify_all();
    }

    /// The figures of `now` over `window` (the fleet's in device mode, which has no windows),
    /// without the Redis writer's state.
    fn figures(&mut self, now: Instant, window: crate::window::Window) -> Snapshot {
        let mut snap = Snapshot {
            source: self.label.clone(),
            finished: self.finished.clone(),
            burst: self.burst.clone(),
            paused: self.paused,
            elapsed: self
                .ended
                .unwrap_or(now)
                .saturating_duration_since(self.started),
            throughput: self.meter.stats(),
            save_error: self.save_error.clone(),
            keyed: self.keyed,
            follow: self
                .follows
                .iter()
                .map(|(file, status)| {
                    let (waiting, rotations, truncations) = status.counts();
                    crate::snapshot::Followed {
                        file: file.clone(),
                        waiting,
                        rotations,
                        truncations,
                    }
                })
                .collect(),
            ..Snapshot::default()
        };
        if self.fleet.is_none() {
            // Intervals close on time, input or not.
            self.engine.advance(self.time());
            self.engine.fill_window(&mut snap, window);
        }
        if let Some(f) = &self.fleet {
            f.stats(now).fill(&mut snap);
        }
        // Past the end, the rates are the reading's averages, as the summary's (they went on
        // falling to 0/s while the clock had stopped).
        if self.ended.is_some() {
            snap.average_rates();
        }
        snap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits until `cond` holds, polling; fails after `limit` (a guard against a hang, not a
    /// timing assertion: on a loaded machine the condition just takes longer).
    fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
        let start = Instant::now();
        while !cond() {
            if start.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        true
    }

    /// A directory of this test's own, `tui-demo-NAME-PID` under the system's, with a file `log`
    /// holding `text`: (the directory, the file).
    fn temp_log(name: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("tui-demo-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("log");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn a_panic_in_the_ingest_thread_is_reported_not_hung() {
        let handle = spawn_with(
            &SourceSpec::Synthetic { seed: 3 },
            EngineOptions::default(),
            0,
            None,
            Some(2),
        )
        .unwrap();
        assert!(
            wait_until(Duration::from_secs(60), || !handle.alive()),
            "the ingest thread should have panicked after two snapshots"
        );
        // The last snapshot is still there for the UI (the lock is not poisoned), the source
        // stops once ingest is gone, and the panic's message comes back from `finish`.
        let last = handle.snapshot();
        assert!(last.totals.lines > 0, "{:?}", last.totals);
        assert!(wait_until(Duration::from_secs(60), || handle
            .control
            .stop
            .load(Ordering::Relaxed)
            || std::sync::Arc::strong_count(&handle.control) == 1));
        let message = handle.finish().unwrap_err();
        assert!(
            message.contains("panics on purpose after 2 snapshots"),
            "{message}"
        );
    }

    #[test]
    fn joined_reports_a_panic_message() {
        let n = 3;
        let formatted = std::thread::spawn(move || panic!("source broke after {n} lines"));
        assert_eq!(joined(formatted), Err("source broke after 3 lines".into()));
        let literal = std::thread::spawn(|| panic!("plain"));
        assert_eq!(joined(literal), Err("plain".into()));
        assert_eq!(joined(std::thread::spawn(|| {})), Ok(()));
    }

    #[test]
    fn the_windows_run_on_the_clock_ingest_is_given() {
        use crate::window::Window;
        let text: String = (0..1_000).map(|i| format!("line {}\n", i % 37)).collect();
        let (dir, path) = temp_log("clock", &text);
        let clock = crate::clock::ManualClock::default();
        clock.set(Duration::from_secs(3));
        // Followed: the input does not end (at its end, the run's time stops: tested below).
        let handle = spawn_clocked(
            &SourceSpec::Lines(vec![source::Input::Follow(path)]),
            EngineOptions::default(),
            None,
            Box::new(clock.clone()),
        )
        .unwrap();
        let limit = Duration::from_secs(60);
        assert!(wait_until(limit, || handle.snapshot().totals.lines == 1_000));
        // All of it was read at 0 s of the run's time (the clock said 3 s at the start). Two
        // minutes on, the last minute holds nothing; since start still holds all of it.
        clock.set(Duration::from_secs(123));
        handle.send(Command::Window(Window::Min1));
        assert!(wait_until(limit, || {
            let s = handle.snapshot();
            s.window.as_ref().is_some_and(|w| w.window == Window::Min1) && s.totals.lines == 0
        }));
        let w = handle.snapshot().window.clone().unwrap();
        assert_eq!(w.lines[0], 1_000, "the first interval held every line");
        assert_eq!(
            w.covered,
            Duration::from_secs(60),
            "intervals 4 (60 s) to 8 (open at 120 s)"
        );
        handle.send(Command::Window(Window::All));
        assert!(wait_until(limit, || handle.snapshot().totals.lines == 1_000));
        assert_eq!(handle.finish(), Ok(()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// When the input ends, the windows' time stops with the run's clock: the last minute is the
    /// last minute of the reading. Found by a user test: the header's clock stopped at END OF
    /// INPUT while the windows went on ageing until every one was empty.
    #[test]
    fn the_windows_stop_when_the_input_ends() {
        use crate::window::Window;
        let text: String = (0..1_000).map(|i| format!("line {}\n", i % 37)).collect();
        let (dir, path) = temp_log("clock-end", &text);
        let clock = crate::clock::ManualClock::default();
        let handle = spawn_clocked(
            &SourceSpec::Lines(vec![source::Input::File(path)]),
            EngineOptions::default(),
            None,
            Box::new(clock.clone()),
        )
        .unwrap();
        let limit = Duration::from_secs(60);
        assert!(wait_until(limit, || handle.snapshot().finished.is_some()));
        // Two minutes on the clock after the end: the last minute still holds the reading's.
        clock.set(Duration::from_secs(120));
        handle.send(Command::Window(Window::Min1));
        assert!(wait_until(limit, || {
            handle
                .snapshot()
                .window
                .as_ref()
                .is_some_and(|w| w.window == Window::Min1)
        }));
        let s = handle.snapshot();
        assert_eq!(s.totals.lines, 1_000, "{:?}", s.window);
        assert_eq!(s.window.as_ref().unwrap().lines.iter().sum::<u64>(), 1_000);
        assert_eq!(handle.finish(), Ok(()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn wait_finished_is_woken_when_the_input_ends() {
        // A headless report waits on this: the snapshot saying the input is over wakes it, where a
        // report polled every 5 ms (an empty input took 8.6 ms, 5 of them asleep).
        let (dir, path) = temp_log("wake", "a\nb\n");
        let spec = |input| SourceSpec::Lines(vec![input]);
        let handle = spawn_with(
            &spec(source::Input::File(path.clone())),
            EngineOptions::default(),
            0,
            None,
            None,
        )
        .unwrap();
        // A wait the publication does not wake lasts all of its timeout (and then finds the run
        // finished); the wake takes milliseconds, however loaded the machine.
        let limit = Duration::from_secs(60);
        let start = Instant::now();
        assert!(handle.wait_finished(limit));
        assert!(start.elapsed() < limit, "not woken by the publication");
        assert_eq!(handle.snapshot().totals.lines, 2);
        // The run's time stops where the input ended (a user test: a live view left open after
        // the end of its input gave a summary of 25.0k lines/s for 4.55M).
        let before = handle.snapshot();
        std::thread::sleep(Duration::from_millis(300));
        handle.send(Command::Window(crate::window::Window::All));
        assert!(wait_until(limit, || !Arc::ptr_eq(
            &handle.snapshot(),
            &before
        )));
        assert_eq!(handle.snapshot().elapsed, before.elapsed);
        // And the rates with it: the reading's averages, no more samples (a user test saw
        // 4.51M/s, then 926.3k/s, then 0/s, the clock at 0:00).
        let after = handle.snapshot();
        let averaged = 2.0 / after.elapsed.as_secs_f64().max(1e-9);
        assert!((after.throughput.lines_per_sec - averaged).abs() < 1e-6 * averaged);
        assert_eq!(after.throughput.history, before.throughput.history);
        assert_eq!(handle.finish(), Ok(()));
        // A followed file never ends: the wait gives up at its timeout.
        let handle = spawn_with(
            &spec(source::Input::Follow(path)),
            EngineOptions::default(),
            0,
            None,
            None,
        )
        .unwrap();
        assert!(!handle.wait_finished(Duration::from_millis(50)));
        assert_eq!(handle.finish(), Ok(()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `listen 127.0.0.1:0 --redis …`: the keys are named after the port the system gave (a user
    /// test found them under `HOST:0`, where two such hosts write over each other's keys).
    #[test]
    fn a_listener_on_port_0_names_its_redis_keys_after_its_port() {
        use crate::redis_sink::{RedisOptions, RedisSink, RedisTarget};
        let opts = crate::args::Options {
            source: SourceSpec::Device("127.0.0.1:0".parse().unwrap()),
            // Nothing listens on port 1: the name is what is checked, not a write.
            redis: Some(Box::new(RedisOptions {
                target: RedisTarget::parse_with("redis://127.0.0.1:1", None).unwrap(),
                name: None,
            })),
            ..crate::args::Options::default()
        };
        let sink = RedisSink::from_options(&opts).unwrap();
        let handle = spawn(&opts.source, opts.engine_options(), 0, None, None, sink).unwrap();
        let limit = Duration::from_secs(60);
        assert!(wait_until(limit, || handle.snapshot().redis.is_some()));
        let snap = handle.snapshot();
        let port = snap.source.rsplit(':').next().unwrap().to_string();
        assert_ne!(port, "0", "{}", snap.source);
        let prefix = &snap.redis.as_ref().unwrap().prefix;
        assert!(
            prefix.ends_with(&format!(":{port}")),
            "{prefix} for {}",
            snap.source
        );
        let _ = handle.finish();
    }

    /// The rate shown is the mean of the last 2 s: a followed log written in bursts of 5 lines
    /// once a second reads 5/s, not 20/s and 0/s in turn (a user test), and the peak stays at or
    /// above it.
    #[test]
    fn a_bursty_log_shows_its_mean_rate() {
        let mut m = Meter::new();
        let start = m.since;
        for tick in 1..=32u32 {
            if tick % 4 == 1 {
                m.add(5, 400);
            }
            m.tick(start + SAMPLE_EVERY * tick);
            let t = m.stats();
            if tick >= 8 {
                assert!(
                    (t.lines_per_sec - 5.0).abs() < 1e-9 && (t.bytes_per_sec - 400.0).abs() < 1e-9,
                    "{tick}: {t:?}"
                );
            }
            assert!(t.peak as f64 >= t.lines_per_sec.round(), "{tick}: {t:?}");
            // Nor does the peak read 20/s, a quarter second's rate ("5/s · peak 20").
            if tick >= 8 {
                assert_eq!(t.peak, 5, "{tick}: {t:?}");
            }
        }
    }

    #[test]
    fn the_peak_rate_is_never_below_the_rate_shown() {
        let mut m = Meter::new();
        m.add(155, 0);
        m.tick(m.since + Duration::from_secs(2));
        let t = m.stats();
        assert_eq!((t.lines_per_sec, t.peak), (77.5, 78));
    }

    #[test]
    fn a_pause_freezes_the_figures_while_counting_goes_on() {
        // Found by a user test: a pause stopped reading a followed file, which a copytruncate
        // then cut under the stopped reader (57,870 lines counted of 300,110). Now the figures
        // shown freeze and the file is still read; a command's effect is shown at once.
        let (dir, path) = temp_log("pause", &"a\n".repeat(100));
        let handle = spawn_with(
            &SourceSpec::Lines(vec![source::Input::Follow(path.clone())]),
            EngineOptions::default(),
            0,
            None,
            None,
        )
        .unwrap();
        let limit = Duration::from_secs(60);
        let lines = |h: &Handle| h.snapshot().totals.lines;
        assert!(wait_until(limit, || lines(&handle) == 100));
        handle.send(Command::Pause(true));
        assert!(wait_until(limit, || handle.snapshot().paused));
        let append = |n: usize| {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all("b\n".repeat(n).as_bytes()).unwrap();
        };
        append(5_000);
        // Frozen: half a second of publications (every 250 ms) later, the same figures.
        std::thread::sleep(Duration::from_millis(600));
        assert_eq!(lines(&handle), 100, "the figures froze");
        // Switching windows while paused shows each window as it was when the view froze, not
        // the newer figures (it showed them: the screen jumped on `w`).
        use crate::window::Window;
        let shown = |h: &Handle| h.snapshot().window.as_ref().map(|w| w.window);
        for w in [Window::Min1, Window::Min15, Window::All] {
            handle.send(Command::Window(w));
            assert!(wait_until(limit, || shown(&handle) == Some(w)));
            let snap = handle.snapshot();
            assert!(snap.paused);
            assert_eq!(snap.totals.lines, 100, "{w:?} as of the pause");
        }
        // Yet counted: unpaused, the figures are of the moment (the file was read meanwhile).
        handle.send(Command::Pause(false));
        assert!(wait_until(limit, || lines(&handle) == 5_100));
        handle.send(Command::Pause(true));
        assert!(wait_until(limit, || handle.snapshot().paused));
        // Truncated while paused (copytruncate), then written again: nothing is missed.
        std::fs::write(&path, "").unwrap();
        append(7);
        handle.send(Command::Pause(false));
        assert!(wait_until(limit, || lines(&handle) == 5_107));
        assert!(!handle.snapshot().paused);
        assert_eq!(handle.finish(), Ok(()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn intervals_close_on_the_clock_while_the_input_stalls() {
        // A followed file that stops growing: the source neither sends lines nor ends, and no
        // command comes in. The interval must still close when the clock passes its end.
        let text: String = (0..500).map(|i| format!("line {}\n", i % 37)).collect();
        let (dir, path) = temp_log("stall", &text);
        let clock = crate::clock::ManualClock::default();
        let handle = spawn_clocked(
            &SourceSpec::Lines(vec![source::Input::Follow(path)]),
            EngineOptions::default(),
            None,
            Box::new(clock.clone()),
        )
        .unwrap();
        let limit = Duration::from_secs(60);
        assert!(wait_until(limit, || handle.snapshot().totals.lines == 500));
        let held = |h: &Handle| h.snapshot().window.as_ref().map_or(0, |w| w.held);
        assert_eq!(held(&handle), 1, "only the open interval at 0 s");
        assert!(
            handle.snapshot().finished.is_none(),
            "a followed file never ends"
        );
        // 31 s on the clock: intervals 0 (0–15 s) and 1 (15–30 s) have closed with no input, and
        // interval 2 is open.
        clock.set(Duration::from_secs(31));
        assert!(wait_until(limit, || held(&handle) == 3));
        let w = handle.snapshot().window.clone().unwrap();
        assert_eq!(
            w.lines.first(),
            Some(&500),
            "the first interval held every line"
        );
        assert_eq!(handle.finish(), Ok(()));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn finish_stops_a_healthy_thread() {
        let handle = spawn_with(
            &SourceSpec::Synthetic { seed: 3 },
            EngineOptions::default(),
            1_000,
            None,
            None,
        )
        .unwrap();
        assert!(handle.alive());
        assert_eq!(handle.finish(), Ok(()));
    }
}
