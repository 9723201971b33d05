//! Server-side apply bodies for the status subresource, owning only the fields a controller
//! sets.
//!
//! A server-side apply body makes the field manager own every field it contains. A whole
//! typed object as an apply body claims its spec and every zero value it prints, and fights
//! other managers over them. [`status_apply`] builds the body a status controller needs for
//! any kind: the kind's TypeMeta, the name (and namespace), and the status it is given,
//! nothing else. Give it a status type that prints only what is set (`Option`s,
//! `skip_serializing_if`), as the MachinePool v1beta2 status and kube-derive status structs
//! with those attributes do: v1beta1 MachinePool status prints zeros Go always prints
//! (`replicas`, `bootstrapReady`, ...), so apply with v1beta2.
//!
//! With kube-rs (`kube` with its client, which this crate does not depend on):
//!
//! ```text
//! let body = status_apply::<FooMachinePool, _>("workers", Some("default"), &status);
//! let api: kube::Api<FooMachinePool> = kube::Api::namespaced(client, "default");
//! api.patch_status("workers", &PatchParams::apply("my-controller").force(), &Patch::Apply(&body)).await?;
//! ```
//!
//! ```
//! use capi_machinepool_api::{ssa::status_apply, v1beta2::{MachinePool, MachinePoolStatus}};
//! let status = MachinePoolStatus { replicas: Some(0), ..Default::default() };
//! let body = status_apply::<MachinePool, _>("workers", Some("default"), &status);
//! assert_eq!(serde_json::to_value(&body).unwrap(), serde_json::json!({
//!     "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
//!     "metadata": {"name": "workers", "namespace": "default"},
//!     "status": {"replicas": 0}}));
//! ```

use std::marker::PhantomData;

use kube_core::Resource;
use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::v1beta2::{MachinePool, MachinePoolStatus};

/// A server-side apply body for the status subresource of a `K`: `apiVersion`, `kind`,
/// `metadata.name`, `metadata.namespace` (when given) and `status`, in that order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusApply<K, S> {
    name: String,
    namespace: Option<String>,
    status: S,
    kind: PhantomData<fn() -> K>,
}

impl<K, S> StatusApply<K, S> {
    /// The object's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The object's namespace (`None` for a cluster-scoped kind).
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The status applied.
    #[must_use]
    pub fn status(&self) -> &S {
        &self.status
    }
}

/// The metadata of an apply body: name and namespace only.
#[derive(Serialize)]
struct NameOnly<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
}

impl<K: Resource<DynamicType = ()>, S: Serialize> Serialize for StatusApply<K, S> {
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut body = serializer.serialize_struct("StatusApply", 4)?;
        body.serialize_field("apiVersion", &K::api_version(&()))?;
        body.serialize_field("kind", &K::kind(&()))?;
        body.serialize_field(
            "metadata",
            &NameOnly {
                name: &self.name,
                namespace: self.namespace.as_deref(),
            },
        )?;
        body.serialize_field("status", &self.status)?;
        body.end()
    }
}

/// The status apply body of the `K` named `name` (in `namespace`, `None` for a cluster-scoped
/// kind) holding `status`.
#[must_use]
pub fn status_apply<K: Resource<DynamicType = ()>, S: Serialize>(
    name: &str,
    namespace: Option<&str>,
    status: S,
) -> StatusApply<K, S> {
    StatusApply {
        name: name.to_owned(),
        namespace: namespace.map(str::to_owned),
        status,
        kind: PhantomData,
    }
}

/// [`status_apply`] of a v1beta2 MachinePool.
///
/// ```
/// use capi_machinepool_api::{ssa::machine_pool_status_apply, v1beta2::MachinePoolStatus};
/// let body = machine_pool_status_apply("workers", "default", MachinePoolStatus { replicas: Some(0), ..Default::default() });
/// assert_eq!(serde_json::to_string(&body).unwrap(),
///     r#"{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"workers","namespace":"default"},"status":{"replicas":0}}"#);
/// ```
#[must_use]
pub fn machine_pool_status_apply(
    name: &str,
    namespace: &str,
    status: MachinePoolStatus,
) -> StatusApply<MachinePool, MachinePoolStatus> {
    status_apply(name, Some(namespace), status)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The body of a cluster-scoped kind has no namespace; an empty status is `{}` (the
    /// manager then owns no status field).
    #[test]
    fn cluster_scoped_and_empty() {
        let body = status_apply::<MachinePool, _>("p", None, MachinePoolStatus::default());
        assert_eq!(
            serde_json::to_string(&body).unwrap(),
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"p"},"status":{}}"#
        );
        assert_eq!((body.name(), body.namespace()), ("p", None));
    }
}
