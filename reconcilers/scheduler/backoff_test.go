package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func TestBackoffDoublesToTheMaximum(t *testing.T) {
	b := newBackoff(time.Second, 10*time.Second)
	k := podKey{"default", "p"}
	now := t0
	var waits []time.Duration
	for range 6 {
		b.failed(k, now)
		d, ok := b.next(now)
		if !ok {
			t.Fatal("no wait after a failure")
		}
		waits = append(waits, d)
		if !b.waiting(k, now.Add(d-time.Nanosecond)) || b.waiting(k, now.Add(d)) {
			t.Fatalf("after %s: waiting until just before %s, not after", d, d)
		}
		now = now.Add(d)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}

	b.flush()
	if b.waiting(k, now) {
		t.Error("still waiting after a flush")
	}
	b.failed(k, now)
	if d, _ := b.next(now); d != 10*time.Second {
		t.Errorf("wait after a flush and a failure = %s, want 10s: a flush keeps the count", d)
	}
	b.keep(map[podKey]bool{})
	if _, ok := b.next(now); ok {
		t.Error("a pod no longer pending is still waited for")
	}
}

// TestWhatEndsTheBackoff: the events that may make room for a pod that fit
// nowhere end every pod's backoff; the others leave it.
func TestWhatEndsTheBackoff(t *testing.T) {
	h := newHarness(t, Config{})
	tests := []struct {
		name string
		rec  events.Record
		want bool
	}{
		{name: "node registered", rec: events.Record{Stream: "node/a", Type: "NodeRegistered"}, want: true},
		{name: "node restarted", rec: events.Record{Stream: "node/a", Type: "NodeRestarted"}, want: true},
		{name: "node ready", rec: events.Record{Stream: "node/a", Type: "NodeBecameReady"}, want: true},
		{name: "node untainted", rec: events.Record{Stream: "node/a", Type: "NodeUntainted"}, want: true},
		{name: "node uncordoned", rec: events.Record{Stream: "node/a", Type: "NodeUncordoned"}, want: true},
		{name: "node labels", rec: events.Record{Stream: "node/a", Type: "NodeLabelsChanged"}, want: true},
		{name: "pod finalized", rec: events.Record{Stream: "pod/default/p", Type: "PodFinalized"}, want: true},
		{name: "pod succeeded", rec: events.Record{Stream: "pod/default/p", Type: "PodStatusUpdated", Payload: []byte(`{"status":{"phase":"Succeeded"}}`)}, want: true},
		{name: "pod created", rec: events.Record{Stream: "pod/default/p", Type: "PodCreated"}},
		{name: "node tainted", rec: events.Record{Stream: "node/a", Type: "NodeTainted"}},
		{name: "node cordoned", rec: events.Record{Stream: "node/a", Type: "NodeCordoned"}},
		{name: "node not ready", rec: events.Record{Stream: "node/a", Type: "NodeBecameNotReady"}},
		{name: "node silent", rec: events.Record{Stream: "node/a", Type: "HeartbeatMissed"}},
		{name: "node deleted", rec: events.Record{Stream: "node/a", Type: "NodeDeleted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.r.roomMayHaveGrown.Store(false)
			h.r.Watches().KeysFor(tt.rec)
			if got := h.r.roomMayHaveGrown.Load(); got != tt.want {
				t.Errorf("ends the backoff = %v, want %v", got, tt.want)
			}
		})
	}
}
