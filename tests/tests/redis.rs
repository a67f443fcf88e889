//! `RedisHll` against a real `redis-server` (Debian's package, 7.0): the strings we write are the ones
//! Redis would have written for the same keys, and the strings Redis writes import into the registers
//! we compute.
//!
//! The server is found through `SKETCH_REDIS_URL` (`redis://127.0.0.1:PORT[/db]`), which
//! `scripts/test-all.sh` exports after starting a throw-away `redis-server` (no persistence, a
//! temporary directory, stopped by PID when the script ends). Without it every test here FAILS with
//! a message saying so: a missing server is never a silent pass. Each test uses its own key prefix,
//! so they run in parallel on one server.

use redis::{Commands, Connection};
use sketch_nostd::redis::{RedisHll, DENSE_LEN, HEADER_LEN, REGISTERS};
use sketch_nostd::RedisError;

/// A connection to the test server named by `SKETCH_REDIS_URL`, or a panic that says how to get one.
fn connect() -> Connection {
    let url = std::env::var("SKETCH_REDIS_URL").unwrap_or_else(|_| {
        panic!(
            "SKETCH_REDIS_URL is not set: these tests need a redis-server. Run scripts/test-all.sh \
             (it installs and starts one), or start `redis-server --port PORT --save '' \
             --appendonly no` and export SKETCH_REDIS_URL=redis://127.0.0.1:PORT"
        )
    });
    let client = redis::Client::open(url.as_str())
        .unwrap_or_else(|e| panic!("SKETCH_REDIS_URL is not a valid Redis URL: {e}"));
    client
        .get_connection()
        .unwrap_or_else(|e| panic!("cannot connect to the redis-server at SKETCH_REDIS_URL: {e}"))
}

/// The `i`-th element counted: `el:0`, `el:1`, … (their bytes are what both sides hash).
fn element(i: u64) -> String {
    format!("el:{i}")
}

/// `PFADD key` of the elements `range`, pipelined in batches so a million take a second or two.
fn pfadd(con: &mut Connection, key: &str, range: std::ops::Range<u64>) {
    const BATCH: u64 = 10_000;
    let mut pipe = redis::pipe();
    let mut start = range.start;
    while start < range.end {
        let end = (start + BATCH).min(range.end);
        let batch: Vec<String> = (start..end).map(element).collect();
        pipe.cmd("PFADD").arg(key).arg(batch).ignore();
        start = end;
    }
    pipe.exec(con).expect("PFADD");
}

/// Our sketch of the elements `range`.
fn ours(range: std::ops::Range<u64>) -> RedisHll {
    let mut h = RedisHll::new();
    for i in range {
        h.insert(element(i).as_str());
    }
    h
}

fn set(con: &mut Connection, key: &str, bytes: &[u8]) {
    let _: () = con.set(key, bytes).expect("SET");
}

fn get(con: &mut Connection, key: &str) -> Vec<u8> {
    con.get(key).expect("GET")
}

fn pfcount(con: &mut Connection, keys: &[&str]) -> redis::RedisResult<u64> {
    redis::cmd("PFCOUNT").arg(keys).query(con)
}

/// Redis's own view of a key's registers (`PFDEBUG GETREG`, which converts the key to dense).
fn getreg(con: &mut Connection, key: &str) -> Vec<u8> {
    let regs: Vec<u64> = redis::cmd("PFDEBUG")
        .arg("GETREG")
        .arg(key)
        .query(con)
        .expect("PFDEBUG GETREG");
    regs.into_iter().map(|r| r as u8).collect()
}

fn del(con: &mut Connection, prefix: &str) {
    let keys: Vec<String> = con.keys(format!("{prefix}*")).expect("KEYS");
    if !keys.is_empty() {
        let _: () = con.del(keys).expect("DEL");
    }
}

/// At n = 10, 1,000, 100,000 and 1,000,000: our dense, sparse and smallest strings `SET` into Redis
/// give the `PFCOUNT` of Redis's own `PFADD` of the same keys, our estimate rounds to it (±1, where
/// the library's 64-bit-mantissa arithmetic and Redis's `double` round a value near a half apart),
/// and a `GET` of Redis's key (sparse at the two small sizes, dense at the two large) imports into
/// exactly our registers, which are also the registers `PFDEBUG GETREG` lists.
#[test]
fn our_strings_count_as_redis_counts() {
    let mut con = connect();
    let p = "test:count:";
    del(&mut con, p);
    // n = 5,000 besides the four sizes: Redis turns a key dense once its sparse form passes
    // 3,000 bytes (hll-sparse-max-bytes), we write sparse whenever it is shorter than dense
    // (7,091 bytes here), and Redis must take that too.
    for (n, native_encoding) in [
        (10u64, 1u8),
        (1_000, 1),
        (5_000, 0),
        (100_000, 0),
        (1_000_000, 0),
    ] {
        let native = format!("{p}{n}:native");
        pfadd(&mut con, &native, 0..n);
        let sketch = ours(0..n);

        // Redis's string imports into our registers.
        let theirs = get(&mut con, &native);
        assert_eq!(theirs[4], native_encoding, "n = {n}: Redis's encoding");
        let imported = RedisHll::decode(&theirs)
            .unwrap_or_else(|e| panic!("n = {n}: Redis's string refused: {e}"));
        assert!(imported == sketch, "n = {n}: imported registers differ");

        let expected = pfcount(&mut con, &[&native]).expect("PFCOUNT native");
        // Both could be wrong the same way: the count must also be near the truth. Ertl's
        // estimator has a relative standard error of 1.04/√16384 = 0.81% at large n (less at small
        // n, where it acts as linear counting); 4σ, with fixed keys, plus one for rounding.
        let off = (expected as f64 - n as f64).abs();
        assert!(
            off <= 4.0 * 0.0081 * n as f64 + 1.0,
            "n = {n}: PFCOUNT {expected}"
        );
        let mut buf = [0u8; DENSE_LEN];
        let dense = sketch.encode_dense(&mut buf).to_vec();
        let mut strings = vec![("dense", dense)];
        let mut sparse_buf = vec![0u8; DENSE_LEN * 2];
        if let Ok(s) = sketch.encode_sparse(&mut sparse_buf) {
            strings.push(("sparse", s.to_vec()));
        }
        strings.push(("smallest", sketch.encode(&mut buf).to_vec()));
        if n <= 5_000 {
            assert_eq!(strings.len(), 3, "n = {n}: the sparse form should fit");
            assert_eq!(strings[2].1[4], 1, "n = {n}: sparse is the smaller");
            if native_encoding == 1 {
                // Where Redis is sparse too, our opcodes are byte for byte its own.
                assert_eq!(strings[1].1.len(), theirs.len(), "n = {n}: sparse lengths");
                assert_eq!(strings[1].1[16..], theirs[16..], "n = {n}: sparse opcodes");
            }
        } else {
            assert_eq!(
                strings[2].1.len(),
                DENSE_LEN,
                "n = {n}: dense is the smaller"
            );
        }
        for (form, bytes) in &strings {
            let key = format!("{p}{n}:{form}");
            set(&mut con, &key, bytes);
            let got = pfcount(&mut con, &[&key])
                .unwrap_or_else(|e| panic!("n = {n}: Redis refused our {form} string: {e}"));
            assert_eq!(got, expected, "n = {n}: PFCOUNT of our {form} string");
            // A second, cached PFCOUNT and a union with the native key agree too.
            assert_eq!(pfcount(&mut con, &[&key]).unwrap(), expected);
            assert_eq!(pfcount(&mut con, &[&key, &native]).unwrap(), expected);
        }
        assert!(
            sketch.count().abs_diff(expected) <= 1,
            "n = {n}: our estimate {} (count {}) vs PFCOUNT {expected}",
            sketch.cardinality(),
            sketch.count()
        );
        // Independently of our decoder: Redis's own register listing.
        let listed = getreg(&mut con, &native);
        assert_eq!(listed.len(), REGISTERS);
        assert!(
            listed.iter().copied().eq(sketch.registers()),
            "n = {n}: PFDEBUG GETREG differs from our registers"
        );
        // Redis goes on counting into our strings: the same new elements into our smallest
        // string's key and into the native key leave the two with the same registers.
        let key = format!("{p}{n}:smallest");
        pfadd(&mut con, &key, n..n + 500);
        pfadd(&mut con, &native, n..n + 500);
        assert_eq!(
            getreg(&mut con, &key),
            getreg(&mut con, &native),
            "n = {n}: after PFADD"
        );
    }
    del(&mut con, p);
}

/// `PFMERGE` of our string with a native key gives the registers of a native HLL of the union, and
/// of our own merge; for small sets (sparse strings, a sparse result) and large ones (dense).
#[test]
fn pfmerge_with_our_string_is_the_native_union() {
    let mut con = connect();
    let p = "test:merge:";
    del(&mut con, p);
    for (ours_range, native_range) in [
        (0..300u64, 200..500u64),
        (0..60_000, 40_000..100_000),
        (0..100, 50_000..90_000), // a sparse string merged with a dense key
    ] {
        let tag = format!("{}-{}", ours_range.end, native_range.end);
        let (o, n, d, u) = (
            format!("{p}{tag}:ours"),
            format!("{p}{tag}:native"),
            format!("{p}{tag}:dest"),
            format!("{p}{tag}:union"),
        );
        let mut sketch = ours(ours_range.clone());
        let mut buf = [0u8; DENSE_LEN];
        set(&mut con, &o, sketch.encode(&mut buf));
        pfadd(&mut con, &n, native_range.clone());
        pfadd(&mut con, &u, ours_range.clone());
        pfadd(&mut con, &u, native_range.clone());
        let _: () = redis::cmd("PFMERGE")
            .arg(&d)
            .arg(&o)
            .arg(&n)
            .query(&mut con)
            .expect("PFMERGE");
        let merged = RedisHll::decode(&get(&mut con, &d)).expect("PFMERGE result decodes");
        let union = RedisHll::decode(&get(&mut con, &u)).expect("native union decodes");
        assert!(
            merged == union,
            "{tag}: PFMERGE differs from the native union"
        );
        sketch.merge(&ours(native_range)).unwrap();
        assert!(
            sketch == union,
            "{tag}: our merge differs from the native union"
        );
        assert_eq!(
            pfcount(&mut con, &[&d]).unwrap(),
            pfcount(&mut con, &[&u]).unwrap()
        );
        assert_eq!(getreg(&mut con, &d), getreg(&mut con, &u), "{tag}: GETREG");
    }
    del(&mut con, p);
}

/// Strings Redis itself refuses are refused by us too, with the error that names the problem: every
/// truncation of a sparse and a dense string, a wrong magic, opcodes that cover too few or too many
/// registers. Plus what Redis lets through but never writes (which we refuse): non-zero reserved
/// bytes and dense registers above 51. A `VAL` opcode holds 1 to 32 by construction (a 5-bit field
/// plus one), so "a value above 32" exists only in the dense form.
#[test]
fn malformed_strings_are_refused() {
    let mut con = connect();
    let p = "test:bad:";
    del(&mut con, p);
    let key = format!("{p}k");
    // Does Redis refuse this string (on SET + PFCOUNT)?
    let mut redis_refuses = |bytes: &[u8]| {
        set(&mut con, &key, bytes);
        pfcount(&mut con, &[&key]).is_err()
    };

    let small = ours(0..50);
    let mut buf = [0u8; DENSE_LEN];
    let sparse = small.encode(&mut buf).to_vec();
    assert_eq!(sparse[4], 1);
    let dense = small.encode_dense(&mut buf).to_vec();
    assert!(!redis_refuses(&sparse) && !redis_refuses(&dense));

    // Every truncation of the sparse string: refused by us. Redis refuses those that cut an opcode
    // off (it reads a cut XZERO's missing byte from the string's terminating 0, so we only compare
    // at opcode boundaries there).
    for len in 0..sparse.len() {
        let cut = &sparse[..len];
        let err = RedisHll::decode(cut).expect_err("truncated sparse string accepted");
        if len < HEADER_LEN {
            assert_eq!(err, RedisError::Truncated);
        }
        if !matches!(err, RedisError::Truncated) {
            assert!(matches!(err, RedisError::UnderCover { .. }), "{err:?}");
            assert!(redis_refuses(cut), "Redis accepted a truncation to {len}");
        }
    }
    // Every truncation of the dense string (and one byte too many): refused by both.
    for len in 0..dense.len() {
        let cut = &dense[..len];
        let err = RedisHll::decode(cut).expect_err("truncated dense string accepted");
        let expected = if len < HEADER_LEN {
            RedisError::Truncated
        } else {
            RedisError::DenseLength { len }
        };
        assert_eq!(err, expected);
    }
    for len in [0, 4, 15, 16, 17, 100, 6_000, DENSE_LEN - 1] {
        assert!(redis_refuses(&dense[..len]), "Redis accepted {len} bytes");
    }
    let mut long = dense.clone();
    long.push(0);
    assert_eq!(
        RedisHll::decode(&long),
        Err(RedisError::DenseLength { len: DENSE_LEN + 1 })
    );
    assert!(redis_refuses(&long));

    // Wrong magic, at each of its bytes, and an unknown encoding.
    for i in 0..4 {
        let mut bad = sparse.clone();
        bad[i] ^= 0x20;
        assert_eq!(RedisHll::decode(&bad), Err(RedisError::BadMagic));
        assert!(redis_refuses(&bad));
    }
    let mut bad = sparse.clone();
    bad[4] = 2;
    assert_eq!(RedisHll::decode(&bad), Err(RedisError::UnknownEncoding(2)));
    assert!(redis_refuses(&bad));

    // Opcodes that cover too few or too many registers.
    let header = &sparse[..HEADER_LEN];
    let with = |ops: &[u8]| [header, ops].concat();
    let xzero = |n: usize| [0x40 | ((n - 1) >> 8) as u8, (n - 1) as u8];
    let cases: Vec<(Vec<u8>, Result<(), RedisError>)> = vec![
        // Exactly 16,384: XZERO:16383 + VAL:1,1, and 4 × XZERO:4096.
        (with(&[&xzero(16_383)[..], &[0x80]].concat()), Ok(())),
        (with(&xzero(4_096).repeat(4)), Ok(())),
        // Too few: XZERO:16383; nothing at all; 255 × ZERO:64 + ZERO:63.
        (
            with(&xzero(16_383)),
            Err(RedisError::UnderCover { covered: 16_383 }),
        ),
        (with(&[]), Err(RedisError::UnderCover { covered: 0 })),
        (
            with(&[[63u8].repeat(255), vec![62]].concat()),
            Err(RedisError::UnderCover { covered: 16_383 }),
        ),
        // Too many: XZERO:16384 + ZERO:1; XZERO:16383 + VAL:1,2; XZERO:16384 + XZERO:1.
        (
            with(&[&xzero(16_384)[..], &[0]].concat()),
            Err(RedisError::OverCover { offset: 18 }),
        ),
        (
            with(&[&xzero(16_383)[..], &[0x81]].concat()),
            Err(RedisError::OverCover { offset: 18 }),
        ),
        (
            with(&[xzero(16_384), xzero(1)].concat()),
            Err(RedisError::OverCover { offset: 18 }),
        ),
        // An XZERO cut after its first byte.
        (with(&[0x7f]), Err(RedisError::Truncated)),
    ];
    for (bytes, expected) in &cases {
        let ours = RedisHll::decode(bytes).map(|_| ());
        assert_eq!(&ours, expected, "{:02x?}", &bytes[HEADER_LEN..]);
        if *expected != Err(RedisError::Truncated) {
            assert_eq!(
                redis_refuses(bytes),
                expected.is_err(),
                "{:02x?}",
                &bytes[HEADER_LEN..]
            );
        }
    }

    // Accepted by Redis, never written by it, refused by us: reserved bytes, registers above 51.
    for i in 5..8 {
        let mut bad = sparse.clone();
        bad[i] = 1;
        assert_eq!(RedisHll::decode(&bad), Err(RedisError::ReservedNotZero));
    }
    for value in 52..=63u8 {
        for register in [0usize, 1, 2, 3, 8_191, REGISTERS - 1] {
            let mut bad = dense.clone();
            // Register i is bits 6i..6i+6 of the registers, least significant first; the last one
            // (shift 2) ends inside the string's last byte.
            let bit = HEADER_LEN * 8 + 6 * register;
            let at = bit / 8;
            let next = bad.get(at + 1).copied().unwrap_or(0);
            let word = u16::from_le_bytes([bad[at], next]) | u16::from(value) << (bit % 8);
            let [lo, hi] = word.to_le_bytes();
            bad[at] = lo;
            if let Some(b) = bad.get_mut(at + 1) {
                *b = hi;
            }
            assert!(
                matches!(RedisHll::decode(&bad), Err(RedisError::Registers(_))),
                "register {register} = {value} accepted"
            );
        }
    }
    del(&mut con, p);
}

/// A failed import leaves the sketch empty, and the in-place import agrees with the other.
#[test]
fn decode_into_agrees_with_decode() {
    let mut con = connect();
    let p = "test:into:";
    del(&mut con, p);
    let key = format!("{p}k");
    pfadd(&mut con, &key, 0..2_000);
    let bytes = get(&mut con, &key);
    let mut h = ours(0..10);
    h.decode_into(&bytes).unwrap();
    assert!(h == RedisHll::decode(&bytes).unwrap());
    assert!(h.decode_into(&bytes[..bytes.len() - 1]).is_err());
    assert!(h.is_empty());
    del(&mut con, p);
}

/// The fuzz target's seeds are strings Redis 7.0.15 wrote (`redis-cli --raw GET`) after
/// `PFADD native_sparse_3 a b c`, `PFADD … $(seq 1 300)`, `PFADD … $(seq 1 5000)` and an empty
/// `PFADD`: golden vectors of the hash and of both encodings that need no server.
#[test]
fn fuzz_seeds_are_redis_strings_of_known_keys() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds/redis");
    let read = |name: &str| std::fs::read(dir.join(name)).expect("fuzz/seeds/redis seed");
    let decimal = |range: std::ops::RangeInclusive<u32>| {
        let mut h = RedisHll::new();
        for i in range {
            h.insert(i.to_string().as_str());
        }
        h
    };
    let mut abc = RedisHll::new();
    for k in ["a", "b", "c"] {
        abc.insert(k);
    }
    for (name, expected, encoding) in [
        ("native_empty", RedisHll::new(), 1u8),
        ("native_sparse_3", abc, 1),
        ("native_sparse_300", decimal(1..=300), 1),
        ("native_dense_5000", decimal(1..=5_000), 0),
    ] {
        let bytes = read(name);
        assert_eq!(bytes[4], encoding, "{name}");
        let h = RedisHll::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            h == expected,
            "{name}: registers differ from our sketch of its keys"
        );
        // Our smallest encoding of the registers is no longer than Redis's.
        let mut buf = [0u8; DENSE_LEN];
        assert!(h.encode(&mut buf).len() <= bytes.len(), "{name}");
    }
    // Redis's own count of the 5,000 (PFCOUNT after the GET), within rounding of ours.
    assert!(decimal(1..=5_000).count().abs_diff(4_985) <= 1);
}
