package job

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"time"

	"herd/domain"
	"herd/projections"
)

// fakeJobs is a Reader over a set of Jobs, and their Executor: it
// decides each command at now as the unit of work would and records the
// events it would append.
type fakeJobs struct {
	jobs    map[domain.Key]domain.Job
	now     func() time.Time
	written []string // event types, in order
}

var (
	_ Reader                                         = (*fakeJobs)(nil)
	_ domain.Executor[domain.Job, domain.JobCommand] = (*fakeJobs)(nil)
)

func newFakeJobs(now func() time.Time, jobs ...domain.Job) *fakeJobs {
	f := &fakeJobs{jobs: map[domain.Key]domain.Job{}, now: now}
	for _, j := range jobs {
		f.jobs[j.Key()] = j
	}
	return f
}

func (f *fakeJobs) Last(_ context.Context, namespace, name string) (domain.Job, error) {
	j, ok := f.jobs[domain.Key{Namespace: namespace, Name: name}]
	if !ok {
		return domain.Job{}, domain.ErrNotFound
	}
	return j, nil // a tombstone too, as the view's Last
}

func (f *fakeJobs) List(_ context.Context, namespace string) ([]domain.Job, int64, error) {
	var out []domain.Job
	for _, k := range slices.SortedFunc(maps.Keys(f.jobs), compareKeys) {
		if j := f.jobs[k]; j.Exists() && (namespace == "" || j.Namespace == namespace) {
			out = append(out, j)
		}
	}
	return out, 0, nil
}

func (f *fakeJobs) Execute(_ context.Context, key domain.Key, cmd domain.JobCommand) (domain.Job, error) {
	j := f.jobs[key]
	evs, err := domain.DecideJob(j, cmd, f.now())
	if err != nil {
		return domain.Job{}, err
	}
	for _, ev := range evs {
		j = domain.EvolveJob(j, ev)
		j.ResourceVersion++
		f.written = append(f.written, ev.EventType())
	}
	f.jobs[key] = j
	return j, nil
}

// fakePods is a PodLister over a set of pods, and their batch executor:
// it decides each command at now, folds its events into the pods the
// lister returns, and records their types.
type fakePods struct {
	pods    map[domain.Key]domain.Pod
	now     func() time.Time
	written []string // "TYPE name", in order
}

var (
	_ PodLister   = (*fakePods)(nil)
	_ PodCommands = (*fakePods)(nil)
)

func newFakePods(now func() time.Time) *fakePods {
	return &fakePods{pods: map[domain.Key]domain.Pod{}, now: now}
}

func (f *fakePods) List(_ context.Context, filter projections.PodFilter) ([]domain.Pod, int64, error) {
	var out []domain.Pod
	for _, k := range slices.SortedFunc(maps.Keys(f.pods), compareKeys) {
		if p := f.pods[k]; p.Exists() && p.Namespace == filter.Namespace &&
			(filter.Controllers == nil || slices.Contains(filter.Controllers, projections.ControllerOf(p.Owners))) {
			out = append(out, p)
		}
	}
	return out, 1, nil
}

// ExecuteBatch decides every command, and keeps them all or none.
func (f *fakePods) ExecuteBatch(_ context.Context, cmds []domain.Keyed[domain.PodCommand]) ([]domain.Pod, []error, error) {
	next := maps.Clone(f.pods)
	var written []string
	states := make([]domain.Pod, len(cmds))
	for i, k := range cmds {
		p, ok := next[k.Key]
		if !ok {
			p = domain.Pod{Namespace: k.Key.Namespace, Name: k.Key.Name}
		}
		evs, err := domain.DecidePod(p, k.Command, f.now())
		if err != nil {
			return nil, nil, err
		}
		for _, ev := range evs {
			p = domain.EvolvePod(p, ev)
			written = append(written, ev.EventType()+" "+k.Key.Name)
		}
		next[k.Key], states[i] = p, p
	}
	f.pods, f.written = next, append(f.written, written...)
	return states, nil, nil
}

// finish ends the pod called name with phase, as its runtime reports it.
func (f *fakePods) finish(name string, phase domain.PodPhase) {
	k := domain.Key{Namespace: "default", Name: name}
	p := f.pods[k]
	p.Status = domain.PodStatus{Phase: phase}
	f.pods[k] = p
}

// run marks every pod running and ready on n1.
func (f *fakePods) run() {
	for k, p := range f.pods {
		if p.Status.Phase == domain.PodPending && !p.Terminating() {
			p.Spec.NodeName = "n1"
			p.Status = domain.PodStatus{Phase: domain.PodRunning, Conditions: []domain.PodCondition{{Type: domain.PodConditionReady, Status: domain.ConditionTrue}}}
			f.pods[k] = p
		}
	}
}

// finalize removes every pod being deleted, as the termination
// reconciler does once it has stopped.
func (f *fakePods) finalize() {
	for k, p := range f.pods {
		if p.Terminating() {
			delete(f.pods, k)
		}
	}
}

// names are the names of the pods that exist, in order.
func (f *fakePods) names() []string {
	var out []string
	for _, k := range slices.SortedFunc(maps.Keys(f.pods), compareKeys) {
		out = append(out, k.Name)
	}
	return out
}

func compareKeys(a, b domain.Key) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}
