//! GroupKind -> apiVersion lookup, needed when a v1beta2 reference (which has no version) is
//! written back as a v1beta1 `ObjectReference`.
//!
//! * [`StaticResolver`]: a fixed map.
//! * [`CrdResolver`]: from provider CRDs' contract labels, as the Cluster API controllers do.
//! * [`ChainResolver`]: several resolvers, the first that knows the GroupKind answers.

use std::collections::BTreeMap;
use std::sync::Arc;

use capi_contract::Contract;
use capi_contract::labels::latest_contract_and_version;
use capi_contract::naming::crd_name;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::error::ResolveError;

/// Resolves the apiVersion (`group/version`, or `version` for the core group) to use for a
/// referenced GroupKind. `Send + Sync`, so that a converter holding one can be shared.
pub trait ApiVersionResolver: Send + Sync {
    /// The apiVersion for `(group, kind)`.
    ///
    /// # Errors
    /// When the GroupKind is unknown ([`ResolveError::NotFound`]) or has no usable version.
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError>;
}

impl<T: ApiVersionResolver + ?Sized> ApiVersionResolver for &T {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        (**self).api_version(group, kind)
    }
}

impl<T: ApiVersionResolver + ?Sized> ApiVersionResolver for Arc<T> {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        (**self).api_version(group, kind)
    }
}

impl<T: ApiVersionResolver + ?Sized> ApiVersionResolver for Box<T> {
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

fn not_found(group: &str, kind: &str) -> ResolveError {
    ResolveError::NotFound {
        group: group.to_owned(),
        kind: kind.to_owned(),
        crd_name: crd_name(group, kind),
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

    /// Adds an entry written `group/Kind=apiVersion` (the CLI's `--map` syntax).
    ///
    /// # Errors
    /// [`MapEntryError`] when the text is not of that form.
    ///
    /// ```
    /// use capi_machinepool_conversion::{ApiVersionResolver, MapEntryError, StaticResolver};
    /// let mut r = StaticResolver::new();
    /// r.insert_entry("infrastructure.cluster.x-k8s.io/DockerMachinePool=infrastructure.cluster.x-k8s.io/v1beta2").unwrap();
    /// let err = r.insert_entry("DockerMachinePool").unwrap_err();
    /// assert_eq!(err, MapEntryError { entry: "DockerMachinePool".into() });
    /// ```
    pub fn insert_entry(&mut self, entry: &str) -> Result<(), MapEntryError> {
        let (group, kind, api_version) = parse_entry(entry).ok_or_else(|| MapEntryError {
            entry: entry.to_owned(),
        })?;
        self.insert(group, kind, api_version);
        Ok(())
    }
}

/// `group/Kind=apiVersion` split into its parts; the kind and the apiVersion are not empty
/// (the group is, for the core group).
fn parse_entry(entry: &str) -> Option<(&str, &str, &str)> {
    let (group_kind, api_version) = entry.split_once('=')?;
    let (group, kind) = group_kind.rsplit_once('/')?;
    (!kind.is_empty() && !api_version.is_empty()).then_some((group, kind, api_version))
}

/// A [`StaticResolver::insert_entry`] text that is not `group/Kind=apiVersion`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{entry:?}: expected group/Kind=apiVersion, e.g. infrastructure.cluster.x-k8s.io/DockerMachinePool=infrastructure.cluster.x-k8s.io/v1beta2"
)]
pub struct MapEntryError {
    /// The text given.
    pub entry: String,
}

impl ApiVersionResolver for StaticResolver {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        self.entries
            .get(&(group.to_owned(), kind.to_owned()))
            .cloned()
            .ok_or_else(|| not_found(group, kind))
    }
}

/// Resolves from CRDs the way the Cluster API controllers do: the CRD is found by name
/// (`plural(lowercase(kind)).group`), the newest compatible contract label (`v1beta2`, then
/// `v1beta1`) is chosen and its highest version (Kubernetes-aware order) is used.
#[derive(Clone, Debug, Default)]
pub struct CrdResolver {
    labels_by_crd: BTreeMap<String, BTreeMap<String, String>>,
    contract: Contract,
}

impl CrdResolver {
    /// An empty resolver for the current contract (`v1beta2`).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A resolver over typed CRDs, for the current contract.
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

    /// A resolver over documents read from manifests: every `CustomResourceDefinition` among
    /// them is added, other documents are ignored.
    ///
    /// ```
    /// use capi_machinepool_conversion::{ApiVersionResolver, CrdResolver};
    /// let docs = [serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    ///   "metadata": {"name": "foomachinepools.infrastructure.example.com", "labels": {"cluster.x-k8s.io/v1beta2": "v1beta1"}}})];
    /// let r = CrdResolver::from_documents(&docs);
    /// assert_eq!(r.api_version("infrastructure.example.com", "FooMachinePool").unwrap(), "infrastructure.example.com/v1beta1");
    /// ```
    pub fn from_documents<'a>(documents: impl IntoIterator<Item = &'a serde_json::Value>) -> Self {
        let mut resolver = Self::default();
        for doc in documents {
            if doc["kind"] == "CustomResourceDefinition" {
                resolver.add_crd_json(doc);
            }
        }
        resolver
    }

    /// Adds a CRD by name and labels (what a metadata-only GET returns).
    pub fn add(&mut self, crd_name: &str, labels: BTreeMap<String, String>) {
        self.labels_by_crd.insert(crd_name.to_owned(), labels);
    }

    /// Forgets a CRD (deleted from the cluster); true when it was known.
    pub fn remove(&mut self, crd_name: &str) -> bool {
        self.labels_by_crd.remove(crd_name).is_some()
    }

    /// Adds a CRD given as JSON (its name and `cluster.x-k8s.io/<contract>` labels are used).
    pub fn add_crd_json(&mut self, crd: &serde_json::Value) {
        let name = crd["metadata"]["name"].as_str().unwrap_or_default();
        self.add(name, capi_contract::labels::crd_labels(crd));
    }

    /// Uses another current contract than `v1beta2`.
    #[must_use]
    pub fn with_contract(mut self, contract: Contract) -> Self {
        self.contract = contract;
        self
    }

    /// Number of CRDs known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.labels_by_crd.len()
    }

    /// True when no CRD is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.labels_by_crd.is_empty()
    }
}

impl ApiVersionResolver for CrdResolver {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        let labels = self
            .labels_by_crd
            .get(&crd_name(group, kind))
            .ok_or_else(|| not_found(group, kind))?;
        api_version_from_crd_labels(group, kind, labels, self.contract)
    }
}

/// The apiVersion of `(group, kind)` read from the labels of its CRD (the one named
/// [`crd_name`]`(group, kind)`), as [`CrdResolver`] reads them: the newest compatible
/// contract label of `contract`, its highest version. For a resolver over another source of
/// CRDs (a watch cache, a client): find the CRD by name, then call this.
///
/// ```
/// use std::collections::BTreeMap;
/// use capi_contract::Contract;
/// use capi_machinepool_conversion::api_version_from_crd_labels;
/// let labels = BTreeMap::from([("cluster.x-k8s.io/v1beta2".to_owned(), "v1alpha1_v1beta1".to_owned())]);
/// let v = api_version_from_crd_labels("infrastructure.example.com", "FooMachinePool", &labels, Contract::default());
/// assert_eq!(v.unwrap(), "infrastructure.example.com/v1beta1");
/// ```
///
/// # Errors
/// [`ResolveError::Contract`] when no label of a compatible contract names a usable version.
pub fn api_version_from_crd_labels(
    group: &str,
    kind: &str,
    labels: &BTreeMap<String, String>,
    contract: Contract,
) -> Result<String, ResolveError> {
    let (_, version) = latest_contract_and_version(&crd_name(group, kind), labels, contract)
        .map_err(|source| ResolveError::Contract {
            group: group.to_owned(),
            kind: kind.to_owned(),
            source,
        })?;
    Ok(join(group, &version))
}

/// Several resolvers asked in order: the first that knows the GroupKind answers (its answer,
/// or its error when the GroupKind is known but unusable); [`ResolveError::NotFound`] falls
/// through to the next.
///
/// ```
/// use capi_machinepool_conversion::{ApiVersionResolver, ChainResolver, CrdResolver, StaticResolver};
/// let chain = ChainResolver::new()
///     .with(StaticResolver::new().with("example.com", "Foo", "example.com/v2"))
///     .with(CrdResolver::new());
/// assert_eq!(chain.api_version("example.com", "Foo").unwrap(), "example.com/v2");
/// assert!(chain.api_version("example.com", "Bar").is_err());
/// ```
#[derive(Clone, Default)]
pub struct ChainResolver {
    resolvers: Vec<Arc<dyn ApiVersionResolver>>,
}

impl std::fmt::Debug for ChainResolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChainResolver")
            .field("resolvers", &self.resolvers.len())
            .finish()
    }
}

impl ChainResolver {
    /// An empty chain (resolves nothing).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a resolver.
    #[must_use]
    pub fn with(mut self, resolver: impl ApiVersionResolver + 'static) -> Self {
        self.resolvers.push(Arc::new(resolver));
        self
    }
}

impl ApiVersionResolver for ChainResolver {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        for resolver in &self.resolvers {
            match resolver.api_version(group, kind) {
                Err(ResolveError::NotFound { .. }) => {}
                answer => return answer,
            }
        }
        Err(not_found(group, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_entries_need_a_group_kind_and_an_api_version() {
        for bad in ["DockerMachinePool", "g/Kind", "g/=v1", "g/Kind=", "Kind=v1"] {
            let err = StaticResolver::new().insert_entry(bad).unwrap_err();
            assert_eq!(err.entry, bad);
            assert!(
                err.to_string()
                    .starts_with(&format!("{bad:?}: expected group/Kind=apiVersion"))
            );
        }
        let mut r = StaticResolver::new();
        r.insert_entry("/Secret=v1").unwrap();
        assert_eq!(r.api_version("", "Secret").unwrap(), "v1");
    }

    #[test]
    fn crd_resolver_picks_latest_contract_version() {
        let mut r = CrdResolver::default().with_contract(Contract::V1Beta2);
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
        let mut r = CrdResolver::default().with_contract(Contract::V1Beta2);
        r.add("foos.example.com", BTreeMap::new());
        assert!(matches!(
            r.api_version("example.com", "Foo"),
            Err(ResolveError::Contract { .. })
        ));
    }

    #[test]
    fn chain_stops_at_a_known_but_unusable_kind() {
        let mut crds = CrdResolver::new();
        crds.add("foos.example.com", BTreeMap::new());
        let chain = ChainResolver::new()
            .with(crds)
            .with(StaticResolver::new().with("example.com", "Foo", "example.com/v1"));
        assert!(matches!(
            chain.api_version("example.com", "Foo"),
            Err(ResolveError::Contract { .. })
        ));
    }
}
