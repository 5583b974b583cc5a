package projections

import (
	"errors"
	"testing"
	"time"

	"herd/domain"
)

// TestRememberedNodeIsNeverStale covers the unit of work's memory of
// committed nodes: a write by another writer on the same log, and a
// command rolled back after it wrote, both leave the next command deciding
// on the node as the log has it.
func TestRememberedNodeIsNeverStale(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	do(t, w, clk, "web-01", metrics(500)) // remembered now

	// Another writer (another process on the same file) moves the node on.
	other := NewWriter(store.Log(), clk, nil)
	clk.Step(time.Second)
	theirs := do(t, other, clk, "web-01", metrics(400))

	clk.Step(time.Second)
	mine := do(t, w, clk, "web-01", metrics(300))
	if mine.Version != theirs.Version+1 || mine.Metrics.MemoryAvailableBytes != 300 {
		t.Fatalf("after another writer's heartbeat (version %d): version %d, memory %d; want version %d, memory 300",
			theirs.Version, mine.Version, mine.Metrics.MemoryAvailableBytes, theirs.Version+1)
	}

	// A command that wrote the node and was then rolled back leaves no
	// memory of what it wrote.
	stream := domain.NodeStream("web-01")
	err := w.inTx(t.Context(), func(tx unitTx) error {
		if _, err := nodes.updateTx(t.Context(), w, tx, "web-01", func(n domain.Node) ([]domain.Event, error) {
			return domain.DecideNode(n, metrics(100), clk.Now())
		}); err != nil {
			return err
		}
		return errors.New("a later step failed")
	})
	if err == nil {
		t.Fatal("the failing command committed")
	}
	if s, ok := w.unit.Remembered(stream); !ok || s.(domain.Node).Version != mine.Version {
		t.Fatalf("remembered %+v after a rolled-back command, want version %d", s, mine.Version)
	}
	got, err := NewNodeView(store.Log()).Get(t.Context(), "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != mine.Version || got.Metrics.MemoryAvailableBytes != 300 {
		t.Errorf("view after a rolled-back command: version %d, memory %d", got.Version, got.Metrics.MemoryAvailableBytes)
	}
}

// labelsOf reads node name's labels from the view.
func labelsOf(t *testing.T, w *Writer, name string) map[string]string {
	t.Helper()
	n, err := NewNodeView(w.log).Get(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return n.Labels
}

// TestANoOpOnARememberedNodeBehindTheRowIsDecidedAgain: a command that
// would change nothing on the node as this writer remembers it, but does
// change the node as the log has it (another process wrote it since), is
// written; a refusal on the memory is decided again on the row too.
func TestANoOpOnARememberedNodeBehindTheRowIsDecidedAgain(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux)) // zone=a, remembered

	other := NewWriter(store.Log(), clk, nil)
	clk.Step(time.Second)
	do(t, other, clk, "web-01", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}})

	clk.Step(time.Second)
	back := do(t, w, clk, "web-01", domain.SetNodeLabels{Labels: map[string]string{"zone": "a"}})
	if back.Labels["zone"] != "a" || labelsOf(t, w, "web-01")["zone"] != "a" {
		t.Fatalf("the change back to zone=a: answered %v, view %v; want zone=a in both", back.Labels, labelsOf(t, w, "web-01"))
	}

	// The memory says deleted; another process registered the node again.
	clk.Step(time.Second)
	do(t, w, clk, "web-02", register("web-02", domain.KindLinux))
	do(t, w, clk, "web-02", domain.DeleteNode{})
	do(t, other, clk, "web-02", register("web-02", domain.KindLinux))
	clk.Step(time.Second)
	relabelled, err := w.NodeCommands().Execute(t.Context(), domain.Key{Name: "web-02"},
		domain.SetNodeLabels{Labels: map[string]string{"zone": "c"}})
	if err != nil || relabelled.Labels["zone"] != "c" {
		t.Fatalf("labels of a node registered again by another writer: %v, %v; want zone=c", relabelled.Labels, err)
	}
}

// TestAChangeBackInOneBatchIsWritten: two commands on one node in one
// unit of work behave as one after the other even when the second, on
// the node as last committed, would change nothing.
func TestAChangeBackInOneBatchIsWritten(t *testing.T) {
	w, _, clk := newWriter(t)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux)) // zone=a, remembered
	clk.Step(time.Second)
	key := domain.Key{Name: "web-01"}
	out, _, err := w.cmds().nodes.ExecuteBatch(t.Context(), []domain.Keyed[domain.NodeCommand]{
		{Key: key, Command: domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}}},
		{Key: key, Command: domain.SetNodeLabels{Labels: map[string]string{"zone": "a"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out[1].Labels["zone"] != "a" || labelsOf(t, w, "web-01")["zone"] != "a" {
		t.Fatalf("after zone=b then zone=a in one batch: answered %v, view %v; want zone=a", out[1].Labels, labelsOf(t, w, "web-01"))
	}
}

// TestAChangeBackInOneGroupIsWritten: a command that runs on the group
// commit's leader after another command of the same node in the same
// group decides on that command's node, not the one remembered before it.
func TestAChangeBackInOneGroupIsWritten(t *testing.T) {
	w, _, clk := newWriter(t)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux)) // zone=a, remembered
	clk.Step(time.Second)
	key := domain.Key{Name: "web-01"}
	queued, release := holdGroup(t, w)
	label := func(zone string) error {
		_, err := w.NodeCommands().Execute(t.Context(), key, domain.SetNodeLabels{Labels: map[string]string{"zone": zone}})
		return err
	}
	errs := make(chan error, 2)
	go func() { errs <- label("b") }()
	queued(1) // decided and ready: the node is in flight
	go func() { errs <- label("a") }()
	queued(2) // on the leader, after the first
	release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := labelsOf(t, w, "web-01"); got["zone"] != "a" {
		t.Fatalf("after zone=b then zone=a in one group: view %v, want zone=a", got)
	}
}
