package garbagecollector

import (
	"errors"
	"testing"

	"herd/domain"
	"herd/projections"
)

// dependentKind is one kind of dependent as a test makes and reads it.
type dependentKind struct {
	// create makes default/name owned by owner.
	create func(h *harness, name string, owner domain.OwnerReference)
	// exists says whether default/name exists (not deleted).
	exists func(h *harness, name string) bool
	// stream is default/name's stream and requested the type of the
	// event that asks for its deletion in the foreground, for a kind
	// that owns dependents of its own; "" for one that goes at once.
	stream    func(name string) string
	requested string
}

// dependentKinds are the kinds of dependent besides those the other
// tests cover (ConfigMaps, ReplicaSets, ControllerRevisions).
var dependentKinds = map[string]dependentKind{
	"Lease": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			if _, err := h.env.Writer.LeaseCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateLease{
				Namespace: "default", Name: name, UID: "uid-" + name,
				Content: domain.LeaseContent{Owners: []domain.OwnerReference{owner}},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := projections.NewLeaseView(h.env.Log).Get(h.t.Context(), "default", name)
				return err
			})
		},
	},
	"Job": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			one := int32(1)
			if _, err := h.env.Writer.JobCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateJob{
				Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
				Spec: domain.JobSpec{Parallelism: 1, Completions: &one, BackoffLimit: 6, CompletionMode: domain.JobNonIndexed,
					Template: domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "pi", Image: "perl"}}}}},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := projections.NewJobView(h.env.Log).Get(h.t.Context(), "default", name)
				return err
			})
		},
		stream:    func(name string) string { return domain.JobAggregate.Stream("default/" + name) },
		requested: "JobDeletionRequested",
	},
	"DaemonSet": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			labels := map[string]string{"app": name}
			if _, err := h.env.Writer.DaemonSetCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateDaemonSet{
				Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
				Spec: domain.DaemonSetSpec{Selector: domain.LabelSelector{MatchLabels: labels},
					Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "fluent", Image: "fluent-bit:3"}}}},
					UpdateStrategy: domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetRollingUpdate,
						RollingUpdate: &domain.RollingUpdateDaemonSet{MaxUnavailable: domain.IntOrPercent{Value: 1}}}},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := projections.NewDaemonSetView(h.env.Log).Get(h.t.Context(), "default", name)
				return err
			})
		},
		stream:    func(name string) string { return domain.DaemonSetAggregate.Stream("default/" + name) },
		requested: "DaemonSetDeletionRequested",
	},
	"Deployment": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			labels := map[string]string{"app": name}
			if _, err := h.env.Writer.DeploymentCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateDeployment{
				Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
				Spec: domain.DeploymentSpec{Replicas: 1, Selector: domain.LabelSelector{MatchLabels: labels},
					Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}}},
					Strategy: domain.DeploymentStrategy{Type: domain.RecreateStrategy}, ProgressDeadlineSeconds: 600},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := h.ds.Get(h.t.Context(), "default", name)
				return err
			})
		},
		stream:    func(name string) string { return domain.DeploymentAggregate.Stream("default/" + name) },
		requested: "DeploymentDeletionRequested",
	},
	"StatefulSet": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			labels := map[string]string{"app": name}
			if _, err := h.env.Writer.StatefulSetCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateStatefulSet{
				Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
				Spec: domain.StatefulSetSpec{Replicas: 1, Selector: domain.LabelSelector{MatchLabels: labels},
					Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "i"}}}}},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := projections.NewStatefulSetView(h.env.Log).Get(h.t.Context(), "default", name)
				return err
			})
		},
		stream:    func(name string) string { return domain.StatefulSetAggregate.Stream("default/" + name) },
		requested: "StatefulSetDeletionRequested",
	},
	"CronJob": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			if _, err := h.env.Writer.CronJobCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreateCronJob{
				Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
				Spec: domain.CronJobSpec{Schedule: "*/5 * * * *", JobTemplate: domain.JobTemplate{Spec: domain.JobSpec{Parallelism: 1, BackoffLimit: 6,
					CompletionMode: domain.JobNonIndexed,
					Template:       domain.PodTemplate{Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "c", Image: "i"}}}}}}},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := projections.NewCronJobView(h.env.Log).Get(h.t.Context(), "default", name)
				return err
			})
		},
		stream:    func(name string) string { return domain.CronJobAggregate.Stream("default/" + name) },
		requested: "CronJobDeletionRequested",
	},
	"PodDisruptionBudget": {
		create: func(h *harness, name string, owner domain.OwnerReference) {
			h.t.Helper()
			if _, err := h.env.Writer.PodDisruptionBudgetCommands().Execute(h.t.Context(), domain.Key{Namespace: "default", Name: name}, domain.CreatePodDisruptionBudget{
				Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
				Spec: domain.PodDisruptionBudgetSpec{MaxUnavailable: &domain.IntOrPercent{Value: 1},
					Selector: &domain.LabelSelector{MatchLabels: map[string]string{"app": name}}},
			}); err != nil {
				h.t.Fatal(err)
			}
		},
		exists: func(h *harness, name string) bool {
			return exists(h, func() error {
				_, err := projections.NewPodDisruptionBudgetView(h.env.Log).Get(h.t.Context(), "default", name)
				return err
			})
		},
	},
}

// exists is whether get finds its object: false on ErrNotFound, a
// failed test on any other error.
func exists(h *harness, get func() error) bool {
	h.t.Helper()
	err := get()
	if errors.Is(err, domain.ErrNotFound) {
		return false
	}
	if err != nil {
		h.t.Fatal(err)
	}
	return true
}

// TestEveryKindOfDependentGoesWithItsOwner: a Lease, a Job, a DaemonSet,
// a Deployment, a StatefulSet, a CronJob and a PodDisruptionBudget whose
// one owner, a Deployment, is deleted go with it. In the background each
// goes at once, after it; those which own objects of their own (all but
// the Lease and the budget) are deleted in the background too (no
// deletion asked first). In the foreground each goes before the
// Deployment, which is deleted once none is left; those which own
// objects are deleted in the foreground in turn (their deletion asked first, so that what they own
// goes before them), then finished. One whose owner exists stays.
func TestEveryKindOfDependentGoesWithItsOwner(t *testing.T) {
	for kind, k := range dependentKinds {
		for _, p := range []domain.Propagation{domain.PropagateBackground, domain.PropagateForeground} {
			t.Run(kind+"/"+string(p), func(t *testing.T) {
				h := newHarness(t)
				web := h.deployment("web", "uid-web")
				keep := h.deployment("keep", "uid-keep")
				k.create(h, "of-web", web)
				k.create(h, "of-keep", keep)
				h.reconcile()
				if !k.exists(h, "of-web") {
					t.Fatalf("a %s whose owner exists was deleted", kind)
				}
				h.deleteDeployment("web", p)
				for range 3 {
					h.reconcile()
				}
				if k.exists(h, "of-web") {
					t.Errorf("a %s outlived its one owner, deleted in the %s", kind, p)
				}
				if !k.exists(h, "of-keep") {
					t.Errorf("a %s whose owner exists was deleted", kind)
				}
				if _, err := h.ds.Get(t.Context(), "default", "web"); !errors.Is(err, domain.ErrNotFound) {
					t.Errorf("the Deployment stays, being deleted in the %s, once its %s is gone: %v", p, kind, err)
				}
				if k.requested == "" {
					return
				}
				_, asked := h.env.Newest(k.stream("of-web"), k.requested)
				if want := p == domain.PropagateForeground; asked != want {
					t.Errorf("a %s whose owner was deleted in the %s: %s recorded %v, want %v", kind, p, k.requested, asked, want)
				}
			})
		}
	}
}

// TestAWorkloadOrphanedKeepsRunningWithoutItsOwner: a Deployment, a
// StatefulSet or a CronJob whose owner is deleted with its dependents
// orphaned stays, the reference to that owner taken off by its kind's
// OwnersChanged.
func TestAWorkloadOrphanedKeepsRunningWithoutItsOwner(t *testing.T) {
	for _, kind := range []string{"Deployment", "StatefulSet", "CronJob"} {
		t.Run(kind, func(t *testing.T) {
			h := newHarness(t)
			k := dependentKinds[kind]
			k.create(h, "of-web", h.deployment("web", "uid-web"))
			h.reconcile()
			h.deleteDeployment("web", domain.PropagateOrphan)
			h.reconcile()
			if !k.exists(h, "of-web") {
				t.Fatalf("the orphaned %s was deleted", kind)
			}
			rec, ok := h.env.Newest(k.stream("of-web"), kind+"OwnersChanged")
			if !ok {
				t.Fatalf("no %sOwnersChanged in of-web's stream: %v", kind, h.env.StreamTypes(k.stream("of-web")))
			}
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if owners := ev.(domain.OwnersCarrier).OwnerReferences(); len(owners) != 0 {
				t.Errorf("the orphaned %s still names %+v", kind, owners)
			}
		})
	}
}
