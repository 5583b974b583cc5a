package daemonset

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"herd/reconcilers"
)

// registry is the DaemonSets the reconciler knows of, which a node's
// events concern: every one, as Kubernetes' controller hands a changed
// node to each DaemonSet its lister holds. Resync and the DaemonSets'
// own events keep it.
type registry struct {
	mu  sync.Mutex
	set map[reconcilers.Key]struct{}
}

func newRegistry() *registry { return &registry{set: map[reconcilers.Key]struct{}{}} }

func (g *registry) add(k reconcilers.Key) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.set[k] = struct{}{}
}

func (g *registry) forget(k reconcilers.Key) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.set, k)
}

// keys are the DaemonSets known, in key order.
func (g *registry) keys() []reconcilers.Key {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.SortedFunc(maps.Keys(g.set), func(a, b reconcilers.Key) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
}
