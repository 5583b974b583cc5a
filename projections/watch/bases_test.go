package watch_test

import (
	"testing"
	"time"

	"herd/domain"
	"herd/events/eventstest"
	"herd/projections/watch"
)

// TestTheHubKeepsTwoOldVersionsOfAnObjectThatKeepsChanging: a node that
// changes every minute (as a fleet's leases renew) is held by the hub's
// bases and its latest map in at most three versions, not four, while a
// watch resumed from a position almost History old still sees exactly
// the changes after it.
func TestTheHubKeepsTwoOldVersionsOfAnObjectThatKeepsChanging(t *testing.T) {
	f := newFixture(t, watch.Config{}) // History 5m
	f.start(t)
	f.do(t, "busy", register("busy", nil))
	var rvs []int64
	for i := range 12 {
		f.clk.Step(time.Minute)
		n := f.do(t, "busy", heartbeat(int64(100+i)))
		rvs = append(rvs, n.ResourceVersion)
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() >= n.ResourceVersion },
			"the hub reaches position %d", n.ResourceVersion)
	}
	if got := watch.Versions(f.hub, domain.NodeStream("busy")); got > 3 {
		t.Errorf("the hub holds %d versions of a node that changed every minute; want at most 3", got)
	}
	// rvs[7] was written four minutes and some before the last change.
	from := rvs[7]
	w, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: from})
	got := receive(t, w, len(rvs)-8)
	for i, s := range got {
		if s.Type != "MODIFIED" || s.Node.ResourceVersion != rvs[8+i] {
			t.Errorf("resumed from %d, event %d: %s at %d; want MODIFIED at %d", from, i, s.Type, s.Node.ResourceVersion, rvs[8+i])
		}
	}
	expectNothing(t, f, w)
}
