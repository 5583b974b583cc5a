package statefulset

import (
	"testing"

	"herd/domain"
)

// TestARecreatedStatefulSetAdoptsItsOrphanedPodsAndHistory: a StatefulSet
// deleted with its pods orphaned (kubectl delete --cascade=orphan) and
// created again, as operators do to change what an update may not,
// takes its pods and its revision back, as Kubernetes' controller
// adopts them: no pod is made again, no revision added, and it counts
// its pods ready at once. A pod of its name with another selector's
// labels is not its to take.
func TestARecreatedStatefulSetAdoptsItsOrphanedPodsAndHistory(t *testing.T) {
	f := newFixture(t, nil)
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		f.reconcile(t)
		f.ready(name)
	}
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2")
	old := f.set(t)
	// The garbage collector's part of the orphaning delete: the pods and
	// the revision lose their reference to the StatefulSet.
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.ReleasePod{UID: old.UID}); err != nil {
			t.Fatal(err)
		}
	}
	revs, _, err := f.revs.List(t.Context(), "default")
	if err != nil || len(revs) != 1 {
		t.Fatalf("revisions %v, %v: want one", revs, err)
	}
	if _, err := f.revs.Execute(t.Context(), revs[0].Key(), domain.ReleaseControllerRevision{UID: old.UID}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sets.Execute(t.Context(), webKey, domain.DeleteStatefulSet{Propagation: domain.PropagateOrphan}); err != nil {
		t.Fatal(err)
	}
	// A stranger's pod under one of the names, with other labels.
	if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: "web-7"}, domain.CreatePod{
		Namespace: "default", Name: "web-7", UID: "uid-stranger", Labels: map[string]string{"app": "other"},
		Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "busybox"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sets.Execute(t.Context(), webKey, domain.CreateStatefulSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web-2"}, Spec: old.Spec}); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t)
	f.expect(t, "web-0,web-1,web-2,web-7")
	s := f.set(t)
	for _, name := range []string{"web-0", "web-1", "web-2"} {
		if p := f.pods.Pods[domain.Key{Namespace: "default", Name: name}]; !s.Owns(p) || p.UID == "" || p.Status.Phase != domain.PodRunning {
			t.Errorf("pod %s: owners %v, phase %s; want it adopted, still running", name, p.Owners, p.Status.Phase)
		}
	}
	if p := f.pods.Pods[domain.Key{Namespace: "default", Name: "web-7"}]; len(p.Owners) != 0 {
		t.Errorf("the stranger's web-7 is owned by %v", p.Owners)
	}
	revs, _, _ = f.revs.List(t.Context(), "default")
	if len(revs) != 1 || !s.Owns(revs[0]) {
		t.Errorf("revisions %+v, want the one it had, adopted", revs)
	}
	if s.Status.ReadyReplicas != 3 || s.Status.UpdatedReplicas != 3 {
		t.Errorf("status %+v, want its 3 adopted pods ready and up to date", s.Status)
	}
}
