//go:build !oracle_reexport

package main

import "errors"

// topologyNextVersions needs the unexported functions of upstream's desired-state
// computation: the oracle must be built by capi_test_support::go_tool (a Go workspace over a
// copy of Cluster API with reexport/desiredstate.go.txt, build tag oracle_reexport).
func topologyNextVersions(_ []byte) answer {
	return fail(errors.New("topology-next-versions: the oracle was built without the oracle_reexport tag (see reexport/desiredstate.go.txt)"))
}
