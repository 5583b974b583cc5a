package watch_test

import (
	"sync/atomic"
	"testing"
	"time"

	"herd/domain"
	"herd/events/eventstest"
	"herd/projections/watch"
)

// TestTheHubWaitsForAStateOnItsWayRatherThanFoldItsOwn: a write whose
// state the writer has not offered yet, though its events can already be
// read (ExpectOffers says so), is not folded: the hub stops before it,
// and everything after it, until the writer settles, and then takes the
// offered state. A write nobody offers and nobody waits on is folded as
// before. The poll interval is an hour, so only the settle can wake the
// hub once it stopped.
func TestTheHubWaitsForAStateOnItsWayRatherThanFoldItsOwn(t *testing.T) {
	f := newFixture(t, watch.Config{PollInterval: time.Hour})
	var onItsWay atomic.Bool
	settle := f.hub.ExpectOffers(func(stream string) bool {
		return stream == domain.NodeStream("a") && onItsWay.Load()
	})
	f.start(t)

	f.do(t, "z", register("z", nil))
	caughtUp := f.head(t)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() == caughtUp }, "the hub reaches %d", caughtUp)
	reads := watch.Reads(f.hub)

	// Each commit wakes the hub once; the hub reads the log after each,
	// and stops before a.
	onItsWay.Store(true)
	a := f.do(t, "a", register("a", map[string]string{"from": "log"}))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return watch.Reads(f.hub) > reads }, "the hub reads the log after a")
	reads = watch.Reads(f.hub)
	f.do(t, "b", register("b", nil))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return watch.Reads(f.hub) > reads }, "the hub reads the log after b")
	if got := f.hub.Position(); got != caughtUp {
		t.Fatalf("the hub read past a write whose state is on its way: at %d, want %d", got, caughtUp)
	}

	// The writer's state, told apart from a fold by a label the log does
	// not have.
	offered := a
	offered.Labels = map[string]string{"from": "writer"}
	f.hub.Adopt(domain.NodeStream("a"), a.ResourceVersion, offered)
	onItsWay.Store(false)
	settle()
	head := f.head(t)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() == head }, "the hub reaches %d once settled", head)

	if got := f.hub.Adopted(); got != 1 {
		t.Errorf("adopted %d states, want 1 (a's)", got)
	}
	res, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes", At: head})
	if err != nil {
		t.Fatal(err)
	}
	from := map[string]string{}
	for _, o := range res.Items {
		n := o.State().(domain.Node)
		from[n.Name] = n.Labels["from"]
	}
	if len(from) != 3 || from["a"] != "writer" {
		t.Errorf("the hub lists %v (each node's label from); want z, a from the writer, and b", from)
	}
}

// TestTheHubTakesAStateOfferedJustBeforeItsMarkCleared: the writer
// offers a state and then clears its mark; a hub that took the offers
// before the offer and reads the mark after it is cleared still takes
// the writer's state, not a fold of its own.
func TestTheHubTakesAStateOfferedJustBeforeItsMarkCleared(t *testing.T) {
	f := newFixture(t, watch.Config{PollInterval: time.Hour})
	var onItsWay atomic.Bool
	var offerNow atomic.Pointer[func()]
	settle := f.hub.ExpectOffers(func(stream string) bool {
		if stream != domain.NodeStream("a") {
			return false
		}
		if offer := offerNow.Swap(nil); offer != nil {
			(*offer)() // the offer lands between the hub's take and this read
			return false
		}
		return onItsWay.Load()
	})
	f.start(t)
	reads := watch.Reads(f.hub)

	onItsWay.Store(true)
	a := f.do(t, "a", register("a", map[string]string{"from": "log"}))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return watch.Reads(f.hub) > reads }, "the hub reads the log after a")
	if got := f.hub.Position(); got >= a.ResourceVersion {
		t.Fatalf("the hub read a while its state was on its way: at %d", got)
	}

	offered := a
	offered.Labels = map[string]string{"from": "writer"}
	offer := func() { f.hub.Adopt(domain.NodeStream("a"), a.ResourceVersion, offered) }
	offerNow.Store(&offer)
	onItsWay.Store(false)
	settle()
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.hub.Position() == a.ResourceVersion }, "the hub reaches a once settled")

	if got := f.hub.Adopted(); got != 1 {
		t.Errorf("adopted %d states, want 1 (a's)", got)
	}
	res, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes", At: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Fatalf("the hub lists %d nodes, want a", len(res.Items))
	}
	if from := res.Items[0].State().(domain.Node).Labels["from"]; from != "writer" {
		t.Errorf("the hub lists a with its label from %q; want a from the writer", from)
	}
}
