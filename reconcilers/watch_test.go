package reconcilers_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestWatchesDerivesTheKeysOfOwnAndOwnedKinds: a ReplicaSet's own events
// reach it but the status it records; a pod's reach the ReplicaSet that
// controls it, read from the owner references of the events that carry
// them (its creation, its observation from a kubelet, a change of
// owners), both the old and the new controller on a change, and the
// recorded one for every other event until the pod is finalized.
func TestWatchesDerivesTheKeysOfOwnAndOwnedKinds(t *testing.T) {
	ix := reconcilers.NewOwnerIndex("ReplicaSet")
	w := reconcilers.Watch().
		For(domain.ReplicaSetAggregate, domain.ReplicaSetStatusRecorded{}).
		Owns(domain.PodAggregate, ix, domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...)
	owner := func(name string) []domain.OwnerReference {
		return []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, Controller: true}}
	}
	const rs, pod, observed = "replicaset/shop/web", "pod/shop/web-1", "pod/shop/seen-1"
	for _, step := range []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"the ReplicaSet created", reconcilerstest.Record(t, rs, domain.ReplicaSetCreated{}), []string{rs}},
		{"the ReplicaSet's own status", reconcilerstest.Record(t, rs, domain.ReplicaSetStatusRecorded{}), nil},
		{"its pod created", reconcilerstest.Record(t, pod, domain.PodCreated{Owners: owner("web")}), []string{rs}},
		{"its pod bound, which it does not count", reconcilerstest.Record(t, pod, domain.PodScheduled{NodeName: "n1"}), nil},
		{"its pod's status", reconcilerstest.Record(t, pod, domain.PodStatusUpdated{}), []string{rs}},
		{"its pod adopted by another", reconcilerstest.Record(t, pod, domain.PodOwnersChanged{Owners: owner("api")}), []string{rs, "replicaset/shop/api"}},
		{"its pod's metadata, now the other's", reconcilerstest.Record(t, pod, domain.PodMetadataChanged{}), []string{"replicaset/shop/api"}},
		{"its pod finalized", reconcilerstest.Record(t, pod, domain.PodFinalized{}), []string{"replicaset/shop/api"}},
		{"the finalized pod's stray event", reconcilerstest.Record(t, pod, domain.PodStatusUpdated{}), nil},
		{"a pod observed from its kubelet, controlled", reconcilerstest.Record(t, observed, domain.PodObserved{Owners: owner("web")}), []string{rs}},
		{"the observed pod's status", reconcilerstest.Record(t, observed, domain.PodStatusUpdated{}), []string{rs}},
		{"an orphan created", reconcilerstest.Record(t, "pod/shop/orphan", domain.PodCreated{}), nil},
		{"a node's event", reconcilerstest.Record(t, "node/n1", domain.NodeLabelsChanged{}), nil},
	} {
		if diff := cmp.Diff(step.want, reconcilerstest.Strings(w.KeysFor(step.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}
	if got := ix.Get(domain.Key{Namespace: "shop", Name: "web-1"}); got != "" {
		t.Errorf("the finalized pod is still indexed, under %q", got)
	}
}

// TestAnUpdateThatLeavesTheOwnersKeepsTheController: a ReplicaSet's
// update carries no owner references (its owners change by an event of
// their own), so the Deployment that controls it stays its controller
// through the update, and the ReplicaSet's later status still reaches it;
// a ConfigMap's update sets its owners, so one that names none releases
// it.
func TestAnUpdateThatLeavesTheOwnersKeepsTheController(t *testing.T) {
	ix := reconcilers.NewOwnerIndex("Deployment")
	w := reconcilers.Watch().
		For(domain.DeploymentAggregate, domain.DeploymentStatusRecorded{}).
		Owns(domain.ReplicaSetAggregate, ix, domain.ReplicaSetDeleted{})
	owner := []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Controller: true}}
	const rs, d = "replicaset/shop/web-1", "deployment/shop/web"
	for _, step := range []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"the ReplicaSet created by its Deployment", reconcilerstest.Record(t, rs, domain.ReplicaSetCreated{Owners: owner}), []string{d}},
		{"the ReplicaSet scaled", reconcilerstest.Record(t, rs, domain.ReplicaSetChanged{Generation: 2}), []string{d}},
		{"the ReplicaSet's status after", reconcilerstest.Record(t, rs, domain.ReplicaSetStatusRecorded{}), []string{d}},
		{"the ReplicaSet released", reconcilerstest.Record(t, rs, domain.ReplicaSetOwnersChanged{}), []string{d}},
		{"the released ReplicaSet's status", reconcilerstest.Record(t, rs, domain.ReplicaSetStatusRecorded{}), nil},
	} {
		if diff := cmp.Diff(step.want, reconcilerstest.Strings(w.KeysFor(step.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}

	cms := reconcilers.NewOwnerIndex("Deployment")
	cw := reconcilers.Watch().
		For(domain.DeploymentAggregate).
		Owns(domain.ConfigMapAggregate, cms, domain.ConfigMapDeleted{})
	const cm = "configmap/shop/web"
	for _, step := range []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"a ConfigMap created with an owner", reconcilerstest.Record(t, cm, domain.ConfigMapCreated{Owners: owner}), []string{d}},
		{"its update naming no owner", reconcilerstest.Record(t, cm, domain.ConfigMapUpdated{}), []string{d}},
		{"its next update", reconcilerstest.Record(t, cm, domain.ConfigMapUpdated{}), nil},
	} {
		if diff := cmp.Diff(step.want, reconcilerstest.Strings(cw.KeysFor(step.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}
}

// TestWatchesUnionsItsMappingsAndDerivesItsScope: a record that several
// mappings are declared for gives each key once, in the order declared;
// the scope is the For and Takes kinds and the passes.
func TestWatchesUnionsItsMappingsAndDerivesItsScope(t *testing.T) {
	pending := reconcilers.Pass("pending")
	w := reconcilers.Watch().
		For(domain.NodeAggregate, domain.HeartbeatRecorded{}).
		Takes(domain.NamespaceAggregate).
		Passes(pending).
		Watches(reconcilers.EventTypesOf(domain.NodeTainted{}), reconcilers.ToPass(pending)).
		Watches(reconcilers.EventTypesOf(domain.NodeTainted{}), reconcilers.KeysOf).
		Watches(reconcilers.EventTypesOf(domain.PodFinalized{}), reconcilers.ToNamespace)
	for _, step := range []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"a taint", reconcilerstest.Record(t, "node/n1", domain.NodeTainted{}), []string{"node/n1", "pending"}},
		{"a heartbeat missed, which holds a taint", reconcilerstest.Record(t, "node/n1", domain.HeartbeatMissed{}), []string{"node/n1", "pending"}},
		{"a heartbeat, excepted", reconcilerstest.Record(t, "node/n1", domain.HeartbeatRecorded{}), nil},
		{"a pod's end", reconcilerstest.Record(t, "pod/shop/web-1", domain.PodFinalized{}), []string{"namespace/shop"}},
		{"an event of a type nobody declared", events.Record{Stream: "node/n1", Type: "Happened"}, nil},
	} {
		if diff := cmp.Diff(step.want, reconcilerstest.Strings(w.KeysFor(step.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}
	want := reconcilers.Scope{Aggregates: []*domain.Aggregate{domain.NodeAggregate, domain.NamespaceAggregate}, Passes: []reconcilers.Key{pending}}
	if diff := cmp.Diff(want, w.Scope(), cmp.Comparer(func(a, b *domain.Aggregate) bool { return a == b })); diff != "" {
		t.Errorf("scope (-want +got):\n%s", diff)
	}
}

// TestWatchesRefusesADeclarationThatCannotHold: an exception that is not
// an event of the kind, Owns before For, an owned kind's end that is not
// one of its events and a kind owned twice are programming errors, caught when the
// reconciler is built.
func TestWatchesRefusesADeclarationThatCannotHold(t *testing.T) {
	for name, declare := range map[string]func(){
		"an exception of another kind": func() { reconcilers.Watch().For(domain.ReplicaSetAggregate, domain.PodFinalized{}) },
		"Owns without For": func() {
			reconcilers.Watch().Owns(domain.PodAggregate, reconcilers.NewOwnerIndex("Job"), domain.PodFinalized{})
		},
		"an end of another kind": func() {
			reconcilers.Watch().For(domain.JobAggregate).Owns(domain.PodAggregate, reconcilers.NewOwnerIndex("Job"), domain.JobDeleted{})
		},
		"a kind owned twice": func() {
			reconcilers.Watch().For(domain.JobAggregate).
				Owns(domain.PodAggregate, reconcilers.NewOwnerIndex("Job"), domain.PodFinalized{}).
				Owns(domain.PodAggregate, reconcilers.NewOwnerIndex("Job"), domain.PodFinalized{})
		},
		"an end excepted": func() {
			reconcilers.Watch().For(domain.JobAggregate).Owns(domain.PodAggregate, reconcilers.NewOwnerIndex("Job"), domain.PodFinalized{}, domain.PodFinalized{})
		},
		"Adopts without Owns": func() { reconcilers.Watch().For(domain.JobAggregate).Adopts(reconcilers.NewSelectorIndex()) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("declared without a panic")
				}
			}()
			declare()
		})
	}
}

// TestAnOwnedEventThatCannotBeReadIsReported: a pod's creation whose
// payload does not decode maps to no key and is reported, for the runner
// to count; the pod's other events still map through the index.
func TestAnOwnedEventThatCannotBeReadIsReported(t *testing.T) {
	h := newHarness(t)
	ix := reconcilers.NewOwnerIndex("ReplicaSet")
	f := newFakeReconciler("owner")
	m := h.start(config(), &owning{fakeReconciler: f, ix: ix})
	h.append("pod/shop/web-1", 1, domain.PodCreated{}.EventType(), `{"owners": 5}`)
	h.caughtUp(m, "owner")
	if got := h.value("herd_reconciler_poison_total", "owner"); got != 1 {
		t.Errorf("herd_reconciler_poison_total = %v, want 1", got)
	}
	if calls := f.Calls(); len(calls) != 0 {
		t.Errorf("reconciled %v, want nothing", calls)
	}
}

// owning is a fakeReconciler that owns pods.
type owning struct {
	*fakeReconciler
	ix *reconcilers.OwnerIndex
}

func (o *owning) Watches() *reconcilers.Watches {
	return reconcilers.Watch().For(domain.ReplicaSetAggregate).Owns(domain.PodAggregate, o.ix, domain.PodFinalized{})
}

// TestABindingMapsToItsNode: a pod's binding maps to the node it names;
// one that cannot be decoded maps to none.
func TestABindingMapsToItsNode(t *testing.T) {
	w := reconcilers.Watch()
	w.Takes(domain.NodeAggregate).Watches(reconcilers.EventTypesOf(domain.PodScheduled{}), w.ToBoundNode)
	if diff := cmp.Diff([]string{"node/n1"}, reconcilerstest.Strings(w.KeysFor(reconcilerstest.Record(t, "pod/shop/web-1", domain.PodScheduled{NodeName: "n1"})))); diff != "" {
		t.Errorf("a binding (-want +got):\n%s", diff)
	}
	garbled := events.Record{Stream: "pod/shop/web-1", Type: domain.PodScheduled{}.EventType(), Payload: []byte("[")}
	if got := w.KeysFor(garbled); got != nil {
		t.Errorf("a binding that cannot be read maps to %v", got)
	}
}

// TestAnOrphanMapsToTheOwnersWhoseSelectorMatchesIt: with Adopts, a pod
// created without a controller, or relabelled while no
// ReplicaSet controls it, reaches every ReplicaSet of its namespace whose
// selector matches its labels, as the index holds them; one with a
// controller, of this kind or another, reaches no other; a ReplicaSet
// forgotten (gone, or being deleted) adopts nothing. Without Adopts an
// orphan reaches none (TestWatchesDerivesTheKeysOfOwnAndOwnedKinds).
func TestAnOrphanMapsToTheOwnersWhoseSelectorMatchesIt(t *testing.T) {
	ix, sx := reconcilers.NewOwnerIndex("ReplicaSet"), reconcilers.NewSelectorIndex()
	w := reconcilers.Watch().
		For(domain.ReplicaSetAggregate, domain.ReplicaSetStatusRecorded{}).
		Owns(domain.PodAggregate, ix, domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...).
		Adopts(sx)
	app := func(v string) domain.LabelSelector {
		return domain.LabelSelector{MatchLabels: map[string]string{"app": v}}
	}
	sx.Set(domain.Key{Namespace: "shop", Name: "web"}, app("web"))
	sx.Set(domain.Key{Namespace: "shop", Name: "web-canary"}, domain.LabelSelector{MatchExpressions: []domain.SelectorRequirement{
		{Key: "app", Operator: domain.SelectorIn, Values: []string{"web"}}}})
	sx.Set(domain.Key{Namespace: "shop", Name: "api"}, app("api"))
	sx.Set(domain.Key{Namespace: "other", Name: "web"}, app("web"))
	sx.Set(domain.Key{Namespace: "shop", Name: "everything"}, domain.LabelSelector{})
	web := map[string]string{"app": "web"}
	controller := func(kind, name string) []domain.OwnerReference {
		return []domain.OwnerReference{{APIVersion: "v1", Kind: kind, Name: name, Controller: true}}
	}
	for _, step := range []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"an orphan created with web's labels", reconcilerstest.Record(t, "pod/shop/hand", domain.PodCreated{Labels: web}),
			[]string{"replicaset/shop/web", "replicaset/shop/web-canary"}},
		{"an orphan observed from its kubelet, which is not herd's to adopt", reconcilerstest.Record(t, "pod/shop/seen",
			domain.PodObserved{Labels: map[string]string{"app": "api"}}), nil},
		{"an orphan whose labels no selector matches", reconcilerstest.Record(t, "pod/shop/lone", domain.PodCreated{Labels: map[string]string{"app": "db"}}), nil},
		{"the orphan relabelled", reconcilerstest.Record(t, "pod/shop/lone", domain.PodMetadataChanged{Labels: map[string]string{"app": "api"}}),
			[]string{"replicaset/shop/api"}},
		{"a pod with an owner that is no controller", reconcilerstest.Record(t, "pod/shop/owned", domain.PodCreated{Labels: web,
			Owners: []domain.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c"}}}), []string{"replicaset/shop/web", "replicaset/shop/web-canary"}},
		{"a pod a Job controls", reconcilerstest.Record(t, "pod/shop/job-1", domain.PodCreated{Labels: web, Owners: controller("Job", "j")}), nil},
		{"a pod web controls", reconcilerstest.Record(t, "pod/shop/web-1", domain.PodCreated{Labels: web, Owners: controller("ReplicaSet", "web")}),
			[]string{"replicaset/shop/web"}},
		{"its relabelling", reconcilerstest.Record(t, "pod/shop/web-1", domain.PodMetadataChanged{Labels: map[string]string{"app": "api"}}),
			[]string{"replicaset/shop/web"}},
		{"an orphan's status", reconcilerstest.Record(t, "pod/shop/hand", domain.PodStatusUpdated{}), nil},
	} {
		if diff := cmp.Diff(step.want, reconcilerstest.Strings(w.KeysFor(step.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}
	sx.Forget(domain.Key{Namespace: "shop", Name: "web-canary"})
	if got := reconcilerstest.Strings(w.KeysFor(reconcilerstest.Record(t, "pod/shop/hand2", domain.PodCreated{Labels: web}))); !cmp.Equal(got, []string{"replicaset/shop/web"}) {
		t.Errorf("after web-canary is forgotten, an orphan of web's labels reaches %v, want web alone", got)
	}
}
