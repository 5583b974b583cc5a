package projections

import (
	"herd/domain"
	"herd/events"
)

// cronJobs describes the CronJob: its row in cronjobs.
var cronJobs = describeJSONRows(domain.CronJobAggregate, "cronjobs", "cronjobs.batch",
	func(namespace, name string) domain.CronJob {
		return domain.CronJob{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}
	},
	domain.EvolveCronJob,
	func(c domain.CronJob) jsonRow {
		return jsonRow{namespace: c.Namespace, name: c.Name, deleted: c.Deleted, version: c.Version, position: c.ResourceVersion}
	},
	func(c domain.CronJob, position int64) domain.CronJob { c.ResourceVersion = position; return c },
)

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
