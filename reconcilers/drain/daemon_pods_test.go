package drain

import (
	"testing"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// TestDrainLeavesDaemonSetPods: a drain evicts the node's other pods and
// leaves those of a DaemonSet, as kubectl drain --ignore-daemonsets
// does; the node is Drained once the others are gone, the DaemonSet's
// pod still on it. A DaemonSet's pod that finished is evicted as any.
func TestDrainLeavesDaemonSetPods(t *testing.T) {
	env := reconcilerstest.New(t)
	r := newReconciler(env)
	env.ReadyNode("n1", nil)
	daemon := func(name string) domain.CreatePod {
		c := reconcilerstest.CreatePod(name, "n1", 30)
		c.Owners = []domain.OwnerReference{{APIVersion: "apps/v1", Kind: domain.KindDaemonSet, Name: "logs", UID: "ds-logs", Controller: true}}
		return c
	}
	env.Pod("logs-a", daemon("logs-a"))
	env.Pod("logs-b", daemon("logs-b"), domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodSucceeded}})
	env.Pod("web", reconcilerstest.CreatePod("web", "n1", 30))
	env.SetTime(10)
	env.Node("n1", domain.DrainNode{})
	reconcile(t, r, reconcilerstest.NodeKey("n1"))
	for name, evicted := range map[string]bool{"logs-a": false, "logs-b": true, "web": true} {
		if p, _ := env.GetPod(name); (p.Terminating() || !p.Exists()) != evicted {
			t.Errorf("%s: evicted %v, want %v", name, p.Terminating() || !p.Exists(), evicted)
		}
	}
	env.SetTime(12)
	env.Pod("web", domain.FinalizePod{Reason: "Terminated"})
	reconcile(t, r, keyDraining)
	if n := env.GetNode("n1"); n.AgentState != domain.AgentDrained {
		t.Errorf("n1 is %s with only a DaemonSet's pod left, want Drained", n.AgentState)
	}
	if p, _ := env.GetPod("logs-a"); p.Terminating() || p.Spec.NodeName != "n1" {
		t.Errorf("the DaemonSet's pod after the drain: %+v", p)
	}
}
