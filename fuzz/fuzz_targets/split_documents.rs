//! The document splitter agrees with the YAML parser: whenever serde-saphyr reads a stream,
//! the splitter's pieces parse to the same documents, in order; the pieces never lose text
//! (each piece's text occurs in the input, in order; a first line written after `---` that
//! would itself read as a marker is indented to the column it had, so the comparison starts
//! after leading spaces).
#![no_main]

use capi_manifests::split::split_str;
use capi_manifests::{Limits, load::documents};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    let Ok(pieces) = split_str(text, "fuzz", limits) else { return };
    let mut rest = text;
    for piece in &pieces {
        let body = piece.text.trim_start_matches(' ');
        let at = rest.find(body).expect("a piece is text of the input, in order");
        rest = &rest[at + body.len()..];
    }
    let Ok(parser) = serde_saphyr::from_multiple_with_options::<Value>(text.trim_start_matches('\u{feff}'), kubectl_options()) else {
        return;
    };
    let parser: Vec<Value> = parser.into_iter().filter(|v| !v.is_null()).collect();
    let ours: Vec<Value> = documents(text, "fuzz", &limits)
        .expect("a stream the parser reads is read by the splitter")
        .into_iter()
        .map(|d| d.value)
        .collect();
    assert_eq!(ours, parser);
});

/// The parser read as `capi_manifests` reads (`017` is octal, as kubectl's YAML 1.1 reader has
/// it).
fn kubectl_options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    options
}
