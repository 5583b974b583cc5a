package projections

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestFoldNodeRebuildsTheNodeAtEveryPosition folds each node's stream from
// the log up to the position of each command herd ran, and compares the
// result with the node the writer returned then: folding history gives
// the node exactly as it stood.
func TestFoldNodeRebuildsTheNodeAtEveryPosition(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	type step struct {
		name string
		cmd  domain.NodeCommand
	}
	steps := []step{
		{"web-01", register("web-01", domain.KindLinux)},
		{"web-02", register("web-02", domain.KindIllumos)},
		{"web-01", metrics(500)},
		{"web-01", domain.SetNodeLabels{Labels: map[string]string{"zone": "b"}}},
		{"web-02", metrics(10)},
		{"web-01", domain.DeleteNode{}},
		{"web-01", register("web-01", domain.KindKubelet)},
		{"web-02", metrics(900)},
	}
	type seen struct {
		name string
		at   int64
		node domain.Node
	}
	var history []seen
	for _, s := range steps {
		clk.Step(time.Second)
		n := do(t, w, clk, s.name, s.cmd)
		history = append(history, seen{s.name, n.ResourceVersion, n})
	}
	for _, h := range history {
		recs, err := store.ReadStreamRange(ctx, store.DB(), domain.NodeStream(h.name), 0, h.at)
		if err != nil {
			t.Fatal(err)
		}
		var n domain.Node
		for _, rec := range recs {
			if n, err = FoldNode(n, rec); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(h.node, n); diff != "" {
			t.Errorf("%s folded up to %d (-writer +folded):\n%s", h.name, h.at, diff)
		}
	}
}

func TestNodeRowsPageThroughTheViewWithTombstones(t *testing.T) {
	w, store, clk := newWriter(t)
	for _, name := range []string{"c", "a", "d", "b"} {
		do(t, w, clk, name, register(name, domain.KindLinux))
	}
	do(t, w, clk, "b", domain.DeleteNode{})
	head, err := store.Head(t.Context(), store.DB())
	if err != nil {
		t.Fatal(err)
	}
	view := NewNodeView(store.Log())
	tests := []struct {
		name  string
		after string
		limit int
		want  []string
	}{
		{"all", "", 0, []string{"a", "b (deleted)", "c", "d"}},
		{"first page", "", 2, []string{"a", "b (deleted)"}},
		{"next page", "b", 2, []string{"c", "d"}},
		{"past the end", "d", 2, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, at, err := view.Rows(t.Context(), tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range nodes {
				if n.Deleted {
					got = append(got, n.Name+" (deleted)")
				} else {
					got = append(got, n.Name)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if at != head {
				t.Errorf("rows as of %d, want the head %d", at, head)
			}
		})
	}
}
