package podready

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

func newReconciler(env *reconcilerstest.Env) *Reconciler {
	return New(env.Writer.PodBatch(), env.Pods, env.Nodes, zap.NewNop())
}

// running is a pod's status as its runtime reports it once it runs:
// Running, and Ready as given.
func running(ready domain.ConditionStatus) domain.UpdatePodStatus {
	return domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning,
		Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: ready}}}}
}

// ready is whether default/name's Ready is True.
func ready(env *reconcilerstest.Env, name string) bool {
	p, _ := env.GetPod(name)
	return domain.PodReady(p)
}

func TestMarksTheReadyPodsOfANodeThatIsNotReady(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	env.ReadyNode("n2", nil)
	env.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), running(domain.ConditionTrue))
	env.Pod("db", reconcilerstest.CreatePod("db", "n1", 30), running(domain.ConditionTrue))
	env.Pod("starting", reconcilerstest.CreatePod("starting", "n1", 30))
	env.Pod("crashing", reconcilerstest.CreatePod("crashing", "n1", 30), running(domain.ConditionFalse))
	env.Pod("elsewhere", reconcilerstest.CreatePod("elsewhere", "n2", 30), running(domain.ConditionTrue))
	observeDNS := func() {
		t.Helper()
		if _, err := env.Writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "kube-system", Name: "dns"},
			domain.ObservePod{Namespace: "kube-system", Name: "dns", Spec: domain.PodSpec{NodeName: "n1"},
				Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}}); err != nil {
			t.Fatal(err)
		}
	}
	observeDNS()
	reconcilerstest.StartManager(t, reconcilers.Params{Reconcilers: []reconcilers.Reconciler{r}, Log: env.Log, Clock: env.Clock})

	env.SetTime(40)
	env.Node("n1", reconcilerstest.MarkSilent())
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return !ready(env, "web") && !ready(env, "db") },
		"the Ready pods of the silent node are marked not ready")
	missed := env.Last(domain.NodeStream("n1"), domain.HeartbeatMissed{}.EventType())
	for _, name := range []string{"web", "db"} {
		rec := env.Last(domain.PodStream("default", name), domain.PodMarkedNotReady{}.EventType())
		if rec.Metadata.CausationID != missed.ID || rec.Metadata.Actor != "system:herd:podready" {
			t.Errorf("%s's mark: cause %q by %s, want the node's HeartbeatMissed %q by system:herd:podready", name, rec.Metadata.CausationID, rec.Metadata.Actor, missed.ID)
		}
		p, _ := env.GetPod(name)
		if c, _ := p.Condition(domain.PodConditionReady); c.LastTransitionTime != reconcilerstest.At(40) || p.Status.Phase != domain.PodRunning {
			t.Errorf("%s: Ready turned at %v, phase %s; want at the mark, still Running", name, c.LastTransitionTime, p.Status.Phase)
		}
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		p, _ := env.Pods.Get(t.Context(), "kube-system", "dns")
		return !domain.PodReady(p)
	}, "a kubelet's Ready pod on the silent node is marked too")
	if rec := env.Last("pod/kube-system/dns", domain.PodMarkedNotReady{}.EventType()); rec.Metadata.CausationID != missed.ID {
		t.Errorf("the kubelet's pod's mark: cause %q, want the node's HeartbeatMissed %q", rec.Metadata.CausationID, missed.ID)
	}
	for name, want := range map[string][]string{
		"starting":  {"PodCreated", "PodScheduled"},
		"crashing":  {"PodCreated", "PodScheduled", "PodStatusUpdated"},
		"elsewhere": {"PodCreated", "PodScheduled", "PodStatusUpdated"},
	} {
		if diff := cmp.Diff(want, env.PodTypes(name)); diff != "" {
			t.Errorf("%s, which was not Ready or is on a Ready node (-want +got):\n%s", name, diff)
		}
	}

	// Its runtime reports one of them Ready while the node still is not
	// (it raced the mark): marked again, for the same cause.
	env.Pod("web", running(domain.ConditionTrue))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return !ready(env, "web") }, "a Ready reported on the silent node is marked again")
	if rec := env.Last(domain.PodStream("default", "web"), domain.PodMarkedNotReady{}.EventType()); rec.Metadata.CausationID != missed.ID {
		t.Errorf("the second mark's cause %q, want the node's HeartbeatMissed %q", rec.Metadata.CausationID, missed.ID)
	}

	// A node that reports Ready False itself.
	env.Node("n2", reconcilerstest.Report(domain.ConditionFalse))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return !ready(env, "elsewhere") }, "the pod of the node that reported NotReady is marked")
	notReady := env.Last(domain.NodeStream("n2"), domain.NodeConditionChanged{}.EventType())
	if rec := env.Last(domain.PodStream("default", "elsewhere"), domain.PodMarkedNotReady{}.EventType()); rec.Metadata.CausationID != notReady.ID {
		t.Errorf("elsewhere's mark: cause %q, want n2's Ready turning False %q", rec.Metadata.CausationID, notReady.ID)
	}

	// A node whose agent stops cleanly: Ready False, no heartbeat missed.
	env.ReadyNode("n3", nil)
	env.Pod("cache", reconcilerstest.CreatePod("cache", "n3", 30), running(domain.ConditionTrue))
	env.Node("n3", domain.DeregisterNode{})
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return !ready(env, "cache") }, "the pod of the node whose agent stopped is marked")
	stopped := env.Last(domain.NodeStream("n3"), domain.NodeConditionChanged{}.EventType())
	if rec := env.Last(domain.PodStream("default", "cache"), domain.PodMarkedNotReady{}.EventType()); rec.Metadata.CausationID != stopped.ID {
		t.Errorf("cache's mark: cause %q, want n3's Ready turning False at the agent's stop %q", rec.Metadata.CausationID, stopped.ID)
	}

	// Back: Ready again, as its runtime and the kubelet (its poller
	// reporting the same pods anew after the outage) say, and no longer
	// marked.
	env.Node("n1", reconcilerstest.Report(domain.ConditionTrue))
	env.Pod("db", running(domain.ConditionTrue))
	observeDNS()
	head := env.Head()
	for _, key := range []reconcilers.Key{reconcilerstest.NodeKey("n1"), reconcilerstest.PodKey("db"), {Aggregate: domain.PodAggregate, Namespace: "kube-system", Name: "dns"}} {
		if _, err := r.Reconcile(t.Context(), key); err != nil {
			t.Fatal(err)
		}
	}
	dns, _ := env.Pods.Get(t.Context(), "kube-system", "dns")
	if env.Head() != head || !ready(env, "db") || !domain.PodReady(dns) {
		t.Errorf("a Ready node's pod was marked: head %d → %d, db ready %v, dns ready %v", head, env.Head(), ready(env, "db"), domain.PodReady(dns))
	}
}

func TestKeys(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	env.ReadyNode("n2", nil)
	env.Pod("web", reconcilerstest.CreatePod("web", "n1", 30), running(domain.ConditionTrue))
	env.Node("n1", reconcilerstest.MarkSilent())
	env.Node("n2", reconcilerstest.Report(domain.ConditionFalse))
	var got []string
	for _, rec := range env.Records(0) {
		got = append(got, reconcilerstest.Strings(r.Watches().KeysFor(rec))...)
	}
	// n1 and n2 reporting Ready, web's binding to n1, its status, n1
	// marked silent, n2 reporting NotReady (its Ready turning, then
	// leaving True).
	if diff := cmp.Diff([]string{"node/n1", "node/n2", "node/n1", "pod/default/web", "node/n1", "node/n2"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if keys := r.Watches().KeysFor(events.Record{Stream: "pod/default/x", Type: "PodScheduled", Payload: []byte("{")}); keys != nil {
		t.Errorf("an unreadable binding: %v", keys)
	}
	for _, key := range []reconcilers.Key{reconcilerstest.NodeKey("gone"), reconcilerstest.PodKey("gone")} {
		if res, err := r.Reconcile(t.Context(), key); err != nil || res != (reconcilers.Result{}) {
			t.Errorf("%s: %+v %v", key, res, err)
		}
	}
}
