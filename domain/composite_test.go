package domain

import (
	"reflect"
	"testing"
	"time"
)

// TestAMarkInOneEventLeavesTheNodeTheSeparateEventsLeft: the one
// HeartbeatMissed that marks a silent node folds into the node that the
// events it stands for (recorded one by one before) folded into, but for
// the node's version, which counts one event; and a HeartbeatMissed of
// version 1, with no parts, still folds as it did.
func TestAMarkInOneEventLeavesTheNodeTheSeparateEventsLeft(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	n, err := DecideNodeSequence(Node{}, t0,
		RegisterNode{Registration: Registration{Name: "web-01", Kind: KindLinux}},
		RecordHeartbeat{Metrics: &Metrics{CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 50, DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1}})
	if err != nil {
		t.Fatal(err)
	}
	node := Node{}
	for _, ev := range n {
		node = EvolveNode(node, ev)
	}
	at := t0.Add(45 * time.Second)
	evs, err := DecideNode(node, MarkNodeUnreachable{LastHeard: node.LastHeartbeat}, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 {
		t.Fatalf("the mark decided %d events, want one: %+v", len(evs), evs)
	}
	missed, ok := evs[0].(HeartbeatMissed)
	if !ok || len(missed.Conditions) == 0 || !missed.NotReady || len(missed.Taints) != 2 {
		t.Fatalf("the mark: %+v, want a HeartbeatMissed with its conditions, NotReady and both unreachable taints", evs[0])
	}
	one := EvolveNode(node, missed)
	separate := EvolveNode(node, HeartbeatMissed{LastHeartbeat: missed.LastHeartbeat, Reason: missed.Reason, At: at})
	for _, p := range missed.Parts() {
		separate = EvolveNode(separate, p)
	}
	if one.Version != node.Version+1 {
		t.Errorf("the mark moved the version from %d to %d, want one", node.Version, one.Version)
	}
	separate.Version = one.Version
	if !reflect.DeepEqual(one, separate) {
		t.Errorf("one event left\n%+v\nthe separate events\n%+v", one, separate)
	}
	// A version 1 payload, as herd wrote it before: no parts.
	old, err := UnmarshalEvent("HeartbeatMissed", []byte(`{"lastHeartbeat":"2026-03-01T09:00:00Z","reason":"NodeStatusUnknown","at":"2026-03-01T09:00:45Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	if parts := old.(HeartbeatMissed).Parts(); parts != nil {
		t.Errorf("a version 1 HeartbeatMissed has parts %+v", parts)
	}
	if got := EvolveNode(node, old); !reflect.DeepEqual(got.Conditions, node.Conditions) || got.AgentState != AgentLost {
		t.Errorf("a version 1 HeartbeatMissed changed the conditions or left the agent %s", got.AgentState)
	}
}

// DecideNodeSequence decides cmds one after another, each on the node as
// the events of those before it leave it, and returns all their events:
// how a caller issues several commands as one unit of work (register, then
// take the first status report). The first error stops it.
func DecideNodeSequence(n Node, now time.Time, cmds ...NodeCommand) ([]Event, error) {
	return decideSequence(n, now, cmds, DecideNode, EvolveNode)
}
