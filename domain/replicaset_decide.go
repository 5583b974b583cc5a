package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// ReplicaSetCommand is a command on one ReplicaSet: CreateReplicaSet,
// UpdateReplicaSet, ScaleReplicaSet, RecordReplicaSetStatus or
// DeleteReplicaSet.
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

// replicaSetNotFound is the refusal of a command on a ReplicaSet that
// does not exist.
func replicaSetNotFound(rs ReplicaSet) error {
	return fmt.Errorf("replicasets.apps %q not found: %w", rs.Name, ErrNotFound)
}

// staleReplicaSet refuses a write based on resourceVersion rv when rs is
// at another.
func staleReplicaSet(rs ReplicaSet, rv int64) error {
	if rv == 0 || rv == rs.ResourceVersion {
		return nil
	}
	return StaleObject("replicasets.apps", rs.Name)
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
	errs := objectNameProblems(c.Namespace, c.Name)
	errs = append(errs, metadataProblems(c.Labels, c.Annotations)...)
	errs = append(errs, replicaSetSpecProblems(c.Spec)...)
	if err := invalid("ReplicaSet", c.Name, errs); err != nil {
		return nil, err
	}
	if rs.Exists() {
		return nil, fmt.Errorf("replicasets.apps %q already exists: %w", c.Name, ErrAlreadyExists)
	}
	return []Event{ReplicaSetCreated{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: cloneStrings(c.Labels), Annotations: cloneStrings(c.Annotations), Owners: cloneSlice(c.Owners),
		Spec: c.Spec.clone(), At: now,
	}}, nil
}

// UpdateReplicaSet makes a ReplicaSet's labels, annotations and spec
// those given, conditional on ResourceVersion when it is not 0. The
// selector may not change (apps/v1). A change of the spec is a new
// generation. Owners, when not nil, replaces the owner references, as a
// client's update of metadata.ownerReferences does; nil keeps them (the
// Deployment controller's own updates).
type UpdateReplicaSet struct {
	Labels          map[string]string
	Annotations     map[string]string
	Spec            ReplicaSetSpec
	Owners          *[]OwnerReference
	ResourceVersion int64
}

func (c UpdateReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if !rs.Exists() {
		return nil, replicaSetNotFound(rs)
	}
	if err := staleReplicaSet(rs, c.ResourceVersion); err != nil {
		return nil, err
	}
	errs := metadataProblems(c.Labels, c.Annotations)
	errs = append(errs, replicaSetSpecProblems(c.Spec)...)
	if !c.Spec.Selector.equal(rs.Spec.Selector) {
		errs = append(errs, FieldError{Field: "spec.selector", Reason: "Invalid value: field is immutable"})
	}
	if err := invalid("ReplicaSet", rs.Name, errs); err != nil {
		return nil, err
	}
	evs := rs.changed(c.Labels, c.Annotations, c.Spec, now)
	if c.Owners != nil && !slices.Equal(*c.Owners, rs.Owners) {
		evs = append(evs, ReplicaSetOwnersChanged{Owners: cloneSlice(*c.Owners), At: now})
	}
	return evs, nil
}

// changed is the event that gives rs labels, annotations and spec, with
// a new generation when the spec differs; none when nothing does.
func (rs ReplicaSet) changed(labels, annotations map[string]string, spec ReplicaSetSpec, now time.Time) []Event {
	specChanged := !spec.equal(rs.Spec)
	if !specChanged && maps.Equal(labels, rs.Labels) && maps.Equal(annotations, rs.Annotations) {
		return nil
	}
	gen := rs.Generation
	if specChanged {
		gen++
	}
	return []Event{ReplicaSetChanged{Labels: cloneStrings(labels), Annotations: cloneStrings(annotations), Spec: spec.clone(), Generation: gen, At: now}}
}

// ScaleReplicaSet sets how many pods a ReplicaSet keeps, as kubectl scale
// does through the scale subresource.
type ScaleReplicaSet struct {
	Replicas        int32
	ResourceVersion int64
}

func (c ScaleReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if !rs.Exists() {
		return nil, replicaSetNotFound(rs)
	}
	if err := staleReplicaSet(rs, c.ResourceVersion); err != nil {
		return nil, err
	}
	if c.Replicas < 0 {
		return nil, invalid("Scale", rs.Name, []FieldError{{Field: "spec.replicas", Value: strconv.Itoa(int(c.Replicas)), Reason: "must be greater than or equal to 0"}})
	}
	spec := rs.Spec.clone()
	spec.Replicas = c.Replicas
	return rs.changed(rs.Labels, rs.Annotations, spec, now), nil
}

// RecordReplicaSetStatus records what the reconciler saw of the
// ReplicaSet's pods; the same status again records nothing.
type RecordReplicaSetStatus struct {
	Status ReplicaSetStatus
}

func (c RecordReplicaSetStatus) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if !rs.Exists() {
		return nil, replicaSetNotFound(rs)
	}
	if c.Status == rs.Status {
		return nil, nil
	}
	return []Event{ReplicaSetStatusRecorded{Status: c.Status, At: now}}, nil
}

// DeleteReplicaSet deletes a ReplicaSet, conditional on ResourceVersion
// when it is not 0, its pods following as Propagation says: deleted after
// it by the garbage collector (Background, the default), before it
// (Foreground: it stays, being deleted, until they are gone), or left
// without it (Orphan). A ReplicaSet already being deleted in the
// foreground records nothing new.
type DeleteReplicaSet struct {
	ResourceVersion int64
	Propagation     Propagation
}

func (c DeleteReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if !rs.Exists() {
		return nil, replicaSetNotFound(rs)
	}
	if err := staleReplicaSet(rs, c.ResourceVersion); err != nil {
		return nil, err
	}
	switch decideDeletion(c.Propagation, rs.DeletionRequestedAt != nil) {
	case deletionRequested:
		return []Event{ReplicaSetDeletionRequested{At: now}}, nil
	case deletionNow:
		return []Event{ReplicaSetDeleted{At: now}}, nil
	case deletionOrphaning:
		return []Event{ReplicaSetDeleted{Orphan: true, At: now}}, nil
	}
	return nil, nil
}

// FinishReplicaSetDeletion deletes a ReplicaSet being deleted in the
// foreground, once its pods are gone; of any other it does nothing.
type FinishReplicaSetDeletion struct{}

func (FinishReplicaSetDeletion) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if !rs.Exists() || rs.DeletionRequestedAt == nil {
		return nil, nil
	}
	return []Event{ReplicaSetDeleted{At: now}}, nil
}

// ReleaseReplicaSet takes off the ReplicaSet's reference to the owner of
// UID, as the garbage collector does when that owner is deleted with its
// dependents orphaned; a ReplicaSet without one records nothing.
type ReleaseReplicaSet struct {
	UID string
}

func (c ReleaseReplicaSet) decideReplicaSet(rs ReplicaSet, now time.Time) ([]Event, error) {
	if !rs.Exists() {
		return nil, replicaSetNotFound(rs)
	}
	owners, ok := withoutOwner(rs.Owners, c.UID)
	if !ok {
		return nil, nil
	}
	return []Event{ReplicaSetOwnersChanged{Owners: owners, At: now}}, nil
}

// equal reports whether two specs say the same.
func (s ReplicaSetSpec) equal(o ReplicaSetSpec) bool {
	return s.Replicas == o.Replicas && s.MinReadySeconds == o.MinReadySeconds &&
		s.Selector.equal(o.Selector) && s.Template.equal(o.Template)
}

// equal reports whether two templates say the same.
func (t PodTemplate) equal(o PodTemplate) bool {
	if !maps.Equal(t.Labels, o.Labels) || !maps.Equal(t.Annotations, o.Annotations) {
		return false
	}
	if (t.TerminationGracePeriodSeconds == nil) != (o.TerminationGracePeriodSeconds == nil) ||
		t.TerminationGracePeriodSeconds != nil && *t.TerminationGracePeriodSeconds != *o.TerminationGracePeriodSeconds {
		return false
	}
	return specEqual(t.Spec, o.Spec)
}

// specEqual reports whether two pod specs say the same, as their JSON
// does: an empty list and none are the same.
func specEqual(a, b PodSpec) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
