package httpapi

import (
	"fmt"
	"net/http"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// jobKind serves Jobs (batch/v1), as kubectl create job and client-go
// write them: the spec from create, replace and patch (within batch/v1's
// immutable fields), the status from the reconciler that runs the pods.
// The UID is given before the command is made, since the generated
// selector is made of it. An update replaces the owners, as in
// Kubernetes.
func (s *Server) jobKind() *kind {
	return modelKind[domain.Job, domain.JobSpec, domain.JobStatus, batchv1.Job, *batchv1.Job]{
		kind:      workloadKind(batchv1.SchemeGroupVersion, "Job", "jobs"),
		aggregate: domain.JobAggregate, fold: projections.FoldJob, view: s.JobView, exec: s.Jobs,
		toAPI: conversions.JobToAPI, fromAPI: conversions.JobFromAPI,
		status: func(in *batchv1.Job) domain.JobStatus { return conversions.JobStatusFromAPI(in.Status) },
		rows:   jobRows,
	}.describe(s)
}

// jobRows are the columns kubectl get jobs prints: NAME, STATUS,
// COMPLETIONS, DURATION, AGE, and with -o wide CONTAINERS, IMAGES and
// SELECTOR, in Kubernetes' words (its printJob).
func jobRows(s *Server, jobs []batchv1.Job, _ *http.Request) tableRows {
	return workloadRows(s, jobs, "Job", "The label selector of the Job's pods", []metav1.TableColumnDefinition{
		{Name: "Status", Type: "string", Description: "Status of the job."},
		{Name: "Completions", Type: "string", Description: "The number of pods which reached phase Succeeded, of those the job needs."},
		{Name: "Duration", Type: "string", Description: "Time required to complete the job."},
	}, func(j *batchv1.Job, now time.Time) workloadRow {
		var took string
		switch {
		case j.Status.StartTime == nil:
		case j.Status.CompletionTime == nil:
			took = duration.HumanDuration(now.Sub(j.Status.StartTime.Time))
		default:
			took = duration.HumanDuration(j.Status.CompletionTime.Sub(j.Status.StartTime.Time))
		}
		return workloadRow{&j.ObjectMeta, &j.Spec.Template.Spec, j.Spec.Selector, []any{jobStatusCell(*j), jobCompletions(*j), took}}
	})
}

// jobStatusCell is the Job's STATUS as kubectl prints it: the first of
// its conditions that holds, in kubectl's order, else Running.
func jobStatusCell(j batchv1.Job) string {
	holds := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case holds(batchv1.JobComplete):
		return "Complete"
	case holds(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case holds(batchv1.JobSuspended):
		return "Suspended"
	case holds(batchv1.JobFailureTarget):
		return "FailureTarget"
	case holds(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobCompletions is COMPLETIONS: succeeded/completions, or for a work
// queue (no completions) succeeded/1, "of N" when N pods run at once.
func jobCompletions(j batchv1.Job) string {
	if c := j.Spec.Completions; c != nil {
		return fmt.Sprintf("%d/%d", j.Status.Succeeded, *c)
	}
	if p := j.Spec.Parallelism; p != nil && *p > 1 {
		return fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *p)
	}
	return fmt.Sprintf("%d/1", j.Status.Succeeded)
}
