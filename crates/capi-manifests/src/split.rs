//! Splitting a YAML stream into documents without losing any, reading one document at a time.
//!
//! A document starts at a `---` line (a marker at column 0 followed by the end of the line,
//! a space or a tab; what follows on that line, such as `--- {a: 1}` or `--- |`, is the
//! document's first line), or after a `...` end marker, or at the start of the stream. A byte
//! order mark at the start of the stream is dropped, `\r\n` line ends are kept as they are.
//! These are the rules a YAML parser applies, so each piece holds exactly one of the
//! documents the parser sees (a property test checks this against serde-saphyr). Pieces with
//! nothing but comments and blank lines are kept too, marked empty, so that a rewrite can put
//! them back where they were.

use std::collections::VecDeque;
use std::io::BufRead;
use std::sync::Arc;

use crate::{Limits, ManifestError, Source};

/// One piece of a YAML stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDocument {
    /// Where it is. For an empty piece, `document` is the index the next document will get.
    pub source: Source,
    /// Its text, without the `---` marker (content written on the marker line after `--- `
    /// is the first line) and without a `...` end marker.
    pub text: String,
    /// True when the piece has only comments and blank lines (not a document to a parser).
    pub empty: bool,
    /// The directive lines (`%TAG ...`, `%YAML ...`) written before the document's `---`:
    /// they are in the previous (empty) piece, as the stream has them, and apply to this
    /// document when it is parsed.
    pub directives: String,
}

/// Which marker a line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker<'a> {
    /// `---`, with what follows it on the line (empty, or the document's first content).
    Start(&'a str),
    /// `...`, with what follows it on the line (only blanks and a comment are valid).
    End(&'a str),
    None,
}

fn marker(line: &str) -> Marker<'_> {
    let body = line.trim_end_matches(['\n', '\r']);
    for (prefix, start) in [("---", true), ("...", false)] {
        let Some(rest) = body.strip_prefix(prefix) else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            continue;
        }
        let rest = rest.trim_start_matches([' ', '\t']);
        return if start {
            Marker::Start(rest)
        } else {
            Marker::End(rest)
        };
    }
    Marker::None
}

/// Whether a chunk read up to `\n` holds a `\r` not followed by `\n` that is not its last
/// byte: a line break [`split_lone_cr`] splits at (scanned with `memchr`; most chunks have no
/// `\r` at all, or only their `\r\n` ending).
fn has_lone_cr(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'\r', bytes).any(|i| i + 1 < bytes.len() && bytes[i + 1] != b'\n')
}

/// Splits a chunk read up to `\n` at every `\r` not followed by `\n` (each piece keeps its
/// own line ending).
fn split_lone_cr(chunk: &str) -> VecDeque<String> {
    let bytes = chunk.as_bytes();
    let mut out = VecDeque::new();
    let mut start = 0;
    for i in memchr::memchr_iter(b'\r', bytes) {
        if i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
            out.push_back(chunk[start..=i].to_string());
            start = i + 1;
        }
    }
    out.push_back(chunk[start..].to_string());
    out
}

/// True when a line holds content (not blank, not a comment).
fn is_content(line: &str) -> bool {
    let trimmed = line.trim_start_matches([' ', '\t']);
    !(trimmed.trim_end_matches(['\n', '\r']).is_empty() || trimmed.starts_with('#'))
}

/// An iterator over the pieces of a YAML stream read from `reader`, one at a time (memory is
/// bounded by the largest document, see [`Limits::max_document_bytes`]).
///
/// ```
/// use capi_manifests::{Limits, split::Documents};
/// let text = "# header\n--- {a: 1}\n---\nb: 2\n...\nc: 3\n";
/// let pieces: Vec<_> = Documents::new(text.as_bytes(), "s.yaml", Limits::default())
///     .collect::<Result<_, _>>().unwrap();
/// let docs: Vec<(&str, usize)> = pieces.iter().filter(|p| !p.empty)
///     .map(|p| (p.text.as_str(), p.source.line)).collect();
/// assert_eq!(docs, [("{a: 1}\n", 2), ("b: 2\n", 4), ("c: 3\n", 6)]);
/// ```
pub struct Documents<R> {
    reader: R,
    file: Arc<str>,
    limits: Limits,
    line: usize,
    next_index: usize,
    first: bool,
    done: bool,
    /// The line being looked at; its allocation is reused from line to line.
    line_buffer: String,
    /// Lines already read: a chunk up to `\n` that held lone `\r` line breaks.
    pending: VecDeque<String>,
    current: Piece,
    /// Directive lines read since the last document, for the next one.
    directives: String,
}

#[derive(Default)]
struct Piece {
    text: String,
    start_line: usize,
    content: bool,
}

impl<R: BufRead> Documents<R> {
    /// Splits the stream of `reader`, named `file` in sources and errors.
    pub fn new(reader: R, file: impl Into<Arc<str>>, limits: Limits) -> Self {
        Self {
            reader,
            file: file.into(),
            limits,
            line: 0,
            next_index: 0,
            first: true,
            done: false,
            line_buffer: String::new(),
            pending: VecDeque::new(),
            current: Piece {
                start_line: 1,
                ..Piece::default()
            },
            directives: String::new(),
        }
    }

    /// Ends the current piece; `next_start` is the line where the next one starts.
    fn finish(&mut self, next_start: usize) -> Option<RawDocument> {
        let piece = std::mem::replace(
            &mut self.current,
            Piece {
                start_line: next_start,
                ..Piece::default()
            },
        );
        if piece.text.is_empty() {
            return None;
        }
        let source = Source::new(Arc::clone(&self.file), self.next_index, piece.start_line);
        let directives = if piece.content {
            self.next_index += 1;
            std::mem::take(&mut self.directives)
        } else {
            String::new()
        };
        Some(RawDocument {
            source,
            text: piece.text,
            empty: !piece.content,
            directives,
        })
    }

    fn push(&mut self, text: &str) -> Result<(), ManifestError> {
        if self.current.text.len() + text.len() > self.limits.max_document_bytes {
            return Err(ManifestError::DocumentTooLarge {
                document: Source::new(
                    Arc::clone(&self.file),
                    self.next_index,
                    self.current.start_line,
                ),
                limit: self.limits.max_document_bytes,
            });
        }
        // A `%` line before any content is a directive (`%YAML 1.2`, `%TAG`): part of the
        // next document's header, not content.
        let directive = !self.current.content && text.starts_with('%');
        if directive {
            self.directives.push_str(text);
            if !text.ends_with('\n') {
                self.directives.push('\n');
            }
        }
        self.current.content |= is_content(text) && !directive;
        self.current.text.push_str(text);
        Ok(())
    }

    /// Reads the next line into `line` (replacing it); `false` at the end of the stream.
    /// Lines end at `\n`, `\r\n` or a lone `\r`, as YAML's line breaks do. The bytes are read
    /// into `line`'s own allocation and moved back into it: one buffer, no allocation per
    /// line, and no large buffer kept after a long line.
    fn read_line(&mut self, line: &mut String) -> Result<bool, ManifestError> {
        /// A buffer larger than this (left by a long line) is given back, not reused.
        const KEPT_CAPACITY: usize = 64 * 1024;
        if let Some(pending) = self.pending.pop_front() {
            self.line += 1;
            *line = pending;
            return Ok(true);
        }
        let mut bytes = std::mem::take(line).into_bytes();
        bytes.clear();
        if bytes.capacity() > KEPT_CAPACITY {
            bytes = Vec::new();
        }
        let limit = self.limits.max_document_bytes as u64 + 1;
        let reader: &mut R = &mut self.reader;
        let read = std::io::Read::take(reader, limit)
            .read_until(b'\n', &mut bytes)
            .map_err(|source| ManifestError::Io {
                path: self.file.to_string(),
                source,
            })?;
        if read == 0 {
            return Ok(false);
        }
        self.line += 1;
        if self.first {
            self.first = false;
            if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
                bytes.drain(..3);
            }
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return Err(ManifestError::Utf8 {
                path: self.file.to_string(),
                line: self.line,
            });
        };
        if has_lone_cr(text.as_bytes()) {
            let mut lines = split_lone_cr(&text);
            *line = lines.pop_front().unwrap_or_default();
            self.pending = lines;
        } else {
            *line = text;
        }
        Ok(true)
    }

    /// The next piece, if this line ends one ([`Documents::step_with`] with the reused line
    /// buffer).
    fn step(&mut self) -> Result<Option<RawDocument>, ManifestError> {
        let mut line = std::mem::take(&mut self.line_buffer);
        let step = self.step_with(&mut line);
        self.line_buffer = line;
        step
    }

    fn step_with(&mut self, line: &mut String) -> Result<Option<RawDocument>, ManifestError> {
        loop {
            if !self.read_line(line)? {
                self.done = true;
                return Ok(self.finish(self.line + 1));
            }
            let line = line.as_str();
            match marker(line) {
                Marker::Start(rest) => {
                    let finished = self.finish(self.line);
                    if !rest.is_empty() {
                        // Keep the line's own ending (`\n`, `\r\n` or none at the end).
                        let ending = &line[line.trim_end_matches(['\n', '\r']).len()..];
                        // Content that would itself be a marker at the start of a line
                        // (`--- ---`) keeps its column, as the parser sees it.
                        let first = if marker(rest) == Marker::None {
                            format!("{rest}{ending}")
                        } else {
                            let after = &line[3..];
                            let column =
                                3 + after.len() - after.trim_start_matches([' ', '\t']).len();
                            format!("{}{rest}{ending}", " ".repeat(column))
                        };
                        self.push(&first)?;
                    }
                    if finished.is_some() {
                        return Ok(finished);
                    }
                }
                Marker::End(rest) => {
                    if is_content(rest) {
                        // PyYAML: "expected '<document start>', but found '<scalar>'"; a
                        // parser that accepted it would drop the text.
                        return Err(ManifestError::Syntax {
                            document: Source::new(
                                Arc::clone(&self.file),
                                self.next_index,
                                self.line,
                            ),
                            line: self.line,
                            message: "content after the document end marker `...` on its line"
                                .into(),
                        });
                    }
                    let finished = self.finish(self.line + 1);
                    if finished.is_some() {
                        return Ok(finished);
                    }
                }
                Marker::None => {
                    if self.current.text.is_empty() {
                        self.current.start_line = self.line;
                    }
                    self.push(line)?;
                }
            }
        }
    }
}

impl<R: BufRead> Iterator for Documents<R> {
    type Item = Result<RawDocument, ManifestError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.step() {
                Ok(Some(doc)) => return Some(Ok(doc)),
                Ok(None) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }
}

/// Splits a whole text (see [`Documents`]).
///
/// # Errors
/// When a document is larger than the limit.
pub fn split_str(
    text: &str,
    file: impl Into<Arc<str>>,
    limits: Limits,
) -> Result<Vec<RawDocument>, ManifestError> {
    Documents::new(text.as_bytes(), file, limits).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(text: &str) -> Vec<(String, bool, usize, usize)> {
        split_str(text, "t", Limits::default())
            .unwrap()
            .into_iter()
            .map(|d| (d.text, d.empty, d.source.document, d.source.line))
            .collect()
    }

    #[test]
    fn directives_belong_to_the_header_not_to_a_document() {
        // Found by the split_documents fuzz target: a directive after `...` starts no document.
        assert_eq!(
            docs("a: 1\n...\n%YAML 1.2\n---\nb: 2\n"),
            vec![
                ("a: 1\n".into(), false, 0, 1),
                ("%YAML 1.2\n".into(), true, 1, 3),
                ("b: 2\n".into(), false, 1, 5),
            ]
        );
    }

    #[test]
    fn content_on_the_marker_line_that_looks_like_a_marker_keeps_its_column() {
        // Found by the split_documents fuzz target: `--- ---` starts a document whose content
        // begins with the plain scalar `---`, not two documents.
        let pieces = split_str("---\t---\n- x\n", "t", Limits::default()).unwrap();
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].text, "    ---\n- x\n");
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line() {
        // Found by the split_documents fuzz target: YAML reads `--\r--- ` as two lines, the
        // second a document marker.
        assert_eq!(
            docs("a:1-\r\n--\r---  \nb: 2\rc: 3"),
            vec![
                ("a:1-\r\n--\r".into(), false, 0, 1),
                ("b: 2\rc: 3".into(), false, 1, 4),
            ]
        );
    }

    #[test]
    fn markers_with_content_and_end_markers() {
        assert_eq!(
            docs("--- {a: 1}\n--- # c\nb: 2\n...\nc: 3"),
            vec![
                ("{a: 1}\n".into(), false, 0, 1),
                ("# c\nb: 2\n".into(), false, 1, 2),
                ("c: 3".into(), false, 2, 5),
            ]
        );
    }

    #[test]
    fn comments_only_pieces_are_kept_and_marked_empty() {
        assert_eq!(
            docs("# license\n---\na: 1\n---\n# trailing\n"),
            vec![
                ("# license\n".into(), true, 0, 1),
                ("a: 1\n".into(), false, 0, 3),
                ("# trailing\n".into(), true, 1, 5),
            ]
        );
    }

    #[test]
    fn bom_crlf_and_look_alike_markers() {
        assert_eq!(
            docs("\u{feff}a: 1\r\n---\r\nb: ---x\r\n----\r\n"),
            vec![
                ("a: 1\r\n".into(), false, 0, 1),
                ("b: ---x\r\n----\r\n".into(), false, 1, 3),
            ]
        );
    }

    #[test]
    fn content_after_an_end_marker_is_an_error_not_dropped() {
        // PyYAML refuses `... b: 2` ("expected '<document start>'"): the text would be lost.
        let err = split_str("a: 1\n... b: 2\n", "f", Limits::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "f#0 (line 2): content after the document end marker `...` on its line"
        );
        assert_eq!(docs("a: 1\n... # done\nb: 2\n").len(), 2);
    }

    #[test]
    fn directives_go_with_the_document_they_precede() {
        let pieces = split_str(
            "%TAG !e! tag:example.com,2000:\n--- !e!foo\na: 1\n---\nb: 2\n",
            "t",
            Limits::default(),
        )
        .unwrap();
        assert_eq!(pieces.len(), 3);
        assert!(pieces[0].empty);
        assert_eq!(pieces[1].directives, "%TAG !e! tag:example.com,2000:\n");
        assert_eq!(pieces[2].directives, "");
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let err = Documents::new(&b"a: 1\nb: \xff\n"[..], "f.yaml", Limits::default())
            .collect::<Result<Vec<_>, _>>()
            .unwrap_err();
        assert_eq!(err.to_string(), "f.yaml:2: not valid UTF-8");
    }

    #[test]
    fn documents_over_the_limit_are_refused() {
        let limits = Limits {
            max_document_bytes: 10,
            ..Limits::default()
        };
        let err = split_str("a: 1\n---\nb: 0123456789\n", "f", limits).unwrap_err();
        assert!(
            matches!(err, ManifestError::DocumentTooLarge { .. }),
            "{err}"
        );
    }
}
