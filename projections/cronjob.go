package projections

import (
	"herd/domain"
	"herd/events"
)

// cronJobs describes the CronJob: its row in cronjobs.
var cronJobs = describeObjectRows(domain.CronJobAggregate, "cronjobs", "cronjobs.batch",
	domain.EvolveObject[domain.CronJobSpec, domain.CronJobStatus])

// FoldCronJob folds one logged event of a CronJob's stream into the
// CronJob, as the inline view does: watches and consistent lists use it
// to rebuild a CronJob as it stood at any log position.
func FoldCronJob(c domain.CronJob, rec events.Record) (domain.CronJob, error) {
	return cronJobs.fold(c, rec)
}

// CronJobView answers queries about CronJobs: the API's reads and the
// cronjob reconciler's.
type CronJobView = JSONView[domain.CronJob]

// NewCronJobView returns a CronJobView reading the views beside log.
func NewCronJobView(log events.Log) *CronJobView { return newJSONView(log, cronJobs) }
