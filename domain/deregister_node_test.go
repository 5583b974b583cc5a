package domain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
			// The changes one by one; how they are grouped is below.
			checkDecision(t, flat(got), err, tc.want, tc.wantErr)
		})
	}
}

// TestAStopsChangesAreOneEvent: a ready node's clean stop changes Ready
// and its pressures, recorded as one NodeStatusChanged after
// NodeDeregistered, which folds into the node the separate events folded
// into (the pressures still inferred) but for the version, which counts
// one event; a stop that changes one condition records it alone.
func TestAStopsChangesAreOneEvent(t *testing.T) {
	n := ready(t, "web-01")
	evs, err := DecideNode(n, DeregisterNode{}, at(60))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("the stop decided %+v, want NodeDeregistered and one change", evs)
	}
	changed, ok := evs[1].(NodeStatusChanged)
	if !ok || len(changed.Conditions) != 5 || changed.NotReady != "" || changed.BecameReady {
		t.Fatalf("the stop's changes: %+v, want a NodeStatusChanged of Ready and four pressures, no turn", evs[1])
	}
	one := fold(n, evs[0], roundTrip(t, changed))
	separate := fold(n, append([]Event{evs[0],
		NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "AgentStopped", Message: "herd agent stopped cleanly", At: at(60)},
	}, stalePressures(MessagePressureAgentStopped, at(60))...)...)
	if one.Version != n.Version+2 {
		t.Errorf("the stop moved the version from %d to %d, want two events", n.Version, one.Version)
	}
	separate.Version = one.Version
	if diff := cmp.Diff(separate, one); diff != "" {
		t.Errorf("one event left the node otherwise than the separate events (-separate +one):\n%s", diff)
	}
	readyFalse := fold(registered("web-01"), NodeConditionChanged{Type: ConditionReady, Status: ConditionTrue, At: at(10)})
	evs, err = DecideNode(readyFalse, DeregisterNode{}, at(60))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("a stop changing Ready alone decided %+v", evs)
	}
	if _, ok := evs[1].(NodeConditionChanged); !ok {
		t.Errorf("a stop changing Ready alone recorded %+v, want that NodeConditionChanged", evs[1])
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
