package domain

import (
	"slices"
	"time"
)

// JobCreated records a Job's creation, its selector and template labels
// as herd generated them.
type JobCreated struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        JobSpec           `json:"spec"`
	At          time.Time         `json:"at"`
}

// JobChanged records a new spec, labels or annotations; Generation is
// the Job's generation afterwards.
type JobChanged struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Spec        JobSpec           `json:"spec"`
	Generation  int64             `json:"generation"`
	At          time.Time         `json:"at"`
}

// JobStatusRecorded records the Job's status, as the reconciler or a
// client of the status subresource wrote it.
type JobStatusRecorded struct {
	Status JobStatus `json:"status"`
	At     time.Time `json:"at"`
}

// JobPodsCounted records finished pods counted, each once: Succeeded and
// Failed are the UIDs of the pods newly counted so, added to the status's
// counts; Forgotten the UIDs of counted pods that are gone, which can no
// longer be counted again.
type JobPodsCounted struct {
	Succeeded []string  `json:"succeeded,omitempty"`
	Failed    []string  `json:"failed,omitempty"`
	Forgotten []string  `json:"forgotten,omitempty"`
	At        time.Time `json:"at"`
}

// JobDeleted records a Job's deletion; Orphan says its pods stay, their
// reference to it taken off.
type JobDeleted struct {
	Orphan bool      `json:"orphan,omitempty"`
	At     time.Time `json:"at"`
}

// JobDeletionRequested records a deletion in the foreground: the Job
// stays, being deleted, until its pods are gone.
type JobDeletionRequested struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (JobCreated) EventType() string { return "JobCreated" }

// EventType implements Event.
func (JobChanged) EventType() string { return "JobChanged" }

// EventType implements Event.
func (JobStatusRecorded) EventType() string { return "JobStatusRecorded" }

// EventType implements Event.
func (JobPodsCounted) EventType() string { return "JobPodsCounted" }

// EventType implements Event.
func (JobDeleted) EventType() string { return "JobDeleted" }

// EventType implements Event.
func (JobDeletionRequested) EventType() string { return "JobDeletionRequested" }

// JobOwnersChanged records the Job's new owner references: one
// taken off by the garbage collector, its owner deleted with its
// dependents orphaned or waiting for them while another owner keeps it.
type JobOwnersChanged struct {
	Owners []OwnerReference `json:"owners,omitempty"`
	At     time.Time        `json:"at"`
}

// EventType implements Event.
func (JobOwnersChanged) EventType() string { return "JobOwnersChanged" }

// JobAggregate is the Job in the log: streams "job/NAMESPACE/NAME".
var JobAggregate = defineNamespacedAggregate("job",
	eventOf[JobCreated](1),
	eventOf[JobChanged](1),
	eventOf[JobStatusRecorded](1),
	eventOf[JobPodsCounted](1),
	eventOf[JobDeleted](1),
	eventOf[JobDeletionRequested](1),
	eventOf[JobOwnersChanged](1),
)

// EvolveJob folds one event into the Job; it never mutates j.
func EvolveJob(j Job, e Event) Job {
	j.Version++
	switch e := e.(type) {
	case JobCreated:
		return Job{
			Namespace: e.Namespace, Name: e.Name, UID: e.UID,
			Labels: cloneStrings(e.Labels), Annotations: cloneStrings(e.Annotations), Owners: slices.Clone(e.Owners),
			Spec: e.Spec.clone(), Generation: 1, CreatedAt: e.At, Version: j.Version, ResourceVersion: j.ResourceVersion,
		}
	case JobChanged:
		j.Labels, j.Annotations = cloneStrings(e.Labels), cloneStrings(e.Annotations)
		j.Spec, j.Generation = e.Spec.clone(), e.Generation
	case JobStatusRecorded:
		j.Status = e.Status.clone()
	case JobPodsCounted:
		j.Status = j.Status.clone()
		j.Status.Succeeded += int32(len(e.Succeeded)) //nolint:gosec // a Job counts far fewer pods than 2^31
		j.Status.Failed += int32(len(e.Failed))       //nolint:gosec // likewise
		t := j.Tracking
		t.Counted = slices.DeleteFunc(append(append(slices.Clone(t.Counted), e.Succeeded...), e.Failed...),
			func(uid string) bool { return slices.Contains(e.Forgotten, uid) })
		if len(t.Counted) == 0 {
			t.Counted = nil
		}
		if len(e.Succeeded) > 0 {
			t.FailuresSinceSuccess = 0
		}
		if len(e.Failed) > 0 {
			t.FailuresSinceSuccess += int32(len(e.Failed)) //nolint:gosec // likewise
			t.LastFailureAt = e.At
		}
		j.Tracking = t
	case JobDeletionRequested:
		j.DeletionRequestedAt = timePtr(e.At)
	case JobOwnersChanged:
		j.Owners = slices.Clone(e.Owners)
	case JobDeleted:
		return Job{Namespace: j.Namespace, Name: j.Name, UID: j.UID, Deleted: true, Orphan: e.Orphan, Version: j.Version, ResourceVersion: j.ResourceVersion}
	}
	return j
}
