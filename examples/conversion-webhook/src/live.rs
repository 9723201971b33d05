//! Reference apiVersions resolved from the cluster's own CRDs, as Cluster API's manager does
//! (`contract.GetAPIVersion` reads the referenced kind's CRD through the manager's client and
//! picks the version its contract label names): a metadata-only watch of
//! CustomResourceDefinitions, kept current, so a provider installed or upgraded after the
//! webhook started is seen within seconds.
//!
//! **What is held.** The store keeps only what resolution reads: each CRD's name, its
//! `cluster.x-k8s.io/<contract>` labels and its resourceVersion and uid. Annotations (a
//! `kubectl apply` leaves up to 256 KiB of `last-applied-configuration` on each CRD),
//! managedFields and every other label are dropped from each object as it arrives, before it
//! is stored ([`prune`]); lists are read [`PAGE_SIZE`] CRDs at a time (from etcd, not
//! the watch cache, which ignores the page size), so that at most one page of whole
//! metadata is held at once, on the first list and on every re-list.
//!
//! **While the API server is away.** The webhook keeps resolving from the last list (it
//! stays ready: the API server, its only client, is away too). The first error after a
//! healthy watch is logged once at WARN (`CRD watch broken`), further ones at DEBUG;
//! [`WatchStatus::up`] turns false (metric `conversion_webhook_crd_watch_up`) and the
//! errors are counted. The watch is started again with a backoff (0.5 s doubling to 30 s)
//! by a new list; when that list is in, one INFO line (`CRD watch recovered`) says so.
//! CRDs added and removed (by an event or between two lists) are logged at INFO.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use capi_contract::Contract;
use capi_contract::naming::crd_name;
use capi_machinepool_conversion::{ApiVersionResolver, ResolveError, api_version_from_crd_labels};
use futures_util::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, PartialObjectMeta};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use tracing::{debug, info, warn};

/// CRDs per list request: what is held at once before pruning. A page's response is held
/// several times over while it is read and parsed (measured against the real API server
/// with 350 CRDs of 250 KB annotations, peak RSS: pages of 50, 106 MB; 25, 65 MB; 10,
/// 47 MB; 5, 38 MB), so a page is at most 2.5 MB of annotations.
pub const PAGE_SIZE: u32 = 10;

/// The prefix of the contract labels resolution reads (`cluster.x-k8s.io/v1beta2`, ...).
const CONTRACT_LABEL_PREFIX: &str = "cluster.x-k8s.io/";

/// Backoff between watch attempts after an error.
const BACKOFF_MIN: Duration = Duration::from_millis(500);
const BACKOFF_MAX: Duration = Duration::from_secs(30);

type Crd = PartialObjectMeta<CustomResourceDefinition>;

/// The health of the watch, for metrics.
#[derive(Debug, Default)]
pub struct WatchStatus {
    up: AtomicBool,
    /// Unix time of the last complete list, in milliseconds (0: none yet).
    last_list_ms: AtomicU64,
    errors: AtomicU64,
}

impl WatchStatus {
    /// True while the watch works (from a complete list to the next error).
    #[must_use]
    pub fn up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Unix time, in seconds, of the last complete list; `None` before the first.
    #[must_use]
    pub fn last_list_seconds(&self) -> Option<f64> {
        let ms = self.last_list_ms.load(Ordering::Relaxed);
        (ms > 0).then(|| Duration::from_millis(ms).as_secs_f64())
    }

    /// Errors of the watch (and its lists) so far.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.errors.load(Ordering::Relaxed)
    }
}

/// The cluster's CRDs (name and contract labels), watched: an [`ApiVersionResolver`].
#[derive(Clone)]
pub struct LiveCrds {
    store: Store<Crd>,
    contract: Contract,
    status: Arc<WatchStatus>,
}

impl fmt::Debug for LiveCrds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveCrds")
            .field("crds", &self.store.len())
            .field("contract", &self.contract)
            .field("status", &self.status)
            .finish()
    }
}

/// Keeps of a CRD's metadata only what resolution reads (name, contract labels) and what
/// tells versions apart (resourceVersion, uid); drops annotations, managedFields and the
/// rest.
pub fn prune(crd: &mut Crd) {
    let meta = std::mem::take(&mut crd.metadata);
    let labels: BTreeMap<String, String> = meta
        .labels
        .unwrap_or_default()
        .into_iter()
        .filter(|(key, _)| key.starts_with(CONTRACT_LABEL_PREFIX))
        .collect();
    crd.metadata = ObjectMeta {
        name: meta.name,
        resource_version: meta.resource_version,
        uid: meta.uid,
        labels: (!labels.is_empty()).then_some(labels),
        ..ObjectMeta::default()
    };
}

impl LiveCrds {
    /// Starts watching the CRDs of the cluster `client` reaches (a task on the current tokio
    /// runtime, retried with backoff for as long as the process runs; needs `get`, `list`
    /// and `watch` on `customresourcedefinitions`) and returns at once.
    #[must_use]
    pub fn watch(client: kube::Client) -> Self {
        // `Api<PartialObjectMeta<_>>` lists and watches metadata only.
        let api: Api<Crd> = Api::all(client);
        let (store, writer) = reflector::store();
        let status = Arc::new(WatchStatus::default());
        tokio::spawn(run(api, writer, Arc::clone(&status)));
        Self {
            store,
            contract: Contract::default(),
            status,
        }
    }

    /// Waits until the first list of CRDs is in (never, while the API server cannot be
    /// reached).
    pub async fn synced(&self) {
        // The writer lives as long as the watch task, that is as long as the process.
        let _ = self.store.wait_until_ready().await;
    }

    /// Number of CRDs known.
    #[must_use]
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// True while no CRD is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The health of the watch.
    #[must_use]
    pub fn status(&self) -> &WatchStatus {
        &self.status
    }
}

fn unix_ms_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What the watch loop remembers between events: the names known (for the INFO lines on
/// additions and removals), the names of a list in progress, and whether the watch was
/// broken.
#[derive(Debug, Default)]
struct Tracker {
    known: BTreeSet<String>,
    listing: BTreeSet<String>,
    listed_once: bool,
    broken_since: Option<std::time::Instant>,
}

impl Tracker {
    /// Logs what `event` changes, before it is applied to the store.
    fn observe(&mut self, event: &watcher::Event<Crd>, status: &WatchStatus) {
        let name = |crd: &Crd| crd.metadata.name.clone().unwrap_or_default();
        match event {
            watcher::Event::Init => self.listing.clear(),
            watcher::Event::InitApply(crd) => {
                self.listing.insert(name(crd));
            }
            watcher::Event::InitDone => self.list_done(status),
            watcher::Event::Apply(crd) => {
                let name = name(crd);
                if !self.known.contains(&name) {
                    info!(crd = %name, "CustomResourceDefinition added");
                    self.known.insert(name);
                }
            }
            watcher::Event::Delete(crd) => {
                let name = name(crd);
                if self.known.remove(&name) {
                    info!(crd = %name, "CustomResourceDefinition removed");
                }
            }
        }
    }

    fn list_done(&mut self, status: &WatchStatus) {
        let listed = std::mem::take(&mut self.listing);
        if self.listed_once {
            for added in listed.difference(&self.known) {
                info!(crd = %added, "CustomResourceDefinition added");
            }
            for removed in self.known.difference(&listed) {
                info!(crd = %removed, "CustomResourceDefinition removed");
            }
        } else {
            info!(crds = listed.len(), "CustomResourceDefinitions listed");
        }
        if let Some(since) = self.broken_since.take() {
            info!(
                crds = listed.len(),
                down_ms = since.elapsed().as_millis() as u64,
                "CRD watch recovered"
            );
        }
        self.known = listed;
        self.listed_once = true;
        status.last_list_ms.store(unix_ms_now(), Ordering::Relaxed);
        status.up.store(true, Ordering::Relaxed);
    }

    /// The watch failed: WARN once per outage, DEBUG after.
    fn failed(&mut self, error: &watcher::Error, status: &WatchStatus) {
        status.errors.fetch_add(1, Ordering::Relaxed);
        status.up.store(false, Ordering::Relaxed);
        if self.broken_since.is_none() {
            self.broken_since = Some(std::time::Instant::now());
            warn!(
                error = %error,
                crds = self.known.len(),
                "CRD watch broken: resolving from the last list until it is back (retrying)"
            );
        } else {
            debug!(error = %error, "CRD watch still broken (retrying)");
        }
    }
}

/// The watch loop: a metadata-only watcher, each object pruned as it arrives, its events
/// applied to the store; after an error, a new watcher (a new list) after a backoff.
async fn run(api: Api<Crd>, mut writer: reflector::store::Writer<Crd>, status: Arc<WatchStatus>) {
    let config = watcher::Config::default().page_size(PAGE_SIZE);
    let mut tracker = Tracker::default();
    let mut backoff = BACKOFF_MIN;
    loop {
        let events = watcher::watcher(api.clone(), config.clone()).modify(prune);
        let mut events = std::pin::pin!(events);
        while let Some(event) = events.next().await {
            match event {
                Ok(event) => {
                    if matches!(event, watcher::Event::InitDone) {
                        backoff = BACKOFF_MIN;
                    }
                    tracker.observe(&event, &status);
                    writer.apply_watcher_event(&event);
                }
                Err(e) => {
                    tracker.failed(&e, &status);
                    break;
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

impl ApiVersionResolver for LiveCrds {
    fn api_version(&self, group: &str, kind: &str) -> Result<String, ResolveError> {
        let name = crd_name(group, kind);
        let Some(crd) = self.store.get(&ObjectRef::new(&name)) else {
            return Err(ResolveError::NotFound {
                group: group.to_owned(),
                kind: kind.to_owned(),
                crd_name: name,
            });
        };
        let labels = crd.metadata.labels.clone().unwrap_or_default();
        api_version_from_crd_labels(group, kind, &labels, self.contract)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(name: &str, labels: &[(&str, &str)], annotation_bytes: usize) -> Crd {
        let mut crd = Crd::default();
        crd.metadata.name = Some(name.to_owned());
        crd.metadata.resource_version = Some("7".to_owned());
        crd.metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
        );
        crd.metadata.annotations = Some(BTreeMap::from([(
            "kubectl.kubernetes.io/last-applied-configuration".to_owned(),
            "x".repeat(annotation_bytes),
        )]));
        crd.metadata.finalizers = Some(vec!["f".to_owned()]);
        crd
    }

    #[test]
    fn prune_keeps_the_name_and_contract_labels_only() {
        let mut big = crd(
            "foos.infrastructure.cluster.x-k8s.io",
            &[
                ("cluster.x-k8s.io/v1beta2", "v1beta2"),
                ("cluster.x-k8s.io/v1beta1", "v1beta1_v1beta2"),
                ("app.kubernetes.io/name", "foo"),
            ],
            250_000,
        );
        prune(&mut big);
        let meta = &big.metadata;
        assert_eq!(
            meta.name.as_deref(),
            Some("foos.infrastructure.cluster.x-k8s.io")
        );
        assert_eq!(meta.resource_version.as_deref(), Some("7"));
        assert!(meta.annotations.is_none());
        assert!(meta.finalizers.is_none());
        assert!(meta.managed_fields.is_none());
        let labels = meta.labels.clone().unwrap();
        assert_eq!(labels.len(), 2);
        assert_eq!(labels["cluster.x-k8s.io/v1beta2"], "v1beta2");
        let mut plain = crd("bars.example.com", &[("team", "a")], 10);
        prune(&mut plain);
        assert!(plain.metadata.labels.is_none());
    }

    #[test]
    fn the_tracker_marks_the_watch_broken_and_recovered() {
        let status = WatchStatus::default();
        let mut tracker = Tracker::default();
        assert!(!status.up());
        assert!(status.last_list_seconds().is_none());
        for event in [
            watcher::Event::Init,
            watcher::Event::InitApply(crd("a.x", &[], 0)),
            watcher::Event::InitApply(crd("b.x", &[], 0)),
            watcher::Event::InitDone,
        ] {
            tracker.observe(&event, &status);
        }
        assert!(status.up());
        assert!(status.last_list_seconds().is_some_and(|s| s > 1.7e9));
        assert_eq!(tracker.known.len(), 2);
        let error = watcher::Error::NoResourceVersion;
        tracker.failed(&error, &status);
        tracker.failed(&error, &status);
        assert!(!status.up());
        assert_eq!(status.errors(), 2);
        assert!(tracker.broken_since.is_some());
        // A re-list after the outage: b removed, c added, the watch up again.
        for event in [
            watcher::Event::Init,
            watcher::Event::InitApply(crd("a.x", &[], 0)),
            watcher::Event::InitApply(crd("c.x", &[], 0)),
            watcher::Event::InitDone,
        ] {
            tracker.observe(&event, &status);
        }
        assert!(status.up());
        assert!(tracker.broken_since.is_none());
        assert_eq!(
            tracker.known.iter().map(String::as_str).collect::<Vec<_>>(),
            ["a.x", "c.x"]
        );
        tracker.observe(&watcher::Event::Delete(crd("a.x", &[], 0)), &status);
        tracker.observe(&watcher::Event::Apply(crd("d.x", &[], 0)), &status);
        assert_eq!(
            tracker.known.iter().map(String::as_str).collect::<Vec<_>>(),
            ["c.x", "d.x"]
        );
    }
}
