package conversions

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// batch/v1's defaults for a Job that names none: one pod at a time, six
// failures tolerated (SetDefaults_Job).
const (
	defaultParallelism  int32 = 1
	defaultBackoffLimit int32 = 6
)

// JobToAPI renders a domain Job as a batch/v1 Job.
func JobToAPI(j domain.Job) batchv1.Job {
	parallelism, backoff, mode, suspend := j.Spec.Parallelism, j.Spec.BackoffLimit, batchv1.CompletionMode(j.Spec.CompletionMode), j.Spec.Suspend
	replacement := batchv1.TerminatingOrFailed
	out := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{Kind: "Job", APIVersion: batchv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(j.ObjectMeta, j.ResourceVersion),
		Spec: batchv1.JobSpec{
			Parallelism: &parallelism, Completions: j.Spec.Completions, BackoffLimit: &backoff,
			ActiveDeadlineSeconds: j.Spec.ActiveDeadlineSeconds, TTLSecondsAfterFinished: j.Spec.TTLSecondsAfterFinished,
			CompletionMode: &mode, Suspend: &suspend, PodReplacementPolicy: &replacement,
			Selector: SelectorToAPI(j.Spec.Selector), Template: podTemplateToAPI(j.Spec.Template),
			PodFailurePolicy: podFailurePolicyToAPI(j.Spec.PodFailurePolicy), SuccessPolicy: successPolicyToAPI(j.Spec.SuccessPolicy),
		},
		Status: batchv1.JobStatus{
			Active: j.Status.Active, Ready: &j.Status.Ready, Succeeded: j.Status.Succeeded, Failed: j.Status.Failed,
			StartTime: timeToAPI(j.Status.StartTime), CompletionTime: timeToAPI(j.Status.CompletionTime),
			CompletedIndexes: j.Status.CompletedIndexes,
		},
	}
	if j.Spec.ManualSelector {
		out.Spec.ManualSelector = ptrTo(true)
	}
	for _, c := range j.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, batchv1.JobCondition{
			Type: batchv1.JobConditionType(c.Type), Status: corev1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
			LastProbeTime: metav1.NewTime(c.LastProbeTime), LastTransitionTime: metav1.NewTime(c.LastTransitionTime),
		})
	}
	return out
}

// timeToAPI is t as an optional API time: nil when zero.
func timeToAPI(t time.Time) *metav1.Time {
	if t.IsZero() {
		return nil
	}
	return ptrTo(metav1.NewTime(t))
}

// JobFromAPI reads what a client sets on a Job — its labels,
// annotations, owners and spec — with batch/v1's defaults: one pod at a
// time, one completion when neither is named, a backoff limit of 6, the
// NonIndexed mode, and the pod defaults of its template. A body
// kube-apiserver would refuse is refused here too, with its field paths,
// and so is what herd does not run (per-index backoff). The selector is generated from the UID by the
// domain unless spec.manualSelector is set. The status is the reconciler's
// (JobStatusFromAPI).
func JobFromAPI(in batchv1.Job) (domain.CreateJob, error) {
	if err := ValidateJob(&in); err != nil {
		return domain.CreateJob{}, err
	}
	tmpl := in.Spec.Template
	zone, err := zoneFromAnnotations(tmpl.Annotations)
	if err != nil {
		return domain.CreateJob{}, &domain.InvalidError{Kind: "Job", Name: in.Name,
			Fields: []domain.FieldError{{Field: "spec.template.metadata.annotations", Reason: err.Error()}}}
	}
	grace := domain.DefaultTerminationGracePeriodSeconds
	if g := tmpl.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = *g
	}
	podSpec := PodSpecFromAPI(tmpl.Spec)
	podSpec.TerminationGracePeriodSeconds, podSpec.Zone = grace, zone
	spec := domain.JobSpec{
		Parallelism: defaultParallelism, Completions: in.Spec.Completions, BackoffLimit: defaultBackoffLimit,
		ActiveDeadlineSeconds: in.Spec.ActiveDeadlineSeconds, TTLSecondsAfterFinished: in.Spec.TTLSecondsAfterFinished,
		CompletionMode:   domain.JobNonIndexed,
		ManualSelector:   in.Spec.ManualSelector != nil && *in.Spec.ManualSelector,
		Suspend:          in.Spec.Suspend != nil && *in.Spec.Suspend,
		Selector:         SelectorFromAPI(in.Spec.Selector),
		PodFailurePolicy: podFailurePolicyFromAPI(in.Spec.PodFailurePolicy),
		SuccessPolicy:    successPolicyFromAPI(in.Spec.SuccessPolicy),
		Template: domain.PodTemplate{
			Labels: tmpl.Labels, Annotations: WithoutHerdKeys(tmpl.Annotations),
			Spec: podSpec, TerminationGracePeriodSeconds: &grace,
		},
	}
	if in.Spec.Parallelism != nil {
		spec.Parallelism = *in.Spec.Parallelism
	} else if in.Spec.Completions == nil {
		one := int32(1)
		spec.Completions = &one
	}
	if in.Spec.BackoffLimit != nil {
		spec.BackoffLimit = *in.Spec.BackoffLimit
	}
	if in.Spec.CompletionMode != nil {
		spec.CompletionMode = string(*in.Spec.CompletionMode)
	}
	return domain.CreateJob{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: spec,
	}, nil
}

// JobStatusFromAPI reads the status a controller writes through
// jobs/NAME/status.
func JobStatusFromAPI(in batchv1.JobStatus) domain.JobStatus {
	out := domain.JobStatus{Active: in.Active, Succeeded: in.Succeeded, Failed: in.Failed, CompletedIndexes: in.CompletedIndexes}
	if in.Ready != nil {
		out.Ready = *in.Ready
	}
	if in.StartTime != nil {
		out.StartTime = in.StartTime.UTC()
	}
	if in.CompletionTime != nil {
		out.CompletionTime = in.CompletionTime.UTC()
	}
	for _, c := range in.Conditions {
		out.Conditions = append(out.Conditions, domain.JobCondition{
			Type: domain.JobConditionType(c.Type), Status: domain.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message,
			LastProbeTime: c.LastProbeTime.UTC(), LastTransitionTime: c.LastTransitionTime.UTC(),
		})
	}
	return out
}
