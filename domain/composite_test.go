package domain

import (
	"reflect"
	"slices"
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

// TestAReportsChangesAreOneEvent: a report that changes more than one of
// the node's conditions and Ready's turn records them as one
// NodeStatusChanged, after the services' events, which folds into the
// node the separate events folded into but for the version, which counts
// one event; a report that changes one thing records that event alone,
// where it stood.
func TestAReportsChangesAreOneEvent(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	node := EvolveNode(Node{}, NodeRegistered{Registration: Registration{Name: "web-01", Kind: KindKubelet}, At: t0})
	kubelet := []ReportedCondition{
		{Type: ConditionMemoryPressure, Status: ConditionFalse, Reason: "KubeletHasSufficientMemory"},
		{Type: ConditionDiskPressure, Status: ConditionFalse, Reason: "KubeletHasNoDiskPressure"},
		{Type: ConditionPIDPressure, Status: ConditionFalse, Reason: "KubeletHasSufficientPID"},
		{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	at := t0.Add(time.Second)
	evs, err := DecideNode(node, RecordHeartbeat{Reported: kubelet}, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("the first report decided %d events, want a heartbeat and one change: %+v", len(evs), evs)
	}
	changed, ok := evs[1].(NodeStatusChanged)
	if !ok || len(changed.Conditions) != 4 || !changed.BecameReady || changed.NotReady != "" {
		t.Fatalf("the first report's changes: %+v, want a NodeStatusChanged with 4 conditions and Ready's turn", evs[1])
	}
	one := EvolveNode(EvolveNode(node, evs[0]), roundTrip(t, changed))
	separate := EvolveNode(node, evs[0])
	for _, p := range changed.Parts() {
		separate = EvolveNode(separate, p)
	}
	if one.Version != node.Version+2 {
		t.Errorf("the report moved the version from %d to %d, want two events", node.Version, one.Version)
	}
	if one.AgentState != AgentReady {
		t.Errorf("agent %s after the first report, want Ready", one.AgentState)
	}
	separate.Version = one.Version
	if !reflect.DeepEqual(one, separate) {
		t.Errorf("one event left\n%+v\nthe separate events\n%+v", one, separate)
	}

	// after is what a report of kubelet's conditions, changed by edit,
	// records after its heartbeat on one: a heartbeat and one event.
	after := func(what string, edit func([]ReportedCondition)) Event {
		t.Helper()
		report := slices.Clone(kubelet)
		edit(report)
		evs, err := DecideNode(one, RecordHeartbeat{Reported: report}, at.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 {
			t.Fatalf("a report %s decided %+v, want a heartbeat and one change", what, evs)
		}
		return evs[1]
	}
	// One change alone is itself.
	ev := after("changing one condition", func(r []ReportedCondition) { r[1].Status, r[1].Reason = ConditionTrue, "KubeletHasDiskPressure" })
	if c, ok := ev.(NodeConditionChanged); !ok || c.Type != ConditionDiskPressure || c.Status != ConditionTrue {
		t.Errorf("a report changing one condition recorded %+v, want that NodeConditionChanged", ev)
	}
	// Ready leaving True with its condition: one event, its reason kept.
	ev = after("taking Ready to False", func(r []ReportedCondition) { r[3].Status, r[3].Reason = ConditionFalse, "KubeletNotReady" })
	if c, ok := ev.(NodeStatusChanged); !ok || c.NotReady != ConditionFalse || c.NotReadyReason != "KubeletNotReady" || len(c.Conditions) != 1 {
		t.Errorf("a report taking Ready to False recorded %+v, want one NodeStatusChanged with Ready's change and turn", ev)
	}
	if got := EvolveNode(one, ev); conditionStatus(got, ConditionReady) != ConditionFalse {
		t.Errorf("Ready %s after the change, want False", conditionStatus(got, ConditionReady))
	}
}

// TestAgentReportsServicesBeforeTheStatusChange: an agent's report that
// turns a service failed and changes more than one condition records the
// service's event, then the one change of its status.
func TestAgentReportsServicesBeforeTheStatusChange(t *testing.T) {
	n := registered("web-01")
	evs, err := DecideNode(n, RecordHeartbeat{Metrics: watching(nginxFailed)}, at(10))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		types = append(types, e.EventType())
	}
	if want := []string{"HeartbeatRecorded", "NodeServiceFailed", "NodeStatusChanged"}; !slices.Equal(types, want) {
		t.Errorf("events %v, want %v", types, want)
	}
}
