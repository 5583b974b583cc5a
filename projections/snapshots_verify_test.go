package projections

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"
	"k8s.io/apimachinery/pkg/fields"

	"herd/domain"
	"herd/events/eventstest"
	"herd/projections/watch"
)

// TestVerifySnapshotsFindsOneUntrue lets a watch hub snapshot every event
// of a few nodes, checks that VerifySnapshots finds each snapshot equal to
// its stream folded from the log, then alters one and finds it named.
func TestVerifySnapshotsFindsOneUntrue(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	hub, err := watch.NewHub(store.Log(), watch.Config{SnapshotEvery: 1, PollInterval: time.Millisecond}, clk, zaptest.NewLogger(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	view := NewNodeView(store.Log())
	if err := watch.Register(hub, &watch.Kind[domain.Node]{
		Resource: "nodes", Prefix: domain.NodeAggregate.Prefix(), Fold: FoldNode,
		Meta: func(n domain.Node) (watch.Meta, bool) {
			return watch.Meta{Key: n.Name, Fields: fields.Set{}}, n.Exists()
		},
		Encode: func(n domain.Node, _ int64) ([]byte, error) { return json.Marshal(n) },
		Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Node], int64, error) {
			nodes, head, err := view.Rows(ctx, after, limit)
			rows := make([]watch.Row[domain.Node], len(nodes))
			for i, n := range nodes {
				rows[i] = watch.Row[domain.Node]{Key: n.Name, Stream: domain.NodeStream(n.Name), ResourceVersion: n.ResourceVersion, State: n}
			}
			return rows, head, err
		},
	}); err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hub.Stop)
	for _, name := range []string{"a", "b"} {
		do(t, w, clk, name, register(name, domain.KindLinux))
		for range 3 {
			clk.Step(10 * time.Second)
			do(t, w, clk, name, metrics(500))
		}
	}
	head, err := store.Log().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		snaps, err := store.ReadSnapshots(ctx, "", 0, 100)
		return err == nil && len(snaps) == int(head)
	}, "the hub saved a snapshot of each of the %d events", head)

	n, diff, err := VerifySnapshots(ctx, store.Log())
	if err != nil || diff != nil || n != int(head) {
		t.Fatalf("VerifySnapshots = %d, %v, %v; want all %d equal", n, diff, err, head)
	}
	if _, err := store.DB().ExecContext(ctx, `UPDATE snapshots SET state = replace(state, '"a"', '"z"') WHERE stream = 'node/a' AND version = 3`); err != nil {
		t.Fatal(err)
	}
	_, diff, err = VerifySnapshots(ctx, store.Log())
	if err != nil || diff == nil || !strings.HasPrefix(diff.Key, "node/a at ") || !strings.Contains(diff.Live, `"z"`) {
		t.Fatalf("VerifySnapshots after altering node/a's third = %+v, %v; want it named", diff, err)
	}
}
