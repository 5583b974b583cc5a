package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnUpdateReplacesAWorkloadsOwners: an update (a PUT, or a PATCH
// read into one) of a ReplicaSet, a Deployment, a DaemonSet, a
// StatefulSet, a Job, a CronJob or a PodDisruptionBudget makes its owner
// references those it gives, as kube-apiserver's does: recorded by the
// kind's own event after the update's (its OwnersChanged), so that
// whoever follows ownership from the log sees the new owner. The same
// owners again record nothing more; none given takes them all off.
func TestAnUpdateReplacesAWorkloadsOwners(t *testing.T) {
	updateReplacesOwners(t, "ReplicaSet", func(s ObjectCreated[ReplicaSetSpec, ReplicaSetStatus]) ReplicaSet {
		return EvolveReplicaSet(ReplicaSet{}, s)
	}, sampleRSSpec(), EvolveReplicaSet)
	updateReplacesOwners(t, "Deployment", func(s ObjectCreated[DeploymentSpec, DeploymentStatus]) Deployment {
		return EvolveDeployment(Deployment{}, s)
	}, sampleDeploymentSpec(), EvolveDeployment)
	updateReplacesOwners(t, "DaemonSet", func(s ObjectCreated[DaemonSetSpec, DaemonSetStatus]) DaemonSet {
		return EvolveDaemonSet(DaemonSet{}, s)
	}, sampleDSSpec(), EvolveDaemonSet)
	sts := sampleStatefulSetSpec()
	DefaultStatefulSetSpec(&sts)
	updateReplacesOwners(t, "StatefulSet", func(s ObjectCreated[StatefulSetSpec, StatefulSetStatus]) StatefulSet {
		return EvolveObject(StatefulSet{}, s)
	}, sts, EvolveObject[StatefulSetSpec, StatefulSetStatus])
	updateReplacesOwners(t, "Job", func(s ObjectCreated[JobSpec, JobStatus]) Job {
		return EvolveJob(Job{}, s)
	}, generateJobSelector(sampleJobSpec(), "web", "web-uid"), EvolveJob)
	updateReplacesOwners(t, "CronJob", func(s ObjectCreated[CronJobSpec, CronJobStatus]) CronJob {
		return EvolveObject(CronJob{}, s)
	}, sampleCronJobSpec(), EvolveObject[CronJobSpec, CronJobStatus])
	updateReplacesOwners(t, "PodDisruptionBudget", func(s ObjectCreated[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]) PodDisruptionBudget {
		return EvolvePodDisruptionBudget(PodDisruptionBudget{}, s)
	}, samplePDBSpec(), EvolvePodDisruptionBudget)
}

func updateReplacesOwners[T objectState[S, St], S Spec[S, St], St any](t *testing.T, kind string,
	create func(ObjectCreated[S, St]) T, spec S, evolve func(T, Event) T) {
	t.Helper()
	first := OwnerReference{APIVersion: "example.com/v1", Kind: "App", Name: "shop", UID: "shop-uid", Controller: true}
	second := OwnerReference{APIVersion: "example.com/v1", Kind: "App", Name: "store", UID: "store-uid", Controller: true}
	o := create(ObjectCreated[S, St]{Namespace: "default", Name: "web", UID: "web-uid",
		Labels: map[string]string{"app": "web"}, Owners: []OwnerReference{first}, Spec: spec, At: at(1)})
	if got := o.Model().Owners; len(got) != 1 || got[0].UID != first.UID {
		t.Fatalf("%s as created: owners %+v", kind, got)
	}
	meta := o.Model().ObjectMeta
	update := func(owners []OwnerReference) []Event {
		t.Helper()
		m := meta
		m.Owners = owners
		evs, err := DecideObject(o, Update[S, St]{Meta: m, Spec: o.Model().Spec}, at(2))
		if err != nil {
			t.Fatalf("%s: update with owners %+v: %v", kind, owners, err)
		}
		return evs
	}
	if evs := update([]OwnerReference{first}); len(evs) != 0 {
		t.Errorf("%s: an update with the same owners records %+v, want nothing", kind, evs)
	}
	evs := update([]OwnerReference{second})
	want := []Event{ObjectOwnersChanged[S, St]{Owners: []OwnerReference{second}, At: at(2)}}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Fatalf("%s: an update naming another owner records (-want +got):\n%s", kind, diff)
	}
	if name := evs[0].EventType(); name != kind+"OwnersChanged" {
		t.Errorf("%s: the owners' event is recorded as %q", kind, name)
	}
	after := evolve(o, evs[0])
	if got := after.Model().Owners; len(got) != 1 || got[0].UID != second.UID {
		t.Errorf("%s after the update: owners %+v, want %s's", kind, got, second.Name)
	}
	if evs := update(nil); len(evs) != 1 || len(evs[0].(OwnersCarrier).OwnerReferences()) != 0 {
		t.Errorf("%s: an update naming no owner records %+v, want its owners taken off", kind, evs)
	}
}

// updateTakesOwners says, for a kind on the model (found by its
// created event), its name, its update's event type, and whether the
// update carries the owner references (ObjectKind.UpdateSetsOwners) or
// replaces them by their own event (UpdateReplacesOwners).
func (ObjectCreated[S, St]) updateTakesOwners() (kind, updated string, sets, replaces bool) {
	k := kindOf[S, St]()
	return k.Kind, k.Updated, k.UpdateSetsOwners, k.UpdateReplacesOwners
}

// TestEveryKindsUpdateSaysWhatItDoesWithOwners: kube-apiserver's update
// of any kind makes the object's ownerReferences those the body gives.
// Every kind on the model that has an update says how it does so —
// carried by the update, or replaced by the kind's OwnersChanged after
// it — and one that replaces them has that event; a kind added later
// that says neither would keep the owners it was created with, silently.
func TestEveryKindsUpdateSaysWhatItDoesWithOwners(t *testing.T) {
	kinds := 0
	for _, a := range Aggregates() {
		types := map[string]bool{}
		var created interface {
			updateTakesOwners() (string, string, bool, bool)
		}
		for _, s := range a.Events() {
			types[s.Type] = true
			ev, err := UnmarshalEvent(s.Type, []byte("{}"))
			if err != nil {
				t.Fatalf("%s: %v", s.Type, err)
			}
			if c, ok := ev.(interface {
				updateTakesOwners() (string, string, bool, bool)
			}); ok {
				created = c
			}
		}
		if created == nil {
			continue // not on the model
		}
		kind, updated, sets, replaces := created.updateTakesOwners()
		if updated == "" {
			continue // no update: a Namespace changes its metadata alone
		}
		kinds++
		switch {
		case sets == replaces:
			t.Errorf("%s's update sets owners %v and replaces them %v: it must do exactly one", kind, sets, replaces)
		case replaces && !types[kind+"OwnersChanged"]:
			t.Errorf("%s's update replaces its owners, but its log has no %sOwnersChanged to record them", kind, kind)
		}
	}
	if kinds < 10 {
		t.Errorf("%d kinds on the model with an update found, want at least 10", kinds)
	}
}
