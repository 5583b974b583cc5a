package noexecute

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
	return New(DefaultResyncPeriod, env.Writer.PodCommands(), env.Pods, env.Nodes, env.Clock, zap.NewNop())
}

func taint(key string, effect domain.TaintEffect) domain.TaintNode {
	return domain.TaintNode{Taint: domain.Taint{Key: key, Value: "true", Effect: effect}}
}

func tolerate(key string, secs *int64) domain.Toleration {
	return domain.Toleration{Key: key, Operator: domain.TolerationOpExists, Effect: domain.EffectNoExecute, TolerationSeconds: secs}
}

func secs(s int64) *int64 { return &s }

// pod creates default/name bound to n1 with the given tolerations (besides
// the default ones).
func pod(env *reconcilerstest.Env, name string, tols ...domain.Toleration) {
	c := reconcilerstest.CreatePod(name, "n1", 30)
	c.Spec.Tolerations = tols
	env.Pod(name, c)
}

func TestNoExecuteEviction(t *testing.T) {
	tests := []struct {
		name string
		// setup builds the world; it may move the clock.
		setup func(env *reconcilerstest.Env)
		// passes are the seconds at which node n1 is reconciled, and the
		// wake-up each asks for.
		passes      []int
		wantRequeue []time.Duration
		// wantEvicted is when default/web was evicted, -1 for never.
		wantEvicted int
	}{
		{
			name: "a pod that does not tolerate the taint goes at once",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web")
				env.SetTime(5)
				env.Node("n1", taint("maintenance", domain.EffectNoExecute))
			},
			passes:      []int{5},
			wantRequeue: []time.Duration{0},
			wantEvicted: 5,
		},
		{
			name: "tolerationSeconds delays it, counted from the taint",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web", tolerate("maintenance", secs(60)))
				env.SetTime(10)
				env.Node("n1", taint("maintenance", domain.EffectNoExecute))
			},
			passes:      []int{10, 69, 70},
			wantRequeue: []time.Duration{60 * time.Second, time.Second, 0},
			wantEvicted: 70,
		},
		{
			name: "the smallest matching tolerationSeconds wins",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web", tolerate("maintenance", secs(60)), domain.Toleration{Operator: domain.TolerationOpExists, TolerationSeconds: secs(20), Effect: domain.EffectNoExecute})
				env.SetTime(10)
				env.Node("n1", taint("maintenance", domain.EffectNoExecute))
			},
			passes:      []int{10, 30},
			wantRequeue: []time.Duration{20 * time.Second, 0},
			wantEvicted: 30,
		},
		{
			name: "a pod bound after the taint counts from its binding",
			setup: func(env *reconcilerstest.Env) {
				env.Node("n1", taint("maintenance", domain.EffectNoExecute))
				c := reconcilerstest.CreatePod("web", "", 30)
				c.Spec.Tolerations = []domain.Toleration{tolerate("maintenance", secs(60))}
				env.Pod("web", c)
				env.SetTime(50)
				env.Pod("web", domain.BindPod{NodeName: "n1"})
			},
			passes:      []int{50, 110},
			wantRequeue: []time.Duration{60 * time.Second, 0},
			wantEvicted: 110,
		},
		{
			name: "an unbounded toleration keeps it for ever",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web", tolerate("maintenance", nil))
				env.Node("n1", taint("maintenance", domain.EffectNoExecute))
			},
			passes:      []int{0, 100000},
			wantRequeue: []time.Duration{0, 0},
			wantEvicted: -1,
		},
		{
			name: "a taint removed in time cancels the eviction",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web", tolerate("maintenance", secs(60)))
				env.Node("n1", taint("maintenance", domain.EffectNoExecute))
				env.SetTime(30)
				env.Node("n1", domain.UntaintNode{Key: "maintenance"})
			},
			passes:      []int{30, 60, 600},
			wantRequeue: []time.Duration{0, 0, 0},
			wantEvicted: -1,
		},
		{
			name: "NoSchedule evicts nothing",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web")
				env.Node("n1", taint("maintenance", domain.EffectNoSchedule))
			},
			passes:      []int{0},
			wantRequeue: []time.Duration{0},
			wantEvicted: -1,
		},
		{
			name: "the default 300 s tolerations on a NotReady node",
			setup: func(env *reconcilerstest.Env) {
				pod(env, "web")
				env.SetTime(10)
				env.Node("n1", reconcilerstest.Report(domain.ConditionFalse), domain.SyncConditionTaints{})
			},
			passes:      []int{10, 309, 310},
			wantRequeue: []time.Duration{300 * time.Second, time.Second, 0},
			wantEvicted: 310,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := reconcilerstest.New(t)
			r := newReconciler(env)
			env.ReadyNode("n1", nil)
			tt.setup(env)
			for i, s := range tt.passes {
				env.SetTime(s)
				res, err := r.Reconcile(t.Context(), reconcilerstest.NodeKey("n1"))
				if err != nil {
					t.Fatalf("at %ds: %v", s, err)
				}
				if res.RequeueAfter != tt.wantRequeue[i] {
					t.Errorf("at %ds: requeue after %s, want %s", s, res.RequeueAfter, tt.wantRequeue[i])
				}
			}
			p, _ := env.GetPod("web")
			if tt.wantEvicted < 0 {
				if p.Terminating() {
					t.Fatalf("evicted at %s, want never", p.Deletion.RequestedAt)
				}
				return
			}
			if !p.Terminating() {
				t.Fatal("not evicted")
			}
			want := domain.PodDeletion{RequestedAt: reconcilerstest.At(tt.wantEvicted), GracePeriodSeconds: 30, Deadline: reconcilerstest.At(tt.wantEvicted + 30)}
			if diff := cmp.Diff(want, *p.Deletion); diff != "" {
				t.Errorf("deletion (-want +got):\n%s", diff)
			}
			c, _ := p.Condition(domain.PodConditionDisruptionTarget)
			wantCond := domain.PodCondition{Type: domain.PodConditionDisruptionTarget, Status: domain.ConditionTrue,
				Reason: domain.ReasonDeletionByTaintManager, Message: MessageTaintManager, LastTransitionTime: reconcilerstest.At(tt.wantEvicted)}
			if diff := cmp.Diff(wantCond, c); diff != "" {
				t.Errorf("DisruptionTarget (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLeavesAlone(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	// A kubelet's pod herd only observes.
	if _, err := env.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "kube-system", Name: "coredns"},
		domain.ObservePod{Namespace: "kube-system", Name: "coredns", Spec: domain.PodSpec{NodeName: "n1"}, Status: domain.PodStatus{Phase: domain.PodRunning}}); err != nil {
		t.Fatal(err)
	}
	// A pod already being deleted keeps its own deadline.
	pod(env, "leaving")
	env.Pod("leaving", domain.DeletePod{GracePeriodSeconds: secs(600)})
	env.Node("n1", taint("maintenance", domain.EffectNoExecute))
	if _, err := r.Reconcile(t.Context(), reconcilerstest.NodeKey("n1")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"PodObserved"}, env.StreamTypes("pod/kube-system/coredns")); diff != "" {
		t.Errorf("observed pod (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"PodCreated", "PodScheduled", "PodDeletionRequested"}, env.PodTypes("leaving")); diff != "" {
		t.Errorf("terminating pod (-want +got):\n%s", diff)
	}
	for _, key := range []reconcilers.Key{reconcilerstest.NodeKey("gone"), reconcilerstest.NodeKey("n2")} {
		if res, err := r.Reconcile(t.Context(), key); err != nil || res != (reconcilers.Result{}) {
			t.Errorf("%s: %+v %v", key, res, err)
		}
	}
	for _, key := range []reconcilers.Key{reconcilerstest.PodKey("web"), reconcilerstest.NodeKey(""), reconcilers.Pass("n1")} {
		if r.Watches().Scope().Takes(key) {
			t.Errorf("the NoExecute reconciler takes %s", key)
		}
	}
}

func TestKeysAndResync(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	env.ReadyNode("n2", nil)
	env.ReadyNode("n3", nil)
	env.Node("n1", taint("maintenance", domain.EffectNoExecute))
	env.Node("n2", taint("maintenance", domain.EffectNoSchedule))
	pod(env, "web")
	var got []string
	for _, rec := range env.Records(0) {
		got = append(got, reconcilerstest.Strings(r.Watches().KeysFor(rec))...)
	}
	// n1's taint, n2's taint (a NoSchedule one may have replaced a
	// NoExecute one), the binding of web to n1.
	if diff := cmp.Diff([]string{"node/n1", "node/n2", "node/n1"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if keys := r.Watches().KeysFor(events.Record{Stream: "pod/default/x", Type: "PodScheduled", Payload: []byte("{")}); keys != nil {
		t.Errorf("an unreadable binding: %v", keys)
	}
	keys, err := r.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"node/n1"}, reconcilerstest.Strings(keys)); diff != "" {
		t.Errorf("resync (-want +got):\n%s", diff)
	}
}
