//! What a line's key is, beyond whitespace fields ([`KeyFields`](super::engine::KeyFields)): a
//! regular-expression capture (`--key-regex`, the `regex` crate), a field of a JSON-lines log
//! (`--json-key`, `serde_json`), and a leading timestamp stripped first (`--strip-timestamp`).
//!
//! A line the rule finds no key in (no match, not JSON, no such field) is not counted by the
//! sketches; it is counted in `missing_field`, which the report and the Ingest panel show as lines
//! without the key.

use std::sync::Arc;

use regex::bytes::Regex;

/// The common leading timestamp forms `--strip-timestamp` removes, with the separators after them:
/// ISO 8601 / RFC 3339 (`2024-05-01T12:00:00.123Z`, `2024-05-01 12:00:00,123 +02:00`) and its
/// slashed form (nginx's error log, `2024/05/01 12:00:00`), syslog (`May  1 12:00:00`, after a
/// priority `<34>` too, RFC 5424's `<34>1 ` before an ISO time or its nil timestamp `-`), a date
/// alone (`2024-05-01`), C's `ctime` (`Wed May  1 12:00:00 2024`), the common log format's date
/// (`01/May/2024:12:00:00 +0000`), a time of day (`12:00:00.123`), Unix seconds, milliseconds,
/// microseconds or nanoseconds with an optional fraction (`1714564800.123`, `1714564800123`), each
/// optionally in brackets.
pub const TIMESTAMP: &str = r"^(?:<\d{1,3}>\d -(?:\s+|$)|(?:<\d{1,3}>(?:\d )?)?\[?(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:\s?(?:Z|[+-]\d{2}:?\d{2}))?|\d{4}-\d{2}-\d{2}|\d{4}/\d{2}/\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?|(?:[A-Z][a-z]{2} )?[A-Z][a-z]{2} [ \d]?\d \d{2}:\d{2}:\d{2}(?:\.\d+)?(?: \d{4})?|\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2}(?: [+-]\d{4})?|\d{2}:\d{2}:\d{2}(?:[.,]\d+)?|\d{10}(?:\d{3}){0,3}(?:\.\d+)?)\]?(?:[\s|:,-]+|$))";

/// How the key is taken from a line when it is not whole fields.
#[derive(Clone, Debug)]
pub enum KeyRule {
    /// The line itself (after `--field`, if any).
    Line,
    /// A regular expression's capture: the group named `key`, else group 1, else the whole match
    /// (a line whose match leaves that group out has no key).
    Regex(Arc<Regex>),
    /// A JSON value: the line is a JSON object, the key is the value at this JSON pointer (a
    /// string's contents, else the value's JSON text as written, without its white space: a
    /// number is not rewritten, `1e3` stays `1e3` and an integer past 2^64 itself; `null` is no
    /// key).
    Json(String),
}

impl PartialEq for KeyRule {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Line, Self::Line) => true,
            (Self::Regex(a), Self::Regex(b)) => a.as_str() == b.as_str(),
            (Self::Json(a), Self::Json(b)) => a == b,
            _ => false,
        }
    }
}

impl KeyRule {
    /// A `--key-regex`.
    ///
    /// # Errors
    /// The `regex` crate's message for a pattern it refuses.
    pub fn regex(pattern: &str) -> Result<Self, String> {
        Regex::new(pattern)
            .map(|r| Self::Regex(Arc::new(r)))
            .map_err(|e| e.to_string())
    }

    /// A `--json-key`: a dotted path (`user.id`, `items.0.sku`) or a JSON pointer (`/user/id`).
    ///
    /// # Errors
    /// An empty path.
    pub fn json(path: &str) -> Result<Self, String> {
        let path = path.trim();
        if path.is_empty() || path == "." {
            return Err("a field name or path, e.g. user.id or /user/id".into());
        }
        let pointer = if path.starts_with('/') {
            path.to_string()
        } else {
            path.split('.')
                .map(|p| format!("/{}", p.replace('~', "~0").replace('/', "~1")))
                .collect()
        };
        Ok(Self::Json(pointer))
    }

    /// Whether the key is the line (or its fields) as it is.
    #[must_use]
    pub fn is_line(&self) -> bool {
        matches!(self, Self::Line)
    }

    /// Writes the key of `line` into `out`; `false` if the line has none (then `out` is empty).
    ///
    /// ```
    /// use tui_demo::ingest::key::KeyRule;
    /// let mut out = Vec::new();
    /// let r = KeyRule::regex(r"user=(?P<key>\w+)").unwrap();
    /// assert!(r.extract(b"GET /a user=ada took 3ms", &mut out));
    /// assert_eq!(out, b"ada");
    /// let j = KeyRule::json("req.path").unwrap();
    /// assert!(j.extract(br#"{"ts":1,"req":{"path":"/a"}}"#, &mut out));
    /// assert_eq!(out, b"/a");
    /// assert!(!j.extract(b"not json", &mut out));
    /// ```
    pub fn extract(&self, line: &[u8], out: &mut Vec<u8>) -> bool {
        out.clear();
        match self {
            Self::Line => {
                out.extend_from_slice(line);
                true
            }
            Self::Regex(re) => {
                let Some(caps) = re.captures(line) else {
                    return false;
                };
                // The group is chosen by the pattern, not by the match: a `key` group (or group
                // 1) that took no part in it (`id=(\d+)?` on `id=`) leaves the line without a key,
                // where the whole match (`id=`) was counted as a key of another kind.
                let m = if re.capture_names().flatten().any(|n| n == "key") {
                    caps.name("key")
                } else {
                    caps.get(usize::from(re.captures_len() > 1))
                };
                match m {
                    Some(m) => {
                        out.extend_from_slice(m.as_bytes());
                        true
                    }
                    None => false,
                }
            }
            Self::Json(pointer) => json_key(json_text(line), pointer, out),
        }
    }

    /// How the rule is named in the header and the report.
    #[must_use]
    pub fn describe(&self) -> Option<String> {
        match self {
            Self::Line => None,
            Self::Regex(r) => Some(format!("regex {}", r.as_str())),
            Self::Json(p) => Some(format!("JSON {p}")),
        }
    }
}

/// `--strip-timestamp`: removes a leading timestamp.
#[derive(Clone, Debug)]
pub struct TimestampStrip(Arc<Regex>);

impl TimestampStrip {
    /// The strip of [`TIMESTAMP`].
    ///
    /// # Panics
    /// Never: the pattern is fixed and tested.
    #[must_use]
    pub fn new() -> Self {
        Self(Arc::new(
            Regex::new(TIMESTAMP).expect("the timestamp pattern compiles"),
        ))
    }

    /// The line without its leading timestamp (the line itself if it starts with none).
    ///
    /// ```
    /// let s = tui_demo::ingest::key::TimestampStrip::new();
    /// assert_eq!(s.strip(b"2024-05-01T12:00:00.123Z GET /a"), b"GET /a");
    /// assert_eq!(s.strip(b"GET /a"), b"GET /a");
    /// ```
    #[must_use]
    pub fn strip<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        match self.0.find(line) {
            Some(m) => line.get(m.end()..).unwrap_or_default(),
            None => line,
        }
    }
}

impl Default for TimestampStrip {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for TimestampStrip {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// `--json-key`: writes the key of the JSON `line` at `pointer` into `out` ([`KeyRule::Json`]);
/// `false` when the line is not JSON, has no such value, or it is `null`. The line is checked
/// whole, then walked one level per step of the pointer, each value kept as the text it was
/// written as ([`RawValue`](serde_json::value::RawValue)): a number is never read as a float and
/// written back.
fn json_key(line: &[u8], pointer: &str, out: &mut Vec<u8>) -> bool {
    use serde_json::value::RawValue;
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    // Each step parses the value it is in, whole (the line first: trailing garbage is refused, as
    // a parse into a tree would), keeping what it holds as text for the next step.
    let mut at = text;
    for step in pointer.split('/').skip(1) {
        let step: std::borrow::Cow<'_, str> = if step.contains('~') {
            step.replace("~1", "/").replace("~0", "~").into()
        } else {
            step.into()
        };
        let inner = at.trim_start();
        let next = if inner.starts_with('{') {
            // The last of duplicate names wins, as in `jq`.
            serde_json::from_str::<std::collections::HashMap<std::borrow::Cow<'_, str>, &RawValue>>(
                at,
            )
            .ok()
            .and_then(|m| m.get(step.as_ref()).copied())
        } else if inner.starts_with('[') {
            // An index as JSON pointers write it: no sign, no leading zero.
            let canonical = !(step.starts_with('+') || step.len() > 1 && step.starts_with('0'));
            let index = canonical.then(|| step.parse::<usize>().ok()).flatten();
            index.and_then(|i| {
                serde_json::from_str::<Vec<&RawValue>>(at)
                    .ok()
                    .and_then(|v| v.get(i).copied())
            })
        } else {
            None
        };
        let Some(next) = next else {
            return false;
        };
        at = next.get();
    }
    // The value reached (checked whole, its white space trimmed: the line itself for no step).
    let Ok(at) = serde_json::from_str::<&RawValue>(at) else {
        return false;
    };
    let raw = at.get();
    if raw == "null" {
        return false;
    }
    if raw.starts_with('"') {
        // A string: its contents, unescaped.
        return match serde_json::from_str::<std::borrow::Cow<'_, str>>(raw) {
            Ok(s) => {
                out.extend_from_slice(s.as_bytes());
                true
            }
            Err(_) => false,
        };
    }
    // A number, `true`, `false`, an object or an array: its text without white space outside
    // strings (compact JSON, as written).
    let (mut in_string, mut escaped) = (false, false);
    for &b in raw.as_bytes() {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
            out.push(b);
        }
    }
    true
}

/// A JSON line's text for the parser: without the UTF-8 byte order mark some writers put at the
/// start of a file (on its first line; JSON parsers refuse it, `jq` skips it).
///
/// ```
/// use tui_demo::ingest::key::json_text;
/// assert_eq!(json_text(b"\xEF\xBB\xBF{\"a\":1}"), b"{\"a\":1}");
/// assert_eq!(json_text(b"{}"), b"{}");
/// ```
#[must_use]
pub fn json_text(line: &[u8]) -> &[u8] {
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_timestamps_are_stripped() {
        let s = TimestampStrip::new();
        for line in [
            "2024-05-01T12:00:00Z GET /a",
            "2024-05-01T12:00:00.123456+02:00 GET /a",
            "2024-05-01 12:00:00,123 GET /a",
            "2024-05-01 12:00:00 +0200 | GET /a",
            "[2024-05-01 12:00:00] GET /a",
            "May  1 12:00:00 GET /a",
            "Dec 31 23:59:59 GET /a",
            "[01/May/2024:12:00:00 +0000] GET /a",
            "12:00:00.123 GET /a",
            "1714564800.123 GET /a",
            "1714564800 - GET /a",
            // Found missing by a user test: nginx's error log, syslog with a priority (and RFC
            // 5424's version after it), ctime, Unix milliseconds (and micro-, nanoseconds).
            "2024/05/01 12:00:00 GET /a",
            "<34>May  1 12:00:00 GET /a",
            "<165>1 2024-05-01T12:00:00.003Z GET /a",
            "Wed May  1 12:00:00 2024 GET /a",
            "[Wed May 01 12:00:00.123 2024] GET /a",
            "1714564800123 GET /a",
            "1714564800123456 GET /a",
            "1714564800123456789 GET /a",
            // Found missing by a user test: RFC 5424's nil timestamp (after the priority and
            // version only), a date alone.
            "<34>1 - GET /a",
            "2024-05-01 GET /a",
            "[2024-05-01] GET /a",
        ] {
            assert_eq!(
                std::str::from_utf8(s.strip(line.as_bytes())).unwrap(),
                "GET /a",
                "{line}"
            );
        }
        // Not timestamps: kept whole.
        for line in [
            "GET /a",
            "404 not found",
            "12345 items",
            "2024 was a year",
            "<b>bold</b>",
            "17145648001 items",
            "- GET /a",
            "<34> - GET /a",
            "2024-05 GET /a",
        ] {
            assert_eq!(s.strip(line.as_bytes()), line.as_bytes(), "{line}");
        }
    }

    #[test]
    fn regex_groups_and_json_paths() {
        let mut out = Vec::new();
        let r = KeyRule::regex(r"(\d+)ms").unwrap();
        assert!(r.extract(b"took 15ms", &mut out));
        assert_eq!(out, b"15");
        assert!(!r.extract(b"took long", &mut out));
        assert!(out.is_empty());
        let whole = KeyRule::regex(r"GET \S+").unwrap();
        assert!(whole.extract(b"x GET /a y", &mut out));
        assert_eq!(out, b"GET /a");
        assert!(KeyRule::regex("(").is_err());
        // Found by a user test: a `key` group (or group 1) that took no part in the match made
        // the whole match the key (`id=`, `u=`), a key of another kind than the others.
        for (pattern, line, key) in [
            (r"id=(?P<key>\d+)?", "id= ok", None),
            (r"id=(?P<key>\d+)?", "id=42 ok", Some("42")),
            (r"u=(\w+)?", "u= x", None),
            (r"(?P<key>zz)?u=", "u=1", None),
            (r"(a)|(b)", "b", None),
            (r"(?P<other>x)?(?P<key>y)", "y", Some("y")),
        ] {
            let r = KeyRule::regex(pattern).unwrap();
            let found = r.extract(line.as_bytes(), &mut out);
            assert_eq!(
                found.then(|| String::from_utf8(out.clone()).unwrap()),
                key.map(String::from),
                "{pattern} on {line}"
            );
        }

        // A byte order mark before the first line's JSON (found by a user test: the line was
        // counted as not JSON).
        let bom = KeyRule::json("a").unwrap();
        assert!(bom.extract(b"\xEF\xBB\xBF{\"a\":\"x\"}", &mut out));
        assert_eq!(out, b"x");
        let j = KeyRule::json("a.1").unwrap();
        assert!(j.extract(br#"{"a":[10,{"b":2}]}"#, &mut out));
        assert_eq!(out, br#"{"b":2}"#);
        let n = KeyRule::json("/n").unwrap();
        assert!(n.extract(br#"{"n":42}"#, &mut out));
        assert_eq!(out, b"42");
        assert!(!n.extract(br#"{"n":null}"#, &mut out));
        assert!(!n.extract(br#"{"m":1}"#, &mut out));
        assert!(!n.extract(b"{broken", &mut out));
        assert!(!n.extract(br#"{"n":1} trailing"#, &mut out));
        // Found by a user test: values went through a tree whose numbers are floats, so two
        // integers past 2^64 were one key, `1e3` was `1000.0` and `-0` was `-0.0`. Now a value's
        // text as written, white space outside strings removed.
        let id = KeyRule::json("id").unwrap();
        for (line, key) in [
            (
                r#"{"id":123456789012345678901234}"#,
                Some("123456789012345678901234"),
            ),
            (
                r#"{"id":123456789012345678901235}"#,
                Some("123456789012345678901235"),
            ),
            (r#"{"id": 1e3 }"#, Some("1e3")),
            (r#"{"id":-0}"#, Some("-0")),
            (r#"{"id":true}"#, Some("true")),
            (r#"{"id":null}"#, None),
            (r#"{"id":"a\"b\u00e9"}"#, Some("a\"bé")),
            (r#"{"id":1,"id":2}"#, Some("2")),
            (
                r#"{"id": {"x": [1, 2.50], "s": "a b"}}"#,
                Some(r#"{"x":[1,2.50],"s":"a b"}"#),
            ),
            (r#"{"i\u0064":7}"#, Some("7")),
        ] {
            let found = id.extract(line.as_bytes(), &mut out);
            assert_eq!(
                found.then(|| String::from_utf8(out.clone()).unwrap()),
                key.map(String::from),
                "{line}"
            );
        }
        // Pointers: escapes, array indexes (no leading zero or sign), a name that is a number.
        for (path, line, key) in [
            ("/a~1b/~0c", r#"{"a/b":{"~c":"x"}}"#, Some("x")),
            (
                "items.1.sku",
                r#"{"items":[{"sku":"a"},{"sku":"b"}]}"#,
                Some("b"),
            ),
            ("/items/01", r#"{"items":[1,2]}"#, None),
            ("/items/+1", r#"{"items":[1,2]}"#, None),
            ("/items/2", r#"{"items":[1,2]}"#, None),
            ("m.0", r#"{"m":{"0":"zero"}}"#, Some("zero")),
            ("/", r#"{"":"empty name"}"#, Some("empty name")),
        ] {
            let rule = KeyRule::json(path).unwrap();
            let found = rule.extract(line.as_bytes(), &mut out);
            assert_eq!(
                found.then(|| String::from_utf8(out.clone()).unwrap()),
                key.map(String::from),
                "{path} in {line}"
            );
        }
        assert!(KeyRule::json("").is_err());
        assert_eq!(
            KeyRule::json("a/b.c").unwrap(),
            KeyRule::Json("/a~1b/c".into())
        );
    }
}
