package drain

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

func newReconciler(env *reconcilerstest.Env) *Reconciler {
	return New(DefaultResyncPeriod, env.Writer, env.Pods, env.Nodes, env.Clock, zap.NewNop())
}

func secs(s int64) *int64 { return &s }

func hasCondition(p domain.Pod, c domain.PodConditionType) bool {
	_, ok := p.Condition(c)
	return ok
}

func reconcile(t *testing.T, r *Reconciler, key reconcilers.Key) {
	t.Helper()
	res, err := r.Reconcile(t.Context(), key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	if res != (reconcilers.Result{}) {
		t.Errorf("%s: %+v, want nothing to wait for (pods leaving wake the drain)", key, res)
	}
}

func TestDrainEvictsEveryPod(t *testing.T) {
	tests := []struct {
		name  string
		grace *int64
		// wantDeadline is each pod's deletion deadline after the drain, in
		// seconds: web has a grace period of 30 s; leaving was deleted at
		// 0 with 600 s.
		wantDeadline map[string]int
	}{
		{name: "each pod's own grace period", wantDeadline: map[string]int{"web": 40, "db": 70, "leaving": 600}},
		{name: "the drain's grace period", grace: secs(5), wantDeadline: map[string]int{"web": 15, "db": 15, "leaving": 15}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := reconcilerstest.New(t)
			r := newReconciler(env)
			env.ReadyNode("n1", nil)
			env.ReadyNode("n2", nil)
			env.Pod("web", reconcilerstest.CreatePod("web", "n1", 30))
			env.Pod("db", reconcilerstest.CreatePod("db", "n1", 60))
			env.Pod("leaving", reconcilerstest.CreatePod("leaving", "n1", 600), domain.DeletePod{})
			env.Pod("elsewhere", reconcilerstest.CreatePod("elsewhere", "n2", 30))
			if _, err := env.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "kube-system", Name: "coredns"},
				domain.ObservePod{Namespace: "kube-system", Name: "coredns", Spec: domain.PodSpec{NodeName: "n1"}, Status: domain.PodStatus{Phase: domain.PodRunning}}); err != nil {
				t.Fatal(err)
			}
			env.SetTime(10)
			env.Node("n1", domain.DrainNode{GracePeriodSeconds: tt.grace})
			reconcile(t, r, reconcilerstest.NodeKey("n1"))

			for name, want := range tt.wantDeadline {
				p, _ := env.GetPod(name)
				if !p.Terminating() || !p.Deletion.Deadline.Equal(reconcilerstest.At(want)) {
					t.Errorf("%s: deletion %+v, want a deadline at %ds", name, p.Deletion, want)
				}
			}
			for _, name := range []string{"web", "db"} {
				p, _ := env.GetPod(name)
				want := domain.PodCondition{Type: domain.PodConditionDisruptionTarget, Status: domain.ConditionTrue,
					Reason: domain.ReasonEvictionByEvictionAPI, Message: MessageEviction, LastTransitionTime: reconcilerstest.At(10)}
				if c, _ := p.Condition(domain.PodConditionDisruptionTarget); !cmp.Equal(want, c) {
					t.Errorf("%s: DisruptionTarget %s", name, cmp.Diff(want, c))
				}
			}
			if p, _ := env.GetPod("leaving"); hasCondition(p, domain.PodConditionDisruptionTarget) {
				t.Errorf("a pod already leaving was marked: %+v", p.Status.Conditions)
			}
			if p, _ := env.GetPod("elsewhere"); p.Terminating() {
				t.Error("a pod on another node was evicted")
			}
			if diff := cmp.Diff([]string{"PodObserved"}, env.StreamTypes("pod/kube-system/coredns")); diff != "" {
				t.Errorf("observed pod (-want +got):\n%s", diff)
			}

			// Pods leave one by one; the node is Drained when the last has.
			for i, name := range []string{"web", "db", "leaving"} {
				if n := env.GetNode("n1"); n.AgentState != domain.AgentDraining || !n.Unschedulable {
					t.Fatalf("before %s left: %s, unschedulable %v", name, n.AgentState, n.Unschedulable)
				}
				env.SetTime(20 + i)
				env.Pod(name, domain.FinalizePod{Reason: "Terminated"})
				reconcile(t, r, keyDraining)
			}
			n := env.GetNode("n1")
			if n.AgentState != domain.AgentDrained || !n.Unschedulable || !n.Drain.DrainedAt.Equal(reconcilerstest.At(22)) {
				t.Errorf("after the last pod left: %s, unschedulable %v, drain %+v", n.AgentState, n.Unschedulable, n.Drain)
			}
			// Drained is final until an undrain: nothing more happens.
			env.Pod("late", reconcilerstest.CreatePod("late", "n1", 30))
			reconcile(t, r, reconcilerstest.NodeKey("n1"))
			if p, _ := env.GetPod("late"); p.Terminating() {
				t.Error("a pod bound after the node was drained was evicted")
			}
		})
	}
}

func TestAnEmptyNodeIsDrainedAtOnce(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	env.ReadyNode("idle", nil)
	env.SetTime(5)
	env.Node("n1", domain.DrainNode{})
	reconcile(t, r, reconcilerstest.NodeKey("n1"))
	reconcile(t, r, reconcilerstest.NodeKey("idle"))
	reconcile(t, r, reconcilerstest.NodeKey("gone"))
	if n := env.GetNode("n1"); n.AgentState != domain.AgentDrained || !n.Drain.DrainedAt.Equal(reconcilerstest.At(5)) {
		t.Errorf("n1: %s %+v", n.AgentState, n.Drain)
	}
	if diff := cmp.Diff([]string{"NodeRegistered", "HeartbeatRecorded", "NodeStatusChanged"}, env.NodeTypes("idle")); diff != "" {
		t.Errorf("a node not draining was touched (-want +got):\n%s", diff)
	}
	for _, key := range []reconcilers.Key{reconcilerstest.NodeKey(""), reconcilerstest.PodKey("web")} {
		if r.Watches().Scope().Takes(key) {
			t.Errorf("the drain takes %s", key)
		}
	}
}

func TestKeysAndResync(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	env.Pod("web", reconcilerstest.CreatePod("web", "n1", 30))
	env.Node("n1", domain.DrainNode{})
	env.Pod("web", domain.DeletePod{GracePeriodSeconds: secs(0)})
	env.Pod("web", domain.FinalizePod{Reason: "Terminated"})
	var got []string
	for _, rec := range env.Records(0) {
		got = append(got, reconcilerstest.Strings(r.Watches().KeysFor(rec))...)
	}
	if diff := cmp.Diff([]string{"node/n1", "node/n1", "draining"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if keys := r.Watches().KeysFor(events.Record{Stream: "pod/default/x", Type: "PodScheduled", Payload: []byte("[")}); keys != nil {
		t.Errorf("an unreadable binding: %v", keys)
	}
	if keys, err := r.Resync(t.Context()); err != nil || !cmp.Equal(reconcilerstest.Strings(keys), []string{"draining"}) {
		t.Errorf("resync: %v %v", keys, err)
	}
	if r.ResyncPeriod() != 30*time.Second {
		t.Errorf("resync period %s", r.ResyncPeriod())
	}
}
