//! Typed parse + print of MachinePools, side by side with the kopium-generated Cluster API
//! crates, in one run: `cluster-api-rs`, `k8s-crds-cluster-api` and `kcr_cluster_x_k8s_io`
//! (v1beta2; only the last also has v1beta1).
//!
//! Every contender does the same work: `serde_json::from_slice` into its typed MachinePool
//! (or a `Vec` of them for the 10,000-object list) and `serde_json::to_vec` back. Our crate is
//! measured twice: with `serde_json::to_vec` (same printer as the peers) and with
//! `wire::to_vec` (Go's escaping, the bytes upstream writes).
//!
//! The objects are the repository's `tests/fixtures/conversion/v1beta{1,2}-every-field.yaml`
//! (every field conversion touches, status included). Before measuring, the benchmark prints
//! which fields of the input each contender drops, since a faster but lossy reader is not
//! doing the same job.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use capi_machinepool_api::{v1beta1 as ours_v1beta1, v1beta2 as ours_v1beta2, wire};
use cluster_api_rs::api::capi_machinepool as cluster_api_rs_v1beta2;
use k8s_crds_cluster_api::machinepools as k8s_crds_v1beta2;
use kcr_cluster_x_k8s_io::v1beta1::machinepools as kcr_v1beta1;
use kcr_cluster_x_k8s_io::v1beta2::machinepools as kcr_v1beta2;

const LIST_LEN: usize = 10_000;

/// The fixture as a JSON value.
fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conversion")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// One object as JSON bytes, and a list of `LIST_LEN` copies with distinct names.
fn inputs(object: &Value) -> (Vec<u8>, Vec<u8>) {
    let one = serde_json::to_vec(object).unwrap();
    let list: Vec<Value> = (0..LIST_LEN)
        .map(|i| {
            let mut o = object.clone();
            o["metadata"]["name"] = Value::String(format!("workers-{i}"));
            o
        })
        .collect();
    (one, serde_json::to_vec(&list).unwrap())
}

fn parse_print<T: DeserializeOwned + Serialize>(bytes: &[u8]) -> Vec<u8> {
    let typed: T = serde_json::from_slice(bytes).unwrap();
    serde_json::to_vec(&typed).unwrap()
}

fn parse_print_go<T: DeserializeOwned + Serialize>(bytes: &[u8]) -> Vec<u8> {
    let typed: T = serde_json::from_slice(bytes).unwrap();
    wire::to_vec(&typed).unwrap()
}

/// A contender: its name and the parse + print function for one object and for a list.
struct Contender {
    name: &'static str,
    one: fn(&[u8]) -> Vec<u8>,
    list: fn(&[u8]) -> Vec<u8>,
}

macro_rules! contender {
    ($name:literal, $ty:ty) => {
        Contender {
            name: $name,
            one: parse_print::<$ty>,
            list: parse_print::<Vec<$ty>>,
        }
    };
}

/// Paths of `input` that `output` does not have (values may differ: Go normalizes some, such
/// as durations, and a peer may add empty fields; what counts is that nothing is dropped).
fn lost_fields(input: &Value, output: &Value, path: &str, lost: &mut Vec<String>) {
    match (input, output) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                let at = format!("{path}.{key}");
                match b.get(key) {
                    Some(other) => lost_fields(value, other, &at, lost),
                    None => lost.push(at),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, value) in a.iter().enumerate() {
                let at = format!("{path}[{i}]");
                match b.get(i) {
                    Some(other) => lost_fields(value, other, &at, lost),
                    None => lost.push(at),
                }
            }
        }
        (Value::Null, _) | (_, Value::Array(_) | Value::Object(_) | Value::Null) => {}
        (Value::Array(_) | Value::Object(_), _) => lost.push(path.to_owned()),
        _ => {}
    }
}

fn report_lossless(version: &str, one: &[u8], contenders: &[Contender]) {
    let original: Value = serde_json::from_slice(one).unwrap();
    for c in contenders {
        let back: Value = serde_json::from_slice(&(c.one)(one)).unwrap();
        let mut lost = Vec::new();
        lost_fields(&original, &back, "", &mut lost);
        if lost.is_empty() {
            eprintln!("{version} {:<24} keeps every field", c.name);
        } else {
            eprintln!("{version} {:<24} drops {}", c.name, lost.join(", "));
        }
    }
}

fn run(c: &mut Criterion, version: &str, object: &Value, contenders: &[Contender]) {
    let (one, list) = inputs(object);
    report_lossless(version, &one, contenders);
    for (size, bytes, elements) in [("1", &one, 1u64), ("10000", &list, LIST_LEN as u64)] {
        let mut group = c.benchmark_group(format!("parse_print_{version}"));
        group.sample_size(if elements == 1 { 100 } else { 10 });
        group.throughput(Throughput::Elements(elements));
        for contender in contenders {
            let f = if elements == 1 {
                contender.one
            } else {
                contender.list
            };
            group.bench_with_input(BenchmarkId::new(contender.name, size), bytes, |b, bytes| {
                b.iter(|| f(black_box(bytes)));
            });
        }
        group.finish();
        if benchmarking() {
            interleaved(version, size, bytes, elements == 1, contenders);
        }
    }
}

/// Criterion measures contenders one after the other, so a machine whose speed drifts (a
/// shared CI runner) skews their ratios. This measures them in turns instead: each round
/// times every contender once, in a rotating order, and the ratio to the first contender
/// (ours) is taken within the round; the median over the rounds is printed.
fn interleaved(version: &str, size: &str, bytes: &[u8], one: bool, contenders: &[Contender]) {
    let (rounds, batch) = if one { (41, 2_000) } else { (15, 1) };
    let mut ratios = vec![Vec::with_capacity(rounds); contenders.len()];
    for round in 0..rounds {
        let mut times = vec![0.0; contenders.len()];
        for k in 0..contenders.len() {
            let i = (k + round) % contenders.len();
            let f = if one {
                contenders[i].one
            } else {
                contenders[i].list
            };
            let start = Instant::now();
            for _ in 0..batch {
                black_box(f(black_box(bytes)));
            }
            times[i] = start.elapsed().as_secs_f64();
        }
        for (i, t) in times.iter().enumerate() {
            ratios[i].push(t / times[0]);
        }
    }
    for (contender, mut r) in contenders.iter().zip(ratios).skip(1) {
        r.sort_by(f64::total_cmp);
        eprintln!(
            "interleaved {version} {size:>5}: {:<24} takes {:.3}x the time of {}",
            contender.name,
            r[r.len() / 2],
            contenders[0].name
        );
    }
}

/// True under `cargo bench` (which passes `--bench`); `cargo test --all-targets` runs each
/// criterion benchmark once as a test, and the interleaved measurement is skipped there.
fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn bench(c: &mut Criterion) {
    run(
        c,
        "v1beta2",
        &fixture("v1beta2-every-field.yaml"),
        &[
            contender!("capi-machinepool-api", ours_v1beta2::MachinePool),
            Contender {
                name: "capi-machinepool-api+go",
                one: parse_print_go::<ours_v1beta2::MachinePool>,
                list: parse_print_go::<Vec<ours_v1beta2::MachinePool>>,
            },
            contender!("cluster-api-rs", cluster_api_rs_v1beta2::MachinePool),
            contender!("k8s-crds-cluster-api", k8s_crds_v1beta2::MachinePool),
            contender!("kcr_cluster_x_k8s_io", kcr_v1beta2::MachinePool),
        ],
    );
    run(
        c,
        "v1beta1",
        &fixture("v1beta1-every-field.yaml"),
        &[
            contender!("capi-machinepool-api", ours_v1beta1::MachinePool),
            Contender {
                name: "capi-machinepool-api+go",
                one: parse_print_go::<ours_v1beta1::MachinePool>,
                list: parse_print_go::<Vec<ours_v1beta1::MachinePool>>,
            },
            contender!("kcr_cluster_x_k8s_io", kcr_v1beta1::MachinePool),
        ],
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
