package job

import (
	"time"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// fakeJobs is a Reader over a set of Jobs, and their Executor
// (reconcilerstest.Store), which moves a Job's resourceVersion with each
// event as the views do.
type fakeJobs = reconcilerstest.Store[domain.Job, domain.JobCommand]

var (
	_ Reader                                         = (*fakeJobs)(nil)
	_ domain.Executor[domain.Job, domain.JobCommand] = (*fakeJobs)(nil)
	_ PodLister                                      = (*fakePods)(nil)
	_ PodCommands                                    = (*fakePods)(nil)
)

func newFakeJobs(now func() time.Time, jobs ...domain.Job) *fakeJobs {
	evolve := func(j domain.Job, ev domain.Event) domain.Job {
		j = domain.EvolveJob(j, ev)
		j.ResourceVersion++
		return j
	}
	return reconcilerstest.NewStore(now, domain.DecideJob, evolve, jobs...)
}

// fakePods is a PodLister over a set of pods, and their batch executor
// (reconcilerstest.Pods), which the test moves on as the pods' runtime
// and the termination reconciler would.
type fakePods struct{ *reconcilerstest.Pods }

func newFakePods(now func() time.Time) *fakePods { return &fakePods{reconcilerstest.NewPods(now)} }

// finish ends the pod called name with phase, as its runtime reports it.
func (f *fakePods) finish(name string, phase domain.PodPhase) {
	k := domain.Key{Namespace: "default", Name: name}
	p := f.Pods.Pods[k]
	p.Status = domain.PodStatus{Phase: phase}
	f.Pods.Pods[k] = p
}

// run marks every pod running and ready on n1.
func (f *fakePods) run() {
	for k, p := range f.Pods.Pods {
		if p.Status.Phase == domain.PodPending && !p.Terminating() {
			p.Spec.NodeName = "n1"
			p.Status = domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}
			f.Pods.Pods[k] = p
		}
	}
}

// finalize removes every pod being deleted that no finalizer holds, as
// the termination reconciler does once it has stopped.
func (f *fakePods) finalize() {
	for k, p := range f.Pods.Pods {
		if p.Terminating() && len(p.Finalizers) == 0 {
			delete(f.Pods.Pods, k)
		}
	}
}
