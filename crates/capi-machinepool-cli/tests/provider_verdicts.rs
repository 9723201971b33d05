//! The verdicts of `tests/fixtures/providers/README.md`, judged by hand on real provider
//! releases none of this project's other fixtures come from (CAPA v1.5/v2.0, CAPZ v1.3, CAPD at
//! Cluster API v1.5/v1.8/v1.11, CAPG v1.10/v1.12, OCI v0.15, Scaleway v0.1.5, Gardener's
//! GardenerWorkerPool, Giant Swarm's KarpenterMachinePool): each run's exit status, and its
//! findings that are not a pass — exactly the table's rows (rule, level and outcome per
//! subject), no more, no fewer. The table is read from the README, so the document and the
//! test cannot drift apart; the README cites the contract sentence or provider code behind
//! each verdict.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/providers")
}

/// The cells of each row of the Markdown table that follows `heading`.
fn table(readme: &str, heading: &str) -> Vec<Vec<String>> {
    let start = readme.find(heading).expect(heading);
    readme[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2) // header and separator
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect()
}

/// A subject as the README names it: a CRD by its plural, an object as `Kind ns/name`.
fn subject(s: &Value) -> String {
    match s["type"].as_str().unwrap_or_default() {
        "crd" | "crdVersion" => s["name"]
            .as_str()
            .unwrap_or_default()
            .split('.')
            .next()
            .unwrap_or_default()
            .to_owned(),
        "object" => format!(
            "{} {}/{}",
            s["kind"].as_str().unwrap_or_default(),
            s["namespace"].as_str().unwrap_or("default"),
            s["name"].as_str().unwrap_or_default()
        ),
        other => other.to_owned(),
    }
}

type Row = (String, String, String, String);

#[test]
fn every_verdict_of_the_provider_table_holds() {
    let dir = fixtures();
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let runs = table(&readme, "## Runs");
    let mut expected: BTreeMap<String, BTreeSet<Row>> = BTreeMap::new();
    for row in table(&readme, "## Verdicts") {
        let [run, subject, rule, level, verdict] = <[String; 5]>::try_from(row).unwrap();
        expected
            .entry(run)
            .or_default()
            .insert((subject, rule, level, verdict));
    }
    assert!(
        runs.len() >= 12,
        "at least eight new trees, {} runs",
        runs.len()
    );
    let trees: BTreeSet<&str> = runs.iter().map(|r| r[1].as_str()).collect();
    assert!(trees.len() >= 8, "{trees:?}");
    let mut wrong = Vec::new();
    for run in &runs {
        let (id, tree, objects, exit) = (&run[0], &run[1], &run[2], &run[3]);
        let crds = dir.join(tree).join("crds.yaml");
        let crds = crds.to_str().unwrap();
        let objects_path = dir.join(tree).join(objects);
        let mut args = vec!["check", crds, "--format", "json"];
        if objects != "-" {
            args.extend(["--objects", objects_path.to_str().unwrap()]);
        }
        let out = common::run(&args, None);
        let code = out.status.code().unwrap().to_string();
        if &code != exit {
            wrong.push(format!("{id}: exit {code}, table says {exit}"));
        }
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got: BTreeSet<Row> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["outcome"] != "pass")
            .map(|f| {
                (
                    subject(&f["subject"]),
                    f["rule"].as_str().unwrap().to_owned(),
                    f["level"].as_str().unwrap().to_owned(),
                    f["outcome"].as_str().unwrap().to_uppercase(),
                )
            })
            .collect();
        let want = expected.remove(id).unwrap_or_default();
        for row in want.difference(&got) {
            wrong.push(format!("{id}: table row {row:?} not found"));
        }
        for row in got.difference(&want) {
            wrong.push(format!("{id}: finding {row:?} not in the table"));
        }
    }
    assert!(
        expected.is_empty(),
        "verdict rows of runs not listed: {:?}",
        expected.keys()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Gardener's pool kind does not end in `MachinePool`: the contract calls `${env}MachinePool`
/// "a generally applied convention" (infra-machinepool.md at ae7ff047, line 164). A given
/// MachinePool naming it (config/samples/workerful.yaml) is evidence enough, even without the
/// contract label that also identifies it: here the label is removed.
#[test]
fn a_pool_named_by_a_machine_pool_is_checked_whatever_its_kind() {
    let dir = fixtures().join("gardener-v0.2.0");
    let crds = std::fs::read_to_string(dir.join("crds.yaml")).unwrap();
    let unlabelled = crds.replace("cluster.x-k8s.io/v1beta1: v1alpha1", "app: gardener");
    assert_ne!(unlabelled, crds, "the label is in the fixture");
    let path = common::temp_file("gardener-unlabelled.yaml", unlabelled.as_bytes());
    let alone = common::run(&["check", path.to_str().unwrap()], None);
    let text = common::stdout(&alone);
    assert_eq!(alone.status.code(), Some(1), "{text}");
    assert!(
        text.contains("candidates not taken: GardenerWorkerPool.infrastructure.cluster.x-k8s.io"),
        "{text}"
    );
    assert!(
        text.contains("but no cluster.x-k8s.io/<contract> label"),
        "{text}"
    );
    let objects = dir.join("objects.yaml");
    let with = common::run(
        &[
            "check",
            path.to_str().unwrap(),
            "--objects",
            objects.to_str().unwrap(),
        ],
        None,
    );
    let text = common::stdout(&with);
    assert_eq!(with.status.code(), Some(1), "{text}");
    // "Provider implementers MUST implement `status.replicas`" (infra-machinepool.md:401).
    assert!(text.contains("status.replicas is missing"), "{text}");
    assert!(!text.contains("nothing was checked"), "{text}");
}

/// `--capabilities` on inputs with no InfraMachinePool exits 1 and says why on stderr,
/// instead of a bare header.
#[test]
fn capabilities_with_nothing_recognised_say_why() {
    let path = common::temp_file(
        "only-a-cluster.yaml",
        br"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: fooclusters.infrastructure.cluster.x-k8s.io
spec:
  group: infrastructure.cluster.x-k8s.io
  names: {kind: FooCluster, plural: fooclusters, listKind: FooClusterList}
  scope: Namespaced
  versions: []
",
    );
    let o = common::run(&["check", path.to_str().unwrap(), "--capabilities"], None);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no InfraMachinePool kind recognised"), "{err}");
    assert!(err.contains("nothing was checked"), "{err}");
}

/// capg v1.12.0's controller writes its own pool kind as the InfraMachine kind
/// (cloud/scope/managedmachinepool.go:318-320); the capability report must not call that
/// MachinePool Machines support.
#[test]
fn capability_report_does_not_call_a_pool_kind_machine_support() {
    let dir = fixtures().join("capg-v1.12.0");
    let o = common::run(
        &[
            "check",
            dir.join("crds.yaml").to_str().unwrap(),
            "--objects",
            dir.join("objects-status.yaml").to_str().unwrap(),
            "--capabilities",
        ],
        None,
    );
    let text = common::stdout(&o);
    let row = text
        .lines()
        .find(|l| l.starts_with("GCPManagedMachinePool "))
        .expect("a row for GCPManagedMachinePool");
    assert!(
        row.contains("no (GCPManagedMachinePool is a pool kind, not an InfraMachine)"),
        "{row}"
    );
}

/// One source of truth: Cluster API's DevMachinePoolTemplate (whose contract label also maps a
/// version the CRD lacks, a `contract-label-versions` failure) resolves to a version with
/// `spec.template.spec`, so the ClusterClass check passes a ClusterClass using it, and the
/// capability report says "yes" too (it said "no (… fails)").
#[test]
fn capability_report_agrees_with_the_cluster_class_check() {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/provider-trees/capi-dev/config/crd");
    let o = common::run(&["check", tree.to_str().unwrap(), "--capabilities"], None);
    let text = common::stdout(&o);
    let row = text
        .lines()
        .find(|l| l.starts_with("DevMachinePool "))
        .expect("a row for DevMachinePool");
    assert!(row.contains("yes (DevMachinePoolTemplate)"), "{row}");
}
