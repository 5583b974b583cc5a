package domain

import (
	"fmt"
	"slices"
	"time"
)

// Propagation is how the deletion of an owner reaches the objects it owns
// (its dependents), as Kubernetes' propagationPolicy says it.
type Propagation string

const (
	// PropagateBackground deletes the owner now; the dependents are
	// deleted after it. It is the default.
	PropagateBackground Propagation = "Background"
	// PropagateForeground keeps the owner, being deleted, until its
	// dependents are gone (Kubernetes' foregroundDeletion finalizer).
	PropagateForeground Propagation = "Foreground"
	// PropagateOrphan deletes the owner and leaves its dependents, their
	// reference to it taken off.
	PropagateOrphan Propagation = "Orphan"
)

// ForegroundFinalizer is the finalizer an owner deleted in the
// foreground shows until its dependents are gone.
const ForegroundFinalizer = "foregroundDeletion"

// ParsePropagation reads a propagationPolicy; "" is Background.
func ParsePropagation(s string) (Propagation, error) {
	switch p := Propagation(s); p {
	case "":
		return PropagateBackground, nil
	case PropagateBackground, PropagateForeground, PropagateOrphan:
		return p, nil
	}
	return "", fmt.Errorf("propagationPolicy %q: supported values: \"Background\", \"Foreground\", \"Orphan\": %w", s, ErrInvalid)
}

// deletion is how an owner's delete command with propagation p is
// decided, the owner being deleted in the foreground already or not:
// requested (Foreground: it stays, being deleted, until its dependents
// are gone), deleted now with its dependents orphaned or not, or nothing
// new (a deletion already under way).
type deletion int

const (
	deletionNothing deletion = iota
	deletionRequested
	deletionNow
	deletionOrphaning
)

func decideDeletion(p Propagation, deleting bool) deletion {
	switch {
	case deleting:
		return deletionNothing
	case p == PropagateForeground:
		return deletionRequested
	case p == PropagateOrphan:
		return deletionOrphaning
	}
	return deletionNow
}

// withoutOwner is owners without the one of uid; ok says it was there.
func withoutOwner(owners []OwnerReference, uid string) (rest []OwnerReference, ok bool) {
	i := slices.IndexFunc(owners, func(o OwnerReference) bool { return o.UID == uid })
	if i < 0 {
		return owners, false
	}
	return slices.Delete(slices.Clone(owners), i, i+1), true
}

// timePtr is a copy of t to point at.
func timePtr(t time.Time) *time.Time { return &t }
