//! `--emit N`: a fleet of simulated devices on this machine.
//!
//! Each device reads its own synthetic access log (the same clients and paths as the others, its own
//! random stream), counts it with the `no_std` sketches exactly as firmware would (fixed-size values,
//! no heap inside the sketches, each sketch's own `insert`): a Bloom filter, a count-min sketch, a
//! HyperLogLog and a Space-Saving heavy-hitter summary, and with `--value-field N` a quantile sketch
//! of field N ([`SimDevice`]). Every `--period` it sends
//! each sketch as a [`Frame`] (device id, sequence number, CRC-32, COBS) in one UDP datagram from its
//! own socket. Frames go to loopback addresses only. `--corrupt P` flips one bit in that fraction of the
//! frames, so the receiver's refusals can be watched.

use std::io::{self, IsTerminal, Write};
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sketch_nostd::wire::{self, Frame, Wire};
use sketch_nostd::{RedisHll, WireError};

use crate::device::{DeviceDistinct, DeviceFreq, DeviceSeen, DeviceTop, DeviceValues, DEVICE_SEED};
use crate::human::{bytes, count, count_of};
use crate::source::synthetic::Generator;
use crate::source::zipf::{self, Rng};

/// What `--emit` was asked to do.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitOptions {
    /// Number of devices.
    pub devices: u32,
    /// Where to send (a loopback address).
    pub to: SocketAddr,
    /// Lines per second per device.
    pub rate: u64,
    /// Time between two sends of a device.
    pub period: Duration,
    /// Fraction of frames corrupted on purpose.
    pub corrupt: f64,
    /// Stop after this long.
    pub seconds: Option<f64>,
    /// Seed of the devices' logs.
    pub seed: u64,
    /// `--value-field N`: each device also sends a quantile sketch of field N of its lines.
    pub value_field: Option<u16>,
    /// The first device's id; the others follow (`--first-id`).
    pub first_id: u64,
}

/// What was sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EmitTotals {
    /// Lines the devices counted.
    pub lines: u64,
    /// Frames sent.
    pub frames: u64,
    /// Frames corrupted on purpose.
    pub corrupted: u64,
    /// Bytes sent.
    pub bytes: u64,
    /// Sends that failed (nobody listening is not an error for UDP; a full buffer may be).
    pub send_errors: u64,
}

/// One simulated device without its network: its log, its sketches, its sequence number. What it
/// sends is [`frames`](Self::frames), so tests can hand a device's frames to the host directly.
pub struct SimDevice {
    id: u64,
    log: Generator,
    /// The device's anti-spam filter: lines seen since it was last cleared.
    seen: Box<DeviceSeen>,
    /// How often each line was seen.
    freq: Box<DeviceFreq>,
    /// How many distinct lines it saw: Redis-compatible, sent as its `Hll14`
    /// ([`DeviceDistinct`]). It was a `DeviceDistinct` itself.
    distinct: Box<RedisHll>,
    /// Its heavy hitters.
    top: Box<DeviceTop>,
    /// `--value-field N`: the field (from 1) and its quantile sketch.
    values: Option<(u16, Box<DeviceValues>)>,
    seq: u32,
    line: Vec<u8>,
}

impl SimDevice {
    /// Device `id` (numbered from 1) of a fleet whose logs are seeded with `seed`: its log is
    /// `base` forked for this device, as [`run`] does.
    #[must_use]
    pub fn new(id: u64, seed: u64, base: &Generator) -> Self {
        Self {
            id,
            log: base.fork(seed ^ id.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            seen: Box::new(DeviceSeen::with_seed(DEVICE_SEED)),
            freq: Box::new(DeviceFreq::with_seed(DEVICE_SEED)),
            distinct: Box::new(RedisHll::new()),
            top: Box::new(DeviceTop::new()),
            values: None,
            seq: 0,
            line: Vec::with_capacity(160),
        }
    }

    /// The same device, also keeping a quantile sketch of field `number` (from 1) of its lines
    /// as a number (lines without one are not counted in it), sent in a fifth frame.
    #[must_use]
    pub fn with_value_field(mut self, number: u16) -> Self {
        self.values = Some((number, Box::new(DeviceValues::new())));
        self
    }

    /// Reads and counts the next `n` lines of the device's log; `each` sees every line.
    pub fn count_lines(&mut self, n: u64, mut each: impl FnMut(&[u8])) {
        for _ in 0..n {
            self.line.clear();
            self.log.next_line(&mut self.line);
            let line = self.line.as_slice();
            self.seen.insert(line);
            self.freq.increment(line);
            self.distinct.insert(line);
            self.top.increment(line);
            if let Some((n, q)) = self.values.as_mut() {
                if let Some(v) = crate::ingest::values::ValueField::parse(line, *n) {
                    q.insert(v);
                }
            }
            each(line);
        }
        if self.seen.estimated_fp_rate() > 0.01 {
            self.seen.clear();
        }
    }

    /// The device's id.
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The frames of one send: each sketch in its own frame, with consecutive sequence numbers
    /// (four, five with a quantile sketch). Encoding cannot fail (the buffer fits the largest
    /// frame), but an error would be returned in its frame's place.
    pub fn frames(&mut self) -> Vec<Result<Vec<u8>, WireError>> {
        let mut buf = vec![0u8; FRAME_MAX];
        let (id, first) = (self.id, self.seq);
        self.seq = first.wrapping_add(4 + u32::from(self.values.is_some()));
        let mut frames = vec![
            encode(id, first, &*self.seen, &mut buf),
            encode(id, first.wrapping_add(1), &*self.freq, &mut buf),
            encode(
                id,
                first.wrapping_add(2),
                self.distinct.as_hll14(),
                &mut buf,
            ),
            encode(id, first.wrapping_add(3), &*self.top, &mut buf),
        ];
        if let Some((_, q)) = &self.values {
            frames.push(encode(id, first.wrapping_add(4), &**q, &mut buf));
        }
        frames
    }
}

/// One sketch in a frame, encoded from a reference: the sketch is not cloned.
fn encode<T: Wire>(
    device: u64,
    seq: u32,
    sketch: &T,
    buf: &mut [u8],
) -> Result<Vec<u8>, WireError> {
    wire::encode_frame(device, seq, sketch, buf).map(|b| b.to_vec())
}

/// The largest frame a device sends.
const FRAME_MAX: usize = {
    let a = Frame::<DeviceSeen>::MAX_ENCODED_LEN;
    let b = Frame::<DeviceFreq>::MAX_ENCODED_LEN;
    let c = Frame::<DeviceDistinct>::MAX_ENCODED_LEN;
    let d = Frame::<DeviceTop>::MAX_ENCODED_LEN;
    let e = Frame::<DeviceValues>::MAX_ENCODED_LEN;
    let ab = if a > b { a } else { b };
    let cd = if c > d { c } else { d };
    let abcd = if ab > cd { ab } else { cd };
    if abcd > e {
        abcd
    } else {
        e
    }
};

/// One simulated device on the network: the device, its socket, its schedule.
struct Device {
    sim: SimDevice,
    socket: UdpSocket,
    next_send: Instant,
    owed: f64,
}

/// Runs the fleet until `--seconds` pass or `stop` is set; reports progress on `status`.
///
/// # Errors
/// When a socket cannot be opened; send failures are counted, not fatal.
pub fn run(o: &EmitOptions, stop: &AtomicBool, status: &mut dyn Write) -> io::Result<EmitTotals> {
    if !o.to.ip().is_loopback() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the device simulator only sends to loopback addresses",
        ));
    }
    let base = Generator::new(o.seed);
    let start = Instant::now();
    let bind: SocketAddr = if o.to.is_ipv4() {
        ([127, 0, 0, 1], 0).into()
    } else {
        (std::net::Ipv6Addr::LOCALHOST, 0).into()
    };
    let mut devices = Vec::with_capacity(o.devices as usize);
    for i in 0..u64::from(o.devices) {
        let sim = SimDevice::new(o.first_id.saturating_add(i), o.seed, &base);
        devices.push(Device {
            sim: match o.value_field {
                Some(n) => sim.with_value_field(n),
                None => sim,
            },
            socket: UdpSocket::bind(bind)?,
            // Stagger the first sends over one period.
            next_send: start + o.period.mul_f64((i as f64 + 1.0) / f64::from(o.devices)),
            owed: 0.0,
        });
    }
    let mut rng = zipf::rng(o.seed ^ 0xc0ff_ee00);
    let mut totals = EmitTotals::default();
    let deadline = crate::clock::deadline(start, o.seconds);
    let interactive = io::stderr().is_terminal();
    let mut last_tick = start;
    let mut next_status = start + Duration::from_secs(1);
    while !stop.load(Ordering::Relaxed) && deadline.is_none_or(|d| Instant::now() < d) {
        std::thread::sleep(Duration::from_millis(10));
        let now = Instant::now();
        let dt = now.duration_since(last_tick).as_secs_f64().min(0.5);
        last_tick = now;
        for d in &mut devices {
            d.owed += o.rate as f64 * dt;
            let n = d.owed as u64;
            d.owed -= n as f64;
            d.sim.count_lines(n, |_| {});
            totals.lines += n;
            if now < d.next_send {
                continue;
            }
            d.next_send = now + o.period;
            // One frame per sketch, each in its own datagram.
            for frame in d.sim.frames() {
                send(o, &d.socket, frame, &mut rng, &mut totals);
            }
        }
        if interactive && now >= next_status {
            next_status = now + Duration::from_secs(1);
            let _ = write!(status, "\r{}", summary(o, &totals));
            let _ = status.flush();
        }
    }
    // The last interval: what was counted since each device's last send goes out too, so the
    // receiver ends with every line the devices counted.
    for d in &mut devices {
        for frame in d.sim.frames() {
            send(o, &d.socket, frame, &mut rng, &mut totals);
        }
    }
    let _ = writeln!(
        status,
        "{}{}",
        if interactive { "\r" } else { "" },
        summary(o, &totals)
    );
    Ok(totals)
}

/// Sends one encoded frame, corrupting it first if the dice say so.
fn send(
    o: &EmitOptions,
    socket: &UdpSocket,
    frame: Result<Vec<u8>, WireError>,
    rng: &mut Rng,
    totals: &mut EmitTotals,
) {
    let Ok(mut bytes) = frame else {
        totals.send_errors += 1;
        return;
    };
    if o.corrupt > 0.0 && rng.chance(o.corrupt) {
        let bit = rng.below(bytes.len() as u64 * 8);
        if let Some(b) = bytes.get_mut((bit / 8) as usize) {
            *b ^= 1 << (bit % 8);
        }
        totals.corrupted += 1;
    }
    match socket.send_to(&bytes, o.to) {
        Ok(n) => {
            totals.frames += 1;
            totals.bytes += n as u64;
        }
        Err(_) => totals.send_errors += 1,
    }
}

fn summary(o: &EmitOptions, t: &EmitTotals) -> String {
    format!(
        "{} → udp {}: {} lines counted, {} frames sent ({} corrupted on purpose), {}",
        count_of(u64::from(o.devices), "device"),
        o.to,
        count(t.lines),
        count(t.frames),
        count(t.corrupted),
        bytes(t.bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::fleet::Fleet;

    #[test]
    fn devices_send_frames_the_fleet_accepts_and_corruption_is_refused() {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        rx.set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let o = EmitOptions {
            devices: 3,
            to: rx.local_addr().unwrap(),
            // Small frames (a few KiB: about 30 lines per device, so the heavy-hitter summary
            // holds at most 30 lines): the whole run fits in the socket's receive buffer, so
            // nothing is dropped even if the receiving thread is slow to run.
            rate: 50,
            period: Duration::from_millis(50),
            corrupt: 0.3,
            seconds: Some(0.6),
            seed: 5,
            value_field: None,
            first_id: 1,
        };
        let stop = AtomicBool::new(false);
        let receiver = std::thread::spawn(move || {
            let mut fleet = Fleet::new();
            let mut buf = vec![0u8; 65_535];
            let mut n = 0;
            while let Ok((len, from)) = rx.recv_from(&mut buf) {
                fleet.datagram(from, &mut buf[..len], Instant::now());
                n += 1;
            }
            (fleet, n)
        });
        let totals = run(&o, &stop, &mut io::sink()).unwrap();
        let (fleet, received) = receiver.join().unwrap();
        let s = fleet.stats(Instant::now());
        assert!(totals.frames >= 3 * 5, "{totals:?}");
        assert_eq!(
            received, totals.frames,
            "loopback UDP delivers every datagram here"
        );
        assert_eq!(s.ok + s.bad, totals.frames);
        // A single flipped bit is always caught (CRC-32 detects every 1-bit error).
        assert_eq!(s.bad, totals.corrupted, "{:?}", s.errors);
        assert_eq!(s.rows.len(), 3);
        assert_eq!(
            s.lost, 0,
            "corrupted frames arrived: they are refused, not lost"
        );
        assert!(s.held_merged > 0.0 && s.held_merged <= s.held_sum + 1.0);
    }

    /// Two devices for 0.3 s with a period longer than the run, so the only send is the final
    /// one: the run's totals and what a host made of every datagram that arrived.
    fn one_final_send(value_field: Option<u16>) -> (EmitTotals, crate::snapshot::FleetStats) {
        let (mut totals, fleet) = final_sends(&[(1, 7)], value_field);
        (totals.remove(0), fleet)
    }

    /// [`one_final_send`] of one emitter per `(first_id, seed)`, one after the other to one host.
    fn final_sends(
        emitters: &[(u64, u64)],
        value_field: Option<u16>,
    ) -> (Vec<EmitTotals>, crate::snapshot::FleetStats) {
        let rx = UdpSocket::bind("127.0.0.1:0").unwrap();
        rx.set_read_timeout(Some(Duration::from_millis(300)))
            .unwrap();
        let totals: Vec<EmitTotals> = emitters
            .iter()
            .map(|&(first_id, seed)| {
                let o = EmitOptions {
                    devices: 2,
                    to: rx.local_addr().unwrap(),
                    rate: 200,
                    period: Duration::from_secs(3_600),
                    corrupt: 0.0,
                    seconds: Some(0.3),
                    seed,
                    value_field,
                    first_id,
                };
                let totals = run(&o, &AtomicBool::new(false), &mut io::sink()).unwrap();
                assert!(totals.lines > 0, "{totals:?}");
                totals
            })
            .collect();
        let mut fleet = Fleet::new();
        let mut buf = vec![0u8; 65_535];
        while let Ok((len, from)) = rx.recv_from(&mut buf) {
            fleet.datagram(from, &mut buf[..len], Instant::now());
        }
        (totals, fleet.stats(Instant::now()))
    }

    /// Two emitters feed one host, the second with `--first-id 3`: four devices of their own,
    /// none shared, whose lines add up (both numbered theirs 1 and 2, and the host mixed them: a
    /// user test).
    #[test]
    fn two_emitters_with_their_own_ids_feed_one_host() {
        let (totals, s) = final_sends(&[(1, 7), (3, 8)], None);
        let lines: u64 = totals.iter().map(|t| t.lines).sum();
        let ids: Vec<(u64, bool)> = s.rows.iter().map(|r| (r.id, r.shared)).collect();
        assert_eq!(ids, [(1, false), (2, false), (3, false), (4, false)]);
        assert_eq!(s.lines_merged, lines);
    }

    #[test]
    fn the_summary_counts_its_devices() {
        let mut o = EmitOptions {
            devices: 1,
            to: "127.0.0.1:9".parse().unwrap(),
            rate: 1,
            period: Duration::from_millis(500),
            corrupt: 0.0,
            seconds: None,
            seed: 1,
            value_field: None,
            first_id: 1,
        };
        // "1 devices" (a user test).
        assert!(summary(&o, &EmitTotals::default()).starts_with("1 device → udp 127.0.0.1:9: "));
        o.devices = 3;
        assert!(summary(&o, &EmitTotals::default()).starts_with("3 devices → "));
    }

    #[test]
    fn the_last_interval_is_sent() {
        // A defect once: lines counted after a device's last periodic send never left it. The
        // only send is the final one, and it carries every line.
        let (totals, s) = one_final_send(None);
        assert_eq!(s.ok, 2 * 4, "one send of four frames per device");
        assert_eq!(s.lines_merged, totals.lines);
    }

    #[test]
    fn with_a_value_field_every_line_s_value_reaches_the_host() {
        // `--value-field 9`: five frames per send, and the merged quantile sketch counts every
        // line the devices counted (each has a latency).
        let (totals, s) = one_final_send(Some(9));
        assert_eq!(s.ok, 2 * 5, "one send of five frames per device");
        assert_eq!(s.quantiles.map(|q| q.count), Some(totals.lines));
    }

    #[test]
    fn only_loopback() {
        let o = EmitOptions {
            devices: 1,
            to: "192.0.2.1:7777".parse().unwrap(),
            rate: 1,
            period: Duration::from_millis(10),
            corrupt: 0.0,
            seconds: Some(0.0),
            seed: 1,
            value_field: None,
            first_id: 1,
        };
        assert!(run(&o, &AtomicBool::new(false), &mut io::sink()).is_err());
    }
}
