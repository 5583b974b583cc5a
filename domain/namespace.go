package domain

import (
	"fmt"
	"slices"
	"time"
)

// Namespace is the Namespace aggregate: a named scope for pods and
// ConfigMaps, as in Kubernetes. The namespace view stores it as its row, so
// it is also the aggregate's snapshot.
type Namespace struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// CreatedAt is when herd created the namespace, by herd's clock.
	CreatedAt time.Time `json:"createdAt"`
	// TerminatingSince is when its deletion was asked for; zero while the
	// namespace is Active. A terminating namespace takes no new objects,
	// and herd deletes what it holds before the namespace goes.
	TerminatingSince time.Time `json:"terminatingSince"`

	// Deleted marks a namespace gone. The view keeps the row as a
	// tombstone so that the stream version survives a later creation.
	Deleted bool `json:"deleted,omitempty"`
	// Version is the number of events in the namespace's stream.
	Version int64 `json:"version"`
	// ResourceVersion is the global log position of the last event that
	// touched the namespace. Set by the projection, not by Evolve.
	ResourceVersion int64 `json:"resourceVersion"`
}

// The phases of a namespace, as Kubernetes shows them.
const (
	PhaseActive      = "Active"
	PhaseTerminating = "Terminating"
)

// SystemNamespaces always exist: herd creates them when it starts, and
// refuses to delete them, as kube-apiserver does.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// Exists reports whether the namespace was created and is not gone; a
// terminating namespace still exists.
func (ns Namespace) Exists() bool { return ns.Version > 0 && !ns.Deleted }

// Phase is Active or Terminating.
func (ns Namespace) Phase() string {
	if ns.TerminatingSince.IsZero() {
		return PhaseActive
	}
	return PhaseTerminating
}

// NamespaceStream is the name of the log stream that holds a namespace's
// events.
func NamespaceStream(name string) string { return NamespaceAggregate.Stream(name) }

// NamespaceCreated records that a namespace was created (or created again
// after it was deleted).
type NamespaceCreated struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// Reason says why herd created it when no one asked: "system" for
	// the namespaces that always exist, "in use" for one that held
	// objects before herd kept namespaces. Empty for a client's create.
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// Reasons herd gives a namespace it created itself.
const (
	// NamespaceReasonSystem: one of the SystemNamespaces.
	NamespaceReasonSystem = "system"
	// NamespaceReasonInUse: it held objects herd knew of.
	NamespaceReasonInUse = "in use"
)

// NamespaceUpdated records that a namespace's labels and annotations
// changed, as kubectl label, annotate and edit change them: both maps as
// they now are, whole.
type NamespaceUpdated struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	At          time.Time         `json:"at"`
}

// NamespaceTerminating records that a namespace's deletion was asked for:
// from now on it takes no new objects, and herd empties it.
type NamespaceTerminating struct {
	At time.Time `json:"at"`
}

// NamespaceDeleted records that a terminating namespace, emptied, is gone.
type NamespaceDeleted struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (NamespaceCreated) EventType() string { return "NamespaceCreated" }

// EventType implements Event.
func (NamespaceUpdated) EventType() string { return "NamespaceUpdated" }

// EventType implements Event.
func (NamespaceTerminating) EventType() string { return "NamespaceTerminating" }

// EventType implements Event.
func (NamespaceDeleted) EventType() string { return "NamespaceDeleted" }

// NamespaceAggregate is the namespace in the log: streams "namespace/NAME"
// and the events they hold.
var NamespaceAggregate = defineAggregate("namespace",
	eventOf[NamespaceCreated](1),
	eventOf[NamespaceUpdated](1),
	eventOf[NamespaceTerminating](1),
	eventOf[NamespaceDeleted](1),
)

// NamespaceCommand is a command on one namespace: CreateNamespace,
// EnsureNamespace, UpdateNamespace, DeleteNamespace or FinalizeNamespace.
type NamespaceCommand interface {
	decideNamespace(ns Namespace, now time.Time) ([]Event, error)
}

// DecideNamespace returns the events that cmd causes on namespace ns at
// time now, or a typed error. ns is the zero Namespace (or one with only
// its name) when herd never saw it.
func DecideNamespace(ns Namespace, cmd NamespaceCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil namespace command: %w", ErrInvalid)
	}
	return cmd.decideNamespace(ns, now.UTC())
}

// EvolveNamespace folds one event into the namespace; the live view and
// `herd replay` both call it. It never mutates ns.
func EvolveNamespace(ns Namespace, e Event) Namespace {
	ns.Version++
	switch e := e.(type) {
	case NamespaceCreated:
		return Namespace{
			Name: e.Name, UID: e.UID, Labels: cloneStrings(e.Labels), Annotations: cloneStrings(e.Annotations),
			CreatedAt: e.At, Version: ns.Version, ResourceVersion: ns.ResourceVersion,
		}
	case NamespaceUpdated:
		ns.Labels, ns.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
	case NamespaceTerminating:
		ns.TerminatingSince = e.At
	case NamespaceDeleted:
		return Namespace{Name: ns.Name, Deleted: true, Version: ns.Version, ResourceVersion: ns.ResourceVersion}
	}
	return ns
}

// CreateNamespace creates a namespace, as `kubectl create namespace` does.
// It fails with ErrAlreadyExists when the name is taken, also by a
// namespace still terminating.
type CreateNamespace struct {
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
}

func (c CreateNamespace) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	errs := namespaceNameProblems(c.Name)
	errs = append(errs, metadataProblems(c.Labels, c.Annotations)...)
	if err := invalid("Namespace", c.Name, errs); err != nil {
		return nil, err
	}
	if ns.Exists() {
		return nil, fmt.Errorf("namespaces %q already exists: %w", c.Name, ErrAlreadyExists)
	}
	return []Event{NamespaceCreated{Name: c.Name, UID: c.UID, Labels: cloneStrings(c.Labels),
		Annotations: cloneStrings(c.Annotations), At: now}}, nil
}

// EnsureNamespace creates a namespace herd needs if it does not exist, and
// does nothing if it does: the system namespaces at start, and a namespace
// that held objects before herd kept namespaces. Reason goes on the event.
type EnsureNamespace struct {
	Name   string
	UID    string
	Reason string
}

func (c EnsureNamespace) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	if err := invalid("Namespace", c.Name, namespaceNameProblems(c.Name)); err != nil {
		return nil, err
	}
	if ns.Exists() {
		return nil, nil
	}
	return []Event{NamespaceCreated{Name: c.Name, UID: c.UID, Reason: c.Reason, At: now}}, nil
}

// DeleteNamespace asks for a namespace's deletion, as `kubectl delete
// namespace` does: it turns Terminating at once, and goes once herd has
// deleted what it holds (FinalizeNamespace). Deleting a terminating
// namespace changes nothing; the system namespaces cannot be deleted. A
// delete of one version only is this command in a Precondition.
type DeleteNamespace struct{}

// admit refuses the deletion of a system namespace, before any
// precondition is compared, as kube-apiserver's NamespaceLifecycle
// admission refuses it before storage looks at a resourceVersion.
func (DeleteNamespace) admit(ns Namespace) error {
	if ns.Exists() && slices.Contains(SystemNamespaces, ns.Name) {
		return fmt.Errorf("namespaces %q is forbidden: this namespace may not be deleted: %w", ns.Name, ErrForbidden)
	}
	return nil
}

func (c DeleteNamespace) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	if !ns.Exists() {
		return nil, fmt.Errorf("namespaces %q not found: %w", ns.Name, ErrNotFound)
	}
	if err := c.admit(ns); err != nil {
		return nil, err
	}
	if ns.Phase() == PhaseTerminating {
		return nil, nil
	}
	return []Event{NamespaceTerminating{At: now}}, nil
}

// FinalizeNamespace removes a terminating namespace that herd has emptied.
// The caller checks that nothing is left in it; an Active namespace is
// refused with ErrConflict, a gone one changes nothing.
type FinalizeNamespace struct{}

func (FinalizeNamespace) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	switch {
	case !ns.Exists():
		return nil, nil
	case ns.Phase() != PhaseTerminating:
		return nil, fmt.Errorf("namespace %q is Active; only a terminating namespace goes: %w", ns.Name, ErrConflict)
	}
	return []Event{NamespaceDeleted{At: now}}, nil
}

// AcceptsObjects returns nil when objects may be created in ns, and
// otherwise the error Kubernetes gives: ErrNotFound when it does not
// exist, ErrForbidden while it terminates.
func (ns Namespace) AcceptsObjects(name string) error {
	switch {
	case !ns.Exists():
		return fmt.Errorf("namespaces %q not found: %w", name, ErrNotFound)
	case ns.Phase() == PhaseTerminating:
		return fmt.Errorf("unable to create new content in namespace %s because it is being terminated: %w", name, ErrForbidden)
	}
	return nil
}

// namespaceNameProblems checks a namespace name: an RFC 1123 label.
func namespaceNameProblems(name string) []FieldError {
	switch {
	case name == "":
		return []FieldError{{Field: "metadata.name", Reason: "required"}}
	case len(name) > dns1123LabelMaxLength:
		return []FieldError{{Field: "metadata.name", Value: name, Reason: "must be no more than 63 characters"}}
	case !isDNSLabelPart(name):
		return []FieldError{{Field: "metadata.name", Value: name, Reason: dns1123LabelMsg}}
	}
	return nil
}
