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
// is refused. With ResourceVersion set, the update applies only to that
// version and fails with ErrConflict when someone else wrote it in
// between.
//
// It records NamespaceUpdated with both maps whole, or nothing when they
// are what the namespace already holds.
type UpdateNamespace struct {
	// Name and UID, when set, must be the namespace's own: they cannot
	// change.
	Name, UID   string
	Labels      map[string]string
	Annotations map[string]string
	// ResourceVersion is the version the update was based on; 0 updates
	// whatever is there.
	ResourceVersion int64
}

func (c UpdateNamespace) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	if !ns.Exists() {
		return nil, fmt.Errorf("namespaces %q not found: %w", ns.Name, ErrNotFound)
	}
	if err := checkResourceVersion("namespaces", ns.Name, ns.ResourceVersion, c.ResourceVersion); err != nil {
		return nil, err
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
