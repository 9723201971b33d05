//! Go's `encoding/json` reads the JSON number `-0` into an integer field as 0: its decoder
//! (`encoding/json/decode.go`, `literalStore`) hands the literal to `strconv.ParseInt`, which
//! reads `-0` as 0. `serde_json` reads `-0` as the float `-0.0` and refuses it for an integer,
//! so every integer field needs the rule of `wire::int`, and a new field that forgets it would
//! silently stop matching Go.
//!
//! This test finds the integer fields in the generated CRD schema (both versions, plus the
//! `metav1.ObjectMeta` schema for the root `metadata`, which the CRD leaves open, and
//! `metav1.ListMeta` for lists), feeds `-0` to each one alone, and checks that the object reads and prints exactly as the same object
//! with `0` there: Go decodes both texts to the same value, so it prints them alike.
#![allow(clippy::unwrap_used, clippy::panic)]

use capi_machinepool_api::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
use capi_machinepool_api::schema::structural_schema_for;
use capi_machinepool_api::{v1beta1, v1beta2, wire};
use common::paths::{Step, display, document, paths_where, version_schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod common;

/// The `type: integer` paths of `schema`, below `prefix`.
fn integer_paths(schema: &Value, prefix: &str) -> Vec<Vec<Step>> {
    let prefix = if prefix.is_empty() {
        vec![]
    } else {
        vec![Step::Key(prefix.into())]
    };
    paths_where(schema, prefix, |_, sub| sub["type"] == "integer")
}

/// Every integer path of a version: its CRD schema and the root `metadata`'s.
fn version_integer_paths(version: &str) -> Vec<Vec<Step>> {
    let schema = version_schema(version);
    assert_eq!(
        schema["properties"]["metadata"],
        json!({"type": "object"}),
        "the CRD leaves metadata open; its fields come from metav1.ObjectMeta's schema"
    );
    let mut paths = integer_paths(&schema, "");
    paths.extend(integer_paths(
        &structural_schema_for::<ObjectMeta>(),
        "metadata",
    ));
    paths
}

/// Reads `-0` and `0` at every path into `T`: both read, and print the same Go bytes.
/// Returns the fields tried.
fn minus_zero_reads_as_zero<T: DeserializeOwned + Serialize>(
    api_version: &str,
    kind: &str,
    paths: &[Vec<Step>],
) -> Vec<String> {
    let mut failures = Vec::new();
    for path in paths {
        let field = display(path);
        let read = |number: &str| {
            let text = document(api_version, kind, path, number);
            serde_json::from_str::<T>(&text).map_err(|e| format!("{field}: {text}: {e}"))
        };
        let (minus_zero, zero) = match (read("-0"), read("0")) {
            (Ok(minus_zero), Ok(zero)) => (minus_zero, zero),
            (Err(e), _) | (_, Err(e)) => {
                failures.push(e);
                continue;
            }
        };
        let printed = wire::to_string(&minus_zero).unwrap();
        if printed != wire::to_string(&zero).unwrap() || printed.contains("-0") {
            failures.push(format!("{field}: `-0` prints {printed}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{kind} {api_version}:\n{}",
        failures.join("\n")
    );
    paths.iter().map(|p| display(p)).collect()
}

/// The integer paths of a list of a version: its `metadata` (`metav1.ListMeta`) and items.
fn list_integer_paths(version: &str) -> Vec<Vec<Step>> {
    let mut paths = integer_paths(&structural_schema_for::<ListMeta>(), "metadata");
    for item in version_integer_paths(version) {
        let mut path = vec![Step::Key("items".into()), Step::Item];
        path.extend(item);
        paths.push(path);
    }
    paths
}

/// The walk reached `expected` (root, nested, list-item and metadata integers), so an empty
/// or truncated walk cannot pass.
fn assert_reached(fields: &[String], expected: &[&str]) {
    for field in expected {
        assert!(fields.iter().any(|f| f == field), "{field} in {fields:?}");
    }
}

#[test]
fn minus_zero_reads_as_zero_in_every_v1beta1_integer_field() {
    let fields = minus_zero_reads_as_zero::<v1beta1::MachinePool>(
        "cluster.x-k8s.io/v1beta1",
        "MachinePool",
        &version_integer_paths("v1beta1"),
    );
    assert_reached(
        &fields,
        &[
            "spec.replicas",
            "spec.minReadySeconds",
            "status.replicas",
            "status.observedGeneration",
            "status.versions[].replicas",
            "status.v1beta2.conditions[].observedGeneration",
            "metadata.generation",
            "metadata.deletionGracePeriodSeconds",
        ],
    );
}

#[test]
fn minus_zero_reads_as_zero_in_every_v1beta2_integer_field() {
    let fields = minus_zero_reads_as_zero::<v1beta2::MachinePool>(
        "cluster.x-k8s.io/v1beta2",
        "MachinePool",
        &version_integer_paths("v1beta2"),
    );
    assert_reached(
        &fields,
        &[
            "spec.replicas",
            "spec.template.spec.minReadySeconds",
            "spec.template.spec.deletion.nodeDrainTimeoutSeconds",
            "status.replicas",
            "status.observedGeneration",
            "status.conditions[].observedGeneration",
            "status.deprecated.v1beta1.readyReplicas",
            "metadata.generation",
            "metadata.deletionGracePeriodSeconds",
        ],
    );
}

#[test]
fn minus_zero_reads_as_zero_in_every_list_integer_field() {
    let list = |version| {
        (
            format!("cluster.x-k8s.io/{version}"),
            list_integer_paths(version),
        )
    };
    let (api_version, paths) = list("v1beta1");
    let v1beta1 = minus_zero_reads_as_zero::<v1beta1::MachinePoolList>(
        &api_version,
        "MachinePoolList",
        &paths,
    );
    let (api_version, paths) = list("v1beta2");
    let v1beta2 = minus_zero_reads_as_zero::<v1beta2::MachinePoolList>(
        &api_version,
        "MachinePoolList",
        &paths,
    );
    for fields in [v1beta1, v1beta2] {
        assert_reached(
            &fields,
            &[
                "metadata.remainingItemCount",
                "items[].spec.replicas",
                "items[].metadata.generation",
            ],
        );
    }
}

/// The premise of the test: without the rule, `serde_json` refuses `-0` for an integer, so a
/// field that forgets it fails the walk above.
#[test]
fn serde_json_alone_refuses_minus_zero_for_an_integer() {
    #[derive(serde::Deserialize)]
    struct Plain {
        #[allow(dead_code)]
        replicas: Option<i32>,
    }
    assert!(serde_json::from_str::<Plain>(r#"{"replicas":-0}"#).is_err());
    assert!(serde_json::from_str::<Plain>(r#"{"replicas":0}"#).is_ok());
}
