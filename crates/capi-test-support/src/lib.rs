//! Helpers shared by the test suites of the workspace (a dev-dependency only, never
//! published): fixture paths and documents, JSON merge patches, and what Go's `omitempty`
//! makes of an object (the normal form round-trip properties compare).
#![allow(clippy::unwrap_used, clippy::panic)]

pub mod go_tool;
pub mod kubectl;
pub mod oracle;

use std::path::PathBuf;

use serde_json::Value;

/// The workspace root.
#[must_use]
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `cargo metadata --format-version 1` of the workspace, with `args` added (`--locked`,
/// `--offline`, `--filter-platform ..`), as JSON; run with the cargo that runs the tests.
///
/// # Panics
/// When cargo fails or prints no JSON.
#[must_use]
pub fn cargo_metadata(args: &[&str]) -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(workspace_root())
        .args(["metadata", "--format-version", "1"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Path of a file under the workspace `tests/fixtures` directory.
#[must_use]
pub fn fixture(rel: &str) -> PathBuf {
    workspace_root().join("tests/fixtures").join(rel)
}

/// Copies the directory tree `from` to `to` (created), files and subdirectories.
///
/// # Panics
/// When a file cannot be read or written.
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap();
        }
    }
}

/// A copy of a partial provider tree of the fixtures (`corpus/providers/<name>`: a
/// kustomization whose `resources` and patches name files the corpus did not keep) whose
/// kustomization lists only the files that are there, as a checkout of those files would have it; kustomize
/// (and `capi-manifests`) fail on a resource that does not exist. The copy is under the
/// target directory's temporary folder, one per fixture and process.
///
/// # Panics
/// When the fixture cannot be read or the copy cannot be written.
#[must_use]
pub fn partial_tree(rel: &str) -> PathBuf {
    let from = fixture(rel);
    let to = std::env::temp_dir().join(format!(
        "capi-partial-{}-{}",
        std::process::id(),
        rel.replace('/', "_")
    ));
    if to.exists() {
        return to;
    }
    // One scratch copy per call: tests of one process may make the same tree at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = to.with_extension(format!("tmp{call}"));
    let _ = std::fs::remove_dir_all(&work);
    copy_tree(&from, &work);
    let file = work.join("kustomization.yaml");
    let mut kustomization: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let present = |name: &str| work.join(name).exists();
    // Missing `configurations` and `crds` files are dropped too: kustomize (and the emulator)
    // refuse them (tests/fixtures/kustomize-trees/refused-missing-*).
    for key in [
        "resources",
        "patchesStrategicMerge",
        "configurations",
        "crds",
    ] {
        if let Some(Value::Array(list)) = kustomization.get_mut(key) {
            list.retain(|r| r.as_str().is_some_and(|n| n.contains('\n') || present(n)));
        }
    }
    for key in ["patches", "patchesJson6902"] {
        if let Some(Value::Array(list)) = kustomization.get_mut(key) {
            list.retain(|e| e.get("path").and_then(Value::as_str).is_none_or(present));
        }
    }
    // JSON is YAML.
    std::fs::write(&file, serde_json::to_string_pretty(&kustomization).unwrap()).unwrap();
    // Another test of this process may have made it meanwhile.
    if std::fs::rename(&work, &to).is_err() {
        let _ = std::fs::remove_dir_all(&work);
    }
    to
}

/// serde-saphyr's options for reading YAML as `capi_manifests` (and kubectl's YAML 1.1
/// reader) does: `017` is the octal 15.
#[must_use]
pub fn kubectl_yaml_options() -> serde_saphyr::Options {
    let mut options = serde_saphyr::Options::default();
    options.legacy_octal_numbers = true;
    options
}

/// Every document of a YAML fixture (multi-document streams included), as JSON.
///
/// # Panics
/// When the fixture cannot be read or parsed.
#[must_use]
pub fn yaml_docs(rel: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    serde_saphyr::from_multiple(&text).unwrap()
}

/// The first document of a YAML fixture, as JSON.
///
/// # Panics
/// When the fixture cannot be read, parsed, or is empty.
#[must_use]
pub fn yaml(rel: &str) -> Value {
    yaml_docs(rel).remove(0)
}

/// Applies a JSON merge patch (RFC 7386) to `target`.
pub fn merge(target: &mut Value, patch: &Value) {
    if let (Value::Object(t), Value::Object(p)) = (&mut *target, patch) {
        for (k, v) in p {
            if v.is_null() {
                t.remove(k);
            } else {
                merge(t.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
    } else {
        *target = patch.clone();
    }
}

/// The two MachinePools of the corpus (`objects/machine-pool.yaml`, `templates/mp.yaml`), with
/// the clusterctl template's `${WORKER_MACHINE_COUNT}` substituted as clusterctl would.
///
/// # Panics
/// When the fixtures are missing.
#[must_use]
pub fn corpus_machine_pools() -> Vec<Value> {
    let mut pools: Vec<Value> = [
        "corpus/objects/machine-pool.yaml",
        "corpus/templates/mp.yaml",
    ]
    .iter()
    .flat_map(|f| yaml_docs(f))
    .filter(|d| d["kind"] == "MachinePool")
    .collect();
    for p in &mut pools {
        if p["spec"]["replicas"].is_string() {
            p["spec"]["replicas"] = serde_json::json!(3);
        }
    }
    assert_eq!(pools.len(), 2, "corpus MachinePools");
    pools
}

/// The number of cases for a property test: `PROPTEST_CASES` when set (e.g. 20000 for a long
/// run), else `default`.
#[must_use]
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// How [`first_difference`] compares numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// `1` and `1.0` differ (byte-level comparisons of Go output).
    Exact,
    /// Equal as `f64` (tools such as kustomize print some integers as floats).
    ByValue,
}

/// The first JSON path where `ours` and `theirs` differ, with both values, `theirs` named
/// `name` in the message; `None` when equal.
#[must_use]
pub fn first_difference(
    ours: &Value,
    theirs: &Value,
    name: &str,
    numbers: Numbers,
) -> Option<String> {
    fn walk(
        path: &str,
        ours: &Value,
        theirs: &Value,
        name: &str,
        numbers: Numbers,
    ) -> Option<String> {
        match (ours, theirs) {
            (Value::Object(a), Value::Object(b)) => {
                let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
                keys.sort();
                keys.dedup();
                keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => walk(&format!("{path}.{k}"), x, y, name, numbers),
                    (x, y) => Some(format!("{path}.{k}: ours {x:?}, {name} {y:?}")),
                })
            }
            (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
                .iter()
                .zip(b)
                .enumerate()
                .find_map(|(i, (x, y))| walk(&format!("{path}[{i}]"), x, y, name, numbers)),
            (Value::Number(a), Value::Number(b))
                if numbers == Numbers::ByValue && a.as_f64() == b.as_f64() =>
            {
                None
            }
            _ if ours == theirs => None,
            _ => Some(format!("{path}: ours {ours}, {name} {theirs}")),
        }
    }
    walk("", ours, theirs, name, numbers)
}

/// The inputs a cargo-fuzz target kept (`tests/fixtures/fuzz/<target>/`), sorted by file name,
/// as `(path, bytes)`: the fuzz regression tests of each crate replay them.
///
/// # Panics
/// When the directory is missing or empty (a fixture was lost).
#[must_use]
pub fn fuzz_inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = fixture("fuzz").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no fuzz inputs", dir.display());
    files
        .into_iter()
        .map(|p| {
            let data = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p.display().to_string(), data)
        })
        .collect()
}
