//! `check --objects POOLS --nodes NODES` on whole clusters (issue 29): several pools, the
//! control-plane Nodes and Nodes of pools not given, both MachinePool API versions. Fixtures in
//! `tests/fixtures/clusters/` (each file says its source).
//!
//! Upstream's rule: `getNodeReferences` (`core/reconcilers/machinepool/
//! machinepool_controller_noderef.go` line 200 at ae7ff047) walks the pool's `providerIDList`
//! and looks each ID up in the Node map; Nodes it does not list are never looked at, so they
//! are no pool's error.
#![allow(clippy::unwrap_used, clippy::panic)]

mod common;

use common::{run, stdout, temp_file};

fn fixture(name: &str) -> String {
    capi_test_support::workspace_root()
        .join("tests/fixtures/clusters")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

fn check(objects: &str, nodes: &str) -> (Option<i32>, String) {
    let out = run(&["check", "--objects", objects, "--nodes", nodes], None);
    (out.status.code(), stdout(&out).replace(objects, "POOLS"))
}

/// The healthy two-pool cluster: each pool finds its Nodes, neither blames the control-plane
/// Nodes, the other pool's Nodes or prod-mp-c's (issue 29: "a healthy two-pool cluster given
/// both pools still exits 1, each pool blaming the other's Nodes"). The one unlisted Node in a
/// pool's zone is one INFO line.
#[test]
fn aws_kubeadm_two_pools_pass() {
    let (code, text) = check(
        &fixture("aws-kubeadm.yaml"),
        &fixture("aws-kubeadm-nodes.yaml"),
    );
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(
        text.lines().collect::<Vec<_>>(),
        [
            "MachinePool default/prod-mp-a (POOLS#2): 2 provider IDs (2 distinct), 9 Nodes",
            "  matched: 2 (2 Ready)",
            "  upstream: 2 Node references to 2 distinct Nodes, 2 ready replicas (status.replicas 2)",
            "  OK every provider ID has one Node",
            "MachinePool default/prod-mp-b (POOLS#3): 2 provider IDs (2 distinct), 9 Nodes",
            "  matched: 2 (2 Ready)",
            "  upstream: 2 Node references to 2 distinct Nodes, 2 ready replicas (status.replicas 2)",
            "  OK every provider ID has one Node",
            // 3 control-plane Nodes, prod-mp-c's Node, the not yet listed ip-10-0-1-23.
            "5 Nodes are in no given pool's providerIDList (control-plane Nodes, pools not given): not an error, upstream only looks up listed IDs",
            "  INFO  1 of them look like a given pool's (same provider ID prefix): not listed yet, or a pool not given",
            "    Node ip-10-0-1-23.ec2.internal aws:///us-east-1a/i-0a0000000000000a3 (like default/prod-mp-a), still tainted node.cluster.x-k8s.io/uninitialized: no listed ID, so nothing removes it",
        ]
    );
}

/// Each pool alone gets the verdict it gets with the other (the other pool's Nodes become
/// unlisted Nodes, not errors).
#[test]
fn each_pool_alone_same_verdict() {
    let all = std::fs::read_to_string(fixture("aws-kubeadm.yaml")).unwrap();
    let docs: Vec<&str> = all.split("\n---\n").collect();
    let nodes = fixture("aws-kubeadm-nodes.yaml");
    for (i, pool) in docs.iter().enumerate().skip(2) {
        let path = temp_file(&format!("cluster-pool-{i}.yaml"), pool.as_bytes());
        let (code, text) = check(path.to_str().unwrap(), &nodes);
        assert_eq!(code, Some(0), "pool {i}: {text}");
        assert!(
            text.contains("  OK every provider ID has one Node\n"),
            "{text}"
        );
        assert!(!text.contains("ERROR"), "{text}");
    }
}

/// Upstream's own Node table (`machinepool_controller_noderef_test.go` lines 38-135) with the
/// pool of its line-208 case ("valid provider ids, valid azure and aws nodes") as a v1beta1
/// MachinePool: two references, no error for the five other Nodes; then the line-220 case
/// (`aws:///id-node-100`, `errNoAvailableNodes`) given next to it fails alone.
#[test]
fn upstream_noderef_table() {
    let pools = temp_file(
        "upstream-noderef-pools.yaml",
        b"apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachinePool\nmetadata: {name: line-208, namespace: default}\nspec:\n  providerIDList: [\"aws://us-east-1/id-node-1\", \"azure://westus2/id-node-4\"]\nstatus: {replicas: 2}\n---\napiVersion: cluster.x-k8s.io/v1beta2\nkind: MachinePool\nmetadata: {name: line-220, namespace: default}\nspec:\n  providerIDList: [\"aws:///id-node-100\"]\nstatus: {replicas: 1}\n",
    );
    let pools = pools.to_str().unwrap();
    let (code, text) = check(pools, &fixture("upstream-noderef.yaml"));
    assert_eq!(code, Some(1), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..5],
        [
            "MachinePool default/line-208 (POOLS#0): 2 provider IDs (2 distinct), 7 Nodes",
            "  matched: 2 (2 Ready)",
            "  upstream: 2 Node references to 2 distinct Nodes, 2 ready replicas (status.replicas 2)",
            "  OK every provider ID has one Node",
            "MachinePool default/line-220 (POOLS#1): 1 provider IDs (1 distinct), 7 Nodes",
        ]
    );
    assert_eq!(
        lines[6], "  ERROR provider ID without Node: aws:///id-node-100",
        "{text}"
    );
    assert!(
        text.contains("5 Nodes are in no given pool's providerIDList"),
        "{text}"
    );
}

fn example(name: &str) -> String {
    capi_test_support::workspace_root()
        .join("examples/rollout")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The stored KubeadmConfig comes back from the API server at v1beta2; the manifest writes the
/// same config at v1beta1 (kubeletExtraArgs as a map). Upstream's conversion
/// (`api/bootstrap/kubeadm/v1beta1/conversion.go` line 302 at ae7ff047,
/// `Convert_v1beta1_NodeRegistrationOptions_To_v1beta2_NodeRegistrationOptions`:
/// `out.KubeletExtraArgs = bootstrapv1.ConvertToArgs(in.KubeletExtraArgs)`) makes them equal,
/// so `validate --old` must not say "edited in place" (issue 29). A real edit (a node-labels
/// argument added) still is one.
#[test]
fn bootstrap_config_compared_across_api_versions() {
    let stored = example("stored.yaml");
    let v1beta2_config = "apiVersion: bootstrap.cluster.x-k8s.io/v1beta2\nkind: KubeadmConfig";
    let list_args = "      kubeletExtraArgs:\n        - name: \"eviction-hard\"\n          value: \"nodefs.available<0%,nodefs.inodesFree<0%,imagefs.available<0%\"";
    let text = std::fs::read_to_string(&stored).unwrap();
    assert!(text.contains(v1beta2_config) && text.contains(list_args));
    let same = text
        .replace(
            v1beta2_config,
            "apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\nkind: KubeadmConfig",
        )
        .replace(
            list_args,
            "      kubeletExtraArgs:\n        eviction-hard: \"nodefs.available<0%,nodefs.inodesFree<0%,imagefs.available<0%\"",
        );
    let edited = same.replace(
        "        eviction-hard:",
        "        node-labels: \"pool=workers\"\n        eviction-hard:",
    );
    for (name, manifest, edits) in [("same", same, 0), ("edited", edited, 1)] {
        let path = temp_file(
            &format!("kubeadm-config-v1beta1-{name}.yaml"),
            manifest.as_bytes(),
        );
        let out = run(
            &["validate", "-f", path.to_str().unwrap(), "--old", &stored],
            None,
        );
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(0), "{name}: {text}");
        assert_eq!(
            text.matches("bootstrap-config-edited-in-place").count(),
            edits,
            "{name}: {text}"
        );
    }
}

/// One instance listed by two pools (issue 49): prod-mp-b lists prod-mp-a's
/// i-0a0000000000000a2; prod-mp-a's own AWSMachinePool lists it too and is no duplicate (same
/// owner: its ownerReference). Upstream would reference and count the Node in both pools
/// (getNodeReferences), flip its owner annotations (patchNodes, machinepool_controller_noderef.go
/// lines 236-260 at ae7ff047) and delete it from under one pool when the other drops the ID
/// (deleteRetiredNodes, lines 168-198). A Node annotated for prod-mp-c (not given) that
/// prod-mp-b lists is claimed twice too. Exit 1, both pools named.
#[test]
fn one_instance_in_two_pools_fails_naming_both() {
    let (code, text) = check(
        &fixture("two-pools-one-instance.yaml"),
        &fixture("two-pools-one-instance-nodes.yaml"),
    );
    assert_eq!(code, Some(1), "{text}");
    let shared = "aws:///us-east-1a/i-0a0000000000000a2 (Node ip-10-0-1-22.ec2.internal) is also listed by MachinePool";
    assert!(
        text.contains(&format!(
            "  ERROR {shared} default/prod-mp-b: both pools reference the Node and count it"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "  ERROR {shared} default/prod-mp-a: both pools reference the Node"
        )),
        "{text}"
    );
    assert!(
        text.contains("  ERROR Node ip-10-0-2-32.ec2.internal (aws:///us-east-1b/i-0b0000000000000b2) carries the owner annotations of MachinePool default/prod-mp-c"),
        "{text}"
    );
    assert!(
        text.contains("deleteRetiredNodes deletes the Node the other still runs"),
        "{text}"
    );
    // The AWSMachinePool is prod-mp-a's: its IDs are not a duplicate of prod-mp-a's.
    let infra = text
        .split("AWSMachinePool default/prod-mp-a")
        .nth(1)
        .unwrap()
        .split("Nodes are in no given pool")
        .next()
        .unwrap();
    assert!(
        infra.contains("also listed by MachinePool default/prod-mp-b"),
        "{infra}"
    );
    assert!(
        !infra.contains("also listed by MachinePool default/prod-mp-a"),
        "{infra}"
    );
    assert_eq!(text.matches("is also listed by").count(), 3, "{text}");
    // Without prod-mp-b's extra ID and the annotations, the same cluster passes (the
    // MachinePool and its AWSMachinePool side by side).
    let healthy = std::fs::read_to_string(fixture("two-pools-one-instance.yaml"))
        .unwrap()
        .replace("  - aws:///us-east-1b/i-0b0000000000000b2\n  - aws:///us-east-1a/i-0a0000000000000a2\n", "  - aws:///us-east-1b/i-0b0000000000000b2\n");
    let healthy = temp_file("two-pools-healthy.yaml", healthy.as_bytes());
    let (code, text) = check(
        healthy.to_str().unwrap(),
        &fixture("aws-kubeadm-nodes.yaml"),
    );
    assert_eq!(code, Some(0), "{text}");
}

/// A pool scaling up (issue 49): two listed instances booting, their Nodes not joined yet.
/// Upstream's phase is ScalingUp while spec.replicas is above the ready replicas
/// (machinepool_controller_phases.go lines 80-86 at ae7ff047) and it waits at severity Info
/// (machinepool_controller_noderef.go line 156: WaitingForReplicasReady). Not an error: exit 0,
/// "not joined yet". The same IDs on a Running pool are errors.
#[test]
fn a_pool_scaling_up_is_not_an_error() {
    let (code, text) = check(
        &fixture("scaling-up.yaml"),
        &fixture("aws-kubeadm-nodes.yaml"),
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("  INFO  not joined yet: aws:///us-east-1a/i-0a0000000000000a4 (the pool is scaling up: phase ScalingUp, 2 of 4 replicas ready; upstream waits for it at severity Info, WaitingForReplicasReady)"),
        "{text}"
    );
    assert!(
        text.contains("  OK every joined instance has one Node; 2 on their way"),
        "{text}"
    );
    assert!(!text.contains("ERROR"), "{text}");
    let running = std::fs::read_to_string(fixture("scaling-up.yaml"))
        .unwrap()
        .replace("phase: ScalingUp", "phase: Running");
    let running = temp_file("scaling-up-running.yaml", running.as_bytes());
    let (code, text) = check(
        running.to_str().unwrap(),
        &fixture("aws-kubeadm-nodes.yaml"),
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("  ERROR provider ID without Node: aws:///us-east-1a/i-0a0000000000000a4"),
        "{text}"
    );
}

/// A deleting MachinePool (issue 61): deletionTimestamp set, two of three instances and their
/// Nodes gone. Upstream's reconcileNodeRefs returns before matching any Node for a deleting
/// pool (core/reconcilers/machinepool/machinepool_controller_noderef.go lines 60-63 at
/// v1.14.2) and reconcileDelete removes the infrastructure, then the Nodes: no "provider ID
/// without Node" error, no upstream counters, the pool reported as deleting. Exit 0 (was exit
/// 1 with two errors).
#[test]
fn a_deleting_pool_is_not_matched_with_nodes() {
    let (code, out) = check(
        &fixture("deleting-pool.yaml"),
        &fixture("aws-kubeadm-nodes.yaml"),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("  deleting (deletionTimestamp 2026-01-05T10:00:00Z): upstream matches no Nodes for a deleting MachinePool (machinepool_controller_noderef.go lines 60-63: reconcileNodeRefs returns at once)"),
        "{out}"
    );
    assert!(
        out.contains("  INFO  1 of 3 listed instances still have a Node, 2 have none: the deletion under way, not an error"),
        "{out}"
    );
    assert!(out.contains("  OK deleting: no Node matching"), "{out}");
    assert!(!out.contains("provider ID without Node"), "{out}");
    assert!(!out.contains("upstream: "), "{out}");
}
