//! The validation of a manifest stream as one verdict per MachinePool: the API server's
//! admission (schema, conversion, defaulting, upstream's webhook), the version skew against
//! the pool's control plane, and, given the stored objects, what the update will do.
//!
//! Documents are fed one at a time ([`Validation::add`]); verdicts that need the whole
//! stream (the control plane may come after the pool) are made by [`Validation::finish`].
//!
//! ```
//! use capi_machinepool_admission::Admission;
//! use capi_machinepool_rollout::Validation;
//! let admission = Admission::new().unwrap();
//! let mut validation = Validation::new(&admission);
//! validation.add("pools.yaml#0", &serde_json::json!({
//!   "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool",
//!   "metadata": {"name": "mp", "namespace": "ns"},
//!   "spec": {"clusterName": "c1", "template": {"spec": {"clusterName": "c1", "version": "v1.35.0",
//!     "bootstrap": {"dataSecretName": "s"},
//!     "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "DevMachinePool", "name": "d"}}}}}));
//! validation.add("pools.yaml#1", &serde_json::json!({
//!   "apiVersion": "controlplane.cluster.x-k8s.io/v1beta1", "kind": "RKE2ControlPlane",
//!   "metadata": {"name": "cp", "namespace": "ns"}, "spec": {"version": "v1.34.0+rke2r1"}}));
//! let report = validation.finish();
//! assert_eq!(report.invalid(), 1, "{report}");
//! assert!(report.to_string().contains("kubelet-newer-than-apiserver"));
//! ```

use std::collections::BTreeMap;
use std::fmt;

use capi_diagnostics::excerpt::printable;
use capi_diagnostics::{Excerpt, Severity};
use capi_machinepool_admission::{Admission, Finding as AdmissionFinding};
use capi_machinepool_api::constants::is_machine_pool;
use capi_machinepool_api::v1beta2;
use serde_json::Value;

use crate::change::{self, PoolChange, ReferencedObjects};
use crate::control_plane::ControlPlanes;
use crate::document::string_at;
use crate::pool::pool_skew;
use crate::skew::{SkewFinding, VersionAt};

/// One finding about a pool, from one of the three judges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolFinding {
    /// The API server's admission (schema, conversion, defaulting, webhook).
    Admission(AdmissionFinding),
    /// The Kubernetes version skew policy.
    Skew(SkewFinding),
    /// What the update will do (with a stored object).
    Change(PoolChange),
}

impl PoolFinding {
    /// Error or warning; `None` for a change that does what it says (a note).
    #[must_use]
    pub fn severity(&self) -> Option<Severity> {
        match self {
            Self::Admission(f) => Some(f.severity),
            Self::Skew(f) => f.severity,
            Self::Change(c) => c.severity,
        }
    }
}

impl fmt::Display for PoolFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Admission(a) => write!(f, "{a}"),
            Self::Skew(s) => write!(f, "version skew: {s}"),
            Self::Change(c) => write!(f, "change: {c}"),
        }
    }
}

/// The verdict on one MachinePool.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolReport {
    /// Where the pool was read (`file#document`).
    pub source: String,
    /// `namespace/name` (or `name`), as written.
    pub name: String,
    /// The apiVersion it was written in.
    pub api_version: String,
    /// The defaulted v1beta2 object, when it was admitted.
    pub machine_pool: Option<v1beta2::MachinePool>,
    /// Every finding: admission first, then version skew, then changes.
    pub findings: Vec<PoolFinding>,
}

impl PoolReport {
    /// True when no finding is an error.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        !self
            .findings
            .iter()
            .any(|f| f.severity() == Some(Severity::Error))
    }

    /// The findings of one severity (`None`: the notes).
    pub fn findings_of(&self, severity: Option<Severity>) -> impl Iterator<Item = &PoolFinding> {
        self.findings
            .iter()
            .filter(move |f| f.severity() == severity)
    }
}

/// One line per pool and per finding: everything taken from the input (the source's file
/// name, the pool's name, field names and values in findings) is passed through
/// [`printable`], so no input starts a line of its own (a forged CI workflow command) or
/// sends a terminal escape.
impl fmt::Display for PoolReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.is_valid() { "ok" } else { "invalid" };
        writeln!(
            f,
            "{} MachinePool {} ({}): {verdict}",
            printable(&self.source),
            printable(&self.name),
            Excerpt::new(&self.api_version)
        )?;
        for (severity, label) in [
            (Some(Severity::Error), "error  "),
            (Some(Severity::Warning), "warning"),
            (None, "note   "),
        ] {
            for finding in self.findings_of(severity) {
                writeln!(f, "  {label} {}", printable(&finding.to_string()))?;
            }
        }
        Ok(())
    }
}

/// The verdicts on every MachinePool of a stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidationReport {
    /// One report per MachinePool, in stream order.
    pub pools: Vec<PoolReport>,
}

impl ValidationReport {
    /// How many pools have an error.
    #[must_use]
    pub fn invalid(&self) -> usize {
        self.pools.iter().filter(|p| !p.is_valid()).count()
    }

    /// True when every pool is valid.
    #[must_use]
    pub fn passes(&self) -> bool {
        self.invalid() == 0
    }
}

impl fmt::Display for ValidationReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for pool in &self.pools {
            write!(f, "{pool}")?;
        }
        Ok(())
    }
}

/// `(namespace, name)` of a pool.
type PoolKey = (String, String);

fn pool_key(doc: &Value) -> PoolKey {
    (
        string_at(doc, "/metadata/namespace"),
        string_at(doc, "/metadata/name"),
    )
}

/// A stream being validated (see the module docs).
#[derive(Debug)]
pub struct Validation<'a> {
    admission: &'a Admission,
    control_planes: ControlPlanes,
    fallback: Option<VersionAt>,
    pools: Vec<PoolReport>,
    /// With stored objects: the admitted stored pools and their referenced objects.
    stored: Option<(BTreeMap<PoolKey, v1beta2::MachinePool>, ReferencedObjects)>,
    referenced: ReferencedObjects,
}

impl<'a> Validation<'a> {
    /// A validation that admits pools with `admission`.
    #[must_use]
    pub fn new(admission: &'a Admission) -> Self {
        Self {
            admission,
            control_planes: ControlPlanes::new(),
            fallback: None,
            pools: Vec::new(),
            stored: None,
            referenced: ReferencedObjects::default(),
        }
    }

    /// The kube-apiserver version to judge pools against when the stream holds no control
    /// plane for them (`at` says where the caller got it).
    #[must_use]
    pub fn with_control_plane_version(mut self, version: VersionAt) -> Self {
        self.fallback = Some(version);
        self
    }

    /// Reads a document of the stored (old) objects: MachinePools are admitted as stored
    /// objects (an invalid one is ignored: the API server would not have stored it), bootstrap
    /// configs and InfraMachinePools kept for comparison. Feed every stored document before
    /// the first new one.
    pub fn add_stored(&mut self, doc: &Value) {
        let (pools, objects) = self.stored.get_or_insert_with(Default::default);
        if is_machine_pool(doc) {
            if let Some(mp) = self.admission.admit(doc).machine_pool {
                pools.insert(pool_key(doc), mp);
            }
        } else {
            objects.add(doc);
        }
    }

    /// Reads a document of the new stream: a MachinePool is admitted (as an update of its
    /// stored object, when there is one); Clusters and control planes are remembered for the
    /// skew check; bootstrap configs and InfraMachinePools for the comparison.
    pub fn add(&mut self, source: impl Into<String>, doc: &Value) {
        // Every document: the topology controller's view of a ClusterClass cluster reads its
        // MachinePools too.
        self.control_planes.add(doc);
        if !is_machine_pool(doc) {
            if self.stored.is_some() {
                self.referenced.add(doc);
            }
            return;
        }
        let key = pool_key(doc);
        let stored = self.stored.as_ref().and_then(|(pools, _)| pools.get(&key));
        let admitted = match stored {
            Some(old) => self.admission.admit_update(doc, old),
            None => self.admission.admit(doc),
        };
        let name = if key.0.is_empty() && doc.pointer("/metadata/namespace").is_none() {
            Excerpt::new(if key.1.is_empty() {
                "<no name>"
            } else {
                &key.1
            })
            .to_string()
        } else {
            format!("{}/{}", Excerpt::new(&key.0), Excerpt::new(&key.1))
        };
        self.pools.push(PoolReport {
            source: source.into(),
            name,
            api_version: doc["apiVersion"].as_str().unwrap_or("?").to_owned(),
            machine_pool: admitted.machine_pool,
            findings: admitted
                .findings
                .into_iter()
                .map(PoolFinding::Admission)
                .collect(),
        });
    }

    /// The verdicts, once the whole stream is read.
    #[must_use]
    pub fn finish(mut self) -> ValidationReport {
        for pool in &mut self.pools {
            let Some(mp) = &pool.machine_pool else {
                continue;
            };
            let skew = pool_skew(mp, &self.control_planes, self.fallback.as_ref());
            pool.findings
                .extend(skew.into_iter().map(PoolFinding::Skew));
            if let Some((stored, stored_objects)) = &self.stored {
                let key = (
                    mp.metadata.namespace.clone().unwrap_or_default(),
                    mp.metadata.name.clone().unwrap_or_default(),
                );
                if let Some(old) = stored.get(&key) {
                    let changes = change::compare(old, mp, stored_objects, &self.referenced);
                    pool.findings
                        .extend(changes.into_iter().map(PoolFinding::Change));
                }
            }
        }
        ValidationReport { pools: self.pools }
    }
}
