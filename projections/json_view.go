package projections

import (
	"context"

	"herd/events"
	"herd/projections/viewstore"
)

// JSONView answers queries about a kind whose view row is its JSON (a
// jsonRows kind): one object, a namespace's, and pages of rows for
// watches and consistent lists.
type JSONView[S any] struct {
	db   *viewstore.DB
	rows *jsonRows[S]
}

func newJSONView[S any](log events.Log, rows *jsonRows[S]) *JSONView[S] {
	return &JSONView[S]{db: viewstore.NewDB(log), rows: rows}
}

// Get returns the object, or domain.ErrNotFound when it does not exist or
// was deleted.
func (v *JSONView[S]) Get(ctx context.Context, namespace, name string) (S, error) {
	return v.rows.get(ctx, v.db, namespace, name)
}

// Last returns the object or, when it was deleted, its tombstone (which
// does not exist): what a controller reads to act on a deletion. An
// object never created is domain.ErrNotFound.
func (v *JSONView[S]) Last(ctx context.Context, namespace, name string) (S, error) {
	return v.rows.load(ctx, v.db, namespace, name)
}

// List returns the objects of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion), from one statement.
func (v *JSONView[S]) List(ctx context.Context, namespace string) ([]S, int64, error) {
	return v.rows.list(ctx, v.db, namespace)
}

// Controlled returns the objects of namespace whose controller is one of
// controllers ("Kind/name", "" for those without one), for a kind whose
// view keeps its objects' controllers (ReplicaSets): what a controller
// of them reads, not the whole namespace.
func (v *JSONView[S]) Controlled(ctx context.Context, namespace string, controllers []string) ([]S, int64, error) {
	return v.rows.controlled(ctx, v.db, namespace, controllers)
}

// Rows returns up to limit objects whose keys ("namespace/name") sort
// after after, in key order, deleted ones (tombstones) included, and the
// log head at the moment of reading; limit 0 or less means all of them.
func (v *JSONView[S]) Rows(ctx context.Context, after string, limit int) ([]S, int64, error) {
	return v.rows.rows(ctx, v.db, after, limit)
}
