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
}
