package daemonset

import (
	"cmp"
	"maps"
	"slices"
	"sync"

	"herd/domain"
	"herd/reconcilers"
)

// ownerIndex remembers, for each pod controlled by a DaemonSet, that
// DaemonSet's name, so that KeysFor can map an event of the pod's
// stream to its DaemonSet without reading anything: only the pod's
// creation and a change of its owners carry the owner references. It is
// what an informer's cache of the pods gives Kubernetes' controller.
// KeysFor keeps it from the events it sees; Reconcile fills it from the
// pods it lists, which covers the pods created before herd started.
type ownerIndex struct {
	mu sync.Mutex
	// byPod is the DaemonSet's name by the pod's key.
	byPod map[domain.Key]string
}

func newOwnerIndex() *ownerIndex { return &ownerIndex{byPod: map[domain.Key]string{}} }

// controllerName is the name of the DaemonSet that controls a pod with
// owners, or "" if none does.
func controllerName(owners []domain.OwnerReference) string {
	for _, o := range owners {
		if o.Controller && o.Kind == domain.KindDaemonSet {
			return o.Name
		}
	}
	return ""
}

// set records that the pod is controlled by the DaemonSet called ds, or
// by none when ds is empty, and returns the one recorded before.
func (ix *ownerIndex) set(pod domain.Key, ds string) (was string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	was = ix.byPod[pod]
	if ds == "" {
		delete(ix.byPod, pod)
	} else {
		ix.byPod[pod] = ds
	}
	return was
}

// get returns the name of the DaemonSet recorded for the pod, or "".
func (ix *ownerIndex) get(pod domain.Key) string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.byPod[pod]
}

// observe records the controllers of pods, all listed just now.
func (ix *ownerIndex) observe(pods []domain.Pod) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, p := range pods {
		k := domain.Key{Namespace: p.Namespace, Name: p.Name}
		if ds := controllerName(p.Owners); ds != "" {
			ix.byPod[k] = ds
		} else {
			delete(ix.byPod, k)
		}
	}
}

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
