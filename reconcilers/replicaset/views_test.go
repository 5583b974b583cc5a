package replicaset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// TestOnThePodView runs the reconciler on herd's own pod view and unit of
// work (the ReplicaSets still on a fake): a ReplicaSet's life from an
// orphan adopted to its last pod collected, each step read back from the
// log and the view, and each repeated to write nothing.
func TestOnThePodView(t *testing.T) {
	env := reconcilerstest.New(t)
	sets := newFakeReplicaSets(env.Clock.Now, webRS(3))
	r, err := New(DefaultConfig(), sets, env.Pods, podCommands{env.Writer.PodCommands(), env.Writer.PodBatch()}, sets, env.Clock, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	r.IDs = counting()
	lone := reconcilerstest.CreatePod("lone", "", 30)
	lone.Labels = map[string]string{"app": "web"}
	env.Pod("lone", lone)
	env.SetTime(10)

	// step reconciles web and returns its pods in the view, by name.
	step := func(what string) []string {
		t.Helper()
		if _, err := r.Reconcile(t.Context(), webKey); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		head := env.Head()
		if _, err := r.Reconcile(t.Context(), webKey); err != nil {
			t.Fatalf("%s again: %v", what, err)
		}
		if env.Head() != head {
			t.Errorf("%s: the second reconcile wrote %v", what, env.Records(head))
		}
		pods, _, err := env.Pods.List(t.Context(), podFilter("default"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range pods {
			if active(p) && sets.Objects[webRS(0).Key()].Owns(p) {
				names = append(names, p.Name)
			}
		}
		return names
	}

	start := env.Head()
	if diff := cmp.Diff([]string{"lone", "web-p0000", "web-p0001"}, step("scale up")); diff != "" {
		t.Errorf("pods after scaling up (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"PodCreated", "PodOwnersChanged"}, env.PodTypes("lone")); diff != "" {
		t.Errorf("the orphan's events (-want +got):\n%s", diff)
	}
	var keys []string
	for _, rec := range env.Records(start) {
		keys = append(keys, reconcilerstest.Strings(r.Watches().KeysFor(rec))...)
	}
	if diff := cmp.Diff([]string{"replicaset/default/web", "replicaset/default/web", "replicaset/default/web"}, keys); diff != "" {
		t.Errorf("keys of what the reconcile wrote (-want +got):\n%s", diff)
	}
	if got := sets.Objects[webRS(0).Key()].Status; got.Replicas != 3 || got.ObservedGeneration != 2 {
		t.Errorf("status %+v", got)
	}

	rs := sets.Objects[webRS(0).Key()]
	rs.Spec.Replicas = 1
	sets.Objects[rs.Key()] = rs
	// None is scheduled, so the newest go: the two it made.
	if diff := cmp.Diff([]string{"lone"}, step("scale down")); diff != "" {
		t.Errorf("pods after scaling down (-want +got):\n%s", diff)
	}

	sets.Objects[rs.Key()] = domain.ReplicaSet{ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web"}, Deleted: true, Version: rs.Version + 1}
	if got := step("delete"); got != nil {
		t.Errorf("pods after the ReplicaSet was deleted: %v", got)
	}
	if p, _ := env.GetPod("lone"); !p.Finalized {
		t.Errorf("the adopted pod outlived its ReplicaSet: %+v", p)
	}
}
