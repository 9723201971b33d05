package main

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/exp/topology/scope"
)

// rolloutRequest holds the fields of the rollout ops.
type rolloutRequest struct {
	// machinepool-upgrading
	MachinePool json.RawMessage   `json:"machinePool,omitempty"`
	Nodes       []json.RawMessage `json:"nodes,omitempty"`

	// topology-next-control-plane-version
	TopologyVersion      string   `json:"topologyVersion,omitempty"`
	ControlPlaneVersion  string   `json:"controlPlaneVersion,omitempty"`
	MachinePoolVersions  []string `json:"machinePoolVersions,omitempty"`
	ClusterClassVersions []string `json:"clusterClassVersions,omitempty"`
}

// machinePoolUpgrading answers upstream's own upgrade check of a MachinePool
// (exp/topology/scope MachinePoolState.IsUpgrading, which calls
// internal/topology/check IsMachinePoolUpgrading) with the given Nodes behind a fake client.
func machinePoolUpgrading(line []byte) answer {
	var req rolloutRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return fail(fmt.Errorf("bad request: %w", err))
	}
	mp := &clusterv1.MachinePool{}
	if err := decode(req.MachinePool, mp); err != nil {
		return fail(err)
	}
	nodeScheme := runtime.NewScheme()
	if err := corev1.AddToScheme(nodeScheme); err != nil {
		return fail(err)
	}
	builder := fake.NewClientBuilder().WithScheme(nodeScheme)
	for i, raw := range req.Nodes {
		node := &corev1.Node{}
		if err := json.Unmarshal(raw, node); err != nil {
			return fail(fmt.Errorf("node %d: %w", i, err))
		}
		builder = builder.WithObjects(node)
	}
	state := &scope.MachinePoolState{Object: mp}
	upgrading, err := state.IsUpgrading(context.Background(), builder.Build())
	if err != nil {
		return fail(err)
	}
	return okValue(map[string]any{"upgrading": upgrading})
}

// topologyNextControlPlaneVersion answers which version the topology controller writes into
// the control plane's spec.version next, for a stable control plane (provisioned, not
// upgrading), no runtime hooks, no worker already upgrading: upstream's own
// ComputeUpgradePlan (exp/topology/desiredstate/upgrade_plan.go), with the ClusterClass's
// versions when given, else one minor at a time, then the decision of computeControlPlaneVersion
// (desired_state.go, unexported, lines 625-644 of v1.14.2): hold the control plane while the
// workers' plan starts at its current version, else take the first step of its plan.
func topologyNextControlPlaneVersion(line []byte) answer {
	var req rolloutRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return fail(fmt.Errorf("bad request: %w", err))
	}
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
	s := scope.New(cluster)
	s.Blueprint.Topology.Version = req.TopologyVersion
	cp := &unstructured.Unstructured{Object: map[string]any{}}
	if err := unstructured.SetNestedField(cp.Object, req.ControlPlaneVersion, "spec", "version"); err != nil {
		return fail(err)
	}
	s.Current.ControlPlane = &scope.ControlPlaneState{Object: cp}
	s.Current.MachinePools = scope.MachinePoolsStateMap{}
	for i, v := range req.MachinePoolVersions {
		name := fmt.Sprintf("pool-%d", i)
		mp := &clusterv1.MachinePool{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}}
		mp.Spec.Template.Spec.Version = v
		s.Current.MachinePools[name] = &scope.MachinePoolState{Object: mp}
	}
	plan := desiredstate.GetUpgradePlanOneMinor
	if len(req.ClusterClassVersions) > 0 {
		plan = desiredstate.GetUpgradePlanFromClusterClassVersions(req.ClusterClassVersions)
	}
	if err := desiredstate.ComputeUpgradePlan(context.Background(), s, plan); err != nil {
		return fail(err)
	}
	tracker := s.UpgradeTracker
	next := req.ControlPlaneVersion
	held := len(tracker.MachinePools.UpgradePlan) > 0 && tracker.MachinePools.UpgradePlan[0] == req.ControlPlaneVersion
	if !held && req.ControlPlaneVersion != req.TopologyVersion && len(tracker.ControlPlane.UpgradePlan) > 0 {
		next = tracker.ControlPlane.UpgradePlan[0]
	}
	return okValue(map[string]any{
		"next":             next,
		"held":             held,
		"controlPlanePlan": tracker.ControlPlane.UpgradePlan,
		"workersPlan":      tracker.MachinePools.UpgradePlan,
	})
}
