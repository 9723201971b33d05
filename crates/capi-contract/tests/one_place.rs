//! Every contract field's path is written once, in `capi_contract::fields`: the crates that
//! read provider objects (this one, the checker, the status crate, the CLI) name a contract
//! field only through its accessor, never as a literal. This is the "grep for contract path
//! literals outside the model" of issue 51, run on every test.
//!
//! A literal is a string in code (comments and `#[cfg(test)]` modules are not code that reads
//! objects). It restates a path when it holds the dotted path as a whole word
//! (`"spec.providerIDList"`, `"… status.ready …"`) or as a JSON pointer
//! (`"/spec/providerIDList"`), or when consecutive literals spell the path's keys with only
//! indexing or list punctuation between them, on one line or split over several
//! (`obj["status"]["ready"]`, `&["status",` then `"ready"]` on the next line). The paths come
//! from the model itself ([`capi_contract::fields::all_paths`], built from every accessor by
//! the `accessors!` declaration), so a new accessor is covered at once; and the model is
//! checked to declare every accessor that way. Each of these catches is a planted probe below.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use capi_contract::fields::all_paths;

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

/// True when `text` holds the path as a JSON pointer (`/spec/providerIDList`), as a whole.
fn names_pointer(text: &str, path: &[&str]) -> bool {
    let pointer = format!("/{}", path.join("/"));
    text.match_indices(&pointer).any(|(at, _)| {
        let after = text[at + pointer.len()..].chars().next();
        after.is_none_or(|c| !c.is_alphanumeric() && c != '_')
    })
}

/// True when the code between two literals only indexes or lists (`][`, `, `, `&[`, a line
/// break, `.get(`): the literals are one path written key by key.
fn joins_keys(between: &str) -> bool {
    between
        .replace("get_mut", "")
        .replace("get", "")
        .chars()
        .all(|c| c.is_whitespace() || "[](),&.".contains(c))
}

/// The code lines of a file with their numbers: comments and the test module left out (a
/// `#[cfg(test)]` item elsewhere is code).
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let next = lines[n + 1..]
            .iter()
            .map(|l| l.trim_start())
            .find(|l| !l.starts_with("#["))
            .unwrap_or_default();
        if line.trim_start().starts_with("#[cfg(test)]") && next.starts_with("mod ") {
            break;
        }
        if !line.trim_start().starts_with("//") {
            out.push((n + 1, *line));
        }
    }
    out
}

/// The code between the literals of a line: `pieces[i]` precedes literal `i`, and the last
/// piece follows the last literal. Splitting on quotes is enough for the code scanned here
/// (no quote inside a raw string or char literal precedes a path key on the same line).
fn between_literals(line: &str, count: usize) -> Vec<String> {
    let mut pieces = Vec::with_capacity(count + 1);
    let mut rest = line;
    for _ in 0..count {
        let Some(open) = rest.find('"') else { break };
        pieces.push(rest[..open].trim_end_matches(['r', '#']).to_owned());
        let after = &rest[open + 1..];
        let mut close = None;
        let mut escaped = false;
        for (i, c) in after.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => {
                    close = Some(i);
                    break;
                }
                _ => escaped = false,
            }
        }
        rest = close.map_or("", |i| after[i + 1..].trim_start_matches('#'));
    }
    pieces.resize(count, String::new());
    pieces.push(rest.to_owned());
    pieces
}

/// Every place in `text` (a source file named `name`) that writes one of `paths`.
fn scan(name: &str, text: &str, paths: &[&[&str]]) -> Vec<String> {
    // The literals of the whole file in order: line, text, code since the previous literal.
    let mut lits: Vec<(usize, String, String)> = Vec::new();
    let mut carried = String::new();
    for (n, line) in code_lines(text) {
        let found = literals(line);
        let pieces = between_literals(line, found.len());
        for (i, lit) in found.into_iter().enumerate() {
            let before = if i == 0 {
                format!("{carried}\n{}", pieces[0])
            } else {
                pieces[i].clone()
            };
            lits.push((n, lit, before));
        }
        carried = if lits.last().is_some_and(|l| l.0 == n) {
            pieces.last().cloned().unwrap_or_default()
        } else {
            format!("{carried}\n{line}")
        };
    }
    let mut found = Vec::new();
    for (i, (n, lit, _)) in lits.iter().enumerate() {
        for path in paths {
            let dotted = path.join(".");
            if names_path(lit, &dotted) || names_pointer(lit, path) {
                found.push(format!("{name}:{n}: {dotted}: {lit:?}"));
                continue;
            }
            let Some(window) = lits.get(i..i + path.len()) else {
                continue;
            };
            let keys = window.iter().zip(path.iter()).all(|(l, k)| l.1 == *k);
            if keys && window[1..].iter().all(|l| joins_keys(&l.2)) {
                found.push(format!("{name}:{n}: {dotted}: keys written one by one"));
            }
        }
    }
    found
}

/// The lines of the model's own source (`fields.rs`) that build a field outside the
/// `accessors!` declarations: such a field would be missing from `all_paths`.
fn undeclared_fields(model: &str) -> Vec<usize> {
    let mut depth = 0usize;
    let mut out = Vec::new();
    for (n, line) in code_lines(model) {
        if line.trim_start().starts_with("accessors! {") {
            depth = 0;
        }
        let opened = depth > 0 || line.trim_start().starts_with("accessors! {");
        if line.contains("Field::new(&[") && !opened {
            out.push(n);
        }
        if opened {
            depth = (depth + line.matches('{').count()).saturating_sub(line.matches('}').count());
        }
    }
    out
}

fn model_source() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join("src/fields.rs")).unwrap()
}

#[test]
fn contract_paths_are_written_only_in_the_model() {
    let paths = all_paths();
    assert!(
        paths.len() >= 14 && paths.iter().all(|p| p.len() >= 2),
        "{paths:?}"
    );
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
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        found.extend(scan(&name, &text, &paths));
    }
    assert!(
        found.is_empty(),
        "contract paths written outside capi_contract::fields ({}):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_model_declares_every_accessor() {
    assert_eq!(undeclared_fields(&model_source()), [] as [usize; 0]);
}

/// The probes: each way of writing a contract path outside the model is caught.
#[test]
fn planted_paths_are_caught() {
    let paths = all_paths();
    let caught = |code: &str| !scan("probe.rs", code, &paths).is_empty();
    // The dotted path, in a message.
    assert!(caught(
        r#"let m = format!("{x} copied to status.replicas.");"#
    ));
    // A JSON pointer.
    assert!(caught(r#"let v = obj.pointer("/spec/providerIDList");"#));
    assert!(caught(
        r#"let v = obj.pointer("/status/initialization/provisioned")?;"#
    ));
    // Keys on one line, and split over lines.
    assert!(caught(r#"let v = &obj["status"]["ready"];"#));
    assert!(caught("let v = &obj[\"status\"]\n    [\"ready\"];"));
    assert!(caught(
        "const P: &[&str] = &[\n    \"spec\",\n    \"providerIDList\",\n];"
    ));
    assert!(caught(
        "let v = obj.get(\"status\")\n    .get(\"replicas\");"
    ));
    // A ClusterClass template reference.
    assert!(caught(
        r#"let r = &entry["infrastructure"]["templateRef"];"#
    ));
    // Not caught: other keys, a longer path, keys apart, comments, the test module.
    assert!(!caught(r#"let v = &obj["status"]["readyReplicas"];"#));
    assert!(!caught(r#"let v = "/status/readyReplicas";"#));
    assert!(!caught(r#"let v = &obj["status"]; let w = call("ready");"#));
    assert!(!caught("let a = x(\"status\");\nlet b = y(\"ready\");"));
    assert!(!caught("// status.replicas in a comment\nlet x = 1;"));
    assert!(!caught(
        "#[cfg(test)]\nmod tests { const A: &str = \"status.replicas\"; }"
    ));
    // A field built outside the `accessors!` declaration of the model.
    let model = model_source();
    let planted = model.replacen(
        "/// The InfraMachinePool contract's fields.",
        "pub const NODE_IMAGE_ID: Field<String> = Field::new(&[\"status\", \"nodeImageID\"]);\n/// The InfraMachinePool contract's fields.",
        1,
    );
    assert_ne!(planted, model);
    assert_eq!(undeclared_fields(&planted).len(), 1);
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
