package watch_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"herd/events"
	"herd/projections"
	"herd/projections/watch"
)

// lagging is a log whose reads show no event past visible: a replica
// whose view another replica's commit has moved before that commit's
// events reach its own log reads.
type lagging struct {
	watch.Log
	visible atomic.Int64
	// After reads that found nothing new, the rest (up to head) shows:
	// the other replica's commit became visible. Zero: never.
	showAfter int64
	head      int64
	empty     atomic.Int64
}

func (l *lagging) Head(ctx context.Context) (int64, error) {
	head, err := l.Log.Head(ctx)
	return min(head, l.visible.Load()), err
}

func (l *lagging) ReadAfter(ctx context.Context, position int64, limit int) ([]events.Record, error) {
	recs, err := l.Log.ReadAfter(ctx, position, limit)
	v := l.visible.Load()
	for i, r := range recs {
		if r.Position > v {
			recs = recs[:i]
			break
		}
	}
	if len(recs) == 0 && l.showAfter > 0 && l.empty.Add(1) == l.showAfter {
		l.visible.Store(l.head)
	}
	return recs, err
}

// laggingHub is a hub over a log of three registered nodes whose reads
// show only the first node's events until showAfter reads found nothing
// new (never, with zero), and the log's head.
func laggingHub(t *testing.T, cfg watch.Config, showAfter int64) (*watch.Hub, int64) {
	t.Helper()
	f := newFixture(t, watch.Config{})
	first := f.do(t, "n1", register("n1", nil)).ResourceVersion
	f.do(t, "n2", register("n2", nil))
	f.do(t, "n3", register("n3", nil))
	head := f.head(t)
	log := &lagging{Log: f.store.Log(), showAfter: showAfter, head: head}
	log.visible.Store(first)
	cfg.PollInterval = time.Millisecond
	hub, err := watch.NewHub(log, cfg, f.clk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Register(hub, nodeKind(projections.NewNodeView(f.store.Log()))); err != nil {
		t.Fatal(err)
	}
	return hub, head
}

func TestTheHubStartsOnceTheLogReachesItsViews(t *testing.T) {
	hub, head := laggingHub(t, watch.Config{StartWait: time.Minute}, 3)
	if err := hub.Start(t.Context()); err != nil {
		t.Fatalf("start while the log's reads lag the views: %v", err)
	}
	t.Cleanup(hub.Stop)
	if got := hub.Position(); got < head {
		t.Fatalf("hub started at %d, before the views' position %d", got, head)
	}
}

func TestTheHubRefusesToStartOnViewsAheadOfTheLog(t *testing.T) {
	hub, _ := laggingHub(t, watch.Config{StartWait: 50 * time.Millisecond}, 0)
	err := hub.Start(t.Context())
	if err == nil {
		hub.Stop()
		t.Fatal("the hub started on views ahead of every event its log shows")
	}
	for _, want := range []string{"log ends at", "views' position", "after waiting 50ms"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
