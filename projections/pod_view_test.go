package projections

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

func TestPodWriterAndView(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	view := NewPodView(store.Log())
	pod := func(ns, name string, cmd domain.PodCommand) (domain.Pod, error) {
		return w.PodCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, cmd)
	}
	create := func(ns, name, node string) domain.CreatePod {
		return domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + name,
			Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "c"}}}}
	}
	for _, c := range []domain.CreatePod{create("default", "a", "n1"), create("default", "b", ""), create("other", "c", "n1")} {
		if _, err := pod(c.Namespace, c.Name, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := view.Get(ctx, "default", "a")
	if err != nil || got.Spec.NodeName != "n1" || got.ResourceVersion == 0 || got.Version != 2 {
		t.Fatalf("get: %+v %v", got, err)
	}
	names := func(f PodFilter) []string {
		t.Helper()
		pods, head, err := view.List(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if h, _ := store.Head(ctx, store.DB()); head != h {
			t.Errorf("list head %d, log head %d", head, h)
		}
		var out []string
		for _, p := range pods {
			out = append(out, p.Key())
		}
		return out
	}
	tests := []struct {
		name string
		f    PodFilter
		want []string
	}{
		{"all", PodFilter{}, []string{"default/a", "default/b", "other/c"}},
		{"namespace", PodFilter{Namespace: "other"}, []string{"other/c"}},
		{"node", PodFilter{NodeName: "n1"}, []string{"default/a", "other/c"}},
		{"unbound", PodFilter{Unbound: true}, []string{"default/b"}},
		{"phase", PodFilter{Phase: domain.PodRunning}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, names(tt.f)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}

	// A rejected command appends nothing and leaves the row alone.
	before, _ := store.Head(ctx, store.DB())
	if _, err := pod("default", "a", domain.BindPod{NodeName: "n2"}); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("rebind: %v", err)
	}
	if after, _ := store.Head(ctx, store.DB()); after != before {
		t.Errorf("a rejected command moved the head %d → %d", before, after)
	}

	// Finalized pods leave lists and gets but keep their last state.
	if _, err := pod("default", "b", domain.DeletePod{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "b"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get finalized: %v", err)
	}
	if p, err := view.GetIncludingFinalized(ctx, "default", "b"); err != nil || !p.Finalized || p.UID != "uid-b" {
		t.Errorf("tombstone: %+v %v", p, err)
	}
	if diff := cmp.Diff([]string{"default/a", "other/c"}, names(PodFilter{})); diff != "" {
		t.Errorf("after finalize (-want +got):\n%s", diff)
	}

	// Several updates in one transaction: all or nothing.
	_, _, err = w.PodBatch().ExecuteBatch(ctx, []domain.Keyed[domain.PodCommand]{
		{Key: domain.Key{Namespace: "default", Name: "a"}, Command: domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning}}},
		{Key: domain.Key{Namespace: "default", Name: "ghost"}, Command: domain.BindPod{NodeName: "n1"}},
	})
	if !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("batch with a missing pod: %v", err)
	}
	if p, _ := view.Get(ctx, "default", "a"); p.Status.Phase != domain.PodPending {
		t.Errorf("a failed batch changed a pod: phase %s", p.Status.Phase)
	}
}

func TestRebuildRestoresPods(t *testing.T) {
	ctx := context.Background()
	w, store, _ := newWriter(t)
	for i, name := range []string{"a", "b", "c"} {
		_, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name},
			domain.CreatePod{Namespace: "default", Name: name, UID: name, Spec: domain.PodSpec{NodeName: "n1", Containers: []domain.Container{{Name: "c"}}}})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name}, domain.DeletePod{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Errorf("rebuilt pods differ from the live view: %s", diff)
	}
}
