//! Advice in the provider's language: the fix of a schema finding written as the author
//! writes the type, Go with controller-gen markers or Rust with serde, schemars and
//! kube-derive attributes. A CRD shows which: kube-derive's root schema has a `title` (the
//! type's name, from schemars) and declares no `apiVersion` or `metadata` (the API server adds
//! them), where controller-gen's never has a title and always declares both.

use serde_json::Value;

/// The language a CRD's types are written in, as its schema shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    /// Go types with controller-gen markers.
    Go,
    /// Rust types with `#[derive(CustomResource, JsonSchema)]` (kube-derive, schemars).
    Rust,
}

impl Language {
    /// The language of the types behind `schema` (a version's `openAPIV3Schema`).
    pub(crate) fn of(schema: &Value) -> Self {
        let declares = |key: &str| schema["properties"].get(key).is_some();
        if schema["title"].is_string() && !declares("apiVersion") && !declares("metadata") {
            Self::Rust
        } else {
            Self::Go
        }
    }

    /// `go` or `rust`, as the language is.
    pub(crate) fn pick(self, go: impl Into<String>, rust: impl Into<String>) -> String {
        match self {
            Self::Go => go.into(),
            Self::Rust => rust.into(),
        }
    }
}

/// The Rust field serde writes as the JSON key `name`, with the rename it needs when serde's
/// `rename_all = "camelCase"` would write another key (`providerIDList` is the field
/// `provider_id_list`, written `providerIdList` without the rename).
///
/// `rust_field("replicas", "i32")` is ``pub replicas: i32``; `rust_field("providerIDList",
/// "Vec<String>")` is ``#[serde(rename = "providerIDList")] pub provider_id_list: Vec<String>``.
pub(crate) fn rust_field(name: &str, ty: &str) -> String {
    let snake = snake_of(name);
    if camel_of(&snake) == name {
        format!("pub {snake}: {ty}")
    } else {
        format!("#[serde(rename = \"{name}\")] pub {snake}: {ty}")
    }
}

/// The Go field controller-gen writes as the JSON key `name`: the exported name (first letter
/// upper case, as Kubernetes types spell initialisms: `providerIDList` -> `ProviderIDList`),
/// the type and the json tag.
///
/// `go_field("replicas", "int32", false)` is ``Replicas int32 `json:"replicas"` ``;
/// `go_field("providerIDList", "[]string", true)` is
/// ``ProviderIDList []string `json:"providerIDList,omitempty"` ``.
pub(crate) fn go_field(name: &str, ty: &str, omitempty: bool) -> String {
    let mut chars = name.chars();
    let exported: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let tag = if omitempty {
        format!("{name},omitempty")
    } else {
        name.to_owned()
    };
    format!("{exported} {ty} `json:\"{tag}\"`")
}

/// The last key of a contract field's path: the JSON key the advice names.
pub(crate) fn key(path: &[&'static str]) -> &'static str {
    path.last().copied().unwrap_or_default()
}

/// The snake-case Rust name of the JSON key `name` (`providerIDList` -> `provider_id_list`).
pub(crate) fn snake_of(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            // A word starts at an upper-case letter after a lower-case one, or at the last
            // letter of an acronym followed by lower case (`IDList`: `id`, `list`).
            let after_lower = i > 0 && chars[i - 1].is_lowercase();
            let ends_acronym = i > 0
                && chars[i - 1].is_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if after_lower || ends_acronym {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

/// What serde's `rename_all = "camelCase"` writes for the Rust field `snake`.
pub(crate) fn camel_of(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_schema_shows_the_language() {
        // kube-derive (schemars): a title, no apiVersion or metadata.
        let rust = json!({"title": "FooMachinePool", "type": "object", "required": ["spec"],
            "properties": {"spec": {}, "status": {}}});
        assert_eq!(Language::of(&rust), Language::Rust);
        // controller-gen: no title, apiVersion, kind and metadata declared.
        let go = json!({"type": "object", "properties": {"apiVersion": {}, "kind": {},
            "metadata": {}, "spec": {}}});
        assert_eq!(Language::of(&go), Language::Go);
        assert_eq!(Language::of(&json!({})), Language::Go);
    }

    #[test]
    fn go_fields_are_exported_with_their_tag() {
        assert_eq!(
            go_field("replicas", "int32", false),
            "Replicas int32 `json:\"replicas\"`"
        );
        assert_eq!(
            go_field("providerIDList", "[]string", true),
            "ProviderIDList []string `json:\"providerIDList,omitempty\"`"
        );
        assert_eq!(
            key(&["status", "initialization", "provisioned"]),
            "provisioned"
        );
    }

    #[test]
    fn rust_fields_carry_the_rename_serde_needs() {
        assert_eq!(snake_of("providerIDList"), "provider_id_list");
        assert_eq!(
            snake_of("infrastructureMachineKind"),
            "infrastructure_machine_kind"
        );
        assert_eq!(snake_of("providerID"), "provider_id");
        assert_eq!(snake_of("replicas"), "replicas");
        assert_eq!(rust_field("replicas", "i32"), "pub replicas: i32");
        assert_eq!(
            rust_field("providerIDList", "Vec<String>"),
            "#[serde(rename = \"providerIDList\")] pub provider_id_list: Vec<String>"
        );
        assert_eq!(
            rust_field("infrastructureMachineKind", "Option<String>"),
            "pub infrastructure_machine_kind: Option<String>"
        );
    }
}
