//! MachinePools through a real API server: the CRD `capi-machinepool crd` prints, installed
//! with the example conversion webhook (real TLS, `caBundle`), objects created at one version
//! and read at the other, compared with upstream Cluster API's own conversion answers
//! (tests/fixtures/conversion-upstream, see its README), listed at both versions, watched.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::time::Duration;

use capi_e2e::machine_pools_path as path;
use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, ApiResource, DynamicObject, ListParams, WatchEvent, WatchParams};
use serde_json::Value;

const GROUP: &str = "cluster.x-k8s.io";
const NAMESPACE: &str = "default";
// A list or watch fails as a whole when one object in its scope cannot be converted (the
// server refuses to serve it), so the tests that store objects the webhook cannot convert
// back and the tests that list and watch use namespaces of their own.
const LIST_NAMESPACE: &str = "e2e-list";
const WATCH_NAMESPACE: &str = "e2e-watch";
const FIXTURE_NAMESPACE: &str = "e2e-fixtures";

async fn create(
    client: &kube::Client,
    object: &Value,
    namespace: &str,
) -> Result<Value, kube::Error> {
    let (version, _) = capi_e2e::version_and_other(object);
    let request = capi_e2e::http_request(
        "POST",
        &path(namespace, version, None),
        serde_json::to_vec(object).unwrap(),
    );
    client.request(request).await
}

async fn get(client: &kube::Client, namespace: &str, version: &str, name: &str) -> Value {
    let request = capi_e2e::http_request("GET", &path(namespace, version, Some(name)), Vec::new());
    client
        .request(request)
        .await
        .unwrap_or_else(|e| panic!("GET {name} at {version}: {e}"))
}

/// The parts of a MachinePool a create fully determines: `spec`, labels, annotations.
fn user_parts(object: &Value) -> Value {
    let empty = |v: &Value| v.is_null() || v.as_object().is_some_and(serde_json::Map::is_empty);
    let meta = &object["metadata"];
    let pick = |v: &Value| if empty(v) { Value::Null } else { v.clone() };
    serde_json::json!({
        "apiVersion": object["apiVersion"],
        "spec": object["spec"],
        "labels": pick(&meta["labels"]),
        "annotations": pick(&meta["annotations"]),
    })
}

/// The conversion-data annotation depends on `status`, which a create cannot set: removed
/// where an input had a status that the server dropped.
fn without_conversion_data(mut parts: Value) -> Value {
    if let Some(a) = parts["annotations"].as_object_mut() {
        a.remove("cluster.x-k8s.io/conversion-data");
        if a.is_empty() {
            parts["annotations"] = Value::Null;
        }
    }
    parts
}

/// Drops `namespace` from the v1beta1 bootstrap and infrastructure references.
fn without_reference_namespaces(mut parts: Value) -> Value {
    parts["spec"] = capi_e2e::without_reference_namespaces(&parts["spec"]);
    parts
}

/// What a comparison of user parts leaves out on both sides.
#[derive(Clone, Copy, Default)]
struct Normalised {
    /// The conversion-data annotation.
    conversion_data: bool,
    /// The namespaces of references.
    reference_namespaces: bool,
}

impl Normalised {
    fn parts(self, object: &Value) -> Value {
        let mut parts = user_parts(object);
        if self.conversion_data {
            parts = without_conversion_data(parts);
        }
        if self.reference_namespaces {
            parts = without_reference_namespaces(parts);
        }
        parts
    }

    /// `what: the server's object ... the other` when the user parts of the server's object
    /// and of `(name, other)` differ.
    fn difference(
        self,
        what: &str,
        server: &Value,
        (name, other): (&str, &Value),
    ) -> Option<String> {
        let (have, want) = (self.parts(server), self.parts(other));
        (have != want).then(|| {
            let label = format!("{name}:");
            format!("{what}:\n  server:   {have}\n  {label:<10}{want}")
        })
    }
}

fn upstream_files() -> Vec<(String, Value)> {
    let dir = capi_test_support::fixture("conversion-upstream");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            let text = std::fs::read_to_string(&p).unwrap();
            (stem, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// Every upstream answer whose input is a MachinePool: created at the input's version, read
/// at the other version (must equal upstream's conversion) and back (must equal upstream's
/// round trip).
#[tokio::test]
async fn objects_read_at_the_other_version_equal_upstreams_conversion() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let mut compared = 0;
    let mut failures = Vec::new();
    let mut schema_refused = Vec::new();
    for (stem, file) in upstream_files() {
        let input = &file["input"];
        if input["kind"] != "MachinePool" {
            continue;
        }
        let (from, to) = capi_e2e::version_and_other(input);
        let there = &file["results"][format!("{from}->{to}")];
        let back = &file["results"][format!("{from}->{to}->{from}")];
        let had_status = input.get("status").is_some();
        let namespace = input["metadata"]["namespace"]
            .as_str()
            .filter(|n| !n.is_empty());
        let name = format!("up-{stem}");
        let object = capi_e2e::prepare_create(input, &name, namespace.unwrap_or(NAMESPACE));
        let created = create(&client, &object, namespace.unwrap_or(NAMESPACE)).await;
        let created = match created {
            Err(kube::Error::Api(status)) if status.code == 422 => {
                // The server's schema refuses the input (upstream's answers cover conversion
                // only, and most random inputs break a schema rule): nothing to convert.
                schema_refused.push(format!("{stem}: {}", status.message));
                continue;
            }
            other => other,
        };
        match (there.get("ok"), created) {
            (None, Err(e)) => {
                // Upstream's conversion fails; so must the server's create (the webhook is
                // called to convert to the storage version, v1beta2).
                let text = e.to_string();
                if text.contains("conversion webhook") {
                    compared += 1;
                } else {
                    failures.push(format!(
                        "{stem}: upstream's conversion fails, the server refuses for another reason: {text}"
                    ));
                }
            }
            (None, Ok(_)) => {
                failures.push(format!(
                    "{stem}: upstream's conversion fails ({}) but the server stored it",
                    there["error"]
                ));
            }
            (Some(_), Err(e)) => {
                failures.push(format!("{stem}: the server refuses the create: {e}"));
            }
            (Some(expected), Ok(_)) => {
                let ns = namespace.unwrap_or(NAMESPACE);
                let got = get(&client, ns, to, &name).await;
                // Upstream converted an object without a namespace; the server's object
                // lives in `default`, which v1beta1 references inherit.
                let other_namespace = namespace.is_none();
                let there = Normalised {
                    conversion_data: had_status || to == "v1beta1",
                    reference_namespaces: other_namespace,
                };
                failures.extend(there.difference(
                    &format!("{stem} at {to}"),
                    &got,
                    ("upstream", expected),
                ));
                let got_back = get(&client, ns, from, &name).await;
                if from == "v1beta2" {
                    // The storage version: read back without any conversion, as sent.
                    failures.extend(Normalised::default().difference(
                        &format!("{stem} back at {from}"),
                        &got_back,
                        ("sent", &object),
                    ));
                } else if let Some(expected_back) = back.get("ok") {
                    let back = Normalised {
                        conversion_data: true,
                        reference_namespaces: other_namespace,
                    };
                    failures.extend(back.difference(
                        &format!("{stem} back at {from}"),
                        &got_back,
                        ("upstream", expected_back),
                    ));
                }
                compared += 1;
            }
        }
    }
    eprintln!(
        "{compared} upstream answers compared; {} inputs refused by the server's schema:\n{}",
        schema_refused.len(),
        schema_refused.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared >= 8, "only {compared} upstream answers compared");
}

/// The MachinePool of upstream's Docker example (tests/fixtures/corpus/objects, SOURCE in
/// tests/fixtures/corpus/SOURCE-capi.txt), created at v1beta2 and read at v1beta1 and back:
/// the v1beta2 object the server returns is the one sent.
#[tokio::test]
async fn corpus_machine_pool_round_trips_through_v1beta1() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let pool = capi_e2e::corpus_machine_pool();
    let object = capi_e2e::prepare_create(&pool, "corpus-worker-mp-0", NAMESPACE);
    create(&client, &object, NAMESPACE)
        .await
        .unwrap_or_else(|e| panic!("create the corpus MachinePool: {e}"));
    let old = get(&client, NAMESPACE, "v1beta1", "corpus-worker-mp-0").await;
    assert_eq!(old["apiVersion"], "cluster.x-k8s.io/v1beta1");
    // v1beta1 names references by apiVersion; the webhook resolved DockerMachinePool through
    // the contract label of its CRD (REFERENCE_CRDS: v1beta2).
    assert_eq!(
        old["spec"]["template"]["spec"]["infrastructureRef"]["apiVersion"],
        "infrastructure.cluster.x-k8s.io/v1beta2",
        "{old}"
    );
    assert_eq!(old["spec"]["replicas"], 2);
    let new = get(&client, NAMESPACE, "v1beta2", "corpus-worker-mp-0").await;
    assert_eq!(user_parts(&new), user_parts(&object), "{new}");
}

fn resource(version: &str) -> ApiResource {
    ApiResource {
        group: GROUP.into(),
        version: version.into(),
        api_version: format!("{GROUP}/{version}"),
        kind: "MachinePool".into(),
        plural: "machinepools".into(),
    }
}

/// A list at either version holds the same objects, each in the version asked for.
#[tokio::test]
async fn lists_at_both_versions() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    for name in ["list-a", "list-b"] {
        let object = serde_json::json!({
            "apiVersion": "cluster.x-k8s.io/v1beta1",
            "kind": "MachinePool",
            "metadata": {"name": name, "namespace": LIST_NAMESPACE, "labels": {"e2e": "list"}},
            "spec": {
                "clusterName": "c",
                "template": {"spec": {
                    "clusterName": "c",
                    "bootstrap": {"dataSecretName": "boot"},
                    "infrastructureRef": {
                        "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                        "kind": "DockerMachinePool",
                        "name": name,
                    },
                }},
            },
        });
        create(&client, &object, LIST_NAMESPACE)
            .await
            .unwrap_or_else(|e| panic!("create {name}: {e}"));
    }
    let params = ListParams::default().labels("e2e=list");
    for version in ["v1beta1", "v1beta2"] {
        let api: Api<DynamicObject> =
            Api::namespaced_with(client.clone(), LIST_NAMESPACE, &resource(version));
        let list = api.list(&params).await.unwrap();
        let mut names: Vec<_> = list
            .items
            .iter()
            .filter_map(|o| o.metadata.name.clone())
            .collect();
        names.sort();
        assert_eq!(names, ["list-a", "list-b"], "at {version}");
        for item in &list.items {
            let ref_ = &item.data["spec"]["template"]["spec"]["infrastructureRef"];
            if version == "v1beta2" {
                // v1beta2 references carry apiGroup, not apiVersion (upstream's hub type).
                assert_eq!(
                    ref_["apiGroup"], "infrastructure.cluster.x-k8s.io",
                    "{ref_}"
                );
                assert!(ref_.get("apiVersion").is_none(), "{ref_}");
            } else {
                assert!(ref_["apiVersion"].is_string(), "{ref_}");
            }
        }
    }
}

/// A watch at v1beta2 sees an object created at v1beta1, converted.
#[tokio::test]
async fn a_watch_sees_a_create() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), WATCH_NAMESPACE, &resource("v1beta2"));
    let start = api.list(&ListParams::default()).await.unwrap();
    let version = start.metadata.resource_version.unwrap_or_default();
    let params = WatchParams::default().labels("e2e=watch").timeout(60);
    let mut stream = api.watch(&params, &version).await.unwrap().boxed();
    let object = serde_json::json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "MachinePool",
        "metadata": {"name": "watched", "namespace": WATCH_NAMESPACE, "labels": {"e2e": "watch"}},
        "spec": {
            "clusterName": "c",
            "replicas": 3,
            "template": {"spec": {
                "clusterName": "c",
                "bootstrap": {"dataSecretName": "boot"},
                "infrastructureRef": {
                    "apiVersion": "infrastructure.cluster.x-k8s.io/v1beta1",
                    "kind": "DockerMachinePool",
                    "name": "watched",
                },
            }},
        },
    });
    create(&client, &object, WATCH_NAMESPACE).await.unwrap();
    let seen = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(event) = stream.try_next().await.unwrap() {
            if let WatchEvent::Added(o) = event {
                return Some(o);
            }
        }
        None
    })
    .await
    .expect("an event within a minute")
    .expect("an Added event");
    assert_eq!(seen.metadata.name.as_deref(), Some("watched"));
    assert_eq!(seen.types.unwrap().api_version, "cluster.x-k8s.io/v1beta2");
    assert_eq!(seen.data["spec"]["replicas"], 3);
}

/// The `group/Kind=apiVersion` map the webhook answers with ([`capi_e2e::REFERENCE_CRDS`]),
/// as the oracle takes it.
const MAP: &[(&str, &str)] = &[
    (
        "bootstrap.cluster.x-k8s.io/KubeadmConfig",
        "bootstrap.cluster.x-k8s.io/v1beta2",
    ),
    (
        "bootstrap.cluster.x-k8s.io/TalosConfig",
        "bootstrap.cluster.x-k8s.io/v1alpha3",
    ),
    (
        "infrastructure.cluster.x-k8s.io/DevMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta2",
    ),
    (
        "infrastructure.cluster.x-k8s.io/DockerMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta2",
    ),
    (
        "infrastructure.cluster.x-k8s.io/AWSMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta2",
    ),
    (
        "infrastructure.cluster.x-k8s.io/AzureMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta1",
    ),
    (
        "infrastructure.cluster.x-k8s.io/FooMachinePool",
        "infrastructure.cluster.x-k8s.io/v1beta1",
    ),
];

/// The MachinePools of the fixtures (providers' clusterctl templates, with their variables
/// substituted, cluster snapshots, upstream's Docker example and e2e template, the every-field
/// conversion fixtures).
const FIXTURE_FILES: &[&str] = &[
    "corpus/objects/machine-pool.yaml",
    "corpus/templates/mp.yaml",
    "capz-sets/machinepool-machines.yaml",
    "providers/capz-v1.3.2/objects.yaml",
    "providers/gardener-v0.2.0/objects.yaml",
    "providers/capa-v1.5.2/objects.yaml",
    "providers/oci-v0.15.0/objects.yaml",
    "providers/capg-v1.12.0/objects.yaml",
    "conversion/v1beta1-every-field.yaml",
    "conversion/v1beta2-every-field.yaml",
    "clusters/versions-only.yaml",
    "clusters/eks-managed.yaml",
    "clusters/aws-kubeadm.yaml",
];

/// Every fixture MachinePool created at its version and read at the other: the server's
/// answer (through our webhook) equals upstream's live conversion (`tests/go/oracle`) of the
/// object the server stored, or both fail.
#[tokio::test]
async fn fixture_machine_pools_equal_the_live_oracle() {
    let Some(server) = capi_e2e::api_server() else {
        return;
    };
    let Some(oracle) = capi_test_support::oracle::oracle() else {
        return;
    };
    let client = server.client().await;
    capi_e2e::install_machine_pool_crd(&client).await;
    let mut compared = 0;
    let mut both_refused = 0;
    let mut failures = Vec::new();
    for file in FIXTURE_FILES {
        let text = std::fs::read_to_string(capi_test_support::fixture(file)).unwrap();
        let docs: Vec<Value> = serde_saphyr::from_multiple(&capi_e2e::substitute(&text)).unwrap();
        for (index, doc) in docs.iter().enumerate() {
            if doc["kind"] != "MachinePool" {
                continue;
            }
            let (from, to) = capi_e2e::version_and_other(doc);
            let name = format!("fx-{}", compared + failures.len());
            let namespace = FIXTURE_NAMESPACE;
            let object = capi_e2e::prepare_create(doc, &name, namespace);
            if let Err(e) = create(&client, &object, namespace).await {
                // A reference kind the webhook's map does not know: the server converts a new
                // object to every served version, cannot, and refuses the create; upstream's
                // conversion (there, or there and back) must fail too.
                let conversion = e.to_string().contains("conversion webhook");
                let upstream = match oracle.convert_machine_pool(&object, to, MAP) {
                    capi_test_support::oracle::Answer::Ok { value, .. } => {
                        oracle.convert_machine_pool(&value, from, MAP)
                    }
                    refused => refused,
                };
                if !(conversion && matches!(upstream, capi_test_support::oracle::Answer::Err(_))) {
                    failures.push(format!(
                        "{file}#{index}: the server refuses the create: {e}\n  upstream: {upstream:?}"
                    ));
                } else {
                    both_refused += 1;
                }
                compared += 1;
                continue;
            }
            // What the server holds at the version it was created at (defaults applied).
            let stored = get(&client, namespace, from, &name).await;
            let upstream = oracle.convert_machine_pool(&stored, to, MAP);
            let request =
                capi_e2e::http_request("GET", &path(namespace, to, Some(&name)), Vec::new());
            let served: Result<Value, _> = client.request(request).await;
            match (upstream, served) {
                (capi_test_support::oracle::Answer::Ok { value, .. }, Ok(got)) => {
                    let want = without_conversion_data(user_parts(&value));
                    let have = without_conversion_data(user_parts(&got));
                    if want != have {
                        failures.push(format!(
                            "{file}#{index} at {to}:\n  server:   {have}\n  upstream: {want}"
                        ));
                    }
                }
                (capi_test_support::oracle::Answer::Err(_), Err(_)) => {}
                (upstream, served) => failures.push(format!(
                    "{file}#{index} at {to}: upstream {upstream:?}\n  server {served:?}"
                )),
            }
            compared += 1;
        }
    }
    eprintln!("{compared} fixture MachinePools compared, {both_refused} refused by both");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared >= 12,
        "only {compared} fixture MachinePools compared"
    );
}
