package watch_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/projections/watch"
)

// TestTheWatchCacheIsBoundedInBytes: large objects written one after
// another no longer pile up in memory until the event count is reached;
// past CacheBytes the oldest are dropped, a watcher that had yet to read
// them is cut off as too slow, and it resumes from where it was and sees
// every change the log holds.
func TestTheWatchCacheIsBoundedInBytes(t *testing.T) {
	const bound = 64 << 10
	f := newFixture(t, watch.Config{CacheSize: 8192, CacheBytes: bound})
	f.start(t)
	from := f.head(t)
	slow, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: from})
	for i := range 40 {
		labels := map[string]string{}
		for j := range 100 {
			labels[fmt.Sprintf("example.com/l%03d", j)] = strings.Repeat(string(rune('a'+i%26)), 60)
		}
		f.do(t, fmt.Sprintf("big-%02d", i), register(fmt.Sprintf("big-%02d", i), labels))
	}
	// Resuming from the head waits until the hub has folded every event.
	want := expectedFromLog(t, f)
	mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: f.head(t)})
	if n, bytes := watch.Cache(f.hub); bytes > bound || n >= len(want) {
		t.Errorf("the cache holds %d events, %d bytes; want at most %d bytes", n, bytes, bound)
	}
	_, err := slow.Next(t.Context())
	var tooSlow *watch.TooSlowError
	if !errors.As(err, &tooSlow) || tooSlow.Position != from {
		t.Fatalf("the watcher that read nothing: %v, want cut off at %d", err, from)
	}
	resumed, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: tooSlow.Position})
	if diff := cmp.Diff(want, strs(receive(t, resumed, len(want)))); diff != "" {
		t.Errorf("resumed after the cut-off (-want +got):\n%s", diff)
	}
}

// TestASmallEventOnALargeObjectCountsTheObject: a node registered with
// many labels and then heartbeating sends little each time, but every
// entry holds the node's labels; the cache counts them, so it stays
// within its bound.
func TestASmallEventOnALargeObjectCountsTheObject(t *testing.T) {
	const bound = 256 << 10
	f := newFixture(t, watch.Config{CacheSize: 8192, CacheBytes: bound})
	f.start(t)
	labels := map[string]string{}
	for j := range 500 {
		labels[fmt.Sprintf("example.com/l%03d", j)] = strings.Repeat("v", 60)
	}
	f.do(t, "wide", register("wide", labels))
	for i := range 40 {
		f.do(t, "wide", heartbeat(int64(100+i)))
	}
	mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: f.head(t)})
	if n, bytes := watch.Cache(f.hub); bytes > bound || n >= 41 {
		t.Errorf("the cache holds %d events, %d bytes; want at most %d bytes", n, bytes, bound)
	}
}
