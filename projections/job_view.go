package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// JobView answers queries about Jobs from the job view: the API's reads,
// the reconciler's, and the state watches start from.
type JobView struct {
	db *viewDB
}

// NewJobView returns a JobView reading the views beside log.
func NewJobView(log events.Log) *JobView {
	return &JobView{db: newViewDB(log)}
}

// Get returns the Job, or domain.ErrNotFound when it does not exist or
// was deleted.
func (v *JobView) Get(ctx context.Context, namespace, name string) (domain.Job, error) {
	return jobs.get(ctx, v.db, namespace, name)
}

// List returns the Jobs of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion).
func (v *JobView) List(ctx context.Context, namespace string) ([]domain.Job, int64, error) {
	return jobs.list(ctx, v.db, namespace)
}

// Rows returns up to limit Jobs whose keys ("namespace/name") sort after
// after, in key order, deleted ones (tombstones) included, and the log
// head at the moment of reading; limit 0 or less means all of them.
func (v *JobView) Rows(ctx context.Context, after string, limit int) ([]domain.Job, int64, error) {
	return jobs.rows(ctx, v.db, after, limit)
}
