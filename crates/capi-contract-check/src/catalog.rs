//! What the checker remembers of every CRD it read, for the rules that judge CRDs and
//! objects together (a pool and its InfraMachine kind, a template and its pool, a
//! ClusterClass and the templates it names).

use std::collections::BTreeMap;
use std::sync::Arc;

use capi_contract::Contract;
use serde_json::Value;

use crate::input::{CrdInput, NotChecked, Role, classify};
use crate::report::{Subject, Target};

/// One version of a CRD.
#[derive(Debug)]
pub(crate) struct VersionFacts {
    pub(crate) name: String,
    pub(crate) served: bool,
    pub(crate) schema: Value,
}

/// One CRD, as read.
#[derive(Debug)]
pub(crate) struct CrdFacts {
    pub(crate) subject: Arc<Subject>,
    pub(crate) name: String,
    pub(crate) group: String,
    pub(crate) kind: String,
    pub(crate) list_kind: Option<String>,
    pub(crate) namespaced: bool,
    pub(crate) versions: Vec<VersionFacts>,
    /// Contract (`v1beta2`, ...) -> versions its label lists.
    pub(crate) labels: BTreeMap<String, Vec<String>>,
    pub(crate) role: Option<Role>,
    /// The CRD's own annotations (provider declarations, see `crate::capabilities`).
    pub(crate) annotations: BTreeMap<String, String>,
}

impl CrdFacts {
    /// Reads `input` once: its facts (with the subject its findings are reported on) and
    /// its classification, which says why it is not checked when it is not.
    pub(crate) fn read(input: &CrdInput) -> (Self, Result<Role, NotChecked>) {
        let classified = classify(&input.crd);
        let facts = Self::of(input, Self::subject_of(input), classified.clone().ok());
        (facts, classified)
    }

    fn of(input: &CrdInput, subject: Arc<Subject>, role: Option<Role>) -> Self {
        let crd = input.view();
        let text = |v: Option<&str>| v.unwrap_or_default().to_owned();
        let versions = crd
            .versions()
            .map(|v| VersionFacts {
                name: text(v.name()),
                served: v.served(),
                schema: v.schema().clone(),
            })
            .collect();
        Self {
            subject,
            name: text(crd.name()),
            group: text(crd.group()),
            kind: text(crd.kind()),
            list_kind: crd.list_kind().map(str::to_owned),
            namespaced: crd.namespaced(),
            versions,
            labels: crd.contract_labels(),
            role,
            annotations: crd.annotations(),
        }
    }

    /// A subject for a CRD given as a value with no subject of its own.
    fn subject_of(input: &CrdInput) -> Arc<Subject> {
        let name = input.view().name().unwrap_or("<unnamed>").to_owned();
        Arc::new(
            Subject::new(Target::Crd { name }, input.source.as_ref().map(Into::into))
                .with_set_by(input.set_by.clone())
                .with_positions(input.positions.clone()),
        )
    }

    /// The version named `version`.
    pub(crate) fn version(&self, version: &str) -> Option<&VersionFacts> {
        self.versions.iter().find(|v| v.name == version)
    }

    /// True when `version` exists and is served.
    pub(crate) fn serves(&self, version: &str) -> bool {
        self.version(version).is_some_and(|v| v.served)
    }

    /// The newest contract core reads whose label lists `version`.
    pub(crate) fn contract_of_version(&self, version: &str) -> Option<Contract> {
        Contract::CURRENT.compatible().into_iter().find(|c| {
            self.labels
                .get(c.as_str())
                .is_some_and(|vs| vs.iter().any(|v| v == version))
        })
    }

    /// The contracts core reads that a label of this CRD maps (newest first).
    pub(crate) fn contracts(&self) -> Vec<Contract> {
        Contract::CURRENT
            .compatible()
            .into_iter()
            .filter(|c| {
                self.labels
                    .get(c.as_str())
                    .is_some_and(|vs| vs.iter().any(|v| !v.is_empty()))
            })
            .collect()
    }

    /// The version core resolves references to: the highest version listed by the newest
    /// contract label (upstream's `GetLatestContractAndAPIVersionFromContract`).
    pub(crate) fn resolved_version(&self) -> Option<String> {
        let labels: BTreeMap<String, String> = self
            .labels
            .iter()
            .map(|(c, vs)| (format!("cluster.x-k8s.io/{c}"), vs.join("_")))
            .collect();
        capi_contract::labels::latest_contract_and_version(&self.name, &labels, Contract::CURRENT)
            .ok()
            .map(|(_, v)| v)
    }
}

/// The contract a version's schema implements, read from its status: the newest contract
/// whose provisioning field ([`PROVISIONED`](capi_contract::fields::infra_machine_pool::PROVISIONED):
/// `status.initialization.provisioned` from v1beta2 on, `status.ready` in v1beta1) the schema
/// declares, or v1beta1 for `clusterv1.Conditions` (whose items carry `severity`). `None` when
/// the schema says neither.
pub(crate) fn schema_contract(schema: &Value) -> Option<Contract> {
    use capi_contract::fields::infra_machine_pool as pool;
    let declares = |c: &Contract| {
        pool::PROVISIONED
            .at(*c)
            .and_then(|f| f.schema(schema))
            .is_some_and(Value::is_object)
    };
    // clusterv1.Conditions items carry `severity`; metav1.Condition items do not.
    let v1beta1_conditions = pool::CONDITIONS
        .schema(schema)
        .is_some_and(|c| c["items"]["properties"]["severity"].is_object());
    Contract::ALL
        .iter()
        .rev()
        .find(|c| declares(c))
        .copied()
        .or_else(|| v1beta1_conditions.then_some(Contract::V1Beta1))
}

/// Every CRD read, in input order.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    crds: Vec<CrdFacts>,
}

impl Catalog {
    /// Remembers a CRD.
    pub(crate) fn add(&mut self, facts: CrdFacts) {
        self.crds.push(facts);
    }

    /// Remembers a CRD, in place of one read before under the same name (a CRD taken as an
    /// InfraMachinePool by evidence after it was read).
    pub(crate) fn replace(&mut self, facts: CrdFacts) {
        match self.crds.iter_mut().find(|c| {
            c.name == facts.name
                && c.group == facts.group
                && c.kind == facts.kind
                && c.role.is_none()
        }) {
            Some(old) => *old = facts,
            None => self.crds.push(facts),
        }
    }

    /// How many CRDs were read.
    pub(crate) fn len(&self) -> usize {
        self.crds.len()
    }

    /// The CRDs of `kind` in `group` (several when several inputs define it).
    pub(crate) fn find<'a>(
        &'a self,
        group: &'a str,
        kind: &'a str,
    ) -> impl Iterator<Item = &'a CrdFacts> + 'a {
        self.crds
            .iter()
            .filter(move |c| c.group == group && c.kind == kind)
    }

    /// The CRDs playing `role`.
    pub(crate) fn with_role(&self, role: Role) -> impl Iterator<Item = &CrdFacts> + '_ {
        self.crds.iter().filter(move |c| c.role == Some(role))
    }
}
