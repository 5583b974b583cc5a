package daemonset

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

// fakeDaemonSets is a Reader over a fixed set of DaemonSets, and their
// Executor: it decides each command at now as the unit of work would
// and records the events it would append.
type fakeDaemonSets struct {
	sets    map[domain.Key]domain.DaemonSet
	now     func() time.Time
	written map[string][]string // event types by DaemonSet
}

var (
	_ Reader                                                     = (*fakeDaemonSets)(nil)
	_ domain.Executor[domain.DaemonSet, domain.DaemonSetCommand] = (*fakeDaemonSets)(nil)
)

func newFakeDaemonSets(now func() time.Time, sets ...domain.DaemonSet) *fakeDaemonSets {
	f := &fakeDaemonSets{sets: map[domain.Key]domain.DaemonSet{}, now: now, written: map[string][]string{}}
	for _, ds := range sets {
		f.sets[ds.Key()] = ds
	}
	return f
}

func (f *fakeDaemonSets) Last(_ context.Context, namespace, name string) (domain.DaemonSet, error) {
	ds, ok := f.sets[domain.Key{Namespace: namespace, Name: name}]
	if !ok {
		return domain.DaemonSet{}, domain.ErrNotFound
	}
	return ds, nil // a tombstone too, as the view's Last
}

func (f *fakeDaemonSets) List(_ context.Context, namespace string) ([]domain.DaemonSet, int64, error) {
	var out []domain.DaemonSet
	for _, k := range slices.SortedFunc(maps.Keys(f.sets), compareKeys) {
		if ds := f.sets[k]; ds.Exists() && (namespace == "" || ds.Namespace == namespace) {
			out = append(out, ds)
		}
	}
	return out, 0, nil
}

func (f *fakeDaemonSets) Execute(_ context.Context, key domain.Key, cmd domain.DaemonSetCommand) (domain.DaemonSet, error) {
	ds := f.sets[key]
	evs, err := domain.DecideDaemonSet(ds, cmd, f.now())
	if err != nil {
		return domain.DaemonSet{}, err
	}
	for _, ev := range evs {
		ds = domain.EvolveDaemonSet(ds, ev)
		f.written[key.String()] = append(f.written[key.String()], ev.EventType())
	}
	f.sets[key] = ds
	return ds, nil
}

// fakeNodes is a NodeLister over a set of nodes.
type fakeNodes struct {
	nodes map[string]domain.Node
	lists int
}

var _ NodeLister = (*fakeNodes)(nil)

func (f *fakeNodes) List(context.Context) ([]domain.Node, int64, error) {
	f.lists++
	var out []domain.Node
	for _, name := range slices.Sorted(maps.Keys(f.nodes)) {
		if n := f.nodes[name]; n.Exists() {
			out = append(out, n)
		}
	}
	return out, 0, nil
}

// fakePods is a PodLister over a set of pods, and their PodCommands: it
// decides each command at now as the unit of work would, folds its
// events into the pods the lister returns, and records their types.
type fakePods struct {
	pods    map[domain.Key]domain.Pod
	now     func() time.Time
	written map[string][]string // event types by pod name (namespace/name outside default)
	asked   []projections.PodFilter
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
	var out []domain.Pod
	for _, k := range slices.SortedFunc(maps.Keys(f.pods), compareKeys) {
		p := f.pods[k]
		if p.Exists() && (filter.Namespace == "" || p.Namespace == filter.Namespace) && (filter.Source == nil || p.Source == *filter.Source) &&
			(filter.NodeName == "" || p.Spec.NodeName == filter.NodeName) &&
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
