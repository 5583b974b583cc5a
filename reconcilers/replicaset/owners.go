package replicaset

import (
	"sync"

	"herd/domain"
)

// ownerIndex remembers, for each pod controlled by a ReplicaSet, that
// ReplicaSet's name, so that KeysFor can map an event of the pod's
// stream to its ReplicaSet without reading anything: only the pod's
// creation and a change of its owners carry the owner references, its
// status and its deletion do not. It is what an informer's cache of the
// pods gives Kubernetes' controller. KeysFor keeps it from the events it
// sees; Reconcile fills it from the pods it lists, which covers the pods
// created before herd started (every ReplicaSet is reconciled on the
// first resync).
type ownerIndex struct {
	mu sync.Mutex
	// byPod is the ReplicaSet's name by the pod's key.
	byPod map[domain.Key]string
}

func newOwnerIndex() *ownerIndex { return &ownerIndex{byPod: map[domain.Key]string{}} }

// controllerName is the name of the ReplicaSet that controls a pod with
// owners, or "" if none does.
func controllerName(owners []domain.OwnerReference) string {
	for _, o := range owners {
		if o.Controller && o.Kind == kindReplicaSet {
			return o.Name
		}
	}
	return ""
}

// set records that the pod is controlled by the ReplicaSet called rs,
// or by none when rs is empty, and returns the one recorded before.
func (ix *ownerIndex) set(pod domain.Key, rs string) (was string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	was = ix.byPod[pod]
	if rs == "" {
		delete(ix.byPod, pod)
	} else {
		ix.byPod[pod] = rs
	}
	return was
}

// get returns the name of the ReplicaSet recorded for the pod, or "".
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
		if rs := controllerName(p.Owners); rs != "" {
			ix.byPod[k] = rs
		} else {
			delete(ix.byPod, k)
		}
	}
}
