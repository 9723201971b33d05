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

/// Writes `c`, escaping control characters (C0, DEL, C1 and the bidi/line separators).
fn write_printable(f: &mut fmt::Formatter<'_>, c: char) -> fmt::Result {
    let invisible = c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c);
    if invisible {
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
