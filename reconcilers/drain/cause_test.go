package drain

import (
	"testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/reconcilers/reconcilerstest"
)

// TestABudgetsGrantNamesTheDrain: a drain's eviction asks the pod's
// budget for a disruption in the same unit of work as the eviction;
// the grant, as the eviction, names what asked for it: the drain of the
// pod's node, also in a reconcile a resync started, which no record
// queued.
func TestABudgetsGrantNamesTheDrain(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	create := reconcilerstest.CreatePod("web-a", "n1", 30)
	create.Labels = map[string]string{"app": "web"}
	env.Pod("web-a", create, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}})
	budgets := env.Writer.PodDisruptionBudgetCommands()
	key := domain.Key{Namespace: "default", Name: "web"}
	if _, err := budgets.Execute(t.Context(), key, domain.CreatePodDisruptionBudget{
		Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-pdb"},
		Spec: domain.PodDisruptionBudgetSpec{MaxUnavailable: &domain.IntOrPercent{Value: 1}, Selector: &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := budgets.Execute(t.Context(), key, domain.RecordPodDisruptionBudgetStatus{Status: domain.PodDisruptionBudgetStatus{
		ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 2, DesiredHealthy: 1, ExpectedPods: 2}}); err != nil {
		t.Fatal(err)
	}
	env.Node("n1", domain.DrainNode{})
	started := env.Last(domain.NodeStream("n1"), domain.NodeDrainStarted{}.EventType())

	reconcilerstest.StartResyncOnly(t, env, r)
	var grant events.Record
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		recs, err := env.Log.Query(t.Context(), events.Filter{Stream: domain.PodDisruptionBudgetStream("default", "web"),
			Types: []string{domain.PodDisruptionGranted{}.EventType()}})
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) > 0 {
			grant = recs[0]
		}
		return len(recs) > 0
	}, "the resync's drain evicts web-a through its budget")
	evicted := env.Last(domain.PodStream("default", "web-a"), domain.PodDeletionRequested{}.EventType())
	for _, rec := range []events.Record{grant, evicted} {
		if rec.Metadata.Actor != "system:herd:drain" || rec.Metadata.CausationID != started.ID {
			t.Errorf("%s %s by %s names cause %q, want the drain's start at %d (%s)", rec.Type, rec.Stream, rec.Metadata.Actor,
				rec.Metadata.CausationID, started.Position, started.ID)
		}
	}
}
