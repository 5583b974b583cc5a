package domain

import (
	"testing"
	"time"
)

// stalePressures is what a clean stop turns Unknown on a node that had
// reported every pressure False.
func stalePressures(msg string, now time.Time) []Event {
	var out []Event
	for _, t := range []ConditionType{ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad} {
		out = append(out, NodeConditionChanged{Type: t, From: ConditionFalse, Status: ConditionUnknown, Reason: ReasonAgentStopped, Message: msg, Inferred: true, At: now})
	}
	return out
}

func TestDecideDeregisterNode(t *testing.T) {
	now := at(60)
	readyFalse := fold(ready(t, "web-01"), NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, At: at(20)})
	stopped, _ := run(t, ready(t, "web-01"), step{DeregisterNode{}, at(30)})

	tests := []struct {
		name    string
		node    Node
		want    []Event
		wantErr error
	}{
		{
			name: "a ready node stops: no longer Ready, and its pressures no longer known",
			node: ready(t, "web-01"),
			want: append([]Event{
				NodeDeregistered{At: now},
				NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "AgentStopped", Message: "herd agent stopped cleanly", At: now},
			}, stalePressures(MessagePressureAgentStopped, now)...),
		},
		{
			name: "a node that never reported gets a Ready False",
			node: registered("web-01"),
			want: []Event{
				NodeDeregistered{At: now},
				NodeConditionChanged{Type: ConditionReady, Status: ConditionFalse, Reason: "AgentStopped", Message: "herd agent stopped cleanly", At: now},
			},
		},
		{
			name: "Ready already False is left alone",
			node: readyFalse,
			want: append([]Event{NodeDeregistered{At: now}}, stalePressures(MessagePressureAgentStopped, now)...),
		},
		{name: "deregistering twice records nothing", node: stopped},
		{name: "unknown node", node: Node{Name: "ghost"}, wantErr: ErrNotFound},
		{name: "deleted node", node: fold(registered("web-01"), NodeDeleted{At: at(5)}), wantErr: ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNode(tc.node, DeregisterNode{}, now)
			checkDecision(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestDeregisteredNodeIsStopped(t *testing.T) {
	n, _ := run(t, ready(t, "web-01"), step{DeregisterNode{}, at(30)})
	if n.AgentState != AgentStopped {
		t.Errorf("agent state %s, want Stopped", n.AgentState)
	}
	if c, _ := n.Condition(ConditionReady); c.Status != ConditionFalse || !c.LastTransitionTime.Equal(at(30)) {
		t.Errorf("Ready = %+v, want False since %v", c, at(30))
	}
}
