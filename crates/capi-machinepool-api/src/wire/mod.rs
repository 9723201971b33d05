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
pub(crate) mod meta;
pub(crate) mod reference;
pub mod time;

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

pub use condition::GoCondition;
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

/// [`to_writer`] into a new buffer.
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_vec<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(512);
    to_writer(&mut out, value)?;
    Ok(out)
}

/// [`to_writer`] into a `String`.
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_string<T: ?Sized + Serialize>(value: &T) -> serde_json::Result<String> {
    let bytes = to_vec(value)?;
    // The formatter only writes the UTF-8 it was given and ASCII escapes.
    String::from_utf8(bytes).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

/// [`to_writer`] into a `RawValue` (for ConversionReview responses built without re-parsing).
///
/// # Errors
/// When `value`'s `Serialize` implementation fails.
pub fn to_raw_value<T: ?Sized + Serialize>(
    value: &T,
) -> serde_json::Result<Box<serde_json::value::RawValue>> {
    serde_json::value::RawValue::from_string(to_string(value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
