//! GroupKind -> apiVersion lookup, needed when a v1beta2 reference (which has no version) is
//! written back as a v1beta1 `ObjectReference`.

use std::collections::BTreeMap;

use capi_contract::naming::crd_name;
use capi_contract::version::{CURRENT_CONTRACT, latest_contract_and_version};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::error::ResolveError;

/// Resolves the apiVersion (`group/version`, or `version` for the core group) to use for a
/// referenced GroupKind.
pub trait ApiVersionResolver {
    /// The apiVersion for `(group, kind)`.
    ///
    /// # Errors
    /// When the GroupKind is unknown or has no usable version.
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError>;
}

impl<T: ApiVersionResolver + ?Sized> ApiVersionResolver for &T {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        (**self).api_version(group, kind)
    }
}

fn join(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// A fixed GroupKind -> apiVersion map.
///
/// ```
/// use capi_machinepool_conversion::{ApiVersionResolver, StaticResolver};
/// let r = StaticResolver::new().with("infrastructure.cluster.x-k8s.io", "DockerMachinePool", "infrastructure.cluster.x-k8s.io/v1beta2");
/// assert_eq!(r.api_version("infrastructure.cluster.x-k8s.io", "DockerMachinePool").unwrap(), "infrastructure.cluster.x-k8s.io/v1beta2");
/// assert!(r.api_version("infrastructure.cluster.x-k8s.io", "Other").is_err());
/// ```
#[derive(Clone, Debug, Default)]
pub struct StaticResolver {
    entries: BTreeMap<(String, String), String>,
}

impl StaticResolver {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) an entry.
    #[must_use]
    pub fn with(mut self, group: &str, kind: &str, api_version: &str) -> Self {
        self.insert(group, kind, api_version);
        self
    }

    /// Adds (or replaces) an entry.
    pub fn insert(&mut self, group: &str, kind: &str, api_version: &str) {
        self.entries
            .insert((group.to_owned(), kind.to_owned()), api_version.to_owned());
    }
}

impl ApiVersionResolver for StaticResolver {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        self.entries
            .get(&(group.to_owned(), kind.to_owned()))
            .cloned()
            .ok_or_else(|| ResolveError::NotFound {
                group: group.to_owned(),
                kind: kind.to_owned(),
                crd_name: crd_name(group, kind),
            })
    }
}

/// Resolves from CRDs the way the Cluster API controllers do: the CRD is found by name
/// (`plural(lowercase(kind)).group`), the newest compatible contract label (`v1beta2`, then
/// `v1beta1`) is chosen and its highest version (Kubernetes-aware order) is used.
#[derive(Clone, Debug)]
pub struct CrdResolver {
    labels_by_crd: BTreeMap<String, BTreeMap<String, String>>,
    contract: String,
}

impl Default for CrdResolver {
    fn default() -> Self {
        Self {
            labels_by_crd: BTreeMap::new(),
            contract: CURRENT_CONTRACT.to_owned(),
        }
    }
}

impl CrdResolver {
    /// A resolver over the given CRDs, for the current contract (`v1beta2`).
    pub fn from_crds<'a>(crds: impl IntoIterator<Item = &'a CustomResourceDefinition>) -> Self {
        let mut resolver = Self::default();
        for crd in crds {
            resolver.add(
                crd.metadata.name.as_deref().unwrap_or_default(),
                crd.metadata.labels.clone().unwrap_or_default(),
            );
        }
        resolver
    }

    /// Adds a CRD by name and labels (what a metadata-only GET returns).
    pub fn add(&mut self, crd_name: &str, labels: BTreeMap<String, String>) {
        self.labels_by_crd.insert(crd_name.to_owned(), labels);
    }

    /// Adds a CRD given as JSON (its name and `cluster.x-k8s.io/<contract>` labels are used).
    pub fn add_crd_json(&mut self, crd: &serde_json::Value) {
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        self.add(name, capi_contract::version::crd_labels(crd));
    }

    /// Uses another current contract version than `v1beta2`.
    #[must_use]
    pub fn with_contract(mut self, contract: &str) -> Self {
        contract.clone_into(&mut self.contract);
        self
    }
}

impl ApiVersionResolver for CrdResolver {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        let name = crd_name(group, kind);
        let labels = self
            .labels_by_crd
            .get(&name)
            .ok_or_else(|| ResolveError::NotFound {
                group: group.to_owned(),
                kind: kind.to_owned(),
                crd_name: name.clone(),
            })?;
        let (_, version) =
            latest_contract_and_version(&name, labels, &self.contract).map_err(|source| {
                ResolveError::Contract {
                    group: group.to_owned(),
                    kind: kind.to_owned(),
                    source,
                }
            })?;
        Ok(join(group, &version))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crd_resolver_picks_latest_contract_version() {
        let mut r = CrdResolver::default().with_contract("v1beta2");
        r.add(
            "awsmachinepools.infrastructure.cluster.x-k8s.io",
            BTreeMap::from([(
                "cluster.x-k8s.io/v1beta1".to_owned(),
                "v1beta1_v1beta2".to_owned(),
            )]),
        );
        assert_eq!(
            r.api_version("infrastructure.cluster.x-k8s.io", "AWSMachinePool")
                .unwrap(),
            "infrastructure.cluster.x-k8s.io/v1beta2"
        );
        let err = r
            .api_version("infrastructure.cluster.x-k8s.io", "GCPMachinePool")
            .unwrap_err();
        assert!(err.to_string().contains("GCPMachinePool"), "{err}");
    }

    #[test]
    fn crd_without_labels_is_a_contract_error() {
        let mut r = CrdResolver::default().with_contract("v1beta2");
        r.add("foos.example.com", BTreeMap::new());
        assert!(matches!(
            r.api_version("example.com", "Foo"),
            Err(ResolveError::Contract { .. })
        ));
    }
}
