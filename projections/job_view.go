package projections

import (
	"herd/domain"
	"herd/events"
)

// JobView answers queries about Jobs: the API's reads, the state watches
// start from, and the Job reconciler's.
type JobView = JSONView[domain.Job]

// NewJobView returns a JobView reading the views beside log.
func NewJobView(log events.Log) *JobView { return newJSONView(log, jobs) }
