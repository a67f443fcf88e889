//! The router prefilter example, as a firmware family: a prefilter of unsafe URL prefixes held in
//! flash, checked for every request URL, with a "maybe → ask the server" path. Shared with the host
//! test (`tests/tests/firmware.rs` includes this file), which runs it too and compares the answers.
//!
//! Two filters of the same [`PREFIXES`], both read where they are (flash on the device, no copy):
//! * [`BLOCKED`], a `BlockedBloom` built by the compiler (`const fn from_keys`) into a `static`;
//! * a binary fuse filter (8-bit fingerprints) read through `BinaryFuse8Ref` over the bytes of
//!   `prefixes.fuse8`, included with `include_bytes!`: a filter built on a host (feature `alloc`)
//!   and shipped as a file. The host test checks that the file is what building the filter from
//!   [`PREFIXES`] gives.
//!
//! For each request URL the device checks its prefixes (`scheme://host/`, then every path segment
//! ending in `/`, then the whole path without the query): if a filter says "maybe" for one, the
//! device asks the server ([`ask_server`], an exact lookup standing for the round trip); otherwise
//! the URL is definitely safe and the server is not asked. `no_std` and allocation-free.

use crate::workload::{Check, Sink};
use sketch_nostd::{fuse::BinaryFuse8Ref, sizing::blocked_blocks_for, BlockedBloom};

/// The unsafe URL prefixes the server knows (the key set of both filters).
pub const PREFIXES: [&str; 40] = [
    "http://phish.example/",
    "https://ads.example/",
    "https://tracker.example/pixel/",
    "https://cdn.bad.example/js/",
    "https://cdn.bad.example/js/miner/",
    "http://login-bank.example/",
    "https://free-prizes.example/claim/",
    "https://shop.example/checkout/fake/",
    "https://docs.example/share/malware/",
    "http://update-flash.example/",
    "https://mail.example/redirect/evil/",
    "https://wallet-verify.example/",
    "https://short.example/x7Gq/",
    "https://short.example/abc123/",
    "http://10.0.0.66/admin/",
    "https://router-login.example/",
    "https://cloud.example/bucket/stealer/",
    "https://video.example/watch/scam/",
    "https://news.example/fake-news/",
    "https://drive.example/d/0Bxyz/",
    "https://pay.example/invoice/overdue/",
    "https://support.example/remote/",
    "https://crypto-double.example/",
    "https://pkg.example/npm/typosquat/",
    "https://forum.example/t/leak/",
    "https://img.example/exploit/",
    "https://cdn.example/lib/skimmer/",
    "https://game.example/cheats/",
    "https://social.example/login/clone/",
    "https://bank.example.evil/",
    "https://sms-verify.example/",
    "https://tax-refund.example/",
    "https://parcel-track.example/",
    "https://antivirus-alert.example/",
    "https://dating.example/promo/",
    "https://translate.example/proxy/",
    "https://files.example/download/setup/",
    "https://api.example/v1/exfil/",
    "https://blog.example/wp-admin/",
    "https://ads2.example/click/",
];

/// Seed of both filters' key hashes.
pub const SEED: u64 = 0x0005_eed5_0f18;

/// The blocked Bloom filter of [`PREFIXES`] at 1%, built by the compiler into flash (two blocks).
pub type Prefixes = BlockedBloom<{ blocked_blocks_for(PREFIXES.len() as u64, 0.01, 8) }, 8>;

/// [`PREFIXES`] in a blocked Bloom filter, computed at compile time.
pub static BLOCKED: Prefixes = Prefixes::from_keys(&PREFIXES, SEED);

/// The encoded binary fuse filter (8-bit) of [`PREFIXES`] with [`SEED`], as a host writes it: a
/// named array (not a slice of anonymous bytes), so the budget test can tell the shipped filter
/// from code in the firmware's flash.
pub static FUSE8: [u8; FUSE8_LEN] = *include_bytes!("../prefixes.fuse8");

/// The length of the filter file.
const FUSE8_LEN: usize = include_bytes!("../prefixes.fuse8").len();

/// The request URLs the router sees: the unsafe prefixes themselves, URLs under them (deeper paths,
/// queries), and safe URLs, some sharing a host or a first segment with an unsafe prefix.
pub const REQUESTS: [&str; 48] = [
    "https://ads.example/",
    "https://ads.example/banner/728x90.png?id=7",
    "http://phish.example/login.php",
    "https://tracker.example/pixel/1x1.gif?u=42",
    "https://tracker.example/about/",
    "https://cdn.bad.example/js/app.js",
    "https://cdn.bad.example/css/site.css",
    "https://cdn.bad.example/js/miner/xmr.js",
    "https://www.example/",
    "https://www.example/index.html",
    "https://www.example/news/today/",
    "https://docs.example/share/report.pdf",
    "https://docs.example/share/malware/dropper.exe",
    "https://short.example/x7Gq/",
    "https://short.example/zzzz/",
    "http://10.0.0.66/admin/setup.cgi",
    "http://10.0.0.1/admin/",
    "https://router-login.example/index.html",
    "https://video.example/watch/cats/",
    "https://video.example/watch/scam/free-iphone",
    "https://drive.example/d/0Bxyz/view?usp=sharing",
    "https://drive.example/d/1Aabc/view",
    "https://pay.example/invoice/overdue/4711",
    "https://pay.example/invoice/paid/4711",
    "https://pkg.example/npm/typosquat/lodahs.tgz",
    "https://pkg.example/npm/lodash/lodash.tgz",
    "https://img.example/exploit/a.png",
    "https://img.example/photos/a.png",
    "https://game.example/cheats/aimbot.zip",
    "https://game.example/patches/1.2.zip",
    "https://bank.example/",
    "https://bank.example.evil/login",
    "https://api.example/v1/users/",
    "https://api.example/v1/exfil/upload",
    "https://blog.example/wp-admin/post.php",
    "https://blog.example/2024/05/hello-world/",
    "https://ads2.example/click/?c=99",
    "https://ads2.example/view/",
    "https://mail.example/inbox/",
    "https://mail.example/redirect/evil/next",
    "https://files.example/download/setup/setup.exe",
    "https://files.example/download/readme.txt",
    "https://search.example/?q=bloom+filter",
    "https://maps.example/place/zurich/",
    "https://weather.example/forecast/",
    "https://shop.example/checkout/",
    "https://shop.example/checkout/fake/pay",
    "https://social.example/login/",
];

/// A list of URLs as the firmware holds it in flash: their bytes one after the other and where each
/// ends, in one named `static` (as the filters are), so that the budget test can report the
/// router's data apart from its code (`tests/tests/firmware.rs`, `SHIPPED_DATA`). The `&str`
/// arrays [`PREFIXES`] and [`REQUESTS`] are the same lists for the host and the compiler.
pub struct Urls<const N: usize, const B: usize> {
    ends: [u16; N],
    text: [u8; B],
}

impl<const N: usize, const B: usize> Urls<N, B> {
    /// The list of `urls` (`B` their total length, [`text_len`]; fails to compile otherwise).
    #[must_use]
    pub const fn new(urls: &[&str; N]) -> Self {
        let mut list = Self {
            ends: [0; N],
            text: [0; B],
        };
        let (mut i, mut at) = (0, 0);
        while i < N {
            let url = urls[i].as_bytes();
            let mut j = 0;
            while j < url.len() {
                list.text[at] = url[j];
                at += 1;
                j += 1;
            }
            assert!(at <= u16::MAX as usize, "the URL text is too long");
            list.ends[i] = at as u16;
            i += 1;
        }
        assert!(at == B, "B is not the URLs' total length");
        list
    }

    /// The URLs' bytes, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut start = 0;
        self.ends.iter().map_while(move |&end| {
            let url = self.text.get(start..usize::from(end));
            start = usize::from(end);
            url
        })
    }
}

/// The total length of `urls`.
#[must_use]
pub const fn text_len(urls: &[&str]) -> usize {
    let (mut i, mut len) = (0, 0);
    while i < urls.len() {
        len += urls[i].len();
        i += 1;
    }
    len
}

/// [`PREFIXES`] in flash, for the device's exact lookup ([`ask_server`]).
pub static PREFIX_LIST: Urls<{ PREFIXES.len() }, { text_len(&PREFIXES) }> = Urls::new(&PREFIXES);

/// [`REQUESTS`] in flash: the traffic the device answers.
pub static REQUEST_LIST: Urls<{ REQUESTS.len() }, { text_len(&REQUESTS) }> = Urls::new(&REQUESTS);

/// Bits of each URL's answer byte.
pub mod answer {
    /// The blocked Bloom filter in flash said "maybe" for one of the URL's prefixes.
    pub const BLOOM_MAYBE: u8 = 1;
    /// The binary fuse filter view said "maybe" for one of the URL's prefixes.
    pub const FUSE_MAYBE: u8 = 2;
    /// The server was asked and said the URL is unsafe.
    pub const UNSAFE: u8 = 4;
}

/// Calls `f` with every prefix of `url` that the filters are keyed by: `scheme://host/`, each path
/// segment ending in `/`, and the whole path without its query. Stops at the first `true`.
pub fn any_prefix(url: &[u8], mut f: impl FnMut(&[u8]) -> bool) -> bool {
    // Byte searches and `get` rather than `str::find` and `&s[..i]`: a firmware does not want the
    // pattern searchers or the slicing's failure paths. The keys are bytes (a `str` key hashes as
    // its bytes), so no cut needs to fall on a `char` boundary.
    let path = url.split(|&b| b == b'?').next().unwrap_or_default();
    // The first `/` after `scheme://` ends the host.
    let Some(start) = path.windows(3).position(|w| w == b"://").map(|i| i + 3) else {
        return f(path);
    };
    for (i, &b) in path.iter().enumerate().skip(start) {
        if b == b'/' && path.get(..=i).is_some_and(&mut f) {
            return true;
        }
    }
    path.last() != Some(&b'/') && f(path)
}

/// The longest key the filters hold: every prefix is at most this long (checked at compile time),
/// so a longer part of a URL is in neither filter and is not looked up. It is the longest key
/// [`hash64_short`](sketch_nostd::hash::hash64_short) hashes (128 bytes, where xxh3's short and
/// mid-size inputs end): the compact xxh3 is all the hashing code the firmware links.
pub const MAX_KEY_LEN: usize = sketch_nostd::hash::SHORT_KEY_MAX;

const _: () = {
    let mut i = 0;
    while i < PREFIXES.len() {
        assert!(
            PREFIXES[i].len() <= MAX_KEY_LEN,
            "a prefix is longer than MAX_KEY_LEN"
        );
        i += 1;
    }
};

/// The hash both filters are keyed by (`hash64` with [`SEED`], what `contains` computes), or `None`
/// for a part longer than [`MAX_KEY_LEN`], which no filter holds: the caller answers "not in the
/// set" for it, exactly as the filters' `contains` would have (their false positives aside).
/// `#[inline(never)]`: one copy of the hash.
#[inline(never)]
pub fn key_hash(part: &[u8]) -> Option<u64> {
    sketch_nostd::hash::hash64_short(part, SEED)
}

/// The server's exact answer (standing for the round trip): is one of the URL's prefixes unsafe?
pub fn ask_server(url: &[u8]) -> bool {
    any_prefix(url, |p| PREFIX_LIST.iter().any(|q| q == p))
}

/// The router: for every request, the answer byte ([`answer`]); the server is asked only when the
/// filter in flash says "maybe". Checks that no unsafe URL is let through (no false negative), that
/// both filters agree with each other on every unsafe URL, that the view reads a filter of
/// [`PREFIXES`]; emits the answers (`prefilter-answers`) and, with `wire`, the compile-time filter
/// in its view encoding (`prefilter-blocked`), so the host sees that the compiler built the same bits
/// on every target (and, with `receive`, a view of those bytes finds every prefix).
pub fn prefilter(sink: &mut impl Sink, wire: bool) -> Check {
    let fuse =
        BinaryFuse8Ref::new(&FUSE8).map_err(|_| "prefilter: the fuse filter bytes are refused")?;
    if fuse.len() != PREFIXES.len() || fuse.seed() != SEED {
        return Err("prefilter: the fuse filter is not the one of PREFIXES");
    }
    let mut answers = [0u8; REQUESTS.len()];
    let mut asked = 0;
    for (url, a) in REQUEST_LIST.iter().zip(&mut answers) {
        // Both filters in one walk of the URL's prefixes, each prefix hashed once.
        let mut maybe = 0;
        any_prefix(url, |p| {
            if let Some(h) = key_hash(p) {
                if BLOCKED.contains_hash(h) {
                    maybe |= answer::BLOOM_MAYBE;
                }
                if fuse.contains_hash(h) {
                    maybe |= answer::FUSE_MAYBE;
                }
            }
            false
        });
        // The router's path: "definitely safe" without a round trip, else ask the server. The
        // server's answer is computed for every URL, to check that no unsafe URL was let through
        // (by either filter); the router only learns it for a "maybe".
        let bloom = maybe & answer::BLOOM_MAYBE != 0;
        let truth = ask_server(url);
        if truth && maybe != answer::BLOOM_MAYBE | answer::FUSE_MAYBE {
            return Err("prefilter: an unsafe URL was let through (false negative)");
        }
        asked += usize::from(bloom);
        *a = maybe | if bloom && truth { answer::UNSAFE } else { 0 };
    }
    if asked == REQUESTS.len() {
        return Err("prefilter: the filter never answered \"definitely safe\"");
    }
    sink.begin("prefilter-answers");
    sink.bytes(&answers);
    sink.end();
    if wire {
        prefilter_wire(sink)?;
    }
    Ok(())
}

/// The `wire` part: emits the compile-time filter in its view encoding (what a host would ship),
/// and, on the receive path, reads those bytes back through a `BlockedBloomRef` (a device's
/// "receive" of a filter is a view) and checks that the view finds every prefix.
#[inline(never)]
fn prefilter_wire<S: Sink>(sink: &mut S) -> Check {
    use sketch_nostd::wire::{self, BlockedBloomRef, Wire};
    let mut buf = [0u8; Prefixes::MAX_ENCODED_LEN];
    let bytes = wire::encode_view(&BLOCKED, &mut buf).map_err(|_| "wire: encode failed")?;
    sink.begin("prefilter-blocked");
    sink.bytes(bytes);
    sink.end();
    if !S::RECEIVE {
        return Ok(());
    }
    let view = BlockedBloomRef::new(bytes).map_err(|_| "prefilter: the view refused its bytes")?;
    if !PREFIX_LIST
        .iter()
        .all(|p| key_hash(p).is_some_and(|h| view.contains_hash(h)))
    {
        return Err("prefilter: the view of the static filter lost a prefix");
    }
    Ok(())
}
