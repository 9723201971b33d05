//! `metav1.Duration`: a Go `time.Duration` carried on the wire as a string such as `"1m30s"`.
//!
//! Parsing follows Go's `time.ParseDuration` and formatting follows `time.Duration.String()`,
//! so a value read and written again is byte-for-byte what the Go types would emit
//! (`"90s"` is emitted as `"1m30s"`, exactly like the Go webhook does).

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const NANOSECOND: u64 = 1;
const MICROSECOND: u64 = 1_000;
const MILLISECOND: u64 = 1_000_000;
const SECOND: u64 = 1_000_000_000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const LIMIT: u64 = 1 << 63;

/// A Go `time.Duration` (signed nanoseconds) with Go's text form.
///
/// ```
/// use capi_machinepool_api::Duration;
/// let d: Duration = "90s".parse().unwrap();
/// assert_eq!(d.as_nanos(), 90_000_000_000);
/// assert_eq!(d.to_string(), "1m30s");
/// assert_eq!(Duration::from_secs(0).to_string(), "0s");
/// assert!("10d".parse::<Duration>().is_err());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(i64);

/// Error returned when a string is not a valid Go duration.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("time: {reason} {input:?}")]
pub struct ParseDurationError {
    reason: &'static str,
    input: String,
}

impl Duration {
    /// A duration of `nanos` nanoseconds.
    #[must_use]
    pub const fn from_nanos(nanos: i64) -> Self {
        Self(nanos)
    }

    /// A duration of whole seconds (saturating at the `i64` nanosecond range).
    #[must_use]
    pub const fn from_secs(secs: i64) -> Self {
        Self(secs.saturating_mul(SECOND as i64))
    }

    /// The duration in nanoseconds.
    #[must_use]
    pub const fn as_nanos(self) -> i64 {
        self.0
    }

    /// The duration in (fractional) seconds, as Go's `Duration.Seconds()`.
    #[must_use]
    pub fn as_secs_f64(self) -> f64 {
        let sec = self.0 / SECOND as i64;
        let nsec = self.0 % SECOND as i64;
        sec as f64 + nsec as f64 / 1e9
    }
}

fn invalid(reason: &'static str, input: &str) -> ParseDurationError {
    ParseDurationError {
        reason,
        input: input.to_owned(),
    }
}

/// Consumes leading decimal digits; `None` on overflow of 2^63.
fn leading_int(s: &str) -> Option<(u64, &str)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut x: u64 = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        if x > LIMIT / 10 {
            return None;
        }
        x = x * 10 + u64::from(bytes[i] - b'0');
        if x > LIMIT {
            return None;
        }
        i += 1;
    }
    Some((x, &s[i..]))
}

/// Consumes leading fraction digits; precision beyond 2^63 is silently dropped as Go does.
fn leading_fraction(s: &str) -> (u64, f64, &str) {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut x: u64 = 0;
    let mut scale = 1.0;
    let mut overflow = false;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        if !overflow {
            if x > (LIMIT - 1) / 10 {
                overflow = true;
            } else {
                let y = x * 10 + u64::from(bytes[i] - b'0');
                if y > LIMIT {
                    overflow = true;
                } else {
                    x = y;
                    scale *= 10.0;
                }
            }
        }
        i += 1;
    }
    (x, scale, &s[i..])
}

fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => NANOSECOND,
        "us" | "\u{b5}s" | "\u{3bc}s" => MICROSECOND,
        "ms" => MILLISECOND,
        "s" => SECOND,
        "m" => MINUTE,
        "h" => HOUR,
        _ => return None,
    })
}

impl FromStr for Duration {
    type Err = ParseDurationError;

    fn from_str(orig: &str) -> Result<Self, Self::Err> {
        let mut s = orig;
        let mut neg = false;
        if let Some(rest) = s.strip_prefix('-') {
            neg = true;
            s = rest;
        } else if let Some(rest) = s.strip_prefix('+') {
            s = rest;
        }
        if s == "0" {
            return Ok(Self(0));
        }
        if s.is_empty() {
            return Err(invalid("invalid duration", orig));
        }
        let mut total: u64 = 0;
        while !s.is_empty() {
            let first = s.as_bytes()[0];
            if !(first == b'.' || first.is_ascii_digit()) {
                return Err(invalid("invalid duration", orig));
            }
            let before = s.len();
            let (mut v, rest) = leading_int(s).ok_or_else(|| invalid("invalid duration", orig))?;
            s = rest;
            let pre = before != s.len();
            let mut post = false;
            let mut frac = 0u64;
            let mut scale = 1.0;
            if let Some(rest) = s.strip_prefix('.') {
                let before = rest.len();
                let (f, sc, rest) = leading_fraction(rest);
                post = before != rest.len();
                frac = f;
                scale = sc;
                s = rest;
            }
            if !pre && !post {
                return Err(invalid("invalid duration", orig));
            }
            let unit_len = s
                .find(|c: char| c == '.' || c.is_ascii_digit())
                .unwrap_or(s.len());
            if unit_len == 0 {
                return Err(invalid("missing unit in duration", orig));
            }
            let unit = unit_nanos(&s[..unit_len])
                .ok_or_else(|| invalid("unknown unit in duration", orig))?;
            s = &s[unit_len..];
            if v > LIMIT / unit {
                return Err(invalid("invalid duration", orig));
            }
            v *= unit;
            if frac > 0 {
                // Go computes the fractional part in float64, truncating toward zero.
                v += (frac as f64 * (unit as f64 / scale)) as u64;
                if v > LIMIT {
                    return Err(invalid("invalid duration", orig));
                }
            }
            total += v;
            if total > LIMIT {
                return Err(invalid("invalid duration", orig));
            }
        }
        if neg {
            // total <= 2^63, so the negation fits (2^63 maps to i64::MIN).
            return Ok(Self((total as i128).wrapping_neg() as i64));
        }
        if total > LIMIT - 1 {
            return Err(invalid("invalid duration", orig));
        }
        Ok(Self(total as i64))
    }
}

/// Go's text of a duration, built on the stack (the longest, `-2562047h47m16.854775808s`,
/// has 25 bytes).
struct Text {
    bytes: [u8; 32],
    len: usize,
}

impl Text {
    const fn new() -> Self {
        Self {
            bytes: [0; 32],
            len: 0,
        }
    }

    fn push(&mut self, s: &[u8]) {
        let end = self.len + s.len();
        if let Some(slot) = self.bytes.get_mut(self.len..end) {
            slot.copy_from_slice(s);
            self.len = end;
        }
    }

    /// Appends `v` in decimal, left-padded with zeros to `width` digits.
    fn push_int(&mut self, mut v: u64, width: usize) {
        let mut digits = [b'0'; 20];
        let mut start = digits.len();
        while v > 0 || start == digits.len() {
            start -= 1;
            digits[start] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        let start = start.min(digits.len().saturating_sub(width));
        self.push(&digits[start..]);
    }

    /// Appends the fraction `v % 10^prec` Go's way: `.` and its digits without trailing
    /// zeros, nothing when it is 0; returns the integer part `v / 10^prec`.
    fn push_frac(&mut self, v: u64, prec: u32) -> u64 {
        let pow = 10u64.pow(prec);
        let (mut digits, mut width) = (v % pow, prec as usize);
        if digits != 0 {
            while digits % 10 == 0 {
                digits /= 10;
                width -= 1;
            }
            self.push(b".");
            self.push_int(digits, width);
        }
        v / pow
    }

    fn as_str(&self) -> &str {
        // Only whole `str`s and ASCII digits are pushed.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl Duration {
    /// `time.Duration.String()`.
    fn text(self) -> Text {
        let mut text = Text::new();
        let u = self.0.unsigned_abs();
        if self.0 < 0 {
            text.push(b"-");
        }
        if u < SECOND {
            let (prec, unit) = match u {
                0 => {
                    text.push(b"0s");
                    return text;
                }
                u if u < MICROSECOND => (0, "ns"),
                u if u < MILLISECOND => (3, "\u{b5}s"),
                _ => (6, "ms"),
            };
            // The integer part comes first: print the fraction into a scratch buffer.
            let mut frac = Text::new();
            let int = frac.push_frac(u, prec);
            text.push_int(int, 1);
            text.push(&frac.bytes[..frac.len]);
            text.push(unit.as_bytes());
            return text;
        }
        let mut frac = Text::new();
        let secs = frac.push_frac(u, 9);
        let minutes = secs / 60;
        let hours = minutes / 60;
        if hours > 0 {
            text.push_int(hours, 1);
            text.push(b"h");
        }
        if minutes > 0 {
            text.push_int(minutes % 60, 1);
            text.push(b"m");
        }
        text.push_int(secs % 60, 1);
        text.push(&frac.bytes[..frac.len]);
        text.push(b"s");
        text
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text().as_str())
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.text().as_str())
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl serde::de::Visitor<'_> for TextVisitor {
            type Value = Duration;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration string such as \"1m30s\"")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Duration, E> {
                text.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(TextVisitor)
    }
}

impl JsonSchema for Duration {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_go() {
        let cases = [
            (0, "0s"),
            (1, "1ns"),
            (1_100, "1.1\u{b5}s"),
            (2_200_000, "2.2ms"),
            (SECOND as i64, "1s"),
            (1_500_000_000, "1.5s"),
            (10 * SECOND as i64, "10s"),
            (60 * SECOND as i64, "1m0s"),
            (90 * SECOND as i64, "1m30s"),
            (3600 * SECOND as i64, "1h0m0s"),
            (3_661_500_000_000, "1h1m1.5s"),
            (-90 * SECOND as i64, "-1m30s"),
            (i64::MAX, "2562047h47m16.854775807s"),
            (i64::MIN, "-2562047h47m16.854775808s"),
        ];
        for (nanos, text) in cases {
            assert_eq!(Duration(nanos).to_string(), text, "{nanos}");
        }
    }

    /// `time.Duration.String()` written the direct way (allocating), as a reference.
    fn reference(nanos: i64) -> String {
        fn frac(v: u64, prec: u32) -> (u64, String) {
            let pow = 10u64.pow(prec);
            if v.is_multiple_of(pow) {
                return (v / pow, String::new());
            }
            let digits = format!("{:0width$}", v % pow, width = prec as usize);
            (v / pow, format!(".{}", digits.trim_end_matches('0')))
        }
        let sign = if nanos < 0 { "-" } else { "" };
        let u = nanos.unsigned_abs();
        if u == 0 {
            return "0s".into();
        }
        if u < SECOND {
            let (prec, unit) = match u {
                u if u < MICROSECOND => (0, "ns"),
                u if u < MILLISECOND => (3, "\u{b5}s"),
                _ => (6, "ms"),
            };
            let (int, f) = frac(u, prec);
            return format!("{sign}{int}{f}{unit}");
        }
        let (secs, f) = frac(u, 9);
        let (m, h) = (secs / 60, secs / 3600);
        if h > 0 {
            format!("{sign}{h}h{}m{}{f}s", m % 60, secs % 60)
        } else if m > 0 {
            format!("{sign}{m}m{}{f}s", secs % 60)
        } else {
            format!("{sign}{secs}{f}s")
        }
    }

    proptest::proptest! {
        #[test]
        fn formats_as_the_reference(nanos in proptest::prelude::any::<i64>(), small in -10_000_000_000i64..10_000_000_000) {
            for n in [nanos, small, small * 1000, small / 1000] {
                proptest::prop_assert_eq!(Duration(n).to_string(), reference(n));
                let printed = serde_json::to_string(&Duration(n)).unwrap();
                proptest::prop_assert_eq!(serde_json::from_str::<Duration>(&printed).unwrap(), Duration(n));
            }
        }
    }

    #[test]
    fn parses_like_go() {
        let ok = [
            ("0", 0),
            ("+0", 0),
            ("-0", 0),
            ("5s", 5 * SECOND as i64),
            ("1.5h", 5400 * SECOND as i64),
            ("1h2m3s4ms5us6ns", 3_723_004_005_006),
            ("1\u{b5}s", 1000),
            ("1\u{3bc}s", 1000),
            (".5s", 500_000_000),
            ("5.s", 5 * SECOND as i64),
            ("-1.5s", -1_500_000_000),
            ("9223372036854775807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("0.100000000000000000000h", 360 * SECOND as i64),
        ];
        for (text, nanos) in ok {
            assert_eq!(text.parse::<Duration>(), Ok(Duration(nanos)), "{text}");
        }
        for bad in [
            "",
            "3",
            "-",
            "s",
            ".",
            ".s",
            "+.s",
            "1d",
            "1.5x",
            "9223372036854775808ns",
            "3000000h",
        ] {
            assert!(bad.parse::<Duration>().is_err(), "{bad:?} must be rejected");
        }
    }

    #[test]
    fn serde_uses_text_form() {
        let d: Duration = serde_json::from_str("\"90s\"").unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), "\"1m30s\"");
        for nanos in [i64::MIN, i64::MAX, 1_100, 3_661_500_000_000] {
            let d = Duration(nanos);
            assert_eq!(serde_json::to_string(&d).unwrap(), format!("\"{d}\""));
            assert_eq!(
                serde_json::from_str::<Duration>(&format!("\"{d}\"")).unwrap(),
                d
            );
        }
        let err = serde_json::from_str::<Duration>("\"ten seconds\"").unwrap_err();
        assert!(err.to_string().contains("invalid duration"), "{err}");
    }
}
