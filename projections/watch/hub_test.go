package watch_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/projections"
	"herd/projections/watch"
)

// busyMorning runs a little history on f's log: registrations,
// heartbeats, a relabelling, a deletion and a registration under a name
// used before. It returns the node each command left behind, in order.
func busyMorning(t *testing.T, f *fixture, after ...func()) []domain.Node {
	t.Helper()
	var out []domain.Node
	step := func(name string, cmd domain.NodeCommand) {
		f.clk.Step(time.Second)
		out = append(out, f.do(t, name, cmd))
		for _, fn := range after {
			fn()
		}
	}
	step("web-01", register("web-01", map[string]string{"zone": "a"}))
	step("web-02", register("web-02", map[string]string{"zone": "b"}))
	step("web-01", heartbeat(500))
	step("web-02", heartbeat(20)) // memory pressure: more events
	step("web-01", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}})
	step("web-01", domain.DeleteNode{})
	step("web-03", register("web-03", map[string]string{"zone": "a"}))
	step("web-01", register("web-01", map[string]string{"zone": "a"}))
	step("web-02", heartbeat(900))
	return out
}

// expectedFromLog is what a watch of every node from position 0 must see:
// one event per write to a node in the log, typed by what it did.
func expectedFromLog(t *testing.T, f *fixture) []string {
	t.Helper()
	recs, err := f.store.ReadAfter(t.Context(), f.store.DB(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One write (a command's events, all of one stream, which the log
	// marks as continuing the write) is one change, at its last event's
	// position.
	var (
		want []string
		typ  = "MODIFIED"
	)
	for i, r := range recs {
		switch r.Type {
		case "NodeRegistered":
			typ = "ADDED"
		case "NodeDeleted":
			typ = "DELETED"
		}
		if i+1 < len(recs) {
			next := recs[i+1]
			if next.Continues && next.Stream == r.Stream && next.Position == r.Position+1 {
				continue
			}
		}
		want = append(want, fmt.Sprintf("%s %s@%d", typ, r.Stream[len("node/"):], r.Position))
		typ = "MODIFIED"
	}
	return want
}

func strs(ss []seen) []string {
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.String())
	}
	return out
}

func TestWatchSeesEveryChangeInOrderWithTheObjectAsItWas(t *testing.T) {
	f := newFixture(t, watch.Config{})
	f.start(t)
	w, initial := mustWatch(t, f.hub, watch.Request{Resource: "nodes", Initial: true})
	if len(initial) != 0 {
		t.Fatalf("initial objects of an empty log: %d", len(initial))
	}
	nodes := busyMorning(t, f)
	want := expectedFromLog(t, f)
	got := receive(t, w, len(want))
	if diff := cmp.Diff(want, strs(got)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	expectNothing(t, f, w)

	// Each command's last event carries the node exactly as the command
	// left it; a deletion carries the node's last state.
	byRV := map[int64]seen{}
	for _, s := range got {
		byRV[s.Node.ResourceVersion] = s
	}
	var lastOf = map[string]domain.Node{}
	for _, n := range nodes {
		s := byRV[n.ResourceVersion]
		want := n
		if n.Deleted {
			want = lastOf[n.Name]
			want.ResourceVersion = n.ResourceVersion
		}
		if diff := cmp.Diff(want, s.Node); diff != "" {
			t.Errorf("%s at %d (-want +got):\n%s", s.Type, n.ResourceVersion, diff)
		}
		lastOf[n.Name] = n
	}
}

// TestResumeFromAnyPositionSeesExactlyTheRest resumes a watch from every
// position of a history, on a hub whose cache holds it all and on one
// whose cache holds only its last events, so that resuming reads the log
// first and switches to the cache on the way. The second hub starts in the
// middle of the history and takes a new base later, so that history is
// folded from a stream's first event, from the views it started with, and
// from a base it took.
func TestResumeFromAnyPositionSeesExactlyTheRest(t *testing.T) {
	f := newFixture(t, watch.Config{History: time.Hour, BaseInterval: 30 * time.Minute})
	small, err := watch.NewHub(f.store.Log(), watch.Config{CacheSize: 4, PollInterval: time.Millisecond, BatchSize: 3, History: time.Hour, BaseInterval: 30 * time.Minute}, f.clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Register(small, nodeKind(f.view)); err != nil {
		t.Fatal(err)
	}
	f.start(t)
	ref, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", Initial: true})
	step := 0
	busyMorning(t, f, func() {
		switch step++; step {
		case 3:
			if err := small.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(small.Stop)
		case 6:
			f.clk.Step(31 * time.Minute) // past BaseInterval: both hubs take a new base
		}
	})
	head := f.head(t)
	all := receive(t, ref, len(expectedFromLog(t, f)))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return small.Position() >= head }, "small hub at %d", head)

	for _, hub := range []struct {
		name string
		hub  *watch.Hub
	}{{"cache holds it all", f.hub}, {"cache holds the last 4", small}} {
		for from := int64(0); from <= head; from++ {
			t.Run(fmt.Sprintf("%s/from %d", hub.name, from), func(t *testing.T) {
				var want []seen
				for _, s := range all {
					if s.Node.ResourceVersion > from {
						want = append(want, s)
					}
				}
				w, _ := mustWatch(t, hub.hub, watch.Request{Resource: "nodes", From: from})
				got := receive(t, w, len(want))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("resumed events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSelectorsSeeObjectsComeAndGo(t *testing.T) {
	f := newFixture(t, watch.Config{})
	f.start(t)
	inZoneA := func(o *watch.Object) bool { return o.Meta.Labels["zone"] == "a" }
	w, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: f.head(t), Match: inZoneA})

	reg := f.do(t, "x", register("x", map[string]string{"zone": "a"}))
	f.do(t, "y", register("y", map[string]string{"zone": "b"}))
	moved := f.do(t, "x", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}})
	back := f.do(t, "x", domain.SetNodeLabels{Labels: map[string]string{"zone": "a"}})
	gone := f.do(t, "x", domain.DeleteNode{})

	left := reg
	left.ResourceVersion = moved.ResourceVersion
	last := back
	last.ResourceVersion = gone.ResourceVersion
	// Leaving the selection is a deletion carrying the object as it was
	// before, at the position of the change; y is never seen.
	want := []seen{{"ADDED", reg}, {"DELETED", left}, {"ADDED", back}, {"DELETED", last}}
	if diff := cmp.Diff(want, receive(t, w, len(want))); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	expectNothing(t, f, w)
}

func TestInitialObjectsAreTheCurrentStateInKeyOrder(t *testing.T) {
	f := newFixture(t, watch.Config{})
	for _, name := range []string{"c", "a", "b"} {
		f.do(t, name, register(name, map[string]string{"zone": "a"}))
	}
	f.do(t, "b", domain.DeleteNode{})
	f.start(t)
	head := f.head(t)
	w, initial := mustWatch(t, f.hub, watch.Request{Resource: "nodes", Initial: true, NotOlderThan: head})
	var got []string
	for _, o := range initial {
		got = append(got, fmt.Sprintf("%s@%d", o.Meta.Key, o.ResourceVersion))
	}
	a, _ := f.view.Get(t.Context(), "a")
	c, _ := f.view.Get(t.Context(), "c")
	if want := []string{fmt.Sprintf("a@%d", a.ResourceVersion), fmt.Sprintf("c@%d", c.ResourceVersion)}; !cmp.Equal(want, got) {
		t.Errorf("initial objects %v, want %v", got, want)
	}
	if w.Position() != head {
		t.Errorf("the watch continues from %d, want the head %d", w.Position(), head)
	}
	d := f.do(t, "d", register("d", nil))
	if got := receive(t, w, 1); got[0].Type != "ADDED" || got[0].Node.ResourceVersion != d.ResourceVersion {
		t.Errorf("after the initial objects: %v, want ADDED d@%d", got, d.ResourceVersion)
	}
}

func TestASlowWatcherIsCutOffAndCanResume(t *testing.T) {
	// The morning is nine writes, a version each: five are too few.
	f := newFixture(t, watch.Config{CacheSize: 5})
	f.start(t)
	from := f.head(t)
	slow, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: from})
	fast, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: from})
	// The fast watcher reads after every command; the slow one never does.
	var fastSaw []seen
	busyMorning(t, f, func() {
		head := f.head(t)
		for fast.Position() < head {
			evs, err := fast.Next(t.Context())
			if err != nil {
				t.Fatalf("the fast watcher: %v", err)
			}
			for _, ev := range evs {
				fastSaw = append(fastSaw, decode(t, ev))
			}
			if len(evs) == 0 && fast.Position() < head {
				<-fast.Changed()
			}
		}
	})
	want := expectedFromLog(t, f)
	if diff := cmp.Diff(want, strs(fastSaw)); diff != "" {
		t.Fatalf("the fast watcher (-want +got):\n%s", diff)
	}
	_, err := slow.Next(t.Context())
	var tooSlow *watch.TooSlowError
	if !errors.As(err, &tooSlow) || !errors.Is(err, watch.ErrTooSlow) {
		t.Fatalf("the slow watcher's Next: %v, want a *TooSlowError", err)
	}
	if tooSlow.Position != from || tooSlow.Resource != "nodes" {
		t.Errorf("cut off at %d for %s, want %d for nodes", tooSlow.Position, tooSlow.Resource, from)
	}
	resumed, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: tooSlow.Position})
	if diff := cmp.Diff(want, strs(receive(t, resumed, len(want)))); diff != "" {
		t.Errorf("resumed after the cut-off (-want +got):\n%s", diff)
	}
}

func TestHistoryOlderThanTheWindowIsExpired(t *testing.T) {
	f := newFixture(t, watch.Config{History: time.Minute})
	first := f.do(t, "a", register("a", nil)).ResourceVersion
	f.clk.Step(2 * time.Minute)
	second := f.do(t, "b", register("b", nil)).ResourceVersion
	f.start(t)
	tests := []struct {
		name    string
		from    int64
		expired bool
	}{
		{"before an event older than the window", 0, true},
		{"after it", first, false},
		{"at the head", second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := f.hub.Watch(t.Context(), watch.Request{Resource: "nodes", From: tt.from})
			var expired *watch.ExpiredError
			if got := errors.As(err, &expired); got != tt.expired {
				t.Fatalf("watch from %d: %v, want expired %v", tt.from, err, tt.expired)
			}
			if tt.expired && (expired.Position != tt.from || !errors.Is(err, watch.ErrExpired)) {
				t.Errorf("expired error %+v for %d", expired, tt.from)
			}
			_, err = f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes", At: max(tt.from, 1), Limit: 1})
			if tt.expired && tt.from > 0 && !errors.Is(err, watch.ErrExpired) {
				t.Errorf("a list at %d: %v, want expired", tt.from, err)
			}
		})
	}
	// Time moves on: what was recent expires too.
	f.clk.Step(2 * time.Minute)
	if _, _, err := f.hub.Watch(t.Context(), watch.Request{Resource: "nodes", From: first}); !errors.Is(err, watch.ErrExpired) {
		t.Errorf("watch from %d two minutes later: %v, want expired", first, err)
	}
	if _, _, err := f.hub.Watch(t.Context(), watch.Request{Resource: "nodes", From: second}); err != nil {
		t.Errorf("watch from the head: %v", err)
	}
}

func TestAResourceVersionPastTheHeadIsTooLarge(t *testing.T) {
	f := newFixture(t, watch.Config{WaitForPosition: 20 * time.Millisecond})
	f.do(t, "a", register("a", nil))
	f.start(t)
	head := f.head(t)
	for _, req := range []watch.Request{
		{Resource: "nodes", From: head + 5},
		{Resource: "nodes", Initial: true, NotOlderThan: head + 5},
	} {
		_, _, err := f.hub.Watch(t.Context(), req)
		var tooLarge *watch.TooLargeError
		if !errors.As(err, &tooLarge) || tooLarge.Position != head+5 || tooLarge.Current != head {
			t.Errorf("watch %+v: %v, want too large (%d, current %d)", req, err, head+5, head)
		}
	}
	if _, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes", At: head + 5}); !errors.Is(err, watch.ErrTooLarge) {
		t.Errorf("list at %d: %v, want too large", head+5, err)
	}
}

func TestBookmarksTickOnHerdsClock(t *testing.T) {
	f := newFixture(t, watch.Config{BookmarkInterval: time.Minute})
	f.start(t)
	tick := f.hub.Bookmarks()
	select {
	case <-tick:
		t.Fatal("a bookmark before any time passed")
	default:
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.clk.HasWaiters() }, "the bookmark ticker waits on the clock")
	f.clk.Step(time.Minute)
	select {
	case <-tick:
	case <-time.After(eventstest.WaitFor):
		t.Fatal("no bookmark tick after a minute of herd's clock")
	}
}

func TestStoppingTheHubEndsEveryWatch(t *testing.T) {
	f := newFixture(t, watch.Config{})
	f.start(t)
	w, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: 0})
	f.hub.Stop()
	select {
	case <-w.Changed():
	case <-time.After(eventstest.WaitFor):
		t.Fatal("stopping did not wake the watcher")
	}
	if _, err := w.Next(t.Context()); !errors.Is(err, watch.ErrClosed) {
		t.Errorf("Next after Stop: %v, want ErrClosed", err)
	}
	if _, _, err := f.hub.Watch(t.Context(), watch.Request{Resource: "nodes"}); !errors.Is(err, watch.ErrClosed) {
		t.Errorf("Watch after Stop: %v, want ErrClosed", err)
	}
}

func TestRegisterRefusesWhatItCannotServe(t *testing.T) {
	f := newFixture(t, watch.Config{})
	other := func(resource, prefix string) *watch.Kind[domain.Node] {
		k := nodeKind(f.view)
		k.Resource, k.Prefix = resource, prefix
		return k
	}
	tests := []struct {
		name string
		kind *watch.Kind[domain.Node]
	}{
		{"the same resource twice", other("nodes", "machine/")},
		{"a prefix inside another", other("nodelets", "node/let/")},
		{"a prefix around another", other("things", "no")},
		{"no prefix", other("pods", "")},
		{"no fold", func() *watch.Kind[domain.Node] { k := other("pods", "pod/"); k.Fold = nil; return k }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := watch.Register(f.hub, tt.kind); err == nil {
				t.Error("registered")
			}
		})
	}
	f.start(t)
	if err := watch.Register(f.hub, other("pods", "pod/")); err == nil {
		t.Error("registered after start")
	}
	if _, _, err := f.hub.Watch(t.Context(), watch.Request{Resource: "pods"}); !errors.Is(err, watch.ErrUnknownResource) {
		t.Errorf("watch of an unregistered resource: %v", err)
	}
}

// TestAPositionBeforeTheCompactionPointIsExpired: once old heartbeats are
// deleted, the log no longer tells how a node stood before the compaction
// point, so a watch or list there gets 410, as after etcd's compaction;
// from the point on, a watch sees every change that is left, in order. On
// PostgreSQL the hub runs on another replica than the compaction, and
// refuses once it has heard of the point.
func TestAPositionBeforeTheCompactionPointIsExpired(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		f := newFixture(t, watch.Config{History: time.Hour})
		testCompactionPointExpires(t, f, f.store.Log())
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		f, replica := newReplicasFixture(t, watch.Config{History: time.Hour})
		testCompactionPointExpires(t, f, replica)
	})
}

// testCompactionPointExpires compacts through f's writer and watches
// through f's hub, which reads hubLog.
func testCompactionPointExpires(t *testing.T, f *fixture, hubLog events.Log) {
	early := f.do(t, "a", register("a", nil)).ResourceVersion
	for range 60 {
		f.clk.Step(10 * time.Second)
		f.do(t, "a", domain.RecordHeartbeat{})
	}
	c, err := projections.NewCompactor(f.w, projections.CompactionConfig{Retention: 5 * time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := c.Compact(t.Context())
	if err != nil || stats.Deleted == 0 {
		t.Fatalf("compaction deleted %d: %v", stats.Deleted, err)
	}
	f.start(t)
	through := f.log.Compaction().Through
	if through != stats.Through || through == 0 {
		t.Fatalf("the compacting log's point is %d, the round says %d", through, stats.Through)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return hubLog.Compaction().Through == through },
		"the hub's replica hears of the compaction point %d", through)
	for _, from := range []int64{early, through - 1} {
		_, _, err := f.hub.Watch(t.Context(), watch.Request{Resource: "nodes", From: from})
		var expired *watch.ExpiredError
		if !errors.As(err, &expired) || expired.CompactedThrough != through {
			t.Errorf("watch from %d, before the compaction point %d: %v, want expired", from, through, err)
		}
		if _, err := f.hub.List(t.Context(), watch.ListRequest{Resource: "nodes", At: from}); !errors.Is(err, watch.ErrExpired) {
			t.Errorf("list at %d: %v, want expired", from, err)
		}
	}
	head := f.head(t)
	w, _ := mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: through})
	got := receive(t, w, int(head-through))
	for i, s := range got {
		if want := through + 1 + int64(i); s.Node.ResourceVersion != want {
			t.Fatalf("watch from the compaction point %d: event %d at %d, want %d (every event after the point is kept)", through, i, s.Node.ResourceVersion, want)
		}
	}
}
