package replicaset

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"herd/domain"
	"herd/projections"
)

// fakeReplicaSets is a Reader over a fixed set of ReplicaSets, and their
// Executor: it decides each command at now as the unit of work would
// and records the events it would append.
type fakeReplicaSets struct {
	sets    map[domain.Key]domain.ReplicaSet
	err     error // what Get and List fail with, if set
	now     func() time.Time
	written map[string][]string // event types by ReplicaSet
}

var (
	_ Reader                                                       = (*fakeReplicaSets)(nil)
	_ domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand] = (*fakeReplicaSets)(nil)
)

func newFakeReplicaSets(now func() time.Time, sets ...domain.ReplicaSet) *fakeReplicaSets {
	f := &fakeReplicaSets{sets: map[domain.Key]domain.ReplicaSet{}, now: now, written: map[string][]string{}}
	for _, rs := range sets {
		f.sets[rs.Key()] = rs
	}
	return f
}

func (f *fakeReplicaSets) Last(_ context.Context, namespace, name string) (domain.ReplicaSet, error) {
	if f.err != nil {
		return domain.ReplicaSet{}, f.err
	}
	rs, ok := f.sets[domain.Key{Namespace: namespace, Name: name}]
	if !ok {
		return domain.ReplicaSet{}, domain.ErrNotFound
	}
	return rs, nil
}

func (f *fakeReplicaSets) List(_ context.Context, namespace string) ([]domain.ReplicaSet, int64, error) {
	if f.err != nil {
		return nil, 0, f.err
	}
	var out []domain.ReplicaSet
	for _, k := range slices.SortedFunc(maps.Keys(f.sets), compareKeys) {
		if rs := f.sets[k]; rs.Exists() && (namespace == "" || rs.Namespace == namespace) {
			out = append(out, rs)
		}
	}
	return out, 0, nil
}

func (f *fakeReplicaSets) Execute(_ context.Context, key domain.Key, cmd domain.ReplicaSetCommand) (domain.ReplicaSet, error) {
	rs := f.sets[key]
	evs, err := domain.DecideReplicaSet(rs, cmd, f.now())
	if err != nil {
		return domain.ReplicaSet{}, err
	}
	for _, ev := range evs {
		rs = domain.EvolveReplicaSet(rs, ev)
		f.written[key.String()] = append(f.written[key.String()], ev.EventType())
	}
	f.sets[key] = rs
	return rs, nil
}

// fakePods is a PodLister over a set of pods, and their PodCommands: it
// decides each command at now as the unit of work would, folds its
// events into the pods the lister returns, and records their types.
type fakePods struct {
	pods    map[domain.Key]domain.Pod
	listErr error // what List fails with, if set
	// batchErr is what ExecuteBatch fails with, if set.
	batchErr error
	now      func() time.Time
	written  map[string][]string // event types by pod name (namespace/name outside default)
	asked    []projections.PodFilter
	batches  []int // the size of each batch executed
}

var (
	_ PodLister   = (*fakePods)(nil)
	_ PodCommands = (*fakePods)(nil)
)

func newFakePods(now func() time.Time, pods ...domain.Pod) *fakePods {
	f := &fakePods{pods: map[domain.Key]domain.Pod{}, now: now, written: map[string][]string{}}
	for _, p := range pods {
		f.pods[domain.Key{Namespace: p.Namespace, Name: p.Name}] = p
	}
	return f
}

func (f *fakePods) List(_ context.Context, filter projections.PodFilter) ([]domain.Pod, int64, error) {
	f.asked = append(f.asked, filter)
	if f.listErr != nil {
		return nil, 0, f.listErr
	}
	var out []domain.Pod
	for _, k := range slices.SortedFunc(maps.Keys(f.pods), compareKeys) {
		p := f.pods[k]
		if p.Exists() && (filter.Namespace == "" || p.Namespace == filter.Namespace) && (filter.Source == nil || p.Source == *filter.Source) &&
			(filter.Controllers == nil || slices.Contains(filter.Controllers, projections.ControllerOf(p.Owners))) {
			out = append(out, p)
		}
	}
	return out, 1, nil
}

// decide decides cmd on the pod key names and returns it afterwards
// without keeping it.
func (f *fakePods) decide(key domain.Key, cmd domain.PodCommand) (domain.Pod, []domain.Event, error) {
	p, ok := f.pods[key]
	if !ok {
		p = domain.Pod{Namespace: key.Namespace, Name: key.Name}
	}
	evs, err := domain.DecidePod(p, cmd, f.now())
	if err != nil {
		return domain.Pod{}, nil, err
	}
	for _, ev := range evs {
		p = domain.EvolvePod(p, ev)
	}
	return p, evs, nil
}

// keep stores p and records evs against it.
func (f *fakePods) keep(key domain.Key, p domain.Pod, evs []domain.Event) {
	f.pods[key] = p
	name := key.Name
	if key.Namespace != "default" {
		name = key.String()
	}
	for _, ev := range evs {
		f.written[name] = append(f.written[name], ev.EventType())
	}
}

func (f *fakePods) Execute(_ context.Context, key domain.Key, cmd domain.PodCommand) (domain.Pod, error) {
	p, evs, err := f.decide(key, cmd)
	if err != nil {
		return domain.Pod{}, err
	}
	f.keep(key, p, evs)
	return p, nil
}

// ExecuteBatch decides every command, and keeps them all or, when one
// is refused and not lenient, none.
func (f *fakePods) ExecuteBatch(_ context.Context, cmds []domain.Keyed[domain.PodCommand]) ([]domain.Pod, []error, error) {
	f.batches = append(f.batches, len(cmds))
	if f.batchErr != nil {
		return nil, nil, f.batchErr
	}
	type result struct {
		key domain.Key
		p   domain.Pod
		evs []domain.Event
	}
	var (
		results []result
		refused []error
	)
	states := make([]domain.Pod, len(cmds))
	for i, k := range cmds {
		p, evs, err := f.decide(k.Key, k.Command)
		if err != nil && k.Lenient && (errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrInvalid)) {
			if refused == nil {
				refused = make([]error, len(cmds))
			}
			refused[i] = err
			states[i] = f.pods[k.Key]
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		states[i] = p
		results = append(results, result{k.Key, p, evs})
	}
	for _, r := range results {
		f.keep(r.key, r.p, r.evs)
	}
	return states, refused, nil
}

func compareKeys(a, b domain.Key) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}
