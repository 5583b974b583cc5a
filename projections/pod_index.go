package projections

import (
	"context"
	"slices"
	"strings"
	"sync"

	"herd/domain"
)

// podIndex is every pod the pod view lists (not finalized), kept in
// memory by the Writer from the pod states it commits (an Observer), so
// that the reconcilers' lists of pods by node (a node's change) and of
// the pending ones (every scheduling pass) do not each run a statement on
// a connection whose page cache the last commit emptied. It is filled
// from the rows on its first use and only where the Writer's unit of work
// sees every append (SQLite); on PostgreSQL, where another replica may
// write pods, it is never used and every list reads the rows.
type podIndex struct {
	mu     sync.RWMutex
	loaded bool
	// pods are the pods not finalized, by namespace/name.
	pods map[string]domain.Pod
}

// observe is the index's Observer of committed pod states: a pod
// finalized leaves it, any other state replaces the one it holds. It
// does nothing until the index is loaded (the load's rows already show
// every commit whose observer ran before it). Observers run in commit
// order on the one committing goroutine, so a pod's states arrive in
// order; a state older than the one held (a commit the load's rows
// already showed) is ignored.
func (x *podIndex) observe(p domain.Pod, _ []domain.Event) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		return
	}
	key := p.Namespace + "/" + p.Name
	if old, ok := x.pods[key]; ok && old.Version > p.Version {
		return
	}
	if p.Finalized {
		delete(x.pods, key)
		return
	}
	x.pods[key] = p
}

// load fills the index from the rows, once. It holds the index's lock
// while it reads, so that an observer of a commit after the read waits
// and applies its state on top of the rows, and one of a commit before
// it finds the state already there.
func (x *podIndex) load(ctx context.Context, v *PodView) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.loaded {
		return nil
	}
	all, _, err := v.List(ctx, PodFilter{})
	if err != nil {
		return err
	}
	x.pods = make(map[string]domain.Pod, len(all))
	for _, p := range all {
		x.pods[p.Namespace+"/"+p.Name] = p
	}
	x.loaded = true
	return nil
}

// list returns the pods that match f, by namespace and name, as
// PodView.List orders them.
func (x *podIndex) list(f PodFilter) []domain.Pod {
	x.mu.RLock()
	out := make([]domain.Pod, 0)
	for _, p := range x.pods {
		if matches(p, f) {
			out = append(out, p)
		}
	}
	x.mu.RUnlock()
	slices.SortFunc(out, func(a, b domain.Pod) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// matches is PodView.List's WHERE clause for a pod that is not
// finalized, on the same columns (podRowOf).
func matches(p domain.Pod, f PodFilter) bool {
	if f.Namespace != "" && p.Namespace != f.Namespace {
		return false
	}
	switch {
	case f.Unbound:
		if p.Spec.NodeName != "" {
			return false
		}
	case f.NodeName != "":
		if p.Spec.NodeName != f.NodeName {
			return false
		}
	}
	if f.Phase != "" && p.Status.Phase != f.Phase {
		return false
	}
	if f.Source != nil && p.Source != *f.Source {
		return false
	}
	if f.Terminating && !p.Terminating() {
		return false
	}
	if f.Controllers != nil && !slices.Contains(f.Controllers, ControllerOf(p.Owners)) {
		return false
	}
	return true
}

// podStreams is the prefix of every pod's stream in the log.
var podStreams = domain.PodAggregate.Stream("")

// Remembering is v answering Pods, where it can, from the pods w
// committed, kept in memory (podIndex), instead of reading their rows.
func (v *PodView) Remembering(w *Writer) *PodView { return &PodView{db: v.db, w: w} }

// Pods returns the pods that match f, by namespace and name: List
// without the resourceVersion, for the reconcilers, which do not need
// it. A view that remembers (Remembering) answers from memory where the
// Writer sees every commit (SQLite) and no commit of a pod is under way;
// it reads the rows otherwise, as List does.
func (v *PodView) Pods(ctx context.Context, f PodFilter) ([]domain.Pod, error) {
	w := v.w
	if w == nil || !w.unit.Authoritative() {
		pods, _, err := v.List(ctx, f)
		return pods, err
	}
	if err := w.podIndex.load(ctx, &PodView{db: v.db}); err != nil {
		return nil, err
	}
	if w.unit.Committing(podStreams) {
		pods, _, err := v.List(ctx, f)
		return pods, err
	}
	return w.podIndex.list(f), nil
}
