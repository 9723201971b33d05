//! Renderings of a [`Report`](crate::Report): human text (also its `Display`), JSON, JUnit XML,
//! GitHub Actions workflow commands and SARIF 2.1.0 (code scanning). Pure functions returning text; no I/O.
//!
//! Everything quoted from the input is escaped for its target (control characters and
//! terminal escapes in text, XML in JUnit, workflow-command encoding for GitHub) and long
//! values are cut to short excerpts with a note of their length.

mod fingerprint;
mod github;
mod json;
mod junit;
mod sarif;
mod text;

pub use fingerprint::{FINGERPRINT_KEY, fingerprints};
pub use github::github;
pub use json::json;
pub use junit::junit;
pub use sarif::{SARIF_SCHEMA, sarif};
pub use text::text;

use capi_diagnostics::excerpt::Excerpt;

/// Longest excerpt of a message or subject printed.
const MAX_TEXT: usize = 400;

/// A printable excerpt of input text (control characters escaped, long text cut).
pub(crate) fn printable(text: &str) -> String {
    Excerpt::with_max_chars(text, MAX_TEXT).to_string()
}

impl std::fmt::Display for crate::Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&text(self, false))
    }
}
