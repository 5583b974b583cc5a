package domain

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events/eventstest"
)

// kubeletReport is a kubelet's status report with its usual conditions.
func kubeletReport() RecordHeartbeat {
	return RecordHeartbeat{Reported: []ReportedCondition{
		{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: ConditionDiskPressure, Status: ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: ConditionPIDPressure, Status: ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}}
}

// sameBacking reports whether a and b are one backing array.
func sameBacking(a, b []Condition) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

func TestAReportThatChangesNoConditionKeepsTheNodesConditions(t *testing.T) {
	first, _ := run(t, registered("web-01"), step{kubeletReport(), at(10)})
	second, events := run(t, first, step{kubeletReport(), at(20)})
	if len(events) != 1 {
		t.Fatalf("a report changing nothing recorded %d events, want 1: %v", len(events), events)
	}
	if !sameBacking(first.Conditions, second.Conditions) {
		t.Error("a report that changes no condition copied the node's conditions; want the same slice")
	}
	for _, c := range second.ConditionsHeard() {
		if !c.LastHeartbeatTime.Equal(at(20)) || !c.LastTransitionTime.Equal(at(10)) {
			t.Errorf("%s heard at %v, turned at %v; want %v and %v", c.Type, c.LastHeartbeatTime, c.LastTransitionTime, at(20), at(10))
		}
	}
	if c, _ := first.Condition(ConditionReady); !c.LastHeartbeatTime.Equal(at(10)) {
		t.Errorf("the earlier version's Ready heard at %v, want %v", c.LastHeartbeatTime, at(10))
	}
	third, _ := run(t, second, step{RecordHeartbeat{}, at(30)})
	if !sameBacking(first.Conditions, third.Conditions) {
		t.Error("a heartbeat without conditions copied the node's conditions; want the same slice")
	}
}

func TestConditionsHeardAtAnotherTimeKeepTheirOwn(t *testing.T) {
	// Ready new on a node that never reported dates from its registration.
	n := fold(registered("web-01"), NodeConditionChanged{Type: ConditionReady, Status: ConditionUnknown, Reason: "NodeStatusNeverUpdated", At: at(40), Inferred: true})
	if c, _ := n.Condition(ConditionReady); !c.LastHeartbeatTime.Equal(t0) {
		t.Errorf("Ready of a node never heard: heard at %v, want its registration %v", c.LastHeartbeatTime, t0)
	}
	// A condition herd infers keeps when it was last heard, and the next
	// report moves it with the others.
	n, _ = run(t, registered("web-02"), step{kubeletReport(), at(10)})
	n = fold(n, HeartbeatMissed{LastHeartbeat: at(10), Reason: "NodeStatusUnknown", At: at(60), Message: "Kubelet stopped posting node status.",
		Conditions: []MissedCondition{{Type: ConditionReady, From: ConditionTrue}}, NotReady: true})
	if c, _ := n.Condition(ConditionReady); c.Status != ConditionUnknown || !c.LastHeartbeatTime.Equal(at(10)) || !c.LastTransitionTime.Equal(at(60)) {
		t.Errorf("Ready after a missed heartbeat: %+v, want Unknown heard at %v, turned at %v", c, at(10), at(60))
	}
	n, _ = run(t, n, step{kubeletReport(), at(70)})
	for _, c := range n.ConditionsHeard() {
		if !c.LastHeartbeatTime.Equal(at(70)) {
			t.Errorf("%s heard at %v after a report at %v", c.Type, c.LastHeartbeatTime, at(70))
		}
	}
}

func TestANodeHeldWithItsOwnTimesComesBackAsEvolveNodeKeepsIt(t *testing.T) {
	n, _ := run(t, registered("web-01"), step{kubeletReport(), at(10)})
	written := n.Heard() // as a row or a snapshot of an earlier herd holds it
	if sameBacking(written.Conditions, n.Conditions) {
		t.Fatal("Heard did not copy conditions heard with the node")
	}
	back := written.WithConditionsHeardWithNode()
	if diff := cmp.Diff(n, back); diff != "" {
		t.Errorf("node read back (-folded +read):\n%s", diff)
	}
	if diff := cmp.Diff(n.Heard(), written); diff != "" {
		t.Errorf("WithConditionsHeardWithNode changed the node it was given (-want +got):\n%s", diff)
	}
	if again := back.WithConditionsHeardWithNode(); !sameBacking(again.Conditions, back.Conditions) {
		t.Error("WithConditionsHeardWithNode copied conditions it did not change")
	}
}

// Conditions slices are shared between a node's versions, so no event may
// write the slice of the node it is folded onto.
func TestEvolveNodeNeverWritesTheConditionsItWasGiven(t *testing.T) {
	base, _ := run(t, registered("web-01"), step{kubeletReport(), at(10)})
	owned := base.Heard() // every condition with a time of its own
	evs := []Event{
		HeartbeatRecorded{At: at(20)},
		NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse, Reason: "KubeletNotReady", At: at(20)},
		NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionUnknown, Reason: "NodeStatusUnknown", At: at(20), Inferred: true},
		NodeConditionChanged{Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: "RouteCreated", At: at(20)},
		HeartbeatMissed{LastHeartbeat: at(10), Reason: "NodeStatusUnknown", At: at(60), Conditions: []MissedCondition{{Type: ConditionReady, From: ConditionTrue}, {Type: ConditionMemoryPressure, From: ConditionFalse}}, NotReady: true},
		NodeRestarted{Registration: registration("web-01"), At: at(20), RestartCount: 1, Reason: "rebooted"},
		NodeBecameReady{At: at(20)},
		NodeUndrained{At: at(20)},
		NodeLabelsChanged{Labels: map[string]string{"a": "b"}, At: at(20)},
		NodeDeleted{At: at(20)},
		NodeRegistered{Registration: registration("web-01"), At: at(20)},
	}
	for _, n := range []Node{base, owned} {
		for _, e := range evs {
			before := slicesCloneConds(n.Conditions)
			_ = EvolveNode(n, e)
			if diff := cmp.Diff(before, n.Conditions); diff != "" {
				t.Errorf("%T wrote the conditions of the node it was folded onto (-before +after):\n%s", e, diff)
			}
		}
	}
}

func slicesCloneConds(c []Condition) []Condition { return append([]Condition(nil), c...) }

// The watch hub keeps several versions of a node (its ring, its bases),
// the unit of work another: a kubelet's reports that change no condition
// must not cost a conditions slice each.
func TestAKubeletsReportsKeepOneConditionsSliceForAllItsVersions(t *testing.T) {
	const nodes, reports = 1000, 5
	kept := make([][]Condition, 0, nodes*reports)
	nodesAfter := make([]Node, 0, nodes)
	before := eventstest.LiveHeap()
	for i := range nodes {
		n := registered(fmt.Sprintf("node-%05d", i))
		for r := range reports {
			n, _ = run(t, n, step{kubeletReport(), at(10 * (r + 1))})
			kept = append(kept, n.Conditions)
		}
		nodesAfter = append(nodesAfter, n)
	}
	perNode := (eventstest.LiveHeap() - before) / nodes
	t.Logf("%d kubelets, %d reports each, every version's conditions kept: %d bytes a node", nodes, reports, perNode)
	// The node's last version (its labels, addresses, strings) and one
	// slice of four conditions (448 bytes) come to about 1,700 bytes; a
	// slice for each report, 3,500.
	if perNode > 2000 {
		t.Errorf("every version's conditions keep %d bytes a node; want at most 2,000 (one slice a node)", perNode)
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(nodesAfter)
}
