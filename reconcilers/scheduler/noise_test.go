package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

// TestNodesRegisteringOneAfterAnotherAddLittleToTheLog is the log noise an
// operator saw: pods that fit nowhere, while nodes register one after
// another, each registration a pass of its own. Only the node count in the
// message changes ("0/48 nodes are available", "0/49 …"); the reasons do
// not, so each pod records its condition a handful of times, not once per
// node.
func TestNodesRegisteringOneAfterAnotherAddLittleToTheLog(t *testing.T) {
	const pods, nodes = 20, 40
	h := newHarness(t, Config{})
	h.start()
	for i := range pods {
		// More CPU than any node has.
		h.pod(fmt.Sprintf("big-%02d", i), 64000, mi)
	}
	h.eventually(func() bool { return h.scheduledCondition("big-19").Reason == domain.ReasonUnschedulable },
		"the pods are marked unschedulable", func() any { return h.scheduledCondition("big-19") })
	for i := range nodes {
		name := fmt.Sprintf("node-%02d", i)
		reg := domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: domain.KindLinux, Allocatable: small, Capacity: small}}
		hb := domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: domain.ConditionTrue}}}
		before := h.passes()
		if _, err := h.w.NodeCommands().Execute(context.Background(), domain.Key{Name: name}, domain.NodeSequence{reg, hb}); err != nil {
			t.Fatal(err)
		}
		h.eventually(func() bool { return h.passes() > before && h.idle() }, "a pass after "+name+" registered",
			func() any { return h.passes() })
	}
	want := fmt.Sprintf("0/%d nodes are available: %d Insufficient cpu.", 1, 1)
	for i := range pods {
		name := fmt.Sprintf("big-%02d", i)
		marks := countType(h.stream(name), "PodUnschedulable")
		// "no nodes available", then the first node's count.
		if marks > 2 {
			t.Errorf("%s recorded PodUnschedulable %d times while %d nodes registered, want at most 2", name, marks, nodes)
		}
		if got := h.scheduledCondition(name).Message; got != want {
			t.Errorf("%s's message = %q, want %q (the first with these reasons)", name, got, want)
		}
	}
}

// TestAnUnschedulablePodIsTriedAgainAfterItsBackoff: with nothing changing
// in the fleet, a pod that fits nowhere is tried again when its backoff
// ends, by the scheduler's clock and not before, each try doubling the
// wait from 1 s up to 10 s; a node that may fit it ends the wait at once.
func TestAnUnschedulablePodIsTriedAgainAfterItsBackoff(t *testing.T) {
	h := newHarness(t, Config{})
	h.node("a", small, nil)
	h.pod("big", 64000, mi)
	ctx := t.Context()
	reconcile := func() time.Duration {
		t.Helper()
		res, err := h.r.Reconcile(ctx, keyPending)
		if err != nil {
			t.Fatal(err)
		}
		return res.RequeueAfter
	}
	var waits []time.Duration
	for range 6 {
		wait := reconcile()
		waits = append(waits, wait)
		h.clock.Step(wait - time.Millisecond)
		if got := reconcile(); got != time.Millisecond {
			t.Fatalf("a pass %s into a %s backoff asks to come back after %s, want 1ms", wait-time.Millisecond, wait, got)
		}
		h.clock.Step(time.Millisecond)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if marks := countType(h.stream("big"), "PodUnschedulable"); marks != 1 {
		t.Errorf("big recorded PodUnschedulable %d times, want once: the reasons never changed", marks)
	}

	reconcile() // big waits 10 s again
	h.node("b", domain.ResourceList{"cpu": 128000, "memory": 16 * gi, "pods": 10}, nil)
	h.r.Watches().KeysFor(events.Record{Stream: "node/b", Type: "NodeRegistered"})
	if got := reconcile(); got != 0 {
		t.Errorf("after big was bound the scheduler asks to come back after %s, want never", got)
	}
	if got := h.nodeOf("big"); got != "b" {
		t.Errorf("big is on %q, want on b at once, its backoff ended by the new node", got)
	}
}

func countType(recs []events.Record, typ string) int {
	n := 0
	for _, rec := range recs {
		if rec.Type == typ {
			n++
		}
	}
	return n
}
