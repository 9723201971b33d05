//! Contract versions and API versions: the `cluster.x-k8s.io/<contract>` CRD labels, the
//! compatible-contract rule and Kubernetes-aware version ordering, as upstream resolves them.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The Cluster API contract version implemented by this crate (the core API version).
pub const CURRENT_CONTRACT: &str = "v1beta2";
/// Prefix of the contract labels on provider CRDs.
pub const CONTRACT_LABEL_PREFIX: &str = "cluster.x-k8s.io/";

/// Contract versions a controller at `current` accepts, newest first: the contract itself and,
/// for `v1beta2`, the deprecated `v1beta1` (temporary compatibility).
#[must_use]
pub fn compatible_contracts(current: &str) -> Vec<&str> {
    let mut out = vec![current];
    if current == "v1beta2" {
        out.push("v1beta1");
    }
    out.sort_by(|a, b| compare_kube_aware(b, a));
    out
}

fn parse_kube_version(v: &str) -> Option<(u8, u64, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits_end == 0 {
        return None;
    }
    let major: u64 = rest[..digits_end].parse().ok()?;
    let tail = &rest[digits_end..];
    if tail.is_empty() {
        return Some((2, major, 0));
    }
    let (kind, minor) = if let Some(m) = tail.strip_prefix("alpha") {
        (0, m)
    } else if let Some(m) = tail.strip_prefix("beta") {
        (1, m)
    } else {
        return None;
    };
    if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((kind, major, minor.parse().ok()?))
}

/// Kubernetes-aware version ordering (apimachinery `CompareKubeAwareVersionStrings`):
/// `v1alpha1 < v2alpha1 < v1beta1 < v1beta2 < v1 < v2`; versions not of the form
/// `v<N>[alpha|beta<M>]` sort before all of those, in reverse lexicographic order.
///
/// ```
/// use capi_contract::version::compare_kube_aware;
/// use std::cmp::Ordering;
/// assert_eq!(compare_kube_aware("v1beta2", "v1"), Ordering::Less);
/// assert_eq!(compare_kube_aware("v2alpha1", "v1beta1"), Ordering::Less);
/// assert_eq!(compare_kube_aware("foo", "v1alpha1"), Ordering::Less);
/// ```
#[must_use]
pub fn compare_kube_aware(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    match (parse_kube_version(a), parse_kube_version(b)) {
        (None, None) => b.cmp(a),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some((ka, ma, na)), Some((kb, mb, nb))) => ka.cmp(&kb).then(ma.cmp(&mb)).then(na.cmp(&nb)),
    }
}

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
        /// The contracts that were looked for.
        contracts: Vec<String>,
    },
    /// The current contract was empty.
    #[error("current contract version must not be empty")]
    EmptyContract,
}

/// The API versions a contract label value lists (`v1beta1_v1beta2`), in label order.
#[must_use]
pub fn label_versions(value: &str) -> Vec<&str> {
    value.split('_').collect()
}

/// The newest compatible contract present in `labels` and the highest API version it lists:
/// upstream's `GetLatestContractAndAPIVersionFromContract`.
///
/// # Errors
/// When no compatible contract label has a value.
///
/// ```
/// use std::collections::BTreeMap;
/// use capi_contract::version::latest_contract_and_version;
/// let labels = BTreeMap::from([("cluster.x-k8s.io/v1beta1".to_owned(), "v1beta1_v1beta2".to_owned())]);
/// assert_eq!(latest_contract_and_version("foos.example.com", &labels, "v1beta2").unwrap(),
///            ("v1beta1".to_owned(), "v1beta2".to_owned()));
/// ```
pub fn latest_contract_and_version(
    crd_name: &str,
    labels: &BTreeMap<String, String>,
    current: &str,
) -> Result<(String, String), ContractVersionError> {
    if current.is_empty() {
        return Err(ContractVersionError::EmptyContract);
    }
    let contracts = compatible_contracts(current);
    for contract in &contracts {
        let Some(value) = labels.get(&format!("{CONTRACT_LABEL_PREFIX}{contract}")) else {
            continue;
        };
        if value.is_empty() {
            continue;
        }
        let mut versions = label_versions(value);
        versions.sort_by(|a, b| compare_kube_aware(a, b));
        if let Some(latest) = versions.last() {
            return Ok(((*contract).to_owned(), (*latest).to_owned()));
        }
    }
    Err(ContractVersionError::NoMatchingLabel {
        crd: crd_name.to_owned(),
        contracts: contracts.iter().map(|c| (*c).to_owned()).collect(),
    })
}

/// Every contract label on a CRD: contract version -> API versions listed.
#[must_use]
pub fn contract_labels(labels: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    labels
        .iter()
        .filter_map(|(k, v)| {
            let contract = k.strip_prefix(CONTRACT_LABEL_PREFIX)?;
            // Only `cluster.x-k8s.io/v...` labels are contract labels (not e.g. `cluster.x-k8s.io/provider`).
            parse_kube_version(contract)?;
            Some((
                contract.to_owned(),
                label_versions(v).into_iter().map(str::to_owned).collect(),
            ))
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
/// let crd = serde_json::json!({"metadata": {"name": "foomachinepools.infrastructure.example.com",
///   "labels": {"cluster.x-k8s.io/v1beta2": "v1alpha1_v1"}}, "spec": {"group": "infrastructure.example.com"}});
/// assert_eq!(capi_contract::version::resolve_crd(&crd, "v1beta2").unwrap(),
///            ("v1beta2".to_owned(), "infrastructure.example.com/v1".to_owned()));
/// ```
pub fn resolve_crd(
    crd: &serde_json::Value,
    current: &str,
) -> Result<(String, String), ContractVersionError> {
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
    fn kube_aware_order() {
        let mut v = vec![
            "v10", "v1", "v11beta2", "v1beta2", "v1beta1", "v2alpha1", "v1alpha1", "foo", "bar",
            "v2",
        ];
        v.sort_by(|a, b| compare_kube_aware(a, b));
        assert_eq!(
            v,
            [
                "foo", "bar", "v1alpha1", "v2alpha1", "v1beta1", "v1beta2", "v11beta2", "v1", "v2",
                "v10"
            ]
        );
    }

    #[test]
    fn upstream_vectors() {
        let l = labels(&[("v1beta1", "v1alpha1_v1alpha2")]);
        assert_eq!(
            latest_contract_and_version("x", &l, "v1beta2").unwrap(),
            ("v1beta1".into(), "v1alpha2".into())
        );
        let l = labels(&[("v1beta2", "v1alpha3_v1alpha4")]);
        assert_eq!(
            latest_contract_and_version("x", &l, "v1beta2").unwrap(),
            ("v1beta2".into(), "v1alpha4".into())
        );
        let l = labels(&[("v1beta1", "v1alpha1"), ("v1beta2", "v1alpha4")]);
        assert_eq!(
            latest_contract_and_version("x", &l, "v1beta2").unwrap(),
            ("v1beta2".into(), "v1alpha4".into())
        );
        assert!(latest_contract_and_version("x", &BTreeMap::new(), "v1beta2").is_err());
        let l = labels(&[("v1beta2", "v1alpha4")]);
        assert!(
            latest_contract_and_version("x", &l, "v1beta1").is_err(),
            "a lone newer label is not compatible"
        );
        let l = labels(&[("v1beta2", "")]);
        assert!(
            latest_contract_and_version("x", &l, "v1beta2").is_err(),
            "empty label is skipped"
        );
    }

    #[test]
    fn overflowing_numbers_are_not_kube_like() {
        assert_eq!(
            compare_kube_aware("v99999999999999999999", "v1"),
            Ordering::Less
        );
    }
}
