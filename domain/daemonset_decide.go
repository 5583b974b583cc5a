package domain

import (
	"fmt"
	"maps"
	"strconv"
	"time"
)

// DaemonSetCommand is a command on one DaemonSet: CreateDaemonSet,
// UpdateDaemonSet, RecordDaemonSetStatus or DeleteDaemonSet.
type DaemonSetCommand interface {
	decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error)
}

// DecideDaemonSet returns the events cmd causes on ds at now, or a typed
// error; ds is the zero DaemonSet when herd never saw it.
func DecideDaemonSet(ds DaemonSet, cmd DaemonSetCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil daemonset command: %w", ErrInvalid)
	}
	return cmd.decideDaemonSet(ds, now.UTC())
}

// daemonSetNotFound is the refusal of a command on a DaemonSet that does
// not exist.
func daemonSetNotFound(ds DaemonSet) error {
	return fmt.Errorf("daemonsets.apps %q not found: %w", ds.Name, ErrNotFound)
}

// staleDaemonSet refuses a write based on resourceVersion rv when ds is
// at another.
func staleDaemonSet(ds DaemonSet, rv int64) error {
	if rv == 0 || rv == ds.ResourceVersion {
		return nil
	}
	return StaleObject("daemonsets.apps", ds.Name)
}

// CreateDaemonSet creates a DaemonSet, as kubectl create -f does.
type CreateDaemonSet struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerReference
	Spec        DaemonSetSpec
}

func (c CreateDaemonSet) decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error) {
	errs := objectNameProblems(c.Namespace, c.Name)
	errs = append(errs, metadataProblems(c.Labels, c.Annotations)...)
	errs = append(errs, daemonSetSpecProblems(c.Spec)...)
	if err := invalid("DaemonSet", c.Name, errs); err != nil {
		return nil, err
	}
	if ds.Exists() {
		return nil, fmt.Errorf("daemonsets.apps %q already exists: %w", c.Name, ErrAlreadyExists)
	}
	return []Event{DaemonSetCreated{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: cloneStrings(c.Labels), Annotations: cloneStrings(c.Annotations), Owners: cloneSlice(c.Owners),
		Spec: c.Spec.clone(), At: now,
	}}, nil
}

// UpdateDaemonSet makes a DaemonSet's labels, annotations and spec those
// given, conditional on ResourceVersion when it is not 0. The selector
// may not change (apps/v1). A change of the spec is a new generation; a
// change of the template also a new template generation, which a rolling
// update rolls out.
type UpdateDaemonSet struct {
	Labels          map[string]string
	Annotations     map[string]string
	Spec            DaemonSetSpec
	ResourceVersion int64
}

func (c UpdateDaemonSet) decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error) {
	if !ds.Exists() {
		return nil, daemonSetNotFound(ds)
	}
	if err := staleDaemonSet(ds, c.ResourceVersion); err != nil {
		return nil, err
	}
	errs := metadataProblems(c.Labels, c.Annotations)
	errs = append(errs, daemonSetSpecProblems(c.Spec)...)
	if !c.Spec.Selector.equal(ds.Spec.Selector) {
		errs = append(errs, FieldError{Field: "spec.selector", Reason: "Invalid value: field is immutable"})
	}
	if err := invalid("DaemonSet", ds.Name, errs); err != nil {
		return nil, err
	}
	specChanged := !c.Spec.equal(ds.Spec)
	if !specChanged && maps.Equal(c.Labels, ds.Labels) && maps.Equal(c.Annotations, ds.Annotations) {
		return nil, nil
	}
	gen, tgen := ds.Generation, ds.TemplateGeneration
	if specChanged {
		gen++
	}
	if !c.Spec.Template.equal(ds.Spec.Template) {
		tgen++
	}
	return []Event{DaemonSetChanged{
		Labels: cloneStrings(c.Labels), Annotations: cloneStrings(c.Annotations), Spec: c.Spec.clone(),
		Generation: gen, TemplateGeneration: tgen, At: now,
	}}, nil
}

// RecordDaemonSetStatus records what the reconciler saw of the
// DaemonSet's nodes and pods; the same status again records nothing.
type RecordDaemonSetStatus struct {
	Status DaemonSetStatus
}

func (c RecordDaemonSetStatus) decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error) {
	if !ds.Exists() {
		return nil, daemonSetNotFound(ds)
	}
	if c.Status == ds.Status {
		return nil, nil
	}
	return []Event{DaemonSetStatusRecorded{Status: c.Status, At: now}}, nil
}

// DeleteDaemonSet deletes a DaemonSet, conditional on ResourceVersion
// when it is not 0, its pods following as Propagation says, as
// DeleteReplicaSet's do.
type DeleteDaemonSet struct {
	ResourceVersion int64
	Propagation     Propagation
}

func (c DeleteDaemonSet) decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error) {
	if !ds.Exists() {
		return nil, daemonSetNotFound(ds)
	}
	if err := staleDaemonSet(ds, c.ResourceVersion); err != nil {
		return nil, err
	}
	switch decideDeletion(c.Propagation, ds.DeletionRequestedAt != nil) {
	case deletionRequested:
		return []Event{DaemonSetDeletionRequested{At: now}}, nil
	case deletionNow:
		return []Event{DaemonSetDeleted{At: now}}, nil
	case deletionOrphaning:
		return []Event{DaemonSetDeleted{Orphan: true, At: now}}, nil
	}
	return nil, nil
}

// FinishDaemonSetDeletion deletes a DaemonSet being deleted in the
// foreground, once its pods are gone; of any other it does nothing.
type FinishDaemonSetDeletion struct{}

func (FinishDaemonSetDeletion) decideDaemonSet(ds DaemonSet, now time.Time) ([]Event, error) {
	if !ds.Exists() || ds.DeletionRequestedAt == nil {
		return nil, nil
	}
	return []Event{DaemonSetDeleted{At: now}}, nil
}

// daemonSetSpecProblems checks a DaemonSet's spec as kube-apiserver does:
// a selector that is not empty and that the template's labels satisfy, a
// template that makes valid pods, counts not negative, and an update
// strategy that is one of the two with sound bounds.
func daemonSetSpecProblems(s DaemonSetSpec) []FieldError {
	var errs []FieldError
	for _, n := range []struct {
		field string
		v     int32
	}{{"spec.minReadySeconds", s.MinReadySeconds}, {"spec.revisionHistoryLimit", s.RevisionHistoryLimit}} {
		if n.v < 0 {
			errs = append(errs, FieldError{Field: n.field, Value: strconv.Itoa(int(n.v)), Reason: "must be greater than or equal to 0"})
		}
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
	return append(errs, s.UpdateStrategy.problems()...)
}

// problems checks an update strategy as kube-apiserver's
// ValidateDaemonSetUpdateStrategy does.
func (u DaemonSetUpdateStrategy) problems() []FieldError {
	const path = "spec.updateStrategy"
	switch u.Type {
	case DaemonSetOnDelete:
		return nil
	case DaemonSetRollingUpdate:
	default:
		return []FieldError{{Field: path + ".type", Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "OnDelete", "RollingUpdate"`, u.Type)}}
	}
	ru := u.RollingUpdate
	if ru == nil {
		return []FieldError{{Field: path + ".rollingUpdate", Reason: "Required value"}}
	}
	var errs []FieldError
	for _, b := range []struct {
		field string
		v     IntOrPercent
	}{{path + ".rollingUpdate.maxUnavailable", ru.MaxUnavailable}, {path + ".rollingUpdate.maxSurge", ru.MaxSurge}} {
		switch {
		case b.v.Value < 0:
			errs = append(errs, FieldError{Field: b.field, Value: b.v.String(), Reason: "must be greater than or equal to 0"})
		case b.v.Percent && b.v.Value > 100:
			errs = append(errs, FieldError{Field: b.field, Value: b.v.String(), Reason: "must not be greater than 100%"})
		}
	}
	switch hasUnavailable, hasSurge := ru.MaxUnavailable.Value != 0, ru.MaxSurge.Value != 0; {
	case hasUnavailable && hasSurge:
		errs = append(errs, FieldError{Field: path + ".rollingUpdate.maxSurge", Value: ru.MaxSurge.String(), Reason: "may not be set when maxUnavailable is non-zero"})
	case !hasUnavailable && !hasSurge:
		errs = append(errs, FieldError{Field: path + ".rollingUpdate.maxUnavailable", Reason: "Required value: cannot be 0 when maxSurge is 0"})
	}
	return errs
}

// equal reports whether two specs say the same.
func (s DaemonSetSpec) equal(o DaemonSetSpec) bool {
	if (s.UpdateStrategy.RollingUpdate == nil) != (o.UpdateStrategy.RollingUpdate == nil) ||
		s.UpdateStrategy.RollingUpdate != nil && *s.UpdateStrategy.RollingUpdate != *o.UpdateStrategy.RollingUpdate {
		return false
	}
	return s.UpdateStrategy.Type == o.UpdateStrategy.Type && s.MinReadySeconds == o.MinReadySeconds &&
		s.RevisionHistoryLimit == o.RevisionHistoryLimit && s.Selector.equal(o.Selector) && s.Template.equal(o.Template)
}
