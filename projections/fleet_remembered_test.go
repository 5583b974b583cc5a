package projections

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestTheFleetsHealthReadFromMemoryIsItsRow: on SQLite a node view that
// remembers (Remembering) answers the fleet's health, which the health
// rules read at every node's reconcile, from the unit of work's memory,
// and what it answers is what a read of the row gives, after each kind
// of write: the rules' start, a disruption starting, one ending.
func TestTheFleetsHealthReadFromMemoryIsItsRow(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	rows, remembering := NewNodeView(store.Log()), NewNodeView(store.Log()).Remembering(w)
	if _, ok := w.currentFleet(); ok {
		t.Fatal("the unit of work holds the fleet before any write")
	}
	if f, err := remembering.FleetHealth(ctx); err != nil || f != (domain.FleetHealth{}) {
		t.Fatalf("the fleet before any write: %+v, %v; want the zero value", f, err)
	}
	steps := []struct {
		name string
		cmd  domain.FleetCommand
	}{
		{"the rules' start", domain.StartHealthMonitor{At: clk.Now(), Nodes: 4}},
		{"a disruption starting", domain.AssessFleet{Unreachable: 4, Total: 4}},
		{"a disruption ending", domain.AssessFleet{Unreachable: 0, Total: 4}},
	}
	for _, s := range steps {
		clk.Step(time.Second)
		if _, err := w.FleetHealthCommands().Execute(ctx, domain.Key{}, s.cmd); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if _, ok := w.currentFleet(); !ok {
			t.Fatalf("after %s: the unit of work does not hold the fleet", s.name)
		}
		want, werr := rows.FleetHealth(ctx)
		got, gerr := remembering.FleetHealth(ctx)
		if werr != nil || gerr != nil {
			t.Fatalf("after %s: from memory %v, from the row %v", s.name, gerr, werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("after %s: the fleet from memory differs from its row (-row +memory):\n%s", s.name, d)
		}
	}
	if f, _ := remembering.FleetHealth(ctx); f.Disrupted || f.Version != 3 {
		t.Errorf("the fleet at the end: %+v, want not disrupted at version 3", f)
	}
}
