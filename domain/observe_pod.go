package domain

import (
	"fmt"
	"reflect"
	"time"
)

// ObservePod records a pod as a kubelet reports it. Such a pod belongs to
// its kubelet: herd never schedules, evicts or terminates it, and only
// this command and ForgetObservedPod change it. Reporting the same pod
// again changes nothing.
type ObservePod struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerReference
	CreatedAt   time.Time
	Spec        PodSpec
	Status      PodStatus
}

func (c ObservePod) decidePod(p Pod, now time.Time) ([]Event, error) {
	errs := objectNameProblems(c.Namespace, c.Name)
	if c.Spec.NodeName == "" {
		errs = append(errs, FieldError{Field: "spec.nodeName", Reason: "Required value"})
	}
	if err := invalid("Pod", c.Name, errs); err != nil {
		return nil, err
	}
	if p.Exists() && !p.Observed() {
		return nil, fmt.Errorf("%s is managed by herd, not by a kubelet: %w", podRef(p), ErrConflict)
	}
	e := PodObserved{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: cloneStrings(c.Labels), Annotations: cloneStrings(c.Annotations),
		Owners: cloneSlice(c.Owners), CreatedAt: c.CreatedAt.UTC(), Spec: c.Spec.clone(), Status: c.Status.clone(), At: now,
	}
	if p.Exists() && reflect.DeepEqual(EvolvePod(p, e).withoutVersions(), p.withoutVersions()) {
		return nil, nil
	}
	return []Event{e}, nil
}

// ForgetObservedPod records that a kubelet no longer lists a pod herd
// observed; it leaves the fleet.
type ForgetObservedPod struct{}

func (ForgetObservedPod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if !p.Exists() || !p.Observed() {
		return nil, nil
	}
	return []Event{PodFinalized{Reason: "Vanished", At: now}}, nil
}

// withoutVersions is p with its versions zeroed, for comparing states.
func (p Pod) withoutVersions() Pod {
	p.Version, p.ResourceVersion = 0, 0
	return p
}
