package domain

import (
	"fmt"
	"slices"
	"time"
)

// Object is the state of one Kubernetes-shaped object on herd's object
// model: its metadata, the spec its writers set, the status its
// controllers record, and where it stands in the log. A kind on the model
// is a Spec type, a Status type and an ObjectKind (its names and its
// Strategy); Object, its events and its decide and evolve are the same
// code for all. The kind's view stores it as its row (see MarshalJSON),
// so it is also the aggregate's snapshot.
type Object[S Spec[S, St], St any] struct {
	ObjectMeta
	Spec   S
	Status St
	// Deleted marks an object removed. The view keeps the row as a
	// tombstone so that the stream version survives a later creation
	// under the same name; gets and lists never show it.
	Deleted bool
	// Orphan marks the tombstone of an object of a kind that owns
	// dependents (ObjectKind.OwnsDependents) deleted with its dependents
	// left behind, their reference to it to be taken off.
	Orphan bool
	// Version is the number of events in the object's stream: the
	// expected version of the next append. 0 means herd never saw it.
	Version int64
	// ResourceVersion is the global log position of the last event that
	// touched the object. Set by the projection, not by evolve.
	ResourceVersion int64
}

// NoStatus is the status of a kind that has none (a ConfigMap).
type NoStatus struct{}

// Spec is what a type must be to be a kind's spec on the object model:
// it names its kind, and through it the kind's events and strategy. S is
// the spec type itself, St the kind's status.
type Spec[S, St any] interface {
	objectKind() *ObjectKind[S, St]
}

// ObjectKind is what is truly a kind's own on the object model: its
// names in the API and in the log, the shape of its JSON (which the log
// and the views already hold, so it never changes), and its Strategy.
type ObjectKind[S, St any] struct {
	// Kind is the API's kind ("ConfigMap"), Resource the resource as
	// refusals name it ("configmaps").
	Kind, Resource string
	// Created, Updated and Deleted are the kind's event types in the log
	// ("ConfigMapCreated"): each kind's events keep their own names, so
	// the audit trail reads as it always did.
	Created, Updated, Deleted string
	// MetadataChanged is the kind's event type for an update that
	// changes its labels or annotations (or the owners its update sets)
	// and not its spec ("DeploymentMetadataChanged"): the audit trail
	// tells a relabelled object from a changed one, and whoever watches
	// the kind for its spec may pass it by. Every kind on the model has
	// one (TestEveryKindOnTheModelRecordsMetadataApart).
	MetadataChanged string
	// StatusRecorded and OwnersChanged are the kind's event types for a
	// new status and for new owner references (empty for a kind without
	// them).
	StatusRecorded, OwnersChanged string
	// DeletionRequested is the kind's event type for a deletion in the
	// foreground (ObjectDeletionRequested; empty for a kind without it).
	DeletionRequested string
	// APIVersion is the kind's group version ("apps/v1"), as the owner
	// references of its dependents name it.
	APIVersion string
	// OwnsDependents is true for a kind whose objects control others (a
	// ReplicaSet its pods): its tombstone keeps the uid and whether the
	// dependents were orphaned, which the garbage collector reads after
	// the deletion.
	OwnsDependents bool
	// Layout is the JSON of the kind's state and of each of its events:
	// the fields in order, as a struct's tags would say them
	// ("uid,omitempty"). See objectLayout.
	Layout ObjectLayout
	// UpdateSetsOwners is true when an update carries the object's owner
	// references with its labels, annotations and spec (a ConfigMap's
	// update replaces them all); false when owners change only by their
	// own event.
	UpdateSetsOwners bool
	// UpdateReplacesOwners is true when an update replaces the owner
	// references too, as kube-apiserver's does, recorded by their own
	// event (OwnersChanged) after the update's: the workload kinds',
	// whose logs have always said them apart; false when an update keeps
	// the owners.
	UpdateReplacesOwners bool
	// MetadataAsUpdate is true for a kind whose log has always recorded
	// a change of its labels, annotations or owners alone as its update
	// (the whole content again, under Updated), and still does, so that
	// a log reads as it always did and whoever lists the kind's update
	// sees it (a Lease); such a kind has no MetadataChanged.
	MetadataAsUpdate bool
	// InternsDecoded is true for a kind every node has one of (a node's
	// Lease): its created and updated events, as they are decoded, keep
	// one copy for the process of the strings a fleet repeats (the
	// namespace, label and annotation keys and values, the owners' API
	// versions and kinds), as a node's events do (see intern.go).
	InternsDecoded bool
	// Strategy is what the kind's create and update do of their own.
	Strategy Strategy[S, St]
	// aggregate is the kind's in the log (defineObjectAggregate).
	aggregate *Aggregate
}

// Strategy is the part of a kind's create and update that is the kind's
// own, as kube-apiserver's RESTCreateStrategy and RESTUpdateStrategy are:
// defaults, validation, and what a spec change means. What every kind
// does the same — names, labels and annotations checked, the name taken,
// optimistic concurrency, a no-op recognised, the events recorded — is
// the object model's (decideCreate, decideUpdate, decideDelete).
type Strategy[S, St any] struct {
	// ValidateName checks the object's namespace and name in place of
	// the model's check (optional): that of a cluster-scoped kind, which
	// has no namespace and may restrict its names further (a Namespace's
	// is an RFC 1123 label).
	ValidateName func(namespace, name string) []FieldError
	// PrepareForCreate sets defaults on what a create asks for, before
	// it is validated (optional).
	PrepareForCreate func(meta *ObjectMeta, spec *S)
	// Validate checks a new object's spec (and anything of its metadata
	// the kind restricts further); the model checks names, labels and
	// annotations itself.
	Validate func(meta ObjectMeta, spec S) []FieldError
	// ValidateCreate checks what only a create is refused for, before
	// Validate (optional): a Job's selector that herd generated.
	ValidateCreate func(meta ObjectMeta, spec S) []FieldError
	// ValidateUpdate checks an update of old to spec (optional; Validate
	// runs on the new spec either way): what the kind lets change.
	ValidateUpdate func(oldMeta ObjectMeta, oldSpec S, meta ObjectMeta, spec S) []FieldError
	// PrepareForUpdate sets defaults on what an update asks for, before
	// it is validated (optional): a Job's completion mode, and its
	// template's labels as its own when it has none.
	PrepareForUpdate func(meta *ObjectMeta, spec *S)
	// RecordUpdate is the event an update of the spec records, made from
	// the model's ObjectUpdated, u (optional; a change of metadata alone
	// is always the model's ObjectMetadataChanged): that of a kind whose
	// state keeps more beside the object (a DaemonSet's template
	// generation), from state, the kind's state the update was decided
	// on; nil for the model's ObjectUpdated. u shares its maps, slices
	// and pointers with the command: the event it returns copies what it
	// keeps.
	RecordUpdate func(state object, u SpecUpdate[S]) (Event, error)
	// Changes lists, for people reading the audit log, what an update
	// changes (optional): the paths recorded in the update's "changed".
	Changes func(oldMeta ObjectMeta, oldSpec S, meta ObjectMeta, spec S) []string
	// SpecChangeBumpsGeneration makes a change of the spec a new
	// generation, which controllers report having seen.
	SpecChangeBumpsGeneration bool
	// ValidateStatus checks a new status, written by a controller or by
	// a client through the status subresource, against the object's
	// spec and the status it replaces (optional), as kube-apiserver's
	// status strategies do: counts that may not be negative, a count not
	// above the one it is part of. The same status again is never
	// checked: it records nothing.
	ValidateStatus func(spec S, old, status St) []FieldError
}

// ObjectCreated records that an object was created (or created again
// after it was deleted), under its kind's own event type.
type ObjectCreated[S Spec[S, St], St any] struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Finalizers  []string
	Owners      []OwnerReference
	Spec        S
	// Reason says why herd created the object when no one asked (a
	// Namespace it needs); empty for a client's create, and for a kind
	// whose layout has no "reason".
	Reason string
	At     time.Time
}

// ObjectUpdated records an object's new labels, annotations and spec (and
// owners, for a kind whose update carries them): always the complete new
// values. Generation is the object's generation afterwards, for a kind
// whose spec changes are generations; Changed names what differs from
// before, for a kind that records it. An update that leaves the spec as
// it was records ObjectMetadataChanged instead; an earlier herd recorded
// this event for it too, which folds to the same object.
type ObjectUpdated[S Spec[S, St], St any] SpecUpdate[S]

// SpecUpdate is what an update of an object's spec records (the fields
// of its kind's ObjectUpdated), as a kind's Strategy.RecordUpdate is
// handed it.
type SpecUpdate[S any] struct {
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerReference
	Spec        S
	Generation  int64
	Changed     []string
	At          time.Time
}

// ObjectMetadataChanged records an update that changed an object's
// labels or annotations, or the owners of a kind whose update sets them
// (UpdateSetsOwners), and left its spec as it was: the complete new
// labels and annotations, and the object's owners after it (of a kind
// whose update replaces them, UpdateReplacesOwners, the owners before the
// ObjectOwnersChanged that follows). The generation stays, as
// kube-apiserver's does for a change of metadata alone. Changed names
// what differs from before ("metadata.labels.app",
// "metadata.ownerReferences"), sorted, for people reading the audit log.
type ObjectMetadataChanged[S Spec[S, St], St any] struct {
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerReference
	Changed     []string
	At          time.Time
}

// ObjectStatusRecorded records the status a controller (or a client of
// the status subresource) wrote: the complete new status.
type ObjectStatusRecorded[S Spec[S, St], St any] struct {
	Status St
	At     time.Time
}

// ObjectOwnersChanged records an object's new owner references: one
// taken off by the garbage collector, its owner deleted with its
// dependents orphaned or waiting for them while another owner keeps it.
type ObjectOwnersChanged[S Spec[S, St], St any] struct {
	Owners []OwnerReference
	At     time.Time
}

// ObjectDeleted records that an object was removed; Orphan says its
// dependents stay, their reference to it taken off (only a kind that
// owns dependents sets it).
type ObjectDeleted[S Spec[S, St], St any] struct {
	Orphan bool
	At     time.Time
}

// EventType implements Event: the kind's own name for a creation.
func (ObjectCreated[S, St]) EventType() string { return kindOf[S, St]().Created }

// EventType implements Event: the kind's own name for an update.
func (ObjectUpdated[S, St]) EventType() string { return kindOf[S, St]().Updated }

// EventType implements Event: the kind's own name for a change of
// metadata alone.
func (ObjectMetadataChanged[S, St]) EventType() string { return kindOf[S, St]().MetadataChanged }

// EventType implements Event: the kind's own name for a deletion.
func (ObjectDeleted[S, St]) EventType() string { return kindOf[S, St]().Deleted }

// EventType implements Event: the kind's own name for a new status.
func (ObjectStatusRecorded[S, St]) EventType() string { return kindOf[S, St]().StatusRecorded }

// EventType implements Event: the kind's own name for new owners.
func (ObjectOwnersChanged[S, St]) EventType() string { return kindOf[S, St]().OwnersChanged }

// kindOf is the kind whose spec is S.
func kindOf[S Spec[S, St], St any]() *ObjectKind[S, St] {
	var s S
	return s.objectKind()
}

// Exists reports whether the object was created and not deleted.
func (o Object[S, St]) Exists() bool { return o.Version > 0 && !o.Deleted }

// Clone returns a deep copy: no map, slice or pointer is shared with o.
// Empty maps and slices come back nil.
func (o Object[S, St]) Clone() Object[S, St] { return deepCopy(o) }

func (o Object[S, St]) ref() (string, string, int64) {
	return kindOf[S, St]().Resource, o.Name, o.ResourceVersion
}

// decideCreate is the create of every kind on the model: defaults, then
// the names, labels and annotations, then the kind's own validation; a
// name that is taken is refused; else the object is created from meta
// and spec (only their client-set parts: namespace, name, uid, labels,
// annotations, finalizers, owners).
func decideCreate[S Spec[S, St], St any](o Object[S, St], meta ObjectMeta, spec S, now time.Time) ([]Event, error) {
	k := kindOf[S, St]()
	st := k.Strategy
	meta, spec = meta.clone(), deepCopy(spec)
	if st.PrepareForCreate != nil {
		meta, spec = prepared(st.PrepareForCreate, meta, spec)
	}
	var errs []FieldError
	if st.ValidateName != nil {
		errs = st.ValidateName(meta.Namespace, meta.Name)
	} else {
		errs = objectNameProblems(meta.Namespace, meta.Name)
	}
	errs = append(errs, metadataProblems(meta.Labels, meta.Annotations)...)
	if st.ValidateCreate != nil {
		errs = append(errs, st.ValidateCreate(meta, spec)...)
	}
	if st.Validate != nil {
		errs = append(errs, st.Validate(meta, spec)...)
	}
	if err := invalid(k.Kind, meta.Name, errs); err != nil {
		return nil, err
	}
	if o.Exists() {
		return nil, fmt.Errorf("%s %q already exists: %w", k.Resource, meta.Name, ErrAlreadyExists)
	}
	return []Event{ObjectCreated[S, St]{
		Namespace: meta.Namespace, Name: meta.Name, UID: meta.UID,
		Labels: meta.Labels, Annotations: meta.Annotations, Finalizers: meta.Finalizers, Owners: meta.Owners,
		Spec: spec, At: now,
	}}, nil
}

// decideUpdate is the update (a PUT) of every kind on the model: the
// object must exist (an update based on a resourceVersion is the command
// in a Precondition, which compares it first); the new labels,
// annotations and spec are validated, by the kind too; an update that
// changes nothing (semanticEqual) records nothing, one that changes the
// metadata alone records ObjectMetadataChanged, with the generation as
// it was, and one that changes the spec ObjectUpdated. meta carries the
// labels and annotations, and the owners for a kind whose update sets
// them.
func decideUpdate[S Spec[S, St], St any](o Object[S, St], meta ObjectMeta, spec S, now time.Time) ([]Event, error) {
	return decideRecordedUpdate(o, meta, spec, now, nil, nil)
}

// decideRecordedUpdate is decideUpdate with the kind's own event for a
// change of the spec: record (the kind's Strategy.RecordUpdate; nil for
// the model's ObjectUpdated) makes it from state, the kind's state, and
// the model's ObjectUpdated, or returns nil for the model's own. The
// events returned share no map, slice or pointer with meta and spec;
// the ObjectUpdated record is handed does, and record copies what it
// keeps of it, so that an update the kind records as something smaller
// (a renewal that keeps only a time) copies nothing.
func decideRecordedUpdate[S Spec[S, St], St any](o Object[S, St], meta ObjectMeta, spec S, now time.Time,
	state object, record func(object, SpecUpdate[S]) (Event, error)) ([]Event, error) {
	k := kindOf[S, St]()
	st := k.Strategy
	if err := requireObject(o); err != nil {
		return nil, err
	}
	if st.PrepareForUpdate != nil {
		meta, spec = prepared(st.PrepareForUpdate, meta.clone(), deepCopy(spec))
	}
	if !k.UpdateSetsOwners {
		meta.Owners = o.Owners
	}
	errs := metadataProblems(meta.Labels, meta.Annotations)
	if st.Validate != nil {
		errs = append(errs, st.Validate(meta, spec)...)
	}
	if st.ValidateUpdate != nil {
		errs = append(errs, st.ValidateUpdate(o.ObjectMeta, o.Spec, meta, spec)...)
	}
	if err := invalid(k.Kind, o.Name, errs); err != nil {
		return nil, err
	}
	sameSpec := semanticEqual(o.Spec, spec)
	if sameSpec && !k.MetadataAsUpdate {
		changed := metadataChanges(o.ObjectMeta, meta)
		if len(changed) == 0 {
			return nil, nil
		}
		return []Event{ObjectMetadataChanged[S, St]{
			Labels: cloneStrings(meta.Labels), Annotations: cloneStrings(meta.Annotations), Owners: cloneSlice(meta.Owners),
			Changed: changed, At: now,
		}}, nil
	}
	if sameSpec && len(metadataChanges(o.ObjectMeta, meta)) == 0 {
		return nil, nil
	}
	e := ObjectUpdated[S, St]{Labels: meta.Labels, Annotations: meta.Annotations, Spec: spec, Generation: o.Generation, At: now}
	if k.UpdateSetsOwners {
		e.Owners = meta.Owners
	}
	if st.SpecChangeBumpsGeneration {
		e.Generation++
	}
	if st.Changes != nil {
		e.Changed = st.Changes(o.ObjectMeta, o.Spec, meta, spec)
	}
	if record != nil {
		kinds, err := record(state, SpecUpdate[S](e))
		if err != nil {
			return nil, err
		}
		if kinds != nil {
			return []Event{kinds}, nil
		}
	}
	e.Labels, e.Annotations, e.Owners = cloneStrings(e.Labels), cloneStrings(e.Annotations), cloneSlice(e.Owners)
	e.Spec = deepCopy(e.Spec)
	return []Event{e}, nil
}

// prepared is meta and spec as prepare (a Strategy's PrepareForCreate or
// PrepareForUpdate) leaves them: apart, so that they reach the heap only
// for a kind that has one.
func prepared[S any](prepare func(*ObjectMeta, *S), meta ObjectMeta, spec S) (ObjectMeta, S) {
	prepare(&meta, &spec)
	return meta, spec
}

// decideDelete is the delete of every kind on the model.
func decideDelete[S Spec[S, St], St any](o Object[S, St], now time.Time) ([]Event, error) {
	if err := requireObject(o); err != nil {
		return nil, err
	}
	return []Event{ObjectDeleted[S, St]{At: now}}, nil
}

// decideRecordStatus is the write of a status (a controller's, or a
// client's through the status subresource) of every kind on the model;
// the same status again records nothing.
func decideRecordStatus[S Spec[S, St], St any](o Object[S, St], status St, now time.Time) ([]Event, error) {
	if err := requireObject(o); err != nil {
		return nil, err
	}
	if semanticEqual(o.Status, status) {
		return nil, nil
	}
	if err := checkStatus(o, status); err != nil {
		return nil, err
	}
	return []Event{ObjectStatusRecorded[S, St]{Status: deepCopy(status), At: now}}, nil
}

// checkStatus refuses, with ErrInvalid, a status of o that its kind's
// ValidateStatus finds fault with.
func checkStatus[S Spec[S, St], St any](o Object[S, St], status St) error {
	k := kindOf[S, St]()
	if k.Strategy.ValidateStatus == nil {
		return nil
	}
	return invalid(k.Kind, o.Name, k.Strategy.ValidateStatus(o.Spec, o.Status, status))
}

// requireObject refuses with ErrNotFound unless o exists.
func requireObject[S Spec[S, St], St any](o Object[S, St]) error {
	if o.Exists() {
		return nil
	}
	return fmt.Errorf("%s %q not found: %w", kindOf[S, St]().Resource, o.Name, ErrNotFound)
}

// evolveObject folds one of the model's events into o and returns the
// result; ok is false for an event that is the kind's own, which the
// kind's evolve folds. It never mutates o and copies every map it takes
// from e. It increments Version for every event of the model and never
// touches ResourceVersion, which belongs to the projection.
func evolveObject[S Spec[S, St], St any](o Object[S, St], e Event) (out Object[S, St], ok bool) {
	switch e := e.(type) {
	case ObjectCreated[S, St]:
		return Object[S, St]{
			ObjectMeta: ObjectMeta{
				Namespace: e.Namespace, Name: e.Name, UID: e.UID,
				Labels: cloneStrings(e.Labels), Annotations: cloneStrings(e.Annotations),
				Finalizers: cloneSlice(e.Finalizers), Owners: cloneSlice(e.Owners),
				CreatedAt: e.At, Generation: initialGeneration[S, St](),
			},
			Spec:            deepCopy(e.Spec),
			Version:         o.Version + 1,
			ResourceVersion: o.ResourceVersion,
		}, true
	case ObjectUpdated[S, St]:
		o.Labels, o.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
		if kindOf[S, St]().UpdateSetsOwners {
			o.Owners = cloneSlice(e.Owners)
		}
		o.Spec = deepCopy(e.Spec)
		o.Generation = e.Generation
		o.Version++
		return o, true
	case ObjectMetadataChanged[S, St]:
		o.Labels, o.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
		o.Owners = cloneSlice(e.Owners)
		o.Version++
		return o, true
	case ObjectStatusRecorded[S, St]:
		o.Status = deepCopy(e.Status)
		o.Version++
		return o, true
	case ObjectOwnersChanged[S, St]:
		o.Owners = cloneSlice(e.Owners)
		o.Version++
		return o, true
	case ObjectDeleted[S, St]:
		out := Object[S, St]{
			ObjectMeta:      ObjectMeta{Namespace: o.Namespace, Name: o.Name},
			Deleted:         true,
			Version:         o.Version + 1,
			ResourceVersion: o.ResourceVersion,
		}
		if kindOf[S, St]().OwnsDependents {
			out.UID, out.Orphan = o.UID, e.Orphan
		}
		return out, true
	case ObjectDeletionRequested[S, St]:
		o.DeletionRequestedAt = timePtr(e.At)
		o.Version++
		return o, true
	}
	return o, false
}

// EvolveObject folds one event into o: the model's as evolveObject
// does, any other (the kind's own) counting only in its version. It never
// mutates o. It is the whole evolve of a kind whose own events, if any,
// change nothing else.
func EvolveObject[S Spec[S, St], St any](o Object[S, St], e Event) Object[S, St] {
	out, ok := evolveObject(o, e)
	if !ok {
		out.Version++
	}
	return out
}

// defineObjectAggregate is the aggregate of a namespaced kind on the
// model, its streams "name/NAMESPACE/NAME": the model's events the kind
// names in its ObjectKind, in the model's order, then own, its events of
// its own; one of own of a type the model's events have replaces that
// event, listed among own. The kind's objects name their stream by it
// (Stream).
func defineObjectAggregate[S Spec[S, St], St any](name string, own ...EventSchema) *Aggregate {
	var evs []EventSchema
	for _, e := range []EventSchema{
		eventOf[ObjectCreated[S, St]](1), eventOf[ObjectUpdated[S, St]](1), eventOf[ObjectMetadataChanged[S, St]](1),
		eventOf[ObjectStatusRecorded[S, St]](1), eventOf[ObjectOwnersChanged[S, St]](1),
		eventOf[ObjectDeletionRequested[S, St]](1), eventOf[ObjectDeleted[S, St]](1),
	} {
		if e.Type != "" && !slices.ContainsFunc(own, func(o EventSchema) bool { return o.Type == e.Type }) {
			evs = append(evs, e)
		}
	}
	k := kindOf[S, St]()
	k.aggregate = defineNamespacedAggregate(name, append(evs, own...)...)
	return k.aggregate
}

// Stream is the name of the object's log stream, of a kind whose
// aggregate is defineObjectAggregate's.
func (o Object[S, St]) Stream() string {
	return kindOf[S, St]().aggregate.Stream(o.Namespace + "/" + o.Name)
}

// initialGeneration is a new object's generation: 1 for a kind whose spec
// changes are generations, as in Kubernetes, 0 for the others.
func initialGeneration[S Spec[S, St], St any]() int64 {
	if kindOf[S, St]().Strategy.SpecChangeBumpsGeneration {
		return 1
	}
	return 0
}
