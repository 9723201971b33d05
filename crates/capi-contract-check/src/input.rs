//! What the checker reads: CRDs (from files, documents or typed values) and the options.

use capi_contract::Contract;
use capi_contract::crd::CrdView;
use std::sync::Arc;

use capi_manifests::SetBy;
use capi_manifests::{Document, Positions, Source};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::report::Outcome;
pub use crate::skipped::NotChecked;

/// A CRD to check, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct CrdInput {
    /// The file, document and line it was read from (`None` for a CRD given as a value).
    pub source: Option<Source>,
    /// The CRD as JSON, with build-time labels and patches (kustomization) applied.
    pub crd: Value,
    /// Kustomization fields that were not emulated and could have changed the CRD (see
    /// [`capi_manifests::Document::caveats`]); a missing contract label is then reported as
    /// INFO, not as a failure, because it may come from what was not emulated.
    pub caveats: Vec<String>,
    /// Values a kustomization set (a patch, `labels`): a finding on one points at the file
    /// that set it (see [`capi_manifests::SetBy`]).
    pub set_by: Vec<SetBy>,
    /// Where each value is written in the file it was read from (see
    /// [`capi_manifests::Positions`]): a finding points at its field's line.
    pub positions: Option<Arc<Positions>>,
}

impl CrdInput {
    /// The CRD as the contract reads it.
    #[must_use]
    pub fn view(&self) -> CrdView<'_> {
        CrdView::new(&self.crd)
    }
}

impl From<Value> for CrdInput {
    fn from(crd: Value) -> Self {
        Self {
            source: None,
            crd,
            caveats: Vec::new(),
            set_by: Vec::new(),
            positions: None,
        }
    }
}

impl From<Document> for CrdInput {
    fn from(doc: Document) -> Self {
        Self {
            source: Some(doc.source),
            crd: doc.value,
            caveats: doc.caveats,
            set_by: doc.set_by,
            positions: doc.positions,
        }
    }
}

impl From<&CustomResourceDefinition> for CrdInput {
    /// A typed CRD, such as `MyPool::crd()` from `#[derive(CustomResource)]`.
    fn from(crd: &CustomResourceDefinition) -> Self {
        // A typed CRD always serializes; `Null` would only make every rule fail visibly.
        Self::from(serde_json::to_value(crd).unwrap_or(Value::Null))
    }
}

impl From<CustomResourceDefinition> for CrdInput {
    fn from(crd: CustomResourceDefinition) -> Self {
        Self::from(&crd)
    }
}

/// What the checker assumes about the consumer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckOptions {
    /// Check only the CRD versions labelled for this contract (`None`: every contract the
    /// current core reads, v1beta2 and, under the temporary compatibility, v1beta1). A CRD
    /// without a label for it is reported as INFO, never failed for lacking that label.
    pub only_contract: Option<Contract>,
    /// Accept the temporary v1beta1 compatibility forms (`status.ready`, v1beta1-only labels)
    /// with a deprecation warning; when false they fail.
    pub v1beta1_compat: bool,
    /// Fail `crd-valid` (a MUST rule) when the API server's validation of a CRD was not
    /// judged in full (a CEL rule left to the server, a server that gave no verdict), instead
    /// of reporting it as INFO: for CI that wants the guarantee.
    pub require_judged: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            only_contract: None,
            v1beta1_compat: true,
            require_judged: false,
        }
    }
}

impl CheckOptions {
    /// The outcome of a temporary-compatibility form (`status.ready`, a v1beta1-only
    /// label): a warning under the compatibility, a failure without it.
    #[must_use]
    pub fn compat_outcome(&self) -> Outcome {
        if self.v1beta1_compat {
            Outcome::Warn
        } else {
            Outcome::Fail
        }
    }
}

/// The role a CRD plays in the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// An InfraMachinePool (kind ending in `MachinePool`, or a contract-labelled CRD with
    /// `spec.providerIDList`; the checker also takes CRDs a given MachinePool or ClusterClass
    /// names).
    Pool,
    /// An InfraMachinePoolTemplate (kind ending in `MachinePoolTemplate`).
    Template,
    /// An InfraMachinePoolMachine (kind ending in `MachinePoolMachine`): the InfraMachine of
    /// MachinePool Machines, listed by the MachinePool controller (see
    /// [`rules::MACHINE_POOL_MACHINE_CRD`](crate::rules::MACHINE_POOL_MACHINE_CRD)).
    PoolMachine,
}

/// The core Cluster API group, whose own CRDs are not provider resources.
pub(crate) const CORE_GROUP: &str = "cluster.x-k8s.io";

/// The role of a CRD, or why it is not checked.
///
/// # Errors
/// [`NotChecked`] says why the document is not an InfraMachinePool CRD (or template, or pool
/// machine).
///
/// ```
/// use capi_contract_check::{Role, classify};
/// let crd = serde_json::json!({"kind": "CustomResourceDefinition",
///   "metadata": {"name": "azuremachinepoolmachines.infrastructure.cluster.x-k8s.io"},
///   "spec": {"group": "infrastructure.cluster.x-k8s.io", "names": {"kind": "AzureMachinePoolMachine"}}});
/// assert_eq!(classify(&crd), Ok(Role::PoolMachine));
/// ```
pub fn classify(crd: &Value) -> Result<Role, NotChecked> {
    let view = CrdView::new(crd);
    let name = view.name().unwrap_or("<unnamed>").to_owned();
    if !view.is_crd() {
        return Err(NotChecked::NotACrd { name });
    }
    if let Some(version) = view
        .api_version()
        .and_then(|v| v.strip_prefix("apiextensions.k8s.io/"))
        .filter(|v| *v != "v1")
    {
        return Err(NotChecked::UnservedApiVersion {
            name,
            version: version.to_owned(),
        });
    }
    let kind = view.kind().unwrap_or_default();
    let group = view.group().unwrap_or_default();
    if group == CORE_GROUP {
        return Err(NotChecked::CoreCrd { name });
    }
    if kind.ends_with("MachinePoolTemplate") {
        Ok(Role::Template)
    } else if kind.ends_with("MachinePoolMachine") {
        Ok(Role::PoolMachine)
    } else if kind.ends_with("MachinePool") || labelled_with_provider_id_list(view) {
        Ok(Role::Pool)
    } else {
        Err(NotChecked::OtherKind {
            name,
            kind: kind.to_owned(),
        })
    }
}

/// Evidence that a CRD whose kind does not follow the `${env}MachinePool` naming convention
/// is an InfraMachinePool: a contract label (`cluster.x-k8s.io/<contract>`, retired ones
/// included) and `spec.providerIDList` in the schema of a version. The contract page calls the
/// name "a generally applied convention" (infra-machinepool.md, "InfraMachinePool, InfraMachinePoolList
/// resource definition"), while `spec.providerIDList` is the field only an InfraMachinePool has.
pub(crate) fn labelled_with_provider_id_list(crd: CrdView<'_>) -> bool {
    has_contract_label(crd) && has_provider_id_list(crd)
}

/// True when the CRD has a contract label (retired contracts included).
pub(crate) fn has_contract_label(crd: CrdView<'_>) -> bool {
    crd.labels().keys().any(|k| is_contract_label_key(k))
}

/// True for `cluster.x-k8s.io/v1alpha3`, `…/v1beta2` and other contract label keys.
pub(crate) fn is_contract_label_key(key: &str) -> bool {
    key.strip_prefix("cluster.x-k8s.io/")
        .is_some_and(|c| c.parse::<capi_contract::Contract>().is_ok() || is_retired_contract(c))
}

use capi_contract::labels::is_retired_contract;

/// True when the schema of some version has `spec.providerIDList`.
pub(crate) fn has_provider_id_list(crd: CrdView<'_>) -> bool {
    crd.declares(&capi_contract::fields::infra_machine_pool::PROVIDER_ID_LIST)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classify_says_why_a_document_is_not_checked() {
        let crd = |group: &str, kind: &str| {
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "n"},
                "spec": {"group": group, "names": {"kind": kind}}})
        };
        assert_eq!(classify(&crd("x", "FooMachinePool")), Ok(Role::Pool));
        assert_eq!(
            classify(&crd("x", "FooMachinePoolTemplate")),
            Ok(Role::Template)
        );
        assert_eq!(
            classify(&crd("x", "FooMachinePoolMachine")),
            Ok(Role::PoolMachine)
        );
        assert_eq!(
            classify(&crd(CORE_GROUP, "MachinePool")),
            Err(NotChecked::CoreCrd { name: "n".into() })
        );
        assert!(matches!(
            classify(&crd("x", "FooCluster")),
            Err(NotChecked::OtherKind { .. })
        ));
        // "It is a generally applied convention to use names in the format `${env}MachinePool`"
        // (infra-machinepool.md at ae7ff047, line 164): a convention, not the contract. A
        // contract label (a retired one too) and spec.providerIDList identify a pool.
        let pool_like = |labels: Value, ids: bool| {
            let spec = if ids {
                json!({"properties": {"providerIDList": {"type": "array"}}})
            } else {
                json!({"properties": {}})
            };
            json!({"kind": "CustomResourceDefinition", "metadata": {"name": "n", "labels": labels},
                "spec": {"group": "x", "names": {"kind": "GardenerWorkerPool"},
                    "versions": [{"name": "v1alpha1", "schema": {"openAPIV3Schema":
                        {"properties": {"spec": spec}}}}]}})
        };
        let label = json!({"cluster.x-k8s.io/v1beta1": "v1alpha1"});
        assert_eq!(classify(&pool_like(label.clone(), true)), Ok(Role::Pool));
        let retired = json!({"cluster.x-k8s.io/v1alpha4": "v1alpha1"});
        assert_eq!(classify(&pool_like(retired, true)), Ok(Role::Pool));
        assert!(
            classify(&pool_like(label, false)).is_err(),
            "no providerIDList"
        );
        let other = json!({"cluster.x-k8s.io/provider": "infrastructure-x"});
        assert!(
            classify(&pool_like(other, true)).is_err(),
            "not a contract label"
        );
        let err = classify(&json!({"kind": "ConfigMap"})).unwrap_err();
        assert_eq!(err.to_string(), "<unnamed>: not a CustomResourceDefinition");
    }
}
