package httpapi

import (
	"net/http"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// cronJobKind serves CronJobs (batch/v1), as kubectl create cronjob and
// client-go write them: the spec from create, replace and patch (suspend
// among it), the status from the reconciler that makes their Jobs. An
// update keeps the owners the CronJob was created with.
func (s *Server) cronJobKind() *kind {
	return modelKind[domain.CronJob, domain.CronJobSpec, domain.CronJobStatus, batchv1.CronJob, *batchv1.CronJob]{
		kind: &kind{
			gv: batchv1.SchemeGroupVersion, resource: "cronjobs", singular: "cronjob", name: "CronJob",
			namespaced: true, shortNames: []string{"cj"}, categories: []string{"all"},
		},
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
	t := tableRows{columns: []metav1.TableColumnDefinition{
		nameColumn("CronJob"),
		{Name: "Schedule", Type: "string", Description: "The schedule in Cron format."},
		{Name: "Timezone", Type: "string", Description: "The time zone name for the given schedule."},
		{Name: "Suspend", Type: "boolean", Description: "Whether new runs are suspended."},
		{Name: "Active", Type: "integer", Description: "The number of running jobs."},
		{Name: "Last Schedule", Type: "string", Description: "When a job was last scheduled."},
		ageColumn("the CronJob was created"),
		wide("Containers", "Names of each container in the template"), wide("Images", "Images of each container in the template"),
		wide("Selector", "The label selector of the Jobs' pods"),
	}}
	now := s.Clock.Now()
	for _, c := range cjs {
		names, images := containerCells(c.Spec.JobTemplate.Spec.Template.Spec)
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
		t.cells = append(t.cells, []any{
			c.Name, c.Spec.Schedule, zone, suspend, int64(len(c.Status.Active)), last, age(now, c.CreationTimestamp),
			names, images, metav1.FormatLabelSelector(c.Spec.JobTemplate.Spec.Selector),
		})
	}
	return t
}
