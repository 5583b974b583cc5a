package daemonset

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

// TestOnePodOnEveryNodeThatFits: a DaemonSet makes one pod on every node
// that fits it, bound there at once — not on a kubelet's node, a Pico
// with room for no pod, a node an operator keeps off with a taint, a
// node not yet Ready — and one on a cordoned node and one under memory
// pressure, which its pods tolerate; its status counts them; a second
// reconcile writes nothing.
func TestOnePodOnEveryNodeThatFits(t *testing.T) {
	g := newRig(t, []domain.DaemonSet{logsDS()}, []domain.Node{
		node("n1"), node("n2"),
		node("i1", kind(domain.KindIllumos)),
		node("k1", kind(domain.KindKubelet)),
		node("pico", kind(domain.KindRP2040), allocatable(domain.ResourceList{"pods": 0})),
		node("kept", tainted("maintenance", domain.EffectNoSchedule)),
		node("cordoned", func(n *domain.Node) { n.Unschedulable = true }, tainted(domain.TaintUnschedulable, domain.EffectNoSchedule)),
		node("pressed", tainted(domain.TaintMemoryPressure, domain.EffectNoSchedule)),
		node("starting", func(n *domain.Node) { n.Conditions = nil }),
	})
	res := g.reconcile(t, logsKey)
	want := []string{"cordoned", "i1", "n1", "n2", "pressed"}
	if got := nodesOf(g.onNodes(logsDS())); !slices.Equal(got, want) {
		t.Errorf("pods on %v, want %v", got, want)
	}
	for _, p := range g.pods.Pods {
		if !p.Exists() || p.Spec.NodeName == "" || p.Status.Phase != domain.PodPending || len(g.pods.Written[p.Name]) != 2 {
			t.Errorf("pod %s: not created bound (%q, %v)", p.Name, p.Spec.NodeName, g.pods.Written[p.Name])
		}
	}
	if st := g.status(logsDS().Key()); st != (domain.DaemonSetStatus{DesiredNumberScheduled: 5, CurrentNumberScheduled: 5,
		UpdatedNumberScheduled: 5, NumberUnavailable: 5, ObservedGeneration: 2}) {
		t.Errorf("status %+v", st)
	}
	if res.RequeueAfter != 0 {
		t.Errorf("requeue after %s with nothing to wait for", res.RequeueAfter)
	}
	g.settled(t, logsKey)
}

// TestNodeSelectorChoosesTheKind: a DaemonSet whose node selector names
// herd.dev/kind runs on nodes of that kind alone.
func TestNodeSelectorChoosesTheKind(t *testing.T) {
	ds := logsDS()
	ds.Spec.Template.Spec.NodeSelector = map[string]string{domain.LabelKind: string(domain.KindIllumos)}
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1"), node("i1", kind(domain.KindIllumos)), node("i2", kind(domain.KindIllumos))})
	g.reconcile(t, logsKey)
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"i1", "i2"}) {
		t.Errorf("pods on %v, want the illumos nodes", got)
	}
}

// TestNodesJoinAndLeave: a node that joins gets its pod; a node whose
// labels no longer match loses it; a node tainted NoExecute by an
// operator loses it; one tainted NoSchedule keeps its pod but a new node
// so tainted gets none; a node that is gone is no longer counted.
func TestNodesJoinAndLeave(t *testing.T) {
	ds := logsDS()
	ds.Spec.Template.Spec.NodeSelector = map[string]string{"role": "edge"}
	edge := func(n *domain.Node) { n.Labels["role"] = "edge" }
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1", edge), node("n2", edge)})
	g.reconcile(t, logsKey)

	g.nodes.nodes["n3"] = node("n3", edge)
	g.reconcile(t, logsKey)
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"n1", "n2", "n3"}) {
		t.Fatalf("after n3 joined: pods on %v", got)
	}
	if diff := cmp.Diff(map[string][]string{"logs-p0002": {"PodCreated", "PodScheduled"}}, g.pods.Written); diff != "" {
		t.Errorf("what joining wrote (-want +got):\n%s", diff)
	}

	n2 := g.nodes.nodes["n2"]
	delete(n2.Labels, "role")
	g.nodes.nodes["n2"] = n2
	g.nodes.nodes["n3"] = node("n3", edge, tainted("maintenance", domain.EffectNoExecute))
	g.nodes.nodes["n4"] = node("n4", edge, tainted("maintenance", domain.EffectNoSchedule))
	g.nodes.nodes["n1"] = node("n1", edge, tainted("maintenance", domain.EffectNoSchedule))
	g.reconcile(t, logsKey)
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"n1"}) {
		t.Errorf("pods on %v, want n1's alone", got)
	}
	// A pod on its way out still counts, as in Kubernetes, until it is
	// gone.
	if st := g.status(ds.Key()); st.DesiredNumberScheduled != 0 || st.NumberMisscheduled != 3 {
		t.Errorf("status %+v: want none desired, three nodes with a pod", st)
	}
	for k, p := range g.pods.Pods {
		p.Finalized = p.Terminating()
		g.pods.Pods[k] = p
	}
	g.reconcile(t, logsKey)
	if st := g.status(ds.Key()); st.NumberMisscheduled != 1 {
		t.Errorf("status %+v: want n1 misscheduled", st)
	}

	delete(g.nodes.nodes, "n1")
	g.reconcile(t, logsKey)
	if st := g.status(ds.Key()); st.NumberMisscheduled != 0 || st.CurrentNumberScheduled != 0 {
		t.Errorf("status %+v after n1 left", st)
	}
	if p := g.pod("logs-p0000"); p.Terminating() {
		t.Error("the pod of a node that is gone was deleted by the DaemonSet; herd's pod garbage collection does that")
	}
}

// TestRoomOnTheNode: a node without room for the pod — its pod count
// reached, or too little CPU left — gets none until it has room; it is
// still desired, and the DaemonSet comes back to it.
func TestRoomOnTheNode(t *testing.T) {
	ds := logsDS()
	ds.Spec.Template.Spec.Containers[0].Requests = domain.ResourceList{"cpu": 500}
	other := domain.Pod{Namespace: "shop", Name: "cart", UID: "uid-cart", Version: 2, Source: domain.SourceHerd,
		Spec: domain.PodSpec{NodeName: "full", Containers: []domain.Container{{Name: "c"}}}}
	busy := other
	busy.Name, busy.UID, busy.Spec.NodeName = "busy", "uid-busy", "busy"
	busy.Spec.Containers = []domain.Container{{Name: "c", Requests: domain.ResourceList{"cpu": 3800}}}
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{
		node("n1"), node("full", allocatable(domain.ResourceList{"pods": 1, "cpu": 4000})), node("busy"),
	}, other, busy)
	res := g.reconcile(t, logsKey)
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"n1"}) {
		t.Errorf("pods on %v, want n1's alone", got)
	}
	if st := g.status(ds.Key()); st.DesiredNumberScheduled != 3 || st.CurrentNumberScheduled != 1 {
		t.Errorf("status %+v", st)
	}
	if res.RequeueAfter != DefaultConfig().RoomRetry {
		t.Errorf("requeue after %s, want %s", res.RequeueAfter, DefaultConfig().RoomRetry)
	}
	delete(g.pods.Pods, domain.Key{Namespace: "shop", Name: "cart"})
	g.reconcile(t, logsKey)
	if got := nodesOf(g.onNodes(ds)); !slices.Equal(got, []string{"full", "n1"}) {
		t.Errorf("pods on %v once full had room", got)
	}
}

// TestPodsOfANode: on a node where the DaemonSet's pod may stay, a second
// one is deleted (the newer), a finished one is deleted, and a failed
// one is deleted, then the next failed one only after a wait that
// doubles; a node with a pod on its way out gets no new one until it is
// gone.
func TestPodsOfANode(t *testing.T) {
	ds := logsDS()
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1"), node("n2"), node("n3")},
		daemonPod(ds, "logs-old", "n1"), daemonPod(ds, "logs-new", "n1", createdAt(5)),
		daemonPod(ds, "logs-done", "n2", phase(domain.PodSucceeded)),
		daemonPod(ds, "logs-bad", "n3", phase(domain.PodFailed)),
	)
	g.reconcile(t, logsKey)
	for name, gone := range map[string]bool{"logs-old": false, "logs-new": true, "logs-done": true, "logs-bad": true} {
		if p := g.pod(name); (p.Terminating() || !p.Exists()) != gone {
			t.Errorf("%s: deleted %v, want %v", name, !gone, gone)
		}
	}
	if _, made := g.pods.Written["logs-p0000"]; made {
		t.Error("a node whose pod is on its way out got a new one at once")
	}
	g.setPod("logs-bad", func(p *domain.Pod) { p.Finalized = true })
	g.reconcile(t, logsKey)
	if on := g.onNodes(ds)["n3"]; len(on) != 1 {
		t.Fatalf("n3 after its failed pod left: %v", on)
	}
	// The new pod fails too: it is deleted only a second after the first.
	g.setPod(g.onNodes(ds)["n3"][0], func(p *domain.Pod) { p.Status.Phase = domain.PodFailed })
	res := g.reconcile(t, logsKey)
	if g.pod(g.onNodes(ds)["n3"][0]).Terminating() || res.RequeueAfter != time.Second {
		t.Errorf("a second failed pod at once: requeue after %s", res.RequeueAfter)
	}
	g.clock.SetTime(g.clock.Now().Add(time.Second))
	g.reconcile(t, logsKey)
	if on := g.onNodes(ds)["n3"]; len(on) != 0 {
		t.Errorf("the failed pod a second later: %v still there", on)
	}
}

// TestRollingUpdate: a new template replaces the old pods one node at a
// time (maxUnavailable 1): an old pod is deleted, its node gets a new
// one once it is gone, and the next old pod goes once the new one is
// available; the status counts the nodes up to date.
func TestRollingUpdate(t *testing.T) {
	old := logsDS()
	g := newRig(t, []domain.DaemonSet{old}, []domain.Node{node("n1"), node("n2"), node("n3")},
		daemonPod(old, "logs-a", "n1"), daemonPod(old, "logs-b", "n2"), daemonPod(old, "logs-c", "n3"))
	ds := old
	ds.Spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	ds.Generation, ds.TemplateGeneration = 3, 2
	g.sets.Objects[ds.Key()] = ds

	// step reconciles until nothing changes and returns the pods by node.
	step := func(what string) map[string][]string {
		t.Helper()
		for range 5 {
			g.reconcile(t, logsKey)
			if len(g.pods.Written) == 0 {
				return g.onNodes(ds)
			}
		}
		t.Fatalf("%s: no end to the writes", what)
		return nil
	}
	// finish finalizes the pods being deleted; ready readies the others.
	finish := func() {
		for k, p := range g.pods.Pods {
			if p.Terminating() {
				p.Finalized = true
			} else if p.Status.Phase == domain.PodPending {
				p.Status = domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
					{Type: domain.PodConditionReady, Status: domain.ConditionTrue, LastTransitionTime: g.clock.Now()}}}
			}
			g.pods.Pods[k] = p
		}
	}
	step("first")
	if !g.pod("logs-a").Terminating() || g.pod("logs-b").Terminating() || g.pod("logs-c").Terminating() {
		t.Fatalf("the first step deleted more or other than logs-a")
	}
	for i, next := range []string{"logs-b", "logs-c"} {
		finish() // the old pod goes; its node gets a new one
		on := step("replace")
		if len(on) != 2+i && len(on) != 3 {
			t.Fatalf("after step %d: %v", i, on)
		}
		finish() // the new pod becomes ready: the next old one goes
		step("next")
		if !g.pod(next).Terminating() {
			t.Fatalf("step %d: %s was not deleted once the new pod was available", i, next)
		}
	}
	finish()
	step("last")
	finish()
	step("settle")
	st := g.status(ds.Key())
	if st.UpdatedNumberScheduled != 3 || st.NumberAvailable != 3 || st.ObservedGeneration != 3 {
		t.Errorf("status after the rollout %+v", st)
	}
	for _, p := range g.pods.Pods {
		if p.Exists() && !isUpdated(ds, p) {
			t.Errorf("pod %s of the old template outlived the rollout", p.Name)
		}
	}
}

// TestRollingUpdateWithSurge: with maxSurge, a new pod is made beside
// the old one, which goes once the new one is available.
func TestRollingUpdateWithSurge(t *testing.T) {
	old := logsDS()
	old.Spec.UpdateStrategy.RollingUpdate = &domain.RollingUpdateDaemonSet{MaxSurge: domain.IntOrPercent{Value: 1}}
	g := newRig(t, []domain.DaemonSet{old}, []domain.Node{node("n1"), node("n2")},
		daemonPod(old, "logs-a", "n1"), daemonPod(old, "logs-b", "n2"))
	ds := old
	ds.Spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	ds.Generation, ds.TemplateGeneration = 3, 2
	g.sets.Objects[ds.Key()] = ds
	g.reconcile(t, logsKey)
	if on := g.onNodes(ds); len(on["n1"]) != 2 || len(on["n2"]) != 1 {
		t.Fatalf("after the first surge: %v, want a new pod beside n1's", on)
	}
	g.settled(t, logsKey) // the new pod is not available yet
	g.setPod("logs-p0000", func(p *domain.Pod) {
		p.Status = domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue, LastTransitionTime: at(10)}}}
	})
	g.reconcile(t, logsKey)
	if !g.pod("logs-a").Terminating() {
		t.Errorf("once n1's new pod was available its old one stayed")
	}
	// The next node's surge waits for the deletion to be seen, as
	// Kubernetes' rollout waits for its expectations.
	g.reconcile(t, logsKey)
	if on := g.onNodes(ds)["n2"]; len(on) != 2 {
		t.Errorf("n2 after n1 was done: %v, want a new pod beside the old", on)
	}
}

// TestOnDelete: with OnDelete, a new template changes no pod until one is
// deleted, and its node's next pod is of the new template.
func TestOnDelete(t *testing.T) {
	old := logsDS()
	old.Spec.UpdateStrategy = domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetOnDelete}
	g := newRig(t, []domain.DaemonSet{old}, []domain.Node{node("n1"), node("n2")},
		daemonPod(old, "logs-a", "n1"), daemonPod(old, "logs-b", "n2"))
	ds := old
	ds.Spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	ds.TemplateGeneration = 2
	g.sets.Objects[ds.Key()] = ds
	g.reconcile(t, logsKey)
	if len(g.pods.Written) > 0 {
		t.Errorf("a new template with OnDelete wrote %v", g.pods.Written)
	}
	if st := g.status(ds.Key()); st.UpdatedNumberScheduled != 0 || st.NumberAvailable != 2 {
		t.Errorf("status %+v", st)
	}
	g.setPod("logs-a", func(p *domain.Pod) { p.Finalized = true })
	g.reconcile(t, logsKey)
	if on := g.onNodes(ds)["n1"]; len(on) != 1 || !isUpdated(ds, g.pod(on[0])) {
		t.Errorf("n1's next pod %v is not of the new template", on)
	}
}

// TestClaims: a DaemonSet adopts an orphan its selector matches on a
// node instead of making a second pod there, leaves an unbound orphan
// to the scheduler, lets go of a pod its selector no longer matches,
// and never touches another controller's pod; once it is gone, its pods
// are deleted.
func TestClaims(t *testing.T) {
	ds := logsDS()
	orphan := daemonPod(ds, "orphan", "n1", owners())
	unbound := daemonPod(ds, "unbound", "", owners())
	stray := daemonPod(ds, "stray", "n2", func(p *domain.Pod) { p.Labels = map[string]string{"app": "other"} })
	theirs := daemonPod(ds, "theirs", "n2", owners(domain.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "x", UID: "rs-x", Controller: true}))
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1"), node("n2")}, orphan, unbound, stray, theirs)
	g.reconcile(t, logsKey)
	if !ds.Owns(g.pod("orphan")) || ds.Owns(g.pod("unbound")) || ds.Owns(g.pod("stray")) || ds.Owns(g.pod("theirs")) {
		t.Errorf("claims: orphan %v, unbound %v, stray %v, theirs %v",
			ds.Owns(g.pod("orphan")), ds.Owns(g.pod("unbound")), ds.Owns(g.pod("stray")), ds.Owns(g.pod("theirs")))
	}
	if on := g.onNodes(ds); len(on["n1"]) != 1 || len(on["n2"]) != 1 {
		t.Errorf("pods by node %v, want one on each", on)
	}
	gone := ds
	gone.Deleted = true
	g.sets.Objects[ds.Key()] = gone
	g.reconcile(t, logsKey)
	if on := g.onNodes(ds); len(on) != 0 {
		t.Errorf("the pods of a DaemonSet that is gone: %v", on)
	}
	if g.pod("theirs").Terminating() || g.pod("stray").Terminating() {
		t.Error("collecting the DaemonSet's pods deleted another's")
	}
}

// TestMinReadySeconds: a ready pod counts as available once it has been
// ready for minReadySeconds, and the DaemonSet comes back then.
func TestMinReadySeconds(t *testing.T) {
	ds := logsDS()
	ds.Spec.MinReadySeconds = 30
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1"), node("n2")},
		daemonPod(ds, "logs-a", "n1", readyAt(0)), daemonPod(ds, "logs-b", "n2", readyAt(5)))
	res := g.reconcile(t, logsKey)
	if st := g.status(ds.Key()); st.NumberReady != 2 || st.NumberAvailable != 0 || st.NumberUnavailable != 2 {
		t.Errorf("status at 10s %+v", st)
	}
	if res.RequeueAfter != 20*time.Second {
		t.Errorf("requeue after %s, want when logs-a is available", res.RequeueAfter)
	}
	g.clock.SetTime(at(30))
	g.reconcile(t, logsKey)
	if st := g.status(ds.Key()); st.NumberAvailable != 1 {
		t.Errorf("status at 30s %+v", st)
	}
}

// TestNotReadyPodsAreNotAvailable: a pod that is not ready is current but
// neither ready nor available.
func TestNotReadyPodsAreNotAvailable(t *testing.T) {
	ds := logsDS()
	g := newRig(t, []domain.DaemonSet{ds}, []domain.Node{node("n1")}, daemonPod(ds, "logs-a", "n1", notReady, requests(100)))
	g.reconcile(t, logsKey)
	if st := g.status(ds.Key()); st != (domain.DaemonSetStatus{DesiredNumberScheduled: 1, CurrentNumberScheduled: 1, UpdatedNumberScheduled: 1,
		NumberUnavailable: 1, ObservedGeneration: 2}) {
		t.Errorf("status %+v", st)
	}
}
