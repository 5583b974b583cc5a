package command

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"herd/domain"
)

// TestACommandOnAStreamKnownNeverWrittenReadsNoRow: a command that is not
// a creation, on a key its Commands are told was never written
// (PresumingNew), is decided on the fresh state without a read, as a
// creation is; one told wrongly (the stream exists, written by another
// process) is still decided right, on the row, after the commit refused
// the presumption; a refusal decided on it is decided again on the row.
func TestACommandOnAStreamKnownNeverWrittenReadsNoRow(t *testing.T) {
	units, store := openUnits(t, 2)
	mine, theirs := units[0], units[1]
	kind := counters{mode: Mode{Cached: true, Prepared: true}, loads: new(atomic.Int64)}
	decide := func(c counter, cmd func(counter) ([]domain.Event, error), _ time.Time) ([]domain.Event, error) {
		return cmd(c)
	}
	never := map[string]bool{"fresh": true, "theirs": true}
	cmds := NewCommands(mine, kind, decide, nil).PresumingNew(func(_ context.Context, k domain.Key) bool { return never[k.Name] })

	got, err := cmds.Execute(t.Context(), domain.Key{Name: "fresh"}, set(3))
	if err != nil || got.N != 3 || got.Version != 1 {
		t.Fatalf("a set of a counter never written: %+v, %v", got, err)
	}
	if n := kind.loads.Load(); n != 0 {
		t.Errorf("a set of a counter never written read %d rows, want none", n)
	}
	if r := row(t, store, "fresh"); r != got {
		t.Errorf("row %+v, answered %+v", r, got)
	}

	if _, err := Create(t.Context(), theirs, counters{mode: kind.mode}, "theirs", create(1)); err != nil {
		t.Fatal(err)
	}
	got, err = cmds.Execute(t.Context(), domain.Key{Name: "theirs"}, set(5))
	if err != nil || got.N != 5 || got.Version != 2 {
		t.Fatalf("a set of a counter wrongly told never written: %+v, %v; want n 5 at version 2", got, err)
	}
	if r := row(t, store, "theirs"); r != got || streamEvents(t, store, kind.Stream("theirs")) != 2 {
		t.Errorf("row %+v, answered %+v", r, got)
	}

	kind.loads.Store(0)
	never["gone"] = true
	if _, err := cmds.Execute(t.Context(), domain.Key{Name: "gone"}, change(1)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a change of a counter never written: %v, want ErrNotFound", err)
	}
	if n := kind.loads.Load(); n != 1 {
		t.Errorf("a refusal decided on the presumption read %d rows, want it decided again on the row", n)
	}

	kind.loads.Store(0)
	if got, err := cmds.Execute(t.Context(), domain.Key{Name: "other"}, set(2)); err != nil || got.N != 2 {
		t.Fatalf("a set of a counter not known never written: %+v, %v", got, err)
	}
	if n := kind.loads.Load(); n != 1 {
		t.Errorf("a set of a counter not known never written read %d rows, want its row read", n)
	}
}
