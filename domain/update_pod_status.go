package domain

import (
	"fmt"
	"reflect"
	"slices"
	"time"
)

// UpdatePodStatus reports a pod's status: from the node's runtime, or from
// a client through the status subresource. Conditions it names replace
// those of the same type; herd dates their transitions. A pod that
// finished (Succeeded or Failed) stays finished. Reporting what the pod
// already shows changes nothing.
type UpdatePodStatus struct {
	Status PodStatus
}

// phases lists the valid pod phases.
var phases = []PodPhase{PodPending, PodRunning, PodSucceeded, PodFailed}

func (c UpdatePodStatus) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	st := c.Status.clone()
	if st.Phase == "" {
		st.Phase = p.Status.Phase
	}
	var errs []FieldError
	if !slices.Contains(phases, st.Phase) {
		errs = append(errs, FieldError{Field: "status.phase", Value: string(st.Phase), Reason: `supported values: "Pending", "Running", "Succeeded", "Failed"`})
	} else if p.Finished() && st.Phase != p.Status.Phase {
		errs = append(errs, FieldError{Field: "status.phase", Value: string(st.Phase), Reason: fmt.Sprintf("may not change from %s: the pod has finished", p.Status.Phase)})
	}
	for i, cond := range st.Conditions {
		path := fmt.Sprintf("status.conditions[%d]", i)
		if cond.Type == "" {
			errs = append(errs, FieldError{Field: path + ".type", Reason: "Required value"})
		}
		switch cond.Status {
		case ConditionTrue, ConditionFalse, ConditionUnknown:
		default:
			errs = append(errs, FieldError{Field: path + ".status", Value: string(cond.Status), Reason: `supported values: "True", "False", "Unknown"`})
		}
	}
	if err := invalid("Pod", p.Name, errs); err != nil {
		return nil, err
	}
	if reflect.DeepEqual(mergeStatus(p.Status, st, now), mergeStatus(p.Status, p.Status, now)) {
		return nil, nil
	}
	return []Event{PodStatusUpdated{Status: st, At: now}}, nil
}

// SetPodMetadata replaces a pod's labels, annotations and finalizers, as a
// PUT or PATCH of the pod does. Removing the last finalizer of a pod being
// deleted lets it be finalized.
type SetPodMetadata struct {
	Labels      map[string]string
	Annotations map[string]string
	Finalizers  []string
}

func (c SetPodMetadata) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if err := invalid("Pod", p.Name, metadataProblems(c.Labels, c.Annotations)); err != nil {
		return nil, err
	}
	labels, annotations, finalizers := cloneStrings(c.Labels), cloneStrings(c.Annotations), cloneSlice(c.Finalizers)
	if reflect.DeepEqual(labels, p.Labels) && reflect.DeepEqual(annotations, p.Annotations) && slices.Equal(finalizers, p.Finalizers) {
		return nil, nil
	}
	return []Event{PodMetadataChanged{Labels: labels, Annotations: annotations, Finalizers: finalizers, At: now}}, nil
}

// RemovePodFinalizer takes one finalizer off a pod, keeping its labels,
// annotations and other finalizers as they are now: a controller's
// release of a pod it held, decided on the pod as it stands rather than
// as the controller read it. A pod without the finalizer is left as it
// is. Removing the last finalizer of a pod being deleted lets it be
// finalized.
type RemovePodFinalizer struct {
	Finalizer string
}

func (c RemovePodFinalizer) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if !slices.Contains(p.Finalizers, c.Finalizer) {
		return nil, nil
	}
	rest := slices.DeleteFunc(cloneSlice(p.Finalizers), func(f string) bool { return f == c.Finalizer })
	return []Event{PodMetadataChanged{Labels: cloneStrings(p.Labels), Annotations: cloneStrings(p.Annotations), Finalizers: rest, At: now}}, nil
}
