//! The `capi-machinepool` binary end to end, on the corpus and the shipped examples.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use std::path::PathBuf;

use common::{run, stdout, temp_file};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn corpus(rel: &str) -> PathBuf {
    root().join("tests/fixtures/corpus").join(rel)
}

/// A real provider `config/crd` tree (`tests/fixtures/provider-trees`).
fn tree(name: &str) -> PathBuf {
    root()
        .join("tests/fixtures/provider-trees")
        .join(name)
        .join("config/crd")
}

#[test]
fn check_capi_dev_text_fails_with_exit_1() {
    let out = run(&["check", tree("capi-dev").to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains(
            "FAIL MUST contract-label-versions      metadata.labels[cluster.x-k8s.io/v1beta1]"
        ),
        "{text}"
    );
    assert!(
        text.contains("WARN MUST initialization-provisioned"),
        "{text}"
    );
    assert!(text.contains("fix: "), "{text}");
    assert!(text.contains("FAILED (a MUST rule is violated)"), "{text}");
}

#[test]
fn check_scaleway_passes_with_exit_0() {
    let out = run(
        &[
            "check",
            capi_test_support::partial_tree("corpus/providers/capi-provider-scaleway")
                .to_str()
                .unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn no_v1beta1_compat_turns_the_warning_into_a_failure() {
    let path = capi_test_support::partial_tree("corpus/providers/capi-provider-gcp");
    assert_eq!(
        run(&["check", path.to_str().unwrap()], None).status.code(),
        Some(0)
    );
    let out = run(
        &[
            "check",
            "--no-v1beta1-compat",
            "--format",
            "json",
            path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "deprecated-contract" && f["outcome"] == "fail")
    );
}

#[test]
fn json_output_is_valid_and_complete() {
    let out = run(
        &[
            "check",
            "--format",
            "json",
            tree("capi-dev").to_str().unwrap(),
        ],
        None,
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(report["summary"]["failed"], true);
    assert_eq!(report["summary"]["fail"], 2);
    let findings = report["findings"].as_array().unwrap();
    let f = findings.iter().find(|f| f["outcome"] == "fail").unwrap();
    for key in [
        "rule", "level", "outcome", "subject", "contract", "path", "message", "fix", "url",
    ] {
        assert!(f.get(key).is_some(), "missing {key}: {f}");
    }
    assert_eq!(f["level"], "MUST");
    assert!(
        f["url"]
            .as_str()
            .unwrap()
            .starts_with("https://cluster-api.sigs.k8s.io/")
    );
}

#[test]
fn junit_output_parses_as_xml() {
    use quick_xml::Reader;
    use quick_xml::events::Event;
    let out = run(
        &["check", "--format", "junit", tree("capz").to_str().unwrap()],
        None,
    );
    // cluster-api-provider-azure's real tree passes: its labels come from kustomize patches.
    assert_eq!(out.status.code(), Some(0));
    let xml = stdout(&out);
    let mut reader = Reader::from_str(&xml);
    let (mut suites, mut cases, mut failures, mut with_file) = (0, 0, 0, 0);
    loop {
        match reader.read_event().unwrap() {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                "testsuite" => suites += 1,
                "testcase" => {
                    cases += 1;
                    let file = e.try_get_attribute("file").unwrap();
                    if file.is_some_and(|f| f.value.ends_with(".yaml")) {
                        with_file += 1;
                    }
                }
                "failure" => failures += 1,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    assert!(suites >= 5, "{suites}");
    assert!(cases > 50, "{cases}");
    assert_eq!(failures, 0, "the Azure pools pass the MUST rules");
    assert!(with_file > 50, "test cases name their file: {with_file}");
}

#[test]
fn check_reads_a_rendered_bundle_with_other_documents() {
    let crd = std::fs::read_to_string(corpus("providers/capi-provider-scaleway/bases/infrastructure.cluster.x-k8s.io_scalewaymanagedmachinepools.yaml")).unwrap();
    let labelled = crd.replacen("metadata:\n", "metadata:\n  labels:\n    cluster.x-k8s.io/v1beta1: v1alpha1\n    cluster.x-k8s.io/v1beta2: v1alpha2\n", 1);
    let bundle = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: caps-system\n---\n{labelled}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m\n"
    );
    let path = temp_file("infrastructure-components.yaml", bundle.as_bytes());
    let out = run(&["check", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains(
        "scalewaymanagedmachinepools.infrastructure.cluster.x-k8s.io@v1alpha2 (contract v1beta2)"
    ));
}

#[test]
fn check_objects() {
    let objects = temp_file(
        "objects.yaml",
        br#"
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: DevMachinePool
metadata: {name: p, namespace: default}
spec:
  providerIDList: ["docker:////p-1", ""]
status:
  replicas: 2
  initialization: {provisioned: true}
"#,
    );
    let out = run(
        &[
            "check",
            "--objects",
            objects.to_str().unwrap(),
            "--format",
            "json",
            capi_test_support::partial_tree("corpus/providers/capi-provider-scaleway")
                .to_str()
                .unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let f = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "provider-id-list-values" && f["outcome"] == "fail")
        .unwrap();
    assert_eq!(f["path"], "spec.providerIDList[1]");
}

#[test]
fn unreadable_inputs_exit_2_with_the_file_named() {
    let missing = run(&["check", "/nonexistent/crds"], None);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/crds"));
    let bad_yaml = temp_file("bad.yaml", b"kind: CustomResourceDefinition\nspec: [\n");
    let out = run(&["check", bad_yaml.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("bad.yaml") && err.contains("line"), "{err}");
    let bad_utf8 = temp_file("bad-utf8.yaml", b"kind: \xff\xfe\n");
    let out = run(&["validate", "-f", bad_utf8.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid UTF-8"));
}

#[test]
fn validate_the_shipped_example() {
    let out = run(
        &[
            "validate",
            "-f",
            root().join("examples/machinepools.yaml").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("#0 MachinePool default/workers (cluster.x-k8s.io/v1beta2): ok"),
        "{text}"
    );
    for path in [
        "spec.template.spec.bootstrap: Required value",
        "spec.clusterName: Invalid value",
        "spec.template.spec.version: Invalid value",
        "spec.template.metadata.labels: Invalid value",
        "warning spec.template.spec.someFutureField",
    ] {
        assert!(text.contains(path), "{path} in {text}");
    }
}

#[test]
fn validate_reports_type_errors_with_their_path() {
    let file = temp_file("typed.yaml", b"apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachinePool\nmetadata: {name: x}\nspec:\n  replicas: 3000000000\n");
    let text = stdout(&run(&["validate", "-f", file.to_str().unwrap()], None));
    // The API server's own texts: kube-openapi's int32 range check is a plain error, which
    // apiextensions reports at the root (`<nil>`); the scale subresource checks the same
    // field at its CRD path.
    for line in [
        r#"<nil>: Invalid value: "": Checked value must be of type integer with format int32 in spec.replicas"#,
        ".spec.replicas: Invalid value: 3000000000: should be less than or equal to 2147483647",
        "spec.template: Required value",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
}

/// Issue 65: a whole number written as a float in YAML (`3.0`, `3e0`, `-0.0`) is the integer
/// the API server reads after `kubectl apply` (sigs.k8s.io/yaml prints a whole `float64`
/// without fraction through Go's `encoding/json`; apimachinery's `util/json` then decodes it
/// as `int64`); the same `3.0` sent as JSON stays a float, which the server refuses for an
/// integer field (`accessor error: 3 is of the type float64`), as does `3.5` in either form.
#[test]
fn yaml_whole_floats_are_integers_as_kubectl_sends_them() {
    let pool = |replicas: &str| {
        format!(
            "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachinePool\nmetadata: {{name: x, namespace: default}}\nspec:\n  clusterName: c\n  replicas: {replicas}\n  template:\n    spec:\n      clusterName: c\n      version: v1.33.0\n      bootstrap: {{dataSecretName: s}}\n      infrastructureRef: {{apiGroup: infrastructure.cluster.x-k8s.io, kind: FooMachinePool, name: p}}\n"
        )
    };
    let validate = |input: &str| {
        let out = run(
            &["validate", "--control-plane-version", "v1.33.0", "-f", "-"],
            Some(input.as_bytes()),
        );
        (out.status.code(), stdout(&out))
    };
    for whole in ["3.0", "3e0", "-0.0", "3"] {
        let (code, text) = validate(&pool(whole));
        assert_eq!(code, Some(0), "{whole}: {text}");
    }
    let (code, text) = validate(&pool("3.5"));
    assert_eq!(code, Some(1), "{text}");
    let json = r#"{"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "MachinePool", "metadata": {"name": "x", "namespace": "default"},
      "spec": {"clusterName": "c", "replicas": 3.0, "template": {"spec": {"clusterName": "c", "version": "v1.33.0",
        "bootstrap": {"dataSecretName": "s"}, "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io", "kind": "FooMachinePool", "name": "p"}}}}}"#;
    let (code, text) = validate(json);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("3 is of the type float64"), "{text}");
}

#[test]
fn convert_round_trips_and_passes_other_documents_through() {
    let input = corpus("objects/machine-pool.yaml");
    let maps = [
        "--map",
        "bootstrap.cluster.x-k8s.io/KubeadmConfig=bootstrap.cluster.x-k8s.io/v1beta2",
        "--map",
        "infrastructure.cluster.x-k8s.io/DockerMachinePool=infrastructure.cluster.x-k8s.io/v1beta2",
    ];
    let mut args = vec!["convert", "--to", "v1beta1"];
    args.extend(maps);
    args.extend(["-f", input.to_str().unwrap()]);
    let down = run(&args, None);
    assert_eq!(
        down.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&down.stderr)
    );
    let down_text = stdout(&down);
    assert!(down_text.contains("apiVersion: cluster.x-k8s.io/v1beta1"));
    // The Cluster document (with its leading comment) is passed through byte for byte.
    let original = std::fs::read_to_string(&input).unwrap();
    let first_doc = original.split("\n---\n").next().unwrap();
    assert!(
        down_text.starts_with(&format!("---\n{first_doc}\n")),
        "{down_text}"
    );
    let tmp = temp_file("down.yaml", down_text.as_bytes());
    let up = run(
        &["convert", "--to", "v1beta2", "-f", tmp.to_str().unwrap()],
        None,
    );
    assert_eq!(
        up.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&up.stderr)
    );
    let docs = |t: &str| -> Vec<Value> { serde_saphyr::from_multiple(t).unwrap() };
    let before: Vec<Value> = docs(&original);
    let after: Vec<Value> = docs(&stdout(&up));
    assert_eq!(
        before, after,
        "v1beta2 -> v1beta1 -> v1beta2 is lossless and keeps order"
    );
}

#[test]
fn convert_without_resolution_names_the_group_kind() {
    let out = run(
        &[
            "convert",
            "--to",
            "v1beta1",
            "-f",
            corpus("objects/machine-pool.yaml").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        err.contains("KubeadmConfig") || err.contains("DockerMachinePool"),
        "{err}"
    );
}

#[test]
fn review_reads_stdin_writes_stdout() {
    let review = br#"{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","desiredAPIVersion":"cluster.x-k8s.io/v1beta2","objects":[
      {"apiVersion":"cluster.x-k8s.io/v1beta1","kind":"MachinePool","metadata":{"name":"a"},"spec":{"clusterName":"c","minReadySeconds":3,"template":{"spec":{"clusterName":"c","bootstrap":{"dataSecretName":"s"},"infrastructureRef":{}}}}}]}}"#;
    let out = run(&["review"], Some(review));
    assert_eq!(out.status.code(), Some(0));
    let response: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(response["response"]["uid"], "u");
    assert_eq!(
        response["response"]["convertedObjects"][0]["spec"]["template"]["spec"]["minReadySeconds"],
        3
    );
}

#[test]
fn crd_command_prints_the_generated_crd() {
    let out = run(&["crd"], None);
    assert_eq!(out.status.code(), Some(0));
    let docs: Vec<Value> = serde_saphyr::from_multiple(&stdout(&out)).unwrap();
    assert_eq!(docs.len(), 1);
    let ours = &docs[0];
    assert_eq!(ours["metadata"]["name"], "machinepools.cluster.x-k8s.io");
    assert_eq!(*ours, capi_machinepool_api_crd());
}

fn capi_machinepool_api_crd() -> Value {
    // Through YAML, integers stay integers; compare with the library's JSON form.
    let text = stdout(&run(&["crd"], None));
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .remove(0)
}

#[test]
fn example_provider_crds_pass_check() {
    let mut yaml = String::new();
    for crd in foo_provider::crds() {
        yaml.push_str("---\n");
        yaml.push_str(&serde_saphyr::to_string(&crd).unwrap());
    }
    let path = temp_file("foo-crds.yaml", yaml.as_bytes());
    let out = run(
        &["check", "--no-v1beta1-compat", path.to_str().unwrap()],
        None,
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("0 fail, 0 warn"), "{text}");
}

#[test]
fn convert_to_the_current_version_changes_nothing() {
    let input = corpus("objects/machine-pool.yaml");
    let out = run(
        &["convert", "--to", "v1beta2", "-f", input.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let original = std::fs::read_to_string(&input).unwrap();
    assert_eq!(
        stdout(&out).replace("---\n", ""),
        original.replace("---\n", "")
    );
}
