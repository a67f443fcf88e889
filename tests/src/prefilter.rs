//! The URL lists of the prefilter tests (`tests/tests/prefilters.rs`, `tests/tests/prefilter_browser.rs`):
//! the prefixes a filter holds and the URLs every construction path, view and target must answer
//! identically for.

/// URL prefixes a "safe browsing" style prefilter holds (literals, so a filter can be built from
/// them by the compiler).
pub const BLOCKED_PREFIXES: &[&str] = &[
    "https://ads.example/",
    "https://tracker.example/pixel",
    "https://cdn.bad.example/js/",
    "http://phish.example/login",
    "https://malware.example/",
    "https://example.org/download/evil.exe",
    "https://login-bank.example/",
    "http://free-prizes.example/",
    "https://xn--80ak6aa92e.example/",
    "https://shop.example/cart?id=1",
    "https://coinminer.example/miner.js",
    "http://192.0.2.7/",
    "https://fake-update.example/flash",
    "https://typosquat.example/",
    "https://drive-by.example/a/b/c",
    "https://short.example/x7Gq",
];

/// URLs queried in every test: the prefixes themselves and URLs that are not in the filter.
pub fn probe_urls() -> Vec<String> {
    let mut urls: Vec<String> = BLOCKED_PREFIXES.iter().map(|s| (*s).to_owned()).collect();
    urls.extend(
        [
            "https://good.example/",
            "https://ads.example",
            "https://ads.example/x",
            "https://www.rust-lang.org/",
            "https://docs.rs/xorf",
            "http://phish.example/logi",
            "https://example.org/",
            "",
        ]
        .map(String::from),
    );
    urls.extend((0..200).map(|i| format!("https://site{i}.example/page/{}", i * 7)));
    urls
}
