package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// ReplicaSetView answers queries about ReplicaSets from the replicaset
// view: the API's reads, and the state watches start from.
type ReplicaSetView struct {
	db *viewDB
}

// NewReplicaSetView returns a ReplicaSetView reading the views beside log.
func NewReplicaSetView(log events.Log) *ReplicaSetView {
	return &ReplicaSetView{db: newViewDB(log)}
}

// Get returns the ReplicaSet, or domain.ErrNotFound when it does not
// exist or was deleted.
func (v *ReplicaSetView) Get(ctx context.Context, namespace, name string) (domain.ReplicaSet, error) {
	return replicaSets.get(ctx, v.db, namespace, name)
}

// List returns the ReplicaSets of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion), from one statement.
func (v *ReplicaSetView) List(ctx context.Context, namespace string) ([]domain.ReplicaSet, int64, error) {
	return replicaSets.list(ctx, v.db, namespace)
}

// Rows returns up to limit ReplicaSets whose keys ("namespace/name") sort
// after after, in key order, deleted ones (tombstones) included, and the
// log head at the moment of reading; limit 0 or less means all of them.
func (v *ReplicaSetView) Rows(ctx context.Context, after string, limit int) ([]domain.ReplicaSet, int64, error) {
	return replicaSets.rows(ctx, v.db, after, limit)
}
