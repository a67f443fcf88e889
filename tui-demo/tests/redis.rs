//! `--redis` end to end: two tui-demo hosts, each receiving frames from its own simulated devices
//! over loopback UDP, both writing to one redis-server. Redis then counts the fleet across hosts.
//!
//! The server is found through `SKETCH_REDIS_URL` (`scripts/test-all.sh` starts one and exports it);
//! without it the test FAILS with a message saying so.

use std::process::{Command, Stdio};
use std::time::Duration;

use redis::{Commands, Connection};
use serde_json::Value;
use sketch_nostd::redis::RedisHll;

const BIN: &str = env!("CARGO_BIN_EXE_tui-demo");

fn server_url() -> String {
    std::env::var("SKETCH_REDIS_URL").unwrap_or_else(|_| {
        panic!(
            "SKETCH_REDIS_URL is not set: this test needs a redis-server. Run scripts/test-all.sh \
             (it installs and starts one), or start `redis-server --port PORT --save '' \
             --appendonly no` and export SKETCH_REDIS_URL=redis://127.0.0.1:PORT"
        )
    })
}

fn connect(url: &str) -> Connection {
    redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .unwrap_or_else(|e| panic!("cannot connect to the redis-server at SKETCH_REDIS_URL: {e}"))
}

fn free_udp_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keys(con: &mut Connection, pattern: &str) -> Vec<String> {
    let mut k: Vec<String> = con.keys(pattern).expect("KEYS");
    k.sort();
    k
}

fn decode(con: &mut Connection, key: &str) -> RedisHll {
    let bytes: Vec<u8> = con.get(key).expect("GET");
    RedisHll::decode(&bytes).unwrap_or_else(|e| panic!("{key}: {e}"))
}

fn pfcount(con: &mut Connection, keys: &[String]) -> u64 {
    redis::cmd("PFCOUNT").arg(keys).query(con).expect("PFCOUNT")
}

/// Host A gets 2 devices, host B 3 (other log seeds); both write under their own `--redis-name`.
/// Redis's `PFCOUNT` over the two fleet keys equals `PFCOUNT` over all five device keys and our own
/// merge of the five devices' strings (±1 for the two floating-point paths); each fleet key holds
/// exactly the merge of its host's device keys, and each host's own merged estimate (its JSON
/// report) is that key's estimate.
#[test]
fn two_hosts_feed_one_redis_and_redis_counts_the_fleet() {
    let url = server_url();
    let mut con = connect(&url);
    let run = std::process::id();
    let names = [format!("a-{run}"), format!("b-{run}")];
    for n in &names {
        for k in keys(&mut con, &format!("{{tui-demo}}:{n}:*")) {
            let _: () = con.del(k).unwrap();
        }
    }
    let ports = [free_udp_port(), free_udp_port()];
    let hosts: Vec<_> = (0..2)
        .map(|i| {
            Command::new(BIN)
                .args([
                    "listen",
                    &format!("127.0.0.1:{}", ports[i]),
                    "--json",
                    "--seconds",
                    "4",
                    "--redis",
                    &url,
                    "--redis-name",
                    &names[i],
                ])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(400));
    let emitters: Vec<_> = [(0usize, "2", "1"), (1, "3", "2")]
        .into_iter()
        .map(|(i, devices, seed)| {
            Command::new(BIN)
                .args([
                    "emit",
                    devices,
                    "--to",
                    &format!("127.0.0.1:{}", ports[i]),
                    "--seconds",
                    "1.5",
                    "--rate",
                    "400",
                    "--period",
                    "100",
                    "--seed",
                    seed,
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for e in emitters {
        let out = e.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let reports: Vec<Value> = hosts
        .into_iter()
        .map(|h| {
            let out = h.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert!(out.status.success(), "{stderr}");
            assert!(
                stderr.contains("key writes") && !stderr.contains("DISCONNECTED"),
                "the host reports its Redis writes: {stderr}"
            );
            serde_json::from_slice(&out.stdout).expect("JSON report")
        })
        .collect();

    let mut all_devices = Vec::new();
    let mut fleets = Vec::new();
    let mut ours = RedisHll::new();
    for (i, (name, expected)) in names.iter().zip([2usize, 3]).enumerate() {
        let devices = keys(&mut con, &format!("{{tui-demo}}:{name}:device:*"));
        assert_eq!(devices.len(), expected, "{name}: {devices:?}");
        let fleet_key = format!("{{tui-demo}}:{name}:fleet");
        let mut host_merge = RedisHll::new();
        for k in &devices {
            let d = decode(&mut con, k);
            assert!(!d.is_empty(), "{k}");
            host_merge.merge(&d).unwrap();
            ours.merge(&d).unwrap();
        }
        let fleet = decode(&mut con, &fleet_key);
        assert!(
            fleet == host_merge,
            "{fleet_key} is the merge of its devices"
        );
        // Each device row's distinct count is PFCOUNT of its key (it was the device's own
        // martingale estimate, a few off: found by a user test).
        let rows = reports[i]["devices"]["rows"].as_array().unwrap();
        assert_eq!(rows.len(), expected);
        for row in rows {
            let key = format!("{{tui-demo}}:{name}:device:{}", row["id"]);
            let shown = row["distinct"].as_f64().unwrap().round() as u64;
            let counted = pfcount(&mut con, std::slice::from_ref(&key));
            assert!(
                shown.abs_diff(counted) <= 1,
                "{key}: row {shown}, PFCOUNT {counted}"
            );
        }
        // The host's own merged estimate (Ertl's, after a merge) is the fleet key's.
        let reported = reports[i]["distinct"]["estimate"].as_f64().unwrap();
        assert!(
            (reported - fleet.cardinality()).abs() < 1e-6 * reported.max(1.0),
            "{name}: reported {reported}, key {}",
            fleet.cardinality()
        );
        all_devices.extend(devices);
        fleets.push(fleet_key);
    }
    let across_hosts = pfcount(&mut con, &fleets);
    assert_eq!(across_hosts, pfcount(&mut con, &all_devices));
    assert!(
        ours.count().abs_diff(across_hosts) <= 1,
        "our merge of every device: {} (count {}), PFCOUNT of both fleets {across_hosts}",
        ours.cardinality(),
        ours.count()
    );
    // The two hosts' devices saw different logs: the union is more than either fleet.
    let a = pfcount(&mut con, &fleets[..1]);
    let b = pfcount(&mut con, &fleets[1..]);
    assert!(
        across_hosts > a.max(b) && across_hosts <= a + b,
        "{a} {b} {across_hosts}"
    );
    // PFMERGE into a fleet-wide key works on them (same hash slot: one {tui-demo} tag).
    let all = format!("{{tui-demo}}:all-{run}");
    let _: () = redis::cmd("PFMERGE")
        .arg(&all)
        .arg(&fleets)
        .query(&mut con)
        .unwrap();
    assert!(decode(&mut con, &all) == ours);
    let _: () = con.del(&all).unwrap();
    for k in all_devices.iter().chain(&fleets) {
        let _: () = con.del(k).unwrap();
    }
}

/// Log mode: the lines of a file, counted by a host with `--redis`, are the key Redis's own
/// `PFADD` of the same lines gives (identical registers).
#[test]
fn log_mode_writes_what_pfadd_of_the_lines_gives() {
    let url = server_url();
    let mut con = connect(&url);
    let name = format!("log-{}", std::process::id());
    let lines: Vec<String> = (0..5_000)
        .map(|i| format!("GET /item/{}", i % 3_001))
        .collect();
    let dir = std::env::temp_dir().join(format!("tui-demo-redis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("access.log");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = Command::new(BIN)
        .args(["--input", file.to_str().unwrap(), "--report"])
        .args(["--redis", &url, "--redis-name", &name])
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let key = format!("{{tui-demo}}:{name}:log");
    let native = format!("{{tui-demo}}:{name}:native");
    for chunk in lines.chunks(1_000) {
        let _: () = redis::cmd("PFADD")
            .arg(&native)
            .arg(chunk)
            .query(&mut con)
            .unwrap();
    }
    assert!(decode(&mut con, &key) == decode(&mut con, &native));
    assert_eq!(
        pfcount(&mut con, std::slice::from_ref(&key)),
        pfcount(&mut con, std::slice::from_ref(&native))
    );
    // Adding the same lines again changes nothing.
    let changed: i64 = redis::cmd("PFADD")
        .arg(&key)
        .arg(&lines[..100])
        .query(&mut con)
        .unwrap();
    assert_eq!(changed, 0);
    let _: () = con.del(&[key, native]).unwrap();
}

/// A throw-away redis-server on `port` (the binary `scripts/test-all.sh` installs), killed on drop.
struct Server(std::process::Child);

impl Server {
    fn start(port: u16, dir: &std::path::Path) -> Self {
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no", "--dir"])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run redis-server ({e}): scripts/test-all.sh installs it")
            });
        let url = format!("redis://127.0.0.1:{port}");
        let start = std::time::Instant::now();
        while redis::Client::open(url.as_str())
            .and_then(|c| c.get_connection())
            .is_err()
        {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Self(child)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The Redis writer survives its server going away: the failure shows in its status (the view's
/// footer line), nothing panics, and once a server is back on the same address every key is
/// written again, including those of devices that sent nothing new meanwhile.
#[test]
fn a_lost_server_is_shown_and_retried_and_every_key_rewritten() {
    use std::time::Instant;
    use tui_demo::emit::SimDevice;
    use tui_demo::ingest::engine::EngineOptions;
    use tui_demo::ingest::fleet::Fleet;
    use tui_demo::redis_sink::{RedisSink, RedisTarget};
    use tui_demo::source::synthetic::Generator;

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = std::env::temp_dir().join(format!("tui-demo-redis-loss-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("redis://127.0.0.1:{port}");
    let server = Server::start(port, &dir);

    let base = Generator::new(5);
    let mut devices: Vec<SimDevice> = (1..=2).map(|id| SimDevice::new(id, 5, &base)).collect();
    let mut fleet = Fleet::new();
    let send = |d: &mut SimDevice, fleet: &mut Fleet, lines: u64| {
        d.count_lines(lines, |_| {});
        let from = format!("127.0.0.1:{}", 40_000 + d.id()).parse().unwrap();
        for f in d.frames() {
            fleet.datagram(from, &mut f.unwrap(), Instant::now());
        }
    };
    for d in &mut devices {
        send(d, &mut fleet, 500);
    }
    let target = RedisTarget::parse_with(&url, None).unwrap();
    let mut sink = RedisSink::start(target, "loss", false, EngineOptions::default()).unwrap();
    sink.flush(Some(&fleet), Duration::from_secs(10));
    let s = sink.status();
    assert!(s.connected && s.last_error.is_none(), "{s:?}");
    assert_eq!(s.keys_written, 3, "two devices and the fleet");

    // The server goes away; device 1 keeps counting, device 2 is quiet.
    drop(server);
    send(&mut devices[0], &mut fleet, 500);
    sink.flush(Some(&fleet), Duration::from_secs(5));
    let start = Instant::now();
    while sink.status().failures == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no failure reported"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let s = sink.status();
    assert!(!s.connected);
    assert!(s.line().contains("DISCONNECTED, retrying"), "{}", s.line());
    assert!(!s.line().contains("@"), "no credentials in {}", s.line());

    // A new, empty server on the same address: the writer reconnects and writes every key.
    let _server = Server::start(port, &dir);
    let mut con = connect(&url);
    let start = Instant::now();
    loop {
        sink.refresh(Instant::now(), Some(&fleet));
        let present: Vec<String> = con.keys("{tui-demo}:loss:*").unwrap();
        if present.len() == 3 && sink.status().connected {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "keys not rewritten after the server came back: {present:?}, {:?}",
            sink.status()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    sink.flush(Some(&fleet), Duration::from_secs(10));
    let mut all = RedisHll::new();
    for (id, h) in fleet.distinct_sketches() {
        let theirs = decode(&mut con, &format!("{{tui-demo}}:loss:device:{id}"));
        let ours = RedisHll::from_hll14(&h).unwrap();
        assert!(theirs == ours, "device {id}");
        all.merge(&ours).unwrap();
    }
    assert!(decode(&mut con, "{tui-demo}:loss:fleet") == all);
    assert!(sink.status().line().contains("key writes"));
    drop(sink);
    let _ = std::fs::remove_dir_all(&dir);
}
