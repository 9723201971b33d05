//! Structure facts of docs/architecture.md ("No import circles between crates, and none
//! between the modules of a crate"), checked on the sources: within every library crate
//! under `crates/`, the top-level modules' `crate::` references (outside comments and
//! `#[cfg(test)]` code) form no cycle. Between crates Cargo itself refuses cycles.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use capi_test_support::workspace_root;

/// The top-level module a source file belongs to (`""` for the crate root).
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    let first = first.trim_end_matches(".rs");
    if matches!(first, "lib" | "main") {
        String::new()
    } else {
        first.to_owned()
    }
}

/// The modules named by `crate::NAME` or `crate::{A, B::..}` in code (comments and test
/// code left out).
fn references(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut found = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap()];
            for item in group.split(',') {
                let name = item.trim().split("::").next().unwrap_or_default();
                if !name.is_empty() {
                    found.insert(name.to_owned());
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.insert(name);
        }
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A cycle through `start`, if any (depth-first search).
fn cycle_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_owned(), vec![start.to_owned()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == start {
                return Some([path.clone(), vec![next.clone()]].concat());
            }
            if seen.insert(next.clone()) {
                stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
            }
        }
    }
    None
}

#[test]
fn no_import_circles_between_the_modules_of_a_crate() {
    let crates = workspace_root().join("crates");
    let mut circles = Vec::new();
    let mut modules_seen = 0;
    for entry in fs::read_dir(&crates).unwrap() {
        let src = entry.unwrap().path().join("src");
        if !src.is_dir() {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in &files {
            let module = top_module(&src, file);
            let refs = references(&fs::read_to_string(file).unwrap());
            let edges = graph.entry(module.clone()).or_default();
            edges.extend(refs.into_iter().filter(|r| *r != module));
        }
        modules_seen += graph.len();
        for module in graph.keys().filter(|m| !m.is_empty()) {
            if let Some(cycle) = cycle_from(&graph, module) {
                circles.push(format!("{}: {}", src.display(), cycle.join(" -> ")));
            }
        }
    }
    assert!(modules_seen > 50, "only {modules_seen} modules found");
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_reference_reader_sees_grouped_and_single_paths() {
    let text = "use crate::{a::X, b};\nuse crate::c::Y;\n// crate::d\n#[cfg(test)]\nuse crate::e;";
    let found: Vec<String> = references(text).into_iter().collect();
    assert_eq!(found, ["a", "b", "c"]);
}
