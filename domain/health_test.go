package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarkNodeUnreachable(t *testing.T) {
	unknown := func(ty ConditionType, from ConditionStatus, reason, msg string) Event {
		return NodeConditionChanged{Type: ty, From: from, Status: ConditionUnknown, Reason: reason, Message: msg, Inferred: true, At: at(60)}
	}
	stopped, _ := run(t, ready(t, "web-01"), step{DeregisterNode{}, at(20)})
	tests := []struct {
		name string
		node Node
		cmd  MarkNodeUnreachable
		want []Event
	}{
		{
			name: "a silent ready node goes Unknown on every health condition",
			node: ready(t, "web-01"),
			want: []Event{
				HeartbeatMissed{LastHeartbeat: at(10), Reason: ReasonNodeStatusUnknown, At: at(60)},
				unknown(ConditionReady, ConditionTrue, ReasonNodeStatusUnknown, MessageNodeStatusUnknown),
				unknown(ConditionMemoryPressure, ConditionFalse, ReasonNodeStatusUnknown, MessageNodeStatusUnknown),
				unknown(ConditionDiskPressure, ConditionFalse, ReasonNodeStatusUnknown, MessageNodeStatusUnknown),
				unknown(ConditionPIDPressure, ConditionFalse, ReasonNodeStatusUnknown, MessageNodeStatusUnknown),
				unknown(ConditionHighLoad, ConditionFalse, ReasonNodeStatusUnknown, MessageNodeStatusUnknown),
				NodeBecameNotReady{Status: ConditionUnknown, Reason: ReasonNodeStatusUnknown, At: at(60)},
			},
		},
		{
			name: "a node that never reported gets every condition as never updated",
			node: registered("web-01"),
			cmd:  MarkNodeUnreachable{Note: "(herd may be cut off)"},
			want: []Event{
				HeartbeatMissed{Reason: ReasonNodeStatusNeverUpdated, At: at(60)},
				unknown(ConditionReady, "", ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd+" (herd may be cut off)"),
				unknown(ConditionMemoryPressure, "", ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd+" (herd may be cut off)"),
				unknown(ConditionDiskPressure, "", ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd+" (herd may be cut off)"),
				unknown(ConditionPIDPressure, "", ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd+" (herd may be cut off)"),
				unknown(ConditionHighLoad, "", ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd+" (herd may be cut off)"),
			},
		},
		{
			name: "a stopped node is expected to be silent",
			node: stopped,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideNode(tt.node, tt.cmd, at(60))
			checkDecision(t, got, err, tt.want, nil)
		})
	}

	t.Run("a second check changes nothing and keeps the transition time", func(t *testing.T) {
		n, _ := run(t, ready(t, "web-01"), step{MarkNodeUnreachable{}, at(60)})
		again, err := DecideNode(n, MarkNodeUnreachable{}, at(65))
		checkDecision(t, again, err, nil, nil)
		c, _ := n.Condition(ConditionReady)
		if !c.LastTransitionTime.Equal(at(60)) || !c.LastHeartbeatTime.Equal(at(10)) {
			t.Errorf("Ready transition %v heartbeat %v, want transition at(60), heartbeat at(10) (the last real one)", c.LastTransitionTime, c.LastHeartbeatTime)
		}
	})
}

func TestSyncConditionTaints(t *testing.T) {
	unreachable, _ := run(t, ready(t, "web-01"), step{MarkNodeUnreachable{}, at(60)})
	pressured, _ := run(t, ready(t, "web-01"), step{RecordHeartbeat{Metrics: &Metrics{
		CPUCount: 4, MemoryTotalBytes: 100, MemoryAvailableBytes: 5, DiskTotalBytes: 100, DiskAvailableBytes: 50, PIDsMax: 100, PIDsCurrent: 1,
	}}, at(20)})
	cutOff, _ := run(t, ready(t, "web-01"), step{RecordHeartbeat{Reported: []ReportedCondition{
		{Type: ConditionReady, Status: ConditionTrue},
		{Type: ConditionNetworkUnavailable, Status: ConditionTrue, Reason: ReasonNoLinkUp},
	}}, at(20)})
	tests := []struct {
		name     string
		node     Node
		withhold bool
		want     []Taint
	}{
		{"an unavailable network repels new pods, as Kubernetes' network-unavailable taint does", cutOff, false, []Taint{
			{Key: TaintNetworkUnavailable, Effect: EffectNoSchedule, TimeAdded: at(70)},
		}},
		{"Ready Unknown is unreachable, NoSchedule and NoExecute", unreachable, false, []Taint{
			{Key: TaintUnreachable, Effect: EffectNoSchedule, TimeAdded: at(70)},
			{Key: TaintUnreachable, Effect: EffectNoExecute, TimeAdded: at(70)},
		}},
		{"in a fleet-wide disruption NoExecute is withheld", unreachable, true, []Taint{
			{Key: TaintUnreachable, Effect: EffectNoSchedule, TimeAdded: at(70)},
		}},
		{"memory pressure repels new pods only", pressured, false, []Taint{
			{Key: TaintMemoryPressure, Effect: EffectNoSchedule, TimeAdded: at(70)},
		}},
		{"a healthy node has none", ready(t, "web-01"), false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, _ := run(t, tt.node, step{SyncConditionTaints{WithholdNoExecute: tt.withhold}, at(70)})
			if diff := cmp.Diff(tt.want, n.Taints); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
			again, err := DecideNode(n, SyncConditionTaints{WithholdNoExecute: tt.withhold}, at(80))
			checkDecision(t, again, err, nil, nil)
		})
	}

	t.Run("Only syncs the taints it names and leaves the rest for another sync", func(t *testing.T) {
		noExec := Taint{Key: TaintUnreachable, Effect: EffectNoExecute}
		n, _ := run(t, unreachable, step{SyncConditionTaints{Only: []Taint{noExec}}, at(70)})
		want := []Taint{{Key: TaintUnreachable, Effect: EffectNoExecute, TimeAdded: at(70)}}
		if diff := cmp.Diff(want, n.Taints); diff != "" {
			t.Errorf("taints (-want +got):\n%s", diff)
		}
		n, _ = run(t, n, step{SyncConditionTaints{WithholdNoExecute: true, Only: []Taint{{Key: TaintUnreachable, Effect: EffectNoSchedule}}}, at(71)})
		want = append(want, Taint{Key: TaintUnreachable, Effect: EffectNoSchedule, TimeAdded: at(71)})
		if diff := cmp.Diff(want, n.Taints); diff != "" {
			t.Errorf("taints after the NoSchedule sync (-want +got):\n%s", diff)
		}
	})

	t.Run("recovery takes the taints off and leaves operators' taints", func(t *testing.T) {
		n, _ := run(t, unreachable, step{SyncConditionTaints{}, at(70)})
		n = fold(n, NodeTainted{Taint: Taint{Key: "maintenance", Value: "true", Effect: EffectNoSchedule, TimeAdded: at(71)}, At: at(71)})
		n, evs := run(t, n, step{RecordHeartbeat{Metrics: healthy()}, at(80)}, step{SyncConditionTaints{}, at(80)})
		want := []Taint{{Key: "maintenance", Value: "true", Effect: EffectNoSchedule, TimeAdded: at(71)}}
		if diff := cmp.Diff(want, n.Taints); diff != "" {
			t.Errorf("taints after recovery (-want +got):\n%s", diff)
		}
		var ready bool
		for _, e := range evs {
			_, ok := e.(NodeBecameReady)
			ready = ready || ok
		}
		if !ready {
			t.Errorf("recovery did not record NodeBecameReady: %v", evs)
		}
	})
}
