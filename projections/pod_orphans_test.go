package projections

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestGoneNodeNames(t *testing.T) {
	ctx := t.Context()
	w, store, clk := newWriter(t)
	view := NewPodView(store.Log())
	create := func(name, node string) {
		t.Helper()
		if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name},
			domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "c"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	do(t, w, clk, "live", register("live", domain.KindLinux))
	do(t, w, clk, "deleted", register("deleted", domain.KindLinux))
	do(t, w, clk, "deleted", domain.DeleteNode{})
	create("on-live", "live")
	create("on-deleted", "deleted")
	create("on-never", "never")
	create("unbound", "")
	got, err := view.GoneNodeNames(ctx, domain.SourceHerd)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"deleted", "never"}, got); diff != "" {
		t.Errorf("GoneNodeNames (-want +got):\n%s", diff)
	}
}
