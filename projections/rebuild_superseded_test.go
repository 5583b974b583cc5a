package projections

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

// TestRebuildLeavesOutSupersededHeartbeats replays a mixed log, nodes
// interleaved: an agent whose memory pressure comes and goes, a kubelet
// reporting its figures and conditions, a Pico reporting conditions
// alone, and a node whose reports alternate between those three kinds,
// so that some heartbeats are superseded by the next and some (metrics
// followed by a kubelet's figures) are not; then restarts, a
// deregistration and a registration again, a deletion; between reports,
// marks of silence and the taints that follow, an operator's cordon,
// taint and drain, and failed polls of a kubelet. The views
// rebuilt with superseded heartbeats left out, and with every heartbeat
// folded, both equal the live ones, row for row, in batches small
// enough that streams cross batch boundaries.
func TestRebuildLeavesOutSupersededHeartbeats(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	for name, kind := range map[string]domain.NodeKind{"agent": domain.KindLinux, "kubelet": domain.KindLinux, "pico": domain.KindLinux, "mixed": domain.KindLinux} {
		do(t, w, clk, name, register(name, kind))
	}
	kubelet := func(avail uint64, ready domain.ConditionStatus) domain.RecordHeartbeat {
		return domain.RecordHeartbeat{
			Kubelet:  &domain.KubeletMetrics{MemoryAvailableBytes: &avail},
			Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: ready, Reason: "KubeletReady"}},
		}
	}
	pico := func(ready domain.ConditionStatus) domain.RecordHeartbeat {
		return domain.RecordHeartbeat{Reported: []domain.ReportedCondition{{Type: domain.ConditionReady, Status: ready, Reason: "PicoReady"}}}
	}
	for i := range 60 {
		clk.Step(10 * time.Second)
		avail := int64(500 + i)
		if i%7 < 2 {
			avail = 50 // memory pressure comes and goes
		}
		ready := domain.ConditionTrue
		if i%11 == 5 {
			ready = domain.ConditionFalse
		}
		do(t, w, clk, "agent", metrics(avail))
		do(t, w, clk, "kubelet", kubelet(uint64(1000+i), ready))
		do(t, w, clk, "pico", pico(ready))
		switch i % 3 {
		case 0:
			do(t, w, clk, "mixed", metrics(avail))
		case 1:
			do(t, w, clk, "mixed", kubelet(uint64(2000+i), ready))
		default:
			do(t, w, clk, "mixed", pico(ready))
		}
		if i%9 == 4 {
			// Silent, as the health rules judge it, between two reports:
			// the mark weighs the last heartbeat, the taints follow.
			for _, n := range []string{"agent", "kubelet", "mixed"} {
				if got := do(t, w, clk, n, domain.MarkNodeUnreachable{LastHeard: clk.Now()}); conditionStatusOf(got, domain.ConditionReady) != domain.ConditionUnknown {
					t.Fatalf("%s not marked: %+v", n, got.Conditions)
				}
				do(t, w, clk, n, domain.SyncConditionTaints{})
			}
		}
		// An operator's and the kubelet prober's doings between reports.
		switch i % 12 {
		case 2:
			do(t, w, clk, "mixed", domain.SetNodeSchedulable{Unschedulable: true})
			do(t, w, clk, "kubelet", domain.RecordScrapeFailure{Reason: "ConnectionRefused", Message: "dial tcp: connection refused"})
		case 3:
			do(t, w, clk, "agent", domain.TaintNode{Taint: domain.Taint{Key: "maintenance", Effect: domain.EffectNoSchedule}})
			do(t, w, clk, "mixed", domain.DrainNode{})
		case 7:
			do(t, w, clk, "mixed", domain.UndrainNode{})
			do(t, w, clk, "kubelet", domain.ClearScrapeFailure{})
		case 8:
			do(t, w, clk, "mixed", domain.SetNodeSchedulable{Unschedulable: false})
		}
		switch i {
		case 20:
			do(t, w, clk, "pico", domain.DeregisterNode{})
			do(t, w, clk, "pico", register("pico", domain.KindLinux))
		case 30:
			do(t, w, clk, "agent", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}})
		case 40:
			do(t, w, clk, "kubelet", domain.DeleteNode{})
			do(t, w, clk, "kubelet", register("kubelet", domain.KindLinux))
		}
	}

	for _, fold := range []bool{false, true} {
		diff, stats, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{},
			RebuildOptions{BatchSize: 13, foldSuperseded: fold})
		if err != nil {
			t.Fatal(err)
		}
		if diff != nil {
			t.Fatalf("folding superseded heartbeats %v: rebuilt views differ from live ones: %s", fold, diff)
		}
		head, _ := store.Head(ctx, store.DB())
		if stats.Events != head {
			t.Errorf("folding superseded heartbeats %v: replayed %d events, log head is %d", fold, stats.Events, head)
		}
		switch {
		case fold && stats.Superseded != 0:
			t.Errorf("folding every heartbeat, %d were left out", stats.Superseded)
		case !fold && (stats.Superseded < 60 || stats.Superseded >= 240):
			// 240 heartbeats; the last of each stream in each batch stays,
			// and a kubelet's after an agent's report stays.
			t.Errorf("%d heartbeats of 240 left out, want most but not all", stats.Superseded)
		}
	}

	// With snapshots taken afresh, every state is needed: none is left out.
	stats, err := Rebuild(ctx, store.Log(), RebuildOptions{BatchSize: 13, Snapshots: SnapshotPolicy{Every: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Superseded != 0 {
		t.Errorf("a rebuild taking snapshots left out %d heartbeats", stats.Superseded)
	}
}

func conditionStatusOf(n domain.Node, t domain.ConditionType) domain.ConditionStatus {
	c, _ := n.Condition(t)
	return c.Status
}
