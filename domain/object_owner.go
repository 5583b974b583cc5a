package domain

import (
	"fmt"
	"slices"
	"time"
)

// What the object model does for a kind whose objects own others (a
// Deployment its ReplicaSets, a ReplicaSet its pods): the owner
// reference its dependents carry, a delete that says what becomes of
// them (Propagation), the end of a deletion in the foreground, and an
// owner reference taken off by the garbage collector.

// ObjectDeletionRequested records a deletion in the foreground: the
// object stays, being deleted, until its dependents are gone.
type ObjectDeletionRequested[S Spec[S, St], St any] struct {
	At time.Time
}

// EventType implements Event: the kind's own name for a deletion in the
// foreground.
func (ObjectDeletionRequested[S, St]) EventType() string { return kindOf[S, St]().DeletionRequested }

// Dependent is anything that names its owners: a pod, or an object on the
// model.
type Dependent interface {
	OwnerReferences() []OwnerReference
}

// OwnerReferences returns the object's owner references (Dependent).
func (m ObjectMeta) OwnerReferences() []OwnerReference { return m.Owners }

// OwnerReference is how the object's dependents name it: their
// controller, blocking its deletion in the foreground, as Kubernetes'
// controllers write it.
func (o Object[S, St]) OwnerReference() OwnerReference {
	k := kindOf[S, St]()
	return OwnerReference{APIVersion: k.APIVersion, Kind: k.Kind, Name: o.Name, UID: o.UID, Controller: true, BlockOwnerDeletion: true}
}

// Owns reports whether d is the object's: its controller owner reference
// names this object's kind and uid.
func (o Object[S, St]) Owns(d Dependent) bool {
	kind := kindOf[S, St]().Kind
	return slices.ContainsFunc(d.OwnerReferences(), func(r OwnerReference) bool {
		return r.Controller && r.Kind == kind && r.UID == o.UID
	})
}

// String is "namespace/name", as logs name the object.
func (o Object[S, St]) String() string { return fmt.Sprintf("%s/%s", o.Namespace, o.Name) }

// decidePropagatedDelete is the delete of an object that owns dependents,
// its dependents following as p says: deleted after it (Background), before it
// (Foreground: it stays, being deleted, until they are gone), or left
// without it (Orphan). An object already being deleted in the foreground
// records nothing new.
func decidePropagatedDelete[S Spec[S, St], St any](o Object[S, St], p Propagation, now time.Time) ([]Event, error) {
	if err := requireObject(o); err != nil {
		return nil, err
	}
	switch decideDeletion(p, o.DeletionRequestedAt != nil) {
	case deletionRequested:
		return []Event{ObjectDeletionRequested[S, St]{At: now}}, nil
	case deletionNow:
		return []Event{ObjectDeleted[S, St]{At: now}}, nil
	case deletionOrphaning:
		return []Event{ObjectDeleted[S, St]{Orphan: true, At: now}}, nil
	}
	return nil, nil
}

// decideFinishDeletion deletes an object being deleted in the foreground,
// once its dependents are gone; of any other it decides nothing.
func decideFinishDeletion[S Spec[S, St], St any](o Object[S, St], now time.Time) []Event {
	if !o.Exists() || o.DeletionRequestedAt == nil {
		return nil
	}
	return []Event{ObjectDeleted[S, St]{At: now}}
}

// decideReleaseOwner takes off the object's reference to the owner of
// uid, as the garbage collector does when that owner is deleted with its
// dependents orphaned; an object without one records nothing.
func decideReleaseOwner[S Spec[S, St], St any](o Object[S, St], uid string, now time.Time) ([]Event, error) {
	if err := requireObject(o); err != nil {
		return nil, err
	}
	owners, ok := withoutOwner(o.Owners, uid)
	if !ok {
		return nil, nil
	}
	return []Event{ObjectOwnersChanged[S, St]{Owners: owners, At: now}}, nil
}

// decideAdopt makes owner the controller of an object that has none, as
// a Kubernetes controller adopts an orphan its selector matches (the
// ControllerRefManager's patch of the object's ownerReferences). One
// already controlled by owner records nothing; one controlled by another,
// or being deleted, is refused with ErrConflict.
func decideAdopt[S Spec[S, St], St any](o Object[S, St], owner OwnerReference, now time.Time) ([]Event, error) {
	if err := requireObject(o); err != nil {
		return nil, err
	}
	k := kindOf[S, St]()
	if !owner.Controller || owner.Kind == "" || owner.Name == "" || owner.UID == "" {
		return nil, &InvalidError{Kind: k.Kind, Name: o.Name, Fields: []FieldError{{
			Field: "metadata.ownerReferences", Reason: "an adopting owner needs a kind, a name, a uid and controller true"}}}
	}
	for _, r := range o.Owners {
		if !r.Controller {
			continue
		}
		if r.UID == owner.UID {
			return nil, nil
		}
		return nil, fmt.Errorf("%s %s is controlled by %s %q: %w", k.Kind, o, r.Kind, r.Name, ErrConflict)
	}
	if o.DeletionRequestedAt != nil {
		return nil, fmt.Errorf("%s %s is being deleted: %w", k.Kind, o, ErrConflict)
	}
	// A reference to the same owner that is not its controller is
	// replaced, as the strategic merge patch keyed by uid replaces it.
	owners := slices.DeleteFunc(cloneSlice(o.Owners), func(r OwnerReference) bool { return r.UID == owner.UID })
	return []Event{ObjectOwnersChanged[S, St]{Owners: append(owners, owner), At: now}}, nil
}
