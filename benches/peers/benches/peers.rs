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
//! (every field conversion touches, status included) and a realistic object of each version
//! (`crates/capi-machinepool-conversion/benches/inputs/realistic.rs`: what the API server
//! returns, `managedFields` included), each with its keys in Go's field order and sorted, one object and a list of 10,000. Before
//! measuring, the benchmark prints which fields of the input each contender drops, since a
//! faster but lossy reader is not doing the same job. `PEERS_ROWS=a,b` runs only the rows
//! whose `version/shape/order` name contains `a` or `b`. docs/performance.md has the table.
#![allow(clippy::unwrap_used, clippy::panic, clippy::expect_used)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use capi_machinepool_api::{v1beta1 as ours_v1beta1, v1beta2 as ours_v1beta2, wire};
use cluster_api_rs::api::capi_machinepool as cluster_api_rs_v1beta2;
use k8s_crds_cluster_api::machinepools as k8s_crds_v1beta2;
use kcr_cluster_x_k8s_io::v1beta1::machinepools as kcr_v1beta1;
use kcr_cluster_x_k8s_io::v1beta2::machinepools as kcr_v1beta2;

#[path = "../../../crates/capi-machinepool-conversion/benches/inputs/realistic.rs"]
mod realistic;

const LIST_LEN: usize = 10_000;

/// The fixture as a JSON value.
fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conversion")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_saphyr::from_str(&text).unwrap()
}

/// The same value with every object's keys in sorted order (whatever `serde_json::Map` keeps).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Which order the keys of an input are in.
#[derive(Clone, Copy)]
enum KeyOrder {
    /// Sorted (what a `serde_json::Value` or a YAML tool prints).
    Sorted,
    /// Go's field order (what the API server sends): printed from our typed object by
    /// `wire::to_vec`, whose order the upstream-answers suite checks byte for byte.
    Go,
}

/// Objects `0..n` of a shape, as one JSON document (an object for `n == 1`, else an array).
fn input<T: DeserializeOwned + Serialize>(
    objects: &dyn Fn(usize) -> Value,
    n: usize,
    order: KeyOrder,
) -> Vec<u8> {
    let values: Vec<Value> = (0..n).map(objects).collect();
    let bytes = match order {
        KeyOrder::Sorted => {
            let values: Vec<Value> = values.iter().map(sorted).collect();
            if n == 1 {
                serde_json::to_vec(&values[0])
            } else {
                serde_json::to_vec(&values)
            }
        }
        KeyOrder::Go => {
            let typed: Vec<T> = values
                .into_iter()
                .map(|v| serde_json::from_value(v).unwrap())
                .collect();
            if n == 1 {
                wire::to_vec(&typed[0])
            } else {
                wire::to_vec(&typed)
            }
        }
    };
    bytes.unwrap()
}

/// The fixture with object `i` named `workers-{i}`.
fn numbered(object: &Value) -> impl Fn(usize) -> Value + '_ {
    move |i| {
        let mut o = object.clone();
        o["metadata"]["name"] = Value::String(format!("workers-{i}"));
        o
    }
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

/// One row of the table: a version, a shape and a key order, for one object and for a list.
struct Row<'a> {
    version: &'static str,
    shape: &'static str,
    order: KeyOrder,
    objects: &'a dyn Fn(usize) -> Value,
}

fn run<T: DeserializeOwned + Serialize>(
    c: &mut Criterion,
    row: &Row<'_>,
    contenders: &[Contender],
) {
    let order = match row.order {
        KeyOrder::Sorted => "sorted",
        KeyOrder::Go => "go",
    };
    let one = input::<T>(row.objects, 1, row.order);
    if matches!(row.order, KeyOrder::Go) {
        report_lossless(&format!("{} {}", row.version, row.shape), &one, contenders);
    }
    let list = input::<T>(row.objects, LIST_LEN, row.order);
    for (size, bytes, elements) in [("1", &one, 1u64), ("10000", &list, LIST_LEN as u64)] {
        let name = format!("{}/{}/{order}", row.version, row.shape);
        let mut group = c.benchmark_group(format!("parse_print/{name}"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(if elements == 1 { 2 } else { 4 }));
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
            interleaved(
                &format!("{name} {size:>5}"),
                bytes,
                elements == 1,
                contenders,
            );
        }
    }
}

/// Criterion measures contenders one after the other, so a machine whose speed drifts (a
/// shared CI runner) skews their ratios. This measures them in turns instead: each round
/// times every contender once, in a rotating order, and the ratio of each peer's time to the
/// first contender's (ours) is taken within the round; the median over the rounds is printed,
/// with our median time per object.
fn interleaved(row: &str, bytes: &[u8], one: bool, contenders: &[Contender]) {
    let rounds = if one { 41 } else { 15 };
    // About 20 ms per contender and round for one object.
    let batch = if one {
        let start = Instant::now();
        black_box((contenders[0].one)(black_box(bytes)));
        (0.02 / start.elapsed().as_secs_f64().max(1e-7)).clamp(10.0, 20_000.0) as usize
    } else {
        1
    };
    let mut ratios = vec![Vec::with_capacity(rounds); contenders.len()];
    let mut ours = Vec::with_capacity(rounds);
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
        ours.push(times[0] / batch as f64 / if one { 1.0 } else { LIST_LEN as f64 });
        for (i, t) in times.iter().enumerate() {
            ratios[i].push(t / times[0]);
        }
    }
    let median = |r: &mut Vec<f64>| {
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    };
    let mut line = format!(
        "interleaved {row}: {} {:.2} µs/object",
        contenders[0].name,
        median(&mut ours) * 1e6
    );
    for (contender, mut r) in contenders.iter().zip(ratios).skip(1) {
        line.push_str(&format!(" | {} {:.3}", contender.name, median(&mut r)));
    }
    eprintln!("{line}");
}

/// True under `cargo bench` (which passes `--bench`); `cargo test --all-targets` runs each
/// criterion benchmark once as a test, and the interleaved measurement is skipped there (and
/// under `--profile-time`, so that a profile holds the one function profiled).
fn benchmarking() -> bool {
    std::env::args().any(|a| a == "--bench") && !std::env::args().any(|a| a == "--profile-time")
}

fn v1beta2_contenders() -> Vec<Contender> {
    vec![
        contender!("capi-machinepool-api", ours_v1beta2::MachinePool),
        Contender {
            name: "capi-machinepool-api+go",
            one: parse_print_go::<ours_v1beta2::MachinePool>,
            list: parse_print_go::<Vec<ours_v1beta2::MachinePool>>,
        },
        contender!("cluster-api-rs", cluster_api_rs_v1beta2::MachinePool),
        contender!("k8s-crds-cluster-api", k8s_crds_v1beta2::MachinePool),
        contender!("kcr_cluster_x_k8s_io", kcr_v1beta2::MachinePool),
    ]
}

fn v1beta1_contenders() -> Vec<Contender> {
    vec![
        contender!("capi-machinepool-api", ours_v1beta1::MachinePool),
        Contender {
            name: "capi-machinepool-api+go",
            one: parse_print_go::<ours_v1beta1::MachinePool>,
            list: parse_print_go::<Vec<ours_v1beta1::MachinePool>>,
        },
        contender!("kcr_cluster_x_k8s_io", kcr_v1beta1::MachinePool),
    ]
}

/// Rows to run: all, or those whose `version/shape/order` name contains `PEERS_ROWS`.
fn selected(version: &str, shape: &str, order: KeyOrder) -> bool {
    let order = match order {
        KeyOrder::Sorted => "sorted",
        KeyOrder::Go => "go",
    };
    std::env::var("PEERS_ROWS").map_or(true, |want| {
        want.split(',')
            .any(|w| format!("{version}/{shape}/{order}").contains(w))
    })
}

fn bench(c: &mut Criterion) {
    eprintln!(
        "size of a MachinePool: ours v1beta2 {} v1beta1 {}, cluster-api-rs {}, k8s-crds-cluster-api {}, kcr v1beta2 {} v1beta1 {}",
        std::mem::size_of::<ours_v1beta2::MachinePool>(),
        std::mem::size_of::<ours_v1beta1::MachinePool>(),
        std::mem::size_of::<cluster_api_rs_v1beta2::MachinePool>(),
        std::mem::size_of::<k8s_crds_v1beta2::MachinePool>(),
        std::mem::size_of::<kcr_v1beta2::MachinePool>(),
        std::mem::size_of::<kcr_v1beta1::MachinePool>(),
    );
    let fixture_v1beta2 = fixture("v1beta2-every-field.yaml");
    let fixture_v1beta1 = fixture("v1beta1-every-field.yaml");
    let fixture_v1beta2 = numbered(&fixture_v1beta2);
    let fixture_v1beta1 = numbered(&fixture_v1beta1);
    for order in [KeyOrder::Go, KeyOrder::Sorted] {
        for (shape, objects) in [
            ("fixture", &fixture_v1beta2 as &dyn Fn(usize) -> Value),
            ("realistic", &realistic::v1beta2),
        ] {
            if selected("v1beta2", shape, order) {
                let row = Row {
                    version: "v1beta2",
                    shape,
                    order,
                    objects,
                };
                run::<ours_v1beta2::MachinePool>(c, &row, &v1beta2_contenders());
            }
        }
        for (shape, objects) in [
            ("fixture", &fixture_v1beta1 as &dyn Fn(usize) -> Value),
            ("realistic", &realistic::v1beta1),
        ] {
            if selected("v1beta1", shape, order) {
                let row = Row {
                    version: "v1beta1",
                    shape,
                    order,
                    objects,
                };
                run::<ours_v1beta1::MachinePool>(c, &row, &v1beta1_contenders());
            }
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
