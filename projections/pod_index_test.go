package projections

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/domain"
)

// TestPodIndexAnswersAsTheView checks that the pods a Writer remembers
// list as the pod view's rows do, through creates, binds, deletions,
// finalizations, a failed batch, and a restart (a new Writer on the same
// log, whose index is filled from the rows).
func TestPodIndexAnswersAsTheView(t *testing.T) {
	ctx := t.Context()
	w, store, clk := newWriter(t)
	view := NewPodView(store.Log())
	herd := domain.SourceHerd
	filters := map[string]PodFilter{
		"all":                 {},
		"bound to n1":         {NodeName: "n1", Source: &herd},
		"bound to n2":         {NodeName: "n2", Source: &herd},
		"pending":             {Unbound: true, Source: &herd},
		"terminating":         {Source: &herd, Terminating: true},
		"namespace":           {Namespace: "other"},
		"running":             {Phase: domain.PodRunning},
		"without controller":  {Controllers: []string{""}},
		"no controller named": {Controllers: []string{}},
	}
	check := func(step string, w *Writer) {
		t.Helper()
		mem := view.Remembering(w)
		for name, f := range filters {
			want, _, err := view.List(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mem.Pods(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s, %s: Pods (-rows +got):\n%s", step, name, diff)
			}
			// The index itself, whether or not Pods used it.
			if diff := cmp.Diff(want, w.podIndex.list(f), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%s, %s: index (-rows +index):\n%s", step, name, diff)
			}
		}
	}
	pod := func(w *Writer, ns, name string, cmd domain.PodCommand) {
		t.Helper()
		if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, cmd); err != nil {
			t.Fatalf("%s/%s %T: %v", ns, name, cmd, err)
		}
	}
	create := func(ns, name, node string) domain.CreatePod {
		return domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + name,
			Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "c"}}}}
	}

	check("empty", w)
	for _, c := range []domain.CreatePod{create("default", "a", "n1"), create("default", "b", ""), create("other", "c", "n1"), create("default", "d", "")} {
		pod(w, c.Namespace, c.Name, c)
	}
	check("created", w)
	pod(w, "default", "b", domain.BindPod{NodeName: "n2"})
	pod(w, "other", "c", domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning}})
	check("bound", w)
	pod(w, "default", "a", domain.DeletePod{})
	check("deleting", w)
	pod(w, "default", "a", domain.FinalizePod{Reason: "Terminated"})
	pod(w, "default", "d", domain.DeletePod{})
	check("finalized", w)

	// A batch that fails changes nothing, in the rows or the index.
	if _, _, err := w.PodBatch().ExecuteBatch(ctx, []domain.Keyed[domain.PodCommand]{
		{Key: domain.Key{Namespace: "default", Name: "b"}, Command: domain.DeletePod{}},
		{Key: domain.Key{Namespace: "default", Name: "ghost"}, Command: domain.BindPod{NodeName: "n1"}},
	}); err == nil {
		t.Fatal("a batch with a missing pod committed")
	}
	check("failed batch", w)

	// A restart: a new Writer fills its index from the rows, then keeps
	// it from its own commits.
	restarted := NewWriter(store.Log(), clk, nil)
	check("restarted", restarted)
	pod(restarted, "default", "e", create("default", "e", "n1"))
	pod(restarted, "default", "b", domain.DeletePod{})
	pod(restarted, "default", "a", create("default", "a", ""))
	check("after the restart", restarted)
}

// TestPodIndexUnderConcurrentCommits fills the index while pods are being
// created, bound and deleted from several goroutines, reads it all along,
// and checks that it ends as the rows do: a load racing commits neither
// loses nor resurrects a pod.
func TestPodIndexUnderConcurrentCommits(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	view := NewPodView(store.Log())
	mem := view.Remembering(w)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 15 {
				name := fmt.Sprintf("p%d-%d", g, i)
				create := domain.CreatePod{Namespace: "default", Name: name, UID: name,
					Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c"}}}}
				if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name}, create); err != nil {
					t.Error(err)
					return
				}
				next := domain.PodCommand(domain.BindPod{NodeName: "n1"})
				if i%3 == 0 {
					next = domain.DeletePod{}
				}
				if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name}, next); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for range 30 {
			if _, err := mem.Pods(ctx, PodFilter{NodeName: "n1"}); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Wait()
	want, _, err := view.List(ctx, PodFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 40 {
		t.Fatalf("%d pods listed, want 40 (60 created, 20 deleted)", len(want))
	}
	if diff := cmp.Diff(want, w.podIndex.list(PodFilter{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("index (-rows +index):\n%s", diff)
	}
}
