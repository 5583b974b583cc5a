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
	if s, ok := w.states.get(stream); !ok || s.(domain.Node).Version != mine.Version {
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
