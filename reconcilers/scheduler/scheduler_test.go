package scheduler

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

var small = domain.ResourceList{"cpu": 1000, "memory": 2 * gi, "pods": 10}

// onePod is a node with room for a single pod.
var onePod = domain.ResourceList{"cpu": 1000, "memory": 2 * gi, "pods": 1}

func TestPendingPodsAreBoundToTheLeastAllocatedNodes(t *testing.T) {
	h := newHarness(t, Config{})
	h.node("a", small, nil)
	h.node("b", small, nil)
	h.start()
	h.pod("first", 600, gi)
	h.eventually(func() bool { return h.nodeOf("first") != "" }, "first is bound", func() any { return h.get("first").Status })
	h.pod("second", 100, 100*mi)
	h.eventually(func() bool { return h.nodeOf("second") != "" }, "second is bound", func() any { return h.get("second").Status })

	if diff := cmp.Diff(map[string]string{"first": "a", "second": "b"},
		map[string]string{"first": h.nodeOf("first"), "second": h.nodeOf("second")}); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
	if c := h.scheduledCondition("second"); c.Status != domain.ConditionTrue {
		t.Errorf("PodScheduled = %+v, want True", c)
	}
	recs := h.stream("second")
	last := recs[len(recs)-1]
	// The scheduler's, caused by the event that queued its pass.
	want := events.Metadata{Actor: "system:herd:scheduler", Source: "reconciler/scheduler"}
	got := last.Metadata
	got.CausationID, got.CorrelationID = "", ""
	if last.Type != "PodScheduled" || got != want || last.Metadata.CausationID == "" {
		t.Errorf("last event of second = %s by %+v, want PodScheduled by %+v, with a cause", last.Type, last.Metadata, want)
	}
}

func TestAPodWaitsUntilANodeIsReady(t *testing.T) {
	h := newHarness(t, Config{})
	h.start()
	h.pod("p", 100, mi)
	h.eventually(func() bool { return h.scheduledCondition("p").Message == "no nodes available to schedule pods" },
		"p is told there are no nodes", func() any { return h.scheduledCondition("p") })

	h.nodeCmd("late", domain.RegisterNode{Registration: domain.Registration{Name: "late", UID: "uid-late", Kind: domain.KindIllumos, Allocatable: small}})
	want := "0/1 nodes are available: 1 node(s) were not ready."
	h.eventually(func() bool { return h.scheduledCondition("p").Message == want },
		"p is told the node is not ready", func() any { return h.scheduledCondition("p") })
	if c := h.scheduledCondition("p"); c.Status != domain.ConditionFalse || c.Reason != domain.ReasonUnschedulable {
		t.Errorf("PodScheduled = %+v, want False with reason Unschedulable", c)
	}

	h.nodeCmd("late", domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}})
	h.eventually(func() bool { return h.nodeOf("p") == "late" }, "p goes on the node once it is Ready", func() any { return h.scheduledCondition("p") })
}

func TestCapacityIsFreedWhenAPodIsFinalizedNotWhenItIsDeleted(t *testing.T) {
	h := newHarness(t, Config{})
	h.node("a", onePod, nil)
	h.start()
	h.pod("holder", 100, mi)
	h.eventually(func() bool { return h.nodeOf("holder") == "a" }, "holder is bound", func() any { return h.get("holder").Status })
	h.pod("waiter", 100, mi)
	want := "0/1 nodes are available: 1 Too many pods."
	h.eventually(func() bool { return h.scheduledCondition("waiter").Message == want },
		"waiter waits for room", func() any { return h.scheduledCondition("waiter") })
	marked := len(h.stream("waiter"))

	// A terminating pod holds its node until it is finalized; a resync
	// pass sees the same as before and records nothing new. (Neither
	// the marking nor the deletion calls for a pass of its own.)
	h.eventually(h.idle, "the pass that marked waiter ends", func() any { s, _ := h.mgr.Status("scheduler"); return s })
	before := h.passes()
	h.podCmd("holder", domain.DeletePod{})
	h.clock.Step(h.r.ResyncPeriod())
	h.eventually(func() bool { return h.passes() > before }, "a resync pass runs", func() any { return h.passes() })
	if got := h.nodeOf("waiter"); got != "" {
		t.Fatalf("waiter went on %q while holder was still terminating there", got)
	}
	if got := len(h.stream("waiter")); got != marked {
		t.Errorf("waiter's stream has %d events after the resync, want still %d: the same message is not recorded twice", got, marked)
	}

	h.podCmd("holder", domain.FinalizePod{Reason: "Terminated"})
	h.eventually(func() bool { return h.nodeOf("waiter") == "a" }, "waiter takes the freed room", func() any { return h.scheduledCondition("waiter") })
}

func TestAFinishedPodLetsGoOfItsNode(t *testing.T) {
	h := newHarness(t, Config{})
	h.node("a", onePod, nil)
	h.start()
	h.pod("job", 100, mi)
	h.eventually(func() bool { return h.nodeOf("job") == "a" }, "job is bound", func() any { return h.get("job").Status })
	h.pod("next", 100, mi)
	h.eventually(func() bool { return h.scheduledCondition("next").Reason == domain.ReasonUnschedulable },
		"next waits", func() any { return h.scheduledCondition("next") })

	h.podCmd("job", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodSucceeded}})
	h.eventually(func() bool { return h.nodeOf("next") == "a" }, "next goes on a once job succeeded", func() any { return h.scheduledCondition("next") })
}

func TestABatchWithAChangedPodFallsBackToOneAtATime(t *testing.T) {
	h := newHarness(t, Config{BindBatchSize: 10})
	h.node("a", small, nil)
	for _, name := range []string{"p1", "p2", "p3", "p4"} {
		h.pod(name, 100, mi)
	}
	ctx := context.Background()
	nodes, _, err := h.r.nodes.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pods, _, err := h.pods.List(ctx, projections.PodFilter{})
	if err != nil {
		t.Fatal(err)
	}
	decisions := plan(nodes, pods, leastAllocated)
	// Between the pass's reading and its writing, p2 is deleted (it goes
	// at once, never having been scheduled) and p3 is bound elsewhere.
	h.podCmd("p2", domain.DeletePod{})
	h.node("b", small, nil)
	h.podCmd("p3", domain.BindPod{NodeName: "b"})

	bound, marked, err := h.r.write(ctx, decisions)
	if err != nil {
		t.Fatal(err)
	}
	if bound != 2 || marked != 0 {
		t.Errorf("write bound %d and marked %d, want 2 and 0", bound, marked)
	}
	got := map[string]string{"p1": h.nodeOf("p1"), "p3": h.nodeOf("p3"), "p4": h.nodeOf("p4")}
	if diff := cmp.Diff(map[string]string{"p1": "a", "p3": "b", "p4": "a"}, got); diff != "" {
		t.Errorf("placement (-want +got):\n%s", diff)
	}
	if _, err := h.pods.Get(ctx, "default", "p2"); err == nil {
		t.Error("p2 is back: a deleted pod was bound")
	}
}

func TestKeysFor(t *testing.T) {
	h := newHarness(t, Config{})
	tests := []struct {
		name string
		rec  events.Record
		want []string
	}{
		{name: "pod created", rec: events.Record{Stream: "pod/default/p", Type: "PodCreated"}, want: []string{"pending"}},
		{name: "pod finalized", rec: events.Record{Stream: "pod/default/p", Type: "PodFinalized"}, want: []string{"pending"}},
		{name: "pod succeeded", rec: events.Record{Stream: "pod/default/p", Type: "PodStatusUpdated", Payload: []byte(`{"status":{"phase":"Succeeded"}}`)}, want: []string{"pending"}},
		{name: "pod failed", rec: events.Record{Stream: "pod/default/p", Type: "PodStatusUpdated", Payload: []byte(`{"status":{"phase":"Failed"}}`)}, want: []string{"pending"}},
		{name: "pod running", rec: events.Record{Stream: "pod/default/p", Type: "PodStatusUpdated", Payload: []byte(`{"status":{"phase":"Running"}}`)}},
		{name: "pod bound", rec: events.Record{Stream: "pod/default/p", Type: "PodScheduled"}},
		{name: "pod marked unschedulable", rec: events.Record{Stream: "pod/default/p", Type: "PodUnschedulable"}},
		{name: "pod deletion requested", rec: events.Record{Stream: "pod/default/p", Type: "PodDeletionRequested"}},
		{name: "node registered", rec: events.Record{Stream: "node/a", Type: "NodeRegistered"}, want: []string{"pending"}},
		{name: "node condition", rec: events.Record{Stream: "node/a", Type: "NodeConditionChanged"}, want: []string{"pending"}},
		{name: "node tainted", rec: events.Record{Stream: "node/a", Type: "NodeTainted"}, want: []string{"pending"}},
		{name: "node untainted", rec: events.Record{Stream: "node/a", Type: "NodeUntainted"}, want: []string{"pending"}},
		{name: "node uncordoned", rec: events.Record{Stream: "node/a", Type: "NodeUncordoned"}, want: []string{"pending"}},
		{name: "node labels", rec: events.Record{Stream: "node/a", Type: "NodeLabelsChanged"}, want: []string{"pending"}},
		{name: "node deleted", rec: events.Record{Stream: "node/a", Type: "NodeDeleted"}, want: []string{"pending"}},
		{name: "plain heartbeat", rec: events.Record{Stream: "node/a", Type: "HeartbeatRecorded"}},
		{name: "fleet", rec: events.Record{Stream: domain.FleetHealthStream, Type: "FleetDisruptionStarted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, reconcilerstest.Strings(h.r.Watches().KeysFor(tt.rec))); diff != "" {
				t.Errorf("KeysFor (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "zero takes the defaults", cfg: Config{}},
		{name: "defaults", cfg: DefaultConfig()},
		{
			name: "negative", cfg: Config{ResyncPeriod: -1, BindBatchSize: -1},
			wantErr: "--scheduler-resync-period -1ns: want a positive duration\n--scheduler-bind-batch-size -1: want 1 or more",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("Validate() = %q, want %q", got, tt.wantErr)
			}
		})
	}
	var c Config
	c.setDefaults()
	if diff := cmp.Diff(DefaultConfig(), c); diff != "" {
		t.Errorf("setDefaults (-want +got):\n%s", diff)
	}
}

// TestABindingNamesTheCreationOfThePodItBinds: a pod made again under the
// name of one that is gone (a StatefulSet's) continues its stream; its
// mark and its binding name its own creation, not its predecessor's.
func TestABindingNamesTheCreationOfThePodItBinds(t *testing.T) {
	h := newHarness(t, Config{})
	h.start()
	h.pod("db-0", 100, mi)
	h.eventually(func() bool { return h.scheduledCondition("db-0").Message == "no nodes available to schedule pods" },
		"db-0 is told there are no nodes", func() any { return h.scheduledCondition("db-0") })
	now := int64(0)
	h.podCmd("db-0", domain.DeletePod{GracePeriodSeconds: &now})
	h.pod("db-0", 100, mi)
	h.node("a", small, nil)
	h.eventually(func() bool { return h.nodeOf("db-0") == "a" }, "db-0 is bound", func() any { return h.get("db-0").Status })
	var created events.Record
	for _, rec := range h.stream("db-0") {
		switch rec.Type {
		case "PodCreated":
			created = rec
		case "PodScheduled", "PodUnschedulable":
			if rec.Metadata.CausationID != created.ID {
				t.Errorf("%s at %d names %s, want the creation before it at %d", rec.Type, rec.Position, rec.Metadata.CausationID, created.Position)
			}
		}
	}
}
