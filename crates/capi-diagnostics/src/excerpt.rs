//! Short, printable excerpts of input text for error messages and findings.
//!
//! Input comes from files anyone can change (a pull request to a provider repository), so a
//! message quotes at most [`MAX_CHARS`] characters of it, with control characters escaped (no
//! terminal escape sequence reaches a CI log) and a note of the full length when cut.
//!
//! ```
//! use capi_diagnostics::excerpt::Excerpt;
//! assert_eq!(Excerpt::new("a\u{1b}[31mred").to_string(), "a\\u{1b}[31mred");
//! let long = "x".repeat(10_000);
//! let shown = Excerpt::new(&long).to_string();
//! assert!(shown.len() < 200 && shown.ends_with("(10000 bytes)"), "{shown}");
//! ```

use std::fmt;

/// Most characters of input an excerpt shows.
pub const MAX_CHARS: usize = 120;

/// A printable excerpt of `text` (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct Excerpt<'a> {
    text: &'a str,
    max_chars: usize,
}

impl<'a> Excerpt<'a> {
    /// An excerpt of at most [`MAX_CHARS`] characters.
    #[must_use]
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            max_chars: MAX_CHARS,
        }
    }

    /// An excerpt of at most `max_chars` characters.
    #[must_use]
    pub fn with_max_chars(text: &'a str, max_chars: usize) -> Self {
        Self { text, max_chars }
    }

    /// True when the excerpt leaves part of the text out.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.text.chars().nth(self.max_chars).is_some()
    }
}

/// True for the characters every renderer escapes instead of printing: control characters
/// (C0, DEL, C1, which includes U+0085 NEXT LINE), the line and paragraph separators
/// (U+2028, U+2029) and the bidirectional marks, embeddings, overrides and isolates
/// (U+200E, U+200F, U+202A..=U+202E, U+2066..=U+2069).
#[must_use]
pub fn is_escaped(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// `text` with every [`is_escaped`] character written as its Rust escape (`\u{a}` for a line
/// feed, `\u{202e}` for a bidi override), whole: the one escaping every renderer applies to
/// input it prints in text (a report line, a log field, an error message), so that input
/// can neither start a line of its own (a forged `::error` workflow command), nor move the
/// cursor, set a terminal title or reorder what is shown. Unlike [`Excerpt`] nothing is cut.
///
/// ```
/// use capi_diagnostics::excerpt::printable;
/// assert_eq!(printable("ok"), "ok");
/// assert_eq!(printable("a\n::error file=x::y"), "a\\u{a}::error file=x::y");
/// assert_eq!(printable("\u{1b}]0;title\u{7}\u{202e}"), "\\u{1b}]0;title\\u{7}\\u{202e}");
/// ```
#[must_use]
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_escaped(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Serialized JSON text with every [`is_escaped`] character written as a `\uXXXX` escape.
///
/// JSON only allows such characters inside strings (outside them they are not valid
/// JSON), and there `\uXXXX` stands for the same character, so the result parses to the same
/// value; a reader of the raw text (a CI log, a terminal) sees no bidi override or line
/// break that is not in the JSON structure.
///
/// ```
/// use capi_diagnostics::excerpt::escape_json_text;
/// let raw = "\"a\u{202e}b\u{85}\"";
/// assert_eq!(escape_json_text(raw), r#""a\u202eb\u0085""#);
/// ```
#[must_use]
pub fn escape_json_text(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.chars().any(is_escaped_in_json) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if is_escaped_in_json(c) {
            // Every escaped character is in the Basic Multilingual Plane.
            let _ = fmt::Write::write_fmt(&mut out, format_args!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// [`is_escaped`] except the JSON whitespace between tokens (tab, line feed, carriage return),
/// which a JSON serializer already escapes inside strings.
fn is_escaped_in_json(c: char) -> bool {
    is_escaped(c) && !matches!(c, '\t' | '\n' | '\r')
}

/// Writes `c`, escaping control characters (C0, DEL, C1 and the bidi/line separators).
fn write_printable(f: &mut fmt::Formatter<'_>, c: char) -> fmt::Result {
    if is_escaped(c) {
        write!(f, "{}", c.escape_unicode())
    } else {
        fmt::Write::write_char(f, c)
    }
}

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cut = self.is_cut();
        let shown = if cut {
            // Head and tail: the start says what it is, the end often says what is wrong.
            self.max_chars.saturating_sub(20)
        } else {
            self.max_chars
        };
        for c in self.text.chars().take(shown) {
            write_printable(f, c)?;
        }
        if cut {
            f.write_str(" … ")?;
            let tail: Vec<char> = self.text.chars().rev().take(16).collect();
            for c in tail.into_iter().rev() {
                write_printable(f, c)?;
            }
            write!(f, " ({} bytes)", self.text.len())?;
        }
        Ok(())
    }
}

/// [`Excerpt::new`] rendered as a `String`.
#[must_use]
pub fn excerpt(text: &str) -> String {
    Excerpt::new(text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_escapes_what_excerpts_escape() {
        // Every character an excerpt escapes is escaped in JSON text too, except the JSON
        // whitespace a serializer already escapes inside strings.
        for c in [
            '\u{7f}', '\u{85}', '\u{9b}', '\u{2028}', '\u{2029}', '\u{200e}', '\u{202e}',
            '\u{2066}', '\u{2069}',
        ] {
            assert!(is_escaped(c), "{c:?}");
            let raw = format!("\"x{c}y\"");
            let escaped = escape_json_text(&raw);
            assert_eq!(escaped, format!("\"x\\u{:04x}y\"", u32::from(c)));
            assert!(escaped.chars().all(|d| !is_escaped(d)), "{escaped:?}");
            // The same string after JSON decoding: \uXXXX names the character.
            let hex = &escaped[4..8];
            assert_eq!(u32::from_str_radix(hex, 16).ok(), Some(u32::from(c)));
        }
        assert!(matches!(
            escape_json_text("{\n  \"a\": \"é\"\n}"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn short_text_is_unchanged_but_escaped() {
        assert_eq!(excerpt("plain"), "plain");
        assert_eq!(excerpt("tab\there\n"), "tab\\u{9}here\\u{a}");
        assert_eq!(excerpt("bidi\u{202e}x"), "bidi\\u{202e}x");
    }

    #[test]
    fn long_text_keeps_head_and_tail() {
        let text = format!("{}END", "a".repeat(1000));
        let shown = excerpt(&text);
        assert!(shown.starts_with("aaaa"));
        assert!(shown.contains("aEND (1003 bytes)"), "{shown}");
        assert!(shown.chars().count() < MAX_CHARS + 40);
    }
}
