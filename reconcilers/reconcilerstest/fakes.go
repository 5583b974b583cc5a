package reconcilerstest

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

// Object is what a Store keeps: one object of a kind, a tombstone
// included, with its key.
type Object interface {
	Key() domain.Key
	Exists() bool
}

// Store is a reader over a set of objects of one kind (ReplicaSets,
// Jobs, DaemonSets), and their executor: it decides each command at now
// as the unit of work would, folds the events into the object and
// records their types. It stands for a reconciler's view and repository
// in tests that run Reconcile on readers alone.
type Store[S Object, C any] struct {
	// Objects are the objects by key, tombstones included.
	Objects map[domain.Key]S
	// Err is what Last and List fail with, if set.
	Err error
	// Written are the types of the events executed, by the object's key
	// (its String).
	Written map[string][]string
	// Events are the types of every event executed, in order.
	Events []string
	now    func() time.Time
	decide func(S, C, time.Time) ([]domain.Event, error)
	evolve func(S, domain.Event) S
}

// NewStore is a Store of objs that decides with decide and folds events
// with evolve, at the times now gives.
func NewStore[S Object, C any](now func() time.Time, decide func(S, C, time.Time) ([]domain.Event, error),
	evolve func(S, domain.Event) S, objs ...S) *Store[S, C] {
	f := &Store[S, C]{Objects: map[domain.Key]S{}, Written: map[string][]string{}, now: now, decide: decide, evolve: evolve}
	for _, o := range objs {
		f.Objects[o.Key()] = o
	}
	return f
}

// Last is the object namespace/name as last written, a tombstone too, as
// the views' Last; domain.ErrNotFound if it never was.
func (f *Store[S, C]) Last(_ context.Context, namespace, name string) (S, error) {
	var zero S
	if f.Err != nil {
		return zero, f.Err
	}
	o, ok := f.Objects[domain.Key{Namespace: namespace, Name: name}]
	if !ok {
		return zero, domain.ErrNotFound
	}
	return o, nil
}

// List is the objects that exist in namespace (every namespace for ""),
// by key.
func (f *Store[S, C]) List(_ context.Context, namespace string) ([]S, int64, error) {
	if f.Err != nil {
		return nil, 0, f.Err
	}
	var out []S
	for _, k := range slices.SortedFunc(maps.Keys(f.Objects), compareKeys) {
		if o := f.Objects[k]; o.Exists() && (namespace == "" || k.Namespace == namespace) {
			out = append(out, o)
		}
	}
	return out, 0, nil
}

// Execute decides cmd on the object key names and keeps the outcome.
func (f *Store[S, C]) Execute(_ context.Context, key domain.Key, cmd C) (S, error) {
	o := f.Objects[key]
	evs, err := f.decide(o, cmd, f.now())
	if err != nil {
		var zero S
		return zero, err
	}
	for _, ev := range evs {
		o = f.evolve(o, ev)
		f.Written[key.String()] = append(f.Written[key.String()], ev.EventType())
		f.Events = append(f.Events, ev.EventType())
	}
	f.Objects[key] = o
	return o, nil
}

// Pods is a pod lister over a set of pods, and their executor, one at a
// time and in batches: it decides each command at now as the unit of
// work would, folds its events into the pods the lister returns, and
// records their types.
type Pods struct {
	// Pods are the pods by key, those being deleted included.
	Pods map[domain.Key]domain.Pod
	// ListErr is what List fails with, if set.
	ListErr error
	// BatchErr is what ExecuteBatch fails with, if set.
	BatchErr error
	// Written are the types of the events executed, by pod name
	// (namespace/name outside default).
	Written map[string][]string
	// Asked are the filters List was asked for, in order.
	Asked []projections.PodFilter
	// Batches are the sizes of the batches executed, in order.
	Batches []int
	now     func() time.Time
}

// NewPods is Pods of pods, deciding at the times now gives.
func NewPods(now func() time.Time, pods ...domain.Pod) *Pods {
	f := &Pods{Pods: map[domain.Key]domain.Pod{}, now: now, Written: map[string][]string{}}
	for _, p := range pods {
		f.Pods[domain.Key{Namespace: p.Namespace, Name: p.Name}] = p
	}
	return f
}

// List is the pods that exist and match filter's namespace, source, node
// and controllers, by key.
func (f *Pods) List(_ context.Context, filter projections.PodFilter) ([]domain.Pod, int64, error) {
	f.Asked = append(f.Asked, filter)
	if f.ListErr != nil {
		return nil, 0, f.ListErr
	}
	var out []domain.Pod
	for _, k := range slices.SortedFunc(maps.Keys(f.Pods), compareKeys) {
		p := f.Pods[k]
		if p.Exists() && (filter.Namespace == "" || p.Namespace == filter.Namespace) && (filter.Source == nil || p.Source == *filter.Source) &&
			(filter.NodeName == "" || p.Spec.NodeName == filter.NodeName) &&
			(filter.Controllers == nil || slices.Contains(filter.Controllers, projections.ControllerOf(p.Owners))) {
			out = append(out, p)
		}
	}
	return out, 1, nil
}

// decide decides cmd on the pod key names in pods and returns it
// afterwards without keeping it.
func (f *Pods) decide(pods map[domain.Key]domain.Pod, key domain.Key, cmd domain.PodCommand) (domain.Pod, []domain.Event, error) {
	p, ok := pods[key]
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

// record records evs against the pod key names.
func (f *Pods) record(key domain.Key, evs []domain.Event) {
	name := key.Name
	if key.Namespace != "default" {
		name = key.String()
	}
	for _, ev := range evs {
		f.Written[name] = append(f.Written[name], ev.EventType())
	}
}

// Execute decides cmd on the pod key names and keeps the outcome.
func (f *Pods) Execute(_ context.Context, key domain.Key, cmd domain.PodCommand) (domain.Pod, error) {
	p, evs, err := f.decide(f.Pods, key, cmd)
	if err != nil {
		return domain.Pod{}, err
	}
	f.Pods[key] = p
	f.record(key, evs)
	return p, nil
}

// ExecuteBatch decides every command, each on the pods as the commands
// before it left them, and keeps them all or, when one is refused and
// not lenient, none; a lenient command refused as a conflict or invalid
// is answered alone.
func (f *Pods) ExecuteBatch(_ context.Context, cmds []domain.Keyed[domain.PodCommand]) ([]domain.Pod, []error, error) {
	f.Batches = append(f.Batches, len(cmds))
	if f.BatchErr != nil {
		return nil, nil, f.BatchErr
	}
	next := maps.Clone(f.Pods)
	type written struct {
		key domain.Key
		evs []domain.Event
	}
	var (
		done    []written
		refused []error
	)
	states := make([]domain.Pod, len(cmds))
	for i, k := range cmds {
		p, evs, err := f.decide(next, k.Key, k.Command)
		if err != nil && k.Lenient && (errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrInvalid)) {
			if refused == nil {
				refused = make([]error, len(cmds))
			}
			refused[i] = err
			states[i] = next[k.Key]
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		next[k.Key], states[i] = p, p
		done = append(done, written{k.Key, evs})
	}
	f.Pods = next
	for _, w := range done {
		f.record(w.key, w.evs)
	}
	return states, refused, nil
}

// Names are the names of the pods kept, by key.
func (f *Pods) Names() []string {
	var out []string
	for _, k := range slices.SortedFunc(maps.Keys(f.Pods), compareKeys) {
		out = append(out, k.Name)
	}
	return out
}

func compareKeys(a, b domain.Key) int {
	return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}
