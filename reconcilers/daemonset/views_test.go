package daemonset

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// TestOnTheViews runs the reconciler on herd's own views and unit of
// work: a DaemonSet's pods made on the nodes that fit it, a node that
// joins getting its own, the keys of what was written reaching the
// DaemonSet, a new template rolled out one node at a time, and the pods
// collected once it is gone; each step is repeated to write nothing.
func TestOnTheViews(t *testing.T) {
	env := reconcilerstest.New(t)
	view := projections.NewDaemonSetView(env.Log)
	dss := env.Writer.DaemonSetCommands()
	r, err := New(DefaultConfig(), view, env.Nodes, env.Pods, podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, dss, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.ids = counting()
	env.ReadyNode("n1", nil)
	env.ReadyNode("n2", nil)
	env.KindNode("i1", domain.KindIllumos, nil)
	ds := logsDS()
	ds.Spec.Template.Spec.NodeSelector = map[string]string{domain.LabelKind: "linux"}
	if _, err := dss.Execute(t.Context(), ds.Key(), domain.CreateDaemonSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "logs", UID: ds.UID}, Spec: ds.Spec}); err != nil {
		t.Fatal(err)
	}

	// step reconciles logs, again to check it writes nothing, and
	// returns the nodes of its pods that are not being deleted.
	step := func(what string) []string {
		t.Helper()
		if _, err := r.Reconcile(t.Context(), logsKey); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		head := env.Head()
		if _, err := r.Reconcile(t.Context(), logsKey); err != nil {
			t.Fatalf("%s again: %v", what, err)
		}
		if env.Head() != head {
			t.Errorf("%s: the second reconcile wrote %v", what, env.Records(head))
		}
		cur, err := view.Get(t.Context(), "default", "logs")
		if err != nil {
			t.Fatal(err)
		}
		pods, _, err := env.Pods.List(t.Context(), projections.PodFilter{Namespace: "default"})
		if err != nil {
			t.Fatal(err)
		}
		var nodes []string
		for _, p := range pods {
			if cur.Owns(p) && !p.Terminating() {
				nodes = append(nodes, p.Spec.NodeName)
			}
		}
		slices.Sort(nodes)
		return nodes
	}
	start := env.Head()
	if got := step("create"); !slices.Equal(got, []string{"n1", "n2"}) {
		t.Errorf("pods on %v, want the linux nodes", got)
	}
	var keys []string
	for _, rec := range env.Records(start) {
		keys = append(keys, reconcilerstest.Strings(r.Watches().KeysFor(rec))...)
	}
	// Its two pods' creations and the status it recorded: only the
	// creations call it back.
	if diff := cmp.Diff([]string{"daemonset/default/logs", "daemonset/default/logs"}, keys); diff != "" {
		t.Errorf("keys of what the reconcile wrote (-want +got):\n%s", diff)
	}
	if cur, _ := view.Get(t.Context(), "default", "logs"); cur.Status.DesiredNumberScheduled != 2 || cur.Status.CurrentNumberScheduled != 2 {
		t.Errorf("status %+v", cur.Status)
	}

	joined := env.Head()
	env.ReadyNode("n3", nil)
	for _, rec := range env.Records(joined) {
		if got := reconcilerstest.Strings(r.Watches().KeysFor(rec)); rec.Type == "NodeRegistered" && !slices.Equal(got, []string{"daemonset/default/logs"}) {
			t.Errorf("n3's registration reaches %v", got)
		}
	}
	if got := step("join"); !slices.Equal(got, []string{"n1", "n2", "n3"}) {
		t.Errorf("pods on %v after n3 joined", got)
	}

	// A new template: one old pod goes at a time, once they run.
	running, _, err := env.Pods.List(t.Context(), projections.PodFilter{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range running {
		env.Pod(p.Name, domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{
			{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}})
	}
	if _, err := r.Reconcile(t.Context(), logsKey); err != nil {
		t.Fatal(err)
	}
	if cur, _ := view.Get(t.Context(), "default", "logs"); cur.Status.NumberAvailable != 3 {
		t.Errorf("status once the pods run %+v", cur.Status)
	}
	spec := ds.Spec
	spec.Template.Spec.Containers = []domain.Container{{Name: "fluent", Image: "fluent-bit:4"}}
	if _, err := dss.Execute(t.Context(), ds.Key(), domain.UpdateDaemonSet{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if got := step("roll"); len(got) != 2 {
		t.Errorf("pods not being deleted after the new template: %v, want one of three going", got)
	}

	if _, err := dss.Execute(t.Context(), ds.Key(), domain.DeleteDaemonSet{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(t.Context(), logsKey); err != nil {
		t.Fatal(err)
	}
	pods, _, _ := env.Pods.List(t.Context(), projections.PodFilter{Namespace: "default"})
	for _, p := range pods {
		if !p.Terminating() {
			t.Errorf("pod %s outlived its DaemonSet", p.Name)
		}
	}
}
