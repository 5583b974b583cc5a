package projections

import (
	"testing"
	"time"

	"herd/domain"
)

// A node snapshot an earlier herd took holds every condition's
// lastHeartbeatTime; the node folded now holds a zero time for those heard
// with it. Verify takes them for the same node, and no other.
func TestANodeSnapshotOfAnEarlierHerdIsTheSameNode(t *testing.T) {
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	folded := domain.Node{Name: "a", Version: 3, LastHeartbeat: at, Conditions: []domain.Condition{
		{Type: domain.ConditionReady, Status: domain.ConditionTrue, LastTransitionTime: at.Add(-time.Hour)},
		{Type: domain.ConditionMemoryPressure, Status: domain.ConditionUnknown, LastHeartbeatTime: at.Add(-time.Minute), LastTransitionTime: at},
	}}
	older := folded.Heard()
	other := folded.Heard()
	other.Conditions[0].LastHeartbeatTime = at.Add(-time.Second)
	enc := func(n domain.Node) []byte {
		b, err := marshalStored(n)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	stream := domain.NodeStream("a")
	if !sameNodeAsHeard(stream, enc(folded), enc(older)) {
		t.Error("a snapshot holding the node's own heartbeat times differs from the node folded now")
	}
	if sameNodeAsHeard(stream, enc(folded), enc(other)) {
		t.Error("a snapshot with another heartbeat time passes for the same node")
	}
	if sameNodeAsHeard("lease/a", enc(folded), enc(older)) {
		t.Error("a stream other than a node's compared as a node")
	}
}
