//! The `cluster.x-k8s.io/<contract>` CRD labels and the API version core Cluster API derives
//! from them (upstream's `GetLatestContractAndAPIVersionFromContract`).

use std::collections::BTreeMap;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::Contract;
use crate::version::{compare_kube_aware, is_kube_like};

/// Prefix of the contract labels on provider CRDs.
pub const CONTRACT_LABEL_PREFIX: &str = "cluster.x-k8s.io/";

/// Why no API version could be chosen for a CRD.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContractVersionError {
    /// No compatible contract label with a non-empty value.
    #[error(
        "cannot find any versions matching contract versions {contracts:?} for CRD {crd} as contract version label(s) are either missing or empty"
    )]
    NoMatchingLabel {
        /// The CRD name.
        crd: String,
        /// The contracts that were looked for, newest first.
        contracts: Vec<Contract>,
    },
}

/// Why contract labels could not be added to a CRD.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContractLabelError {
    /// A label would list a version the CRD does not define.
    #[error(
        "cannot label CRD {crd} with {label}: it has no version {version} (versions: {defined:?})"
    )]
    UnknownVersion {
        /// The CRD name.
        crd: String,
        /// The label key.
        label: &'static str,
        /// The version listed.
        version: String,
        /// The versions the CRD defines.
        defined: Vec<String>,
    },
}

/// Sets the `cluster.x-k8s.io/<contract>` labels of a CRD: for each contract, the CRD
/// versions implementing it, joined with `_` (`v1beta1_v1beta2`). Other labels are kept, a
/// contract label already there is replaced. Call it on the CRD as installed, after
/// `kube::core::crd::merge_crds` for a multi-version kind.
///
/// Why after: with kube-derive, `#[kube(label("cluster.x-k8s.io/v1beta2", "v1beta1"))]` puts
/// the label on that version's derived CRD only, and `merge_crds` keeps the metadata of the
/// storage version's CRD alone, so labels written on another version's derive vanish from
/// the merged CRD. Put every contract label on the storage version's derive, or use this
/// function on the merged CRD.
///
/// # Errors
/// When a listed version is not one of the CRD's `spec.versions` (nothing is changed then).
///
/// ```
/// use capi_contract::{Contract, labels::add_contract_labels};
/// # use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::*;
/// # let version = |name: &str| CustomResourceDefinitionVersion { name: name.into(), served: true, ..Default::default() };
/// let mut crd = CustomResourceDefinition::default();
/// crd.metadata.name = Some("foomachinepools.infrastructure.example.com".into());
/// crd.spec.versions = vec![version("v1alpha1"), version("v1beta1")];
/// add_contract_labels(&mut crd, &[(Contract::V1Beta1, &["v1alpha1"]), (Contract::V1Beta2, &["v1beta1"])]).unwrap();
/// let labels = crd.metadata.labels.unwrap();
/// assert_eq!(labels["cluster.x-k8s.io/v1beta1"], "v1alpha1");
/// assert_eq!(labels["cluster.x-k8s.io/v1beta2"], "v1beta1");
/// ```
pub fn add_contract_labels(
    crd: &mut CustomResourceDefinition,
    labels: &[(Contract, &[&str])],
) -> Result<(), ContractLabelError> {
    let defined: Vec<String> = crd.spec.versions.iter().map(|v| v.name.clone()).collect();
    for (contract, versions) in labels {
        if let Some(unknown) = versions.iter().find(|v| !defined.iter().any(|d| d == *v)) {
            return Err(ContractLabelError::UnknownVersion {
                crd: crd.metadata.name.clone().unwrap_or_default(),
                label: contract.label(),
                version: (*unknown).to_owned(),
                defined,
            });
        }
    }
    let map = crd.metadata.labels.get_or_insert_with(BTreeMap::new);
    for (contract, versions) in labels {
        map.insert(contract.label().to_owned(), versions.join("_"));
    }
    Ok(())
}

/// The API versions a contract label value lists (`v1beta1_v1beta2`), in label order.
#[must_use]
pub fn label_versions(value: &str) -> Vec<&str> {
    value.split('_').collect()
}

/// The newest contract compatible with `current` that `labels` map, and the highest API
/// version (Kubernetes order) its label lists: upstream's
/// `GetLatestContractAndAPIVersionFromContract`.
///
/// # Errors
/// When no compatible contract label has a value.
///
/// ```
/// use std::collections::BTreeMap;
/// use capi_contract::{Contract, labels::latest_contract_and_version};
/// let labels = BTreeMap::from([("cluster.x-k8s.io/v1beta1".to_owned(), "v1beta1_v1beta2".to_owned())]);
/// assert_eq!(latest_contract_and_version("foos.example.com", &labels, Contract::V1Beta2).unwrap(),
///            (Contract::V1Beta1, "v1beta2".to_owned()));
/// ```
pub fn latest_contract_and_version(
    crd_name: &str,
    labels: &BTreeMap<String, String>,
    current: Contract,
) -> Result<(Contract, String), ContractVersionError> {
    let contracts = current.compatible();
    for contract in &contracts {
        let Some(value) = labels.get(contract.label()).filter(|v| !v.is_empty()) else {
            continue;
        };
        let latest = label_versions(value)
            .into_iter()
            .max_by(|a, b| compare_kube_aware(a, b));
        if let Some(latest) = latest {
            return Ok((*contract, latest.to_owned()));
        }
    }
    Err(ContractVersionError::NoMatchingLabel {
        crd: crd_name.to_owned(),
        contracts,
    })
}

/// Every contract label on a CRD: contract version (`v1beta2`, or an older one such as
/// `v1alpha4` that no core reads anymore) -> API versions listed.
#[must_use]
pub fn contract_labels(labels: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    labels
        .iter()
        .filter_map(|(k, v)| {
            let contract = k.strip_prefix(CONTRACT_LABEL_PREFIX)?;
            // Only `cluster.x-k8s.io/v...` labels are contract labels (not e.g. `cluster.x-k8s.io/provider`).
            is_kube_like(contract).then(|| {
                (
                    contract.to_owned(),
                    label_versions(v).into_iter().map(str::to_owned).collect(),
                )
            })
        })
        .collect()
}

/// Contracts Cluster API no longer reads (`v1alpha2`, `v1alpha3`, `v1alpha4`) whose labels
/// providers of that era still set, such as CAPA v1.5's `cluster.x-k8s.io/v1alpha3: v1alpha3`.
/// A version listed there is labelled, for a contract that is retired.
///
/// ```
/// assert!(capi_contract::labels::is_retired_contract("v1alpha4"));
/// assert!(!capi_contract::labels::is_retired_contract("v1beta1"));
/// ```
#[must_use]
pub fn is_retired_contract(contract: &str) -> bool {
    matches!(contract, "v1alpha2" | "v1alpha3" | "v1alpha4")
}

/// The string labels of a CRD given as JSON (`metadata.labels`; non-string values ignored).
#[must_use]
pub fn crd_labels(crd: &serde_json::Value) -> BTreeMap<String, String> {
    string_entries(&crd["metadata"]["labels"])
}

/// The entries of a JSON object whose values are strings (labels, annotations).
pub(crate) fn string_entries(map: &serde_json::Value) -> BTreeMap<String, String> {
    map.as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// Contract and apiVersion (`group/version`) to use for a CRD (as JSON), from its labels.
///
/// # Errors
/// See [`latest_contract_and_version`].
///
/// ```
/// use capi_contract::{Contract, labels::resolve_crd};
/// let crd = serde_json::json!({"metadata": {"name": "foomachinepools.infrastructure.example.com",
///   "labels": {"cluster.x-k8s.io/v1beta2": "v1alpha1_v1"}}, "spec": {"group": "infrastructure.example.com"}});
/// assert_eq!(resolve_crd(&crd, Contract::V1Beta2).unwrap(),
///            (Contract::V1Beta2, "infrastructure.example.com/v1".to_owned()));
/// ```
pub fn resolve_crd(
    crd: &serde_json::Value,
    current: Contract,
) -> Result<(Contract, String), ContractVersionError> {
    let name = crd["metadata"]["name"].as_str().unwrap_or_default();
    let labels = crd_labels(crd);
    let (contract, version) = latest_contract_and_version(name, &labels, current)?;
    let group = crd["spec"]["group"].as_str().unwrap_or_default();
    let api_version = if group.is_empty() {
        version
    } else {
        format!("{group}/{version}")
    };
    Ok((contract, api_version))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion;

    fn crd(versions: &[&str], labels: &[(&str, &str)]) -> CustomResourceDefinition {
        let mut crd = CustomResourceDefinition::default();
        crd.metadata.name = Some("foos.example.com".into());
        crd.metadata.labels = (!labels.is_empty()).then(|| {
            labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        });
        crd.spec.group = "example.com".into();
        crd.spec.names.kind = "Foo".into();
        crd.spec.scope = "Namespaced".into();
        crd.spec.versions = versions
            .iter()
            .map(|v| CustomResourceDefinitionVersion {
                name: (*v).to_owned(),
                served: true,
                storage: true,
                ..Default::default()
            })
            .collect();
        crd
    }

    /// The trap `add_contract_labels` documents: kube-core's `merge_crds` keeps the storage
    /// version's metadata only (kube-core src/crd.rs `merge_crds` starts from that CRD and
    /// takes only `spec.versions` from the others).
    #[test]
    fn merge_crds_drops_the_labels_of_other_versions() {
        let old = crd(&["v1alpha1"], &[("cluster.x-k8s.io/v1beta1", "v1alpha1")]);
        let new = crd(&["v1beta1"], &[("cluster.x-k8s.io/v1beta2", "v1beta1")]);
        let mut merged = kube_core::crd::merge_crds(vec![old, new], "v1beta1").unwrap();
        let labels = merged.metadata.labels.clone().unwrap();
        assert!(
            !labels.contains_key("cluster.x-k8s.io/v1beta1"),
            "{labels:?}"
        );
        add_contract_labels(
            &mut merged,
            &[
                (Contract::V1Beta1, &["v1alpha1"]),
                (Contract::V1Beta2, &["v1beta1"]),
            ],
        )
        .unwrap();
        let labels = merged.metadata.labels.unwrap();
        assert_eq!(labels["cluster.x-k8s.io/v1beta1"], "v1alpha1");
        assert_eq!(labels["cluster.x-k8s.io/v1beta2"], "v1beta1");
    }

    /// Several versions join with `_` (the label format upstream's
    /// GetLatestContractAndAPIVersionFromContract splits); other labels stay; a label
    /// already there is replaced; a version the CRD lacks changes nothing.
    #[test]
    fn add_contract_labels_rules() {
        let mut c = crd(
            &["v1alpha1", "v1beta1"],
            &[("app", "x"), ("cluster.x-k8s.io/v1beta2", "stale")],
        );
        add_contract_labels(&mut c, &[(Contract::V1Beta2, &["v1alpha1", "v1beta1"])]).unwrap();
        let labels = c.metadata.labels.clone().unwrap();
        assert_eq!(labels["cluster.x-k8s.io/v1beta2"], "v1alpha1_v1beta1");
        assert_eq!(labels["app"], "x");
        assert_eq!(
            latest_contract_and_version("foos.example.com", &labels, Contract::V1Beta2).unwrap(),
            (Contract::V1Beta2, "v1beta1".to_owned())
        );
        let before = c.clone();
        let err = add_contract_labels(
            &mut c,
            &[
                (Contract::V1Beta1, &["v1beta1"]),
                (Contract::V1Beta2, &["v2"]),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot label CRD foos.example.com with cluster.x-k8s.io/v1beta2: it has no version v2 (versions: [\"v1alpha1\", \"v1beta1\"])"
        );
        assert_eq!(c, before);
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (format!("{CONTRACT_LABEL_PREFIX}{k}"), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn upstream_vectors() {
        use Contract::{V1Beta1, V1Beta2};
        let l = labels(&[("v1beta1", "v1alpha1_v1alpha2")]);
        assert_eq!(
            latest_contract_and_version("x", &l, V1Beta2).unwrap(),
            (V1Beta1, "v1alpha2".into())
        );
        let l = labels(&[("v1beta2", "v1alpha3_v1alpha4")]);
        assert_eq!(
            latest_contract_and_version("x", &l, V1Beta2).unwrap(),
            (V1Beta2, "v1alpha4".into())
        );
        let l = labels(&[("v1beta1", "v1alpha1"), ("v1beta2", "v1alpha4")]);
        assert_eq!(
            latest_contract_and_version("x", &l, V1Beta2).unwrap(),
            (V1Beta2, "v1alpha4".into())
        );
        assert!(latest_contract_and_version("x", &BTreeMap::new(), V1Beta2).is_err());
        let l = labels(&[("v1beta2", "v1alpha4")]);
        assert!(
            latest_contract_and_version("x", &l, V1Beta1).is_err(),
            "a lone newer label is not compatible"
        );
        let l = labels(&[("v1beta2", "")]);
        assert!(
            latest_contract_and_version("x", &l, V1Beta2).is_err(),
            "empty label is skipped"
        );
    }
}
