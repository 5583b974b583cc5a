package reconcilers

import (
	"slices"
	"sync"

	"herd/domain"
)

// SelectorIndex remembers the selectors of a controller kind's objects
// (a ReplicaSet's, a DaemonSet's), by namespace, so that an orphan
// created or relabelled maps to the controllers that may adopt it
// without reading anything (Watches.Adopts), as Kubernetes' controllers
// find them in their informer's cache when a pod without a controller
// comes. A reconciler records each object's selector when it reconciles
// it and forgets it when the object is gone or being deleted: an object
// created is reconciled at once, and every one on the first resync.
type SelectorIndex struct {
	mu sync.RWMutex
	// byNamespace is each object's selector by its name.
	byNamespace map[string]map[string]domain.LabelSelector
}

// NewSelectorIndex returns an empty index.
func NewSelectorIndex() *SelectorIndex {
	return &SelectorIndex{byNamespace: map[string]map[string]domain.LabelSelector{}}
}

// Set records the selector of the object key names; an empty selector,
// which would select every object, is no selector to adopt by and
// forgets the object.
func (sx *SelectorIndex) Set(key domain.Key, sel domain.LabelSelector) {
	if sel.Empty() {
		sx.Forget(key)
		return
	}
	sx.mu.Lock()
	defer sx.mu.Unlock()
	ns := sx.byNamespace[key.Namespace]
	if ns == nil {
		ns = map[string]domain.LabelSelector{}
		sx.byNamespace[key.Namespace] = ns
	}
	ns[key.Name] = sel
}

// Track records, as a reconcile reads the object key names, whether it
// adopts orphans now (it exists and is not being deleted: Kubernetes'
// controllers adopt nothing for an owner on its way out) and by which
// selector: Set when it does, Forget when it does not.
func (sx *SelectorIndex) Track(key domain.Key, sel domain.LabelSelector, adopts bool) {
	if adopts {
		sx.Set(key, sel)
	} else {
		sx.Forget(key)
	}
}

// Forget forgets the object key names.
func (sx *SelectorIndex) Forget(key domain.Key) {
	sx.mu.Lock()
	defer sx.mu.Unlock()
	if ns := sx.byNamespace[key.Namespace]; ns != nil {
		delete(ns, key.Name)
		if len(ns) == 0 {
			delete(sx.byNamespace, key.Namespace)
		}
	}
}

// Matching are the names, sorted, of namespace's objects whose selector
// matches labels.
func (sx *SelectorIndex) Matching(namespace string, labels map[string]string) []string {
	sx.mu.RLock()
	defer sx.mu.RUnlock()
	var out []string
	for name, sel := range sx.byNamespace[namespace] {
		if sel.Matches(labels) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
