//! Inputs found by the cargo-fuzz targets (`fuzz/`), kept as regression tests: each goes through
//! the same code path as its target and must give an answer, not a panic. Files named
//! `crash-*` once broke a target's assertion (see `fuzz/README.md`); the others are
//! coverage-increasing inputs the fuzzer kept.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::PathBuf;

use capi_manifests::load::documents;
use capi_manifests::split::split_str;
use capi_manifests::{Limits, ManifestError};
use serde_json::Value;

#[test]
fn split_documents_inputs() {
    for (name, data) in capi_test_support::fuzz_inputs("split_documents") {
        let text = std::str::from_utf8(&data).unwrap();
        // Each piece is text of the input, in order (a marker-like first line keeps its
        // column, so leading spaces are not compared).
        let mut rest = text;
        let pieces = match split_str(text, name.as_str(), Limits::default()) {
            Ok(pieces) => pieces,
            // Text after a `...` marker on its line is refused (PyYAML refuses it too).
            Err(ManifestError::Syntax { message, .. }) if message.contains("end marker") => {
                continue;
            }
            Err(e) => panic!("{name}: {e}"),
        };
        for piece in pieces {
            let body = piece.text.trim_start_matches(' ');
            let at = rest.find(body);
            assert!(
                at.is_some(),
                "{name}: piece {:?} not found in order",
                piece.text
            );
            rest = &rest[at.unwrap_or_default() + body.len()..];
        }
        // Where the parser reads the stream (not `marker-like-end-after-start`, which only
        // broke the check above), the splitter gives the same documents.
        let Ok(parser) = serde_saphyr::from_multiple_with_options::<Value>(
            text.trim_start_matches('\u{feff}'),
            capi_test_support::kubectl_yaml_options(),
        ) else {
            continue;
        };
        let parser: Vec<Value> = parser.into_iter().filter(|v| !v.is_null()).collect();
        let ours: Vec<Value> = documents(text, &name, &Limits::default())
            .unwrap()
            .into_iter()
            .map(|d| d.value)
            .collect();
        assert_eq!(ours, parser, "{name}");
    }
}

/// The `load_tree` target's input format: files separated by lines `#> path` (the first file
/// is `kustomization.yaml`), written to a fresh directory and loaded as `check DIR` does.
#[test]
fn load_tree_inputs() {
    for (index, (name, data)) in capi_test_support::fuzz_inputs("load_tree")
        .into_iter()
        .enumerate()
    {
        let root = std::env::temp_dir().join(format!(
            "capi-fuzz-regression-{}-{index}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        let text = String::from_utf8(data).unwrap();
        let mut path = PathBuf::from("kustomization.yaml");
        let mut body = String::new();
        let mut files = Vec::new();
        for line in text.split_inclusive('\n') {
            match line.strip_prefix("#> ") {
                Some(next) => files.push((
                    std::mem::replace(&mut path, PathBuf::from(next.trim())),
                    std::mem::take(&mut body),
                )),
                None => body.push_str(line),
            }
        }
        files.push((path, body));
        for (path, body) in files {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, body).unwrap();
        }
        // An answer, not a panic: documents or a clear error.
        let _ = capi_manifests::load::load(std::slice::from_ref(&root), Limits::default())
            .map_err(|e| e.to_string());
        let _ = std::fs::remove_dir_all(&root);
        let _ = name;
    }
}
