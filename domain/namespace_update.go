package domain

import (
	"fmt"
	"maps"
	"time"
)

// UpdateNamespace replaces a namespace's labels and annotations, as a
// Kubernetes PUT or PATCH of it (`kubectl label`, `annotate`, `edit`)
// does; nothing else of a namespace changes this way. As in Kubernetes, a
// terminating namespace may still be relabelled: only new content in it
// is refused. An update based on a resourceVersion is this command in a
// Precondition, which refuses it with ErrConflict when someone else wrote
// the namespace in between.
//
// It records NamespaceUpdated with both maps whole, or nothing when they
// are what the namespace already holds.
type UpdateNamespace struct {
	// Name and UID, when set, must be the namespace's own: they cannot
	// change.
	Name, UID   string
	Labels      map[string]string
	Annotations map[string]string
}

func (c UpdateNamespace) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	if !ns.Exists() {
		return nil, fmt.Errorf("namespaces %q not found: %w", ns.Name, ErrNotFound)
	}
	var errs []FieldError
	if c.Name != "" && c.Name != ns.Name {
		errs = append(errs, FieldError{Field: "metadata.name", Value: c.Name, Reason: "field is immutable"})
	}
	if c.UID != "" && c.UID != ns.UID {
		errs = append(errs, FieldError{Field: "metadata.uid", Value: c.UID, Reason: "field is immutable"})
	}
	errs = append(errs, metadataProblems(c.Labels, c.Annotations)...)
	if err := invalid("Namespace", ns.Name, errs); err != nil {
		return nil, err
	}
	if maps.Equal(ns.Labels, c.Labels) && maps.Equal(ns.Annotations, c.Annotations) {
		return nil, nil
	}
	return []Event{NamespaceUpdated{Labels: cloneStrings(c.Labels), Annotations: cloneStrings(c.Annotations), At: now}}, nil
}
