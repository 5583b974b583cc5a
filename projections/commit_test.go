package projections

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"herd/domain"
	"herd/events/eventstest"
	"herd/projections/command"
)

// holdGroup makes the next commands queue behind a command that blocks
// until release is called; then it waits until n commands are queued, so
// that they are committed as one group. It returns release.
func holdGroup(t *testing.T, w *Writer) (queued func(n int), release func()) {
	t.Helper()
	started, unblock := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- w.inTx(t.Context(), func(unitTx) error {
			close(started)
			<-unblock
			return nil
		})
	}()
	<-started
	queued = func(n int) {
		t.Helper()
		eventstest.Eventually(t, eventstest.WaitFor, func() bool {
			return queueLen(w) >= n
		}, "%d commands queued behind the held one", n)
	}
	release = func() {
		close(unblock)
		if err := <-held; err != nil {
			t.Errorf("holding command: %v", err)
		}
	}
	return queued, release
}

// queueLen is how many commands wait for the group commit.
func queueLen(w *Writer) int { return w.unit.Queued() }

// queuedOrAnswered waits until n commands are queued behind the held one,
// or until the command that would be the n-th was answered without
// queueing (a prepared command its decision refused); it reports whether
// the command queued.
func queuedOrAnswered(t *testing.T, w *Writer, n int, answered <-chan struct{}) bool {
	t.Helper()
	q := false
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		if queueLen(w) >= n {
			q = true
			return true
		}
		select {
		case <-answered:
			return true
		default:
			return false
		}
	}, "command %d queued or answered", n)
	return q
}

// nodeCommand is one command of a group and what came of it.
type nodeCommand struct {
	node string
	cmd  domain.NodeCommand
	got  domain.Node
	err  error
}

// runGroup runs cmds concurrently as one group commit, at the writer's
// clock's time.
func runGroup(t *testing.T, w *Writer, cmds []*nodeCommand) {
	t.Helper()
	_, release := holdGroup(t, w)
	var wg sync.WaitGroup
	n := 0
	for _, c := range cmds {
		answered := make(chan struct{})
		wg.Go(func() {
			defer close(answered)
			c.got, c.err = w.NodeCommands().Execute(t.Context(), domain.Key{Name: c.node}, c.cmd)
		})
		// Keep the order of cmds in the group; a command its decision
		// refuses is answered without queueing.
		if queuedOrAnswered(t, w, n+1, answered) {
			n++
		}
	}
	release()
	wg.Wait()
}

func TestGroupCommitRejectsOneCommandAndCommitsTheOthers(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	before, err := store.Head(ctx, store.DB())
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Second)

	cmds := []*nodeCommand{
		{node: "web-02", cmd: register("web-02", domain.KindLinux)},
		{node: "web-01", cmd: metrics(-1)}, // impossible metrics: rejected
		{node: "web-03", cmd: register("web-03", domain.KindLinux)},
		{node: "ghost", cmd: metrics(1)}, // unknown node: rejected
		{node: "web-01", cmd: metrics(500)},
	}
	runGroup(t, w, cmds)

	wantErr := []error{nil, domain.ErrInvalid, nil, domain.ErrNotFound, nil}
	for i, c := range cmds {
		if !errors.Is(c.err, wantErr[i]) || (wantErr[i] == nil) != (c.err == nil) {
			t.Errorf("command %d (%T on %s): err = %v, want %v", i, c.cmd, c.node, c.err, wantErr[i])
		}
	}
	recs, err := store.ReadAfter(ctx, store.DB(), before, 0)
	if err != nil {
		t.Fatal(err)
	}
	streams := map[string]int{}
	for _, r := range recs {
		streams[r.Stream]++
	}
	if streams[domain.NodeStream("ghost")] != 0 {
		t.Errorf("the rejected command on ghost appended %d events", streams[domain.NodeStream("ghost")])
	}
	for _, name := range []string{"web-02", "web-03"} {
		if streams[domain.NodeStream(name)] == 0 {
			t.Errorf("%s: the accepted registration appended nothing", name)
		}
	}
	// web-01's rejected heartbeat left no trace; its accepted one did, as
	// the next version of the stream.
	web01, err := NewNodeView(store.Log()).Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if web01.Version != cmds[4].got.Version || web01.Metrics == nil || web01.Metrics.MemoryAvailableBytes != 500 {
		t.Errorf("web-01 after the group: version %d (accepted heartbeat returned %d), metrics %+v", web01.Version, cmds[4].got.Version, web01.Metrics)
	}
	head, _ := store.Head(ctx, store.DB())
	if web01.ResourceVersion > head || cmds[2].got.ResourceVersion > head {
		t.Errorf("a resourceVersion beyond the log head %d", head)
	}
}

// TestGroupCommitOfOneObjectAppliesEachCommandOnce: commands on one
// node queued in one group commit each apply exactly once: the first is
// decided on its caller's goroutine, the others, whose stream is about to
// move, on the leader after it. A command its decision refuses (a second
// registration) writes nothing.
func TestGroupCommitOfOneObjectAppliesEachCommandOnce(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	before := do(t, w, clk, "web-01", metrics(500)) // the first heartbeat also sets the conditions
	cmds := []*nodeCommand{
		{node: "web-01", cmd: metrics(400)},
		{node: "web-01", cmd: metrics(300)},
		{node: "web-01", cmd: domain.RegisterNode{Registration: register("web-01", domain.KindLinux).Registration, FailIfExists: true}},
		{node: "web-01", cmd: metrics(200)},
		{node: "web-01", cmd: metrics(100)},
	}
	runGroup(t, w, cmds)

	versions := map[int64]bool{}
	for i, c := range cmds {
		if i == 2 {
			if !errors.Is(c.err, domain.ErrAlreadyExists) {
				t.Errorf("second registration: err = %v, want ErrAlreadyExists", c.err)
			}
			continue
		}
		if c.err != nil {
			t.Fatalf("command %d: %v", i, c.err)
		}
		if versions[c.got.Version] {
			t.Errorf("command %d: version %d returned twice", i, c.got.Version)
		}
		versions[c.got.Version] = true
	}
	got, err := NewNodeView(store.Log()).Get(t.Context(), "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if want := before.Version + 4; got.Version != want {
		t.Errorf("web-01's version %d after four heartbeats on version %d, want %d", got.Version, before.Version, want)
	}
	recs, err := store.ReadStream(t.Context(), store.DB(), domain.NodeStream("web-01"), before.Version)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Errorf("%d events appended by four heartbeats", len(recs))
	}
}

func TestGroupCommitSurvivesAPanickingCommand(t *testing.T) {
	w, store, _ := newWriter(t)
	queued, release := holdGroup(t, w)
	var wg sync.WaitGroup
	var panicErr, okErr error
	// A node's command panics in its decision, on its caller's goroutine;
	// a command run on the leader panics there.
	panicking := command.NewCommands(w.unit, nodes.on(w), func(domain.Node, domain.NodeCommand, time.Time) ([]domain.Event, error) {
		panic("boom")
	}, nil)
	wg.Go(func() {
		_, panicErr = panicking.Execute(t.Context(), domain.Key{Name: "bad"}, metrics(1))
	})
	var leaderPanic error
	wg.Go(func() {
		leaderPanic = w.inTx(t.Context(), func(unitTx) error { panic("boom") })
	})
	queued(1)
	wg.Go(func() {
		_, okErr = w.NodeCommands().Execute(t.Context(), domain.Key{Name: "web-01"}, register("web-01", domain.KindLinux))
	})
	queued(2)
	release()
	wg.Wait()
	if panicErr == nil || leaderPanic == nil || okErr != nil {
		t.Fatalf("panicking commands err = %v and %v (want errors), their neighbour err = %v (want nil)", panicErr, leaderPanic, okErr)
	}
	if _, err := NewNodeView(store.Log()).Get(t.Context(), "web-01"); err != nil {
		t.Errorf("the neighbour's registration did not commit: %v", err)
	}
}

func TestGroupCommitSkipsACommandWhoseCallerGaveUp(t *testing.T) {
	w, store, _ := newWriter(t)
	ctx, cancel := context.WithCancel(t.Context())
	queued, release := holdGroup(t, w)
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err = w.NodeCommands().Execute(ctx, domain.Key{Name: "web-01"}, register("web-01", domain.KindLinux))
	}()
	queued(1)
	cancel()
	release()
	<-done
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if head, _ := store.Head(t.Context(), store.DB()); head != 0 {
		t.Errorf("log head %d after a command whose caller gave up before its turn", head)
	}
}

func TestGroupCommitAnnouncesItsHead(t *testing.T) {
	w, store, clk := newWriter(t)
	_, signal := store.CommitSignal()
	n := do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	select {
	case <-signal:
	default:
		t.Fatal("a commit that appended did not signal the followers")
	}
	head, _ := store.CommitSignal()
	if head != n.ResourceVersion {
		t.Errorf("announced head %d, want %d", head, n.ResourceVersion)
	}
	// A rejected command commits nothing and announces nothing.
	_, signal = store.CommitSignal()
	if _, err := w.NodeCommands().Execute(t.Context(), domain.Key{Name: "ghost"}, metrics(1)); err == nil {
		t.Fatal("heartbeat of an unknown node accepted")
	}
	select {
	case <-signal:
		t.Error("a rejected command signalled the followers")
	default:
	}
}
