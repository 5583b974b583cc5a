package projections

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"herd/domain"
	"herd/events"
)

// doNamespace runs one command on a namespace through the writer, at its
// clock's time.
func doNamespace(tb testing.TB, w *Writer, name string, cmd domain.NamespaceCommand) (domain.Namespace, error) {
	tb.Helper()
	return w.NamespaceCommands().Execute(tb.Context(), domain.Key{Name: name}, cmd)
}

// TestNamespaceView: what the writer records, the view reads; a
// terminating namespace is listed but takes no objects; a gone one is
// neither; a rebuild of the log gives the same rows.
func TestNamespaceView(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	view := NewNamespaceView(store.Log())
	for _, name := range domain.SystemNamespaces {
		if _, err := doNamespace(t, w, name, domain.EnsureNamespace{Name: name, Reason: "system"}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"shop", "lab"} {
		if _, err := doNamespace(t, w, name, domain.CreateNamespace{Meta: domain.ObjectMeta{Name: name, UID: "uid-" + name}}); err != nil {
			t.Fatal(err)
		}
	}
	clk.Step(time.Minute)
	shop, err := doNamespace(t, w, "shop", domain.DeleteNamespace{})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := store.Head(ctx, store.DB())
	if domain.NamespacePhase(shop) != domain.PhaseTerminating || shop.ResourceVersion != head {
		t.Errorf("shop after delete: phase %s rv %d, want Terminating at the head %d", domain.NamespacePhase(shop), shop.ResourceVersion, head)
	}
	if err := view.AcceptsObjects(ctx, "shop"); !errors.Is(err, domain.ErrForbidden) {
		t.Errorf("terminating shop accepts objects: %v", err)
	}
	if err := view.AcceptsObjects(ctx, "lab"); err != nil {
		t.Errorf("lab refuses objects: %v", err)
	}
	if err := view.AcceptsObjects(ctx, "nowhere"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("nowhere accepts objects: %v", err)
	}
	terminating, err := view.Terminating(ctx)
	if err != nil || len(terminating) != 1 || terminating[0].Name != "shop" {
		t.Errorf("terminating %v, %v; want shop", terminating, err)
	}
	if _, err := doNamespace(t, w, "lab", domain.DeleteNamespace{}); err != nil {
		t.Fatal(err)
	}
	if _, err := doNamespace(t, w, "lab", domain.FinalizeNamespace{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "lab"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("gone lab: %v", err)
	}
	list, rv, err := view.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ns := range list {
		names = append(names, ns.Name)
	}
	head, _ = store.Head(ctx, store.DB())
	if want := []string{"default", "kube-node-lease", "kube-public", "kube-system", "shop"}; !slices.Equal(names, want) || rv != head {
		t.Errorf("list %q at %d, want %q at the head %d", names, rv, want, head)
	}
	rows, _, err := view.Rows(ctx, "kube-public", 2)
	if err != nil || len(rows) != 2 || rows[0].Name != "kube-system" || rows[1].Name != "lab" || !rows[1].Deleted {
		t.Errorf("rows after kube-public: %+v, %v; want kube-system and lab's tombstone", rows, err)
	}

	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Fatalf("rebuilt namespaces differ from live ones: %s", diff)
	}
}

// TestEnsureNamespaces: the system namespaces and those holding objects
// are created once; a second start appends nothing.
func TestEnsureNamespaces(t *testing.T) {
	w, store, _ := newWriter(t)
	ctx := t.Context()
	grace := int64(0)
	if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "web"}, domain.CreatePod{Namespace: "shop", Name: "web", UID: "u",
		TerminationGracePeriodSeconds: &grace, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "app", Image: "x"}}}}); err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"lab", "kube-system"} {
		if _, err := w.ConfigMapCommands().Execute(ctx, domain.Key{Namespace: ns, Name: "settings"},
			domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: ns, Name: "settings"}}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	uid := func() string { n++; return "uid-" + string(rune('a'+n)) }
	created, err := w.EnsureNamespaces(ctx, uid)
	if want := []string{"default", "kube-system", "kube-public", "kube-node-lease", "lab", "shop"}; err != nil || !slices.Equal(created, want) {
		t.Fatalf("created %q, %v; want %q", created, err, want)
	}
	view := NewNamespaceView(store.Log())
	if ns, err := view.Get(ctx, "shop"); err != nil || ns.UID == "" || domain.NamespacePhase(ns) != domain.PhaseActive {
		t.Errorf("shop: %+v, %v", ns, err)
	}
	head, _ := store.Head(ctx, store.DB())
	if created, err := w.EnsureNamespaces(ctx, uid); err != nil || len(created) != 0 {
		t.Errorf("second start created %q, %v", created, err)
	}
	if h, _ := store.Head(ctx, store.DB()); h != head {
		t.Errorf("a second start moved the head from %d to %d", head, h)
	}
}
