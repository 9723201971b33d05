//! The `cluster.x-k8s.io/<contract>` CRD labels and the API version core Cluster API derives
//! from them (upstream's `GetLatestContractAndAPIVersionFromContract`).

use std::collections::BTreeMap;

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

/// The string labels of a CRD given as JSON (`metadata.labels`; non-string values ignored).
#[must_use]
pub fn crd_labels(crd: &serde_json::Value) -> BTreeMap<String, String> {
    crd["metadata"]["labels"]
        .as_object()
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
