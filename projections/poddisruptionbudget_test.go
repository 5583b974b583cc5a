package projections

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"herd/domain"
)

// runningPods creates the ready, running web pods of shop.
func runningPods(t *testing.T, w *Writer, names ...string) {
	t.Helper()
	ready := domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}}
	for _, name := range names {
		key := domain.Key{Namespace: "shop", Name: name}
		for _, cmd := range []domain.PodCommand{
			domain.CreatePod{Namespace: "shop", Name: name, UID: "uid-" + name, Labels: map[string]string{"app": "web"},
				Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c"}}}},
			ready,
		} {
			if _, err := w.PodCommands().Execute(t.Context(), key, cmd); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// webBudget creates shop/web, a budget of the web pods that allows
// allowed disruptions, as the reconciler would have counted them.
func webBudget(t *testing.T, w *Writer, allowed int32) domain.Key {
	t.Helper()
	key := domain.Key{Namespace: "shop", Name: "web"}
	for _, cmd := range []domain.PodDisruptionBudgetCommand{
		domain.CreatePodDisruptionBudget{
			Meta: domain.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-pdb"},
			Spec: domain.PodDisruptionBudgetSpec{
				MaxUnavailable: &domain.IntOrPercent{Value: allowed}, Selector: &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		},
		domain.RecordPodDisruptionBudgetStatus{Status: domain.PodDisruptionBudgetStatus{ObservedGeneration: 1,
			DisruptionsAllowed: allowed, CurrentHealthy: 3, DesiredHealthy: 3 - allowed, ExpectedPods: 3}},
	} {
		if _, err := w.PodDisruptionBudgetCommands().Execute(t.Context(), key, cmd); err != nil {
			t.Fatal(err)
		}
	}
	return key
}

// evict is the Eviction API's eviction.
var evict = domain.Eviction{Command: domain.EvictPod{Reason: domain.ReasonEvictionByEvictionAPI, Message: "Eviction API: evicting"}}

// TestEvictionSpendsTheBudget: an eviction the budget allows spends one
// disruption and evicts the pod in one unit of work; the next is refused
// and writes nothing, and a dry run decides the same without writing.
func TestEvictionSpendsTheBudget(t *testing.T) {
	w, store, _ := newWriter(t)
	ctx := t.Context()
	runningPods(t, w, "web-a", "web-b", "web-c")
	key := webBudget(t, w, 1)
	view := NewPodDisruptionBudgetView(store.Log())
	ev := w.Evictions().(*Evictions)

	if _, err := ev.DryRun(ctx, domain.Key{Namespace: "shop", Name: "web-a"}, evict); err != nil {
		t.Fatalf("a dry run the budget allows: %v", err)
	}
	p, err := ev.Execute(ctx, domain.Key{Namespace: "shop", Name: "web-a"}, evict)
	if err != nil || !p.Terminating() {
		t.Fatalf("the first eviction: %+v, %v", p.Deletion, err)
	}
	b, err := view.Get(ctx, key.Namespace, key.Name)
	if err != nil || b.Status.DisruptionsAllowed != 0 || b.Status.DisruptedPods["web-a"].IsZero() {
		t.Fatalf("the budget after the eviction: %+v, %v", b.Status, err)
	}
	head, _ := store.Head(ctx, store.DB())
	for _, run := range []func(context.Context, domain.Key, domain.Eviction) (domain.Pod, error){ev.Execute, ev.DryRun} {
		_, err := run(ctx, domain.Key{Namespace: "shop", Name: "web-b"}, evict)
		var refusal *domain.EvictionRefusedError
		if !errors.As(err, &refusal) || refusal.Budget != "web" || refusal.Forbidden {
			t.Errorf("the second eviction: %v, want the budget's refusal", err)
		}
	}
	if h, _ := store.Head(ctx, store.DB()); h != head {
		t.Errorf("a refused eviction moved the head from %d to %d", head, h)
	}
	// A pending pod is no disruption: it goes without spending
	// anything, as kube-apiserver lets it through.
	if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "web-p"}, domain.CreatePod{Namespace: "shop", Name: "web-p",
		UID: "uid-p", Labels: map[string]string{"app": "web"}, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Execute(ctx, domain.Key{Namespace: "shop", Name: "web-p"}, evict); err != nil {
		t.Errorf("evicting a pending pod: %v", err)
	}
	if _, err := ev.Execute(ctx, domain.Key{Namespace: "shop", Name: "gone"}, evict); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("evicting a pod that is not there: %v, want not found", err)
	}
	requireRebuildEqual(t, store)
}

// TestConcurrentEvictionsSpendEachDisruptionOnce: of many evictions at
// once against a budget that allows two, exactly two go through.
func TestConcurrentEvictionsSpendEachDisruptionOnce(t *testing.T) {
	w, store, _ := newWriter(t)
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("web-%02d", i))
	}
	runningPods(t, w, names...)
	key := webBudget(t, w, 2)
	var (
		wg              sync.WaitGroup
		mu              sync.Mutex
		evicted, refusd int
	)
	for _, name := range names {
		wg.Go(func() {
			_, err := w.Evictions().Execute(t.Context(), domain.Key{Namespace: "shop", Name: name}, evict)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				evicted++
			case errors.Is(err, domain.ErrDisruptionBudget):
				refusd++
			default:
				t.Errorf("evict %s: %v", name, err)
			}
		})
	}
	wg.Wait()
	b, err := NewPodDisruptionBudgetView(store.Log()).Get(t.Context(), key.Namespace, key.Name)
	if evicted != 2 || refusd != len(names)-2 || err != nil || len(b.Status.DisruptedPods) != 2 || b.Status.DisruptionsAllowed != 0 {
		t.Errorf("%d evicted, %d refused; budget %+v, %v", evicted, refusd, b.Status, err)
	}
}
