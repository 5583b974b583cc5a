package domain

import (
	"fmt"
	"time"
)

// Job is the Job aggregate (batch/v1): run pods made from Template until
// Completions of them have succeeded, Parallelism at a time, and give up
// after BackoffLimit failures or ActiveDeadlineSeconds. The job
// reconciler acts on it; the view stores it as its row, so it is also
// the aggregate's snapshot. It is a kind on the object model (see
// Object): a change of its spec is a new generation; its deletion takes
// a propagation for its pods.
type Job struct {
	Object[JobSpec, JobStatus]
	// Tracking is herd's own record of the finished pods the Job has
	// counted, kept beside its status, which clients may write.
	Tracking JobTracking
}

// JobSpec is what a Job asks for.
type JobSpec struct {
	// Parallelism is the most pods that run at once.
	Parallelism int32 `json:"parallelism"`
	// Completions is how many pods must succeed; nil lets the first
	// success complete the Job once its other pods have ended (a work
	// queue).
	Completions *int32 `json:"completions,omitempty"`
	// BackoffLimit is how many failed pods the Job tolerates: one more
	// fails it.
	BackoffLimit int32 `json:"backoffLimit"`
	// ActiveDeadlineSeconds bounds how long the Job may run from its
	// start; nil for no bound.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// TTLSecondsAfterFinished is how long a finished Job is kept before
	// it is deleted with its pods; nil keeps it.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty"`
	// CompletionMode is JobNonIndexed (any Completions pods that
	// succeed) or JobIndexed (one pod succeeding for each index from 0
	// to Completions-1, each pod holding its index in its annotation and
	// label LabelJobCompletionIndex).
	CompletionMode string `json:"completionMode"`
	// ManualSelector says that the client chose the selector; otherwise
	// herd generated it from the Job's UID.
	ManualSelector bool `json:"manualSelector,omitempty"`
	// Suspend stops the Job's pods and creates none until it is unset.
	Suspend bool `json:"suspend,omitempty"`
	// PodFailurePolicy says what a failed pod means by its exit codes or
	// conditions: a failure that fails the Job, one that is ignored, or
	// one that counts; nil counts every failure.
	PodFailurePolicy *JobPodFailurePolicy `json:"podFailurePolicy,omitempty"`
	// SuccessPolicy declares an Indexed Job succeeded once some of its
	// indexes have; nil waits for every index.
	SuccessPolicy *JobSuccessPolicy `json:"successPolicy,omitempty"`
	Selector      LabelSelector     `json:"selector"`
	Template      PodTemplate       `json:"template"`
}

// JobStatus is what the reconciler last saw of the Job's pods, and where
// the Job stands.
type JobStatus struct {
	// Active counts the pods that run or wait to; Ready those of them
	// that are ready.
	Active int32 `json:"active,omitempty"`
	Ready  int32 `json:"ready,omitempty"`
	// Succeeded and Failed count the finished pods, each once; for an
	// Indexed Job, Succeeded counts the indexes completed.
	Succeeded int32 `json:"succeeded,omitempty"`
	Failed    int32 `json:"failed,omitempty"`
	// CompletedIndexes are an Indexed Job's indexes whose pod succeeded,
	// written as batch/v1 writes them ("0-2,5"; Indexes).
	CompletedIndexes string `json:"completedIndexes,omitempty"`
	// StartTime is when the reconciler first acted on the Job (again
	// after a suspension); CompletionTime when it completed. Zero when
	// unset.
	StartTime      time.Time      `json:"startTime"`
	CompletionTime time.Time      `json:"completionTime"`
	Conditions     []JobCondition `json:"conditions,omitempty"`
}

// JobConditionType names a Job condition, as Kubernetes does.
type JobConditionType string

// The Job conditions. Kubernetes (1.31 on) sets SuccessCriteriaMet or
// FailureTarget as soon as the outcome is known, and Complete or Failed
// once the Job's pods have all stopped.
const (
	JobSuspended          JobConditionType = "Suspended"
	JobComplete           JobConditionType = "Complete"
	JobFailed             JobConditionType = "Failed"
	JobFailureTarget      JobConditionType = "FailureTarget"
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
)

// Reasons on Job conditions, in Kubernetes' words.
const (
	JobReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	JobReasonDeadlineExceeded     = "DeadlineExceeded"
	JobReasonCompletionsReached   = "CompletionsReached"
	JobReasonSuspended            = "JobSuspended"
	JobReasonResumed              = "JobResumed"
)

// The completion modes, as batch/v1 spells them.
const (
	JobNonIndexed = "NonIndexed"
	JobIndexed    = "Indexed"
)

// JobCondition is one aspect of a Job's state.
type JobCondition struct {
	Type               JobConditionType `json:"type"`
	Status             ConditionStatus  `json:"status"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
	LastProbeTime      time.Time        `json:"lastProbeTime"`
	LastTransitionTime time.Time        `json:"lastTransitionTime"`
}

// JobTracking is how a Job counts each finished pod once: the counted
// pods' UIDs are recorded in the same event that adds them to Succeeded
// or Failed, and a UID is forgotten once its pod is gone. A Job's pods
// carry JobTrackingFinalizer until it has counted them, so none is gone
// before it is counted.
type JobTracking struct {
	// Counted are the UIDs of the finished pods counted whose pods may
	// still exist.
	Counted []string `json:"counted,omitempty"`
	// FailuresSinceSuccess counts the failed pods since the last
	// success, and LastFailureAt is when the last was counted: they set
	// how long the Job waits before it replaces a failed pod.
	FailuresSinceSuccess int32     `json:"failuresSinceSuccess,omitempty"`
	LastFailureAt        time.Time `json:"lastFailureAt"`
}

// JobTrackingFinalizer holds a Job's pod back from deletion until the Job
// has counted it (a pod deleted before it finished counts as a failure),
// as Kubernetes' batch.kubernetes.io/job-tracking does: without it, a pod
// evicted and gone before its Job looked would never count toward the
// backoff limit. The Job's reconciler puts it on the pods it creates and
// takes it off once it has counted them, or once it no longer counts
// them (its Job suspended, finished, or gone).
const JobTrackingFinalizer = "batch.kubernetes.io/job-tracking"

// Job labels Kubernetes puts on a Job's pods when it generates the
// Job's selector: the legacy and the batch.kubernetes.io/ spelling of
// each.
const (
	LabelJobControllerUID       = "batch.kubernetes.io/controller-uid"
	LabelJobName                = "batch.kubernetes.io/job-name"
	LabelLegacyJobControllerUID = "controller-uid"
	LabelLegacyJobName          = "job-name"
)

// String is "namespace/name", as logs name the Job.
func (j Job) String() string { return fmt.Sprintf("%s/%s", j.Namespace, j.Name) }

// Condition returns the Job's condition of type t, and whether it has
// one.
func (s JobStatus) Condition(t JobConditionType) (JobCondition, bool) {
	for _, c := range s.Conditions {
		if c.Type == t {
			return c, true
		}
	}
	return JobCondition{}, false
}

// Is reports whether the Job's condition t is True.
func (s JobStatus) Is(t JobConditionType) bool {
	c, ok := s.Condition(t)
	return ok && c.Status == ConditionTrue
}

// Finished reports whether the Job is Complete or Failed: nothing more
// runs for it.
func (s JobStatus) Finished() bool { return s.Is(JobComplete) || s.Is(JobFailed) }

// FinishedAt is when the Job finished: the time its Complete or Failed
// condition became True; zero while it runs.
func (s JobStatus) FinishedAt() time.Time {
	for _, t := range []JobConditionType{JobComplete, JobFailed} {
		if c, ok := s.Condition(t); ok && c.Status == ConditionTrue {
			return c.LastTransitionTime
		}
	}
	return time.Time{}
}

// WithCondition is the status with condition c set at now: a condition
// whose status does not change keeps its transition time, as Kubernetes
// keeps it, and a new one is added after the others.
func (s JobStatus) WithCondition(c JobCondition, now time.Time) JobStatus {
	out := deepCopy(s)
	c.LastProbeTime, c.LastTransitionTime = now, now
	for i, old := range out.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
			if old.Reason == c.Reason && old.Message == c.Message {
				return out
			}
		}
		out.Conditions[i] = c
		return out
	}
	out.Conditions = append(out.Conditions, c)
	return out
}

// ActiveJob reports whether the pod counts among its node's active jobs,
// the JOBS an agent reports in its heartbeats (activeJobs) against its
// --max-jobs: a pod Running there, or a pod of a batch Job bound there
// and Pending, waiting for its start — it already holds one of the
// node's slots, and its Job counts it active.
func (p Pod) ActiveJob() bool {
	if !p.Exists() {
		return false
	}
	if p.Status.Phase == PodRunning {
		return true
	}
	ctrl, ok := p.Controller()
	return ok && ctrl.Kind == "Job" && p.Status.Phase == PodPending && p.Spec.NodeName != "" && !p.Terminating()
}

// JobStream is the name of the log stream of a Job.
func JobStream(namespace, name string) string { return JobAggregate.Stream(namespace + "/" + name) }
