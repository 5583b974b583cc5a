package namespace

import (
	"errors"
	"slices"
	"testing"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
)

// TestDeletingANamespaceDeletesItsWorkloads: a namespace's Job and
// disruption budget are deleted with it, as Kubernetes' namespace
// controller deletes every namespaced kind, so no controller keeps making
// pods in a namespace that is gone; another namespace's are left alone,
// and a Job deleted in the foreground holds the namespace until it goes.
func TestDeletingANamespaceDeletesItsWorkloads(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	jobs := projections.NewJobView(f.Store.Log())
	budgets := projections.NewPodDisruptionBudgetView(f.Store.Log())
	f.r = New(DefaultResyncPeriod, f.Writer, f.namespaces, f.Pods, f.configMaps, f.leases, f.Clock, zap.NewNop(),
		ObjectsOf("Job", jobs.List, f.Writer.JobCommands(), domain.JobDeleted{}, domain.JobCommand(domain.DeleteJob{})),
		ObjectsOf("PodDisruptionBudget", budgets.List, f.Writer.PodDisruptionBudgetCommands(), domain.PodDisruptionBudgetDeleted{},
			domain.PodDisruptionBudgetCommand(domain.DeletePodDisruptionBudget{})))
	one := int32(1)
	for _, ns := range []string{"shop", "lab"} {
		f.namespace(t, ns, domain.CreateNamespace{Meta: domain.ObjectMeta{Name: ns}})
		for _, name := range []string{"pi", "held"} {
			if _, err := f.Writer.JobCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, domain.CreateJob{
				Meta: domain.ObjectMeta{Namespace: ns, Name: name, UID: ns + "-" + name},
				Spec: domain.JobSpec{Parallelism: 1, Completions: &one, BackoffLimit: 6, CompletionMode: domain.JobNonIndexed,
					Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "pi", Image: "perl"}}}}},
			}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.Writer.PodDisruptionBudgetCommands().Execute(ctx, domain.Key{Namespace: ns, Name: "web"}, domain.CreatePodDisruptionBudget{
			Meta: domain.ObjectMeta{Namespace: ns, Name: "web", UID: ns + "-web"},
			Spec: domain.PodDisruptionBudgetSpec{MaxUnavailable: &domain.IntOrPercent{Value: 1}, Selector: &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	// One Job of shop's was being deleted in the foreground already,
	// waiting for its pods.
	if _, err := f.Writer.JobCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "held"}, domain.DeleteJob{Propagation: domain.PropagateForeground}); err != nil {
		t.Fatal(err)
	}

	f.namespace(t, "shop", domain.DeleteNamespace{})
	f.reconcile(t, "shop")
	if _, err := jobs.Get(ctx, "shop", "pi"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("shop/pi after shop's deletion: %v, want it deleted", err)
	}
	if _, err := budgets.Get(ctx, "shop", "web"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("shop's budget after shop's deletion: %v, want it deleted", err)
	}
	if rec := f.Last(domain.JobStream("shop", "pi"), domain.JobDeleted{}.EventType()); rec.Metadata.Actor != "system:herd:namespace" {
		t.Errorf("shop/pi's deletion by %s, want system:herd:namespace", rec.Metadata.Actor)
	}
	if ns, err := f.namespaces.Get(ctx, "shop"); err != nil || domain.NamespacePhase(ns) != domain.PhaseTerminating {
		t.Fatalf("shop while a Job of it is still being deleted: %+v, %v; want Terminating", ns, err)
	}

	// The held Job goes (the garbage collector, once its pods are gone):
	// its deletion wakes the namespace, which goes.
	head := f.Head()
	if _, err := f.Writer.JobCommands().Execute(ctx, domain.Key{Namespace: "shop", Name: "held"}, domain.FinishJobDeletion{}); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, rec := range f.Records(head) {
		for _, k := range f.r.Watches().KeysFor(rec) {
			keys = append(keys, k.String())
		}
	}
	if !slices.Contains(keys, "namespace/shop") {
		t.Fatalf("keys for the held Job's deletion %q, want namespace/shop", keys)
	}
	f.reconcile(t, "shop")
	if _, err := f.namespaces.Get(ctx, "shop"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("shop after its last object went: %v, want it gone", err)
	}
	for _, name := range []string{"pi", "held"} {
		if j, err := jobs.Get(ctx, "lab", name); err != nil || j.Deleting() {
			t.Errorf("lab/%s: %v, deleting %v; want it left alone", name, err, j.Deleting())
		}
	}
	if _, err := budgets.Get(ctx, "lab", "web"); err != nil {
		t.Errorf("lab's budget: %v, want it left alone", err)
	}
}
