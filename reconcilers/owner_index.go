package reconcilers

import (
	"sync"

	"herd/domain"
	"herd/events"
)

// OwnerIndex remembers, for each object controlled by an owner of one
// kind (a pod by its ReplicaSet, a ReplicaSet by its Deployment), that
// owner's name, so that KeysFor can map an event of the object's stream
// to its owner without reading anything: only an object's creation and a
// change of its owners carry the owner references, its status and its
// deletion do not. It is what an informer's cache gives Kubernetes'
// controllers. KeysFor keeps it from the events it sees; Reconcile fills
// it from the objects it lists, which covers those created before herd
// started (every owner is reconciled on the first resync).
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

// PodKeys maps an event of a pod's stream to the keys, of aggregate, of
// the owners it concerns, keeping the index as the event leaves the pod:
// the owner before and after a change of owners, the owner recorded
// for any other event, and none once the pod is finalized (when the
// owner is told one last time). unreadable is told of an event that
// cannot be decoded, which only a log written by a newer herd could hold.
func (ix *OwnerIndex) PodKeys(rec events.Record, aggregate *domain.Aggregate, unreadable func(events.Record, error)) []Key {
	k, ok := KeyOf(rec)
	if !ok || k.Aggregate != domain.PodAggregate {
		return nil
	}
	pod := domain.Key{Namespace: k.Namespace, Name: k.Name}
	keys := func(names ...string) []Key {
		var out []Key
		for _, n := range names {
			if n != "" {
				out = append(out, Key{Aggregate: aggregate, Namespace: pod.Namespace, Name: n})
			}
		}
		return out
	}
	var owners []domain.OwnerReference
	switch {
	case Is[domain.PodCreated](rec):
		ev, err := Decode[domain.PodCreated](rec)
		if err != nil {
			unreadable(rec, err)
			return nil
		}
		owners = ev.Owners
	case Is[domain.PodOwnersChanged](rec):
		ev, err := Decode[domain.PodOwnersChanged](rec)
		if err != nil {
			unreadable(rec, err)
			return nil
		}
		owners = ev.Owners
	case Is[domain.PodFinalized](rec):
		return keys(ix.Set(pod, ""))
	default:
		return keys(ix.Get(pod))
	}
	now := ix.Controller(owners)
	if was := ix.Set(pod, now); was != now {
		return keys(was, now)
	}
	return keys(now)
}

// ObservePods records the controllers of pods, all listed just now.
func (ix *OwnerIndex) ObservePods(pods []domain.Pod) {
	for _, p := range pods {
		ix.Observe(domain.Key{Namespace: p.Namespace, Name: p.Name}, p.Owners)
	}
}
