package job

import (
	"slices"
	"testing"
	"time"

	"herd/domain"
)

// pod is the fake's pod called name.
func (f *fixture) pod(name string) (domain.Pod, bool) {
	p, ok := f.pods.Pods.Pods[domain.Key{Namespace: "default", Name: name}]
	return p, ok
}

// deletePod deletes the pod called name as an eviction or an operator
// does.
func (f *fixture) deletePod(t *testing.T, name string) {
	t.Helper()
	if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.DeletePod{}); err != nil {
		t.Fatal(err)
	}
}

// TestAPodEvictedAndStoppedBeforeItsJobLooksStillCountsAsAFailure: the
// Job's pod is evicted and herd's termination stops it before the Job
// reconciles. The Job's finalizer keeps it until the Job has counted it
// as a failure; only then does it go. With a backoff limit of 0, the Job
// fails, as in Kubernetes, instead of making a new pod as if nothing had
// failed.
func TestAPodEvictedAndStoppedBeforeItsJobLooksStillCountsAsAFailure(t *testing.T) {
	f := newFixture(t, func(s *domain.JobSpec) { s.BackoffLimit = 0 })
	f.reconcile(t)
	if p, _ := f.pod("pi-1"); !slices.Equal(p.Finalizers, []string{domain.JobTrackingFinalizer}) {
		t.Fatalf("the Job's pod has finalizers %v, want its tracking finalizer", p.Finalizers)
	}
	f.pods.run()
	f.reconcile(t)
	f.deletePod(t, "pi-1")
	f.pods.finalize() // the termination is done before the Job looks
	if p, ok := f.pod("pi-1"); !ok || !p.Terminating() {
		t.Fatalf("the evicted pod went before its Job counted it (exists %v)", ok)
	}
	f.reconcile(t)
	f.want(t, []string{"pi-1"}, 0, 0, 1, "FailureTarget/BackoffLimitExceeded")
	if p, _ := f.pod("pi-1"); len(p.Finalizers) != 0 {
		t.Errorf("the counted pod is still held: %v", p.Finalizers)
	}
	f.pods.finalize()
	f.reconcile(t)
	f.want(t, nil, 0, 0, 1, "FailureTarget/BackoffLimitExceeded", "Failed/BackoffLimitExceeded")
}

// TestAFinishedPodIsReleasedOnceCounted: a pod that succeeded is counted
// and let go in the same reconcile, so that deleting it later (a TTL, an
// operator) finds nothing holding it.
func TestAFinishedPodIsReleasedOnceCounted(t *testing.T) {
	f := newFixture(t, nil)
	f.reconcile(t)
	f.pods.run()
	f.pods.finish("pi-1", domain.PodSucceeded)
	f.reconcile(t)
	f.want(t, []string{"pi-1"}, 0, 1, 0, "SuccessCriteriaMet/CompletionsReached", "Complete/CompletionsReached")
	if p, _ := f.pod("pi-1"); len(p.Finalizers) != 0 {
		t.Errorf("the counted pod is still held: %v", p.Finalizers)
	}
}

// TestASuspendedJobReleasesThePodsItStops: suspending a Job deletes its
// running pods, which it does not count as failures; it lets them go
// without counting them.
func TestASuspendedJobReleasesThePodsItStops(t *testing.T) {
	f := newFixture(t, nil)
	f.reconcile(t)
	f.pods.run()
	spec := f.job().Spec
	spec.Suspend = true
	if _, err := f.jobs.Execute(t.Context(), f.job().Key(), domain.UpdateJob{Spec: spec}); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t) // deletes pi-1
	f.reconcile(t) // its deletion comes back: let go
	f.pods.finalize()
	f.want(t, nil, 0, 0, 0, "Suspended/JobSuspended")
}

// TestThePodsOfAJobBeingDeletedAreLetGo: a Job deleted while its pod was
// already being deleted (so not collected again), one deleted with its
// pods orphaned, and one deleted in the foreground: no pod is held by a
// Job that will no longer count it, and each goes (or stays, orphaned)
// once its termination is done.
func TestThePodsOfAJobBeingDeletedAreLetGo(t *testing.T) {
	for _, propagation := range []domain.Propagation{domain.PropagateBackground, domain.PropagateOrphan, domain.PropagateForeground} {
		t.Run(string(propagation), func(t *testing.T) {
			f := newFixture(t, nil)
			f.reconcile(t)
			f.pods.run()
			if propagation == domain.PropagateBackground {
				f.deletePod(t, "pi-1")
			}
			if _, err := f.jobs.Execute(t.Context(), f.job().Key(), domain.DeleteJob{Propagation: propagation}); err != nil {
				t.Fatal(err)
			}
			f.clock.Step(time.Second)
			f.reconcile(t)
			p, ok := f.pod("pi-1")
			if !ok || len(p.Finalizers) != 0 {
				t.Fatalf("the pod of a Job being deleted: exists %v, finalizers %v", ok, p.Finalizers)
			}
			orphaned := propagation == domain.PropagateOrphan
			if _, ctrl := p.Controller(); orphaned == ctrl {
				t.Errorf("orphaned %v, but names its Job as controller: %v", orphaned, ctrl)
			}
			f.pods.finalize()
			if _, ok := f.pod("pi-1"); ok != orphaned {
				t.Errorf("after the termination: exists %v", ok)
			}
		})
	}
}

// TestAPodTakenFromItsJobIsLetGo: an operator takes a running pod from
// its Job, as in Kubernetes by relabelling it out of the Job's selector;
// no Job will count it, so the Job lets it go, its controller reference
// and its finalizer, and deleting it later waits for nothing. A pod
// whose controller reference alone is taken off still matches, and the
// Job takes it back, as Kubernetes' does.
func TestAPodTakenFromItsJobIsLetGo(t *testing.T) {
	f := newFixture(t, nil)
	f.reconcile(t)
	f.pods.run()
	if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: "pi-1"}, domain.ReleasePod{UID: "uid-pi"}); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t)
	p, _ := f.pod("pi-1")
	if !f.job().Owns(p) || !slices.Contains(p.Finalizers, domain.JobTrackingFinalizer) {
		t.Fatalf("a pod whose reference alone was taken off: owned %v, finalizers %v; want it taken back, held", f.job().Owns(p), p.Finalizers)
	}
	if _, err := f.pods.Execute(t.Context(), domain.Key{Namespace: "default", Name: "pi-1"},
		domain.SetPodMetadata{Labels: map[string]string{"app": "taken"}, Annotations: p.Annotations, Finalizers: p.Finalizers}); err != nil {
		t.Fatal(err)
	}
	f.reconcile(t)
	p, _ = f.pod("pi-1")
	if _, ctrl := p.Controller(); ctrl || len(p.Finalizers) != 0 {
		t.Fatalf("the pod taken from its Job: controlled %v, finalizers %v; want neither", ctrl, p.Finalizers)
	}
	f.deletePod(t, "pi-1")
	f.pods.finalize()
	if _, ok := f.pod("pi-1"); ok {
		t.Error("the pod taken from its Job stayed after its deletion")
	}
}
