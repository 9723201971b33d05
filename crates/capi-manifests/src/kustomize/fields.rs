//! The fields of a kustomization: which are known (kustomize refuses any other, `json: unknown
//! field`), which are emulated, and what the others could change.
//!
//! kustomize decodes a kustomization with Go's JSON decoder in strict mode: a field name
//! matches case-insensitively (`Resources:` is `resources:`; Go's `bytes.EqualFold` also folds
//! the Kelvin sign to `k` and the long s to `s`), and a field that matches nothing is an error,
//! at the top level and inside the entries of `patches`, `patchesJson6902`, `labels` and
//! their `target`s. Checked with `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0): `bogusField: true` and a
//! `target` with `foo: 1` fail, `Resources:` and `commonlabels:` are applied.

use serde_json::{Map, Value};

/// What a field that is not emulated could do to CustomResourceDefinitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Effect {
    /// Nothing: the reason.
    Harmless(&'static str),
    /// Could add or change resources, their labels or their schemas.
    Unseen,
}

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
    (
        "imageTags",
        "image tags of workloads (legacy form of images)",
    ),
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
    (
        "validators",
        "validators accept or reject the output; they do not change it",
    ),
    (
        "helmGlobals",
        "settings of helmCharts, which are noted on their own",
    ),
];

/// Fields that could add or change resources and are not emulated.
const UNSEEN: &[&str] = &[
    "components",
    "transformers",
    "generators",
    "replacements",
    "helmCharts",
    "helmChartInflationGenerator",
];

/// The fields of an entry of `patches` or `patchesJson6902`.
const PATCH_FIELDS: &[&str] = &["path", "patch", "target", "options"];
/// The fields of a patch `target`.
const TARGET_FIELDS: &[&str] = &[
    "group",
    "version",
    "kind",
    "name",
    "namespace",
    "labelSelector",
    "annotationSelector",
];
/// The fields of an entry of `labels`.
const LABEL_FIELDS: &[&str] = &["pairs", "includeSelectors", "includeTemplates", "fields"];

/// Why a kustomization's fields cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// A field kustomize does not know.
    #[error("{at}unknown field {field:?} (kustomize refuses it: json: unknown field)")]
    Unknown {
        /// Where (`patches[0].target.` or empty for the top level).
        at: String,
        /// The field, as written (short excerpt).
        field: String,
    },
    /// Two fields that are one for kustomize (`resources` and `Resources`).
    #[error("{at}{field} is given twice (names are compared case-insensitively)")]
    Twice {
        /// Where.
        at: String,
        /// The canonical field.
        field: &'static str,
    },
}

/// What a field that is not emulated could do; `None` for emulated fields.
pub(super) fn not_emulated(field: &str) -> Option<Effect> {
    if EMULATED.contains(&field) {
        return None;
    }
    HARMLESS
        .iter()
        .find(|(k, _)| *k == field)
        .map(|(_, why)| Effect::Harmless(why))
        .or_else(|| UNSEEN.contains(&field).then_some(Effect::Unseen))
}

/// True when a field's value changes nothing: `null`, `[]`, `{}` or `""`.
pub(super) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::String(s) => s.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Folds a field name as Go's `bytes.EqualFold` compares it (ASCII letters, and the two
/// non-ASCII letters whose fold orbit reaches an ASCII letter: U+212A KELVIN SIGN and U+017F
/// LATIN SMALL LETTER LONG S).
fn fold(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{212a}' => 'k',
            '\u{17f}' => 's',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The known field `name` matches: exactly, else case-insensitively.
fn known(name: &str, fields: &[&'static str]) -> Option<&'static str> {
    fields.iter().copied().find(|f| *f == name).or_else(|| {
        let folded = fold(name);
        fields.iter().copied().find(|f| fold(f) == folded)
    })
}

/// Every field name a kustomization may hold at the top level.
fn top_level() -> Vec<&'static str> {
    EMULATED
        .iter()
        .copied()
        .chain(HARMLESS.iter().map(|(k, _)| *k))
        .chain(UNSEEN.iter().copied())
        .collect()
}

/// Renames every field of `map` to its canonical name; a field that matches none is an error.
fn rename(
    map: Map<String, Value>,
    fields: &[&'static str],
    at: &str,
) -> Result<Map<String, Value>, FieldError> {
    let mut out = Map::new();
    for (key, value) in map {
        let Some(field) = known(&key, fields) else {
            return Err(FieldError::Unknown {
                at: at.to_owned(),
                field: capi_diagnostics::excerpt::excerpt(&key),
            });
        };
        if out.insert(field.to_owned(), value).is_some() {
            return Err(FieldError::Twice {
                at: at.to_owned(),
                field,
            });
        }
    }
    Ok(out)
}

/// Canonical names in each mapping entry of the list `key`, and in their `target`s.
fn rename_entries(
    fields: &mut Map<String, Value>,
    key: &str,
    entry_fields: &[&'static str],
) -> Result<(), FieldError> {
    let Some(Value::Array(entries)) = fields.get_mut(key) else {
        return Ok(());
    };
    for (index, entry) in entries.iter_mut().enumerate() {
        let Value::Object(map) = std::mem::take(entry) else {
            continue;
        };
        let at = format!("{key}[{index}].");
        let mut map = rename(map, entry_fields, &at)?;
        if let Some(Value::Object(target)) = map.remove("target") {
            let target = rename(target, TARGET_FIELDS, &format!("{at}target."))?;
            map.insert("target".into(), Value::Object(target));
        }
        *entry = Value::Object(map);
    }
    Ok(())
}

/// The fields of a kustomization under their canonical names.
///
/// # Errors
/// A field kustomize does not know, or one given twice under two spellings.
pub(super) fn canonical(fields: Map<String, Value>) -> Result<Map<String, Value>, FieldError> {
    let mut fields = rename(fields, &top_level(), "")?;
    rename_entries(&mut fields, "patches", PATCH_FIELDS)?;
    rename_entries(&mut fields, "patchesJson6902", PATCH_FIELDS)?;
    rename_entries(&mut fields, "labels", LABEL_FIELDS)?;
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(v: Value) -> Result<Value, FieldError> {
        let Value::Object(map) = v else { panic!() };
        canonical(map).map(Value::Object)
    }

    #[test]
    fn names_match_case_insensitively_as_kustomize_reads_them() {
        // `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0) applies `Resources:` and `commonlabels:`.
        assert_eq!(
            canon(json!({"Resources": ["a.yaml"], "commonlabels": {"a": "b"}})).unwrap(),
            json!({"resources": ["a.yaml"], "commonLabels": {"a": "b"}})
        );
        assert_eq!(fold("\u{212a}ind"), "kind");
    }

    #[test]
    fn unknown_fields_are_refused_at_every_level() {
        // `kubectl kustomize` (kubectl v1.32, kustomize v5.5.0): `invalid Kustomization: json: unknown field "bogusField"`
        // and, in a patch target, `unknown field "foo"`.
        let err = canon(json!({"bogusField": true})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown field \"bogusField\" (kustomize refuses it: json: unknown field)"
        );
        let err = canon(json!({"patches": [{"patch": "x", "target": {"foo": 1}}]})).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("patches[0].target.unknown field"),
            "{err}"
        );
        assert!(matches!(
            canon(json!({"resources": [], "RESOURCES": []})),
            Err(FieldError::Twice {
                field: "resources",
                ..
            })
        ));
    }

    #[test]
    fn empty_fields_change_nothing() {
        assert!(is_empty(&json!([])) && is_empty(&json!(null)) && is_empty(&json!({})));
        assert!(!is_empty(&json!(["c"])));
        assert_eq!(not_emulated("components"), Some(Effect::Unseen));
        assert!(matches!(
            not_emulated("validators"),
            Some(Effect::Harmless(_))
        ));
        assert_eq!(not_emulated("patches"), None);
    }
}
