//! Reading inputs: files or stdin, split into YAML documents that keep their raw text.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// One document of a YAML stream: its raw text (for untouched pass-through) and its value.
pub struct RawDocument {
    /// The text of the document, without its `---` separator.
    pub text: String,
    /// The parsed value (`None` for an empty document).
    pub value: Option<Value>,
}

/// Reads a path, or stdin for `-`, as UTF-8 text.
pub fn read_input(path: &Path) -> Result<String, String> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("stdin: {e}"))?;
        return String::from_utf8(bytes).map_err(|e| {
            format!(
                "stdin: not valid UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            )
        });
    }
    capi_contract::load::read_text(path).map_err(|e| e.to_string())
}

fn is_separator(line: &str) -> bool {
    line == "---" || line.starts_with("--- ") || line.starts_with("---\t")
}

/// Splits a YAML stream on `---` lines and parses each document on its own, so that an error
/// names the document and documents can be re-emitted untouched.
pub fn split(name: &str, text: &str) -> Result<Vec<RawDocument>, String> {
    let mut chunks = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if is_separator(line.trim_end_matches(['\n', '\r'])) {
            chunks.push(String::new());
        } else if let Some(last) = chunks.last_mut() {
            last.push_str(line);
        }
    }
    let mut docs = Vec::new();
    for (index, chunk) in chunks.into_iter().enumerate() {
        let values: Vec<Value> =
            serde_saphyr::from_multiple(&chunk).map_err(|e| format!("{name}#{index}: {e}"))?;
        let value = values.into_iter().find(|v| !v.is_null());
        if value.is_none() && chunk.trim().is_empty() {
            continue;
        }
        docs.push(RawDocument { text: chunk, value });
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_comments_and_skips_empty_documents() {
        let docs = split("x", "---\n# note\na: 1\n---\n---\nb: 2\n").unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0].text, "# note\na: 1\n");
        assert_eq!(docs[1].value.as_ref().unwrap()["b"], 2);
    }

    #[test]
    fn error_names_the_document() {
        let err = split("f.yaml", "a: 1\n---\nb: [\n").err().unwrap();
        assert!(err.starts_with("f.yaml#1: "), "{err}");
    }
}
