//! The admission pipeline for one document: decode, structural schema of its version,
//! conversion to v1beta2, defaulting, validation.

use std::fmt;

use capi_diagnostics::Severity;
use capi_diagnostics::error_chain;
use capi_diagnostics::excerpt::Excerpt;
use capi_machinepool_api::constants::{API_VERSION_V1BETA1, API_VERSION_V1BETA2, V1BETA1, V1BETA2};
use capi_machinepool_api::{crd, v1beta1, v1beta2};
use capi_machinepool_conversion::machine_pool::to_hub;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::openapi::{Schema, validate_scale_spec, without_null_fields};
use crate::unknown_fields::decode_reporting;
use crate::{FeatureGates, default_machine_pool, validate_machine_pool};

/// Which step of the request a finding comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Step {
    /// The API server's own checks: the served version, the object's `metadata`, its
    /// structural schema and list types ([`crate::openapi`]). Its texts are the server's.
    ApiServer,
    /// Decoding into the typed API (an error the schema did not explain; a dropped field).
    Decoding,
    /// The conversion webhook (v1beta1 to the storage version v1beta2).
    Conversion,
    /// Upstream's defaulting and validating webhook for MachinePools.
    Webhook,
}

/// One finding about a document: a field path and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The step that found it.
    pub step: Step,
    /// Dotted field path (`spec.template.spec.version`), or `<root>`, or a step in angle
    /// brackets (`<conversion to v1beta2>`).
    pub path: String,
    /// What is wrong: for [`Step::ApiServer`], the server's own text after the path (values
    /// quoted as Go quotes them, in full); otherwise input values quoted as short excerpts.
    pub message: String,
}

impl Finding {
    fn error(step: Step, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            step,
            path: path.into(),
            message: message.into(),
        }
    }

    fn warning(step: Step, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            step,
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The MachinePool CRD's scale subresource `specReplicasPath`.
const SPEC_REPLICAS_PATH: &str = ".spec.replicas";

/// `object` as sent, or without its `status` (and a warning) when that status does not decode
/// into the typed API: the API server ignores a client's status on create and update.
fn decode_status_or_drop(
    mut object: Value,
    api_version: &str,
    warnings: &mut Vec<Finding>,
) -> Value {
    let status_error = match (api_version, object.get("status")) {
        (_, None) => None,
        (API_VERSION_V1BETA2, Some(status)) => {
            serde_json::from_value::<v1beta2::MachinePoolStatus>(status.clone()).err()
        }
        (_, Some(status)) => {
            serde_json::from_value::<v1beta1::MachinePoolStatus>(status.clone()).err()
        }
    };
    if let (Some(e), Some(map)) = (status_error, object.as_object_mut()) {
        map.remove("status");
        warnings.push(Finding::warning(
            Step::Decoding,
            "status",
            format!(
                "ignored: it does not decode ({}); the API server drops status on create and keeps the stored one on update",
                Excerpt::with_max_chars(&e.to_string(), 240)
            ),
        ));
    }
    object
}

/// The pipeline could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum AdmissionError {
    /// A generated schema did not compile (a bug of this crate).
    #[error("the {version} MachinePool schema does not compile: {message}")]
    Schema {
        /// The API version.
        version: &'static str,
        /// The compiler's message.
        message: String,
    },
}

/// What the pipeline made of one document.
#[derive(Clone, Debug, PartialEq)]
pub struct Admitted {
    /// The defaulted v1beta2 object, when the document decoded and converted.
    pub machine_pool: Option<v1beta2::MachinePool>,
    /// Every finding, errors first in pipeline order, then warnings.
    pub findings: Vec<Finding>,
}

impl Admitted {
    /// True when no finding is an error (the API server would accept the object).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        !self.findings.iter().any(|f| f.severity == Severity::Error)
    }

    /// The findings of one severity.
    pub fn findings_of(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity == severity)
    }
}

/// The admission pipeline, with the compiled schemas of both versions kept for every call.
///
/// ```
/// use capi_machinepool_admission::Admission;
/// let admission = Admission::new().unwrap();
/// let admitted = admission.admit(&serde_json::json!({
///   "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool", "metadata": {"name": "mp"},
///   "spec": {"clusterName": "c1", "template": {"spec": {"clusterName": "c1", "version": "v1.33.0",
///     "bootstrap": {"dataSecretName": "s"},
///     "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DevMachinePool", "name": "d"}}}}
/// }));
/// assert!(admitted.is_valid(), "{:?}", admitted.findings);
/// assert_eq!(admitted.machine_pool.unwrap().spec.replicas, Some(1));
/// ```
pub struct Admission {
    v1beta1: Schema,
    v1beta2: Schema,
    gates: FeatureGates,
}

impl fmt::Debug for Admission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Admission")
            .field("gates", &self.gates)
            .finish_non_exhaustive()
    }
}

/// The schema of `version` without `status`: the API server validates a client's `status`
/// only through the status subresource (on create it drops `status`, on update it keeps the
/// stored one; `customResourceStrategy.PrepareForCreate`/`PrepareForUpdate`).
fn compile(version: &'static str) -> Result<Schema, AdmissionError> {
    let mut schema = crd::version_schema(version).ok_or(AdmissionError::Schema {
        version,
        message: "unknown version".into(),
    })?;
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.remove("status");
    }
    Schema::new(schema).map_err(|e| AdmissionError::Schema {
        version,
        message: e.to_string(),
    })
}

impl Admission {
    /// Compiles the schemas of both versions, with the default feature gates.
    ///
    /// # Errors
    /// When a generated schema does not compile (never expected).
    pub fn new() -> Result<Self, AdmissionError> {
        Ok(Self {
            v1beta1: compile(V1BETA1)?,
            v1beta2: compile(V1BETA2)?,
            gates: FeatureGates::default(),
        })
    }

    /// Uses other feature gates for validation.
    #[must_use]
    pub fn with_feature_gates(mut self, gates: FeatureGates) -> Self {
        self.gates = gates;
        self
    }

    /// Runs the pipeline on one MachinePool document (create; no stored object).
    #[must_use]
    pub fn admit(&self, object: &Value) -> Admitted {
        self.run(object, None)
    }

    /// Runs the pipeline on one MachinePool document that updates `old` (the stored object,
    /// already admitted): upstream's update defaulting (replicas from the autoscaler
    /// annotations keep the old value within bounds) and update validation (immutable
    /// `spec.clusterName`).
    #[must_use]
    pub fn admit_update(&self, object: &Value, old: &v1beta2::MachinePool) -> Admitted {
        self.run(object, Some(old))
    }

    fn run(&self, object: &Value, old: Option<&v1beta2::MachinePool>) -> Admitted {
        let pruned = without_null_fields(object);
        let object = &pruned;
        let mut findings = Vec::new();
        let mut warnings = Vec::new();
        let api_version = object["apiVersion"].as_str().unwrap_or_default();
        let schema = match api_version {
            API_VERSION_V1BETA2 => &self.v1beta2,
            API_VERSION_V1BETA1 => &self.v1beta1,
            other => {
                findings.push(Finding::error(
                    Step::ApiServer,
                    "apiVersion",
                    format!(
                        "\"{}\" is not served (expected {API_VERSION_V1BETA2} or {API_VERSION_V1BETA1})",
                        Excerpt::new(other)
                    ),
                ));
                return Admitted {
                    machine_pool: None,
                    findings,
                };
            }
        };
        // What the API server checks itself: the object's own metadata, then its schema and
        // list types (status excluded, see `compile`).
        let mut pruned_unknown = object.clone();
        schema.prune(&mut pruned_unknown);
        let server_errors = crate::validate_root_meta(&object["metadata"])
            .into_iter()
            .chain(schema.validate(&pruned_unknown))
            .chain(validate_scale_spec(&pruned_unknown, SPEC_REPLICAS_PATH));
        findings.extend(
            server_errors
                .map(|e| Finding::error(Step::ApiServer, e.field.clone(), e.detail_text())),
        );
        // The typed API: a decoding error the API server's checks did not already explain.
        // `status` is not the API server's business on create or update: when it does not
        // decode, the object is decoded without it.
        let mut decoding = Vec::new();
        let mut typed_input = object.clone();
        schema.whole_floats_as_integers(&mut typed_input);
        let object = &decode_status_or_drop(typed_input, api_version, &mut warnings);
        let hub = if api_version == API_VERSION_V1BETA2 {
            decode::<v1beta2::MachinePool>(object, &mut decoding, &mut warnings)
        } else {
            decode::<v1beta1::MachinePool>(object, &mut decoding, &mut warnings).and_then(|spoke| {
                match to_hub(spoke) {
                    Ok(hub) => Some(hub),
                    Err(e) => {
                        findings.push(Finding::error(
                            Step::Conversion,
                            "<conversion to v1beta2>",
                            error_chain(&e),
                        ));
                        None
                    }
                }
            })
        };
        if !findings.iter().any(|f| f.severity == Severity::Error) {
            findings.extend(decoding);
        }
        let machine_pool = hub.and_then(|mut hub| {
            if let Err(e) = default_machine_pool(&mut hub, old) {
                findings.push(Finding::error(
                    Step::Webhook,
                    "metadata.annotations",
                    e.to_string(),
                ));
                return None;
            }
            for e in validate_machine_pool(&hub, old, &self.gates) {
                findings.push(Finding::error(
                    Step::Webhook,
                    e.field.clone(),
                    e.detail_text(),
                ));
            }
            for w in crate::validation_warnings(&hub) {
                warnings.push(Finding::warning(
                    Step::Webhook,
                    w.field.clone(),
                    w.detail_text(),
                ));
            }
            Some(hub)
        });
        findings.extend(warnings);
        Admitted {
            machine_pool,
            findings,
        }
    }
}

fn decode_error(e: serde_path_to_error::Error<serde_json::Error>) -> Finding {
    let path = e.path().to_string();
    let inner = e.into_inner().to_string();
    let path = if path == "." {
        "<root>".to_owned()
    } else {
        path
    };
    Finding::error(
        Step::Decoding,
        path,
        Excerpt::with_max_chars(&inner, 240).to_string(),
    )
}

/// Decodes the typed object and lists the fields it would drop.
fn decode<T: DeserializeOwned>(
    value: &Value,
    findings: &mut Vec<Finding>,
    warnings: &mut Vec<Finding>,
) -> Option<T> {
    let mut track = serde_path_to_error::Track::new();
    let deserializer = serde_path_to_error::Deserializer::new(value, &mut track);
    match decode_reporting::<_, T>(deserializer, value) {
        Ok((typed, dropped)) => {
            warnings.extend(dropped.into_iter().map(|p| {
                Finding::warning(
                    Step::Decoding,
                    p,
                    "unknown field, not part of the MachinePool API (dropped)",
                )
            }));
            Some(typed)
        }
        Err(e) => {
            findings.push(decode_error(serde_path_to_error::Error::new(
                track.path(),
                e,
            )));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream `core/webhooks/admission/machinepool.go` `Default` on update: without
    /// `spec.replicas`, the autoscaler annotations bound the *old* object's replicas (min on
    /// create); `ValidateUpdate`: `spec.clusterName` is immutable.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn updates_default_replicas_from_the_stored_object() {
        let admission = Admission::new().unwrap();
        let pool = |cluster: &str, replicas: Option<i32>| {
            let mut doc = serde_json::json!({
                "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
                "metadata": {"name": "mp", "annotations": {
                    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size": "2",
                    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size": "6"}},
                "spec": {"clusterName": cluster, "template": {"spec": {"clusterName": cluster,
                    "bootstrap": {"dataSecretName": "s"},
                    "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "d"}}}}});
            if let Some(r) = replicas {
                doc["spec"]["replicas"] = r.into();
            }
            doc
        };
        let created = admission.admit(&pool("c1", None));
        assert_eq!(
            created.machine_pool.unwrap().spec.replicas,
            Some(2),
            "min on create"
        );
        let stored = admission.admit(&pool("c1", Some(5))).machine_pool.unwrap();
        let updated = admission.admit_update(&pool("c1", None), &stored);
        assert_eq!(
            updated.machine_pool.unwrap().spec.replicas,
            Some(5),
            "the old value, within bounds"
        );
        let moved = admission.admit_update(&pool("c2", None), &stored);
        assert!(
            moved
                .findings
                .iter()
                .any(|f| f.path == "spec.clusterName" && f.message.contains("immutable")),
            "{:?}",
            moved.findings
        );
    }

    #[test]
    fn null_fields_are_pruned_as_the_api_server_does() {
        // The API server prunes `replicas: null` (no MachinePool field is nullable): the pool
        // is admitted and defaulted as if replicas were absent.
        let pool = serde_json::json!({
            "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
            "metadata": {"name": "a", "namespace": "d", "labels": null},
            "spec": {"clusterName": "c", "replicas": null, "template": {"spec": {
                "clusterName": "c", "bootstrap": {"dataSecretName": "s"},
                "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "x"}}}}
        });
        let admitted = Admission::new().unwrap().admit(&pool);
        assert!(admitted.findings.is_empty(), "{:?}", admitted.findings);
        assert_eq!(admitted.machine_pool.unwrap().spec.replicas, Some(1));
        assert_eq!(
            without_null_fields(&serde_json::json!({"a": null, "b": [null, {"c": null}]})),
            serde_json::json!({"b": [null, {}]})
        );
    }
}
