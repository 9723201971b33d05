//! What the API server does with a MachinePool before storing it: structural schema
//! validation of the version sent (with `capi-apiextensions`, the API server's model), conversion to the storage version v1beta2, then upstream's
//! defaulting and validating webhook.
//!
//! * [`default_machine_pool`] and [`validate_machine_pool`]: upstream's webhook on v1beta2
//!   objects (v1beta1 requests are converted first), on create and update.
//! * [`Admission`]: the whole pipeline for one document, with the compiled schemas of both
//!   versions cached, and the fields the typed API would drop listed as warnings.
//!
//! ```
//! use capi_machinepool_admission as admission;
//! use capi_machinepool_api::v1beta2;
//! let mut mp: v1beta2::MachinePool = serde_json::from_value(serde_json::json!({
//!   "metadata": {"name": "mp"},
//!   "spec": {"clusterName": "c1", "template": {"spec": {"clusterName": "c1", "version": "1.33.0",
//!     "bootstrap": {"dataSecretName": "s"},
//!     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "d"}}}}
//! })).unwrap();
//! admission::default_machine_pool(&mut mp, None).unwrap();
//! assert_eq!(mp.spec.replicas, Some(1));
//! assert_eq!(mp.spec.template.spec.version, "v1.33.0");
//! assert!(admission::validate_machine_pool(&mp, None, &Default::default()).is_empty());
//! ```

#![deny(missing_docs)]

mod pipeline;
mod unknown_fields;

/// The API server's model (field errors, Go text, `ObjectMeta` and OpenAPI schema
/// validation), from `capi-apiextensions`.
pub use capi_apiextensions::{
    BadValue, FieldError, FieldErrorType, go_json, go_quote, openapi, validate_object_meta,
    validate_root_meta,
};
pub use pipeline::{Admission, AdmissionError, Admitted, Finding, Step};
pub use unknown_fields::{decode_with_unknown_fields, unknown_fields};

use capi_machinepool_api::constants::{
    AUTOSCALER_MAX_SIZE_ANNOTATION, AUTOSCALER_MIN_SIZE_ANNOTATION, CLUSTER_NAME_LABEL,
    DEFAULT_NODE_DELETION_TIMEOUT_SECONDS,
};
use capi_machinepool_api::v1beta2::MachinePool;

/// Why defaulting failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefaultingError {
    /// An autoscaler size annotation is not a base-10 32-bit integer.
    #[error(
        "failed to calculate MachinePool replicas value: could not parse the value of the {annotation:?} annotation: {value:?} is not a 32-bit integer"
    )]
    InvalidAutoscalerAnnotation {
        /// The annotation key.
        annotation: &'static str,
        /// The value found.
        value: String,
    },
}

/// Feature gates that change validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureGates {
    /// `MachinePool` (Beta, default on).
    pub machine_pool: bool,
    /// `MachineTaintPropagation` (Alpha, default off).
    pub machine_taint_propagation: bool,
}

impl Default for FeatureGates {
    fn default() -> Self {
        Self {
            machine_pool: true,
            machine_taint_propagation: false,
        }
    }
}

fn parse_size(mp: &MachinePool, annotation: &'static str) -> Result<Option<i32>, DefaultingError> {
    let Some(value) = mp
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(annotation))
    else {
        return Ok(None);
    };
    value
        .parse::<i32>()
        .map(Some)
        .map_err(|_| DefaultingError::InvalidAutoscalerAnnotation {
            annotation,
            value: value.clone(),
        })
}

/// The replicas value the webhook writes: an explicit value is kept; with both autoscaler
/// annotations, `min` on create (or when the old object had none), otherwise the old value
/// clamped to `[min, max]`; else 1.
///
/// # Errors
/// When an autoscaler annotation (with its pair present) is not a 32-bit integer.
pub fn calculate_replicas(
    mp: &MachinePool,
    old: Option<&MachinePool>,
) -> Result<i32, DefaultingError> {
    if let Some(replicas) = mp.spec.replicas {
        return Ok(replicas);
    }
    let has = |k: &str| {
        mp.metadata
            .annotations
            .as_ref()
            .is_some_and(|a| a.contains_key(k))
    };
    if !(has(AUTOSCALER_MIN_SIZE_ANNOTATION) && has(AUTOSCALER_MAX_SIZE_ANNOTATION)) {
        return Ok(1);
    }
    let min = parse_size(mp, AUTOSCALER_MIN_SIZE_ANNOTATION)?.unwrap_or(1);
    let max = parse_size(mp, AUTOSCALER_MAX_SIZE_ANNOTATION)?.unwrap_or(1);
    Ok(match old.and_then(|o| o.spec.replicas) {
        None => min,
        Some(old) if old < min => min,
        Some(old) if old > max => max,
        Some(old) => old,
    })
}

/// Applies upstream's defaults: cluster-name label, replicas, node deletion timeout (10s),
/// `v` prefix on the version. `old` is the stored object on update.
///
/// # Errors
/// See [`calculate_replicas`]; the object is left unchanged on error.
pub fn default_machine_pool(
    mp: &mut MachinePool,
    old: Option<&MachinePool>,
) -> Result<(), DefaultingError> {
    let replicas = calculate_replicas(mp, old)?;
    mp.metadata
        .labels
        .get_or_insert_with(Default::default)
        .insert(CLUSTER_NAME_LABEL.to_owned(), mp.spec.cluster_name.clone());
    mp.spec.replicas = Some(replicas);
    let deletion = &mut mp.spec.template.spec.deletion;
    deletion
        .node_deletion_timeout_seconds
        .get_or_insert(DEFAULT_NODE_DELETION_TIMEOUT_SECONDS);
    let version = &mut mp.spec.template.spec.version;
    if !version.is_empty() && !version.starts_with('v') {
        version.insert(0, 'v');
    }
    Ok(())
}

/// Validates a MachinePool as upstream's webhook does; `old` is the stored object on update.
/// Returns every finding (empty when valid).
#[must_use]
pub fn validate_machine_pool(
    mp: &MachinePool,
    old: Option<&MachinePool>,
    gates: &FeatureGates,
) -> Vec<FieldError> {
    if !gates.machine_pool {
        return vec![FieldError::forbidden(
            "spec",
            "can be set only if the MachinePool feature flag is enabled",
        )];
    }
    let mut errs = Vec::new();
    let spec = &mp.spec;
    let machine = &spec.template.spec;
    if !machine.bootstrap.config_ref.is_defined() && machine.bootstrap.data_secret_name.is_none() {
        errs.push(FieldError::required(
            "spec.template.spec.bootstrap",
            "expected either spec.template.spec.bootstrap.dataSecretName or spec.template.spec.bootstrap.configRef to be populated",
        ));
    }
    if let Some(old) = old
        && old.spec.cluster_name != spec.cluster_name
    {
        errs.push(FieldError::forbidden(
            "spec.clusterName",
            "field is immutable",
        ));
    }
    if spec.cluster_name != machine.cluster_name {
        errs.push(FieldError::invalid(
            "spec.clusterName",
            &spec.cluster_name,
            "spec.clusterName and spec.template.spec.clusterName must be set to the same value",
        ));
    }
    if !machine.version.is_empty() {
        let path = "spec.template.spec.version";
        if !machine.version.starts_with('v') {
            errs.push(FieldError::invalid(
                path,
                &machine.version,
                "must start with v",
            ));
        }
        if capi_versions::KubeVersion::parse(&machine.version).is_err() {
            errs.push(FieldError::invalid(
                path,
                &machine.version,
                "must be a valid semantic version",
            ));
        }
    }
    if machine.taints.as_ref().is_some_and(|t| !t.is_empty()) {
        // Upstream reports taint errors at `spec.taints`, not the template path; kept as is.
        errs.push(FieldError::forbidden(
            "spec.taints",
            "taints feature for MachinePools is not yet implemented",
        ));
        if !gates.machine_taint_propagation {
            errs.push(FieldError::forbidden(
                "spec.taints",
                "taints are not allowed to be set when the feature gate MachineTaintPropagation is disabled",
            ));
        }
    }
    errs.extend(validate_object_meta(
        &spec.template.metadata,
        "spec.template.metadata",
    ));
    errs
}

/// Warnings on a valid MachinePool (beyond upstream's webhook, which gives none here).
///
/// Both `spec.failureDomains` and `spec.template.spec.failureDomain` set: for a MachinePool only
/// `spec.failureDomains` is used: the infrastructure provider places the pool's instances
/// across it (upstream `api/core/v1beta2/machinepool_types.go` `MachinePoolSpec.FailureDomains`;
/// e.g. `test/infrastructure/docker/reconcilers/backends/docker/dockermachinepool_backend.go`),
/// while `spec.template.spec.failureDomain` is copied only by MachineSets
/// (`core/reconcilers/machineset/machineset_controller.go`), never by the MachinePool
/// controller.
#[must_use]
pub fn validation_warnings(mp: &MachinePool) -> Vec<FieldError> {
    let template_domain = &mp.spec.template.spec.failure_domain;
    let pool_domains = mp.spec.failure_domains.as_deref().unwrap_or_default();
    if template_domain.is_empty() || pool_domains.is_empty() {
        return Vec::new();
    }
    vec![FieldError::invalid(
        "spec.template.spec.failureDomain",
        template_domain,
        "ignored: spec.failureDomains is also set, and a MachinePool's instances are placed by the infrastructure provider across spec.failureDomains; spec.template.spec.failureDomain is used by MachineSets only",
    )]
}

#[cfg(test)]
mod tests;
