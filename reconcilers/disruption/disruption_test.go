package disruption

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// fakeBudgets is a Reader over budgets, and their Executor: it decides
// each command as the unit of work would, at the clock's time.
type fakeBudgets struct {
	budgets map[domain.Key]domain.PodDisruptionBudget
	clock   *clocktesting.FakeClock
	// rv is the next resourceVersion a write gives.
	rv int64
}

var (
	_ Reader                                                                         = (*fakeBudgets)(nil)
	_ domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand] = (*fakeBudgets)(nil)
)

func (f *fakeBudgets) Get(_ context.Context, namespace, name string) (domain.PodDisruptionBudget, error) {
	b, ok := f.budgets[domain.Key{Namespace: namespace, Name: name}]
	if !ok || !b.Exists() {
		return domain.PodDisruptionBudget{}, domain.ErrNotFound
	}
	return b, nil
}

func (f *fakeBudgets) List(_ context.Context, namespace string) ([]domain.PodDisruptionBudget, int64, error) {
	var out []domain.PodDisruptionBudget
	for _, b := range f.budgets {
		if b.Exists() && (namespace == "" || b.Namespace == namespace) {
			out = append(out, b)
		}
	}
	return out, f.rv, nil
}

func (f *fakeBudgets) Execute(_ context.Context, key domain.Key, cmd domain.PodDisruptionBudgetCommand) (domain.PodDisruptionBudget, error) {
	b := f.budgets[key]
	evs, err := domain.DecidePodDisruptionBudget(b, cmd, f.clock.Now())
	if err != nil || len(evs) == 0 {
		return b, err
	}
	for _, e := range evs {
		b = domain.EvolvePodDisruptionBudget(b, e)
	}
	f.rv++
	b.ResourceVersion = f.rv
	f.budgets[key] = b
	return b, nil
}

// fakeReplicaSets reads a fixed set of ReplicaSets.
type fakeReplicaSets map[string]domain.ReplicaSet

func (f fakeReplicaSets) Get(_ context.Context, namespace, name string) (domain.ReplicaSet, error) {
	rs, ok := f[namespace+"/"+name]
	if !ok {
		return domain.ReplicaSet{}, domain.ErrNotFound
	}
	return rs, nil
}

// webRS is a ReplicaSet of replicas web pods.
func webRS(replicas int32) domain.ReplicaSet {
	return domain.ReplicaSet{ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-rs"}, Version: 1, Spec: domain.ReplicaSetSpec{Replicas: replicas}}
}

// pod is a running web pod of the ReplicaSet, ready or not.
func pod(name string, ready bool) domain.Pod {
	st := domain.ConditionFalse
	if ready {
		st = domain.ConditionTrue
	}
	return domain.Pod{Namespace: "default", Name: name, UID: "uid-" + name, Labels: map[string]string{"app": "web"}, Version: 2,
		Owners: []domain.OwnerReference{webRS(0).OwnerReference()},
		Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: st}}}}
}

// orphan is a pod without a controller.
func orphan(p domain.Pod) domain.Pod { p.Owners = nil; return p }

// budget is default/web, selecting the web pods, at generation 1.
func budget(spec domain.PodDisruptionBudgetSpec, st domain.PodDisruptionBudgetStatus) domain.PodDisruptionBudget {
	spec.Selector = &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	return domain.PodDisruptionBudget{ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-pdb", Generation: 1}, Spec: spec, Status: st, Version: 1, ResourceVersion: 5}
}

func maxUnavailable(n int32) domain.PodDisruptionBudgetSpec {
	return domain.PodDisruptionBudgetSpec{MaxUnavailable: &domain.IntOrPercent{Value: n}}
}

// counts is what a test compares of a status.
type counts struct {
	Expected, Desired, Healthy, Allowed int32
	Condition                           string
	Disrupted                           []string
}

func countsOf(st domain.PodDisruptionBudgetStatus) counts {
	c := counts{Expected: st.ExpectedPods, Desired: st.DesiredHealthy, Healthy: st.CurrentHealthy, Allowed: st.DisruptionsAllowed}
	for _, cond := range st.Conditions {
		c.Condition = string(cond.Status) + "/" + cond.Reason
	}
	for name := range st.DisruptedPods {
		c.Disrupted = append(c.Disrupted, name)
	}
	return c
}

func TestReconcileCountsTheBudget(t *testing.T) {
	granted := domain.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptedPods: map[string]time.Time{"web-a": t0.Add(-time.Minute)}}
	expired := domain.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptedPods: map[string]time.Time{"web-a": t0.Add(-3 * time.Minute)}}
	tests := []struct {
		name string
		b    domain.PodDisruptionBudget
		pods []domain.Pod
		rss  fakeReplicaSets
		want counts
	}{
		{"maxUnavailable 1 of a ReplicaSet of 3, all ready", budget(maxUnavailable(1), domain.PodDisruptionBudgetStatus{}),
			[]domain.Pod{pod("web-a", true), pod("web-b", true), pod("web-c", true)}, fakeReplicaSets{"default/web": webRS(3)},
			counts{Expected: 3, Desired: 2, Healthy: 3, Allowed: 1, Condition: "True/SufficientPods"}},
		{"one not ready", budget(maxUnavailable(1), domain.PodDisruptionBudgetStatus{}),
			[]domain.Pod{pod("web-a", true), pod("web-b", false), pod("web-c", true)}, fakeReplicaSets{"default/web": webRS(3)},
			counts{Expected: 3, Desired: 2, Healthy: 2, Allowed: 0, Condition: "False/InsufficientPods"}},
		{"a replacement not yet made counts against the ReplicaSet's scale", budget(maxUnavailable(1), domain.PodDisruptionBudgetStatus{}),
			[]domain.Pod{pod("web-a", true), pod("web-b", true)}, fakeReplicaSets{"default/web": webRS(3)},
			counts{Expected: 3, Desired: 2, Healthy: 2, Allowed: 0, Condition: "False/InsufficientPods"}},
		{"minAvailable 2 of pods without a controller", budget(domain.PodDisruptionBudgetSpec{MinAvailable: &domain.IntOrPercent{Value: 2}}, domain.PodDisruptionBudgetStatus{}),
			[]domain.Pod{orphan(pod("web-a", true)), orphan(pod("web-b", true)), orphan(pod("web-c", true))}, nil,
			counts{Expected: 3, Desired: 2, Healthy: 3, Allowed: 1, Condition: "True/SufficientPods"}},
		{"minAvailable 50% of a ReplicaSet of 5, rounded up", budget(domain.PodDisruptionBudgetSpec{MinAvailable: &domain.IntOrPercent{Value: 50, Percent: true}}, domain.PodDisruptionBudgetStatus{}),
			[]domain.Pod{pod("web-a", true), pod("web-b", true), pod("web-c", true), pod("web-d", true), pod("web-e", true)}, fakeReplicaSets{"default/web": webRS(5)},
			counts{Expected: 5, Desired: 3, Healthy: 5, Allowed: 2, Condition: "True/SufficientPods"}},
		{"a ReplicaSet that is gone: nothing allowed", budget(maxUnavailable(1), domain.PodDisruptionBudgetStatus{DisruptionsAllowed: 1}),
			[]domain.Pod{pod("web-a", true)}, fakeReplicaSets{},
			counts{Condition: "False/SyncFailed"}},
		{"a granted disruption not yet seen is not healthy", budget(maxUnavailable(1), granted),
			[]domain.Pod{pod("web-a", true), pod("web-b", true), pod("web-c", true)}, fakeReplicaSets{"default/web": webRS(3)},
			counts{Expected: 3, Desired: 2, Healthy: 2, Allowed: 0, Condition: "False/InsufficientPods", Disrupted: []string{"web-a"}}},
		{"a granted disruption that timed out is forgotten", budget(maxUnavailable(1), expired),
			[]domain.Pod{pod("web-a", true), pod("web-b", true), pod("web-c", true)}, fakeReplicaSets{"default/web": webRS(3)},
			counts{Expected: 3, Desired: 2, Healthy: 3, Allowed: 1, Condition: "True/SufficientPods"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			budgets := &fakeBudgets{budgets: map[domain.Key]domain.PodDisruptionBudget{tt.b.Key(): tt.b}, clock: clk, rv: 5}
			r, err := New(DefaultConfig(), budgets, reconcilerstest.NewPods(nil, tt.pods...), tt.rss, budgets, clk, zap.NewNop())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Reconcile(t.Context(), budgetKey("default", "web")); err != nil {
				t.Fatal(err)
			}
			got := budgets.budgets[tt.b.Key()]
			// A budget that cannot be counted keeps the generation it
			// was last counted at, as Kubernetes' failSafe does.
			wantGen := int64(1)
			if tt.want.Condition == "False/SyncFailed" {
				wantGen = 0
			}
			if diff := cmp.Diff(tt.want, countsOf(got.Status)); diff != "" || got.Status.ObservedGeneration != wantGen {
				t.Errorf("status (-want +got):\n%s (observed generation %d)", diff, got.Status.ObservedGeneration)
			}
			// Counting again writes nothing.
			before := budgets.rv
			if _, err := r.Reconcile(t.Context(), reconcilerstest.NamespaceKey("default")); err != nil || budgets.rv != before {
				t.Errorf("a second count wrote (%d to %d), %v", before, budgets.rv, err)
			}
		})
	}
}

// TestStaleCountIsNotWritten: a count based on a budget an eviction has
// spent since is not written over it.
func TestStaleCountIsNotWritten(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	b := budget(maxUnavailable(1), domain.PodDisruptionBudgetStatus{})
	budgets := &fakeBudgets{budgets: map[domain.Key]domain.PodDisruptionBudget{b.Key(): b}, clock: clk, rv: 5}
	stale := &staleReader{fakeBudgets: budgets}
	r, err := New(DefaultConfig(), stale, reconcilerstest.NewPods(nil, pod("web-a", true), pod("web-b", true)), fakeReplicaSets{"default/web": webRS(2)}, budgets, clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(t.Context(), budgetKey("default", "web")); err != nil {
		t.Fatalf("a conflict is no failure: %v", err)
	}
	if got := budgets.budgets[b.Key()]; got.Status.ObservedGeneration != 0 {
		t.Errorf("a stale count was written: %+v", got.Status)
	}
}

// staleReader reads budgets at an older resourceVersion than they are.
type staleReader struct{ *fakeBudgets }

func (s *staleReader) Get(ctx context.Context, namespace, name string) (domain.PodDisruptionBudget, error) {
	b, err := s.fakeBudgets.Get(ctx, namespace, name)
	b.ResourceVersion--
	return b, err
}

func TestKeysFor(t *testing.T) {
	r, err := New(DefaultConfig(), &fakeBudgets{}, reconcilerstest.NewPods(nil), fakeReplicaSets{}, &fakeBudgets{}, clocktesting.NewFakeClock(t0), zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	rec := func(stream string, e domain.Event) events.Record {
		return events.Record{Stream: stream, Type: e.EventType()}
	}
	for _, tt := range []struct {
		name string
		rec  events.Record
		want []reconcilers.Key
	}{
		{"a budget created", rec(domain.PodDisruptionBudgetStream("shop", "web"), domain.PodDisruptionBudgetCreated{}), []reconcilers.Key{budgetKey("shop", "web")}},
		{"a disruption granted", rec(domain.PodDisruptionBudgetStream("shop", "web"), domain.PodDisruptionGranted{}), []reconcilers.Key{budgetKey("shop", "web")}},
		{"the budget's own status", rec(domain.PodDisruptionBudgetStream("shop", "web"), domain.PodDisruptionBudgetStatusRecorded{}), nil},
		{"a pod's readiness", rec(domain.PodStream("shop", "web-a"), domain.PodStatusUpdated{}), []reconcilers.Key{reconcilerstest.NamespaceKey("shop")}},
		{"a ReplicaSet scaled", rec(domain.ReplicaSetStream("shop", "web"), domain.ReplicaSetChanged{}), []reconcilers.Key{reconcilerstest.NamespaceKey("shop")}},
	} {
		if diff := cmp.Diff(keyNames(tt.want), keyNames(r.Watches().KeysFor(tt.rec))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		for _, k := range tt.want {
			if !r.Watches().Scope().Takes(k) {
				t.Errorf("%s: the scope refuses %v", tt.name, k)
			}
		}
	}
}

func keyNames(keys []reconcilers.Key) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.String())
	}
	return out
}

// fakeDeployments are Deployments by "namespace/name".
type fakeDeployments map[string]domain.Deployment

func (f fakeDeployments) Get(_ context.Context, namespace, name string) (domain.Deployment, error) {
	d, ok := f[namespace+"/"+name]
	if !ok {
		return domain.Deployment{}, domain.ErrNotFound
	}
	return d, nil
}

// TestADeploymentsScaleIsExpected: in the middle of a rollout a
// budget's pods belong to two ReplicaSets of one Deployment, whose
// replicas (4) are what is expected, as Kubernetes' getPodDeployment
// finder says, not the ReplicaSets' sum (6).
func TestADeploymentsScaleIsExpected(t *testing.T) {
	d := domain.Deployment{ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-d-web"}, Spec: domain.DeploymentSpec{Replicas: 4}, Version: 1}
	old, next := webRS(3), webRS(3)
	old.Owners = []domain.OwnerReference{d.OwnerReference()}
	next.Name, next.UID, next.Owners = "web-2", "uid-rs-web-2", []domain.OwnerReference{d.OwnerReference()}
	var pods []domain.Pod
	for i, rs := range []domain.ReplicaSet{old, old, old, next, next, next} {
		p := pod(fmt.Sprintf("web-%d", i), true)
		p.Owners = []domain.OwnerReference{rs.OwnerReference()}
		pods = append(pods, p)
	}
	clk := clocktesting.NewFakeClock(t0)
	b := budget(maxUnavailable(1), domain.PodDisruptionBudgetStatus{})
	budgets := &fakeBudgets{budgets: map[domain.Key]domain.PodDisruptionBudget{b.Key(): b}, clock: clk, rv: 5}
	r, err := New(DefaultConfig(), budgets, reconcilerstest.NewPods(nil, pods...), fakeReplicaSets{"default/web": old, "default/web-2": next}, budgets, clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.deployments = fakeDeployments{"default/web": d}
	if _, err := r.Reconcile(t.Context(), budgetKey("default", "web")); err != nil {
		t.Fatal(err)
	}
	if got := countsOf(budgets.budgets[b.Key()].Status); got.Expected != 4 || got.Desired != 3 || got.Healthy != 6 || got.Allowed != 3 {
		t.Errorf("counts %+v, want 4 expected, 3 desired, 6 healthy, 3 allowed", got)
	}
}

// budgetKey is the key of the budget namespace/name.
func budgetKey(namespace, name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.PodDisruptionBudgetAggregate, Namespace: namespace, Name: name}
}
