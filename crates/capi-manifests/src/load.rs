//! Reading CRDs and objects from files, directories and rendered bundles.
//!
//! A directory is read recursively (`*.yaml`, `*.yml`, `*.json`). When it holds a
//! `kustomization.yaml`, its `labels[].pairs` and `commonLabels` are applied to the CRDs it
//! lists in `resources` (matched by file name), the way `kustomize build` would; patches it
//! names that are not present are recorded as notes, since labels they add cannot be seen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::crd_check::CrdInput;

/// One YAML/JSON document of an input file.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// `path#index` (index from 0).
    pub source: String,
    /// The document.
    pub value: Value,
}

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file or directory cannot be read.
    #[error("{path}: cannot read")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not UTF-8.
    #[error("{path}: not valid UTF-8 (byte {valid_up_to})")]
    Utf8 {
        /// The path.
        path: String,
        /// Bytes that are valid before the first invalid one.
        valid_up_to: usize,
    },
    /// The file is not valid YAML/JSON.
    #[error("{path}: {message}")]
    Syntax {
        /// The path.
        path: String,
        /// The parser's message (with line and column).
        message: String,
    },
}

/// Parses a multi-document YAML (or JSON) text; empty documents are skipped.
///
/// # Errors
/// On a syntax error (the message names the line and column).
pub fn parse_documents(path: &str, text: &str) -> Result<Vec<Document>, LoadError> {
    let values: Vec<Value> = serde_saphyr::from_multiple(text).map_err(|e| LoadError::Syntax {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    Ok(values
        .into_iter()
        .enumerate()
        .filter(|(_, v)| !v.is_null())
        .map(|(i, value)| Document {
            source: format!("{path}#{i}"),
            value,
        })
        .collect())
}

/// Reads a file as text, with clear errors for I/O and invalid UTF-8.
///
/// # Errors
/// When the file cannot be read or is not UTF-8.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    let display = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: display.clone(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|e| LoadError::Utf8 {
        path: display,
        valid_up_to: e.utf8_error().valid_up_to(),
    })
}

/// Reads every document of a file.
///
/// # Errors
/// See [`read_text`] and [`parse_documents`].
pub fn read_documents(path: &Path) -> Result<Vec<Document>, LoadError> {
    parse_documents(&path.display().to_string(), &read_text(path)?)
}

fn is_input_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name != "kustomization.yaml"
        && name != "kustomization.yml"
        && matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        )
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), LoadError> {
    let io = |source| LoadError::Io {
        path: dir.display().to_string(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out)?;
        } else if is_input_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

/// The labels and resource list of a `kustomization.yaml`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kustomization {
    /// Labels added to every resource (`labels[].pairs` and `commonLabels`).
    pub labels: BTreeMap<String, String>,
    /// File names of `resources`.
    pub resources: Vec<String>,
    /// Patch paths named in `patches` / `patchesStrategicMerge`.
    pub patches: Vec<String>,
}

fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// Parses a kustomization document.
#[must_use]
pub fn kustomization(doc: &Value) -> Kustomization {
    let mut k = Kustomization {
        labels: string_map(&doc["commonLabels"]),
        ..Kustomization::default()
    };
    for entry in doc["labels"].as_array().into_iter().flatten() {
        k.labels.extend(string_map(&entry["pairs"]));
    }
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| e.as_str().or_else(|| e["path"].as_str()).map(str::to_owned))
            .collect()
    };
    k.resources = names(&doc["resources"]);
    k.patches = names(&doc["patches"]);
    k.patches.extend(names(&doc["patchesStrategicMerge"]));
    k
}

fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn apply_kustomization(dir: &Path, k: &Kustomization, input: &mut CrdInput, file: &Path) {
    let name = file
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let listed = k.resources.is_empty() || k.resources.iter().any(|r| file_name(r) == name);
    if !listed {
        input.notes.push(
            "not listed in the kustomization's resources; its labels were not applied".into(),
        );
        return;
    }
    if !k.labels.is_empty() {
        let labels = input.crd["metadata"]["labels"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let mut merged = labels;
        for (key, value) in &k.labels {
            merged.insert(key.clone(), Value::String(value.clone()));
        }
        input.crd["metadata"]["labels"] = Value::Object(merged);
    }
    let plural = input.crd["spec"]["names"]["plural"]
        .as_str()
        .unwrap_or("\u{0}");
    let missing: Vec<&str> = k
        .patches
        .iter()
        .filter(|p| file_name(p).contains(plural) && !dir.join(p).exists())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        input.notes.push(format!(
            "kustomization.yaml applies patches that are not present ({}); labels they add cannot be seen",
            missing.join(", ")
        ));
    }
}

/// Reads CRDs from files and directories (see the module docs). Documents that are not
/// CustomResourceDefinitions are returned separately.
///
/// # Errors
/// The first unreadable path or document.
pub fn load_crds(paths: &[PathBuf]) -> Result<(Vec<CrdInput>, Vec<Document>), LoadError> {
    let mut crds = Vec::new();
    let mut others = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| LoadError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let (files, kustomization) = if meta.is_dir() {
            let mut files = Vec::new();
            walk(path, &mut files)?;
            let k_path = path.join("kustomization.yaml");
            let k = if k_path.exists() {
                read_documents(&k_path)?
                    .first()
                    .map(|d| kustomization(&d.value))
            } else {
                None
            };
            (files, k)
        } else {
            (vec![path.clone()], None)
        };
        for file in files {
            for doc in read_documents(&file)? {
                if doc.value["kind"] == "CustomResourceDefinition" {
                    let mut input = CrdInput {
                        source: doc.source,
                        crd: doc.value,
                        notes: Vec::new(),
                    };
                    if let Some(k) = &kustomization {
                        apply_kustomization(path, k, &mut input, &file);
                    }
                    crds.push(input);
                } else {
                    others.push(doc);
                }
            }
        }
    }
    Ok((crds, others))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kustomization_labels_both_styles() {
        let k = kustomization(&json!({
            "commonLabels": {"cluster.x-k8s.io/v1beta1": "v1beta1"},
            "labels": [{"pairs": {"cluster.x-k8s.io/v1beta2": "v1beta2"}}],
            "resources": ["bases/a.yaml"],
            "patches": [{"path": "patches/p.yaml"}],
            "patchesStrategicMerge": ["patches/q.yaml"]
        }));
        assert_eq!(k.labels.len(), 2);
        assert_eq!(k.resources, ["bases/a.yaml"]);
        assert_eq!(k.patches, ["patches/p.yaml", "patches/q.yaml"]);
    }

    #[test]
    fn syntax_errors_name_the_file_and_line() {
        let err = parse_documents("x.yaml", "a: b\n  c: d: e\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("x.yaml: "), "{text}");
        assert!(text.contains("line"), "{text}");
    }

    #[test]
    fn duplicate_keys_are_rejected() {
        assert!(parse_documents("d.yaml", "a: 1\na: 2\n").is_err());
    }
}
