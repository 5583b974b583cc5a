package projections

import (
	"herd/domain"
	"herd/events"
)

// jobs describes the Job: its row in jobs.
var jobs = describeJSONRows(domain.JobAggregate, "jobs", "jobs.batch",
	func(namespace, name string) domain.Job {
		return domain.Job{Object: domain.Object[domain.JobSpec, domain.JobStatus]{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}}
	},
	domain.EvolveJob,
	func(j domain.Job) jsonRow {
		return jsonRow{namespace: j.Namespace, name: j.Name, deleted: j.Deleted, version: j.Version, position: j.ResourceVersion}
	},
	func(j domain.Job, position int64) domain.Job { j.ResourceVersion = position; return j },
)

// FoldJob folds one logged event of a Job's stream into the Job, as the
// inline view does: watches and consistent lists use it to rebuild a Job
// as it stood at any log position.
func FoldJob(j domain.Job, rec events.Record) (domain.Job, error) {
	return jobs.fold(j, rec)
}
