//! What `kustomize build` does to the resources of a kustomization, as far as it matters for
//! reading CRDs: nested `resources` (files and directories with their own kustomization),
//! `patches` (strategic merge and JSON 6902, from a file or inline, with or without
//! `target`), the legacy `patchesStrategicMerge` and `patchesJson6902`, `commonLabels`,
//! `labels[].pairs` and `commonAnnotations`, applied in kustomize's order.
//!
//! What kustomize rejects is an error here too: a field it does not know (`json: unknown
//! field`; names match case-insensitively, as Go's JSON decoding does), a resource or patch
//! file that does not exist, a strategic merge patch without `metadata.name`. What it accepts
//! and is not emulated is reported as a [`Note`] naming the field: generators, components,
//! replacements, transformers, remote resources and the like. A note says whether the field
//! could change the resources read (then the documents carry it as a caveat, and a checker
//! should not fail on what it could not see) or cannot (`namePrefix`, `namespace` and
//! transformer `configurations` do not touch CustomResourceDefinitions). An empty field
//! (`components: []`) changes nothing and is not noted.
//!
//! Every document kept and every use of a patch is counted against
//! [`Limits::max_total_nodes`](crate::Limits::max_total_nodes); each patch file is read and
//! parsed once however many entries name it.

mod fields;
pub mod patch;
mod remote;
mod set_by;
mod target;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::ManifestError;
use crate::Source;
use crate::budget::nodes;
use crate::error::display_path as display;
use crate::parse::{Document, documents};
use crate::position::{Position, Positions};
use crate::tree::Tree;
use set_by::{json_patch_paths, merge_patch_paths, named, record};

pub use crate::tree::{KUSTOMIZATION_FILES, kustomization_file};
pub use remote::is_git_repo_spec;
pub use target::{Target, TargetError};

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
/// An unreadable or invalid kustomization (a field kustomize does not know included), a
/// resource that does not exist, cannot be read or leaves the tree, a patch that cannot be
/// read, parsed or applied, or a broken limit.
pub fn build(tree: &mut Tree, dir: &Path, depth: usize) -> Result<Build, ManifestError> {
    build_with(tree, &mut PatchFiles::default(), dir, depth)
}

/// The patch files read so far in one build, by real path: each is read and parsed once.
#[derive(Default)]
struct PatchFiles(HashMap<PathBuf, Rc<PatchSet>>);

/// The documents of a patch (each with where it is) and their node count.
struct PatchSet {
    patches: Vec<Patch>,
    nodes: usize,
}

/// One patch document: its value, where it is, and where each of its values is written.
struct Patch {
    value: Value,
    source: Source,
    positions: Option<Arc<Positions>>,
}

/// The phases of one kustomization, in kustomize's order.
fn build_with(
    tree: &mut Tree,
    files: &mut PatchFiles,
    dir: &Path,
    depth: usize,
) -> Result<Build, ManifestError> {
    check_nesting(tree, dir, depth)?;
    let Some((shown, fields, places)) = read_kustomization(tree, dir)? else {
        // The same kustomization reached twice (two resources naming one directory).
        return Ok(Build::default());
    };
    let mut ctx = Ctx {
        dir,
        shown: &shown,
        places: &places,
        tree,
        files,
        notes: Vec::new(),
        caveats: Vec::new(),
    };
    ctx.note_fields(&fields);
    let mut resources = ctx.accumulate_resources(&fields, depth)?;
    ctx.refuse_duplicates(&resources)?;
    ctx.refuse_missing_files(&fields)?;
    if let Err(error) = ctx.transform(&mut resources, &fields) {
        return Err(unseen_cause(&ctx.notes, &resources, error));
    }
    Ok(ctx.finish(resources))
}

/// A transformation that fails after something that could change the resources was not
/// emulated (kustomize applies `components` before the kustomization's own patches, so a patch
/// may rely on a label a component adds) is reported as that field not emulated, not as the
/// emulator's own failure: without it the emulator cannot tell whether kustomize would fail.
/// The kustomization's own notes come first, then the caveats its resources carry from nested
/// kustomizations; without either, the error stands.
fn unseen_cause(notes: &[Note], resources: &[Document], error: ManifestError) -> ManifestError {
    let own = notes
        .iter()
        .find(|n| n.may_change_resources)
        .map(|n| (n.file.as_str(), n.field.as_str()));
    let nested = || {
        resources
            .iter()
            .flat_map(|d| &d.caveats)
            .find_map(|c| c.rsplit_once(": "))
    };
    match own.or_else(nested) {
        Some((path, field)) => ManifestError::NotEmulated {
            path: path.to_owned(),
            field: field.to_owned(),
        },
        None => error,
    }
}

/// Refuses kustomizations nested deeper than the tree limit.
fn check_nesting(tree: &Tree, dir: &Path, depth: usize) -> Result<(), ManifestError> {
    if depth > tree.limits().max_tree_depth {
        return Err(ManifestError::TreeTooLarge {
            path: display(dir),
            what: format!(
                "kustomizations nested deeper than {}",
                tree.limits().max_tree_depth
            ),
        });
    }
    Ok(())
}

/// A kustomization file as shown in messages, its fields under their canonical names, and
/// where they are written.
type Kustomization = (String, Map<String, Value>, Places);

/// Where the fields of a kustomization file are written, for pointing at the entry that set
/// a value: its positions and its text (for the indentation of inline patches).
struct Places {
    positions: Option<Arc<Positions>>,
    text: String,
}

impl Places {
    /// The position of the value at `keys` of the kustomization (a list entry by index).
    fn at(&self, keys: &[&str]) -> Option<Position> {
        self.positions
            .as_deref()
            .and_then(|p| p.child(keys))
            .map(Positions::at)
    }

    /// Where line 1, column 1 of the inline patch at `keys` is in the kustomization file: the
    /// line after the key or entry for a block scalar (`patch: |-`), at its indentation; the
    /// key's own line for a string written on it. `(lines, columns)` to add.
    fn inline_offset(&self, keys: &[&str]) -> Option<(usize, usize)> {
        let at = self.at(keys)?;
        let mut lines = self.text.lines().skip(at.line.saturating_sub(1));
        let own = lines.next()?.trim_end();
        let block = own
            .rsplit([' ', ':'])
            .next()
            .is_some_and(|t| t.starts_with('|') || t.starts_with('>'));
        if !block {
            return Some((at.line.saturating_sub(1), 0));
        }
        let indent = lines
            .find(|l| !l.trim().is_empty())
            .map_or(0, |l| l.len() - l.trim_start().len());
        Some((at.line, indent))
    }
}

/// The kustomization file of `dir`, its fields under their canonical names; `None` when it
/// was read before.
fn read_kustomization(tree: &mut Tree, dir: &Path) -> Result<Option<Kustomization>, ManifestError> {
    let file = kustomization_file(dir).ok_or_else(|| ManifestError::Kustomization {
        path: display(dir),
        message: "no kustomization.yaml in this directory".into(),
    })?;
    let shown = display(&file);
    let Some(text) = tree.read(&file)? else {
        return Ok(None);
    };
    let (value, positions) = documents(&text, &shown, tree.limits())?
        .into_iter()
        .next()
        .map_or((Value::Object(Map::new()), None), |d| {
            (d.value, d.positions)
        });
    tree.budget().charge_value(&value, &shown)?;
    let error = |message: String| ManifestError::Kustomization {
        path: shown.clone(),
        message,
    };
    let Value::Object(fields) = value else {
        return Err(error("not a mapping".into()));
    };
    let fields = fields::canonical(fields).map_err(|e| error(e.to_string()))?;
    // kubectl kustomize v5.5.0: "kind should be Kustomization or Component" and "Found
    // multiple kustomization files" (tests/fixtures/kustomize-trees/refused-kind-bogus,
    // refused-two-kustomization-files).
    if let Some(kind) = fields.get("kind").and_then(Value::as_str)
        && !matches!(kind, "Kustomization" | "Component")
    {
        return Err(error(
            "kind should be Kustomization or Component (kustomize refuses it)".into(),
        ));
    }
    let found = KUSTOMIZATION_FILES
        .iter()
        .filter(|n| dir.join(n).is_file())
        .count();
    if found > 1 {
        return Err(error(
            "more than one kustomization file in this directory (kustomize refuses it)".into(),
        ));
    }
    Ok(Some((shown, fields, Places { positions, text })))
}

/// Adds `map` to `metadata.<key>` of a resource (a missing or `null` map is created).
/// Documents that are not objects, or whose `metadata` (or its `key`) is something else than
/// an object, are left alone: kustomize rejects them, and reporting them is the rules' job.
fn add_to_metadata(resource: &mut Value, key: &str, map: &[(String, String)]) {
    fn object_at<'a>(
        parent: &'a mut Map<String, Value>,
        key: &str,
    ) -> Option<&'a mut Map<String, Value>> {
        let slot = parent.entry(key).or_insert(Value::Null);
        if slot.is_null() {
            *slot = Value::Object(Map::new());
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

/// The YAML 1.1 boolean words that YAML 1.2 reads as strings (`true`/`false` are booleans in
/// both and arrive here as booleans).
fn is_yaml11_bool_word(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// A name kustomize would fetch: any URL-like name, and every form its git parser accepts
/// ([`is_git_repo_spec`]).
fn is_remote(name: &str) -> bool {
    name.contains("://")
        || name.starts_with("github.com/")
        || name.starts_with("git@")
        || name.starts_with("git::")
        || name.contains("?ref=")
        || is_git_repo_spec(name)
}

fn list<'a>(fields: &'a Map<String, Value>, key: &str) -> impl Iterator<Item = &'a Value> {
    fields
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// One kustomization being built.
struct Ctx<'a> {
    dir: &'a Path,
    shown: &'a str,
    /// Where the fields of the kustomization file are written.
    places: &'a Places,
    tree: &'a mut Tree,
    files: &'a mut PatchFiles,
    notes: Vec<Note>,
    /// `file: field` of what was not emulated and could change the resources.
    caveats: Vec<String>,
}

impl Ctx<'_> {
    /// The line of the top-level field `key` of the kustomization file (1 when not found).
    fn line_of(&self, key: &str) -> usize {
        self.places.at(&[key]).map_or(1, |p| p.line)
    }

    fn error(&self, message: String) -> ManifestError {
        ManifestError::Kustomization {
            path: self.shown.to_owned(),
            message,
        }
    }

    /// Kustomize's transformations in its order: legacy strategic merge patches, `patches`,
    /// labels and annotations, `patchesJson6902`.
    fn transform(
        &mut self,
        resources: &mut Vec<Document>,
        fields: &Map<String, Value>,
    ) -> Result<(), ManifestError> {
        self.apply_legacy_strategic_merge(resources, fields)?;
        self.apply_patch_list(resources, fields, "patches")?;
        self.add_labels_and_annotations(resources, fields)?;
        self.apply_patch_list(resources, fields, "patchesJson6902")
    }

    /// Adds the labels and annotations of `commonLabels`, `labels[].pairs` and
    /// `commonAnnotations` to every resource.
    fn add_labels_and_annotations(
        &mut self,
        resources: &mut [Document],
        fields: &Map<String, Value>,
    ) -> Result<(), ManifestError> {
        // `commonLabels` wins over `labels` for one key: kubectl kustomize v5.5.0 renders the
        // `commonLabels` value (tests/fixtures/kustomize-trees/label-precedence).
        let mut labels = Vec::new();
        for (i, entry) in list(fields, "labels").enumerate() {
            labels.extend(self.string_map(entry.get("pairs"), &format!("labels[{i}].pairs"))?);
        }
        labels.extend(self.string_map(fields.get("commonLabels"), "commonLabels")?);
        let annotations = self.string_map(fields.get("commonAnnotations"), "commonAnnotations")?;
        let here = Source::new(self.shown, 0, 1);
        for doc in resources {
            for (key, map) in [("labels", &labels), ("annotations", &annotations)] {
                add_to_metadata(&mut doc.value, key, map);
                for (name, _) in map {
                    let (setter, at) = self.label_setter(fields, key, name);
                    let path = vec!["metadata".to_owned(), key.to_owned(), name.clone()];
                    record(doc, vec![(path, at)], &here, setter);
                }
            }
        }
        Ok(())
    }

    /// The field that set label (or annotation, for `key` `annotations`) `name`, and where the
    /// entry is written: `commonAnnotations`; `commonLabels`, which wins over `labels`; else
    /// the last `labels[].pairs` that holds it.
    fn label_setter(
        &self,
        fields: &Map<String, Value>,
        key: &str,
        name: &str,
    ) -> (&'static str, Option<Position>) {
        if key == "annotations" {
            return (
                "commonAnnotations",
                self.places.at(&["commonAnnotations", name]),
            );
        }
        if fields
            .get("commonLabels")
            .and_then(|c| c.get(name))
            .is_some()
        {
            return ("commonLabels", self.places.at(&["commonLabels", name]));
        }
        let entry = list(fields, "labels")
            .enumerate()
            .filter(|(_, e)| e["pairs"].get(name).is_some())
            .map(|(i, _)| i.to_string())
            .last();
        let at = entry.and_then(|i| self.places.at(&["labels", &i, "pairs", name]));
        ("labels", at.or_else(|| self.places.at(&["labels"])))
    }

    /// The string pairs of a label or annotation map, read as kustomize v5.5.0 reads them
    /// into `map[string]string` (checked with `kubectl kustomize`, see
    /// tests/fixtures/kustomize-trees/README.md): `null` (or `~`) is the empty string; a
    /// boolean or a number is refused; a plain `y`, `yes`, `on`, `off`, `n`, `no` (any case
    /// YAML 1.1 knows) is a boolean to kustomize and refused, but the same word quoted is a
    /// string. The YAML here is read as YAML 1.2, which keeps no quoting, so such a value is
    /// not emulated (a note that may change the resources: `--kustomize never` exits 2).
    fn string_map(
        &mut self,
        value: Option<&Value>,
        field: &str,
    ) -> Result<Vec<(String, String)>, ManifestError> {
        let Some(map) = value.and_then(Value::as_object) else {
            return Ok(Vec::new());
        };
        let mut pairs = Vec::with_capacity(map.len());
        for (key, value) in map {
            let text = match value {
                Value::String(s) => {
                    if is_yaml11_bool_word(s) {
                        self.note(
                            &format!("{field}.{key}"),
                            format!(
                                "value {s:?}: kustomize reads it unquoted as a YAML 1.1 boolean and refuses the kustomization, quoted as a string; the emulator cannot tell which"
                            ),
                            true,
                        );
                    }
                    s.clone()
                }
                Value::Null => String::new(),
                other => {
                    return Err(self.error(format!(
                        "{field}.{key}: {other} is not a string (kustomize refuses it: quote the value)"
                    )));
                }
            };
            pairs.push((key.clone(), text));
        }
        Ok(pairs)
    }

    fn note(&mut self, field: &str, message: String, may_change_resources: bool) {
        if may_change_resources {
            self.caveats.push(format!("{}: {field}", self.shown));
        }
        self.notes.push(Note {
            file: self.shown.to_owned(),
            field: field.to_owned(),
            message,
            may_change_resources,
        });
    }

    /// Notes every non-empty field that is not emulated (unknown fields were refused when
    /// the kustomization was read).
    fn note_fields(&mut self, fields: &Map<String, Value>) {
        for (key, value) in fields {
            if let Some(effect) = fields::not_emulated(key).filter(|_| !fields::is_empty(value)) {
                let message = match effect {
                    fields::Effect::Harmless(why) => format!("not applied: {why}"),
                    fields::Effect::Unseen => "not emulated; the resources may differ from `kustomize build` output: pipe `kustomize build DIR | capi-machinepool check -` to check them as built".to_owned(),
                };
                let may_change = matches!(effect, fields::Effect::Unseen);
                self.note(key, message, may_change);
            }
        }
    }

    /// kubectl kustomize v5.5.0: "may not add resource with an already registered id"
    /// (tests/fixtures/kustomize-trees/refused-resource-twice, refused-two-crds-one-name).
    fn refuse_duplicates(&self, resources: &[Document]) -> Result<(), ManifestError> {
        let mut seen = std::collections::HashSet::new();
        for doc in resources {
            let v = &doc.value;
            let id = (
                v["apiVersion"].to_string(),
                v["kind"].to_string(),
                v["metadata"]["name"].to_string(),
                v["metadata"]["namespace"].to_string(),
            );
            if !seen.insert(id) {
                return Err(self.error(format!(
                    "{}: a resource with an already registered id (kustomize refuses it)",
                    doc.source
                )));
            }
        }
        Ok(())
    }

    /// Files named by `crds`, `configurations`, `openapi.path` and the `files`/`envs` of
    /// generators must exist (kubectl kustomize v5.5.0 fails on each missing one:
    /// tests/fixtures/kustomize-trees/refused-missing-*).
    fn refuse_missing_files(&self, fields: &Map<String, Value>) -> Result<(), ManifestError> {
        let mut named: Vec<(String, String)> = Vec::new();
        for key in ["crds", "configurations"] {
            for (i, v) in list(fields, key).enumerate() {
                if let Some(s) = v.as_str() {
                    named.push((format!("{key}[{i}]"), s.to_owned()));
                }
            }
        }
        if let Some(s) = fields
            .get("openapi")
            .and_then(|o| o.get("path"))
            .and_then(Value::as_str)
        {
            named.push(("openapi.path".into(), s.to_owned()));
        }
        for key in ["configMapGenerator", "secretGenerator"] {
            for (i, g) in list(fields, key).enumerate() {
                for sub in ["files", "envs"] {
                    for (j, v) in g
                        .get(sub)
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .enumerate()
                    {
                        if let Some(s) = v.as_str() {
                            let file = s.split_once('=').map_or(s, |(_, f)| f);
                            named.push((format!("{key}[{i}].{sub}[{j}]"), file.to_owned()));
                        }
                    }
                }
                if let Some(s) = g.get("env").and_then(Value::as_str) {
                    named.push((format!("{key}[{i}].env"), s.to_owned()));
                }
            }
        }
        for (field, name) in named {
            if std::fs::symlink_metadata(self.dir.join(&name)).is_err() {
                return Err(self.error(format!(
                    "{field}: {} does not exist (kustomize fails on a missing file)",
                    capi_diagnostics::excerpt::excerpt(&name)
                )));
            }
        }
        Ok(())
    }

    /// The documents of `resources` and `bases`, in order (directories built in place).
    fn accumulate_resources(
        &mut self,
        fields: &Map<String, Value>,
        depth: usize,
    ) -> Result<Vec<Document>, ManifestError> {
        let mut resources = Vec::new();
        let listed = list(fields, "resources").chain(list(fields, "bases"));
        for (index, entry) in listed.enumerate() {
            let field = format!("resources[{index}]");
            let Some(name) = entry.as_str() else {
                return Err(self.error(format!("{field} is not a string")));
            };
            if is_remote(name) {
                let message = format!(
                    "remote resource {} not fetched: pipe `kustomize build DIR | capi-machinepool check -` to check it",
                    capi_diagnostics::excerpt::excerpt(name)
                );
                self.note(&field, message, true);
                continue;
            }
            resources.extend(self.resource(name, &field, depth)?);
        }
        Ok(resources)
    }

    /// The documents of one local resource: a file, or a directory with a kustomization.
    fn resource(
        &mut self,
        name: &str,
        field: &str,
        depth: usize,
    ) -> Result<Vec<Document>, ManifestError> {
        let path = self.dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            // `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0): "accumulating resources from 'mp.yaml': ... no such
            // file or directory".
            return Err(self.error(format!(
                "{field}: {} does not exist (kustomize fails on a missing resource)",
                display(&path)
            )));
        }
        let real = self.tree.resolve(&path)?;
        if real.is_dir() {
            // kubectl kustomize v5.5.0: "expected kind != 'Component'"
            // (tests/fixtures/kustomize-trees/refused-component-as-resource).
            if let Some(file) = kustomization_file(&path)
                && let Ok(text) = crate::tree::read_file(&file, self.tree.limits())
                && text.lines().any(|l| l.trim() == "kind: Component")
            {
                return Err(self.error(format!(
                    "{field}: a Component used as a resource (kustomize refuses it)"
                )));
            }
            let inner = build_with(self.tree, self.files, &path, depth + 1)?;
            self.notes.extend(inner.notes);
            return Ok(inner.documents);
        }
        let Some(text) = self.tree.read(&path)? else {
            // The same file twice: kubectl kustomize v5.5.0 refuses its resources' ids as
            // already registered (tests/fixtures/kustomize-trees/refused-resource-twice).
            return Err(self.error(format!(
                "{field}: {} is read a second time; its resources are already registered (kustomize refuses it)",
                display(&path)
            )));
        };
        let shown = display(&path);
        let mut docs = Vec::new();
        for doc in documents(&text, &shown, self.tree.limits())? {
            self.tree.budget().charge_value(&doc.value, &shown)?;
            // kustomize reads a List resource item by item, as kubectl does.
            docs.extend(crate::list::expand(doc)?);
        }
        Ok(docs)
    }

    /// The documents of a patch file, read and parsed once per build; each use counts its
    /// nodes against the load's budget.
    fn patch_file(&mut self, name: &str, field: &str) -> Result<Rc<PatchSet>, ManifestError> {
        let path = self.dir.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            // `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0): "failed to get the patch file from path(nope.yaml)".
            return Err(self.error(format!(
                "{field}: patch {} does not exist (kustomize fails on a missing patch file)",
                display(&path)
            )));
        }
        let real = self.tree.resolve(&path)?;
        let set = match self.files.0.get(&real) {
            Some(set) => Rc::clone(set),
            None => {
                let text = crate::tree::read_file(&path, self.tree.limits())?;
                let set = Rc::new(patch_set(&text, &display(&path), self.tree.limits())?);
                self.files.0.insert(real, Rc::clone(&set));
                set
            }
        };
        self.tree
            .budget()
            .charge(set.nodes, &format!("{} ({field})", self.shown))?;
        Ok(set)
    }

    /// The documents of an inline patch (the string at `keys` of the kustomization).
    fn inline_patch(
        &mut self,
        text: &str,
        field: &str,
        keys: &[&str],
    ) -> Result<Rc<PatchSet>, ManifestError> {
        let name = format!("{} ({field})", self.shown);
        let mut set = patch_set(text, &name, self.tree.limits())?;
        // What an inline patch sets is written in the kustomization file, in its entry.
        let key = field.split(['[', '.']).next().unwrap_or_default();
        let offset = self.places.inline_offset(keys);
        for patch in &mut set.patches {
            let line =
                offset.map_or_else(|| self.line_of(key), |(lines, _)| lines + patch.source.line);
            patch.source = Source::new(self.shown, 0, line);
            patch.positions = match (offset, patch.positions.take()) {
                (Some((lines, columns)), Some(p)) => {
                    Some(Arc::new(Arc::unwrap_or_clone(p).moved(lines, columns)))
                }
                _ => None,
            };
        }
        self.tree.budget().charge(set.nodes, &name)?;
        Ok(Rc::new(set))
    }

    /// `patchesStrategicMerge`: file names or inline patches.
    fn apply_legacy_strategic_merge(
        &mut self,
        resources: &mut Vec<Document>,
        fields: &Map<String, Value>,
    ) -> Result<(), ManifestError> {
        for (index, entry) in list(fields, "patchesStrategicMerge").enumerate() {
            let field = format!("patchesStrategicMerge[{index}]");
            let set = match entry.as_str() {
                Some(text) if !text.contains('\n') && !text.contains(": ") => {
                    self.patch_file(text, &field)?
                }
                Some(text) => {
                    let index = index.to_string();
                    self.inline_patch(text, &field, &["patchesStrategicMerge", &index])?
                }
                None => return Err(self.error(format!("{field} is not a string"))),
            };
            for patch in &set.patches {
                self.strategic_merge(resources, patch, None, &field, false)?;
            }
        }
        Ok(())
    }

    /// `patches` or `patchesJson6902`: each entry `{path | patch, target}`.
    fn apply_patch_list(
        &mut self,
        resources: &mut Vec<Document>,
        fields: &Map<String, Value>,
        key: &str,
    ) -> Result<(), ManifestError> {
        for (index, entry) in list(fields, key).enumerate() {
            let field = format!("{key}[{index}]");
            let inline_at = [key, &index.to_string(), "patch"].map(str::to_owned);
            self.patch_entry(
                resources,
                entry,
                (&field, &inline_at),
                key == "patchesJson6902",
            )?;
        }
        Ok(())
    }

    /// One entry of `patches` or `patchesJson6902`: `{path | patch, target}`.
    fn patch_entry(
        &mut self,
        resources: &mut Vec<Document>,
        entry: &Value,
        (field, inline_at): (&str, &[String]),
        json_only: bool,
    ) -> Result<(), ManifestError> {
        let allow_rename = entry["options"]["allowNameChange"].as_bool() == Some(true);
        let target = match entry.get("target") {
            Some(t) if !t.is_null() => Some(
                Target::from_value(t).map_err(|e| self.error(format!("{field}.target: {e}")))?,
            ),
            _ => None,
        };
        let set = if let Some(path) = entry.get("path").and_then(Value::as_str) {
            self.patch_file(path, field)?
        } else if let Some(text) = entry.get("patch").and_then(Value::as_str) {
            let keys: Vec<&str> = inline_at.iter().map(String::as_str).collect();
            self.inline_patch(text, &format!("{field}.patch"), &keys)?
        } else {
            return Err(self.error(format!("{field}: neither path nor patch")));
        };
        for patch in &set.patches {
            if patch.value.is_array() {
                let Some(target) = &target else {
                    return Err(self.error(format!("{field}: a JSON patch needs a target")));
                };
                self.json_patch(resources, patch, target, field)?;
            } else if json_only {
                // kubectl kustomize v5.5.0: "trouble configuring builtin
                // PatchJson6902Transformer" (tests/fixtures/kustomize-trees/refused-merge-patch-in-json6902).
                return Err(self.error(format!(
                    "{field}: not a JSON patch (kustomize refuses a merge patch under patchesJson6902)"
                )));
            } else {
                self.strategic_merge(resources, patch, target.as_ref(), field, allow_rename)?;
            }
        }
        Ok(())
    }

    /// Applies a JSON patch to every resource its target selects.
    fn json_patch(
        &mut self,
        resources: &mut [Document],
        patch: &Patch,
        target: &Target,
        field: &str,
    ) -> Result<(), ManifestError> {
        let mut matched = 0;
        for doc in resources.iter_mut().filter(|d| target.matches(&d.value)) {
            matched += 1;
            let added = patch::json_patch(&mut doc.value, &patch.value, self.tree.limits())
                .map_err(|e| self.error(format!("{field}: {e} on {}", doc.source)))?;
            let paths = json_patch_paths(&patch.value, patch.positions.as_deref())
                .into_iter()
                .map(|(path, at)| (named(&doc.value, path), at))
                .collect();
            record(doc, paths, &patch.source, field);
            self.tree
                .budget()
                .charge(added, &format!("{} ({field})", self.shown))?;
        }
        if matched == 0 {
            // kubectl kustomize v5.5.0 renders the tree unchanged, without a message
            // (tests/fixtures/kustomize-trees/json-target-no-match): the same, with an INFO.
            self.note(
                field,
                format!(
                    "the JSON patch's target matches no resource ({target}; kustomize skips it too)"
                ),
                false,
            );
        }
        Ok(())
    }

    /// Applies a strategic merge patch to its target (or, without one, to the resource with
    /// the patch's own group, kind and name).
    fn strategic_merge(
        &mut self,
        resources: &mut Vec<Document>,
        whole: &Patch,
        target: Option<&Target>,
        field: &str,
        allow_rename: bool,
    ) -> Result<(), ManifestError> {
        let patch = &whole.value;
        if patch["metadata"]["name"].as_str().is_none_or(str::is_empty) {
            // `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0) refuses such a patch, with or without a target:
            // "unable to parse SM or JSON patch".
            return Err(self.error(format!(
                "{field}: a strategic merge patch needs metadata.name (kustomize: unable to parse SM or JSON patch)"
            )));
        }
        let explicit = target.is_some();
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
            let name = doc.value["metadata"]["name"].clone();
            patch::patch_resource(&mut doc.value, patch);
            let paths = merge_patch_paths(patch, whole.positions.as_deref());
            record(doc, paths, &whole.source, field);
            // kubectl kustomize v5.5.0 keeps the name unless `options.allowNameChange: true`
            // (tests/fixtures/kustomize-trees/rename-without-allow, rename-with-allow).
            if !allow_rename
                && let Some(meta) = doc.value.get_mut("metadata").and_then(Value::as_object_mut)
            {
                meta.insert("name".into(), name.clone());
            }
            true
        });
        if matched == 0 && explicit && before > 0 {
            // kubectl kustomize v5.5.0 renders the tree unchanged, without a message, when an
            // explicit target matches nothing (tests/fixtures/kustomize-trees/smp-target-no-match).
            self.note(
                field,
                format!(
                    "the patch's target matches no resource ({target}; kustomize skips it too)"
                ),
                false,
            );
        } else if matched == 0 && before > 0 {
            // kubectl kustomize v5.5.0: "no resource matches strategic merge patch"
            // (tests/fixtures/kustomize-trees/refused-smp-no-match).
            return Err(self.error(format!(
                "{field}: no resource matches the strategic merge patch ({target}; kustomize refuses it)"
            )));
        }
        Ok(())
    }

    /// The build: the resources, with the caveats of this kustomization.
    fn finish(self, mut resources: Vec<Document>) -> Build {
        for doc in &mut resources {
            doc.caveats.extend(self.caveats.iter().cloned());
        }
        Build {
            documents: resources,
            notes: self.notes,
        }
    }
}

/// The documents of a patch and their nodes.
fn patch_set(text: &str, name: &str, limits: &crate::Limits) -> Result<PatchSet, ManifestError> {
    let patches: Vec<Patch> = documents(text, name, limits)?
        .into_iter()
        .map(|d| Patch {
            value: d.value,
            source: d.source,
            positions: d.positions,
        })
        .collect();
    let nodes = patches.iter().map(|p| nodes(&p.value)).sum();
    Ok(PatchSet { patches, nodes })
}

/// Fields that make kustomize run code or reach further than the tree: refused by
/// [`preflight`] (plugins, KRM functions, Helm, and `--enable-*` features).
const REFUSED_FIELDS: &[(&str, &str)] = &[
    ("generators", "generator plugins run code"),
    ("transformers", "transformer plugins run code"),
    ("validators", "validator plugins run code"),
    (
        "helmCharts",
        "Helm charts need --enable-helm and fetch charts",
    ),
    ("helmGlobals", "Helm charts need --enable-helm"),
    (
        "helmChartInflationGenerator",
        "Helm charts need --enable-helm and fetch charts",
    ),
    (
        "buildMetadata",
        "build metadata is an optional kustomize feature",
    ),
];

/// Checks a kustomization tree before the real kustomize renders it: every kustomization
/// reached from `dir` (resources, bases and components that are directories) is read with the
/// safe loader, and a remote resource, base or component (`github.com/...`, `https://...`,
/// `git::...`), a remote path in any other field kustomize loads files from (patches,
/// generator files and env files, replacements, `crds`, `configurations`, `openapi`), a
/// plugin field (`generators`, `transformers`, `validators`), Helm
/// (`helmCharts`, `helmGlobals`), `buildMetadata`, or a resource carrying a KRM function
/// annotation (`config.kubernetes.io/function`) is refused, naming the file and field.
///
/// # Errors
/// [`ManifestError::Refused`] for what is refused; the loader's errors for a tree that cannot
/// be read safely.
pub fn preflight(tree: &mut Tree, dir: &Path, depth: usize) -> Result<(), ManifestError> {
    check_nesting(tree, dir, depth)?;
    let Some((shown, fields, _)) = read_kustomization(tree, dir)? else {
        return Ok(());
    };
    let refuse = |field: String, why: String| ManifestError::Refused {
        path: shown.clone(),
        field,
        why,
    };
    for (field, why) in REFUSED_FIELDS {
        if fields.get(*field).is_some_and(|v| !fields::is_empty(v)) {
            return Err(refuse((*field).to_owned(), (*why).to_owned()));
        }
    }
    for key in ["resources", "bases", "components"] {
        for (index, entry) in list(&fields, key).enumerate() {
            let field = format!("{key}[{index}]");
            let Some(name) = entry.as_str() else {
                continue;
            };
            if is_remote(name) || name.starts_with("https:") || name.starts_with("http:") {
                return Err(refuse(
                    field,
                    format!(
                        "remote {} would be fetched",
                        capi_diagnostics::excerpt::excerpt(name)
                    ),
                ));
            }
            let path = dir.join(name);
            if std::fs::symlink_metadata(&path).is_err() {
                // kustomize reports the missing file itself.
                continue;
            }
            let real = tree.resolve(&path)?;
            if real.is_dir() {
                preflight(tree, &path, depth + 1)?;
            } else if let Some(text) = tree.read(&path)? {
                let shown_file = display(&path);
                for doc in documents(&text, &shown_file, tree.limits())? {
                    let annotations = &doc.value["metadata"]["annotations"];
                    for annotation in ["config.kubernetes.io/function", "config.k8s.io/function"] {
                        if annotations.get(annotation).is_some() {
                            return Err(ManifestError::Refused {
                                path: shown_file.clone(),
                                field: format!("metadata.annotations.{annotation}"),
                                why: "KRM functions run code".into(),
                            });
                        }
                    }
                }
            }
        }
    }
    for (field, path) in loaded_paths(&fields) {
        if is_remote(&path) {
            return Err(refuse(
                field,
                format!(
                    "remote {} would be fetched",
                    capi_diagnostics::excerpt::excerpt(&path)
                ),
            ));
        }
    }
    Ok(())
}

/// Every file path a kustomization makes kustomize load (its loader fetches any `http(s)://`
/// path, whatever the field), with the field that names it: `patchesStrategicMerge`,
/// `patches[].path`, `patchesJson6902[].path`, `replacements[].path`, the `files`, `envs` and
/// `env` of `configMapGenerator` and `secretGenerator` (a `key=path` file by its path),
/// `crds`, `configurations` and `openapi.path` (kustomize v5 `types.Kustomization`; resources,
/// bases and components are walked by [`preflight`] itself; plugins and Helm are refused).
fn loaded_paths(fields: &Map<String, Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut text = |field: String, value: &Value| {
        // An inline patch (YAML with newlines) is not a path.
        if let Some(path) = value.as_str().filter(|p| !p.contains('\n')) {
            out.push((field, path.to_owned()));
        }
    };
    for key in ["patchesStrategicMerge", "crds", "configurations"] {
        for (i, entry) in list(fields, key).enumerate() {
            text(format!("{key}[{i}]"), entry);
        }
    }
    for key in ["patches", "patchesJson6902", "replacements"] {
        for (i, entry) in list(fields, key).enumerate() {
            text(format!("{key}[{i}].path"), &entry["path"]);
        }
    }
    for key in ["configMapGenerator", "secretGenerator"] {
        for (i, generator) in list(fields, key).enumerate() {
            for sub in ["files", "envs"] {
                for (j, entry) in generator[sub].as_array().into_iter().flatten().enumerate() {
                    let value = entry
                        .as_str()
                        .map(|f| Value::from(f.split_once('=').map_or(f, |(_, path)| path)));
                    if let Some(value) = value {
                        text(format!("{key}[{i}].{sub}[{j}]"), &value);
                    }
                }
            }
            text(format!("{key}[{i}].env"), &generator["env"]);
        }
    }
    text(
        "openapi.path".to_owned(),
        &fields
            .get("openapi")
            .map_or(Value::Null, |o| o["path"].clone()),
    );
    out
}

/// Refuses a build whose notes name a field that could change the resources and was not
/// emulated (for rendering without kustomize: never a pass on what was not seen).
///
/// # Errors
/// [`ManifestError::NotEmulated`] naming the first such field.
pub fn require_emulated(notes: &[Note]) -> Result<(), ManifestError> {
    match notes.iter().find(|n| n.may_change_resources) {
        Some(note) => Err(ManifestError::NotEmulated {
            path: note.file.clone(),
            field: note.field.clone(),
        }),
        None => Ok(()),
    }
}
