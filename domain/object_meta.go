package domain

import (
	"slices"
	"time"
)

// ObjectMeta is what every Kubernetes-shaped object of herd carries beside
// its spec and status, as metav1.ObjectMeta: its name, its labels and
// annotations, what it belongs to and what holds its deletion back, its
// generation, and where its deletion stands. Kinds on the object model
// (see Object) keep it once here instead of declaring each field again.
type ObjectMeta struct {
	Namespace string
	Name      string
	UID       string
	// Labels and Annotations are the client's; nil when empty.
	Labels      map[string]string
	Annotations map[string]string
	// Finalizers hold the object's deletion back until each is removed.
	Finalizers []string
	// Owners are the objects this one belongs to: the garbage collector
	// deletes it once they are all gone.
	Owners []OwnerReference
	// Generation counts the changes to the spec of a kind whose strategy
	// says a spec change is a new generation; 0 for the others.
	Generation int64
	// CreatedAt is when herd created the object, by herd's clock.
	CreatedAt time.Time
	// DeletionRequestedAt is when a deletion was asked for while
	// finalizers held it back (Kubernetes' deletionTimestamp).
	DeletionRequestedAt *time.Time
	// DeletionGracePeriodSeconds is the grace the deletion was given.
	DeletionGracePeriodSeconds *int64
}

// Key names the object.
func (m ObjectMeta) Key() Key { return Key{Namespace: m.Namespace, Name: m.Name} }

// Deleting reports whether the object's deletion was asked for and waits
// (for finalizers, or for its dependents in the foreground).
func (m ObjectMeta) Deleting() bool { return m.DeletionRequestedAt != nil }

// clone copies m so that no map or slice is shared; empty ones come back
// nil, as every clone of the domain does.
func (m ObjectMeta) clone() ObjectMeta {
	m.Labels = cloneStrings(m.Labels)
	m.Annotations = cloneStrings(m.Annotations)
	m.Finalizers = cloneSlice(m.Finalizers)
	m.Owners = cloneSlice(m.Owners)
	if m.DeletionRequestedAt != nil {
		t := *m.DeletionRequestedAt
		m.DeletionRequestedAt = &t
	}
	m.DeletionGracePeriodSeconds = cloneInt64(m.DeletionGracePeriodSeconds)
	return m
}

// metadataChanges lists, sorted, the paths of what differs between the
// metadata old and meta, for the audit log: each label and annotation
// ("metadata.labels.app") and the owner references
// ("metadata.ownerReferences").
func metadataChanges(old, meta ObjectMeta) []string {
	out := changedKeys("metadata.labels.", old.Labels, meta.Labels)
	out = append(out, changedKeys("metadata.annotations.", old.Annotations, meta.Annotations)...)
	if !semanticEqual(old.Owners, meta.Owners) {
		out = append(out, "metadata.ownerReferences")
	}
	slices.Sort(out)
	return out
}

// changedKeys lists the keys whose values differ between a and b (one
// that is in only one of them included), each after prefix.
func changedKeys(prefix string, a, b map[string]string) []string {
	var out []string
	for k := range keysOfBoth(a, b) {
		va, ina := a[k]
		vb, inb := b[k]
		if ina != inb || va != vb {
			out = append(out, prefix+k)
		}
	}
	return out
}

// keysOfBoth yields every key of a and of b once.
func keysOfBoth[V any](a, b map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range a {
			if !yield(k) {
				return
			}
		}
		for k := range b {
			if _, dup := a[k]; dup {
				continue
			}
			if !yield(k) {
				return
			}
		}
	}
}
