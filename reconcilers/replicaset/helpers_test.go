package replicaset

import (
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// at is the tests' T0 plus s seconds.
func at(s int) time.Time { return reconcilerstest.At(s) }

// webLabels are the labels of web's template; its selector is app=web.
func webLabels() map[string]string { return map[string]string{"app": "web", "tier": "front"} }

// webRS is the ReplicaSet default/web, at generation 2, keeping replicas
// pods labelled app=web.
func webRS(replicas int32) domain.ReplicaSet {
	return domain.ReplicaSet{
		ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "rs-web", Generation: 2},
		Version:    3,
		Spec: domain.ReplicaSetSpec{
			Replicas: replicas,
			Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: domain.PodTemplate{Labels: webLabels(), Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx"}}}},
		},
	}
}

// apiOwner is the controller reference of another ReplicaSet, api.
var apiOwner = domain.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api", UID: "rs-api", Controller: true}

// podOpt changes a test pod.
type podOpt func(*domain.Pod)

// pod is herd's pod default/name controlled by web: created at 0,
// running on n1 and ready since 0, unless opts say otherwise.
func pod(name string, opts ...podOpt) domain.Pod {
	p := domain.Pod{
		Namespace: "default", Name: name, UID: "uid-" + name, Version: 3, CreatedAt: at(0),
		Labels: webLabels(), Owners: []domain.OwnerReference{webRS(0).OwnerReference()},
		Spec: domain.PodSpec{NodeName: "n1", TerminationGracePeriodSeconds: 30, Containers: []domain.Container{{Name: "web", Image: "nginx"}}},
		Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue, LastTransitionTime: at(0)},
		}},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

func createdAt(s int) podOpt { return func(p *domain.Pod) { p.CreatedAt = at(s) } }

func onNode(n string) podOpt { return func(p *domain.Pod) { p.Spec.NodeName = n } }

// unscheduled is a pod bound to no node: pending, not ready.
func unscheduled(p *domain.Pod) {
	p.Spec.NodeName = ""
	p.Status = domain.PodStatus{Phase: domain.PodPending}
}

// notReady is a running pod whose Ready condition is False.
func notReady(p *domain.Pod) {
	p.Status.Conditions = []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionFalse, LastTransitionTime: at(0)}}
}

func readyAt(s int) podOpt {
	return func(p *domain.Pod) { p.Status.Conditions[0].LastTransitionTime = at(s) }
}

func phase(ph domain.PodPhase) podOpt { return func(p *domain.Pod) { p.Status.Phase = ph } }

func owners(o ...domain.OwnerReference) podOpt { return func(p *domain.Pod) { p.Owners = o } }

func labels(l map[string]string) podOpt { return func(p *domain.Pod) { p.Labels = l } }

func annotated(k, v string) podOpt {
	return func(p *domain.Pod) { p.Annotations = map[string]string{k: v} }
}

func inNamespace(ns string) podOpt { return func(p *domain.Pod) { p.Namespace = ns } }

func observed(p *domain.Pod) { p.Source = domain.SourceKubelet }

func terminating(p *domain.Pod) {
	p.Deletion = &domain.PodDeletion{RequestedAt: at(0), GracePeriodSeconds: 30, Deadline: at(30)}
}

// counting are identities that count: suffixes p0000, p0001, ... and
// UIDs uid-0, uid-1, ...
func counting() Identities {
	var names, uids int
	return Identities{
		Suffix: func() string { names++; return fmt.Sprintf("p%04d", names-1) },
		UID:    func() string { uids++; return fmt.Sprintf("uid-%d", uids-1) },
	}
}

// world is a reconciler on fakes, with its clock.
type world struct {
	r     *Reconciler
	sets  *fakeReplicaSets
	pods  *fakePods
	clock *clocktesting.FakePassiveClock
}

// newWorld is a reconciler over sets and pods at t, with cfg.
func newWorld(t *testing.T, cfg Config, sets []domain.ReplicaSet, pods []domain.Pod, now time.Time) *world {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(now)
	w := &world{sets: newFakeReplicaSets(clk.Now, sets...), pods: newFakePods(clk.Now, pods...), clock: clk}
	r, err := New(cfg, w.sets, w.pods, w.pods, w.sets, clk, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.IDs = counting()
	w.r = r
	return w
}

// webKey is the key of default/web.
var webKey = rsKey("default", "web")

// reconcile reconciles key, and returns what it wrote.
func (w *world) reconcile(t *testing.T, key reconcilers.Key) (reconcilers.Result, error) {
	t.Helper()
	w.pods.Written, w.sets.Written = map[string][]string{}, map[string][]string{}
	return w.r.Reconcile(t.Context(), key)
}

// rsKey is the key of the ReplicaSet namespace/name.
func rsKey(namespace, name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.ReplicaSetAggregate, Namespace: namespace, Name: name}
}
