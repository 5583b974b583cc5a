package deployment

import (
	"maps"
	"testing"

	"herd/domain"
)

// TestARecreatedDeploymentAdoptsItsOrphanedReplicaSet: a Deployment
// deleted with its dependents orphaned and created again takes its
// ReplicaSet back, as Kubernetes' controller adopts an orphan its
// selector matches: no second ReplicaSet, no new pods.
func TestARecreatedDeploymentAdoptsItsOrphanedReplicaSet(t *testing.T) {
	h := newHarness(t)
	h.rolledOut(webSpec(3, "nginx:1"))
	if _, err := h.env.Writer.DeploymentCommands().Execute(t.Context(), webDomainKey, domain.DeleteDeployment{Propagation: domain.PropagateOrphan}); err != nil {
		t.Fatal(err)
	}
	h.reconcile() // the Deployment is gone: its ReplicaSet loses its reference
	rss := h.replicaSets()
	for name, rs := range rss {
		if len(rs.Owners) != 0 {
			t.Fatalf("replicaset %s still names %v after its Deployment was deleted orphaning it", name, rs.Owners)
		}
	}
	if _, err := h.env.Writer.DeploymentCommands().Execute(t.Context(), webDomainKey, domain.CreateDeployment{
		Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web-2"},
		Spec: webSpec(3, "nginx:1"),
	}); err != nil {
		t.Fatal(err)
	}
	h.reconcile()
	after := h.replicaSets()
	if !maps.EqualFunc(after, rss, func(a, b domain.ReplicaSet) bool { return a.Spec.Replicas == b.Spec.Replicas }) {
		t.Fatalf("replicasets after the Deployment came back: %v, want the one it had, %v", names(after), names(rss))
	}
	d := h.get()
	for name, rs := range after {
		if !d.Owns(rs) {
			t.Errorf("replicaset %s is owned by %v, want the new Deployment %s", name, rs.Owners, d.UID)
		}
	}
	h.settle(-1)
	h.reconcile()
	if d := h.get(); d.Status.AvailableReplicas != 3 || d.Status.UpdatedReplicas != 3 {
		t.Errorf("the Deployment's status %+v, want its 3 pods available and up to date", d.Status)
	}
}

// TestAReplicaSetWhoseLabelsNoLongerMatchIsReleased: a ReplicaSet whose
// labels an operator changed so that its Deployment's selector no longer
// matches it is let go, and the Deployment makes a new one.
func TestAReplicaSetWhoseLabelsNoLongerMatchIsReleased(t *testing.T) {
	h := newHarness(t)
	h.create(webSpec(2, "nginx:1"))
	h.reconcile()
	var old domain.ReplicaSet
	for _, rs := range h.replicaSets() {
		old = rs
	}
	meta := old.ObjectMeta
	meta.Labels = map[string]string{"app": "debug"}
	if _, err := h.env.Writer.ReplicaSetCommands().Execute(t.Context(), old.Key(), domain.UpdateReplicaSet{Meta: meta, Spec: old.Spec}); err != nil {
		t.Fatal(err)
	}
	// The new ReplicaSet's name, that of its template, is the released
	// one's: the first reconcile raises the collision count, as
	// Kubernetes' does, and the next makes it under another.
	if _, err := h.r.Reconcile(t.Context(), webKey); err == nil {
		t.Error("the reconcile that releases the replicaset made its successor under the same name")
	}
	h.reconcile()
	rss := h.replicaSets()
	if got := rss[old.Name]; len(got.Owners) != 0 {
		t.Errorf("the relabelled replicaset is owned by %v, want it released", got.Owners)
	}
	if len(rss) != 2 {
		t.Errorf("replicasets %v, want the released one and a new one", names(rss))
	}
}

func names(rss map[string]domain.ReplicaSet) []string {
	var out []string
	for name := range rss {
		out = append(out, name)
	}
	return out
}
