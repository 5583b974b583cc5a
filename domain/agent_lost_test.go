package domain

import (
	"testing"
	"time"
)

// TestASilentNodeIsLostUntilItReportsAgain: a node whose heartbeats stop
// without a deregistration is Lost once herd marks it; a drain and a clean
// stop keep their state; the next heartbeat that finds it Ready makes it
// Ready again.
func TestASilentNodeIsLostUntilItReportsAgain(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	missed := HeartbeatMissed{LastHeartbeat: at, Reason: "NodeStatusUnknown", At: at.Add(41 * time.Second)}
	for _, tc := range []struct {
		from, want AgentState
	}{
		{AgentReady, AgentLost},
		{AgentStarting, AgentLost},
		{AgentDraining, AgentDraining},
		{AgentDrained, AgentDrained},
		{AgentStopped, AgentStopped},
		{AgentLost, AgentLost},
	} {
		if got := EvolveNode(Node{Name: "n", AgentState: tc.from}, missed).AgentState; got != tc.want {
			t.Errorf("%s node after a missed heartbeat: %s, want %s", tc.from, got, tc.want)
		}
	}

	lost := Node{Name: "n", Kind: KindLinux, Version: 3, AgentState: AgentLost, Conditions: []Condition{{Type: ConditionReady, Status: ConditionTrue}}}
	evs, err := DecideNode(lost, RecordHeartbeat{Metrics: &Metrics{CPUCount: 1, MemoryTotalBytes: 100, MemoryAvailableBytes: 90, DiskTotalBytes: 100, DiskAvailableBytes: 90, PIDsMax: 100}}, at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	n := lost
	for _, ev := range evs {
		n = EvolveNode(n, ev)
	}
	if n.AgentState != AgentReady {
		t.Errorf("a lost node's heartbeat left it %s, want Ready (events %v)", n.AgentState, evs)
	}
}
