//! `docs/machinepool-vs-machinedeployment.md` is generated from `featureset::FEATURES`; this
//! test fails when the two drift apart (`UPDATE_DOCS=1` rewrites the page).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use capi_contract_check::featureset::{FEATURES, UPSTREAM_COMMIT, markdown};

#[test]
fn the_comparison_page_matches_the_data() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/machinepool-vs-machinedeployment.md");
    let generated = markdown();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let doc = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        doc, generated,
        "docs/machinepool-vs-machinedeployment.md is out of date: run UPDATE_DOCS=1 cargo test -p capi-contract-check --test featureset_doc"
    );
}

#[test]
fn every_row_has_evidence_at_the_followed_commit() {
    assert_eq!(UPSTREAM_COMMIT.len(), 40);
    for f in FEATURES {
        assert!(!f.evidence.is_empty(), "{}", f.name);
        for (path, needle) in f.evidence {
            assert!(!path.starts_with('/') && path.contains('.'), "{path}");
            assert!(!needle.is_empty(), "{}: {path}", f.name);
        }
    }
}
