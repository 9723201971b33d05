//! Validation of condition fields, as the CRD schema of every v1beta2 conditions list does.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;

use crate::types::{FALSE, TRUE, UNKNOWN};

use capi_machinepool_api::admission::metadata::is_condition_reason as is_reason;

/// Every problem of the condition at `path` (e.g. `status.conditions[0]`); empty when valid.
///
/// ```
/// use capi_conditions::{new_condition, validate::validate_condition};
/// assert!(validate_condition(&new_condition("Ready", "True", "Ready", ""), "c").is_empty());
/// let errs = validate_condition(&new_condition("", "Yes", "not camel", ""), "c");
/// assert_eq!(errs.len(), 3);
/// ```
#[must_use]
pub fn validate_condition(c: &Condition, path: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if c.type_.is_empty() {
        errs.push(format!("{path}.type: must be set"));
    } else {
        if c.type_.len() > 316 {
            errs.push(format!("{path}.type: must be at most 316 characters"));
        }
        for e in capi_machinepool_api::admission::metadata::qualified_name_errors(&c.type_) {
            errs.push(format!("{path}.type: {e}"));
        }
    }
    if ![TRUE, FALSE, UNKNOWN].contains(&c.status.as_str()) {
        errs.push(format!(
            "{path}.status: {:?} is not one of True, False, Unknown",
            c.status
        ));
    }
    if c.reason.len() > 1024 {
        errs.push(format!("{path}.reason: must be at most 1024 characters"));
    }
    if !is_reason(&c.reason) {
        errs.push(format!(
            "{path}.reason: {:?} must match ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$",
            c.reason
        ));
    }
    if c.message.len() > 32768 {
        errs.push(format!("{path}.message: must be at most 32768 characters"));
    }
    if c.observed_generation.is_some_and(|g| g < 0) {
        errs.push(format!("{path}.observedGeneration: must be >= 0"));
    }
    errs
}

/// Validates a list: every condition, and that no type appears twice (list-map key).
#[must_use]
pub fn validate_conditions(list: &[Condition], path: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if list.len() > 32 {
        errs.push(format!("{path}: must have at most 32 items"));
    }
    for (i, c) in list.iter().enumerate() {
        errs.extend(validate_condition(c, &format!("{path}[{i}]")));
        if list[..i].iter().any(|o| o.type_ == c.type_) {
            errs.push(format!(
                "{path}[{i}].type: duplicate condition type {:?}",
                c.type_
            ));
        }
    }
    errs
}
