package httpapi

import (
	"net/http"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// cronJobKind serves CronJobs (batch/v1), as kubectl create cronjob and
// client-go write them: the spec from create, replace and patch (suspend
// among it), the status from the reconciler that makes their Jobs. An
// update replaces the owners, as in Kubernetes.
func (s *Server) cronJobKind() *kind {
	return modelKind[domain.CronJob, domain.CronJobSpec, domain.CronJobStatus, batchv1.CronJob, *batchv1.CronJob]{
		kind:      workloadKind(batchv1.SchemeGroupVersion, "CronJob", "cronjobs", "cj"),
		aggregate: domain.CronJobAggregate, fold: projections.FoldCronJob, view: s.CronJobView, exec: s.CronJobs,
		toAPI: conversions.CronJobToAPI, fromAPI: conversions.CronJobFromAPI,
		status: func(in *batchv1.CronJob) domain.CronJobStatus { return conversions.CronJobStatusFromAPI(in.Status) },
		rows:   cronJobRows,
	}.describe(s)
}

// cronJobRows are the columns kubectl get cronjobs prints: NAME,
// SCHEDULE, TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE, AGE, and with -o
// wide CONTAINERS, IMAGES and SELECTOR, in Kubernetes' words (its
// printCronJob).
func cronJobRows(s *Server, cjs []batchv1.CronJob, _ *http.Request) tableRows {
	return workloadRows(s, cjs, "CronJob", "The label selector of the Jobs' pods", []metav1.TableColumnDefinition{
		{Name: "Schedule", Type: "string", Description: "The schedule in Cron format."},
		{Name: "Timezone", Type: "string", Description: "The time zone name for the given schedule."},
		{Name: "Suspend", Type: "boolean", Description: "Whether new runs are suspended."},
		{Name: "Active", Type: "integer", Description: "The number of running jobs."},
		{Name: "Last Schedule", Type: "string", Description: "When a job was last scheduled."},
	}, func(c *batchv1.CronJob, now time.Time) workloadRow {
		last, zone, suspend := "<none>", "<none>", "<unset>"
		if c.Status.LastScheduleTime != nil {
			last = age(now, *c.Status.LastScheduleTime)
		}
		if c.Spec.TimeZone != nil {
			zone = *c.Spec.TimeZone
		}
		if c.Spec.Suspend != nil {
			suspend = "False"
			if *c.Spec.Suspend {
				suspend = "True"
			}
		}
		return workloadRow{&c.ObjectMeta, &c.Spec.JobTemplate.Spec.Template.Spec, c.Spec.JobTemplate.Spec.Selector,
			[]any{c.Spec.Schedule, zone, suspend, int64(len(c.Status.Active)), last}}
	})
}
