package watch_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections/watch"
)

// report is a node's status report of n conditions, all of status st,
// each with a message of msg bytes of its own (herd keeps one copy of a
// string a fleet repeats).
func report(n int, st domain.ConditionStatus, msg int) domain.RecordHeartbeat {
	var c domain.RecordHeartbeat
	reportsMade++
	for i := range n {
		c.Reported = append(c.Reported, domain.ReportedCondition{
			Type: domain.ConditionType(fmt.Sprintf("example.com/Flag%03d", i)), Status: st,
			Message: fmt.Sprintf("%d/%d ", reportsMade, i) + strings.Repeat(string(st[:1]), msg),
		})
	}
	return c
}

// reportsMade numbers the reports made, to give each its own messages.
var reportsMade int

// TestAReportThatFlipsManyConditionsIsOneVersion: a status report that
// flips every one of a node's conditions appends more than one event (its
// heartbeat and its changes), but the hub keeps one version of the node
// for it, at the report's last event, and a watcher sees one MODIFIED
// with every condition flipped — also when the hub reads the log in
// batches smaller than a report.
func TestAReportThatFlipsManyConditionsIsOneVersion(t *testing.T) {
	const conds = domain.MaxReportedConditions
	for _, batch := range []int{0, 1} {
		t.Run(fmt.Sprintf("batch %d", batch), func(t *testing.T) {
			f := newFixture(t, watch.Config{BatchSize: batch})
			f.start(t)
			f.do(t, "pico-01", register("pico-01", nil))
			f.do(t, "pico-01", report(conds, domain.ConditionTrue, 10))
			from := f.head(t)
			w, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: from})
			held, _ := watch.Cache(f.hub)
			statuses := []domain.ConditionStatus{domain.ConditionFalse, domain.ConditionTrue, domain.ConditionFalse}
			for _, st := range statuses {
				f.do(t, "pico-01", report(conds, st, 10))
			}
			head := f.head(t)
			if appended := head - from; appended < int64(len(statuses)*2) {
				t.Fatalf("the reports appended %d events, want a heartbeat and a change each", appended)
			}
			got := receive(t, w, len(statuses))
			for i, s := range got {
				if s.Type != "MODIFIED" {
					t.Errorf("report %d: %s, want MODIFIED", i, s)
				}
				for _, c := range s.Node.Conditions {
					if strings.HasPrefix(string(c.Type), "example.com/") && c.Status != statuses[i] {
						t.Errorf("report %d: condition %s is %s, want %s", i, c.Type, c.Status, statuses[i])
					}
				}
			}
			if rv := got[len(got)-1].Node.ResourceVersion; rv != head {
				t.Errorf("the last report's version is at %d, want the log's head %d", rv, head)
			}
			expectNothing(t, f, w)
			if n, _ := watch.Cache(f.hub); n-held != len(statuses) {
				t.Errorf("the hub holds %d versions more for %d reports, want one a report", n-held, len(statuses))
			}
		})
	}
}

// TestTheCacheCountsWhatItHolds: the hub's cache bytes are measured from
// the objects it keeps, so that they bound its memory. Large reports
// whose events are small each (one condition each) leave the Go heap
// grown by about what the cache says, not by many times more.
func TestTheCacheCountsWhatItHolds(t *testing.T) {
	const reports = 40
	f := newFixture(t, watch.Config{})
	f.start(t)
	f.do(t, "pico-01", register("pico-01", nil))
	f.do(t, "pico-01", report(domain.MaxReportedConditions, domain.ConditionTrue, 2000))
	mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: f.head(t)})
	_, before := watch.Cache(f.hub)
	heapBefore := eventstest.LiveHeap()
	for i := range reports {
		st := domain.ConditionFalse
		if i%2 == 1 {
			st = domain.ConditionTrue
		}
		f.do(t, "pico-01", report(domain.MaxReportedConditions, st, 2000))
	}
	mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: f.head(t)}) // the hub has read them all
	grown := eventstest.LiveHeap() - heapBefore
	_, after := watch.Cache(f.hub)
	counted := after - before
	t.Logf("%d reports: the heap grew by %d bytes, the cache counts %d", reports, grown, counted)
	if counted < grown/2 || counted > 4*grown {
		t.Errorf("the cache counts %d bytes for what grew the heap by %d", counted, grown)
	}
	runtime.KeepAlive(f)
}

// TestTwoWritesAreTwoVersionsUnderAClockThatStandsStill: a change and a
// deletion of one node, one right after the other, at the same time of
// herd's clock and by the same hand, are two versions, also when the hub
// reads both in one batch, and when a watcher reads them from the log.
// They were once taken for one write whenever one read held both: the
// change was lost, or not, by the timing of the hub's reads.
func TestTwoWritesAreTwoVersionsUnderAClockThatStandsStill(t *testing.T) {
	f := newFixture(t, watch.Config{CacheSize: 1})
	held := &heldLog{Log: f.store.Log()}
	hub, err := watch.NewHub(held, watch.Config{PollInterval: time.Millisecond}, f.clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Register(hub, nodeKind(f.view)); err != nil {
		t.Fatal(err)
	}
	f.start(t)
	if err := hub.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hub.Stop)
	f.do(t, "web-01", register("web-01", nil))
	from := f.head(t)
	live, _ := mustWatch(t, hub, watch.Request{Resource: "nodes", From: from})

	// The hub reads nothing until both writes are in: one batch.
	held.held.Store(true)
	labelled := f.do(t, "web-01", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}})
	gone := f.do(t, "web-01", domain.DeleteNode{})
	held.held.Store(false)
	want := []string{
		fmt.Sprintf("MODIFIED web-01@%d", labelled.ResourceVersion),
		fmt.Sprintf("DELETED web-01@%d", gone.ResourceVersion),
	}
	if diff := cmp.Diff(want, strs(receive(t, live, len(want)))); diff != "" {
		t.Errorf("the hub's one batch (-want +got):\n%s", diff)
	}

	// f's hub caches one entry: a watch from before both writes reads
	// them from the log, in one batch.
	f.do(t, "web-02", register("web-02", nil))
	head := f.head(t)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() >= head }, "hub at %d", head)
	fromLog, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: from})
	want = append(want, fmt.Sprintf("ADDED web-02@%d", head))
	if diff := cmp.Diff(want, strs(receive(t, fromLog, len(want)))); diff != "" {
		t.Errorf("read from the log (-want +got):\n%s", diff)
	}
}

// heldLog is a log the hub reads nothing new from while held.
type heldLog struct {
	watch.Log
	held atomic.Bool
}

func (l *heldLog) ReadAfter(ctx context.Context, position int64, limit int) ([]events.Record, error) {
	if l.held.Load() {
		return nil, nil
	}
	return l.Log.ReadAfter(ctx, position, limit)
}
