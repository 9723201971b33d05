//! Go `encoding/json` compatibility: the bytes upstream Cluster API writes for the same object.
//!
//! The types of this crate already serialize with Go's field order and `omitempty` /
//! `omitzero` decisions, including the k8s-openapi types they embed (`ObjectMeta`,
//! `ObjectReference`, `metav1.Condition`), which are written here in Go struct order instead
//! of k8s-openapi's alphabetical order. What `serde_json::to_vec` cannot do is Go's string
//! escaping: `encoding/json` escapes `<`, `>`, `&`, U+2028 and U+2029. [`to_vec`],
//! [`to_string`] and [`to_writer`] add it, so their output is byte-for-byte what Go's
//! `json.Marshal` prints.
//!
//! ```
//! use capi_machinepool_api::{v1beta2, wire};
//! let mut mp = v1beta2::MachinePool::new("mp", Default::default());
//! mp.metadata.namespace = Some(String::new()); // dropped, as Go's omitempty does
//! mp.metadata.labels = Some([("app".to_owned(), "<web>".to_owned())].into());
//! assert_eq!(
//!     wire::to_string(&mp).unwrap(),
//!     r#"{"kind":"MachinePool","apiVersion":"cluster.x-k8s.io/v1beta2","metadata":{"name":"mp","labels":{"app":"\u003cweb\u003e"}}}"#
//! );
//! ```

pub(crate) mod condition;
pub(crate) mod int;
mod limit;
pub(crate) mod meta;
pub(crate) mod reference;
pub mod time;

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

pub use condition::GoCondition;
pub use limit::{OutputLimitExceeded, with_output_limit};
pub use meta::GoObjectMeta;
pub use reference::GoObjectReference;

/// A compact `serde_json` formatter that escapes strings as Go's `encoding/json` does
/// (`<`, `>`, `&` as `\u003c`, `\u003e`, `\u0026`; U+2028 and U+2029 as `\u2028`, `\u2029`).
/// Control characters and quotes are escaped identically by both already.
#[derive(Clone, Copy, Debug, Default)]
pub struct GoFormatter;

/// The escape Go writes for the byte at `i` of `bytes`, and how many bytes it replaces.
fn go_escape(bytes: &[u8], i: usize) -> Option<(&'static [u8], usize)> {
    match bytes[i] {
        b'<' => Some((b"\\u003c", 1)),
        b'>' => Some((b"\\u003e", 1)),
        b'&' => Some((b"\\u0026", 1)),
        0xE2 if bytes.get(i + 1) == Some(&0x80) => match bytes.get(i + 2) {
            Some(0xA8) => Some((b"\\u2028", 3)),
            Some(0xA9) => Some((b"\\u2029", 3)),
            _ => None,
        },
        _ => None,
    }
}

impl Formatter for GoFormatter {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let bytes = fragment.as_bytes();
        // Most fragments hold nothing Go escapes beyond serde_json: one scan, one write.
        let special = |b: &u8| matches!(b, b'<' | b'>' | b'&' | 0xE2);
        let Some(first) = bytes.iter().position(special) else {
            return writer.write_all(bytes);
        };
        let mut start = 0;
        let mut i = first;
        while i < bytes.len() {
            match go_escape(bytes, i) {
                Some((escape, len)) => {
                    writer.write_all(&bytes[start..i])?;
                    writer.write_all(escape)?;
                    i += len;
                    start = i;
                }
                None => i += 1,
            }
        }
        writer.write_all(&bytes[start..])
    }
}

/// Serializes `value` as Go's `json.Marshal` would print it (see the module docs).
///
/// # Errors
/// When `value`'s `Serialize` implementation fails, or `writer` does.
pub fn to_writer<W: io::Write, T: ?Sized + Serialize>(
    writer: W,
    value: &T,
) -> serde_json::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(writer, GoFormatter);
    value.serialize(&mut serializer)
}

/// True when compact JSON text holds a character Go escapes and `serde_json` does not
/// (`<`, `>`, `&`, U+2028, U+2029). Outside strings JSON has none of them, so text without
/// them is already what Go prints.
fn needs_go_escapes(json: &[u8]) -> bool {
    memchr::memchr3(b'<', b'>', b'&', json).is_some()
        || memchr::memchr_iter(0xE2, json).any(|i| go_escape(json, i).is_some())
}

/// Prints `value` with [`GoFormatter`] (the path taken when [`needs_go_escapes`] says so)
/// into a buffer of exactly its size: the size is counted by a first print that keeps
/// nothing (and stops at the [`with_output_limit`] limit), so the buffer never grows by
/// doubling and never passes the limit.
fn go_print<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut counter = limit::Counter {
        written: 0,
        limit: limit::current().unwrap_or(usize::MAX),
    };
    to_writer(&mut counter, value)?;
    let mut out = Vec::with_capacity(counter.written);
    to_writer(&mut out, value)?;
    Ok(out)
}

/// `serde_json`'s compact print of `value` into a buffer of `capacity` bytes to start with,
/// stopped at the [`with_output_limit`] limit (Go's print is never shorter, so a compact
/// print over the limit means Go's is over it too).
fn compact_print<T: ?Sized + Serialize>(value: &T, capacity: usize) -> serde_json::Result<Vec<u8>> {
    match limit::current() {
        None => {
            let mut out = Vec::with_capacity(capacity);
            serde_json::to_writer(&mut out, value)?;
            Ok(out)
        }
        Some(max) => {
            let mut out = Vec::with_capacity(capacity.min(max));
            serde_json::to_writer(
                limit::Bounded {
                    out: &mut out,
                    start: 0,
                    limit: max,
                },
                value,
            )?;
            Ok(out)
        }
    }
}

/// Bytes of either printer as a `String`: both only write the UTF-8 they were given and
/// ASCII escapes.
fn into_string(bytes: Vec<u8>) -> serde_json::Result<String> {
    String::from_utf8(bytes).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

/// [`to_writer`] into a new buffer.
///
/// Most objects hold no character Go escapes: they are printed once by `serde_json`'s own
/// compact printer, checked, and only printed again with [`GoFormatter`] when needed.
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    to_vec_with_capacity(value, 128)
}

/// [`to_vec`] into a buffer of `capacity` bytes to start with: for large outputs whose size
/// the caller can estimate (a ConversionReview response holding printed objects), it saves
/// the copies of a growing buffer.
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_vec_with_capacity<T: ?Sized + Serialize>(
    value: &T,
    capacity: usize,
) -> serde_json::Result<Vec<u8>> {
    let compact = compact_print(value, capacity)?;
    if !needs_go_escapes(&compact) {
        return Ok(compact);
    }
    drop(compact);
    go_print(value)
}

/// [`to_writer`] appending to `out`: the bytes of `value`'s Go JSON are added after what
/// `out` holds. Under [`with_output_limit`] the limit counts the bytes this call appends;
/// on any error `out` is left as it was.
///
/// This is how a ConversionReview response is built without an intermediate buffer (or a
/// validation pass) per object: each converted object is printed straight into the response
/// body. Like [`to_vec`], the common case is one print by `serde_json`, a scan for the
/// characters Go escapes, and only then, if one is found, a second print with
/// [`GoFormatter`].
///
/// ```
/// use capi_machinepool_api::wire;
/// let mut out = b"[".to_vec();
/// wire::append_to_vec(&mut out, &"<a>").unwrap();
/// out.push(b',');
/// wire::append_to_vec(&mut out, &["b"]).unwrap();
/// out.push(b']');
/// assert_eq!(out, br#"["\u003ca\u003e",["b"]]"#);
/// // Over the limit: an error, and `out` unchanged.
/// let before = out.clone();
/// let limited = wire::with_output_limit(3, || wire::append_to_vec(&mut out, &"long"));
/// assert!(limited.is_err());
/// assert_eq!(out, before);
/// ```
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn append_to_vec<T: ?Sized + Serialize>(
    out: &mut Vec<u8>,
    value: &T,
) -> serde_json::Result<()> {
    let start = out.len();
    let appended = append_compact(out, value).and_then(|()| {
        if !needs_go_escapes(&out[start..]) {
            return Ok(());
        }
        out.truncate(start);
        append_go(out, value)
    });
    if appended.is_err() {
        out.truncate(start);
    }
    appended
}

/// [`compact_print`] appending to `out` (the limit counts the bytes appended).
fn append_compact<T: ?Sized + Serialize>(out: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    match limit::current() {
        None => serde_json::to_writer(&mut *out, value),
        Some(limit) => {
            let start = out.len();
            serde_json::to_writer(limit::Bounded { out, start, limit }, value)
        }
    }
}

/// [`go_print`] appending to `out`: counted first (and stopped at the limit), then printed
/// into room reserved for exactly that size.
fn append_go<T: ?Sized + Serialize>(out: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    let mut counter = limit::Counter {
        written: 0,
        limit: limit::current().unwrap_or(usize::MAX),
    };
    to_writer(&mut counter, value)?;
    out.reserve_exact(counter.written);
    to_writer(&mut *out, value)
}

/// [`to_writer`] into a `String`.
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
    into_string(to_vec(value)?)
}

/// [`to_writer`] into a `RawValue` (for ConversionReview responses built without re-parsing):
/// like [`to_vec`], the common case is one print by `serde_json` with no validation pass.
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_raw_value<T: ?Sized + Serialize>(
    value: &T,
) -> serde_json::Result<Box<serde_json::value::RawValue>> {
    to_raw_value_with_capacity(value, 128)
}

/// [`to_raw_value`] into a buffer of `capacity` bytes to start with. A converter knows the
/// size of the object it read, and the converted object's is close to it: printing into a
/// buffer of about that size saves the copies of a buffer growing from a small one (on a
/// ConversionReview of a few-KiB object they were a tenth of the conversion's time).
///
/// ```
/// use capi_machinepool_api::wire;
/// let raw = wire::to_raw_value_with_capacity(&["<a>", "b"], 64).unwrap();
/// assert_eq!(raw.get(), r#"["\u003ca\u003e","b"]"#);
/// ```
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_raw_value_with_capacity<T: ?Sized + Serialize>(
    value: &T,
    capacity: usize,
) -> serde_json::Result<Box<serde_json::value::RawValue>> {
    let compact = compact_print(value, capacity)?;
    let text = if needs_go_escapes(&compact) {
        drop(compact);
        go_print(value)?
    } else {
        compact
    };
    serde_json::value::RawValue::from_string(into_string(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A print within [`with_output_limit`] succeeds, with the same bytes, exactly when the
    /// unlimited print is no longer than the limit (the expectation is the unlimited print's
    /// length, taken independently of the limit code).
    #[test]
    fn an_output_limit_fails_exactly_past_the_printed_length() {
        let long = "<".repeat(1000);
        let texts = ["plain", "<&>", "a\u{2028}b", long.as_str()];
        for text in texts {
            let full = to_vec(text).unwrap();
            let raw = to_raw_value(text).unwrap();
            assert_eq!(raw.get().as_bytes(), &full[..]);
            for limit in [0, full.len() - 1, full.len(), full.len() + 1] {
                let limited = with_output_limit(limit, || to_vec(text));
                let limited_raw = with_output_limit(limit, || to_raw_value(text));
                // Appended after other bytes, the limit counts only the appended ones.
                let mut appended = b"prefix,".to_vec();
                let limited_append =
                    with_output_limit(limit, || append_to_vec(&mut appended, text));
                if limit >= full.len() {
                    assert_eq!(appended[7..], full[..], "{limit}");
                    assert!(limited_append.unwrap().is_ok());
                } else {
                    assert_eq!(appended, b"prefix,", "{limit}");
                    assert_eq!(limited_append.unwrap_err().limit, limit);
                }
                if limit >= full.len() {
                    assert_eq!(limited.unwrap().unwrap(), full, "{limit}");
                    assert_eq!(limited_raw.unwrap().unwrap().get(), raw.get());
                } else {
                    assert_eq!(limited.unwrap_err().limit, limit);
                    assert_eq!(limited_raw.unwrap_err().limit, limit);
                }
            }
        }
        // Outside a scope, and in an enclosing one after an inner one ended, nothing leaks.
        assert!(to_vec(long.as_str()).is_ok());
        let outer = with_output_limit(10_000, || {
            let inner = with_output_limit(5, || to_vec(long.as_str()));
            assert!(inner.is_err());
            to_vec(long.as_str())
        });
        assert_eq!(outer.unwrap().unwrap().len(), 6002);
    }

    #[test]
    fn escapes_like_go() {
        let s = "a<b>&c\u{2028}d\u{2029}e\u{2027}\"\\\n\t\u{1}\u{7f}ü";
        assert_eq!(
            to_string(s).unwrap(),
            "\"a\\u003cb\\u003e\\u0026c\\u2028d\\u2029e\u{2027}\\\"\\\\\\n\\t\\u0001\u{7f}ü\""
        );
        // Keys are escaped too.
        let map = std::collections::BTreeMap::from([("<k>", 1)]);
        assert_eq!(to_string(&map).unwrap(), "{\"\\u003ck\\u003e\":1}");
    }

    #[test]
    fn every_go_escape_alone_takes_the_go_printer() {
        for (input, go) in [
            ("<", "\\u003c"),
            (">", "\\u003e"),
            ("&", "\\u0026"),
            ("\u{2028}", "\\u2028"),
            ("\u{2029}", "\\u2029"),
            // Other characters starting with 0xE2 are printed as they are.
            ("\u{2027}\u{2014}\u{20ac}", "\u{2027}\u{2014}\u{20ac}"),
            ("plain", "plain"),
        ] {
            let expected = format!("[\"{go}\",{{\"{go}\":1}}]");
            let value = (input, std::collections::BTreeMap::from([(input, 1)]));
            assert_eq!(to_string(&value).unwrap(), expected, "{input:?}");
            assert_eq!(to_raw_value(&value).unwrap().get(), expected, "{input:?}");
            let mut written = Vec::new();
            to_writer(&mut written, &value).unwrap();
            assert_eq!(String::from_utf8(written).unwrap(), expected, "{input:?}");
        }
    }

    #[test]
    fn an_e2_byte_at_the_end_of_the_text_is_not_an_escape() {
        assert!(!needs_go_escapes(b"\"a\xE2"));
        assert!(!needs_go_escapes(b"\xE2\x80"));
        assert!(needs_go_escapes(b"\xE2\x80\xA9"));
    }
}
