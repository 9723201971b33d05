//! Template labels and annotations, validated with apimachinery's rules.

use capi_machinepool_api::apimachinery::{
    TOTAL_ANNOTATION_SIZE_LIMIT, label_value_errors, qualified_name_errors,
};
use capi_machinepool_api::v1beta2::ObjectMeta;

use crate::FieldError;

/// Validates template labels and annotations; `path` is e.g. `spec.template.metadata`.
#[must_use]
pub fn validate_object_meta(meta: &ObjectMeta, path: &str) -> Vec<FieldError> {
    let labels_path = format!("{path}.labels");
    let annotations_path = format!("{path}.annotations");
    let mut errs = Vec::new();
    for (key, value) in meta.labels() {
        errs.extend(
            qualified_name_errors(key)
                .iter()
                .map(|d| FieldError::invalid(&labels_path, key, d)),
        );
        errs.extend(
            label_value_errors(value)
                .iter()
                .map(|d| FieldError::invalid(&labels_path, value, d)),
        );
    }
    let mut total = 0usize;
    for (key, value) in meta.annotations() {
        let lower = key.to_lowercase();
        errs.extend(
            qualified_name_errors(&lower)
                .iter()
                .map(|d| FieldError::invalid(&annotations_path, key, d)),
        );
        total = total.saturating_add(key.len()).saturating_add(value.len());
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errs.push(FieldError::too_long(
            &annotations_path,
            &format!("may not be more than {TOTAL_ANNOTATION_SIZE_LIMIT} bytes"),
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotation_size_limit() {
        let meta = ObjectMeta {
            annotations: Some([("big".into(), "x".repeat(TOTAL_ANNOTATION_SIZE_LIMIT))].into()),
            ..ObjectMeta::default()
        };
        let errs = validate_object_meta(&meta, "spec.template.metadata");
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "spec.template.metadata.annotations");
    }

    /// The full texts the API server returns for a MachinePool with a bad template label
    /// (Cluster API's `ObjectMeta.Validate` calls apimachinery's `metav1validation.ValidateLabels`
    /// and `apivalidation.ValidateAnnotations`, which report `field.Invalid(path, key or value,
    /// msg)` for each message of `IsQualifiedName` / `IsValidLabelValue`).
    #[test]
    fn label_errors_as_the_api_server_prints_them() {
        let meta = ObjectMeta {
            labels: Some([("-team".into(), "a b".into())].into()),
            annotations: Some([("example.com/".into(), String::new())].into()),
        };
        let got: Vec<String> = validate_object_meta(&meta, "spec.template.metadata")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            got,
            [
                r#"spec.template.metadata.labels: Invalid value: "-team": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
                r#"spec.template.metadata.labels: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#,
                r#"spec.template.metadata.annotations: Invalid value: "example.com/": name part must be non-empty"#,
                r#"spec.template.metadata.annotations: Invalid value: "example.com/": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
            ]
        );
    }
}
