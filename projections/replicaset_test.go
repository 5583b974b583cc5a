package projections

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestReplicaSetViewReadsWhatWasWritten: ReplicaSets written through
// their Commands read back as written, list by namespace at the log's
// head, page in key order with their tombstones, and rebuild from the
// log as they were kept; a dry run and a refused command write nothing.
func TestReplicaSetViewReadsWhatWasWritten(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	rs := w.ReplicaSetCommands()
	view := NewReplicaSetView(store.Log())
	create := func(ns, name string) domain.CreateReplicaSet {
		c := contractReplicaSet(name)
		c.Meta.Namespace = ns
		return c
	}
	for _, k := range []domain.Key{{Namespace: "default", Name: "web"}, {Namespace: "default", Name: "api"}, {Namespace: "lab", Name: "web"}} {
		if _, err := rs.Execute(ctx, k, create(k.Namespace, k.Name)); err != nil {
			t.Fatal(err)
		}
	}
	web := domain.Key{Namespace: "default", Name: "web"}
	scaled, err := rs.Execute(ctx, web, domain.ScaleReplicaSet{Replicas: 4})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := store.Head(ctx, store.DB())
	if scaled.Spec.Replicas != 4 || scaled.Generation != 2 || scaled.Version != 2 || scaled.ResourceVersion != head || !scaled.CreatedAt.Equal(t0) {
		t.Errorf("after a scale: %+v (head %d)", scaled, head)
	}
	if got, err := view.Get(ctx, "default", "web"); err != nil || !cmp.Equal(scaled, got) {
		t.Errorf("view differs from the writer's answer (-writer +view):\n%s%v", cmp.Diff(scaled, got), err)
	}

	// Neither a dry run nor a refusal appends anything.
	dry, ok := rs.(interface {
		DryRun(ctx context.Context, key domain.Key, cmd domain.ReplicaSetCommand) (domain.ReplicaSet, error)
	})
	if !ok {
		t.Fatal("the ReplicaSet's Commands run no dry runs")
	}
	if d, err := dry.DryRun(ctx, web, domain.ScaleReplicaSet{Replicas: 9}); err != nil || d.Spec.Replicas != 9 {
		t.Errorf("dry run: %+v, %v", d, err)
	}
	if _, err := rs.Execute(ctx, web, domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: head - 1, Command: domain.ScaleReplicaSet{Replicas: 1}}); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("stale scale: %v, want a conflict", err)
	}
	if h, _ := store.Head(ctx, store.DB()); h != head {
		t.Errorf("a dry run and a refusal moved the head from %d to %d", head, h)
	}
	if got, _ := view.Get(ctx, "default", "web"); got.Spec.Replicas != 4 {
		t.Errorf("replicas %d after a dry run and a refusal, want 4", got.Spec.Replicas)
	}

	clk.Step(1)
	if _, err := rs.Execute(ctx, domain.Key{Namespace: "default", Name: "api"}, domain.DeleteReplicaSet{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "api"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	for _, tt := range []struct {
		namespace string
		want      []string
	}{
		{"", []string{"default/web", "lab/web"}},
		{"lab", []string{"lab/web"}},
		{"nowhere", nil},
	} {
		list, at, err := view.List(ctx, tt.namespace)
		var keys []string
		for _, r := range list {
			keys = append(keys, r.Namespace+"/"+r.Name)
		}
		if h, _ := store.Head(ctx, store.DB()); err != nil || at != h || !cmp.Equal(tt.want, keys) {
			t.Errorf("List(%q): %v at %d (head %d), %v; want %v", tt.namespace, keys, at, h, err, tt.want)
		}
	}
	rows, _, err := view.Rows(ctx, "default/api", 0)
	if err != nil || len(rows) != 2 || rows[0].Name != "web" {
		t.Errorf("rows after default/api: %+v, %v", rows, err)
	}
	all, _, err := view.Rows(ctx, "", 1)
	if err != nil || len(all) != 1 || !all[0].Deleted {
		t.Errorf("the first row, the tombstone of default/api: %+v, %v", all, err)
	}

	requireRebuildEqual(t, store)
}
