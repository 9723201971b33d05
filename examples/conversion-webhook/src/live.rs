//! Reference apiVersions resolved from the cluster's own CRDs, as Cluster API's manager does
//! (`contract.GetAPIVersion` reads the referenced kind's CRD through the manager's client and
//! picks the version its contract label names): a metadata-only reflector over
//! CustomResourceDefinitions (names and labels are all the resolution reads), kept current by
//! a watch, so a provider installed or upgraded after the webhook started is seen within
//! seconds.

use std::fmt;

use capi_contract::Contract;
use capi_contract::naming::crd_name;
use capi_machinepool_conversion::{ApiVersionResolver, ResolveError, api_version_from_crd_labels};
use futures_util::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PartialObjectMeta};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use tracing::{info, warn};

/// The cluster's CRDs (metadata only), watched: an [`ApiVersionResolver`].
#[derive(Clone)]
pub struct LiveCrds {
    store: Store<PartialObjectMeta<CustomResourceDefinition>>,
    contract: Contract,
}

impl fmt::Debug for LiveCrds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveCrds")
            .field("crds", &self.store.state().len())
            .field("contract", &self.contract)
            .finish()
    }
}

impl LiveCrds {
    /// Starts watching the CRDs of the cluster `client` reaches (a task on the current tokio
    /// runtime, retried with backoff for as long as the process runs; needs `get`, `list`
    /// and `watch` on `customresourcedefinitions`) and returns at once.
    #[must_use]
    pub fn watch(client: kube::Client) -> Self {
        // `Api<PartialObjectMeta<_>>` lists and watches metadata only.
        let api: Api<PartialObjectMeta<CustomResourceDefinition>> = Api::all(client);
        let (store, writer) = reflector::store();
        let events = watcher::watcher(api, watcher::Config::default()).default_backoff();
        let stream = reflector::reflector(writer, events);
        let counted = store.clone();
        tokio::spawn(async move {
            let mut stream = std::pin::pin!(stream);
            while let Some(event) = stream.next().await {
                match event {
                    Ok(watcher::Event::InitDone) => {
                        info!(
                            crds = counted.state().len(),
                            "CustomResourceDefinitions listed"
                        );
                    }
                    Ok(_) => {}
                    Err(e) => warn!(error = %e, "watching CustomResourceDefinitions (retrying)"),
                }
            }
        });
        Self {
            store,
            contract: Contract::default(),
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
        self.store.state().len()
    }

    /// True while no CRD is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
