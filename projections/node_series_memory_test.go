package projections

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events/eventstest"
)

// TestNodeSeriesKeepLittlePerNode: the per-node series outlive the
// committed nodes they were told of, so what they keep of a kubelet with
// five conditions is their types and statuses, not the node's slice of
// conditions with their reasons, messages and times.
func TestNodeSeriesKeepLittlePerNode(t *testing.T) {
	const nodes = 2000
	s := NewNodeSeries(nil, clocktesting.NewFakeClock(t0))
	kinds := []domain.ConditionType{domain.ConditionReady, domain.ConditionMemoryPressure,
		domain.ConditionDiskPressure, domain.ConditionPIDPressure, domain.ConditionNetworkUnavailable}
	before := eventstest.LiveHeap()
	for i := range nodes {
		n := domain.Node{Name: fmt.Sprintf("node-%05d", i), Kind: domain.KindKubelet, Version: 2}
		for _, k := range kinds {
			n.Conditions = append(n.Conditions, domain.Condition{Type: k, Status: domain.ConditionFalse,
				Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available",
				LastHeartbeatTime: t0, LastTransitionTime: t0.Add(-time.Hour)})
		}
		s.observe(n, nil)
	}
	perNode := (eventstest.LiveHeap() - before) / nodes
	t.Logf("%d kubelets with 5 conditions: %d bytes a node", nodes, perNode)
	series := scrapeSeries(t, s)
	if got := series[`herd_node_condition{condition="DiskPressure",kind="kubelet",node="node-00042",status="False"}`]; got != 1 {
		t.Errorf("node-00042's DiskPressure series: %v", got)
	}
	if perNode > 600 {
		t.Errorf("the series keep %d bytes a node; want at most 600", perNode)
	}
	runtime.KeepAlive(s)
}
