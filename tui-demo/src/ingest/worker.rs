//! The sketch worker: a second thread for the windows' sketches.
//!
//! A batch's lines go through two kinds of state that never touch each other: the windows' ring
//! (each interval's HyperLogLog and Space-Saving summary, more than half of a line's cost) with the
//! micro filter ([`Tallies`]; the micro filter rides here to balance the two threads), and the
//! rest (the exact table, the dedupe filter, the counters). Once the engine has made a
//! batch's keys ([`Keys`]: each key's bytes and hash, in input order), it hands them to the worker
//! thread, which counts them in the ring, and runs the rest over the same keys itself; then it
//! goes on to the next batch while the worker may still be at this one (at most two batches are
//! with it). The worker does its jobs in the order sent, moving the ring's time
//! ([`Windows::advance`]) between batches as the engine would; every other use of the ring
//! ([`Windows::lock`]: a snapshot, a save, a small batch) first waits until the worker is done. So
//! both halves see every key in input order and every answer is the one a single thread gives.
//!
//! A small batch (a followed file's few new lines) is counted on the engine's thread: handing it
//! over would cost more than it saves.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use sketch_nostd::hash::hash64;

use super::engine::MicroRing;
use super::ring::{Counters, Ring};
use super::SEED;
use crate::source::{Batch, Line};

/// Keys a batch needs for its windows' share to go to the worker thread. Handing a batch over
/// costs two channel messages and a thread wake-up (some microseconds); 256 keys take about
/// 50 µs of the ring's time.
pub const PARALLEL_KEYS: usize = 256;

/// What the sketch worker counts a batch's keys in: the windows' ring and the micro filter.
#[derive(Clone, Debug)]
pub struct Tallies {
    /// The windows' ring.
    pub ring: Ring,
    /// The micro filter and the recent keys it stands in front of.
    pub micro: MicroRing,
}

impl Tallies {
    /// Moves the ring to the run's time `now` ([`Ring::advance`]), recording `counters` (the
    /// engine's, whose micro filter counts are kept here: they are taken from here).
    fn advance(&mut self, now: Duration, counters: &mut Counters) {
        counters.micro = self.micro.counters();
        self.ring.advance(now, counters);
    }
}

/// The windows' ring and the micro filter ([`Tallies`]), shared with the worker thread, and the
/// engine's side of the worker. Every use of them ([`lock`](Self::lock)) first waits for the
/// batches the worker holds. A clone is a copy of them, without a thread (it starts its own).
pub struct Windows {
    tallies: Arc<Mutex<Tallies>>,
    worker: RefCell<Worker>,
}

impl Windows {
    /// Shares `ring` (and a new micro filter).
    #[must_use]
    pub fn new(ring: Ring) -> Self {
        Self::of(Tallies {
            ring,
            micro: MicroRing::default(),
        })
    }

    fn of(tallies: Tallies) -> Self {
        Self {
            tallies: Arc::new(Mutex::new(tallies)),
            worker: RefCell::default(),
        }
    }

    /// The ring and the micro filter, once the worker thread has counted every batch it was
    /// given.
    ///
    /// # Panics
    /// If the worker thread panicked (the ring would miss some keys).
    pub fn lock(&self) -> MutexGuard<'_, Tallies> {
        let mut worker = self.worker.borrow_mut();
        worker.sync();
        let mut tallies = self.tallies.lock().unwrap_or_else(PoisonError::into_inner);
        for (now, mut counters) in worker.advances.drain(..) {
            tallies.advance(now, &mut counters);
        }
        tallies
    }

    /// Empty keys for the next batch (the buffers of a batch counted before).
    pub fn take_keys(&self) -> Keys {
        let mut keys = self.worker.borrow_mut().spare.pop().unwrap_or_default();
        keys.clear();
        keys
    }

    /// Moves the ring to the run's time `now` ([`Ring::advance`]), after the batches the worker
    /// holds: if it holds any, the move waits to go with the next batch (the worker makes it
    /// before counting that batch) or to the next [`lock`](Self::lock), so it costs no message and
    /// no wake-up of its own.
    pub fn advance(&self, now: Duration, counters: &Counters) {
        let mut worker = self.worker.borrow_mut();
        if worker.in_flight > 0 {
            worker.advances.push((now, Box::new(counters.clone())));
        } else {
            drop(worker);
            self.lock().advance(now, &mut counters.clone());
        }
    }

    /// Counts `keys` (of `batch`) in the ring: a large batch on the worker thread, which may still
    /// be at it when this returns (at most two batches are with it), a small one here and now.
    /// The keys come back for the caller's own pass over them.
    pub fn count(&self, batch: &Arc<Batch>, keys: Keys) -> Arc<Keys> {
        let keys = Arc::new(keys);
        let mut worker = self.worker.borrow_mut();
        if keys.len() >= worker.threshold() {
            if worker.thread.is_none() {
                worker.thread = spawn(&self.tallies);
            }
            if worker.thread.is_some() {
                while worker.in_flight >= IN_FLIGHT {
                    worker.wait_one();
                }
                let advances = std::mem::take(&mut worker.advances);
                worker.send(Job {
                    advances,
                    batch: Arc::clone(batch),
                    keys: Arc::clone(&keys),
                });
                return keys;
            }
        }
        drop(worker);
        keys.count_in(&mut self.lock(), batch);
        keys
    }

    /// Keys a batch needs to go to the worker thread ([`PARALLEL_KEYS`] unless set); `usize::MAX`
    /// keeps every batch on the engine's thread.
    pub fn set_parallel_keys(&self, n: usize) {
        self.worker.borrow_mut().parallel_keys = n;
    }

    /// Whether the worker thread has started.
    #[must_use]
    pub fn is_threaded(&self) -> bool {
        self.worker.borrow().thread.is_some()
    }
}

impl Clone for Windows {
    fn clone(&self) -> Self {
        let copy = Self::of(self.lock().clone());
        copy.set_parallel_keys(self.worker.borrow().parallel_keys);
        copy
    }
}

impl fmt::Debug for Windows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.lock().fmt(f)
    }
}

/// One key of a batch: where its bytes are and its hash (16 bytes: a batch holds one per line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// Its bytes: `start..end` of the batch's data, or of the keys' own buffer if [`MADE`] is set
    /// in `start`.
    start: u32,
    end: u32,
    /// `hash64(key, SEED)` of all of the key.
    pub hash: u64,
}

/// The flag of `Key::start` for a key in the keys' own buffer (offsets stay far below 2^31: a
/// batch holds at most a read buffer's worth of text).
const MADE: u32 = 1 << 31;

impl Key {
    fn made(&self) -> bool {
        self.start & MADE != 0
    }

    fn range(&self) -> Range<usize> {
        (self.start & !MADE) as usize..self.end as usize
    }
}

/// The keys of a batch, in input order, and the `--value-field` values to count with them.
#[derive(Clone, Debug, Default)]
pub struct Keys {
    keys: Vec<Key>,
    /// The bytes of the keys made of fields, a regex capture or a JSON value.
    made: Vec<u8>,
    /// Where a key is made before it is kept.
    scratch: Vec<u8>,
    values: Vec<f64>,
    /// The length of all of a streamed long line's key (its batch's only key), of which the
    /// batch holds only the start.
    long: Option<u64>,
}

impl Keys {
    /// Empties it, keeping its allocations.
    fn clear(&mut self) {
        self.keys.clear();
        self.made.clear();
        self.values.clear();
        self.long = None;
    }

    /// A key that is `range` of `line`'s bytes, `len` bytes long in all (more than the range for
    /// a streamed long line).
    pub fn of_line(&mut self, line: &Line, range: Range<usize>, hash: u64, len: u64) {
        let at = line.start as usize;
        if len != range.len() as u64 {
            self.long = Some(len);
        }
        self.keys.push(Key {
            start: (at + range.start) as u32,
            end: (at + range.end) as u32,
            hash,
        });
    }

    /// The length in bytes of all of `key` (for a streamed long line, more than it shows).
    #[must_use]
    pub fn key_len(&self, key: &Key) -> u64 {
        self.long.unwrap_or(key.range().len() as u64)
    }

    /// The buffer a key is made in before [`made`](Self::made) keeps it.
    pub fn scratch(&mut self) -> &mut Vec<u8> {
        &mut self.scratch
    }

    /// Keeps the key made in [`scratch`](Self::scratch), hashed.
    pub fn made(&mut self) {
        let start = self.made.len();
        self.made.extend_from_slice(&self.scratch);
        self.keys.push(Key {
            start: start as u32 | MADE,
            end: self.made.len() as u32,
            hash: hash64(self.scratch.as_slice(), SEED),
        });
    }

    /// A `--value-field` value of the batch.
    pub fn value(&mut self, x: f64) {
        self.values.push(x);
    }

    /// The keys, in input order.
    pub fn iter(&self) -> std::slice::Iter<'_, Key> {
        self.keys.iter()
    }

    /// How many keys.
    #[must_use]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The bytes of `key`, a key of these keys made from `batch`.
    #[must_use]
    pub fn shown<'a>(&'a self, batch: &'a Batch, key: &Key) -> &'a [u8] {
        let from = if key.made() { &self.made } else { &batch.data };
        from.get(key.range()).unwrap_or_default()
    }

    /// Counts the keys and values in the ring's open interval, and the keys in the micro filter.
    fn count_in(&self, tallies: &mut Tallies, batch: &Batch) {
        let ring = &mut tallies.ring;
        for k in &self.keys {
            let shown = self.shown(batch, k);
            ring.line(shown, self.key_len(k) > shown.len() as u64, k.hash);
        }
        for &x in &self.values {
            ring.value(x);
        }
        tallies.micro.keys(self.keys.iter().map(|k| k.hash));
    }
}

/// Batches the worker thread may hold at once (each holds its batch's memory). Only batches
/// count: the moves of the ring's time between them ride along with them.
const IN_FLIGHT: usize = 2;

/// A batch for the worker thread, done in the order sent: the ring's moves in time the engine made
/// since the last batch it sent ([`Ring::advance`] with its counters of that moment), then the
/// batch's keys.
struct Job {
    advances: Vec<(Duration, Box<Counters>)>,
    batch: Arc<Batch>,
    keys: Arc<Keys>,
}

/// The worker thread's end of the engine: jobs go one way, and each comes back done (with the
/// keys, for their buffers).
struct Thread {
    jobs: Sender<Job>,
    done: Receiver<Arc<Keys>>,
}

/// The engine's side of the sketch worker: the thread (started with the first large batch), the
/// jobs it holds, and the keys' buffers between batches.
#[derive(Default)]
struct Worker {
    thread: Option<Thread>,
    /// Jobs sent and not yet done.
    in_flight: usize,
    /// The ring's moves in time made while the thread held batches, not yet sent or made.
    advances: Vec<(Duration, Box<Counters>)>,
    /// Batches' keys, kept for their allocations.
    spare: Vec<Keys>,
    /// Keys a batch needs to go to the thread (0: [`PARALLEL_KEYS`]).
    parallel_keys: usize,
}

impl Worker {
    fn threshold(&self) -> usize {
        if self.parallel_keys == 0 {
            PARALLEL_KEYS
        } else {
            self.parallel_keys
        }
    }

    /// Sends a job to the thread.
    ///
    /// # Panics
    /// If the thread is gone (it panicked on an earlier job).
    fn send(&mut self, job: Job) {
        let sent = self.thread.as_ref().map(|t| t.jobs.send(job));
        if !matches!(sent, Some(Ok(()))) {
            self.thread = None;
            panic!("the sketch worker thread stopped: the windows miss some lines");
        }
        self.in_flight += 1;
    }

    /// Waits for the oldest job the thread holds.
    ///
    /// # Panics
    /// If the thread panicked.
    fn wait_one(&mut self) {
        match self.thread.as_ref().map(|t| t.done.recv()) {
            Some(Ok(keys)) => {
                self.in_flight -= 1;
                // The thread dropped the batch; the engine's pass over the keys is over.
                if let Ok(keys) = Arc::try_unwrap(keys) {
                    if self.spare.len() <= IN_FLIGHT {
                        self.spare.push(keys);
                    }
                }
            }
            _ => {
                self.thread = None;
                self.in_flight = 0;
                panic!("the sketch worker thread stopped: the windows miss some lines");
            }
        }
    }

    /// Waits for every job the thread holds.
    fn sync(&mut self) {
        while self.in_flight > 0 {
            self.wait_one();
        }
    }
}

/// Starts the worker thread on the windows' ring and the micro filter; `None` if no thread can
/// start (every batch is then counted on the engine's thread).
fn spawn(tallies: &Arc<Mutex<Tallies>>) -> Option<Thread> {
    let (jobs, rx) = channel::<Job>();
    let (tx, done) = channel();
    let tallies = Arc::clone(tallies);
    std::thread::Builder::new()
        .name("sketches".into())
        .spawn(move || {
            // Ends when the engine drops its sender (the engine is gone or was reset).
            while let Ok(mut job) = rx.recv() {
                let mut t = tallies.lock().unwrap_or_else(PoisonError::into_inner);
                for (now, counters) in &mut job.advances {
                    t.advance(*now, counters);
                }
                job.keys.count_in(&mut t, &job.batch);
                drop(t);
                drop(job.batch);
                if tx.send(job.keys).is_err() {
                    return;
                }
            }
        })
        .ok()?;
    Some(Thread { jobs, done })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_show_their_bytes_and_know_their_whole_length() {
        let mut batch = Batch::default();
        batch.push(b"  alpha ");
        batch.push(b"beta");
        let mut keys = Keys::default();
        let lines = batch.lines.clone();
        keys.of_line(&lines[0], 2..7, 1, 5);
        keys.scratch().extend_from_slice(b"made key");
        keys.made();
        keys.of_line(&lines[1], 0..4, 2, 4);
        let got: Vec<(&[u8], u64, u64)> = keys
            .iter()
            .map(|k| (keys.shown(&batch, k), k.hash, keys.key_len(k)))
            .collect();
        let made_hash = hash64(&b"made key"[..], SEED);
        assert_eq!(
            got,
            [
                (&b"alpha"[..], 1, 5),
                (b"made key", made_hash, 8),
                (b"beta", 2, 4)
            ]
        );
        // A streamed long line (its batch's only key): the bytes kept, the length of all of it.
        keys.clear();
        keys.of_line(&lines[1], 0..4, 3, 1 << 40);
        let k = keys.iter().next().copied().unwrap();
        assert_eq!(
            (keys.shown(&batch, &k), keys.key_len(&k)),
            (&b"beta"[..], 1 << 40)
        );
        keys.clear();
        keys.of_line(&lines[1], 0..4, 3, 4);
        let k = keys.iter().next().copied().unwrap();
        assert_eq!(keys.key_len(&k), 4, "cleared");
    }
}
