//! `deploy/` renders with the real kustomize (`kubectl kustomize`) into objects that fit
//! together, with cert-manager and without it (`deploy/self-signed`, after its
//! `make-cert.sh`): the Deployment runs as the ServiceAccount the ClusterRoleBinding grants
//! get/list/watch on CRDs (what the live resolution needs), mounts the Secret the certificate
//! path makes, reads the shipped ConfigMap, and its arguments are accepted by the binary. The
//! container recipe builds the binary the Deployment runs.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use serde::de::DeserializeOwned;
use serde_json::Value;

fn here() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn render(dir: &Path) -> Vec<Value> {
    let yaml = capi_test_support::kubectl::kustomize(dir).unwrap_or_else(|e| panic!("{e}"));
    serde_saphyr::from_multiple(&yaml).unwrap()
}

/// The one object of `kind` named `name`, typed.
fn one<T: DeserializeOwned>(docs: &[Value], kind: &str) -> T {
    let found: Vec<&Value> = docs.iter().filter(|d| d["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} expected");
    serde_json::from_value(found[0].clone()).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// The object of `kind` named `name`, typed.
fn named<T: DeserializeOwned>(docs: &[Value], kind: &str, name: &str) -> T {
    let found = docs
        .iter()
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"));
    serde_json::from_value(found.clone()).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// The metrics' RBAC (issue 63): the ServiceAccount may create TokenReviews and
/// SubjectAccessReviews, and a `metrics-reader` ClusterRole grants `get` on `/metrics`.
fn metrics_rbac_fits(docs: &[Value], account: &ServiceAccount) {
    let name = "machinepool-conversion-webhook-metrics-auth";
    let role: ClusterRole = named(docs, "ClusterRole", name);
    let binding: ClusterRoleBinding = named(docs, "ClusterRoleBinding", name);
    assert_eq!(binding.role_ref.name, name);
    let subject = &binding.subjects.as_ref().unwrap()[0];
    assert_eq!(Some(&subject.name), account.metadata.name.as_ref());
    let mut granted: Vec<(String, String, Vec<String>)> = role
        .rules
        .unwrap()
        .into_iter()
        .flat_map(|r| {
            let groups = r.api_groups.unwrap_or_default();
            let verbs = r.verbs.clone();
            r.resources
                .unwrap_or_default()
                .into_iter()
                .map(move |res| (groups.join(","), res, verbs.clone()))
        })
        .collect();
    granted.sort();
    assert_eq!(
        granted,
        [
            (
                "authentication.k8s.io".to_owned(),
                "tokenreviews".to_owned(),
                vec!["create".to_owned()]
            ),
            (
                "authorization.k8s.io".to_owned(),
                "subjectaccessreviews".to_owned(),
                vec!["create".to_owned()]
            ),
        ]
    );
    let reader: ClusterRole = named(
        docs,
        "ClusterRole",
        "machinepool-conversion-webhook-metrics-reader",
    );
    let rules = reader.rules.unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(
        rules[0].non_resource_urls.as_deref(),
        Some(&["/metrics".to_owned()][..])
    );
    assert_eq!(rules[0].verbs, ["get"]);
}

/// What both certificate paths share: the base objects fit together.
fn base_fits(docs: &[Value]) -> Deployment {
    let account: ServiceAccount = one(docs, "ServiceAccount");
    let role: ClusterRole = named(docs, "ClusterRole", "machinepool-conversion-webhook");
    let binding: ClusterRoleBinding =
        named(docs, "ClusterRoleBinding", "machinepool-conversion-webhook");
    metrics_rbac_fits(docs, &account);
    let deployment: Deployment = one(docs, "Deployment");
    let service: Service = one(docs, "Service");
    let config_map: ConfigMap = one(docs, "ConfigMap");

    let pod = pod_of(&deployment);
    assert_eq!(pod.service_account_name, account.metadata.name);
    let subject = &binding.subjects.as_ref().unwrap()[0];
    assert_eq!(
        (Some(&subject.name), subject.namespace.as_ref()),
        (
            account.metadata.name.as_ref(),
            account.metadata.namespace.as_ref()
        )
    );
    assert_eq!(Some(&binding.role_ref.name), role.metadata.name.as_ref());
    let rules = role.rules.unwrap();
    let crd_rule = rules
        .iter()
        .find(|r| {
            r.resources
                .as_ref()
                .is_some_and(|v| v.contains(&"customresourcedefinitions".to_owned()))
        })
        .expect("a rule on customresourcedefinitions");
    assert_eq!(
        crd_rule.api_groups.as_deref(),
        Some(&["apiextensions.k8s.io".to_owned()][..])
    );
    let mut verbs = crd_rule.verbs.clone();
    verbs.sort();
    assert_eq!(verbs, ["get", "list", "watch"]);

    let volumes = pod.volumes.as_ref().unwrap();
    let config_volume = volumes
        .iter()
        .find_map(|v| v.config_map.as_ref())
        .expect("a ConfigMap volume");
    assert_eq!(
        config_volume.name,
        config_map.metadata.name.clone().unwrap()
    );
    let crds = &config_map.data.as_ref().unwrap()["provider-crds.yaml"];
    let crds: Vec<Value> = serde_saphyr::from_multiple(crds).unwrap();
    assert!(crds.iter().all(|c| c["kind"] == "CustomResourceDefinition"));
    assert_eq!(
        service.spec.unwrap().selector,
        deployment.spec.as_ref().unwrap().selector.match_labels
    );

    // The binary accepts the Deployment's arguments: with no cluster credentials it stops at
    // `--cluster-crds always`, after parsing them all.
    let args = pod.containers[0].args.clone().unwrap();
    // Metrics as Cluster API serves them: HTTPS on :8443 with authorization.
    assert!(args.contains(&"--metrics-secure".to_owned()), "{args:?}");
    assert!(
        args.contains(&"--metrics-addr=0.0.0.0:8443".to_owned()),
        "{args:?}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_conversion-webhook"))
        .args(&args)
        .env("KUBECONFIG", here().join("no-such-kubeconfig"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("HOME", here().join("no-such-home"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(!stderr.contains("Usage:"), "{stderr}");
    assert!(
        stdout.contains("no cluster credentials"),
        "{stdout}{stderr}"
    );
    deployment
}

fn pod_of(deployment: &Deployment) -> &k8s_openapi::api::core::v1::PodSpec {
    let template = &deployment
        .spec
        .as_ref()
        .expect("a Deployment spec")
        .template;
    template.spec.as_ref().expect("a pod spec")
}

fn secret_volume(deployment: &Deployment) -> String {
    let pod = pod_of(deployment);
    pod.volumes
        .as_ref()
        .unwrap()
        .iter()
        .find_map(|v| v.secret.as_ref()?.secret_name.clone())
        .expect("a Secret volume")
}

#[test]
fn with_cert_manager() {
    if !capi_test_support::kubectl::available() {
        return;
    }
    let docs = render(&here().join("deploy/cert-manager"));
    let deployment = base_fits(&docs);
    let certificate = docs
        .iter()
        .find(|d| d["kind"] == "Certificate")
        .expect("a Certificate");
    assert_eq!(
        certificate["spec"]["secretName"],
        secret_volume(&deployment)
    );
    // The example's own kustomization is this one.
    assert_eq!(render(&here()), docs);
}

#[test]
fn without_cert_manager() {
    if !capi_test_support::kubectl::available() {
        return;
    }
    // make-cert.sh writes beside itself: run it on a copy.
    let dir =
        capi_test_support::go_tool::go_bin_dir().join(format!("deploy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["base", "self-signed"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for entry in std::fs::read_dir(here().join("deploy").join(sub)).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(sub).join(entry.file_name())).unwrap();
        }
    }
    let made = Command::new("sh")
        .arg(dir.join("self-signed/make-cert.sh"))
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let docs = render(&dir.join("self-signed"));
    let deployment = base_fits(&docs);
    // kustomize wraps the base64 of generated Secrets in lines, which Go's decoder (the API
    // server's) skips and k8s-openapi's does not.
    let mut unwrapped = docs.clone();
    for doc in unwrapped.iter_mut().filter(|d| d["kind"] == "Secret") {
        for value in doc["data"].as_object_mut().unwrap().values_mut() {
            *value = value.as_str().unwrap().replace('\n', "").into();
        }
    }
    let secret: Secret = one(&unwrapped, "Secret");
    assert_eq!(secret.metadata.name.unwrap(), secret_volume(&deployment));
    assert_eq!(secret.type_.as_deref(), Some("kubernetes.io/tls"));
    let data = secret.data.unwrap();
    assert!(String::from_utf8_lossy(&data["tls.crt"].0).contains("BEGIN CERTIFICATE"));
    assert!(String::from_utf8_lossy(&data["tls.key"].0).contains("PRIVATE KEY"));
    // The CRD patch trusts the CA that signed the certificate.
    let patch: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(dir.join("self-signed/crd-patch.yaml")).unwrap(),
    )
    .unwrap();
    let config = &patch["spec"]["conversion"]["webhook"]["clientConfig"];
    let ca_bundle: k8s_openapi::ByteString =
        serde_json::from_value(config["caBundle"].clone()).unwrap();
    assert_eq!(
        ca_bundle.0,
        std::fs::read(dir.join("self-signed/ca.crt")).unwrap()
    );
    let service: Service = one(&docs, "Service");
    assert_eq!(
        config["service"]["name"].as_str(),
        service.metadata.name.as_deref()
    );
    let verified = Command::new("openssl")
        .arg("verify")
        .arg("-CAfile")
        .arg(dir.join("self-signed/ca.crt"))
        .arg(dir.join("self-signed/tls.crt"))
        .output()
        .unwrap();
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
    // A second run refuses to overwrite the certificate.
    let again = Command::new("sh")
        .arg(dir.join("self-signed/make-cert.sh"))
        .output()
        .unwrap();
    assert!(!again.status.success());
}

/// The container recipe builds the binary the Deployment runs, from the locked workspace, and
/// runs it as the non-root user the Deployment requires.
#[test]
fn container_recipe_builds_the_webhook() {
    let recipe = std::fs::read_to_string(here().join("Dockerfile")).unwrap();
    assert!(
        recipe.contains(
            "cargo build --release --locked -p conversion-webhook --bin conversion-webhook"
        )
    );
    assert!(recipe.contains("ENTRYPOINT [\"/conversion-webhook\"]"));
    assert!(recipe.contains("USER 65532:65532"));
    let ignored = std::fs::read_to_string(here().join("../../.dockerignore")).unwrap();
    assert!(ignored.lines().any(|l| l == "target"));
}
