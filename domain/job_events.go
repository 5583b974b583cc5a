package domain

import (
	"encoding/json"
	"slices"
	"time"
)

// The Job's events, under the names they have always had in the log.
type (
	// JobCreated records a Job's creation, its selector and template
	// labels as herd generated them.
	JobCreated = ObjectCreated[JobSpec, JobStatus]
	// JobChanged records a new spec, with the labels and annotations
	// beside it; Generation is the Job's generation afterwards.
	JobChanged = ObjectUpdated[JobSpec, JobStatus]
	// JobMetadataChanged records new labels or annotations alone:
	// the spec and generation stay as they were.
	JobMetadataChanged = ObjectMetadataChanged[JobSpec, JobStatus]
	// JobStatusRecorded records the Job's status, as the reconciler or a
	// client of the status subresource wrote it.
	JobStatusRecorded = ObjectStatusRecorded[JobSpec, JobStatus]
	// JobOwnersChanged records the Job's new owner references.
	JobOwnersChanged = ObjectOwnersChanged[JobSpec, JobStatus]
	// JobDeletionRequested records a deletion in the foreground: the Job
	// stays, being deleted, until its pods are gone.
	JobDeletionRequested = ObjectDeletionRequested[JobSpec, JobStatus]
	// JobDeleted records a Job's deletion; Orphan says its pods stay,
	// their reference to it taken off.
	JobDeleted = ObjectDeleted[JobSpec, JobStatus]
)

// JobPodsCounted records finished pods counted, each once: Succeeded and
// Failed are the UIDs of the pods newly counted so, added to the status's
// counts; Forgotten the UIDs of counted pods that are gone, which can no
// longer be counted again. It is the Job's own event, beside the object
// model's.
type JobPodsCounted struct {
	Succeeded []string `json:"succeeded,omitempty"`
	Failed    []string `json:"failed,omitempty"`
	Forgotten []string `json:"forgotten,omitempty"`
	// Ignored are the UIDs of failed pods newly counted that the Job's
	// pod failure policy ignores: counted, not as failures.
	Ignored []string `json:"ignored,omitempty"`
	// FailJob is the message of the failure a FailJob rule of the Job's
	// pod failure policy decided: the Job's FailureTarget condition, with
	// reason PodFailurePolicy, is set at At.
	FailJob string `json:"failJob,omitempty"`
	// Indexes are the completion indexes of an Indexed Job that the
	// succeeded pods completed, added to its status's completed indexes.
	Indexes []int32   `json:"indexes,omitempty"`
	At      time.Time `json:"at"`
}

// EventType implements Event.
func (JobPodsCounted) EventType() string { return "JobPodsCounted" }

// jobKind is what is the Job's own on the object model.
var jobKind = &ObjectKind[JobSpec, JobStatus]{
	Kind: "Job", Resource: "jobs.batch",
	Created: "JobCreated", Updated: "JobChanged", Deleted: "JobDeleted",
	MetadataChanged: "JobMetadataChanged",
	StatusRecorded:  "JobStatusRecorded", OwnersChanged: "JobOwnersChanged", DeletionRequested: "JobDeletionRequested",
	APIVersion: "batch/v1", OwnsDependents: true, UpdateReplacesOwners: true,
	Layout: ObjectLayout{
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "owners,omitempty",
			"spec", "status", "tracking", "generation", "createdAt", "deletionRequestedAt,omitempty",
			"deleted,omitempty", "orphan,omitempty", "version", "resourceVersion"},
		Created: workloadCreatedLayout, Updated: workloadUpdatedLayout,
		MetadataChanged: metadataChangedLayout,
	},
	Strategy: Strategy[JobSpec, JobStatus]{
		PrepareForCreate:          prepareJob,
		PrepareForUpdate:          prepareJobUpdate,
		ValidateCreate:            jobCreateProblems,
		Validate:                  func(_ ObjectMeta, s JobSpec) []FieldError { return jobSpecProblems(s) },
		ValidateUpdate:            jobUpdateProblems,
		SpecChangeBumpsGeneration: true,
		ValidateStatus:            jobStatusProblems,
	},
}

func (JobSpec) objectKind() *ObjectKind[JobSpec, JobStatus] { return jobKind }

// JobAggregate is the Job in the log: streams "job/NAMESPACE/NAME".
var JobAggregate = defineNamespacedAggregate("job",
	eventOf[JobCreated](1),
	eventOf[JobChanged](1),
	eventOf[JobMetadataChanged](1),
	eventOf[JobStatusRecorded](1),
	eventOf[JobPodsCounted](1),
	eventOf[JobDeleted](1),
	eventOf[JobDeletionRequested](1),
	eventOf[JobOwnersChanged](1),
)

// EvolveJob folds one event into the Job; it never mutates j. The object
// model folds its events; the Job's own, JobPodsCounted, adds to its
// status's counts and to its tracking.
func EvolveJob(j Job, e Event) Job {
	if out, ok := evolveObject(j.Object, e); ok {
		j.Object = out
		switch e.(type) {
		case JobCreated, JobDeleted:
			j.Tracking = JobTracking{}
		}
		return j
	}
	j.Version++
	e2, ok := e.(JobPodsCounted)
	if !ok {
		return j
	}
	j.Status = deepCopy(j.Status)
	if j.Spec.CompletionMode == JobIndexed {
		// Succeeded counts the indexes completed, as in batch/v1.
		done, _ := ParseIndexes(j.Status.CompletedIndexes)
		for _, i := range e2.Indexes {
			done = done.With(i)
		}
		j.Status.CompletedIndexes, j.Status.Succeeded = done.String(), done.Len()
	} else {
		j.Status.Succeeded += int32(len(e2.Succeeded)) //nolint:gosec // a Job counts far fewer pods than 2^31
	}
	j.Status.Failed += int32(len(e2.Failed)) //nolint:gosec // likewise
	t := j.Tracking
	if e2.FailJob != "" {
		j.Status = j.Status.WithCondition(JobCondition{Type: JobFailureTarget, Status: ConditionTrue,
			Reason: JobReasonPodFailurePolicy, Message: e2.FailJob}, e2.At)
	}
	t.Counted = slices.DeleteFunc(append(append(append(slices.Clone(t.Counted), e2.Succeeded...), e2.Failed...), e2.Ignored...),
		func(uid string) bool { return slices.Contains(e2.Forgotten, uid) })
	if len(t.Counted) == 0 {
		t.Counted = nil
	}
	if len(e2.Succeeded) > 0 {
		t.FailuresSinceSuccess = 0
	}
	if len(e2.Failed) > 0 {
		t.FailuresSinceSuccess += int32(len(e2.Failed)) //nolint:gosec // likewise
		t.LastFailureAt = e2.At
	}
	j.Tracking = t
	return j
}

// MarshalJSON writes the Job as its view row: the object's, with its
// tracking after its status.
func (j Job) MarshalJSON() ([]byte, error) {
	return marshalObject(j.Object, map[string]any{"tracking": j.Tracking})
}

// UnmarshalJSON reads a view row MarshalJSON (or an earlier herd) wrote.
func (j *Job) UnmarshalJSON(data []byte) error {
	var own struct {
		Tracking JobTracking `json:"tracking"`
	}
	if err := j.Object.UnmarshalJSON(data); err != nil {
		return err
	}
	if err := json.Unmarshal(data, &own); err != nil {
		return err
	}
	j.Tracking = own.Tracking
	return nil
}

// Clone returns a deep copy: no map, slice or pointer is shared with j.
func (j Job) Clone() Job { return deepCopy(j) }
