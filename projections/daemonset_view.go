package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// DaemonSetView answers queries about DaemonSets from the daemonset
// view: the API's reads, the reconciler's, and the state watches start
// from.
type DaemonSetView struct {
	db *viewDB
}

// NewDaemonSetView returns a DaemonSetView reading the views beside log.
func NewDaemonSetView(log events.Log) *DaemonSetView {
	return &DaemonSetView{db: newViewDB(log)}
}

// Get returns the DaemonSet, or domain.ErrNotFound when it does not
// exist or was deleted.
func (v *DaemonSetView) Get(ctx context.Context, namespace, name string) (domain.DaemonSet, error) {
	return daemonSets.get(ctx, v.db, namespace, name)
}

// List returns the DaemonSets of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion), from one statement.
func (v *DaemonSetView) List(ctx context.Context, namespace string) ([]domain.DaemonSet, int64, error) {
	return daemonSets.list(ctx, v.db, namespace)
}

// Rows returns up to limit DaemonSets whose keys ("namespace/name") sort
// after after, in key order, deleted ones (tombstones) included, and the
// log head at the moment of reading; limit 0 or less means all of them.
func (v *DaemonSetView) Rows(ctx context.Context, after string, limit int) ([]domain.DaemonSet, int64, error) {
	return daemonSets.rows(ctx, v.db, after, limit)
}
