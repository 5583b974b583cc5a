package domain

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// The Job's commands: the object model's, and CountJobPods.
type (
	// JobCommand is a command on one Job.
	JobCommand = ObjectCommand[JobSpec, JobStatus]
	// CreateJob creates a Job, as kubectl create job does. Unless
	// Spec.ManualSelector is set, herd generates the selector from the
	// UID and labels the template to match, as kube-apiserver does
	// (prepareJob).
	CreateJob = Create[JobSpec, JobStatus]
	// UpdateJob makes a Job's labels, annotations and spec those given,
	// conditional on a resourceVersion in a Precondition. As in batch/v1,
	// the selector, the template, the completions and the completion
	// mode are fixed once created; parallelism, suspend, the deadline,
	// the backoff limit and the TTL may change. A change of the spec is a
	// new generation.
	UpdateJob = Update[JobSpec, JobStatus]
	// RecordJobStatus records the Job's status.
	RecordJobStatus = RecordStatus[JobSpec, JobStatus]
	// DeleteJob deletes a Job, its pods following as Propagation says:
	// deleted by the reconciler after it (Background), before it
	// (Foreground), or left without it (Orphan).
	DeleteJob = Delete[JobSpec, JobStatus]
	// FinishJobDeletion deletes a Job being deleted in the foreground,
	// once its pods are gone.
	FinishJobDeletion = FinishDeletion[JobSpec, JobStatus]
	// ReleaseJob takes off the Job's reference to the owner of UID.
	ReleaseJob = Release[JobSpec, JobStatus]
)

// DecideJob returns the events cmd causes on j at now (DecideObject).
var DecideJob = DecideObject[Job]

// prepareJob defaults a new Job as kube-apiserver's Job strategy does:
// the NonIndexed completion mode, unless Spec.ManualSelector is set a
// selector generated from its UID with its template labelled to match,
// and its template's labels as its own when it has none.
func prepareJob(meta *ObjectMeta, spec *JobSpec) {
	if spec.CompletionMode == "" {
		spec.CompletionMode = JobNonIndexed
	}
	if !spec.ManualSelector {
		*spec = generateJobSelector(*spec, meta.Name, meta.UID)
	}
	spec.PodFailurePolicy = defaultPodFailurePolicy(spec.PodFailurePolicy)
	meta.Labels = jobLabels(meta.Labels, *spec)
}

// jobCreateProblems refuses a new Job without a UID, or, when herd
// generates its selector, whose template claims another Job's UID.
func jobCreateProblems(meta ObjectMeta, spec JobSpec) []FieldError {
	var errs []FieldError
	if meta.UID == "" {
		errs = append(errs, FieldError{Field: "metadata.uid", Reason: "Required value"})
	}
	if !spec.ManualSelector {
		errs = append(errs, generatedSelectorProblems(spec, meta.UID)...)
	}
	return errs
}

// jobLabels are a Job's labels: those given, or when none are, its
// template's, as batch/v1 defaults them (so that kubectl get jobs -l
// job-name=pi finds the Job).
func jobLabels(labels map[string]string, s JobSpec) map[string]string {
	if len(labels) == 0 {
		return cloneStrings(s.Template.Labels)
	}
	return cloneStrings(labels)
}

// generateJobSelector labels the template with the Job's name and UID,
// under both spellings, where it does not say them already, and makes
// the selector select the UID label, as kube-apiserver's Job strategy
// does: the UID makes the Job's pods its own alone.
func generateJobSelector(s JobSpec, name, uid string) JobSpec {
	labels := cloneStrings(s.Template.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range map[string]string{
		LabelLegacyJobName: name, LabelJobName: name, LabelLegacyJobControllerUID: uid, LabelJobControllerUID: uid,
	} {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	s.Template.Labels = labels
	match := cloneStrings(s.Selector.MatchLabels)
	if match == nil {
		match = map[string]string{}
	}
	if _, ok := match[LabelJobControllerUID]; !ok {
		match[LabelJobControllerUID] = uid
	}
	s.Selector.MatchLabels = match
	return s
}

// generatedSelectorProblems refuses a template that claims another Job's
// UID when herd generates the selector.
func generatedSelectorProblems(s JobSpec, uid string) []FieldError {
	if s.Template.Labels[LabelJobControllerUID] == uid && s.Template.Labels[LabelLegacyJobControllerUID] == uid {
		return nil
	}
	return []FieldError{{Field: "spec.template.metadata.labels", Reason: "Invalid value: `selector` not auto-generated"}}
}

// jobSpecProblems checks a Job's spec as kube-apiserver does: counts not
// negative, a mode herd runs, a selector that is not empty and that the
// template's labels satisfy, and a template whose pods end (restart
// policy OnFailure or Never) and are valid pods.
func jobSpecProblems(s JobSpec) []FieldError {
	errs := nonNegative(nil, "spec.parallelism", s.Parallelism)
	errs = nonNegative(errs, "spec.backoffLimit", s.BackoffLimit)
	if s.Completions != nil {
		errs = nonNegative(errs, "spec.completions", *s.Completions)
	}
	if s.ActiveDeadlineSeconds != nil {
		errs = nonNegative(errs, "spec.activeDeadlineSeconds", *s.ActiveDeadlineSeconds)
	}
	if s.TTLSecondsAfterFinished != nil {
		errs = nonNegative(errs, "spec.ttlSecondsAfterFinished", *s.TTLSecondsAfterFinished)
	}
	switch s.CompletionMode {
	case JobNonIndexed:
	case JobIndexed:
		if s.Completions == nil {
			errs = append(errs, FieldError{Field: "spec.completions", Reason: "Required value: when completion mode is Indexed"})
		}
		if s.Parallelism > maxIndexedParallelism {
			errs = append(errs, FieldError{Field: "spec.parallelism", Value: strconv.Itoa(int(s.Parallelism)),
				Reason: fmt.Sprintf("must be less than or equal to %d when completion mode is Indexed", maxIndexedParallelism)})
		}
	default:
		errs = append(errs, FieldError{Field: "spec.completionMode",
			Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "NonIndexed", "Indexed"`, s.CompletionMode)})
	}
	errs = append(errs, selectedTemplateProblems(s.Selector, s.Template)...)
	if p := s.Template.Spec.RestartPolicy; p != RestartOnFailure && p != RestartNever {
		if p == "" {
			p = RestartAlways
		}
		errs = append(errs, FieldError{Field: "spec.template.spec.restartPolicy",
			Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "OnFailure", "Never"`, p)})
	}
	errs = append(errs, podFailurePolicyProblems(s)...)
	return append(errs, successPolicyProblems(s)...)
}

// prepareJobUpdate defaults an update of a Job as a create's: the
// NonIndexed completion mode, and its template's labels as its own when
// it is given none.
func prepareJobUpdate(meta *ObjectMeta, spec *JobSpec) {
	if spec.CompletionMode == "" {
		spec.CompletionMode = JobNonIndexed
	}
	spec.PodFailurePolicy = defaultPodFailurePolicy(spec.PodFailurePolicy)
	meta.Labels = jobLabels(meta.Labels, *spec)
}

// jobUpdateProblems refuses a change of what batch/v1 fixes once a Job
// is created.
func jobUpdateProblems(_ ObjectMeta, old JobSpec, _ ObjectMeta, spec JobSpec) []FieldError {
	var errs []FieldError
	immutable := func(field string, same bool) {
		if !same {
			errs = append(errs, FieldError{Field: field, Reason: "Invalid value: field is immutable"})
		}
	}
	immutable("spec.selector", semanticEqual(spec.Selector, old.Selector))
	immutable("spec.template", semanticEqual(spec.Template, old.Template))
	immutable("spec.completions", semanticEqual(spec.Completions, old.Completions))
	immutable("spec.completionMode", spec.CompletionMode == old.CompletionMode)
	immutable("spec.manualSelector", spec.ManualSelector == old.ManualSelector)
	immutable("spec.podFailurePolicy", semanticEqual(spec.PodFailurePolicy, old.PodFailurePolicy))
	immutable("spec.successPolicy", semanticEqual(spec.SuccessPolicy, old.SuccessPolicy))
	return errs
}

// jobStatusProblems checks a status written for a Job, as batch/v1's
// status strategy does: counts not negative, no more ready pods than
// active ones, and completed indexes, when they change, only for an
// Indexed Job and in the form it writes them, each below its
// completions.
func jobStatusProblems(spec JobSpec, old, st JobStatus) []FieldError {
	errs := nonNegative(nil, "status.active", st.Active)
	errs = nonNegative(errs, "status.ready", st.Ready)
	errs = nonNegative(errs, "status.succeeded", st.Succeeded)
	errs = nonNegative(errs, "status.failed", st.Failed)
	if st.Ready > st.Active {
		errs = append(errs, FieldError{Field: "status.ready", Value: strconv.Itoa(int(st.Ready)), Reason: "cannot set more ready pods than active"})
	}
	switch {
	case st.CompletedIndexes == old.CompletedIndexes:
	case spec.CompletionMode != JobIndexed && st.CompletedIndexes != "":
		errs = append(errs, FieldError{Field: "status.completedIndexes", Value: st.CompletedIndexes, Reason: "cannot set non-empty completedIndexes when non-indexed completion mode"})
	case spec.Completions != nil:
		if why := completedIndexesProblem(st.CompletedIndexes, *spec.Completions); why != "" {
			errs = append(errs, FieldError{Field: "status.completedIndexes", Value: st.CompletedIndexes, Reason: "error parsing completedIndexes: " + why})
		}
	}
	return errs
}

// CountJobPods counts finished pods of the Job, by UID, each once: a pod
// counted already is not counted again. Forget names counted pods that
// are gone, whose UIDs the Job no longer needs to keep.
type CountJobPods struct {
	Succeeded, Failed, Forget []string
	// Ignored are failed pods a pod failure policy's Ignore rule
	// matched: counted, so never again, but not as failures.
	Ignored []string
	// FailJob is, when a FailJob rule of the Job's pod failure policy
	// matched one of the failed pods, the message of the failure it
	// decides: the Job's FailureTarget condition is set with the count,
	// unless its outcome is known already.
	FailJob string
	// Indexes are the completion indexes of an Indexed Job's succeeded
	// pods, by UID: a pod that completes an index not yet completed
	// completes it; one of an index completed already, or of none, is
	// counted without completing any.
	Indexes map[string]int32
}

func (c CountJobPods) decideObject(s subject[JobCommand], now time.Time) ([]Event, error) {
	j, err := stateOf[Job](s)
	if err != nil {
		return nil, err
	}
	if err := requireObject(j.Object); err != nil {
		return nil, err
	}
	seen := slices.Clone(j.Tracking.Counted)
	fresh := func(uids []string) []string {
		var out []string
		for _, uid := range uids {
			if uid != "" && !slices.Contains(seen, uid) {
				out = append(out, uid)
				seen = append(seen, uid)
			}
		}
		return out
	}
	ev := JobPodsCounted{Succeeded: fresh(c.Succeeded), Failed: fresh(c.Failed), Ignored: fresh(c.Ignored), At: now}
	if c.FailJob != "" && !j.Status.Is(JobFailureTarget) && !j.Status.Is(JobSuccessCriteriaMet) && !j.Status.Finished() {
		ev.FailJob = c.FailJob
	}
	if j.Spec.CompletionMode == JobIndexed {
		ev.Indexes = completedNow(j, ev.Succeeded, c.Indexes)
	}
	for _, uid := range c.Forget {
		if slices.Contains(j.Tracking.Counted, uid) && !slices.Contains(ev.Forgotten, uid) {
			ev.Forgotten = append(ev.Forgotten, uid)
		}
	}
	if len(ev.Succeeded)+len(ev.Failed)+len(ev.Ignored)+len(ev.Forgotten) == 0 && ev.FailJob == "" {
		return nil, nil
	}
	return []Event{ev}, nil
}

// completedNow are the indexes the Indexed Job j's newly counted
// succeeded pods complete, in the order counted: each within the Job's
// completions and not completed before, once.
func completedNow(j Job, succeeded []string, indexes map[string]int32) []int32 {
	done, _ := ParseIndexes(j.Status.CompletedIndexes)
	var out []int32
	for _, uid := range succeeded {
		i, ok := indexes[uid]
		if !ok || i < 0 || j.Spec.Completions == nil || i >= *j.Spec.Completions || done.Has(i) {
			continue
		}
		done = done.With(i)
		out = append(out, i)
	}
	return out
}
