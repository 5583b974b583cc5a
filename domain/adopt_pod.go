package domain

import (
	"fmt"
	"slices"
	"time"
)

// AdoptPod makes Owner the controller of a pod that has none, as a
// Kubernetes controller adopts an orphan that its selector matches (the
// ControllerRefManager's patch of the pod's ownerReferences). A pod whose
// controller is already Owner (by UID) is left as it is; a pod that has
// another controller is refused with ErrConflict, since a pod has at most
// one. A pod being deleted is not adopted: Kubernetes leaves it to go.
type AdoptPod struct {
	// Owner is the new controller; its Controller flag must be set.
	Owner OwnerReference
}

func (c AdoptPod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	o := c.Owner
	var errs []FieldError
	if !o.Controller {
		errs = append(errs, FieldError{Field: "metadata.ownerReferences.controller", Reason: "must be true to adopt"})
	}
	if o.Kind == "" || o.Name == "" || o.UID == "" {
		errs = append(errs, FieldError{Field: "metadata.ownerReferences", Reason: "kind, name and uid are required"})
	}
	if err := invalid("Pod", p.Name, errs); err != nil {
		return nil, err
	}
	if ctrl, ok := p.Controller(); ok {
		if ctrl.UID == o.UID {
			return nil, nil
		}
		return nil, fmt.Errorf("%s is controlled by %s %q: %w", podRef(p), ctrl.Kind, ctrl.Name, ErrConflict)
	}
	if p.Terminating() {
		return nil, fmt.Errorf("%s is being deleted: %w", podRef(p), ErrConflict)
	}
	// A reference to the same owner that is not its controller is
	// replaced, as the strategic merge patch keyed by uid replaces it.
	owners := slices.DeleteFunc(slices.Clone(p.Owners), func(r OwnerReference) bool { return r.UID == o.UID })
	return []Event{PodOwnersChanged{Owners: append(owners, o), At: now}}, nil
}

// ReleasePod removes the owner reference with UID from a pod, as a
// Kubernetes controller releases a pod it owns that its selector no
// longer matches; the pod becomes an orphan any matching controller may
// adopt. A pod without that reference is left as it is.
type ReleasePod struct {
	// UID is the owner's UID.
	UID string
}

func (c ReleasePod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if c.UID == "" {
		return nil, invalid("Pod", p.Name, []FieldError{{Field: "metadata.ownerReferences.uid", Reason: "Required value"}})
	}
	owners := slices.DeleteFunc(slices.Clone(p.Owners), func(r OwnerReference) bool { return r.UID == c.UID })
	if len(owners) == len(p.Owners) {
		return nil, nil
	}
	return []Event{PodOwnersChanged{Owners: cloneSlice(owners), At: now}}, nil
}

// Controller returns the pod's controller, the owner reference with
// Controller set, and whether it has one.
func (p Pod) Controller() (OwnerReference, bool) {
	for _, o := range p.Owners {
		if o.Controller {
			return o, true
		}
	}
	return OwnerReference{}, false
}
