package projections

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestBoundNodeNames(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	view := NewPodView(store.Log())
	apply := func(ns, name string, cmds ...domain.PodCommand) {
		t.Helper()
		if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, domain.PodSequence(cmds)); err != nil {
			t.Fatal(err)
		}
	}
	create := func(ns, name, node string) domain.CreatePod {
		return domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + name,
			Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "c"}}}}
	}
	apply("default", "a", create("default", "a", "n2"))
	apply("other", "b", create("other", "b", "n2"))
	apply("default", "c", create("default", "c", "n1"))
	apply("default", "unbound", create("default", "unbound", ""))
	apply("default", "gone", create("default", "gone", "n3"), domain.DeletePod{}, domain.FinalizePod{Reason: "Terminated"})
	apply("kube-system", "dns", domain.ObservePod{Namespace: "kube-system", Name: "dns", Spec: domain.PodSpec{NodeName: "k1"}})

	tests := []struct {
		source domain.PodSource
		want   []string
	}{
		{domain.SourceHerd, []string{"n1", "n2"}},
		{domain.SourceKubelet, []string{"k1"}},
	}
	for _, tt := range tests {
		got, err := view.BoundNodeNames(ctx, tt.source)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("source %q (-want +got):\n%s", tt.source, diff)
		}
	}
}
