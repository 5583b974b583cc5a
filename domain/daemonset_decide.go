package domain

import (
	"fmt"
)

// The DaemonSet's commands: the object model's.
type (
	// DaemonSetCommand is a command on one DaemonSet.
	DaemonSetCommand = ObjectCommand[DaemonSetSpec, DaemonSetStatus]
	// CreateDaemonSet creates a DaemonSet, as kubectl create -f does.
	CreateDaemonSet = Create[DaemonSetSpec, DaemonSetStatus]
	// UpdateDaemonSet makes a DaemonSet's labels, annotations and spec
	// those given, conditional on a resourceVersion in a Precondition.
	// The selector may not change (apps/v1). A change of the spec is a
	// new generation; a change of the template also a new template
	// generation, which a rolling update rolls out (recordDaemonSetUpdate).
	UpdateDaemonSet = Update[DaemonSetSpec, DaemonSetStatus]
	// RecordDaemonSetStatus records what the reconciler saw of the
	// DaemonSet's nodes and pods.
	RecordDaemonSetStatus = RecordStatus[DaemonSetSpec, DaemonSetStatus]
	// DeleteDaemonSet deletes a DaemonSet, its pods following as
	// Propagation says, as DeleteReplicaSet's do.
	DeleteDaemonSet = Delete[DaemonSetSpec, DaemonSetStatus]
	// FinishDaemonSetDeletion deletes a DaemonSet being deleted in the
	// foreground, once its pods are gone.
	FinishDaemonSetDeletion = FinishDeletion[DaemonSetSpec, DaemonSetStatus]
	// ReleaseDaemonSet takes off the DaemonSet's reference to the owner of
	// UID.
	ReleaseDaemonSet = Release[DaemonSetSpec, DaemonSetStatus]
)

// DecideDaemonSet returns the events cmd causes on ds at now
// (DecideObject).
var DecideDaemonSet = DecideObject[DaemonSet]

// recordDaemonSetUpdate is the DaemonSet's own event for an update: the
// model's, with the template generation, one more when the template
// changed.
func recordDaemonSetUpdate(state object, u SpecUpdate[DaemonSetSpec]) (Event, error) {
	ds, err := stateOf[DaemonSet](subject[DaemonSetCommand]{state: state})
	if err != nil {
		return nil, err
	}
	tgen := ds.TemplateGeneration
	if !semanticEqual(ds.Spec.Template, u.Spec.Template) {
		tgen++
	}
	return DaemonSetChanged{
		Labels: cloneStrings(u.Labels), Annotations: cloneStrings(u.Annotations), Spec: deepCopy(u.Spec),
		Generation: u.Generation, TemplateGeneration: tgen, At: u.At,
	}, nil
}

// daemonSetSpecProblems checks a DaemonSet's spec as kube-apiserver does:
// a selector that is not empty and that the template's labels satisfy, a
// template that makes valid pods, counts not negative, and an update
// strategy that is one of the two with sound bounds.
func daemonSetSpecProblems(s DaemonSetSpec) []FieldError {
	errs := nonNegative(nil, "spec.minReadySeconds", s.MinReadySeconds)
	errs = nonNegative(errs, "spec.revisionHistoryLimit", s.RevisionHistoryLimit)
	errs = append(errs, selectedTemplateProblems(s.Selector, s.Template)...)
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
