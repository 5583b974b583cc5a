package domain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMarkNodeUnreachable(t *testing.T) {
	health := func(from ConditionStatus) []MissedCondition {
		var out []MissedCondition
		for i, ty := range []ConditionType{ConditionReady, ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad} {
			f := from
			if from == ConditionTrue && i > 0 {
				f = ConditionFalse
			}
			out = append(out, MissedCondition{Type: ty, From: f})
		}
		return out
	}
	unreachable := func(noExecute bool) []Taint {
		out := []Taint{{Key: TaintUnreachable, Effect: EffectNoSchedule, TimeAdded: at(60)}}
		if noExecute {
			out = append(out, Taint{Key: TaintUnreachable, Effect: EffectNoExecute, TimeAdded: at(60)})
		}
		return out
	}
	stopped, _ := run(t, ready(t, "web-01"), step{DeregisterNode{}, at(20)})
	tests := []struct {
		name string
		node Node
		cmd  MarkNodeUnreachable
		want []Event
	}{
		{
			// One event says it all: the conditions gone Unknown, Ready
			// no longer True, the unreachable taints.
			name: "a silent ready node goes Unknown on every health condition",
			node: ready(t, "web-01"),
			cmd:  MarkNodeUnreachable{LastHeard: at(10)},
			want: []Event{HeartbeatMissed{LastHeartbeat: at(10), Reason: ReasonNodeStatusUnknown, Message: MessageNodeStatusUnknown, At: at(60),
				Conditions: health(ConditionTrue), NotReady: true, Taints: unreachable(true)}},
		},
		{
			name: "a node that never reported gets every condition as never updated",
			node: registered("web-01"),
			cmd:  MarkNodeUnreachable{Note: "(herd may be cut off)", WithholdNoExecute: true},
			want: []Event{HeartbeatMissed{Reason: ReasonNodeStatusNeverUpdated, Message: MessageNodeStatusNeverUpd + " (herd may be cut off)", At: at(60),
				Conditions: health(""), Taints: unreachable(false)}},
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
		n, _ := run(t, ready(t, "web-01"), step{MarkNodeUnreachable{LastHeard: at(10)}, at(60)})
		again, err := DecideNode(n, MarkNodeUnreachable{LastHeard: at(10)}, at(65))
		checkDecision(t, again, err, nil, nil)
		c, _ := n.Condition(ConditionReady)
		if !c.LastTransitionTime.Equal(at(60)) || !c.LastHeartbeatTime.Equal(at(10)) {
			t.Errorf("Ready transition %v heartbeat %v, want transition at(60), heartbeat at(10) (the last real one)", c.LastTransitionTime, c.LastHeartbeatTime)
		}
	})
}

// TestAMarkIsMadeWithTheHeartbeatItWasJudgedBy: the mark made with its
// constructor carries the heartbeat it was judged by and marks a node
// silent since that heartbeat; a mark written without one is a verdict
// on a node never heard from, which one that reported is not.
func TestAMarkIsMadeWithTheHeartbeatItWasJudgedBy(t *testing.T) {
	n := ready(t, "web-01") // reported at(10)
	mark := MarkNodeUnreachableSince(at(10))
	if !mark.LastHeard.Equal(at(10)) || mark.Note != "" || mark.WithholdNoExecute {
		t.Fatalf("MarkNodeUnreachableSince(at(10)) = %+v", mark)
	}
	evs, err := DecideNodeHeard(n, time.Time{}, mark, at(60))
	if err != nil || len(evs) != 1 {
		t.Fatalf("a node silent since the heartbeat it was judged by: %+v, %v; want it marked", evs, err)
	}
	if m, ok := evs[0].(HeartbeatMissed); !ok || !m.NotReady || !m.LastHeartbeat.Equal(at(10)) {
		t.Fatalf("the mark: %+v, want a HeartbeatMissed naming at(10) its last heartbeat", evs[0])
	}
	// Without the heartbeat, on purpose: the verdict of a node never heard from.
	evs, err = DecideNodeHeard(n, time.Time{}, MarkNodeUnreachable{}, at(60))
	if err != nil || len(evs) != 0 {
		t.Fatalf("a mark without its heartbeat on a node that reported: %+v, %v; want a no-op", evs, err)
	}
}

// TestAMarkHoldsOnlyForTheHeartbeatsItWasJudgedBy: a mark judged by a
// last heartbeat older than the one the node has stored, on the node
// itself or as its lease's renewal, writes nothing; judged by the stored
// one, or a later one, it marks. The lease's renewal is weighed only
// where the executor gives it (DecideNodeHeard), through the wrappers the
// health rules put around the mark.
func TestAMarkHoldsOnlyForTheHeartbeatsItWasJudgedBy(t *testing.T) {
	n := ready(t, "web-01") // reported at(10)
	marks := func(t *testing.T, evs []Event, err error) bool {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if m, ok := e.(HeartbeatMissed); ok && m.NotReady {
				return true
			}
		}
		if len(evs) > 0 {
			t.Fatalf("neither a mark nor a no-op: %+v", evs)
		}
		return false
	}
	for _, tt := range []struct {
		name      string
		lastHeard time.Time
		renewed   time.Time
		want      bool
	}{
		{"judged before the node's stored report", at(5), time.Time{}, false},
		{"judged never heard, the node has reported since", time.Time{}, time.Time{}, false},
		{"judged by the node's stored report", at(10), time.Time{}, true},
		{"judged by a later heartbeat than the stored one", at(15), time.Time{}, true},
		{"judged before the lease's stored renewal", at(15), at(20), false},
		{"judged by the lease's stored renewal", at(20), at(20), true},
		{"a lease renewed before the node's own report", at(10), at(5), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideNodeHeard(n, tt.renewed, MarkNodeUnreachableSince(tt.lastHeard), at(60))
			if got := marks(t, evs, err); got != tt.want {
				t.Errorf("marked %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("the lease is weighed inside the health rules' wrappers", func(t *testing.T) {
		mark := MarkNodeUnreachable{LastHeard: at(15)}
		wrapped := IfNodeReporting{Command: NodeSequence{mark, SyncConditionTaints{}}}
		if !WeighsLease(wrapped) || !WeighsLease(mark) || WeighsLease(RecordHeartbeat{}) || WeighsLease(NodeSequence{SyncConditionTaints{}}) {
			t.Fatal("WeighsLease does not name the commands that hold a mark")
		}
		evs, err := DecideNodeHeard(n, at(20), wrapped, at(60))
		if marks(t, evs, err) {
			t.Error("a mark inside IfNodeReporting and NodeSequence ignored a later renewal")
		}
		evs, err = DecideNodeHeard(n, at(15), wrapped, at(60))
		if !marks(t, evs, err) {
			t.Error("a mark judged by the lease's renewal did not mark")
		}
		// DecideNode gives no renewal: the node's own reports alone.
		evs, err = DecideNode(n, wrapped, at(60))
		if !marks(t, evs, err) {
			t.Error("a mark decided without its lease did not mark")
		}
	})
	t.Run("a command that weighs no lease is decided as DecideNode decides it", func(t *testing.T) {
		hb := RecordHeartbeat{Metrics: healthy()}
		got, err := DecideNodeHeard(n, at(20), hb, at(30))
		want, werr := DecideNode(n, hb, at(30))
		checkDecision(t, got, err, want, werr)
		if _, err := DecideNodeHeard(n, at(20), nil, at(30)); err == nil {
			t.Error("a nil command was decided")
		}
	})
}

func TestSyncConditionTaints(t *testing.T) {
	// Ready Unknown without the taints the mark puts on with it: what a
	// version 1 HeartbeatMissed and its conditions left, or an operator
	// who took the taints off.
	unreachable := fold(ready(t, "web-01"), HeartbeatMissed{LastHeartbeat: at(10), Reason: ReasonNodeStatusUnknown, At: at(60),
		Conditions: []MissedCondition{{Type: ConditionReady, From: ConditionTrue}}, NotReady: true})
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

	t.Run("a deferred NoExecute is left off a node without one, and a node with one keeps one", func(t *testing.T) {
		if !WantsNewNoExecute(unreachable) {
			t.Errorf("a node Ready Unknown without taints does not want a new NoExecute")
		}
		n, _ := run(t, unreachable, step{SyncConditionTaints{DeferNoExecute: true}, at(70)})
		want := []Taint{{Key: TaintUnreachable, Effect: EffectNoSchedule, TimeAdded: at(70)}}
		if diff := cmp.Diff(want, n.Taints); diff != "" {
			t.Errorf("taints deferred (-want +got):\n%s", diff)
		}
		n, _ = run(t, n, step{SyncConditionTaints{}, at(75)})
		if WantsNewNoExecute(n) {
			t.Errorf("a node with its NoExecute taint wants a new one: %v", n.Taints)
		}
		// Ready turns False: the not-ready NoExecute replaces the
		// unreachable one although new ones are deferred.
		notReady := fold(n, NodeConditionChanged{Type: ConditionReady, From: ConditionUnknown, Status: ConditionFalse, At: at(80)})
		n, _ = run(t, notReady, step{SyncConditionTaints{DeferNoExecute: true}, at(80)})
		if !n.HasTaint(TaintNotReady, EffectNoExecute) || n.HasTaint(TaintUnreachable, EffectNoExecute) {
			t.Errorf("a node swapping its NoExecute taint under a deferral has %v, want not-ready NoExecute in place of unreachable", n.Taints)
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
		for _, e := range flat(evs) {
			_, ok := e.(NodeBecameReady)
			ready = ready || ok
		}
		if !ready {
			t.Errorf("recovery did not record NodeBecameReady: %v", evs)
		}
	})
}
