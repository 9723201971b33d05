//! ConversionReview throughput: conversion of 1, 100 and 10,000 MachinePools, of three
//! kinds (`conversion_review`: a small v1beta1 object of short strings, to v1beta2;
//! `conversion_review_realistic`: what the API server sends, `managedFields`, kubectl's
//! last-applied annotation and all, from `inputs/realistic.rs`, v1beta1 to v1beta2;
//! `conversion_review_realistic_down`: the same shape from v1beta2 to v1beta1, which writes
//! the conversion-data annotation), next to two floors:
//! * `value_floor`: the whole review parsed and printed as one `serde_json::Value`;
//! * `raw_value_floor` (the honest floor for a converter): the review read with its objects as
//!   `RawValue`, each object parsed and printed as a `Value`, the response printed from a
//!   struct holding the printed objects, i.e. what any converter must at least do.
//!
//! `REVIEW_SHAPES=a,b` measures only the groups named; `REVIEW_LAYOUT=api-server` lays the
//! reviews out as the API server prints them (the uid before the objects) instead of with
//! sorted keys.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::hint::black_box;
use std::time::Instant;

use capi_machinepool_conversion::{StaticResolver, machine_pool_converter, review};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Value, json};

#[path = "inputs/realistic.rs"]
mod realistic;

/// A benchmark group: its name, the object `i` of a review, and the desired apiVersion.
type Shape = (&'static str, fn(usize) -> Value, &'static str);

#[derive(Deserialize)]
struct ReviewIn<'a> {
    #[serde(borrow)]
    request: RequestIn<'a>,
}

#[derive(Deserialize)]
struct RequestIn<'a> {
    uid: String,
    #[serde(rename = "desiredAPIVersion")]
    desired: String,
    #[serde(borrow)]
    objects: Vec<&'a RawValue>,
}

#[derive(Serialize)]
struct ReviewOut {
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    kind: &'static str,
    response: ResponseOut,
}

#[derive(Serialize)]
struct ResponseOut {
    uid: String,
    #[serde(rename = "convertedObjects")]
    converted: Vec<Box<RawValue>>,
    result: Value,
}

/// Per-object `Value` parse and print through `RawValue`: the least a converter does.
fn raw_value_floor(body: &[u8]) -> Vec<u8> {
    let review: ReviewIn = serde_json::from_slice(body).unwrap();
    let converted = review
        .request
        .objects
        .iter()
        .map(|raw| {
            let mut v: Value = serde_json::from_str(raw.get()).unwrap();
            v["apiVersion"] = Value::String(review.request.desired.clone());
            RawValue::from_string(serde_json::to_string(&v).unwrap()).unwrap()
        })
        .collect();
    serde_json::to_vec(&ReviewOut {
        api_version: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        response: ResponseOut {
            uid: review.request.uid,
            converted,
            result: json!({"status": "Success"}),
        },
    })
    .unwrap()
}

fn machine_pool(i: usize) -> Value {
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "MachinePool",
        "metadata": {"name": format!("mp-{i}"), "namespace": "default", "labels": {"cluster.x-k8s.io/cluster-name": "c1"}},
        "spec": {"clusterName": "c1", "replicas": 3, "minReadySeconds": 10,
            "providerIDList": ["aws:///us-east-1a/i-0001", "aws:///us-east-1a/i-0002", "aws:///us-east-1a/i-0003"],
            "template": {"spec": {"clusterName": "c1", "version": "v1.33.1", "nodeDrainTimeout": "5m0s",
                "bootstrap": {"configRef": {"apiVersion": "bootstrap.cluster.x-k8s.io/v1beta1", "kind": "KubeadmConfig", "name": format!("cfg-{i}")}},
                "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2", "kind": "AWSMachinePool", "name": format!("amp-{i}")}}}},
        "status": {"replicas": 3, "readyReplicas": 3, "availableReplicas": 3, "phase": "Running",
            "bootstrapReady": true, "infrastructureReady": true, "observedGeneration": 2,
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}
    })
}

/// A review of `n` objects, its keys sorted (the uid after the objects, as `json!` prints it),
/// or with `REVIEW_LAYOUT=api-server` laid out as the API server prints it (`kind`,
/// `apiVersion`, `request` with `uid`, `desiredAPIVersion`, `objects`). The objects' own keys
/// are sorted either way.
fn review_bytes(n: usize, object: fn(usize) -> Value, desired: &str) -> Vec<u8> {
    let objects: Vec<Value> = (0..n).map(object).collect();
    if std::env::var("REVIEW_LAYOUT").as_deref() == Ok("api-server") {
        let objects = serde_json::to_string(&objects).unwrap();
        return format!(
            r#"{{"kind":"ConversionReview","apiVersion":"apiextensions.k8s.io/v1","request":{{"uid":"bench","desiredAPIVersion":"{desired}","objects":{objects}}}}}"#
        )
        .into_bytes();
    }
    serde_json::to_vec(&json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
        "request": {"uid": "bench", "desiredAPIVersion": desired, "objects": objects}
    }))
    .unwrap_or_default()
}

fn value_floor(body: &[u8]) -> Vec<u8> {
    let v: Value = serde_json::from_slice(body).unwrap_or_default();
    serde_json::to_vec(&v).unwrap_or_default()
}

/// A function measured: review bytes in, response bytes out.
type Contender<'a> = dyn Fn(&[u8]) -> Vec<u8> + 'a;

/// Criterion measures one function after the other, so a machine whose speed drifts skews
/// the ratios between them. This measures them in turns: each round times convert and both
/// floors once, in a rotating order, and takes the ratios within the round; the medians over
/// the rounds are printed.
fn interleaved(shape: &str, n: usize, body: &[u8], convert: &Contender<'_>) {
    let (rounds, batch) = match n {
        1 => (41, 2_000),
        100 => (31, 20),
        _ => (15, 1),
    };
    let floors: [&Contender<'_>; 2] = [&raw_value_floor, &value_floor];
    let mut ratios = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        let mut times = [0.0; 3];
        for k in 0..3 {
            let i = (k + round) % 3;
            let f: &Contender<'_> = if i == 0 { convert } else { floors[i - 1] };
            let start = Instant::now();
            for _ in 0..batch {
                black_box(f(black_box(body)));
            }
            times[i] = start.elapsed().as_secs_f64();
        }
        ratios[0].push(times[0] / times[1]);
        ratios[1].push(times[0] / times[2]);
    }
    let median = |r: &mut Vec<f64>| {
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    let [raw, value] = &mut ratios;
    eprintln!(
        "interleaved {shape} {n:>6} objects: convert / raw_value_floor = {:.3}, convert / value_floor = {:.3}",
        median(raw),
        median(value)
    );
}

/// True under `cargo bench` (which passes `--bench`); `cargo test --all-targets` runs each
/// criterion benchmark once as a test, and the interleaved measurement is skipped there (and
/// under `--profile-time`, so that a profile holds the one function profiled).
fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench") && !std::env::args().any(|a| a == "--profile-time")
}

fn bench(c: &mut Criterion) {
    // The references of the realistic v1beta2 object, resolved for the down-conversion.
    let resolver = StaticResolver::new()
        .with(
            "bootstrap.cluster.x-k8s.io",
            "KubeadmConfig",
            "bootstrap.cluster.x-k8s.io/v1beta2",
        )
        .with(
            "infrastructure.cluster.x-k8s.io",
            "AzureMachinePool",
            "infrastructure.cluster.x-k8s.io/v1beta1",
        );
    let converter = machine_pool_converter(resolver);
    let convert = |body: &[u8]| review::handle_bytes(&converter, body).body;
    let (up, down) = ("cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1");
    let shapes: [Shape; 3] = [
        ("conversion_review", machine_pool, up),
        ("conversion_review_realistic", realistic::v1beta1, up),
        ("conversion_review_realistic_down", realistic::v1beta2, down),
    ];
    // `REVIEW_SHAPES=conversion_review,...` measures only the groups named (all by default;
    // criterion's filter does not skip building the inputs or the interleaved rounds).
    let only = std::env::var("REVIEW_SHAPES").ok();
    let wanted = |shape: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|s| s == shape))
    };
    for (shape, object, desired) in shapes.into_iter().filter(|(shape, ..)| wanted(shape)) {
        let mut group = c.benchmark_group(shape);
        group.sample_size(10);
        // `cargo test --all-targets` (a debug build, no `--bench`) runs each benchmark once
        // as a test: the 10,000-object reviews (80 MB of realistic JSON) only under `--bench`.
        let sizes: &[usize] = if std::env::args().any(|a| a == "--bench") {
            &[1, 100, 10_000]
        } else {
            &[1, 100]
        };
        for &n in sizes {
            let body = review_bytes(n, object, desired);
            assert!(
                String::from_utf8_lossy(&convert(&body)).contains(r#""status":"Success""#),
                "{shape}: the review does not convert"
            );
            group.throughput(Throughput::Elements(n as u64));
            group.bench_with_input(BenchmarkId::new("convert", n), &body, |b, body| {
                b.iter(|| convert(black_box(body)));
            });
            group.bench_with_input(BenchmarkId::new("raw_value_floor", n), &body, |b, body| {
                b.iter(|| raw_value_floor(black_box(body)));
            });
            group.bench_with_input(BenchmarkId::new("value_floor", n), &body, |b, body| {
                b.iter(|| value_floor(black_box(body)));
            });
            if benchmarking() {
                interleaved(shape, n, &body, &convert);
            }
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
