package drain

import (
	"testing"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestDrainWaitsForTheBudget: a drain evicts the pods of a budget only
// as fast as the budget allows: the pod whose eviction would break it
// stays, the drain tries again after BudgetRetry, and once the budget is
// counted again with a disruption to spare it goes too.
func TestDrainWaitsForTheBudget(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	ready := domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}}
	for _, name := range []string{"web-a", "web-b"} {
		create := reconcilerstest.CreatePod(name, "n1", 30)
		create.Labels = map[string]string{"app": "web"}
		env.Pod(name, create, ready)
	}
	budgets := env.Writer.PodDisruptionBudgetCommands()
	key := domain.Key{Namespace: "default", Name: "web"}
	allow := func(n int32) {
		t.Helper()
		if _, err := budgets.Execute(t.Context(), key, domain.RecordPodDisruptionBudgetStatus{Status: domain.PodDisruptionBudgetStatus{
			ObservedGeneration: 1, DisruptionsAllowed: n, CurrentHealthy: 3, DesiredHealthy: 3 - n, ExpectedPods: 3}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := budgets.Execute(t.Context(), key, domain.CreatePodDisruptionBudget{
		Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-pdb"},
		Spec: domain.PodDisruptionBudgetSpec{MaxUnavailable: &domain.IntOrPercent{Value: 1}, Selector: &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}); err != nil {
		t.Fatal(err)
	}
	allow(1)
	env.Node("n1", domain.DrainNode{})
	res, err := r.Reconcile(t.Context(), reconcilerstest.NodeKey("n1"))
	if err != nil || res != (reconcilers.Result{RequeueAfter: BudgetRetry}) {
		t.Fatalf("the drain with one disruption to spare: %+v, %v; want to try again in %s", res, err, BudgetRetry)
	}
	a, _ := env.GetPod("web-a")
	b, _ := env.GetPod("web-b")
	if !a.Terminating() || b.Terminating() {
		t.Fatalf("web-a evicted %v, web-b evicted %v: want the first only", a.Terminating(), b.Terminating())
	}
	// Nothing changed: the pod waits again.
	if res, err := r.Reconcile(t.Context(), keyDraining); err != nil || res.RequeueAfter != BudgetRetry {
		t.Fatalf("again: %+v, %v", res, err)
	}
	allow(1)
	reconcile(t, r, keyDraining)
	if b, _ := env.GetPod("web-b"); !b.Terminating() {
		t.Error("web-b stayed once the budget allowed it")
	}
}
