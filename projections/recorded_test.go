package projections

import (
	"context"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

// TestAppendRecordedTakesEventsAsTheyWere: events recorded in another log
// are appended as they are — no decision, the stream's next version, the
// Writer's time, the metadata ctx carries — and the view folds them as
// it folds a command's.
func TestAppendRecordedTakesEventsAsTheyWere(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "web-01", register("web-01", domain.KindKubelet))

	clk.Step(10 * time.Second)
	md := events.Metadata{Actor: "alice", Source: "httpapi"}
	evs := []domain.Event{domain.NodeCordoned{At: t0}}
	if err := w.AppendRecorded(events.WithMetadata(ctx, md), domain.NodeStream("web-01"), evs); err != nil {
		t.Fatal(err)
	}
	recs, err := store.Log().ReadStream(ctx, domain.NodeStream("web-01"), 0)
	if err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1]
	if last.Type != "NodeCordoned" || last.Version != int64(len(recs)) || !last.RecordedAt.Equal(clk.Now()) || last.Metadata != md {
		t.Errorf("appended %+v, want NodeCordoned at version %d, %s, by alice", last, len(recs), clk.Now())
	}
	n, err := NewNodeView(store.Log()).Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if !n.Unschedulable {
		t.Errorf("the view did not fold the recorded cordon: %+v", n)
	}

	if err := w.AppendRecorded(ctx, "nosuch/thing", evs); err == nil {
		t.Error("appended to a stream no aggregate owns")
	}
}
