package job

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// TestAJobAdoptsAnOrphanItsSelectorMatches: a Job whose selector the
// operator chose (manualSelector) takes in a pod made by hand without a
// controller that its selector matches, holding it with the tracking
// finalizer as Kubernetes' Job controller does, and runs no other in its
// place; an orphan's creation reaches the Job as it comes
// (Watches.Adopts) once a reconcile has read the Job, and no longer once
// the Job has finished.
func TestAJobAdoptsAnOrphanItsSelectorMatches(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) {
		s.ManualSelector = true
		s.Selector = domain.LabelSelector{MatchLabels: map[string]string{"app": "batch"}}
		s.Template.Labels = map[string]string{"app": "batch"}
	})
	another := reconcilerstest.Record(t, "pod/default/another", domain.PodCreated{Namespace: "default", Name: "another", Labels: map[string]string{"app": "batch"}})
	if got := f.r.Watches().KeysFor(another); len(got) != 0 {
		t.Errorf("before any reconcile an orphan reaches %v, want none (the resync finds it)", got)
	}
	if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: "by-hand"}, domain.CreatePod{Namespace: "default", Name: "by-hand", UID: "uid-by-hand",
		Labels: map[string]string{"app": "batch"}, Spec: domain.PodSpec{RestartPolicy: domain.RestartNever, Containers: []domain.Container{{Name: "c", Image: "busybox"}}}}); err != nil {
		t.Fatal(err)
	}
	f.pods.run()
	f.reconcile(t)
	p, _ := f.pod("by-hand")
	if !f.job().Owns(p) || !slices.Contains(p.Finalizers, domain.JobTrackingFinalizer) {
		t.Fatalf("the orphan: owned %v, finalizers %v; want the Job's, held by its finalizer", f.job().Owns(p), p.Finalizers)
	}
	if diff := cmp.Diff([]string{"by-hand"}, f.pods.Names()); diff != "" {
		t.Errorf("pods beside the one the Job adopted (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"job/default/pi"}, reconcilerstest.Strings(f.r.Watches().KeysFor(another))); diff != "" {
		t.Errorf("another orphan's keys while the Job runs (-want +got):\n%s", diff)
	}
	f.pods.finish("by-hand", domain.PodSucceeded)
	f.reconcile(t) // SuccessCriteriaMet
	f.reconcile(t) // Complete
	if st := f.job().Status; st.Succeeded != 1 || !st.Finished() {
		t.Errorf("status %+v: want the adopted pod's success counted and the Job finished", st)
	}
	f.reconcile(t)
	if got := f.r.Watches().KeysFor(another); len(got) != 0 {
		t.Errorf("a finished Job is reached by another orphan: %v", got)
	}
}
