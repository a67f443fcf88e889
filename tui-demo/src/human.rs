//! Numbers for people: thousands separators, bytes in KiB/MiB, rates in k/M per second.

/// `1234567` → `"1,234,567"`.
#[must_use]
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count and its noun, plural unless the count is 1: `1 line`, `2,048 lines`.
///
/// ```
/// use tui_demo::human::count_of;
/// assert_eq!((count_of(1, "line"), count_of(2048, "rotation")), ("1 line".into(), "2,048 rotations".into()));
/// ```
#[must_use]
pub fn count_of(n: u64, noun: &str) -> String {
    format!("{} {noun}{}", count(n), if n == 1 { "" } else { "s" })
}

/// A float rounded to the nearest integer and formatted by [`count`] (negative and non-finite
/// values show as 0).
#[must_use]
pub fn count_f(x: f64) -> String {
    if x.is_finite() && x > 0.0 {
        count(x.round() as u64)
    } else {
        "0".to_string()
    }
}

/// A short count: `950`, `12.3k`, `4.56M`, `1.20G`.
#[must_use]
pub fn short(x: f64) -> String {
    let x = if x.is_finite() { x.max(0.0) } else { 0.0 };
    if x < 1_000.0 {
        format!("{x:.0}")
    } else if x < 1_000_000.0 {
        format!("{:.1}k", x / 1e3)
    } else if x < 1_000_000_000.0 {
        format!("{:.2}M", x / 1e6)
    } else {
        format!("{:.2}G", x / 1e9)
    }
}

/// Bytes in binary units: `512 B`, `12.0 KiB`, `3.4 MiB`, `1.02 GiB`.
#[must_use]
pub fn bytes(n: u64) -> String {
    const KI: f64 = 1024.0;
    let x = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if x < KI * KI {
        format!("{:.1} KiB", x / KI)
    } else if x < KI * KI * KI {
        format!("{:.1} MiB", x / (KI * KI))
    } else {
        format!("{:.2} GiB", x / (KI * KI * KI))
    }
}

/// Past this many percent, [`percent`] says only `>1000%`: an error that large is just large, and
/// its digits would not fit a column (an extreme value's error can have hundreds of them).
pub const PERCENT_CAP: f64 = 1_000.0;

/// A percentage with a precision that suits its size: `12.3%`, `0.81%`, `0.004%`; beyond ±1000%
/// (infinity included) `>1000%` or `<-1000%`, so it is at most 7 characters. NaN shows as `0%`.
/// Only all of it is `100.0%`: 99.97% stays `99.97%`.
///
/// ```
/// use tui_demo::human::percent;
/// assert_eq!(percent(0.5), "50.0%");
/// assert_eq!((percent(0.9997), percent(0.999_999), percent(1.0)), ("99.97%".into(), "99.99%".into(), "100.0%".into()));
/// assert_eq!(percent(2.5e280), ">1000%");
/// assert_eq!(percent(f64::INFINITY), ">1000%");
/// assert_eq!(percent(-11.0), "<-1000%");
/// ```
#[must_use]
pub fn percent(fraction: f64) -> String {
    let p = if fraction.is_nan() {
        0.0
    } else {
        fraction * 100.0
    };
    let a = p.abs();
    if a > PERCENT_CAP {
        format!("{}{PERCENT_CAP:.0}%", if p > 0.0 { ">" } else { "<-" })
    } else if a == 0.0 {
        "0%".to_string()
    } else if (99.95..100.0).contains(&a) {
        // Never "100.0%" for what is not all of it (99.97% of lines dropped): two decimals,
        // rounded toward zero.
        format!("{:.2}%", (p * 100.0).trunc() / 100.0)
    } else if a >= 10.0 {
        format!("{p:.1}%")
    } else if a >= 0.1 {
        format!("{p:.2}%")
    } else if a >= 0.001 {
        format!("{p:.3}%")
    } else {
        "<0.001%".to_string()
    }
}

/// A measured value (a latency, a size) in at most 11 characters: whole numbers from 1,000 with
/// separators (rounded: 0.05% at most, far inside a quantile sketch's 1%), smaller ones with 4
/// significant digits, very large or very small ones in scientific notation.
///
/// ```
/// use tui_demo::human::value;
/// assert_eq!(value(2_417.0), "2,417");
/// assert_eq!(value(2_003.47), "2,003");
/// assert_eq!(value(200.0), "200");
/// assert_eq!(value(0.04213), "0.04213");
/// assert_eq!(value(-3.5), "-3.500");
/// assert_eq!(value(1.5e12), "1.500e12");
/// ```
#[must_use]
pub fn value(x: f64) -> String {
    let a = x.abs();
    let sign = if x < 0.0 { "-" } else { "" };
    if !x.is_finite() {
        format!("{x}")
    } else if a == 0.0 {
        "0".to_string()
    } else if !(1e-3..1e9).contains(&a) {
        format!("{x:.3e}")
    } else if a >= 1_000.0 {
        format!("{sign}{}", count(a.round() as u64))
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        format!("{x:.digits$}")
    }
}

/// The relative error of an estimate against the exact value, `|estimate − exact| / |exact|` (shown
/// with [`percent`], which caps it): `None` when the exact value is 0 (no relative error exists) or
/// the error is not a number. The quantiles panel and the report's table both use it.
///
/// ```
/// use tui_demo::human::{percent, relative_error};
/// assert_eq!(relative_error(1_005.0, 1_000.0).map(percent).as_deref(), Some("0.50%"));
/// // An estimate of 2.49e282 against an exact 1e-300 is an infinite error, not 0%.
/// assert_eq!(relative_error(2.49e282, 1e-300).map(percent).as_deref(), Some(">1000%"));
/// assert_eq!(relative_error(3.0, 0.0), None);
/// ```
#[must_use]
pub fn relative_error(estimate: f64, exact: f64) -> Option<f64> {
    let err = (estimate - exact).abs() / exact.abs();
    (exact != 0.0 && !err.is_nan()).then_some(err)
}

/// The name of a quantile: `p50`, `p90`, `p99`, `p999` for 0.5, 0.9, 0.99, 0.999.
///
/// ```
/// assert_eq!(tui_demo::human::quantile_name(0.999), "p999");
/// assert_eq!(tui_demo::human::quantile_name(0.5), "p50");
/// ```
#[must_use]
pub fn quantile_name(q: f64) -> String {
    let digits = format!("{q}");
    let tail = digits.strip_prefix("0.").unwrap_or(&digits);
    if tail.len() == 1 {
        format!("p{tail}0")
    } else {
        format!("p{tail}")
    }
}

/// A JSON pointer as a user writes the path (`/req/ms` as `req.ms`, as `--value-json` takes it),
/// or the pointer itself when a dotted path would be ambiguous (a segment with a `.` or an escape,
/// or an empty one).
///
/// ```
/// use tui_demo::human::json_path;
/// assert_eq!(json_path("/lat"), "lat");
/// assert_eq!(json_path("/req/ms"), "req.ms");
/// assert_eq!(json_path("/a.b/c"), "/a.b/c");
/// assert_eq!(json_path("/a~1b"), "/a~1b");
/// ```
#[must_use]
pub fn json_path(pointer: &str) -> String {
    let Some(rest) = pointer.strip_prefix('/') else {
        return pointer.to_string();
    };
    if rest
        .split('/')
        .all(|s| !s.is_empty() && !s.contains(['.', '~']))
    {
        rest.replace('/', ".")
    } else {
        pointer.to_string()
    }
}

/// A duration as `m:ss` (or `h:mm:ss` from an hour).
///
/// ```
/// use std::time::Duration;
/// assert_eq!(tui_demo::human::duration(Duration::from_secs(75)), "1:15");
/// assert_eq!(tui_demo::human::duration(Duration::from_secs(3_725)), "1:02:05");
/// ```
#[must_use]
pub fn duration(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s >= 3_600 {
        format!("{}:{:02}:{:02}", s / 3_600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// Turns raw log bytes into text that is safe to draw: invalid UTF-8 becomes U+FFFD, control
/// characters (escape sequences, tabs, NUL) and the bidirectional-text controls (which reorder
/// what follows them on a terminal: U+202E shows the rest of a row backwards) become visible
/// symbols, and the result is cut to at most `max_chars` characters with a trailing `…` when
/// something was cut. The same as [`KeyText::printable`] of [`KeyText::new`]`(raw, false,
/// max_chars)`.
#[must_use]
pub fn printable(raw: &[u8], max_chars: usize) -> String {
    KeyText::new(raw, false, max_chars).printable()
}

/// The text of a key (a log line, or the part of it counted) as it is kept: in the snapshot, in
/// saved files and in the JSON report, where a consumer gets the key back as it was. It is the
/// key's bytes as UTF-8, invalid sequences as U+FFFD, and nothing else changed: control characters
/// and bidirectional-text controls are kept (JSON escapes the former, `\u001b`). Only a terminal is
/// given [`printable`](Self::printable) text.
///
/// ```
/// use tui_demo::human::KeyText;
/// let k = KeyText::new(b"GET /\x1b[31m\tx", false, 200);
/// assert_eq!((k.line.as_str(), k.cut), ("GET /\u{1b}[31m\tx", false));
/// assert_eq!(k.printable(), "GET /␛[31m→x");
/// let long = KeyText::new(b"abcdef", false, 4);
/// assert_eq!((long.line.as_str(), long.cut, long.printable().as_str()), ("abcd", true, "abc…"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeyText {
    /// The key's text: its first characters when [`cut`](Self::cut), never part of a character.
    pub line: String,
    /// The key is longer than `line`.
    pub cut: bool,
}

impl KeyText {
    /// The text of a key whose bytes are `raw`, or only their start when `partial` (a streamed
    /// long line, of which the reader keeps the first bytes; its last character may be cut short
    /// there, and is left out), cut to at most `max_chars` characters.
    #[must_use]
    pub fn new(raw: &[u8], partial: bool, max_chars: usize) -> Self {
        let raw = if partial { whole_chars(raw) } else { raw };
        let text = String::from_utf8_lossy(raw);
        let mut chars = text.char_indices();
        let end = chars.nth(max_chars).map_or(text.len(), |(at, _)| at);
        Self {
            line: text.get(..end).unwrap_or_default().to_owned(),
            cut: partial || end < text.len(),
        }
    }

    /// [`printable`](Self::printable) text for a row of a list (the heavy hitters, the lines the
    /// dedupe filter passed): a key of spaces only shows them as `␣`, an empty one as `(empty)`.
    /// Both looked blank, and alike (a user test: the empty line and one of four spaces).
    ///
    /// ```
    /// use tui_demo::human::KeyText;
    /// assert_eq!(KeyText::new(b"", false, 9).in_a_list(), "(empty)");
    /// assert_eq!(KeyText::new(b"   ", false, 9).in_a_list(), "␣␣␣");
    /// assert_eq!(KeyText::new(b" a\t", false, 9).in_a_list(), " a→");
    /// ```
    #[must_use]
    pub fn in_a_list(&self) -> String {
        if self.line.is_empty() && !self.cut {
            return "(empty)".into();
        }
        if self.line.chars().all(|c| c == ' ') {
            return self.line.replace(' ', "␣");
        }
        self.printable()
    }

    /// The text to draw on a terminal: control characters as symbols (ESC `␛`, tab `→`, the rest
    /// and the bidirectional-text controls `·`), and a cut key's last character shown as `…`.
    /// Text that is already printable (that of a file saved before the raw text was kept) comes
    /// back unchanged.
    #[must_use]
    pub fn printable(&self) -> String {
        let mut out: String = self
            .line
            .chars()
            .map(|c| match c {
                '\t' => '→',
                '\u{1b}' => '␛',
                c if c.is_control() || is_bidi_control(c) => '·',
                c => c,
            })
            .collect();
        if self.cut && out.pop().is_some() {
            out.push('…');
        }
        out
    }
}

/// `raw` without a character cut short at its end: a lead byte followed by fewer continuation
/// bytes than it announces (what is left of a character when bytes are kept up to a length).
fn whole_chars(raw: &[u8]) -> &[u8] {
    for back in 1..=raw.len().min(3) {
        let at = raw.len() - back;
        let Some(&b) = raw.get(at) else { break };
        if b & 0xC0 != 0x80 {
            // Not a continuation byte: the start of the last character (or a byte of its own).
            let needs = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            return if needs > back {
                raw.get(..at).unwrap_or_default()
            } else {
                raw
            };
        }
    }
    raw
}

/// The Unicode bidirectional formatting characters (marks, embeddings, overrides, isolates).
const fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
        assert_eq!(count(1_234_567), "1,234,567");
        assert_eq!(count_f(-3.0), "0");
        assert_eq!(count_f(f64::NAN), "0");
        assert_eq!(short(12_345.0), "12.3k");
        assert_eq!(short(4_560_000.0), "4.56M");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(12_288), "12.0 KiB");
        assert_eq!(bytes(3 << 20), "3.0 MiB");
        assert_eq!(percent(0.0081), "0.81%");
        assert_eq!(percent(0.5), "50.0%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.000_001), "<0.001%");
    }

    #[test]
    fn extreme_percentages_and_values_fit_their_columns() {
        // The quantile table's columns: 14 for a value, 9 for an error (the panel's 11 and 7).
        for x in [
            1e300,
            -1e300,
            1e-300,
            -1e-300,
            -3.0,
            2.49e282,
            f64::MAX,
            f64::MIN_POSITIVE,
        ] {
            assert!(value(x).chars().count() <= 11, "{x}: {}", value(x));
            for exact in [1e300, 1e-300, -3.0, 5.0, 1e-3] {
                let shown = relative_error(x, exact).map_or_else(|| "-".into(), percent);
                assert!(shown.chars().count() <= 7, "{x} vs {exact}: {shown}");
            }
        }
        assert_eq!(percent(9.99), "999.0%");
        assert_eq!(percent(10.0), "1000.0%");
        assert_eq!(percent(10.01), ">1000%");
        assert_eq!(percent(f64::NEG_INFINITY), "<-1000%");
        assert_eq!(percent(f64::NAN), "0%");
        assert_eq!(
            relative_error(2.49e282, 1e-300).map(percent),
            Some(">1000%".into())
        );
        assert_eq!(relative_error(f64::INFINITY, f64::INFINITY), None);
    }

    #[test]
    fn printable_is_safe_and_bounded() {
        assert_eq!(printable(b"GET /\x1b[31m\tx", 40), "GET /␛[31m→x");
        assert_eq!(printable(b"ok \xff\xfe", 40), "ok \u{fffd}\u{fffd}");
        assert_eq!(printable(b"abcdef", 4), "abc…");
        assert_eq!(printable(b"abcd", 4), "abcd");
        assert_eq!(printable(b"", 0), "");
        assert_eq!(printable(b"a", 0), "");
        // Found by a user test: the text report printed a right-to-left override as it was.
        assert_eq!(
            printable("user \u{202e}gnp.exe\u{2066}x\u{200f}".as_bytes(), 40),
            "user ·gnp.exe·x·"
        );
        assert_eq!(printable("שלום".as_bytes(), 40), "שלום");
    }

    /// The hostile lines of the report tests: escape sequences, a tab, bidirectional controls, the
    /// symbols `printable` draws, invalid UTF-8.
    const HOSTILE: [&[u8]; 6] = [
        b"GET /\x1b[31m\tx",
        "user \u{202e}gnp.exe\u{2066}x\u{200f}".as_bytes(),
        "a literal ␛ and · and → and …".as_bytes(),
        b"ok \xff\xfe",
        b"nul \0 bell \x07 del \x7f",
        "שלום".as_bytes(),
    ];

    #[test]
    fn key_text_is_the_key_as_it_was() {
        for raw in HOSTILE {
            let k = KeyText::new(raw, false, 200);
            assert_eq!(k.line, String::from_utf8_lossy(raw), "{raw:?}");
            assert!(!k.cut);
        }
        // Cut to the budget of characters, never inside one, and said so.
        let k = KeyText::new("ab€€€".as_bytes(), false, 3);
        assert_eq!((k.line.as_str(), k.cut), ("ab€", true));
        assert!(!KeyText::new(b"abc", false, 3).cut);
        assert_eq!(KeyText::new(b"", false, 0), KeyText::default());
        assert_eq!(KeyText::new(b"a", false, 0).line, "");
    }

    #[test]
    fn the_start_of_a_longer_key_leaves_out_a_character_cut_short() {
        let euro = "€".as_bytes(); // 3 bytes
        let four = "😀".as_bytes(); // 4 bytes
        for (raw, want) in [
            (&euro[..1], ""),
            (&euro[..2], ""),
            (euro, "€"),
            (&four[..3], ""),
            (four, "😀"),
            (b"x\xc3".as_slice(), "x"),
            (b"x\xff".as_slice(), "x\u{fffd}"),
            (b"x\x80\x80\x80".as_slice(), "x\u{fffd}\u{fffd}\u{fffd}"),
        ] {
            let mut kept = b"ab".to_vec();
            kept.extend_from_slice(raw);
            let k = KeyText::new(&kept, true, 200);
            assert_eq!(k.line, format!("ab{want}"), "{raw:?}");
            assert!(k.cut, "a start is cut");
        }
        // Shown: at most as many characters as kept, the last one as `…`.
        assert_eq!(KeyText::new("ab€".as_bytes(), true, 200).printable(), "ab…");
    }

    #[test]
    fn printable_is_the_printable_key_text_and_idempotent() {
        for raw in HOSTILE {
            for max in [0, 1, 3, 8, 200] {
                let shown = printable(raw, max);
                assert_eq!(shown, KeyText::new(raw, false, max).printable());
                assert!(!shown.chars().any(|c| c.is_control() || is_bidi_control(c)));
                // Files saved before the raw text was kept hold this: shown again, unchanged,
                // whether it is taken as cut (it ends with `…`) or not.
                for cut in [false, shown.ends_with('…')] {
                    let again = KeyText {
                        line: shown.clone(),
                        cut,
                    };
                    assert_eq!(again.printable(), shown, "{raw:?} {max}");
                }
            }
        }
    }
}
