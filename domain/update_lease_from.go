package domain

import (
	"fmt"
	"time"
)

// UpdateLeaseFrom is a PUT or a PATCH of a lease: Next makes the update
// from the lease as it stands inside the unit of work. A node's lease
// that herd only derived from the node (Derived) and does not store is
// created from the update instead, whatever resourceVersion it names:
// there is nothing stored it could be stale against. Any other lease that
// does not exist is refused with ErrNotFound.
type UpdateLeaseFrom struct {
	// Next makes the update from the lease; it must be pure.
	Next func(Lease) (UpdateLease, error)
	// Derived, when set, is the node's lease as herd derives it, the base
	// of the update when no lease is stored.
	Derived *Lease
	// UID is the UID of a lease created from Derived.
	UID string
}

func (c UpdateLeaseFrom) decideLease(l Lease, now time.Time) ([]Event, error) {
	if !l.Exists() && c.Derived != nil {
		cmd, err := c.Next(*c.Derived)
		if err != nil {
			return nil, err
		}
		return DecideLease(l, CreateLease{Namespace: l.Namespace, Name: l.Name, UID: c.UID, Content: cmd.Content}, now)
	}
	if !l.Exists() {
		return nil, fmt.Errorf("leases.coordination.k8s.io %q not found: %w", l.Name, ErrNotFound)
	}
	cmd, err := c.Next(l)
	if err != nil {
		return nil, err
	}
	return DecideLease(l, cmd, now)
}
