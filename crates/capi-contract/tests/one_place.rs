//! Every contract field's path is written once, in `capi_contract::fields`: the crates that
//! read provider objects (this one, the checker, the status crate, the CLI) name a contract
//! field only through its accessor, never as a literal. This is the "grep for contract path
//! literals outside the model" of issue 51, run on every test.
//!
//! A literal is a string in code (comments and `#[cfg(test)]` modules are not code that reads
//! objects). It restates a path when it holds the dotted path as a whole word
//! (`"spec.providerIDList"`, `"… status.ready …"`), or when consecutive literals on one line
//! spell the path's keys (`obj["status"]["ready"]`, `&["status", "ready"]`). The paths are
//! taken from the model itself, so a new accessor is covered at once.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use capi_contract::fields::{
    infra_machine, infra_machine_pool, infra_machine_pool_template, machine_pool,
};

/// The crates that read InfraMachinePools, InfraMachines or their templates.
const READERS: &[&str] = &[
    "capi-contract",
    "capi-contract-check",
    "capi-machinepool-status",
    "capi-machinepool-cli",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            out.push(path);
        }
    }
}

/// The string literals of one line of code, in order (plain and raw strings).
fn literals(line: &str) -> Vec<String> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let raw_hashes = if chars[i] == 'r'
            && (i == 0 || !chars[i - 1].is_alphanumeric() && chars[i - 1] != '_')
        {
            let n = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            (chars.get(i + 1 + n) == Some(&'"')).then_some(n)
        } else {
            None
        };
        if let Some(n) = raw_hashes {
            let start = i + 2 + n;
            let close: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', n))
                .collect();
            let rest: String = chars[start..].iter().collect();
            let end = rest.find(&close).unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
            i = start + rest[..end].chars().count() + close.chars().count();
        } else if chars[i] == '"' && (i == 0 || chars[i - 1] != '\'') {
            let mut text = String::new();
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if let Some(c) = chars.get(i) {
                    text.push(*c);
                }
                i += 1;
            }
            out.push(text);
            i += 1;
        } else {
            i += 1;
        }
    }
    out
}

/// True when `dotted` occurs in `text` as a whole path (not inside a longer one).
fn names_path(text: &str, dotted: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(dotted).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after: Vec<char> = text[at + dotted.len()..].chars().take(2).collect();
        let starts = before.is_none_or(|c| !word(c) && c != '.');
        let ends = match after.as_slice() {
            [] => true,
            ['.', next, ..] => !word(*next),
            [c, ..] => !word(*c),
        };
        starts && ends
    })
}

#[test]
fn contract_paths_are_written_only_in_the_model() {
    let paths: Vec<&[&str]> = [
        infra_machine_pool::PATHS,
        infra_machine::PATHS,
        infra_machine_pool_template::PATHS,
        machine_pool::PATHS,
    ]
    .concat();
    let mut paths = paths;
    paths.sort_unstable();
    paths.dedup();
    assert!(paths.len() >= 10 && paths.iter().all(|p| p.len() >= 2));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let model = root.join("capi-contract/src/fields.rs");
    let mut files = Vec::new();
    for krate in READERS {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    files.retain(|f| *f != model);
    assert!(files.len() > 30, "{} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            // The test module (the rest of the file); a `#[cfg(test)]` item elsewhere is code.
            let next = lines[n + 1..]
                .iter()
                .map(|l| l.trim_start())
                .find(|l| !l.starts_with("#["))
                .unwrap_or_default();
            if line.trim_start().starts_with("#[cfg(test)]") && next.starts_with("mod ") {
                break;
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            let lits = literals(line);
            for path in &paths {
                let dotted = path.join(".");
                let spelled = lits.windows(path.len()).any(|w| w == *path);
                if spelled || lits.iter().any(|l| names_path(l, &dotted)) {
                    found.push(format!(
                        "{}:{}: {dotted}: {}",
                        file.strip_prefix(&root).unwrap().display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "contract paths written outside capi_contract::fields ({}):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_scanner_sees_what_it_looks_for() {
    assert_eq!(
        literals(r##"a["status"]["ready"], "x \"q\" y", r"raw", r#"h"#"##),
        ["status", "ready", "x \"q\" y", "raw", "h"]
    );
    assert!(names_path("copied to status.replicas.", "status.replicas"));
    assert!(names_path("status.replicas", "status.replicas"));
    assert!(!names_path("status.replicasX", "status.replicas"));
    assert!(!names_path(
        "spec.template.spec.version",
        "spec.template.spec"
    ));
    assert!(!names_path(
        "status.initialization.dataSecretCreated",
        "status.initialization"
    ));
    assert!(!names_path("x.status.ready", "status.ready"));
}
