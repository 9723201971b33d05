//! Reading the few members of JSON text that are read without a parser: an object's leading
//! `apiVersion` and `kind`, a ConversionReview's envelope. Only the plain forms are read
//! (strings without escapes or control characters, JSON white space); a reader answers `None`
//! for anything else and leaves the text to a parser.

/// JSON text read from the front.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Self { text, at: 0 }
    }

    /// Skips JSON white space (space, tab, line feed, carriage return: not form feed).
    pub(crate) fn skip_space(&mut self) {
        let bytes = self.text.as_bytes();
        while matches!(bytes.get(self.at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Skips white space and takes `byte` if it comes next.
    pub(crate) fn take(&mut self, byte: u8) -> bool {
        self.skip_space();
        let next = self.text.as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(next);
        next
    }

    /// A string with neither escapes nor control characters (`None` for any other value).
    pub(crate) fn plain_string(&mut self) -> Option<&'a str> {
        if !self.take(b'"') {
            return None;
        }
        let rest = self.text.as_bytes().get(self.at..)?;
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        if rest[end] != b'"' || rest[..end].iter().any(|&b| b < 0x20) {
            return None;
        }
        let value = self.text.get(self.at..self.at + end)?;
        self.at += end + 1;
        Some(value)
    }

    /// A member's key (a plain string) and its colon.
    pub(crate) fn key(&mut self) -> Option<&'a str> {
        let key = self.plain_string()?;
        self.take(b':').then_some(key)
    }

    /// Whether only white space is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.skip_space();
        self.at == self.text.len()
    }

    /// The text from the cursor on.
    pub(crate) fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// Moves the cursor `bytes` further (past a value read by a parser from [`Cursor::rest`]).
    pub(crate) fn advance(&mut self, bytes: usize) {
        self.at = self.at.saturating_add(bytes).min(self.text.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_members_and_leaves_the_rest() {
        let mut cursor = Cursor::new(" {\t\"uid\" :\r\n\"a b\" , \"x\":\"\\u0041\"}  ");
        assert!(cursor.take(b'{'));
        assert_eq!(cursor.key(), Some("uid"));
        assert_eq!(cursor.plain_string(), Some("a b"));
        assert!(cursor.take(b','));
        assert_eq!(cursor.key(), Some("x"));
        assert_eq!(cursor.plain_string(), None, "an escape is left to a parser");
        for text in ["\"a\tb\"", "\"open", "\u{c}\"a\"", "1"] {
            assert_eq!(Cursor::new(text).plain_string(), None, "{text:?}");
        }
        let mut cursor = Cursor::new("{} ");
        assert!(cursor.take(b'{'));
        assert_eq!(cursor.rest(), "} ");
        cursor.advance(1);
        assert!(cursor.at_end());
        cursor.advance(10);
        assert_eq!(cursor.rest(), "");
    }
}
