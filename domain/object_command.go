package domain

import (
	"fmt"
	"time"
)

// The commands of every kind on the object model. A kind names them as
// its own with type aliases (type CreateCronJob = Create[CronJobSpec,
// CronJobStatus]) and writes only the commands that are truly its own
// (WarnCronJob, CountJobPods), each a type with a decideObject method;
// From and Precondition wrap a command of any kind on the model through
// the same one method.

// ObjectCommand is a command on one object of a kind on the model, whose
// spec is S and status St: Create, Update, RecordStatus, Delete,
// FinishDeletion, Scale and Release, every kind's; the kind's own; or
// one of them in From or Precondition.
type ObjectCommand[S Spec[S, St], St any] interface {
	decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error)
}

// subject is the object a command of type C is decided on: the kind's
// state as the executor loaded it (an Object, or a Job or a DaemonSet,
// which keep more beside theirs). Its type names only C, so that a
// wrapper that knows only its command's type (Precondition[C],
// From[S, C]) hands it on as it came.
type subject[C any] struct {
	state object
}

// objectState is what a kind's state is: the object on the model, or a
// struct around it (a Job, a DaemonSet) that gets it by embedding.
type objectState[S Spec[S, St], St any] interface {
	object
	Model() Object[S, St]
}

// Model is the object on the model: o itself, and of a kind whose state
// keeps more beside it (a Job, a DaemonSet), the Object it embeds.
func (o Object[S, St]) Model() Object[S, St] { return o }

// DecideObject returns the events cmd causes on the object s at now, or
// a typed error (ErrNotFound, ErrAlreadyExists, ErrConflict, an
// *InvalidError); s is the zero state when herd never saw the object. A
// refused command returns no events; no events and no error is nothing
// to change. It neither changes s nor keeps any map of cmd in the events
// it returns.
func DecideObject[T objectState[S, St], S Spec[S, St], St any](s T, cmd ObjectCommand[S, St], now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil %s command: %w", kindOf[S, St]().Kind, ErrInvalid)
	}
	return cmd.decideObject(subject[ObjectCommand[S, St]]{state: s}, now.UTC())
}

// modelOf is the object on the model of the state in s.
func modelOf[S Spec[S, St], St any](s subject[ObjectCommand[S, St]]) Object[S, St] {
	return s.state.(objectState[S, St]).Model()
}

// stateOf is the kind's own state T in s, for a command of the kind's
// own that needs more than the object (a Job's counted pods); a state of
// another type, the bare object decided through DecideObject, is refused
// as bad input.
func stateOf[T objectState[S, St], S Spec[S, St], St any](s subject[ObjectCommand[S, St]]) (T, error) {
	t, ok := s.state.(T)
	if !ok {
		resource, name, _ := s.state.ref()
		return t, fmt.Errorf("a command on a %T is no command on %s %q as a %T: %w", t, resource, name, s.state, ErrInvalid)
	}
	return t, nil
}

// decideSubject decides cmd, a wrapper's command of type C, on s once
// its admission (admitted) and then check (if any) let it.
func decideSubject[C any](cmd C, s subject[C], now time.Time, check func(object) error) ([]Event, error) {
	d, ok := any(cmd).(interface {
		decideObject(subject[C], time.Time) ([]Event, error)
	})
	if !ok {
		resource, name, _ := s.state.ref()
		return nil, fmt.Errorf("%T is not a command on %s %q: %w", cmd, resource, name, ErrInvalid)
	}
	if a, ok := any(cmd).(admitted); ok {
		if err := a.admit(s.state); err != nil {
			return nil, err
		}
	}
	if check != nil {
		if err := check(s.state); err != nil {
			return nil, err
		}
	}
	return d.decideObject(s, now)
}

// Create creates an object, as kubectl create does: defaults, then
// validation, the kind's included (Strategy); a name that is taken is
// refused with ErrAlreadyExists. A deleted object's name is free again:
// the new one continues the old stream and starts from nothing.
type Create[S Spec[S, St], St any] struct {
	Meta ObjectMeta
	Spec S
}

func (c Create[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	return decideCreate(modelOf(s), c.Meta, c.Spec, now)
}

// Update makes an object's labels, annotations and spec (and owners, for
// a kind whose update sets or replaces them) those given, as a PUT does;
// based on a resourceVersion it is in a Precondition. What the kind lets
// change is its Strategy's to say; an update that changes nothing
// records nothing.
type Update[S Spec[S, St], St any] struct {
	Meta ObjectMeta
	Spec S
}

func (c Update[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	return decideKindUpdate(s, c.Meta, c.Spec, now)
}

// decideKindUpdate is decideUpdate on the object in s, with what the
// kind records of its own: its own event for a change of the spec
// (RecordUpdate; a change of metadata alone is the model's), and the
// owners replaced after it (UpdateReplacesOwners).
func decideKindUpdate[S Spec[S, St], St any](s subject[ObjectCommand[S, St]], meta ObjectMeta, spec S, now time.Time) ([]Event, error) {
	k, o := kindOf[S, St](), modelOf(s)
	evs, err := decideRecordedUpdate(o, meta, spec, now, s.state, k.Strategy.RecordUpdate)
	if err != nil {
		return nil, err
	}
	if k.UpdateReplacesOwners && !semanticEqual(meta.Owners, o.Owners) {
		evs = append(evs, ObjectOwnersChanged[S, St]{Owners: cloneSlice(meta.Owners), At: now})
	}
	return evs, nil
}

// RecordStatus records an object's status, as its controller (or a
// client of the status subresource) writes it, conditional on a
// resourceVersion in a Precondition; the same status again records
// nothing.
type RecordStatus[S Spec[S, St], St any] struct {
	Status St
}

func (c RecordStatus[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	return decideRecordStatus(modelOf(s), c.Status, now)
}

// Delete deletes an object, conditional on a resourceVersion in a
// Precondition. The dependents of a kind that has them (one with a
// deletion in the foreground) follow as Propagation says: deleted after
// it (Background, kubectl's default), before it (Foreground: it stays,
// being deleted, until they are gone), or left without it (Orphan); one
// already being deleted in the foreground records nothing new. An object
// of any other kind goes at once.
type Delete[S Spec[S, St], St any] struct {
	Propagation Propagation
}

func (c Delete[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	if kindOf[S, St]().DeletionRequested == "" {
		return decideDelete(modelOf(s), now)
	}
	return decidePropagatedDelete(modelOf(s), c.Propagation, now)
}

// FinishDeletion deletes an object being deleted in the foreground, once
// its dependents are gone; of any other it does nothing.
type FinishDeletion[S Spec[S, St], St any] struct{}

func (FinishDeletion[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	return decideFinishDeletion(modelOf(s), now), nil
}

// Release takes off the object's reference to the owner of UID, as the
// garbage collector does when that owner is deleted with its dependents
// orphaned, or in the foreground while another owner keeps the object;
// an object that no longer names it records nothing.
type Release[S Spec[S, St], St any] struct {
	UID string
}

func (c Release[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	if err := ownersOfTheirOwn[S, St](); err != nil {
		return nil, err
	}
	return decideReleaseOwner(modelOf(s), c.UID, now)
}

// ownersOfTheirOwn refuses a change of owners alone on a kind whose
// objects keep their owners only through an update (no OwnersChanged
// event).
func ownersOfTheirOwn[S Spec[S, St], St any]() error {
	if k := kindOf[S, St](); k.OwnersChanged == "" {
		return fmt.Errorf("%s keep their owners only through an update: %w", k.Resource, ErrInvalid)
	}
	return nil
}

// Adopt makes Owner the controller of an object that has none, as a
// controller adopts an orphan its selector matches; one controlled by
// another, or being deleted, is refused with ErrConflict.
type Adopt[S Spec[S, St], St any] struct {
	Owner OwnerReference
}

func (c Adopt[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	if err := ownersOfTheirOwn[S, St](); err != nil {
		return nil, err
	}
	return decideAdopt(modelOf(s), c.Owner, now)
}

// Scalable is the spec of a kind with a scale subresource: it has
// replicas.
type Scalable[S, St any] interface {
	Spec[S, St]
	withReplicas(n int32) S
}

// Scale sets how many pods an object keeps, as kubectl scale does
// through the scale subresource, conditional on a resourceVersion in a
// Precondition: an update of the spec's replicas alone.
type Scale[S Scalable[S, St], St any] struct {
	Replicas int32
}

func (c Scale[S, St]) decideObject(s subject[ObjectCommand[S, St]], now time.Time) ([]Event, error) {
	o := modelOf(s)
	if err := requireObject(o); err != nil {
		return nil, err
	}
	if err := scaleProblem(o.Name, c.Replicas); err != nil {
		return nil, err
	}
	return decideKindUpdate(s, o.ObjectMeta, deepCopy(o.Spec).withReplicas(c.Replicas), now)
}
