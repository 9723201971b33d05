//! What an update of a MachinePool will do to its instances: the fields that roll instances
//! out, and the edit that looks like a rollout but is not one.
//!
//! * A new `spec.template.spec.version` rolls out instances at the new version (the
//!   infrastructure provider replaces them).
//! * Bootstrap data reaches instances only through a *new* bootstrap config: providers roll
//!   out when `spec.template.spec.bootstrap.configRef` names another config
//!   (cluster-api#10496). An in-place edit of the referenced config (same name, new spec)
//!   never reaches running instances (cluster-api#8858): a warning.
//! * Another `infrastructureRef`, or an edited InfraMachinePool, is the provider's to roll
//!   out: said, not judged.

use std::collections::BTreeMap;
use std::fmt;

use capi_diagnostics::{Excerpt, Severity};
use capi_machinepool_api::v1beta2::{self, ContractVersionedObjectReference};
use serde_json::Value;

use crate::document::{group_of, str_at, string_at};

/// `(group, kind, namespace, name)` of a referenced object.
type ObjectKey = (String, String, String, String);

/// The groups whose objects a MachinePool references (bootstrap configs, InfraMachinePools).
const REFERENCED_GROUPS: [&str; 2] = [
    "bootstrap.cluster.x-k8s.io",
    "infrastructure.cluster.x-k8s.io",
];

/// The `spec` of a referenced object as compared: a `KubeadmConfig` at v1beta2 content
/// ([`crate::kubeadm_config::spec_at_v1beta2`]: the stored object comes back at v1beta2, the
/// manifest may be v1beta1), other kinds as written.
fn comparable_spec(group: &str, doc: &Value) -> Value {
    let spec = doc.get("spec").cloned().unwrap_or(Value::Null);
    if group == REFERENCED_GROUPS[0] && str_at(doc, "/kind") == Some("KubeadmConfig") {
        crate::kubeadm_config::spec_at_v1beta2(
            str_at(doc, "/apiVersion").unwrap_or_default(),
            &spec,
        )
    } else {
        spec
    }
}

/// The `spec` of each bootstrap config and infrastructure object of a stream, to tell an
/// in-place edit from no change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReferencedObjects {
    specs: BTreeMap<ObjectKey, Value>,
}

impl ReferencedObjects {
    /// Keeps the `spec` of a `bootstrap.cluster.x-k8s.io` or
    /// `infrastructure.cluster.x-k8s.io` document; returns whether it did.
    pub fn add(&mut self, doc: &Value) -> bool {
        let group = group_of(str_at(doc, "/apiVersion").unwrap_or_default());
        if !REFERENCED_GROUPS.contains(&group) {
            return false;
        }
        self.specs.insert(
            (
                group.to_owned(),
                string_at(doc, "/kind"),
                string_at(doc, "/metadata/namespace"),
                string_at(doc, "/metadata/name"),
            ),
            comparable_spec(group, doc),
        );
        true
    }

    fn spec(&self, namespace: &str, r: &ContractVersionedObjectReference) -> Option<&Value> {
        self.specs.get(&(
            r.api_group.clone(),
            r.kind.clone(),
            namespace.to_owned(),
            r.name.clone(),
        ))
    }
}

/// What kind of change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// `spec.template.spec.version` changed: instances are rolled out.
    Version,
    /// `bootstrap.configRef` names another config: instances are rolled out with its data.
    BootstrapConfigRenamed,
    /// The referenced bootstrap config kept its name but its spec changed: running instances
    /// keep their old bootstrap data (cluster-api#8858).
    BootstrapConfigEditedInPlace,
    /// `bootstrap.dataSecretName` changed (pools without a config).
    BootstrapDataSecret,
    /// `infrastructureRef` names another object.
    InfrastructureRef,
    /// The InfraMachinePool kept its name but its spec changed.
    InfrastructureEditedInPlace,
}

impl ChangeKind {
    /// A short stable name.
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Self::Version => "version",
            Self::BootstrapConfigRenamed => "bootstrap-config-renamed",
            Self::BootstrapConfigEditedInPlace => "bootstrap-config-edited-in-place",
            Self::BootstrapDataSecret => "bootstrap-data-secret",
            Self::InfrastructureRef => "infrastructure-ref",
            Self::InfrastructureEditedInPlace => "infrastructure-edited-in-place",
        }
    }
}

/// One change between the stored and the new MachinePool, and what it will do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolChange {
    /// What changed.
    pub kind: ChangeKind,
    /// `Some(Warning)` when the change will not do what it looks like it does; `None` for a
    /// change that does what it says.
    pub severity: Option<Severity>,
    /// The field (or object) that changed.
    pub field: String,
    /// Old and new values, and what the change does to instances.
    pub message: String,
}

impl fmt::Display for PoolChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.kind.id(), self.field, self.message)
    }
}

fn reference(r: &ContractVersionedObjectReference) -> String {
    if r.is_defined() {
        format!("{} {}", Excerpt::new(&r.kind), Excerpt::new(&r.name))
    } else {
        "(none)".to_owned()
    }
}

fn note(kind: ChangeKind, field: &str, message: String) -> PoolChange {
    PoolChange {
        kind,
        severity: None,
        field: field.to_owned(),
        message,
    }
}

/// The two sides of an update.
struct Update<'a> {
    old: &'a v1beta2::MachinePool,
    new: &'a v1beta2::MachinePool,
    old_objects: &'a ReferencedObjects,
    new_objects: &'a ReferencedObjects,
}

impl Update<'_> {
    fn namespace(&self) -> &str {
        self.new.metadata.namespace.as_deref().unwrap_or_default()
    }

    /// True when both sides hold the referenced object and its `spec` differs.
    fn edited(&self, r: &ContractVersionedObjectReference) -> bool {
        let ns = self.namespace();
        matches!(
            (self.old_objects.spec(ns, r), self.new_objects.spec(ns, r)),
            (Some(before), Some(after)) if before != after
        )
    }

    fn version(&self) -> Option<PoolChange> {
        let (a, b) = (
            &self.old.spec.template.spec.version,
            &self.new.spec.template.spec.version,
        );
        (a != b).then(|| {
            note(
                ChangeKind::Version,
                "spec.template.spec.version",
                format!(
                    "{} -> {}: the infrastructure provider rolls out instances at the new version",
                    Excerpt::new(a),
                    Excerpt::new(b)
                ),
            )
        })
    }

    fn bootstrap(&self) -> Option<PoolChange> {
        let (a, b) = (
            &self.old.spec.template.spec.bootstrap,
            &self.new.spec.template.spec.bootstrap,
        );
        if a.config_ref != b.config_ref {
            return Some(note(
                ChangeKind::BootstrapConfigRenamed,
                "spec.template.spec.bootstrap.configRef",
                format!(
                    "{} -> {}: a new bootstrap config; providers roll out instances with its data (cluster-api#10496)",
                    reference(&a.config_ref),
                    reference(&b.config_ref)
                ),
            ));
        }
        if b.config_ref.is_defined() && self.edited(&b.config_ref) {
            return Some(PoolChange {
                kind: ChangeKind::BootstrapConfigEditedInPlace,
                severity: Some(Severity::Warning),
                field: format!("{} spec", reference(&b.config_ref)),
                message: "edited in place under the same name: running instances keep their old bootstrap data and no rollout starts (cluster-api#8858); create a config with a new name and point spec.template.spec.bootstrap.configRef at it".to_owned(),
            });
        }
        (a.data_secret_name != b.data_secret_name && !b.config_ref.is_defined()).then(|| {
            note(
                ChangeKind::BootstrapDataSecret,
                "spec.template.spec.bootstrap.dataSecretName",
                format!(
                    "{} -> {}: instances created from now on use the new data; whether running ones are replaced is the infrastructure provider's choice",
                    Excerpt::new(a.data_secret_name.as_deref().unwrap_or("(none)")),
                    Excerpt::new(b.data_secret_name.as_deref().unwrap_or("(none)"))
                ),
            )
        })
    }

    fn infrastructure(&self) -> Option<PoolChange> {
        let (a, b) = (
            &self.old.spec.template.spec.infrastructure_ref,
            &self.new.spec.template.spec.infrastructure_ref,
        );
        if a != b {
            return Some(note(
                ChangeKind::InfrastructureRef,
                "spec.template.spec.infrastructureRef",
                format!(
                    "{} -> {}: the pool's instances are managed by another InfraMachinePool",
                    reference(a),
                    reference(b)
                ),
            ));
        }
        self.edited(b).then(|| {
            note(
                ChangeKind::InfrastructureEditedInPlace,
                &format!("{} spec", reference(b)),
                "edited: whether running instances are replaced is the infrastructure provider's choice".to_owned(),
            )
        })
    }
}

/// Compares the stored pool `old` with its update `new` (both admitted v1beta2 objects);
/// `old_objects` and `new_objects` hold the bootstrap configs and InfraMachinePools of each
/// side, when known. Returns every change that affects instances, in field order.
///
/// ```
/// use capi_machinepool_rollout::change::{ChangeKind, ReferencedObjects, compare};
/// use capi_machinepool_api::v1beta2::MachinePool;
/// let pool = |version: &str, config: &str| -> MachinePool {
///     serde_json::from_value(serde_json::json!({"metadata": {"name": "mp", "namespace": "ns"},
///         "spec": {"clusterName": "c", "template": {"spec": {"clusterName": "c", "version": version,
///         "bootstrap": {"configRef": {"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfig", "name": config}}}}}}))
///     .unwrap()
/// };
/// let none = ReferencedObjects::default();
/// let changes = compare(&pool("v1.34.0", "a"), &pool("v1.35.0", "b"), &none, &none);
/// let kinds: Vec<_> = changes.iter().map(|c| c.kind).collect();
/// assert_eq!(kinds, [ChangeKind::Version, ChangeKind::BootstrapConfigRenamed]);
/// ```
#[must_use]
pub fn compare(
    old: &v1beta2::MachinePool,
    new: &v1beta2::MachinePool,
    old_objects: &ReferencedObjects,
    new_objects: &ReferencedObjects,
) -> Vec<PoolChange> {
    let update = Update {
        old,
        new,
        old_objects,
        new_objects,
    };
    [
        update.version(),
        update.bootstrap(),
        update.infrastructure(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn pool(template: Value) -> v1beta2::MachinePool {
        serde_json::from_value(json!({"metadata": {"name": "mp", "namespace": "ns"},
            "spec": {"clusterName": "c", "template": {"spec": template}}}))
        .unwrap()
    }

    fn objects(docs: &[Value]) -> ReferencedObjects {
        let mut out = ReferencedObjects::default();
        for d in docs {
            out.add(d);
        }
        out
    }

    fn infra(spec: Value) -> Value {
        json!({"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "DockerMachinePool",
            "metadata": {"name": "d", "namespace": "ns"}, "spec": spec})
    }

    #[test]
    fn no_change_is_silent() {
        let p = pool(json!({"version": "v1.34.0", "bootstrap": {"dataSecretName": "s"}}));
        let o = objects(&[infra(json!({"a": 1}))]);
        assert!(compare(&p, &p, &o, &o).is_empty());
    }

    #[test]
    fn data_secret_and_infrastructure_changes_are_notes() {
        let ref_to = |name: &str| json!({"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DockerMachinePool", "name": name});
        let old =
            pool(json!({"bootstrap": {"dataSecretName": "a"}, "infrastructureRef": ref_to("d")}));
        let new =
            pool(json!({"bootstrap": {"dataSecretName": "b"}, "infrastructureRef": ref_to("e")}));
        let none = ReferencedObjects::default();
        let changes = compare(&old, &new, &none, &none);
        let kinds: Vec<_> = changes.iter().map(|c| (c.kind, c.severity)).collect();
        assert_eq!(
            kinds,
            [
                (ChangeKind::BootstrapDataSecret, None),
                (ChangeKind::InfrastructureRef, None)
            ]
        );
        let edited = compare(
            &old,
            &old,
            &objects(&[infra(json!({"a": 1}))]),
            &objects(&[infra(json!({"a": 2}))]),
        );
        assert_eq!(edited.len(), 1);
        assert_eq!(edited[0].kind, ChangeKind::InfrastructureEditedInPlace);
        assert_eq!(
            edited[0].to_string(),
            "infrastructure-edited-in-place: DockerMachinePool d spec: edited: whether running instances are replaced is the infrastructure provider's choice"
        );
    }

    #[test]
    fn only_referenced_groups_are_kept() {
        let mut o = ReferencedObjects::default();
        assert!(!o.add(&json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}})));
        assert!(o.add(&infra(json!({}))));
    }
}
