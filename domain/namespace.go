package domain

import (
	"fmt"
	"slices"
	"time"
)

// Namespace is the Namespace aggregate: a named scope for pods and
// ConfigMaps, as in Kubernetes. It is a kind on the object model (see
// Object), cluster-scoped: its metadata is ObjectMeta without a
// namespace, and it has neither a spec a client sets nor a status. Its
// deletion, once asked for, is its DeletionRequestedAt (Kubernetes'
// deletionTimestamp): from then on it is Terminating, takes no new
// objects, and herd deletes what it holds before the namespace goes. The
// namespace view stores it as its row, so it is also the aggregate's
// snapshot.
type Namespace = Object[NamespaceSpec, NoStatus]

// NamespaceSpec is a Namespace's spec: nothing a client sets. Kubernetes'
// spec.finalizers is always ["kubernetes"], herd's own work of emptying
// a terminating namespace (see the conversions), so every update of a
// namespace is of its metadata alone.
type NamespaceSpec struct{}

// The phases of a namespace, as Kubernetes shows them.
const (
	PhaseActive      = "Active"
	PhaseTerminating = "Terminating"
)

// SystemNamespaces always exist: herd creates them when it starts, and
// refuses to delete them, as kube-apiserver does.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

// NamespacePhase is Active, or Terminating once the namespace's deletion
// was asked for.
func NamespacePhase(ns Namespace) string {
	if ns.DeletionRequestedAt == nil {
		return PhaseActive
	}
	return PhaseTerminating
}

// NamespaceStream is the name of the log stream that holds a namespace's
// events.
func NamespaceStream(name string) string { return NamespaceAggregate.Stream(name) }

// The namespace's events, under the names they have always had in the log.
type (
	// NamespaceCreated records that a namespace was created (or created
	// again after it was deleted); its Reason says why herd created it
	// when no one asked (NamespaceReasonSystem, NamespaceReasonInUse),
	// empty for a client's create.
	NamespaceCreated = ObjectCreated[NamespaceSpec, NoStatus]
	// NamespaceUpdated records that a namespace's labels and annotations
	// changed, as kubectl label, annotate and edit change them: both maps
	// as they now are, whole, and (since the namespace moved onto the
	// object model) what changed, for the audit log.
	NamespaceUpdated = ObjectMetadataChanged[NamespaceSpec, NoStatus]
	// NamespaceTerminating records that a namespace's deletion was asked
	// for: from now on it takes no new objects, and herd empties it.
	NamespaceTerminating = ObjectDeletionRequested[NamespaceSpec, NoStatus]
	// NamespaceDeleted records that a terminating namespace, emptied, is
	// gone.
	NamespaceDeleted = ObjectDeleted[NamespaceSpec, NoStatus]
)

// Reasons herd gives a namespace it created itself.
const (
	// NamespaceReasonSystem: one of the SystemNamespaces.
	NamespaceReasonSystem = "system"
	// NamespaceReasonInUse: it held objects herd knew of.
	NamespaceReasonInUse = "in use"
)

// namespaceKind is what is the Namespace's own on the object model.
var namespaceKind = &ObjectKind[NamespaceSpec, NoStatus]{
	Kind: "Namespace", Resource: "namespaces", APIVersion: "v1",
	Created: "NamespaceCreated", MetadataChanged: "NamespaceUpdated",
	DeletionRequested: "NamespaceTerminating", Deleted: "NamespaceDeleted",
	Layout: ObjectLayout{
		State: []string{"name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "createdAt",
			"terminatingSince", "deleted,omitempty", "version", "resourceVersion"},
		Created: []string{"name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "reason,omitempty", "at"},
		// What changed is left out when there is nothing to say, so that
		// an update an earlier herd wrote reads back byte for byte.
		MetadataChanged: []string{"labels,omitempty", "annotations,omitempty", "changed,omitempty", "at"},
	},
	Strategy: Strategy[NamespaceSpec, NoStatus]{
		ValidateName:   func(_, name string) []FieldError { return namespaceNameProblems(name) },
		ValidateUpdate: namespaceUpdateProblems,
	},
}

func (NamespaceSpec) objectKind() *ObjectKind[NamespaceSpec, NoStatus] { return namespaceKind }

// NamespaceAggregate is the namespace in the log: streams "namespace/NAME"
// and the events they hold.
var NamespaceAggregate = defineAggregate("namespace",
	eventOf[NamespaceCreated](1),
	eventOf[NamespaceUpdated](1),
	eventOf[NamespaceTerminating](1),
	eventOf[NamespaceDeleted](1),
)

// The namespace's commands: the object model's create and update, and
// its own ensure, delete and finalize, since a namespace's deletion is
// its own (it turns Terminating and goes once emptied, whatever the
// propagation).
type (
	// NamespaceCommand is a command on one namespace: CreateNamespace,
	// EnsureNamespace, UpdateNamespace, DeleteNamespace or
	// FinalizeNamespace.
	NamespaceCommand = ObjectCommand[NamespaceSpec, NoStatus]
	// CreateNamespace creates a namespace, as `kubectl create namespace`
	// does: its name, uid, labels and annotations. It fails with
	// ErrAlreadyExists when the name is taken, also by a namespace still
	// terminating.
	CreateNamespace = Create[NamespaceSpec, NoStatus]
	// UpdateNamespace replaces a namespace's labels and annotations, as a
	// Kubernetes PUT or PATCH of it (`kubectl label`, `annotate`, `edit`)
	// does; nothing else of a namespace changes this way, and a name or
	// uid it gives must be the namespace's own. As in Kubernetes, a
	// terminating namespace may still be relabelled: only new content in
	// it is refused. Based on a resourceVersion it is in a Precondition.
	// It records NamespaceUpdated, or nothing when the maps are what the
	// namespace already holds.
	UpdateNamespace = Update[NamespaceSpec, NoStatus]
)

// DecideNamespace returns the events that cmd causes on namespace ns at
// time now (DecideObject), or a typed error. ns is the zero Namespace (or
// one with only its name) when herd never saw it.
var DecideNamespace = DecideObject[Namespace]

// EvolveNamespace folds one event into the namespace; the live view and
// `herd replay` both call it. It never mutates ns.
func EvolveNamespace(ns Namespace, e Event) Namespace {
	if out, ok := evolveObject(ns, e); ok {
		return out
	}
	ns.Version++
	return ns
}

// EnsureNamespace creates a namespace herd needs if it does not exist, and
// does nothing if it does: the system namespaces at start, and a namespace
// that held objects before herd kept namespaces. Reason goes on the event.
type EnsureNamespace struct {
	Name   string
	UID    string
	Reason string
}

func (c EnsureNamespace) decideObject(s subject[NamespaceCommand], now time.Time) ([]Event, error) {
	if err := invalid("Namespace", c.Name, namespaceNameProblems(c.Name)); err != nil {
		return nil, err
	}
	if modelOf(s).Exists() {
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
func (DeleteNamespace) admit(s object) error {
	if ns, ok := s.(Namespace); ok && ns.Exists() && slices.Contains(SystemNamespaces, ns.Name) {
		return fmt.Errorf("namespaces %q is forbidden: this namespace may not be deleted: %w", ns.Name, ErrForbidden)
	}
	return nil
}

func (c DeleteNamespace) decideObject(s subject[NamespaceCommand], now time.Time) ([]Event, error) {
	ns := modelOf(s)
	if err := requireObject(ns); err != nil {
		return nil, err
	}
	if err := c.admit(ns); err != nil {
		return nil, err
	}
	if ns.DeletionRequestedAt != nil {
		return nil, nil
	}
	return []Event{NamespaceTerminating{At: now}}, nil
}

// FinalizeNamespace removes a terminating namespace that herd has emptied.
// The caller checks that nothing is left in it; an Active namespace is
// refused with ErrConflict, a gone one changes nothing.
type FinalizeNamespace struct{}

func (FinalizeNamespace) decideObject(s subject[NamespaceCommand], now time.Time) ([]Event, error) {
	switch ns := modelOf(s); {
	case !ns.Exists():
		return nil, nil
	case ns.DeletionRequestedAt == nil:
		return nil, fmt.Errorf("namespace %q is Active; only a terminating namespace goes: %w", ns.Name, ErrConflict)
	}
	return []Event{NamespaceDeleted{At: now}}, nil
}

// NamespaceAcceptsObjects returns nil when objects may be created in ns,
// named name, and otherwise the error Kubernetes gives: ErrNotFound when
// it does not exist, ErrForbidden while it terminates.
func NamespaceAcceptsObjects(ns Namespace, name string) error {
	switch {
	case !ns.Exists():
		return fmt.Errorf("namespaces %q not found: %w", name, ErrNotFound)
	case ns.DeletionRequestedAt != nil:
		return &NamespaceTerminatingError{Namespace: name}
	}
	return nil
}

// NamespaceTerminatingError refuses a create in a namespace being
// deleted: it is ErrForbidden, and tells a controller apart from other
// refusals that there is nothing to make there, as Kubernetes' cause
// NamespaceTerminating does.
type NamespaceTerminatingError struct{ Namespace string }

func (e *NamespaceTerminatingError) Error() string {
	return fmt.Sprintf("unable to create new content in namespace %s because it is being terminated: %v", e.Namespace, ErrForbidden)
}

// Is makes the refusal ErrForbidden.
func (e *NamespaceTerminatingError) Is(target error) bool { return target == ErrForbidden }

// namespaceUpdateProblems refuses an update that names another namespace
// or another uid than the namespace's own: neither can change.
func namespaceUpdateProblems(old ObjectMeta, _ NamespaceSpec, meta ObjectMeta, _ NamespaceSpec) []FieldError {
	var errs []FieldError
	if meta.Name != "" && meta.Name != old.Name {
		errs = append(errs, FieldError{Field: "metadata.name", Value: meta.Name, Reason: "field is immutable"})
	}
	if meta.UID != "" && meta.UID != old.UID {
		errs = append(errs, FieldError{Field: "metadata.uid", Value: meta.UID, Reason: "field is immutable"})
	}
	return errs
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
