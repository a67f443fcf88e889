//! The prefilter in a real browser: `prefilter-wasm` (the zero-copy views compiled to
//! `wasm32-unknown-unknown`) and its page (`prefilter-wasm/www/`) are served on 127.0.0.1 and loaded
//! in headless Chromium, which fetches the filter bytes as a file and queries a fixed list of URLs;
//! its answers must equal the native ones, for a binary fuse filter and a blocked Bloom filter.
//!
//! Needs the `wasm32-unknown-unknown` rustup target and Debian's `chromium`; `scripts/test-all.sh`
//! installs both. Without them the test fails and says so.

use std::path::{Path, PathBuf};
use std::process::Command;

use sketch_nostd::fuse::{BinaryFuse16, BinaryFuse8};
use sketch_nostd::sizing::blocked_blocks_for;
use sketch_nostd::wire::{self, Wire};
use sketch_nostd::BlockedBloom;
use sketch_tests::prefilter::{probe_urls, BLOCKED_PREFIXES};

const SEED: u64 = 0x0b5e;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Builds `prefilter-wasm` for the browser (release, its own target directory so that it does not
/// wait for the lock of the build running this test) and returns the module's path.
fn build_wasm() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = workspace().join("target/prefilter-wasm");
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "-p", "prefilter-wasm"])
        .args(["--target", "wasm32-unknown-unknown", "--target-dir"])
        .arg(&target_dir)
        .current_dir(workspace());
    for var in ["CARGO_BUILD_TARGET", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS"] {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("run cargo");
    assert!(
        out.status.success(),
        "building prefilter-wasm for wasm32-unknown-unknown failed (is the rustup target \
         installed? scripts/test-all.sh adds it):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target_dir.join("wasm32-unknown-unknown/release/prefilter_wasm.wasm")
}

/// Debian's `chromium` (or `chromium-browser`), or a failure saying how to get it.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|name| dir.join(name)))
        .find(|p| p.is_file())
        .expect(
            "`chromium` is not installed: run ./scripts/test-all.sh (it installs Debian's chromium) \
             or `apt-get install chromium`",
        )
}

/// Serves the files of `dir` (flat: no subdirectories) on 127.0.0.1 from a thread; returns the port.
fn serve(dir: PathBuf) -> u16 {
    let server = tiny_http::Server::http("127.0.0.1:0").expect("listen on 127.0.0.1");
    let port = server.server_addr().to_ip().expect("an IP address").port();
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            let path = request.url().split('?').next().unwrap_or("/").to_owned();
            let name = path.trim_start_matches('/');
            let file = (!name.is_empty() && !name.contains(['/', '\\']) && name != "..")
                .then(|| std::fs::read(dir.join(name)).ok())
                .flatten();
            let _ = match file {
                Some(body) => {
                    let mime = match name.rsplit('.').next() {
                        Some("html") => "text/html; charset=utf-8",
                        Some("js") => "text/javascript",
                        Some("wasm") => "application/wasm",
                        Some("json") => "application/json",
                        _ => "application/octet-stream",
                    };
                    let header = tiny_http::Header::from_bytes("Content-Type", mime)
                        .expect("a valid header");
                    request.respond(tiny_http::Response::from_data(body).with_header(header))
                }
                None => request.respond(tiny_http::Response::empty(404)),
            };
        }
    });
    port
}

/// Loads the page headless with `filter` and the URL list, and returns its answers.
/// Chromium's virtual time budget does not cover the wasm compile and the fetches, so on a loaded
/// machine the DOM can be dumped before the page has answered (an empty `results`); that, and only
/// that, is tried again, up to three loads. Any answer the page gives is compared in full.
fn browser_answers(chromium: &Path, port: u16, filter: &str, profile: &Path) -> Vec<i32> {
    for _ in 1..3 {
        if let Some(answers) = browser_load(chromium, port, filter, profile) {
            return answers;
        }
    }
    browser_load(chromium, port, filter, profile)
        .unwrap_or_else(|| panic!("the page gave no answer in three loads (filter {filter})"))
}

/// One headless load: `None` if the page had not answered yet when the DOM was dumped.
fn browser_load(chromium: &Path, port: u16, filter: &str, profile: &Path) -> Option<Vec<i32>> {
    let url = format!("http://127.0.0.1:{port}/index.html?filter={filter}&test=urls.json");
    let out = Command::new("timeout")
        .arg("120")
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // Run the page's timers and fetches, in virtual time, before dumping the DOM.
            "--virtual-time-budget=20000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--dump-dom", &url])
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let results = dom
        .split_once("<pre id=\"results\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(results, _)| results)
        .unwrap_or_else(|| {
            panic!(
                "no results in the page ({}):\n{dom}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    if results.trim().is_empty() {
        return None;
    }
    Some(
        serde_json::from_str(results).unwrap_or_else(|e| {
            panic!("the page answered {results:?} ({e}), not a list of answers")
        }),
    )
}

#[test]
fn the_page_answers_as_the_native_filters() {
    let chromium = chromium();
    let wasm = build_wasm();
    let dir = workspace().join("target/prefilter-browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the page directory");
    for file in ["index.html", "app.js"] {
        std::fs::copy(
            workspace().join("prefilter-wasm/www").join(file),
            dir.join(file),
        )
        .expect("copy the page");
    }
    std::fs::copy(&wasm, dir.join("prefilter.wasm")).expect("copy the module");

    let urls = probe_urls();
    std::fs::write(dir.join("urls.json"), serde_json::to_string(&urls).unwrap()).unwrap();

    // The filters, and the native answers (1 "maybe", 0 "definitely not").
    let fuse8 = BinaryFuse8::from_keys(BLOCKED_PREFIXES.iter().copied(), SEED).unwrap();
    let fuse16 = BinaryFuse16::from_keys(BLOCKED_PREFIXES.iter().copied(), SEED).unwrap();
    type Blocked = BlockedBloom<{ blocked_blocks_for(16, 0.01, 8) }, 8>;
    let blocked = Blocked::from_keys(BLOCKED_PREFIXES, SEED);
    let mut buf = vec![0u8; Blocked::MAX_ENCODED_LEN];
    let blocked_bytes = wire::encode_view(&blocked, &mut buf).unwrap();
    let answers =
        |f: &dyn Fn(&str) -> bool| -> Vec<i32> { urls.iter().map(|u| i32::from(f(u))).collect() };
    let cases: [(&str, &[u8], Vec<i32>); 3] = [
        (
            "fuse8.bin",
            fuse8.as_bytes(),
            answers(&|u| fuse8.contains(u)),
        ),
        (
            "fuse16.bin",
            fuse16.as_bytes(),
            answers(&|u| fuse16.contains(u)),
        ),
        (
            "blocked.bin",
            blocked_bytes,
            answers(&|u| blocked.contains(u)),
        ),
    ];

    let port = serve(dir.clone());
    for (i, (name, bytes, native)) in cases.iter().enumerate() {
        std::fs::write(dir.join(name), bytes).unwrap();
        // Every prefix is "maybe", and some other URL is "definitely not": the comparison below
        // can fail in both directions.
        assert!(native[..BLOCKED_PREFIXES.len()].iter().all(|&a| a == 1));
        assert!(native.contains(&0));
        let profile = dir.join(format!("profile-{i}"));
        let browser = browser_answers(&chromium, port, name, &profile);
        assert_eq!(
            &browser, native,
            "{name}: the browser's answers differ from the native ones"
        );
    }
}
