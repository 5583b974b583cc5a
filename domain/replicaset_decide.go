package domain

import (
	"fmt"
	"strconv"
	"time"
)

// ReplicaSetCommand is a command on one ReplicaSet: CreateReplicaSet,
// UpdateReplicaSet, ScaleReplicaSet, RecordReplicaSetStatus,
// DeleteReplicaSet, FinishReplicaSetDeletion or ReleaseReplicaSet.
type ReplicaSetCommand interface {
	decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error)
}

// DecideReplicaSet returns the events cmd causes on rs at now, or a typed
// error; rs is the zero ReplicaSet when herd never saw it.
func DecideReplicaSet(rs ReplicaSet, cmd ReplicaSetCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil replicaset command: %w", ErrInvalid)
	}
	return cmd.decideReplicaSet(rs, now.UTC())
}

// replicaSetSpecProblems checks a ReplicaSet's spec as kube-apiserver
// does: replicas not negative, a selector that is not empty and that the
// template's labels satisfy, and a template that makes valid pods.
func replicaSetSpecProblems(s ReplicaSetSpec) []FieldError {
	var errs []FieldError
	if s.Replicas < 0 {
		errs = append(errs, FieldError{Field: "spec.replicas", Value: strconv.Itoa(int(s.Replicas)), Reason: "must be greater than or equal to 0"})
	}
	if s.MinReadySeconds < 0 {
		errs = append(errs, FieldError{Field: "spec.minReadySeconds", Value: strconv.Itoa(int(s.MinReadySeconds)), Reason: "must be greater than or equal to 0"})
	}
	errs = append(errs, s.Selector.problems("spec.selector")...)
	if !s.Selector.Empty() && !s.Selector.Matches(s.Template.Labels) {
		errs = append(errs, FieldError{Field: "spec.template.metadata.labels", Reason: "Invalid value: `selector` does not match template `labels`"})
	}
	for _, e := range metadataProblems(s.Template.Labels, s.Template.Annotations) {
		e.Field = "spec.template." + e.Field
		errs = append(errs, e)
	}
	for _, e := range podSpecProblems(s.Template.Spec) {
		e.Field = "spec.template." + e.Field
		errs = append(errs, e)
	}
	return errs
}

// selectorImmutable is the update strategy of a workload whose selector
// may not change (apps/v1).
func selectorImmutable[S interface{ selector() LabelSelector }](_ ObjectMeta, old S, _ ObjectMeta, next S) []FieldError {
	if semanticEqual(old.selector(), next.selector()) {
		return nil
	}
	return []FieldError{{Field: "spec.selector", Reason: "Invalid value: field is immutable"}}
}

// CreateReplicaSet creates a ReplicaSet, as kubectl create -f does.
type CreateReplicaSet struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerReference
	Spec        ReplicaSetSpec
}

func (c CreateReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	meta := ObjectMeta{Namespace: c.Namespace, Name: c.Name, UID: c.UID, Labels: c.Labels, Annotations: c.Annotations, Owners: c.Owners}
	return decideCreate(rs, meta, c.Spec, now)
}

// UpdateReplicaSet makes a ReplicaSet's labels, annotations and spec
// those given, conditional on a resourceVersion in a Precondition. The
// selector may not change (apps/v1). A change of the spec is a new
// generation. Owners, when not nil, replaces the owner references, as a
// client's update of metadata.ownerReferences does, in an event of its
// own; nil keeps them (the Deployment controller's own updates).
type UpdateReplicaSet struct {
	Labels      map[string]string
	Annotations map[string]string
	Spec        ReplicaSetSpec
	Owners      *[]OwnerReference
}

func (c UpdateReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	evs, err := decideUpdate(rs, ObjectMeta{Labels: c.Labels, Annotations: c.Annotations}, c.Spec, now)
	if err != nil {
		return nil, err
	}
	if c.Owners != nil && !semanticEqual(*c.Owners, rs.Owners) {
		evs = append(evs, ReplicaSetOwnersChanged{Owners: deepCopy(*c.Owners), At: now})
	}
	return evs, nil
}

// ScaleReplicaSet sets how many pods a ReplicaSet keeps, as kubectl scale
// does through the scale subresource, conditional on a
// resourceVersion in a Precondition: an update of the spec's replicas.
type ScaleReplicaSet struct {
	Replicas int32
}

func (c ScaleReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if err := requireObject(rs); err != nil {
		return nil, err
	}
	if err := scaleProblem(rs.Name, c.Replicas); err != nil {
		return nil, err
	}
	spec := deepCopy(rs.Spec)
	spec.Replicas = c.Replicas
	return decideUpdate(rs, rs.ObjectMeta, spec, now)
}

// scaleProblem refuses a negative scale as kube-apiserver refuses it,
// naming the Scale.
func scaleProblem(name string, replicas int32) error {
	if replicas >= 0 {
		return nil
	}
	return invalid("Scale", name, []FieldError{{Field: "spec.replicas", Value: strconv.Itoa(int(replicas)), Reason: "must be greater than or equal to 0"}})
}

// RecordReplicaSetStatus records what the reconciler saw of the
// ReplicaSet's pods; the same status again records nothing. A client's
// write of the status subresource is conditional through Precondition.
type RecordReplicaSetStatus struct {
	Status ReplicaSetStatus
}

func (c RecordReplicaSetStatus) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	return decideRecordStatus(rs, c.Status, now)
}

// DeleteReplicaSet deletes a ReplicaSet, conditional on a resourceVersion
// in a Precondition, its pods following as Propagation says: deleted
// after it by the garbage collector (Background, the default), before it
// (Foreground: it stays, being deleted, until they are gone), or left
// without it (Orphan). A ReplicaSet already being deleted in the
// foreground records nothing new.
type DeleteReplicaSet struct {
	Propagation Propagation
}

func (c DeleteReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	return decidePropagatedDelete(rs, c.Propagation, now)
}

// FinishReplicaSetDeletion deletes a ReplicaSet being deleted in the
// foreground, once its pods are gone; of any other it does nothing.
type FinishReplicaSetDeletion struct{}

func (FinishReplicaSetDeletion) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	return decideFinishDeletion(rs, now), nil
}

// ReleaseReplicaSet takes off the ReplicaSet's reference to the owner of
// UID, as the garbage collector does when that owner is deleted with its
// dependents orphaned; a ReplicaSet without one records nothing.
type ReleaseReplicaSet struct {
	UID string
}

func (c ReleaseReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	return decideReleaseOwner(rs, c.UID, now)
}
