package reconcilers

import (
	"sync"

	"herd/domain"
)

// OwnerIndex remembers, for each object controlled by an owner of one
// kind (a pod by its ReplicaSet, a ReplicaSet by its Deployment), that
// owner's name, so that an event of the object's stream maps to its owner
// without reading anything: only an object's creation and a change of
// its owners carry the owner references, its status and its deletion do
// not. It is what an informer's cache gives Kubernetes' controllers. The
// mapping that Watches.Owns derives keeps it from the events it sees;
// Reconcile fills it from the objects it lists, which covers those
// created before herd started (every owner is reconciled on the first
// resync).
type OwnerIndex struct {
	kind string
	mu   sync.Mutex
	// byKey is the owner's name by the object's key.
	byKey map[domain.Key]string
}

// NewOwnerIndex returns an empty index of the objects controlled by
// owners of kind ("ReplicaSet").
func NewOwnerIndex(kind string) *OwnerIndex {
	return &OwnerIndex{kind: kind, byKey: map[domain.Key]string{}}
}

// Controller is the name of the owner of the index's kind that controls
// an object with owners, or "" if none does.
func (ix *OwnerIndex) Controller(owners []domain.OwnerReference) string {
	for _, o := range owners {
		if o.Controller && o.Kind == ix.kind {
			return o.Name
		}
	}
	return ""
}

// Set records that the object is controlled by the owner called owner,
// or by none when owner is empty, and returns the one recorded before.
func (ix *OwnerIndex) Set(key domain.Key, owner string) (was string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	was = ix.byKey[key]
	if owner == "" {
		delete(ix.byKey, key)
	} else {
		ix.byKey[key] = owner
	}
	return was
}

// Get returns the name of the owner recorded for the object, or "".
func (ix *OwnerIndex) Get(key domain.Key) string {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.byKey[key]
}

// Observe records the controller of an object listed just now, from its
// owners.
func (ix *OwnerIndex) Observe(key domain.Key, owners []domain.OwnerReference) {
	ix.Set(key, ix.Controller(owners))
}

// ObservePods records the controllers of pods, all listed just now.
func (ix *OwnerIndex) ObservePods(pods []domain.Pod) {
	for _, p := range pods {
		ix.Observe(domain.Key{Namespace: p.Namespace, Name: p.Name}, p.Owners)
	}
}
