//! A contract field that is missing because it is spelled differently: `providerIdList`
//! (serde's `rename_all = "camelCase"` on `provider_id_list`), `provider_id_list` (no rename
//! at all), `ProviderIDList`; named as the likely cause, with the fix in Go and in Rust.

use serde_json::Value;

use crate::schema_view::field;

/// A field name as compared for near misses: lower case, without `_` and `-`.
fn folded(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The sibling of the missing contract field at `path` whose name is the same but for case,
/// `_` and `-`, when there is one.
pub(crate) fn sibling<'s>(schema: &'s Value, path: &[&str]) -> Option<&'s str> {
    let (name, parent) = path.split_last()?;
    let wanted = folded(name);
    field(schema, parent)?
        .get("properties")?
        .as_object()?
        .keys()
        .find(|k| k.as_str() != *name && folded(k) == wanted)
        .map(String::as_str)
}

/// The note a finding on the missing field `name` adds when `found` is there instead.
pub(crate) fn note(name: &str, found: &str) -> String {
    format!(
        "; `{found}` is there: a near miss of `{name}` (the contract reads the exact name). Go: `json:\"{name}\"`; Rust: `#[serde(rename = \"{name}\")]` on the field (`rename_all = \"camelCase\"` writes `{camel}`)",
        camel = crate::advice::camel_of(&crate::advice::snake_of(name)),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What serde's `rename_all = "camelCase"` writes for the Rust field of `name`.
    fn serde_camel(name: &str) -> String {
        crate::advice::camel_of(&crate::advice::snake_of(name))
    }

    #[test]
    fn the_camel_case_slip_is_named_with_both_fixes() {
        let schema =
            json!({"properties": {"spec": {"properties": {"providerIdList": {"type": "array"}}}}});
        let found = sibling(&schema, &["spec", "providerIDList"]);
        assert_eq!(found, Some("providerIdList"));
        let text = note("providerIDList", "providerIdList");
        assert!(
            text.contains("#[serde(rename = \"providerIDList\")]"),
            "{text}"
        );
        assert!(text.contains("json:\"providerIDList\""), "{text}");
        assert!(text.contains("writes `providerIdList`"), "{text}");
        let snake = json!({"properties": {"spec": {"properties": {"provider_id_list": {}}}}});
        assert_eq!(
            sibling(&snake, &["spec", "providerIDList"]),
            Some("provider_id_list")
        );
        assert_eq!(sibling(&snake, &["spec", "replicas"]), None);
        assert_eq!(
            serde_camel("infrastructureMachineKind"),
            "infrastructureMachineKind"
        );
        assert_eq!(serde_camel("providerID"), "providerId");
    }
}
