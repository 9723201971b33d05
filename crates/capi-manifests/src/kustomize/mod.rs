//! What `kustomize build` does to the resources of a kustomization, as far as it matters for
//! reading CRDs: nested `resources` (files and directories with their own kustomization),
//! `patches` (strategic merge and JSON 6902, from a file or inline, with or without
//! `target`), the legacy `patchesStrategicMerge` and `patchesJson6902`, `commonLabels`,
//! `labels[].pairs` and `commonAnnotations`, applied in kustomize's order.
//!
//! What is not emulated is reported as a [`Note`] naming the field: generators, components,
//! replacements, transformers, remote resources and the like. A note says whether the field
//! could change the resources read (then the documents carry it as a caveat, and a checker
//! should not fail on what it could not see) or cannot (`namePrefix`, `namespace` and
//! transformer `configurations` do not touch CustomResourceDefinitions).

pub mod patch;
mod target;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::display;
use crate::load::documents;
use crate::parse::Document;
use crate::tree::Tree;
use crate::{ManifestError, Source};

pub use target::Target;

/// File names kustomize looks for in a directory.
pub const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The kustomization file of `dir`, if any.
#[must_use]
pub fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|p| p.is_file())
}

/// Something a kustomization does that was not emulated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The kustomization file.
    pub file: String,
    /// The field (`components`, `replacements`, `resources[2]`, ...).
    pub field: String,
    /// What was not done, and what to do instead.
    pub message: String,
    /// True when the field could change the resources that were read (their labels, names or
    /// schemas may differ from what `kustomize build` gives).
    pub may_change_resources: bool,
}

/// Fields with no effect on CustomResourceDefinitions (checked by this crate's tests against
/// `kubectl kustomize`): listed as notes only.
const HARMLESS: &[(&str, &str)] = &[
    (
        "namespace",
        "sets the namespace of namespaced resources; CRDs are cluster-scoped",
    ),
    (
        "namePrefix",
        "kustomize does not rename CustomResourceDefinitions",
    ),
    (
        "nameSuffix",
        "kustomize does not rename CustomResourceDefinitions",
    ),
    (
        "configurations",
        "transformer configurations (name references, namespaces, vars) do not change CRD names or labels",
    ),
    (
        "vars",
        "variables are substituted only in the fields of their configuration",
    ),
    ("images", "image tags of workloads"),
    ("replicas", "replica counts of workloads"),
    ("configMapGenerator", "generates ConfigMaps, not CRDs"),
    ("secretGenerator", "generates Secrets, not CRDs"),
    ("generatorOptions", "options of generators"),
    ("crds", "OpenAPI for custom kinds, used by kustomize only"),
    (
        "openapi",
        "OpenAPI for custom kinds, used by kustomize only",
    ),
    ("sortOptions", "output order"),
    ("buildMetadata", "build annotations"),
];

/// Fields that could change anything and are not emulated.
const UNSEEN: &[&str] = &[
    "components",
    "transformers",
    "generators",
    "validators",
    "replacements",
    "helmCharts",
    "helmGlobals",
    "helmChartInflationGenerator",
];

/// The fields this module applies.
const EMULATED: &[&str] = &[
    "apiVersion",
    "kind",
    "metadata",
    "resources",
    "bases",
    "patches",
    "patchesStrategicMerge",
    "patchesJson6902",
    "commonLabels",
    "labels",
    "commonAnnotations",
];

/// The resources a kustomization produces, and what was not emulated.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Build {
    /// The resources, in kustomize's order (resources as listed, nested builds in place).
    pub documents: Vec<Document>,
    /// What was not emulated.
    pub notes: Vec<Note>,
}

/// Builds the kustomization of `dir`.
///
/// # Errors
/// An unreadable or invalid kustomization, a resource that cannot be read or leaves the tree,
/// a patch file that cannot be read or parsed.
pub fn build(tree: &mut Tree, dir: &Path, depth: usize) -> Result<Build, ManifestError> {
    if depth > tree.limits().max_tree_depth {
        return Err(ManifestError::TreeTooLarge {
            path: display(dir),
            what: format!(
                "kustomizations nested deeper than {}",
                tree.limits().max_tree_depth
            ),
        });
    }
    let file = kustomization_file(dir).ok_or_else(|| ManifestError::Kustomization {
        path: display(dir),
        message: "no kustomization.yaml in this directory".into(),
    })?;
    let shown = display(&file);
    let Some(text) = tree.read(&file)? else {
        // The same kustomization reached twice (two resources naming one directory).
        return Ok(Build::default());
    };
    let kustomization = parse_single(&text, &shown, tree)?;
    let Value::Object(fields) = &kustomization else {
        return Err(ManifestError::Kustomization {
            path: shown,
            message: "not a mapping".into(),
        });
    };
    let mut out = Build::default();
    let mut caveats = Vec::new();
    for key in fields.keys() {
        if EMULATED.contains(&key.as_str()) {
            continue;
        }
        let harmless = HARMLESS.iter().find(|(k, _)| k == key);
        let unseen = UNSEEN.contains(&key.as_str());
        let message = match harmless {
            Some((_, why)) => format!("not applied: {why}"),
            None if unseen => "not emulated; the resources may differ from `kustomize build` output: pipe `kustomize build DIR | capi-machinepool check -` to check them as built".to_owned(),
            None => "unknown kustomization field, ignored".to_owned(),
        };
        if harmless.is_none() {
            caveats.push(format!("{shown}: {key}"));
        }
        out.notes.push(Note {
            file: shown.clone(),
            field: key.clone(),
            message,
            may_change_resources: harmless.is_none(),
        });
    }
    let mut resources = Vec::new();
    let listed = fields
        .get("resources")
        .into_iter()
        .chain(fields.get("bases"))
        .filter_map(Value::as_array)
        .flatten();
    for (index, entry) in listed.enumerate() {
        let Some(name) = entry.as_str() else {
            return Err(ManifestError::Kustomization {
                path: shown,
                message: format!("resources[{index}] is not a string"),
            });
        };
        if is_remote(name) {
            caveats.push(format!("{shown}: resources[{index}]"));
            out.notes.push(Note {
                file: shown.clone(),
                field: format!("resources[{index}]"),
                message: format!(
                    "remote resource {} not fetched: pipe `kustomize build DIR | capi-machinepool check -` to check it",
                    capi_diagnostics::excerpt::excerpt(name)
                ),
                may_change_resources: true,
            });
            continue;
        }
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            // kustomize stops here; a partial checkout is still worth checking.
            out.notes.push(Note {
                file: shown.clone(),
                field: format!("resources[{index}]"),
                message: format!("{} is not present: not read", display(&path)),
                may_change_resources: false,
            });
            continue;
        }
        let real = tree.resolve(&path)?;
        if real.is_dir() {
            let inner = build(tree, &path, depth + 1)?;
            resources.extend(inner.documents);
            out.notes.extend(inner.notes);
        } else if let Some(text) = tree.read(&path)? {
            resources.extend(documents(&text, &display(&path), tree.limits())?);
        }
    }
    let mut ctx = Ctx {
        dir,
        shown: &shown,
        tree,
        notes: &mut out.notes,
        caveats: &mut caveats,
    };
    for (index, entry) in list(fields, "patchesStrategicMerge").enumerate() {
        let field = format!("patchesStrategicMerge[{index}]");
        let patches = match entry.as_str() {
            Some(text) if !text.contains('\n') && !text.contains(": ") => {
                ctx.patch_file(text, &field)?
            }
            Some(text) => documents(text, &format!("{shown} ({field})"), ctx.tree.limits())?
                .into_iter()
                .map(|d| d.value)
                .collect(),
            None => Vec::new(),
        };
        for patch in patches {
            ctx.strategic_merge(&mut resources, &patch, None, &field);
        }
    }
    for (index, entry) in list(fields, "patches").enumerate() {
        let field = format!("patches[{index}]");
        ctx.patch_entry(&mut resources, entry, &field)?;
    }
    let mut labels = string_map(fields.get("commonLabels"));
    for entry in list(fields, "labels") {
        labels.extend(string_map(entry.get("pairs")));
    }
    let annotations = string_map(fields.get("commonAnnotations"));
    for doc in &mut resources {
        for (key, map) in [("labels", &labels), ("annotations", &annotations)] {
            add_to_metadata(&mut doc.value, key, map);
        }
    }
    for (index, entry) in list(fields, "patchesJson6902").enumerate() {
        let field = format!("patchesJson6902[{index}]");
        ctx.patch_entry(&mut resources, entry, &field)?;
    }
    for doc in &mut resources {
        doc.caveats.extend(caveats.iter().cloned());
    }
    out.documents = resources;
    Ok(out)
}

/// Adds `map` to `metadata.<key>` of a resource (a missing or `null` map is created).
/// Documents that are not objects, or whose `metadata` (or its `key`) is something else than
/// an object, are left alone: kustomize rejects them, and reporting them is the rules' job.
fn add_to_metadata(resource: &mut Value, key: &str, map: &[(String, String)]) {
    fn object_at<'a>(
        parent: &'a mut serde_json::Map<String, Value>,
        key: &str,
    ) -> Option<&'a mut serde_json::Map<String, Value>> {
        let slot = parent.entry(key).or_insert(Value::Null);
        if slot.is_null() {
            *slot = Value::Object(serde_json::Map::new());
        }
        slot.as_object_mut()
    }
    if map.is_empty() {
        return;
    }
    let Some(target) = resource
        .as_object_mut()
        .and_then(|object| object_at(object, "metadata"))
        .and_then(|meta| object_at(meta, key))
    else {
        return;
    };
    for (k, v) in map {
        target.insert(k.clone(), Value::String(v.clone()));
    }
}

fn is_remote(name: &str) -> bool {
    name.contains("://")
        || name.starts_with("github.com/")
        || name.starts_with("git@")
        || name.starts_with("git::")
        || name.contains("?ref=")
}

fn list<'a>(
    fields: &'a serde_json::Map<String, Value>,
    key: &str,
) -> impl Iterator<Item = &'a Value> {
    fields
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn string_map(value: Option<&Value>) -> Vec<(String, String)> {
    value
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), text)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The first document of a text (`{}` when there is none).
fn parse_single(text: &str, file: &str, tree: &Tree) -> Result<Value, ManifestError> {
    Ok(documents(text, file, tree.limits())?
        .into_iter()
        .next()
        .map_or(Value::Object(serde_json::Map::new()), |d| d.value))
}

struct Ctx<'a> {
    dir: &'a Path,
    shown: &'a str,
    tree: &'a mut Tree,
    notes: &'a mut Vec<Note>,
    caveats: &'a mut Vec<String>,
}

impl Ctx<'_> {
    fn note(&mut self, field: &str, message: String) {
        self.notes.push(Note {
            file: self.shown.to_owned(),
            field: field.to_owned(),
            message,
            may_change_resources: false,
        });
    }

    /// The documents of a patch file (read once per use, from inside the tree); none, with a
    /// note and a caveat on the resources, when the file is not present.
    fn patch_file(&mut self, name: &str, field: &str) -> Result<Vec<Value>, ManifestError> {
        let path = self.dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            self.caveats.push(format!("{}: {field}", self.shown));
            self.notes.push(Note {
                file: self.shown.to_owned(),
                field: field.to_owned(),
                message: format!(
                    "patch {} is not present: what it changes (labels, names, schemas) is not seen",
                    display(&path)
                ),
                may_change_resources: true,
            });
            return Ok(Vec::new());
        }
        self.tree.resolve(&path)?;
        let text = crate::tree::read_file(&path, self.tree.limits())?;
        Ok(documents(&text, &display(&path), self.tree.limits())?
            .into_iter()
            .map(|d| d.value)
            .collect())
    }

    /// One entry of `patches` or `patchesJson6902`: `{path | patch, target}`.
    fn patch_entry(
        &mut self,
        resources: &mut Vec<Document>,
        entry: &Value,
        field: &str,
    ) -> Result<(), ManifestError> {
        let target = match entry.get("target") {
            Some(t) => {
                Some(
                    Target::from_value(t).map_err(|message| ManifestError::Kustomization {
                        path: self.shown.to_owned(),
                        message: format!("{field}.target: {message}"),
                    })?,
                )
            }
            None => None,
        };
        let patches: Vec<Value> = if let Some(path) = entry.get("path").and_then(Value::as_str) {
            self.patch_file(path, field)?
        } else if let Some(text) = entry.get("patch").and_then(Value::as_str) {
            documents(
                text,
                &format!("{} ({field}.patch)", self.shown),
                self.tree.limits(),
            )?
            .into_iter()
            .map(|d| d.value)
            .collect()
        } else {
            return Err(ManifestError::Kustomization {
                path: self.shown.to_owned(),
                message: format!("{field}: neither path nor patch"),
            });
        };
        for patch in patches {
            if patch.is_array() {
                let Some(target) = &target else {
                    return Err(ManifestError::Kustomization {
                        path: self.shown.to_owned(),
                        message: format!("{field}: a JSON patch needs a target"),
                    });
                };
                let mut matched = 0;
                for doc in resources.iter_mut().filter(|d| target.matches(&d.value)) {
                    matched += 1;
                    patch::json_patch(&mut doc.value, &patch).map_err(|e| {
                        ManifestError::Kustomization {
                            path: self.shown.to_owned(),
                            message: format!("{field}: {e} on {}", doc.source),
                        }
                    })?;
                }
                if matched == 0 {
                    self.note(field, "the JSON patch's target matches no resource".into());
                }
            } else {
                self.strategic_merge(resources, &patch, target.as_ref(), field);
            }
        }
        Ok(())
    }

    /// Applies a strategic merge patch to its target (or, without one, to the resource with
    /// the patch's own group, kind and name).
    fn strategic_merge(
        &mut self,
        resources: &mut Vec<Document>,
        patch: &Value,
        target: Option<&Target>,
        field: &str,
    ) {
        let own = Target::of(patch);
        let target = target.unwrap_or(&own);
        let before = resources.len();
        let mut matched = 0;
        resources.retain_mut(|doc| {
            if !target.matches(&doc.value) {
                return true;
            }
            matched += 1;
            if patch::deletes_resource(patch) {
                return false;
            }
            patch::strategic_merge(&mut doc.value, patch);
            true
        });
        if matched == 0 && before > 0 {
            self.note(field, format!("the patch matches no resource ({target})"));
        }
    }
}

impl Document {
    /// A document with no caveat.
    #[must_use]
    pub fn new(source: Source, value: Value) -> Self {
        Self {
            source,
            value,
            caveats: Vec::new(),
        }
    }
}
