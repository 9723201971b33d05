//! What the checker remembers of the objects given with `--objects`, for the rules that
//! judge them as a set: InfraMachinePools and their InfraMachines (MachinePool Machines),
//! ClusterClasses and Clusters with a topology. Only the fields those rules read are kept, so
//! memory stays small on long streams of other objects.

use std::collections::BTreeMap;
use std::sync::Arc;

use capi_contract::Contract;
use capi_contract::fields::Field;
use capi_contract::reader::{InfraMachinePoolReader, ReadError};
use capi_machinepool_api::constants::{CLUSTER_NAME_LABEL, MACHINE_POOL_NAME_LABEL};
use capi_machinepool_api::views::{ClusterSpec, owner_machine_pool};
use capi_versions::GroupVersion;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde_json::Value;

use crate::input::CORE_GROUP;
use crate::report::{SourceRef, Subject, Target};

/// The namespace kubectl creates a namespace-less namespaced object in.
pub(crate) const DEFAULT_NAMESPACE: &str = "default";

/// Identity and metadata of an object.
#[derive(Debug)]
pub(crate) struct Meta {
    pub(crate) subject: Arc<Subject>,
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) namespace: String,
    pub(crate) name: String,
    pub(crate) labels: BTreeMap<String, String>,
    pub(crate) owners: Vec<OwnerReference>,
}

impl Meta {
    /// The same, its subject knowing where each value of the object is written (findings then
    /// point at their field's line; `None` leaves them at the document).
    pub(crate) fn located(mut self, positions: Option<Arc<capi_manifests::Positions>>) -> Self {
        if positions.is_some() {
            let subject = Subject::clone(&self.subject).with_positions(positions);
            self.subject = Arc::new(subject);
        }
        self
    }

    /// Name and namespace as written (the subject the object rules report on too); labels
    /// and owner references parsed each on its own, malformed ones read as empty (the object
    /// rules report what is wrong).
    pub(crate) fn of(object: &Value, source: Option<SourceRef>) -> Self {
        let meta = &object["metadata"];
        let text = |v: &Value| v.as_str().map(str::to_owned);
        let kind = text(&object["kind"]).unwrap_or_default();
        let name = text(&meta["name"]).unwrap_or_else(|| "<no name>".to_owned());
        let namespace = text(&meta["namespace"]);
        let subject = Arc::new(Subject::new(
            Target::Object {
                kind: kind.clone(),
                namespace: namespace.clone(),
                name: name.clone(),
            },
            source,
        ));
        Self {
            subject,
            api_version: text(&object["apiVersion"]).unwrap_or_default(),
            kind,
            // A namespace-less object (a quick-start ClusterClass as shipped) is created in
            // `default` by `kubectl apply` without `-n`: kubectl's default namespace.
            namespace: namespace
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| DEFAULT_NAMESPACE.to_owned()),
            name,
            labels: serde_json::from_value(meta["labels"].clone()).unwrap_or_default(),
            owners: serde_json::from_value(meta["ownerReferences"].clone()).unwrap_or_default(),
        }
    }

    /// The API group of the object.
    pub(crate) fn group(&self) -> &str {
        GroupVersion::split(&self.api_version).group
    }

    /// The API version (without the group).
    pub(crate) fn version(&self) -> &str {
        GroupVersion::split(&self.api_version).version
    }

    /// True when an owner reference names `kind` `name` in `group`.
    pub(crate) fn owned_by(&self, group: &str, kind: &str, name: &str) -> bool {
        self.owners.iter().any(|o| {
            o.kind == kind && o.name == name && GroupVersion::split(&o.api_version).group == group
        })
    }

    fn core_object_meta(&self) -> ObjectMeta {
        ObjectMeta {
            owner_references: Some(self.owners.clone()),
            ..ObjectMeta::default()
        }
    }
}

/// An InfraMachinePool object.
#[derive(Debug)]
pub(crate) struct PoolObject {
    pub(crate) meta: Meta,
    pub(crate) contract: Contract,
    pub(crate) provider_ids: Vec<String>,
    /// `status.infrastructureMachineKind` as the runtime reader reads it.
    pub(crate) machine_kind: Result<String, ReadError>,
    /// The MachinePool owning it (core sets this controller reference in `reconcileExternal`).
    pub(crate) machine_pool: Option<String>,
    /// Its `cluster.x-k8s.io/cluster-name` label (also set by `reconcileExternal`).
    pub(crate) cluster: Option<String>,
}

impl PoolObject {
    pub(crate) fn of(object: &Value, meta: Meta, contract: Contract) -> Self {
        let reader = InfraMachinePoolReader::new(object, contract);
        let machine_pool = owner_machine_pool(&meta.core_object_meta()).map(|o| o.name.clone());
        let cluster = meta.labels.get(CLUSTER_NAME_LABEL).cloned();
        Self {
            contract,
            provider_ids: reader.provider_id_list().unwrap_or_default(),
            machine_kind: reader.infrastructure_machine_kind(),
            machine_pool,
            cluster,
            meta,
        }
    }
}

/// An object that may be the InfraMachine of a MachinePool Machine.
#[derive(Debug)]
pub(crate) struct MachineObject {
    pub(crate) meta: Meta,
    pub(crate) provider_id: Option<String>,
    /// The contract of its own API version (by its CRD's labels), when known: its findings
    /// are judged and headed by it, not by the pool's.
    pub(crate) contract: Option<Contract>,
}

impl MachineObject {
    /// The object, when something ties it to a pool (a pool-name label or an owner whose
    /// kind ends in `MachinePool`); other objects are not kept.
    /// `owned_by_pool` says whether an owner is of a pool kind recognised by evidence (a kind
    /// not ending in `MachinePool`).
    pub(crate) fn of(object: &Value, meta: Meta, owned_by_pool: bool) -> Option<Self> {
        let tied = owned_by_pool
            || meta.labels.contains_key(MACHINE_POOL_NAME_LABEL)
            || meta.owners.iter().any(|o| o.kind.ends_with("MachinePool"));
        tied.then(|| Self {
            contract: None,
            provider_id: capi_contract::fields::infra_machine::PROVIDER_ID
                .get(object)
                .ok(),
            meta,
        })
    }
}

/// A template reference of a MachinePoolClass.
#[derive(Debug, Clone)]
pub(crate) struct TemplateRef {
    pub(crate) api_version: String,
    pub(crate) kind: String,
    pub(crate) name: String,
}

impl TemplateRef {
    fn of(v: &Value) -> Option<Self> {
        let text = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
        (v.is_object() && !v["kind"].is_null()).then(|| Self {
            api_version: text("apiVersion"),
            kind: text("kind"),
            name: text("name"),
        })
    }
}

/// One MachinePoolClass of a ClusterClass.
#[derive(Debug)]
pub(crate) struct PoolClass {
    pub(crate) class: String,
    /// YAML path of the class entry (`spec.workers.machinePools[0]`).
    pub(crate) path: String,
    pub(crate) infrastructure: Option<TemplateRef>,
    pub(crate) infrastructure_path: String,
    pub(crate) bootstrap: Option<TemplateRef>,
    pub(crate) bootstrap_path: String,
}

/// A ClusterClass object.
#[derive(Debug)]
pub(crate) struct ClassObject {
    pub(crate) meta: Meta,
    pub(crate) pools: Vec<PoolClass>,
}

impl ClassObject {
    /// The template references at the accessor's path for the ClusterClass's API version (a
    /// core API version: v1beta2 names templates with `templateRef`, v1beta1 with
    /// `template.<x>.ref`).
    pub(crate) fn of(object: &Value, meta: Meta) -> Self {
        use capi_contract::fields::cluster_class::{
            BOOTSTRAP_TEMPLATE, INFRASTRUCTURE_TEMPLATE, MACHINE_POOL_CLASSES,
        };
        let version = meta
            .version()
            .parse::<Contract>()
            .unwrap_or_else(|_| Contract::current());
        let (infra, boot) = (
            INFRASTRUCTURE_TEMPLATE.at(version),
            BOOTSTRAP_TEMPLATE.at(version),
        );
        let dotted = |f: Option<&Field<()>>| f.map(Field::dotted).unwrap_or_default();
        let at = |entry: &Value, f: Option<&Field<()>>| {
            f.and_then(|f| f.node(entry).ok()).and_then(TemplateRef::of)
        };
        let pools = MACHINE_POOL_CLASSES
            .node(object)
            .ok()
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, entry)| PoolClass {
                class: entry["class"].as_str().unwrap_or_default().to_owned(),
                path: format!("{}[{i}]", MACHINE_POOL_CLASSES.dotted()),
                infrastructure: at(entry, infra),
                infrastructure_path: dotted(infra),
                bootstrap: at(entry, boot),
                bootstrap_path: dotted(boot),
            })
            .collect();
        Self { meta, pools }
    }
}

/// A Cluster with a managed topology.
#[derive(Debug)]
pub(crate) struct ClusterObject {
    pub(crate) meta: Meta,
    /// Its spec, read as `views::Cluster` reads a Cluster of either API version (v1beta2
    /// `classRef`, v1beta1 `class` and `classNamespace`).
    pub(crate) spec: ClusterSpec,
}

impl ClusterObject {
    /// The Cluster, when it has a topology naming a ClusterClass.
    pub(crate) fn of(object: &Value, meta: Meta) -> Option<Self> {
        let spec = ClusterSpec::from_value(&object["spec"]);
        spec.class_ref()?;
        Some(Self { meta, spec })
    }

    /// Namespace and name of its ClusterClass: without a namespace, the Cluster's.
    pub(crate) fn class(&self) -> (&str, &str) {
        let class = self.spec.class_ref();
        let name = class.map_or("", |c| c.name.as_str());
        let namespace = class
            .map(|c| c.namespace.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or(&self.meta.namespace);
        (namespace, name)
    }
}

/// The objects kept for the set rules.
#[derive(Debug, Default)]
pub(crate) struct Inventory {
    pub(crate) pools: Vec<PoolObject>,
    pub(crate) machines: Vec<MachineObject>,
    pub(crate) classes: Vec<ClassObject>,
    pub(crate) clusters: Vec<ClusterObject>,
}

/// What an object is to the checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ObjectRole {
    /// An InfraMachinePool (a non-core kind ending in `MachinePool`; the checker also takes
    /// kinds recognised by evidence).
    Pool,
    /// A ClusterClass.
    ClusterClass,
    /// A Cluster.
    Cluster,
    /// Anything else (possibly an InfraMachine).
    Other,
}

/// The role of an object from its apiVersion and kind.
pub(crate) fn object_role(object: &Value) -> ObjectRole {
    let kind = object["kind"].as_str().unwrap_or_default();
    let group = GroupVersion::split(object["apiVersion"].as_str().unwrap_or_default()).group;
    match (group == CORE_GROUP, kind) {
        (true, "ClusterClass") => ObjectRole::ClusterClass,
        (true, "Cluster") => ObjectRole::Cluster,
        (false, k) if k.ends_with("MachinePool") => ObjectRole::Pool,
        _ => ObjectRole::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: &Value) -> Meta {
        Meta::of(v, None)
    }

    #[test]
    fn v1beta2_cluster_class_and_cluster_are_read() {
        let class = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "ClusterClass",
            "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"workers": {"machinePools": [{"class": "a",
                "bootstrap": {"templateRef": {"apiVersion": "b/v1", "kind": "B", "name": "b"}},
                "infrastructure": {"templateRef": {"apiVersion": "i/v1", "kind": "I", "name": "i"}}}]}}});
        let c = ClassObject::of(&class, meta(&class));
        assert_eq!(c.pools.len(), 1);
        assert_eq!(c.pools[0].infrastructure.as_ref().unwrap().kind, "I");
        assert_eq!(c.pools[0].bootstrap.as_ref().unwrap().name, "b");
        assert_eq!(c.pools[0].infrastructure_path, "infrastructure.templateRef");

        let cluster = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
            "metadata": {"name": "k", "namespace": "ns"},
            "spec": {"topology": {"classRef": {"name": "c", "namespace": "shared"},
                "workers": {"machinePools": [{"class": "a", "name": "mp-0"}]}}}});
        let k = ClusterObject::of(&cluster, meta(&cluster)).unwrap();
        assert_eq!(k.class(), ("shared", "c"));
        let pools: Vec<(&str, &str)> = k
            .spec
            .machine_pool_topologies()
            .iter()
            .map(|p| (p.name.as_str(), p.class.as_str()))
            .collect();
        assert_eq!(pools, [("mp-0", "a")]);
        // Without a namespace the class is in the Cluster's namespace; no topology, no Cluster.
        let local = json!({"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
            "metadata": {"name": "k", "namespace": "ns"}, "spec": {"topology": {"class": "c"}}});
        assert_eq!(
            ClusterObject::of(&local, meta(&local)).unwrap().class().0,
            "ns"
        );
        let plain = json!({"kind": "Cluster", "metadata": {"name": "k"}, "spec": {}});
        assert!(ClusterObject::of(&plain, meta(&plain)).is_none());
    }

    #[test]
    fn only_objects_tied_to_a_pool_are_kept_as_infra_machines() {
        let tied = json!({"apiVersion": "x/v1", "kind": "FooMachine", "metadata": {"name": "m",
            "ownerReferences": [{"apiVersion": "x/v1", "kind": "FooMachinePool", "name": "p", "uid": "u"}]},
            "spec": {"providerID": "foo://1"}});
        let m = MachineObject::of(&tied, meta(&tied), false).unwrap();
        assert!(m.meta.owned_by("x", "FooMachinePool", "p"));
        assert_eq!(m.provider_id.as_deref(), Some("foo://1"));
        let other = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}});
        assert!(MachineObject::of(&other, meta(&other), false).is_none());
        assert_eq!(object_role(&other), ObjectRole::Other);
        let core_pool = json!({"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool"});
        assert_eq!(object_role(&core_pool), ObjectRole::Other);
    }
}
