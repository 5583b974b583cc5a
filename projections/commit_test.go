package projections

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"herd/domain"
	"herd/events/eventstest"
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
			w.group.mu.Lock()
			defer w.group.mu.Unlock()
			return len(w.group.queue) >= n
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

// nodeCommand is one command of a group and what came of it.
type nodeCommand struct {
	node string
	cmd  domain.NodeCommand
	got  domain.Node
	err  error
}

// runGroup runs cmds concurrently as one group commit.
func runGroup(t *testing.T, w *Writer, now time.Time, cmds []*nodeCommand) {
	t.Helper()
	queued, release := holdGroup(t, w)
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Go(func() {
			c.got, c.err = w.UpdateNode(t.Context(), c.node, func(n domain.Node) ([]domain.Event, error) {
				return domain.DecideNode(n, c.cmd, now)
			})
		})
		queued(i + 1) // keep the order of cmds in the group
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
	runGroup(t, w, clk.Now(), cmds)

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

func TestGroupCommitOfOneObjectEqualsOneAfterTheOther(t *testing.T) {
	grouped := func() []*nodeCommand {
		return []*nodeCommand{
			{node: "web-01", cmd: domain.RegisterNode{Registration: register("web-01", domain.KindLinux).Registration, FailIfExists: true}},
			{node: "web-01", cmd: domain.RegisterNode{Registration: register("web-01", domain.KindLinux).Registration, FailIfExists: true}},
			{node: "web-01", cmd: metrics(400)},
			{node: "web-01", cmd: metrics(300)},
		}
	}
	// One after the other, each in a transaction of its own.
	seqW, seqStore, clk := newWriter(t)
	seq := grouped()
	for _, c := range seq {
		c.got, c.err = seqW.UpdateNode(t.Context(), c.node, func(n domain.Node) ([]domain.Event, error) {
			return domain.DecideNode(n, c.cmd, clk.Now())
		})
	}
	// The same commands in one group.
	grpW, grpStore, _ := newWriter(t)
	grp := grouped()
	runGroup(t, grpW, clk.Now(), grp)

	for i := range seq {
		if (seq[i].err == nil) != (grp[i].err == nil) || (seq[i].err != nil && !errors.Is(grp[i].err, domain.ErrAlreadyExists)) {
			t.Errorf("command %d: one after the other err = %v, grouped err = %v", i, seq[i].err, grp[i].err)
		}
		if seq[i].got.Version != grp[i].got.Version || seq[i].got.ResourceVersion != grp[i].got.ResourceVersion {
			t.Errorf("command %d: one after the other version %d rv %d, grouped version %d rv %d",
				i, seq[i].got.Version, seq[i].got.ResourceVersion, grp[i].got.Version, grp[i].got.ResourceVersion)
		}
	}
	a, err := NewNodeView(seqStore.Log()).Get(t.Context(), "web-01")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewNodeView(grpStore.Log()).Get(t.Context(), "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != b.Version || a.Metrics.MemoryAvailableBytes != b.Metrics.MemoryAvailableBytes {
		t.Errorf("view: one after the other version %d memory %d, grouped version %d memory %d",
			a.Version, a.Metrics.MemoryAvailableBytes, b.Version, b.Metrics.MemoryAvailableBytes)
	}
}

func TestGroupCommitSurvivesAPanickingCommand(t *testing.T) {
	w, store, clk := newWriter(t)
	queued, release := holdGroup(t, w)
	var wg sync.WaitGroup
	var panicErr, okErr error
	wg.Go(func() {
		_, panicErr = w.UpdateNode(t.Context(), "bad", func(domain.Node) ([]domain.Event, error) {
			panic("boom")
		})
	})
	queued(1)
	wg.Go(func() {
		_, okErr = w.UpdateNode(t.Context(), "web-01", func(n domain.Node) ([]domain.Event, error) {
			return domain.DecideNode(n, register("web-01", domain.KindLinux), clk.Now())
		})
	})
	queued(2)
	release()
	wg.Wait()
	if panicErr == nil || okErr != nil {
		t.Fatalf("panicking command err = %v (want an error), its neighbour err = %v (want nil)", panicErr, okErr)
	}
	if _, err := NewNodeView(store.Log()).Get(t.Context(), "web-01"); err != nil {
		t.Errorf("the neighbour's registration did not commit: %v", err)
	}
}

func TestGroupCommitSkipsACommandWhoseCallerGaveUp(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx, cancel := context.WithCancel(t.Context())
	queued, release := holdGroup(t, w)
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err = w.UpdateNode(ctx, "web-01", func(n domain.Node) ([]domain.Event, error) {
			return domain.DecideNode(n, register("web-01", domain.KindLinux), clk.Now())
		})
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
	if _, err := w.UpdateNode(t.Context(), "ghost", func(n domain.Node) ([]domain.Event, error) {
		return domain.DecideNode(n, metrics(1), clk.Now())
	}); err == nil {
		t.Fatal("heartbeat of an unknown node accepted")
	}
	select {
	case <-signal:
		t.Error("a rejected command signalled the followers")
	default:
	}
}
