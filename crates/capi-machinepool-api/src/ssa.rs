//! Server-side apply bodies that own only the fields a controller sets: [`apply`] for any
//! kube `Resource` (spec, status, labels, annotations), [`status_apply`] for the status
//! subresource.
//!
//! A server-side apply body makes the field manager own every field it contains. A whole
//! typed object as an apply body claims its spec and every zero value it prints, and fights
//! other managers over them. The bodies here hold the kind's TypeMeta, the name (and
//! namespace) and what they are given, nothing else. Give them types that print only what is
//! set (`Option`s, `skip_serializing_if`), or a `serde_json::Value` holding just the fields:
//! v1beta1 MachinePool status prints zeros Go always prints (`replicas`, `bootstrapReady`,
//! ...), so apply with v1beta2.
//!
//! Field-manager conventions (Kubernetes "Server-Side Apply",
//! <https://kubernetes.io/docs/reference/using-api/server-side-apply/>):
//!
//! * One field manager name per controller, the same on every request
//!   (`PatchParams::apply("foo-controller")`): the manager owns what its last body held, and
//!   a field it applied before and leaves out of the next body is removed (unless another
//!   manager owns it too). Always send every field the controller owns.
//! * Spec (and metadata) and status are separate requests: `Api::patch` applies the main
//!   resource and ignores `status`; `Api::patch_status` applies the status subresource and
//!   ignores everything else. Build one body for each.
//! * `.force()` takes fields over from other managers: right for a controller whose fields
//!   no one else should set (its status), a conflict to report otherwise.
//!
//! With kube-rs (`kube` with its client, which this crate does not depend on):
//!
//! ```text
//! let body = status_apply::<FooMachinePool, _>("workers", Some("default"), &status);
//! let api: kube::Api<FooMachinePool> = kube::Api::namespaced(client, "default");
//! api.patch_status("workers", &PatchParams::apply("my-controller").force(), &Patch::Apply(&body)).await?;
//! let spec = apply::<FooMachinePool>("workers", Some("default"))
//!     .spec(serde_json::json!({"providerIDList": ids}));
//! api.patch("workers", &PatchParams::apply("my-controller"), &Patch::Apply(&spec)).await?;
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

use std::collections::BTreeMap;
use std::marker::PhantomData;

use kube_core::Resource;
use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::v1beta2::{MachinePool, MachinePoolStatus};

/// A server-side apply body for the status subresource of a `K`: `apiVersion`, `kind`,
/// `metadata.name`, `metadata.namespace` (when given) and `status`, in that order: the
/// generic [`Apply`] body with a status only. Built by [`status_apply`].
pub type StatusApply<K, S> = Apply<K, Unset, S>;

/// The status apply body of the `K` named `name` (in `namespace`, `None` for a cluster-scoped
/// kind) holding `status`: `apply(name, namespace).status(status)`.
#[must_use]
pub fn status_apply<K: Resource<DynamicType = ()>, S: Serialize>(
    name: &str,
    namespace: Option<&str>,
    status: S,
) -> StatusApply<K, S> {
    apply(name, namespace).status(status)
}

/// What [`Apply`] leaves out: no spec, or no status (never printed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Unset;

/// A server-side apply body for a `K`: `apiVersion`, `kind`, `metadata` (name, namespace
/// when given, labels and annotations when some were added), then `spec` and `status` when
/// set, in that order. Built by [`apply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apply<K, Spec = Unset, Status = Unset> {
    name: String,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
    spec: Option<Spec>,
    status: Option<Status>,
    kind: PhantomData<fn() -> K>,
}

/// The apply body of the `K` named `name` (in `namespace`, `None` for a cluster-scoped kind)
/// holding nothing yet: add a spec, a status, labels and annotations.
///
/// ```
/// use capi_machinepool_api::ssa::apply;
/// use capi_machinepool_api::v1beta2::MachinePool;
/// let body = apply::<MachinePool>("workers", Some("default"))
///     .label("team", "infra")
///     .spec(serde_json::json!({"providerIDList": ["aws:///a"]}));
/// assert_eq!(serde_json::to_string(&body).unwrap(),
///     r#"{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"workers","namespace":"default","labels":{"team":"infra"}},"spec":{"providerIDList":["aws:///a"]}}"#);
/// ```
#[must_use]
pub fn apply<K: Resource<DynamicType = ()>>(name: &str, namespace: Option<&str>) -> Apply<K> {
    Apply {
        name: name.to_owned(),
        namespace: namespace.map(str::to_owned),
        labels: BTreeMap::new(),
        annotations: BTreeMap::new(),
        spec: None,
        status: None,
        kind: PhantomData,
    }
}

impl<K, Spec, Status> Apply<K, Spec, Status> {
    /// The body with `spec` (the fields the manager owns in the main resource).
    #[must_use]
    pub fn spec<S>(self, spec: S) -> Apply<K, S, Status> {
        Apply {
            name: self.name,
            namespace: self.namespace,
            labels: self.labels,
            annotations: self.annotations,
            spec: Some(spec),
            status: self.status,
            kind: PhantomData,
        }
    }

    /// The body with `status` (for the status subresource).
    #[must_use]
    pub fn status<S>(self, status: S) -> Apply<K, Spec, S> {
        Apply {
            name: self.name,
            namespace: self.namespace,
            labels: self.labels,
            annotations: self.annotations,
            spec: self.spec,
            status: Some(status),
            kind: PhantomData,
        }
    }

    /// The body with the label `key: value` (owned by the manager).
    #[must_use]
    pub fn label(mut self, key: &str, value: &str) -> Self {
        self.labels.insert(key.to_owned(), value.to_owned());
        self
    }

    /// The body with the annotation `key: value` (owned by the manager).
    #[must_use]
    pub fn annotation(mut self, key: &str, value: &str) -> Self {
        self.annotations.insert(key.to_owned(), value.to_owned());
        self
    }

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

    /// The spec applied, if any.
    #[must_use]
    pub fn spec_ref(&self) -> Option<&Spec> {
        self.spec.as_ref()
    }

    /// The status applied, if any.
    #[must_use]
    pub fn status_ref(&self) -> Option<&Status> {
        self.status.as_ref()
    }
}

/// The metadata of an [`Apply`] body.
#[derive(Serialize)]
struct ApplyMeta<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    labels: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    annotations: &'a BTreeMap<String, String>,
}

impl<K: Resource<DynamicType = ()>, Spec: Serialize, Status: Serialize> Serialize
    for Apply<K, Spec, Status>
{
    fn serialize<Ser: serde::Serializer>(&self, serializer: Ser) -> Result<Ser::Ok, Ser::Error> {
        let mut body = serializer.serialize_struct("Apply", 5)?;
        body.serialize_field("apiVersion", &K::api_version(&()))?;
        body.serialize_field("kind", &K::kind(&()))?;
        body.serialize_field(
            "metadata",
            &ApplyMeta {
                name: &self.name,
                namespace: self.namespace.as_deref(),
                labels: &self.labels,
                annotations: &self.annotations,
            },
        )?;
        if let Some(spec) = &self.spec {
            body.serialize_field("spec", spec)?;
        } else {
            body.skip_field("spec")?;
        }
        if let Some(status) = &self.status {
            body.serialize_field("status", status)?;
        } else {
            body.skip_field("status")?;
        }
        body.end()
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

    /// The generic body holds exactly what it was given: TypeMeta, name, namespace, the
    /// labels and annotations added, spec and status; nothing else of the kind's fields.
    #[test]
    fn generic_body_holds_only_what_it_was_given() {
        let empty = apply::<MachinePool>("p", None);
        assert_eq!(
            serde_json::to_string(&empty).unwrap(),
            r#"{"apiVersion":"cluster.x-k8s.io/v1beta2","kind":"MachinePool","metadata":{"name":"p"}}"#
        );
        let status = MachinePoolStatus {
            replicas: Some(2),
            ..Default::default()
        };
        let body = apply::<MachinePool>("p", Some("ns"))
            .annotation("a", "1")
            .label("l", "2")
            .spec(serde_json::json!({"replicas": 2}))
            .status(status.clone());
        assert_eq!(
            serde_json::to_value(&body).unwrap(),
            serde_json::json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
                "metadata": {"name": "p", "namespace": "ns", "labels": {"l": "2"}, "annotations": {"a": "1"}},
                "spec": {"replicas": 2}, "status": {"replicas": 2}})
        );
        assert_eq!(body.status_ref(), Some(&status));
        // The status body of `status_apply` is the generic body with a status only.
        let generic = apply::<MachinePool>("p", Some("ns")).status(status.clone());
        assert_eq!(
            serde_json::to_string(&generic).unwrap(),
            serde_json::to_string(&status_apply::<MachinePool, _>("p", Some("ns"), status))
                .unwrap()
        );
    }
}
