//go:build oracle_reexport

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/cluster-api/exp/topology/desiredstate"
	"sigs.k8s.io/cluster-api/exp/topology/scope"
)

// stepsWorker is an owned MachineDeployment or MachinePool.
type stepsWorker struct {
	Name         string `json:"name"`
	TopologyName string `json:"topologyName"`
	Version      string `json:"version"`
	Upgrading    bool   `json:"upgrading"`
}

// stepsTopology is one entry of spec.topology.workers.
type stepsTopology struct {
	Name                string `json:"name"`
	DeferUpgrade        bool   `json:"deferUpgrade"`
	HoldUpgradeSequence bool   `json:"holdUpgradeSequence"`
}

// stepsRequest is a ClusterClass cluster as the topology controller reads it.
type stepsRequest struct {
	TopologyVersion string   `json:"topologyVersion"`
	ClassVersions   []string `json:"classVersions"`
	ControlPlane    struct {
		SpecVersion    string   `json:"specVersion"`
		StatusVersions []string `json:"statusVersions"`
		StatusVersion  *string  `json:"statusVersion"`
	} `json:"controlPlane"`
	MachineDeployments          []stepsWorker   `json:"machineDeployments"`
	MachinePools                []stepsWorker   `json:"machinePools"`
	MachineDeploymentTopologies []stepsTopology `json:"machineDeploymentTopologies"`
	MachinePoolTopologies       []stepsTopology `json:"machinePoolTopologies"`
	UpgradeConcurrency          int             `json:"upgradeConcurrency"`
}

func topologyMetadata(t stepsTopology) clusterv1.ObjectMeta {
	annotations := map[string]string{}
	if t.DeferUpgrade {
		annotations[clusterv1.ClusterTopologyDeferUpgradeAnnotation] = ""
	}
	if t.HoldUpgradeSequence {
		annotations[clusterv1.ClusterTopologyHoldUpgradeSequenceAnnotation] = ""
	}
	return clusterv1.ObjectMeta{Annotations: annotations}
}

// stepsScope builds the scope the topology controller computes the desired state from.
func stepsScope(req *stepsRequest) (*scope.Scope, error) {
	cluster := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
	if req.UpgradeConcurrency > 0 {
		cluster.Annotations = map[string]string{clusterv1.ClusterTopologyUpgradeConcurrencyAnnotation: strconv.Itoa(req.UpgradeConcurrency)}
	}
	s := scope.New(cluster)
	s.Blueprint.Topology.Version = req.TopologyVersion
	for _, t := range req.MachineDeploymentTopologies {
		s.Blueprint.Topology.Workers.MachineDeployments = append(s.Blueprint.Topology.Workers.MachineDeployments,
			clusterv1.MachineDeploymentTopology{Name: t.Name, Class: "default-worker", Metadata: topologyMetadata(t)})
	}
	for _, t := range req.MachinePoolTopologies {
		s.Blueprint.Topology.Workers.MachinePools = append(s.Blueprint.Topology.Workers.MachinePools,
			clusterv1.MachinePoolTopology{Name: t.Name, Class: "default-worker", Metadata: topologyMetadata(t)})
	}
	cp := &unstructured.Unstructured{Object: map[string]any{}}
	if err := unstructured.SetNestedField(cp.Object, req.ControlPlane.SpecVersion, "spec", "version"); err != nil {
		return nil, err
	}
	if len(req.ControlPlane.StatusVersions) > 0 {
		versions := []any{}
		for _, v := range req.ControlPlane.StatusVersions {
			versions = append(versions, map[string]any{"version": v})
		}
		if err := unstructured.SetNestedSlice(cp.Object, versions, "status", "versions"); err != nil {
			return nil, err
		}
	}
	if req.ControlPlane.StatusVersion != nil {
		if err := unstructured.SetNestedField(cp.Object, *req.ControlPlane.StatusVersion, "status", "version"); err != nil {
			return nil, err
		}
	}
	s.Current.ControlPlane = &scope.ControlPlaneState{Object: cp}
	s.Current.MachineDeployments = scope.MachineDeploymentsStateMap{}
	for _, w := range req.MachineDeployments {
		md := &clusterv1.MachineDeployment{ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: "default"}}
		md.Spec.Template.Spec.Version = w.Version
		s.Current.MachineDeployments[w.TopologyName] = &scope.MachineDeploymentState{Object: md}
	}
	s.Current.MachinePools = scope.MachinePoolsStateMap{}
	for _, w := range req.MachinePools {
		mp := &clusterv1.MachinePool{ObjectMeta: metav1.ObjectMeta{Name: w.Name, Namespace: "default"}}
		mp.Spec.Template.Spec.Version = w.Version
		s.Current.MachinePools[w.TopologyName] = &scope.MachinePoolState{Object: mp}
	}
	return s, nil
}

// upgradingNames are the workers the request marks upgrading (what the controller's
// Upgrading checks of Machines and Nodes return).
func upgradingNames(workers []stepsWorker) []string {
	names := []string{}
	for _, w := range workers {
		if w.Upgrading {
			names = append(names, w.Name)
		}
	}
	return names
}

// topologyNextVersions answers which versions the topology controller writes in one
// reconcile, in Generate's order (desired_state.go lines 121-221 of v1.14.2): upstream's
// ComputeUpgradePlan with the ClusterClass's versions or one minor at a time, the workers
// marked upgrading, then the unexported computeControlPlaneVersion, and
// computeMachineDeploymentVersion / computeMachinePoolVersion for each worker in topology
// order (reached through reexport/desiredstate.go.txt). An error upstream returns is an
// answer too ({"error": ...}): its reconcile then changes nothing.
func topologyNextVersions(line []byte) answer {
	var req stepsRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return fail(fmt.Errorf("bad request: %w", err))
	}
	s, err := stepsScope(&req)
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	plan := desiredstate.GetUpgradePlanOneMinor
	if len(req.ClassVersions) > 0 {
		plan = desiredstate.GetUpgradePlanFromClusterClassVersions(req.ClassVersions)
	}
	if err := desiredstate.ComputeUpgradePlan(ctx, s, plan); err != nil {
		return okValue(map[string]any{"error": err.Error()})
	}
	s.UpgradeTracker.MachineDeployments.MarkUpgrading(upgradingNames(req.MachineDeployments)...)
	s.UpgradeTracker.MachinePools.MarkUpgrading(upgradingNames(req.MachinePools)...)
	cpVersion, err := desiredstate.OracleComputeControlPlaneVersion(ctx, s)
	if err != nil {
		return okValue(map[string]any{"error": err.Error()})
	}
	mds := []map[string]string{}
	for _, t := range s.Blueprint.Topology.Workers.MachineDeployments {
		current, ok := s.Current.MachineDeployments[t.Name]
		if !ok {
			continue
		}
		v, err := desiredstate.OracleComputeMachineDeploymentVersion(ctx, s, t, current)
		if err != nil {
			return okValue(map[string]any{"error": err.Error()})
		}
		mds = append(mds, map[string]string{"name": current.Object.Name, "version": v})
	}
	mps := []map[string]string{}
	for _, t := range s.Blueprint.Topology.Workers.MachinePools {
		current, ok := s.Current.MachinePools[t.Name]
		if !ok {
			continue
		}
		v, err := desiredstate.OracleComputeMachinePoolVersion(ctx, s, t, current)
		if err != nil {
			return okValue(map[string]any{"error": err.Error()})
		}
		mps = append(mps, map[string]string{"name": current.Object.Name, "version": v})
	}
	return okValue(map[string]any{
		"controlPlane":       cpVersion,
		"controlPlanePlan":   s.UpgradeTracker.ControlPlane.UpgradePlan,
		"workersPlan":        s.UpgradeTracker.MachinePools.UpgradePlan,
		"mdWorkersPlan":      s.UpgradeTracker.MachineDeployments.UpgradePlan,
		"minWorkersVersion":  s.UpgradeTracker.MinWorkersVersion,
		"machineDeployments": mds,
		"machinePools":       mps,
	})
}
