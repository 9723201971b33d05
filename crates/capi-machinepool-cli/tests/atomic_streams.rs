//! Streams: nothing dropped, nothing half-written. Text after a `...` end marker is an error
//! (it was silently dropped), `convert` writes nothing unless the whole stream converts (a
//! partial output piped to `kubectl apply` would apply a partial set), and values read as the
//! API server reads them (`replicas: null` pruned, `017` octal as kubectl's YAML 1.1 reader
//! has it, `%TAG` directives applied).
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{run, stdout};
use serde_json::Value;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn pool(name: &str, version: &str, replicas: &str) -> String {
    let reference = if version == "v1beta2" {
        "apiGroup: infrastructure.cluster.x-k8s.io"
    } else {
        "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1"
    };
    format!(
        "apiVersion: cluster.x-k8s.io/{version}\nkind: MachinePool\nmetadata: {{name: {name}, namespace: d}}\nspec:\n  clusterName: c\n  replicas: {replicas}\n  template:\n    spec:\n      clusterName: c\n      bootstrap: {{dataSecretName: s}}\n      infrastructureRef: {{{reference}, kind: DevMachinePool, name: x}}\n"
    )
}

const CONVERT: &[&str] = &["convert", "--to", "v1beta2", "-f", "-"];

#[test]
fn text_after_an_end_marker_is_an_error_in_validate_and_convert() {
    // A second MachinePool written on the `...` line vanished from both commands (exit 0).
    let input = format!("{}... {{kind: MachinePool}}\n", pool("a", "v1beta1", "1"));
    for args in [CONVERT, &["validate", "-f", "-"][..]] {
        let o = run(args, Some(input.as_bytes()));
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("content after the document end marker"),
            "{}",
            stderr(&o)
        );
        assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
    }
}

#[test]
fn convert_writes_nothing_when_a_later_document_is_bad() {
    let good = pool("a", "v1beta1", "1");
    for bad in [
        // A syntax error.
        "a: [\n".to_owned(),
        // A MachinePool that does not decode.
        pool("b", "v1beta1", "'many'"),
    ] {
        let input = format!("{good}---\n{bad}");
        let o = run(CONVERT, Some(input.as_bytes()));
        assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
        assert!(
            o.stdout.is_empty(),
            "a partial stream was written: {}",
            stdout(&o)
        );
        assert!(stderr(&o).contains("nothing was written"), "{}", stderr(&o));
    }
    // The same stream without the bad document converts whole.
    let o = run(CONVERT, Some(good.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("cluster.x-k8s.io/v1beta2"));
}

#[test]
fn null_replicas_are_pruned_as_the_api_server_prunes_them() {
    let o = run(
        &["validate", "-f", "-"],
        Some(pool("a", "v1beta2", "null").as_bytes()),
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn leading_zero_integers_are_octal_as_kubectl_reads_them() {
    // kubectl (sigs.k8s.io/yaml on go-yaml v2, YAML 1.1) sends `replicas: 017` as 15.
    let o = run(CONVERT, Some(pool("a", "v1beta1", "017").as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out: Value = serde_saphyr::from_str(&stdout(&o)).unwrap();
    assert_eq!(out["spec"]["replicas"], 15, "{}", stdout(&o));
}

#[test]
fn a_tag_directive_before_the_marker_applies_to_its_document() {
    let input = format!(
        "%TAG !e! tag:example.com,2000:\n--- !e!pool\n{}",
        pool("a", "v1beta1", "1")
    );
    let o = run(CONVERT, Some(input.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("%TAG !e! tag:example.com,2000:\n---\n"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("apiVersion: cluster.x-k8s.io/v1beta2"),
        "{}",
        stdout(&o)
    );
}
