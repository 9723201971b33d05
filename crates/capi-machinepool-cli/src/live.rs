//! `preflight`'s reader: one Cluster's objects, read (get and list only) from the management
//! cluster, and the Nodes of its workload cluster, reached as Cluster API reaches it.
//!
//! From the management cluster, in the Cluster's namespace: the Cluster; its ClusterClass
//! (`spec.topology.classRef`, v1beta1 `class`/`classNamespace`); its control plane (by
//! `spec.controlPlaneRef`, any kind, found through discovery); the MachinePools,
//! MachineDeployments and Machines labelled `cluster.x-k8s.io/cluster-name=NAME` (lists
//! filtered by that label and paginated, [`PAGE`] objects a request); each MachinePool's
//! InfraMachinePool (by `spec.template.spec.infrastructureRef`). From the workload cluster:
//! every Node (paginated), through the kubeconfig in the Secret `NAME-kubeconfig` (data key
//! `value`) of the Cluster's namespace, the Secret upstream's `controllers/remote` reads
//! (`util/secret`: `Kubeconfig` purpose, key `value`), or `--workload-kubeconfig`.
//!
//! A refused request names its verb and resource (`forbidden: cannot list
//! machinepools.cluster.x-k8s.io in namespace default`); the ClusterRole granting exactly
//! these reads is `deploy/preflight/clusterrole.yaml`.

use std::path::Path;
use std::time::Duration;

use capi_contract::fields::machine_pool::INFRASTRUCTURE_REF;
use capi_machinepool_api::views::Cluster;
use k8s_openapi::api::core::v1::{Node, Secret};
use kube::api::{Api, DynamicObject, ListParams, ObjectList};
use kube::discovery::ApiResource;
use serde_json::Value;

use crate::server::ServerArgs;

/// Objects a list request asks for at most (the rest follows with the continue token).
pub const PAGE: u32 = 500;

/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// The Cluster API core group.
const CORE_GROUP: &str = "cluster.x-k8s.io";

/// The source every object read from the management cluster is reported with.
pub const MANAGEMENT: &str = "management";
/// The source of the Nodes.
pub const WORKLOAD: &str = "workload";

/// What was read for one Cluster.
#[derive(Debug, Default)]
pub struct ClusterRead {
    /// The management cluster's objects, in reading order.
    pub management: Vec<Value>,
    /// The workload cluster's Nodes, as read.
    pub nodes: Vec<Value>,
    /// The management cluster's URL.
    pub management_url: String,
    /// How the workload cluster was reached (the Secret, or the kubeconfig file).
    pub workload: String,
    /// Objects a reference names that do not exist (`Kind ns/name`).
    pub missing: Vec<String>,
}

impl ClusterRead {
    /// How many objects of each kind were read, in reading order (`Kind` -> count).
    #[must_use]
    pub fn counts(&self) -> Vec<(String, usize)> {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for o in &self.management {
            let kind = o["kind"].as_str().unwrap_or("<no kind>");
            match counts.iter_mut().find(|(k, _)| k == kind) {
                Some((_, n)) => *n += 1,
                None => counts.push((kind.to_owned(), 1)),
            }
        }
        counts
    }
}

/// The Cluster to read, `NAMESPACE/NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Its namespace.
    pub namespace: String,
    /// Its name.
    pub name: String,
}

impl std::str::FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.split_once('/') {
            Some((ns, name)) if !ns.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(Self {
                    namespace: ns.to_owned(),
                    name: name.to_owned(),
                })
            }
            _ => Err(format!(
                "{} is not NAMESPACE/NAME",
                capi_diagnostics::excerpt::excerpt(s)
            )),
        }
    }
}

/// A resource as errors name it: `plural.group` (`nodes` for the core group).
fn resource_name(ar: &ApiResource) -> String {
    if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    }
}

/// Where a request went, for errors: `in namespace NS` or `at cluster scope`.
fn scope(namespace: Option<&str>) -> String {
    namespace.map_or_else(
        || "at cluster scope".to_owned(),
        |ns| format!("in namespace {ns}"),
    )
}

/// The error of a request, naming its verb, resource and scope.
fn request_error(
    cluster: &str,
    e: &kube::Error,
    verb: &str,
    resource: &str,
    namespace: Option<&str>,
) -> String {
    let at = scope(namespace);
    match e {
        kube::Error::Api(status) if status.code == 403 => format!(
            "{cluster}: forbidden: cannot {verb} {resource} {at} (deploy/preflight/clusterrole.yaml lists what preflight reads; the server says: {})",
            status.message
        ),
        kube::Error::Api(status) if status.code == 401 => format!(
            "{cluster}: unauthorized: cannot {verb} {resource} {at}: the credentials are refused ({})",
            status.message
        ),
        other => format!("{cluster}: cannot {verb} {resource} {at}: {other}"),
    }
}

/// A client and the runtime it runs on, for one cluster.
struct Reader<'a> {
    runtime: &'a tokio::runtime::Runtime,
    client: kube::Client,
    /// `management cluster URL` or `workload cluster URL`, for errors.
    cluster: String,
    /// The API groups discovered (`None`: not served).
    groups: std::collections::BTreeMap<String, Option<kube::discovery::ApiGroup>>,
}

impl<'a> Reader<'a> {
    /// A reader of the cluster `config` reaches; `cluster` names it in errors.
    fn connect(
        runtime: &'a tokio::runtime::Runtime,
        config: kube::Config,
        cluster: String,
    ) -> Result<Self, String> {
        let url = config.cluster_url.to_string();
        let client = runtime
            .block_on(async { kube::Client::try_from(config) })
            .map_err(|e| format!("cannot build a client for {url}: {e}"))?;
        Ok(Self {
            runtime,
            client,
            cluster,
            groups: std::collections::BTreeMap::new(),
        })
    }

    fn block<T>(
        &self,
        f: impl std::future::Future<Output = Result<T, kube::Error>>,
        verb: &str,
        resource: &str,
        namespace: Option<&str>,
    ) -> Result<T, String> {
        match self
            .runtime
            .block_on(async { tokio::time::timeout(REQUEST_TIMEOUT, f).await })
        {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(request_error(&self.cluster, &e, verb, resource, namespace)),
            Err(_) => Err(format!(
                "{}: cannot {verb} {resource} {}: no answer within {}s",
                self.cluster,
                scope(namespace),
                REQUEST_TIMEOUT.as_secs()
            )),
        }
    }

    /// The resource of `kind` in `group` at the version discovery recommends; `None` when
    /// the server does not serve it. Each group is discovered once.
    fn resource(&mut self, group: &str, kind: &str) -> Result<Option<ApiResource>, String> {
        if !self.groups.contains_key(group) {
            let found = self.discover(group)?;
            self.groups.insert(group.to_owned(), found);
        }
        Ok(self
            .groups
            .get(group)
            .and_then(Option::as_ref)
            .and_then(|g| g.recommended_kind(kind))
            .map(|(ar, _)| ar))
    }

    /// Discovery of one API group (its versions and resources); `None` when not served.
    fn discover(&mut self, group: &str) -> Result<Option<kube::discovery::ApiGroup>, String> {
        let client = self.client.clone();
        let found = self.runtime.block_on(async {
            tokio::time::timeout(REQUEST_TIMEOUT, kube::discovery::group(&client, group)).await
        });
        match found {
            Ok(Ok(g)) => Ok(Some(g)),
            Ok(Err(kube::Error::Api(s))) if s.code == 404 => Ok(None),
            Ok(Err(kube::Error::Discovery(_))) => Ok(None),
            Ok(Err(e)) => Err(request_error(
                &self.cluster,
                &e,
                "discover",
                &format!("the API group {group}"),
                None,
            )),
            Err(_) => Err(format!(
                "{}: cannot discover the API group {group}: no answer within {}s",
                self.cluster,
                REQUEST_TIMEOUT.as_secs()
            )),
        }
    }

    /// `get` of one namespaced object; `None` when it does not exist.
    fn get(
        &mut self,
        ar: &ApiResource,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Value>, String> {
        let api: Api<DynamicObject> = Api::namespaced_with(self.client.clone(), namespace, ar);
        let got = self.block(
            api.get_opt(name),
            "get",
            &resource_name(ar),
            Some(namespace),
        )?;
        got.map(|o| with_type(o, ar)).transpose()
    }

    /// Every object of a list, page by page.
    fn list<K>(
        &mut self,
        api: &Api<K>,
        params: &ListParams,
        resource: &str,
        namespace: Option<&str>,
    ) -> Result<Vec<K>, String>
    where
        K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut page_params = params.clone().limit(PAGE);
            if let Some(t) = &token {
                page_params = page_params.continue_token(t);
            }
            let page: ObjectList<K> =
                self.block(api.list(&page_params), "list", resource, namespace)?;
            items.extend(page.items);
            match page.metadata.continue_ {
                Some(t) if !t.is_empty() => token = Some(t),
                _ => return Ok(items),
            }
        }
    }

    /// The objects of `ar` labelled with the cluster's name.
    fn list_of_cluster(&mut self, ar: &ApiResource, target: &Target) -> Result<Vec<Value>, String> {
        let api: Api<DynamicObject> =
            Api::namespaced_with(self.client.clone(), &target.namespace, ar);
        let params = ListParams::default().labels(&format!(
            "{}={}",
            capi_machinepool_api::constants::CLUSTER_NAME_LABEL,
            target.name
        ));
        let items = self.list(&api, &params, &resource_name(ar), Some(&target.namespace))?;
        items.into_iter().map(|o| with_type(o, ar)).collect()
    }
}

/// The object as JSON, with the `apiVersion` and `kind` of its resource when the list left
/// them out.
fn with_type(object: DynamicObject, ar: &ApiResource) -> Result<Value, String> {
    let mut value = serde_json::to_value(&object)
        .map_err(|e| format!("cannot write {} as JSON: {e}", ar.kind))?;
    if value["apiVersion"].as_str().is_none_or(str::is_empty) {
        value["apiVersion"] = Value::String(ar.api_version.clone());
    }
    if value["kind"].as_str().is_none_or(str::is_empty) {
        value["kind"] = Value::String(ar.kind.clone());
    }
    Ok(value)
}

/// `(group, kind, name)` of a reference, v1beta2 (`apiGroup`) or v1beta1 (`apiVersion`).
fn reference(r: &Value) -> Option<(String, String, String)> {
    let kind = r["kind"].as_str().filter(|k| !k.is_empty())?;
    let name = r["name"].as_str().filter(|n| !n.is_empty())?;
    let group = r["apiGroup"].as_str().map(str::to_owned).or_else(|| {
        r["apiVersion"]
            .as_str()
            .map(|v| v.rsplit_once('/').map_or("", |(g, _)| g).to_owned())
    })?;
    Some((group, kind.to_owned(), name.to_owned()))
}

/// Reads the Cluster `target` and what belongs to it.
///
/// # Errors
/// A kubeconfig that cannot be read, a request refused or unanswered (naming its verb and
/// resource), a Cluster that does not exist, a workload kubeconfig Secret missing or invalid.
pub fn read(
    args: &ServerArgs,
    workload_kubeconfig: Option<&Path>,
    target: &Target,
) -> Result<ClusterRead, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the client runtime: {e}"))?;
    let (config, _context) = runtime.block_on(crate::server::config(args, "preflight"))?;
    let url = config.cluster_url.to_string();
    let mut m = Reader::connect(&runtime, config, format!("management cluster {url}"))?;
    let mut read = ClusterRead {
        management_url: url,
        ..ClusterRead::default()
    };
    let ns = target.namespace.as_str();
    let cluster_ar = m.resource(CORE_GROUP, "Cluster")?.ok_or_else(|| {
        format!(
            "{}: serves no Cluster of {CORE_GROUP}: is Cluster API installed?",
            m.cluster
        )
    })?;
    let cluster = m
        .get(&cluster_ar, ns, &target.name)?
        .ok_or_else(|| format!("{}: Cluster {ns}/{} not found", m.cluster, target.name))?;
    let view: Cluster = serde_json::from_value(cluster.clone())
        .map_err(|e| format!("Cluster {ns}/{}: cannot be read: {e}", target.name))?;
    let control_plane_ref = reference(&cluster["spec"]["controlPlaneRef"]);
    read.management.push(cluster);

    // The ClusterClass of a topology.
    if let Some(class) = view
        .spec
        .topology
        .as_ref()
        .and_then(|t| t.class_ref.as_ref())
        && !class.name.is_empty()
        && let Some(ar) = m.resource(CORE_GROUP, "ClusterClass")?
    {
        let class_ns = if class.namespace.is_empty() {
            ns
        } else {
            class.namespace.as_str()
        };
        match m.get(&ar, class_ns, &class.name)? {
            Some(o) => read.management.push(o),
            None => read
                .missing
                .push(format!("ClusterClass {class_ns}/{}", class.name)),
        }
    }
    // The control plane, any kind.
    if let Some((group, kind, name)) = control_plane_ref {
        match m.resource(&group, &kind)? {
            Some(ar) => match m.get(&ar, ns, &name)? {
                Some(o) => read.management.push(o),
                None => read.missing.push(format!("{kind} {ns}/{name}")),
            },
            None => read.missing.push(format!(
                "{kind} {ns}/{name} (the server serves no {kind}.{group})"
            )),
        }
    }
    // The workers and Machines of the cluster, by its label.
    let mut pools = Vec::new();
    for kind in ["MachinePool", "MachineDeployment", "Machine"] {
        let Some(ar) = m.resource(CORE_GROUP, kind)? else {
            continue;
        };
        let items = m.list_of_cluster(&ar, target)?;
        if kind == "MachinePool" {
            pools.clone_from(&items);
        }
        read.management.extend(items);
    }
    // Each MachinePool's InfraMachinePool, by reference.
    for pool in &pools {
        let infrastructure_ref = INFRASTRUCTURE_REF.node(pool).unwrap_or(&Value::Null);
        let Some((group, kind, name)) = reference(infrastructure_ref) else {
            continue;
        };
        match m.resource(&group, &kind)? {
            Some(ar) => match m.get(&ar, ns, &name)? {
                Some(o) => read.management.push(o),
                None => read.missing.push(format!("{kind} {ns}/{name}")),
            },
            None => read.missing.push(format!(
                "{kind} {ns}/{name} (the server serves no {kind}.{group})"
            )),
        }
    }

    // The workload cluster.
    let (workload_config, how) = match workload_kubeconfig {
        Some(path) => {
            let kubeconfig = kube::config::Kubeconfig::read_from(path)
                .map_err(|e| format!("--workload-kubeconfig {}: {e}", path.display()))?;
            crate::server::runs_nothing(
                &kubeconfig,
                None,
                args.allow_exec_plugin,
                "--workload-kubeconfig",
            )?;
            (
                kubeconfig,
                format!("--workload-kubeconfig {}", path.display()),
            )
        }
        None => {
            let secret_name = format!("{}-kubeconfig", target.name);
            let secrets: Api<Secret> = Api::namespaced(m.client.clone(), ns);
            let secret = m
                .block(secrets.get_opt(&secret_name), "get", "secrets", Some(ns))?
                .ok_or_else(|| {
                    format!(
                        "{}: Secret {ns}/{secret_name} not found: Cluster API keeps the workload cluster's kubeconfig there; pass --workload-kubeconfig otherwise",
                        m.cluster
                    )
                })?;
            let value = secret
                .data
                .as_ref()
                .and_then(|d| d.get("value"))
                .ok_or_else(|| format!("Secret {ns}/{secret_name}: no data key `value`"))?;
            let text = std::str::from_utf8(&value.0)
                .map_err(|_| format!("Secret {ns}/{secret_name}: data.value is not UTF-8"))?;
            let kubeconfig = kube::config::Kubeconfig::from_yaml(text)
                .map_err(|e| format!("Secret {ns}/{secret_name}: data.value: {e}"))?;
            let flag = format!("Secret {ns}/{secret_name}");
            crate::server::runs_nothing(&kubeconfig, None, args.allow_exec_plugin, &flag)?;
            (kubeconfig, format!("Secret {ns}/{secret_name}"))
        }
    };
    let config = runtime
        .block_on(kube::Config::from_custom_kubeconfig(
            workload_config,
            &kube::config::KubeConfigOptions::default(),
        ))
        .map_err(|e| format!("{how}: cannot read the kubeconfig: {e}"))?;
    let workload_url = config.cluster_url.to_string();
    let mut w = Reader::connect(
        &runtime,
        config,
        format!("workload cluster {workload_url} ({how})"),
    )?;
    let nodes: Api<Node> = Api::all(w.client.clone());
    let listed = w.list(&nodes, &ListParams::default(), "nodes", None)?;
    read.nodes = listed
        .into_iter()
        .map(|n| serde_json::to_value(&n).map_err(|e| format!("cannot write a Node as JSON: {e}")))
        .collect::<Result<_, _>>()?;
    read.workload = format!("{workload_url} ({how})");
    Ok(read)
}
