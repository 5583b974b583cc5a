package projections

import (
	"context"

	"herd/domain"
	"herd/events"
)

// PodDisruptionBudgetView answers queries about PodDisruptionBudgets
// from their view: the API's reads, the reconciler's, and the state
// watches start from.
type PodDisruptionBudgetView struct {
	db *viewDB
}

// NewPodDisruptionBudgetView returns a PodDisruptionBudgetView reading
// the views beside log.
func NewPodDisruptionBudgetView(log events.Log) *PodDisruptionBudgetView {
	return &PodDisruptionBudgetView{db: newViewDB(log)}
}

// Get returns the budget, or domain.ErrNotFound when it does not exist
// or was deleted.
func (v *PodDisruptionBudgetView) Get(ctx context.Context, namespace, name string) (domain.PodDisruptionBudget, error) {
	return podDisruptionBudgets.get(ctx, v.db, namespace, name)
}

// List returns the budgets of a namespace — of every namespace when
// namespace is "" — ordered by namespace and name, with the log head at
// the moment of reading (the list's resourceVersion), from one statement.
func (v *PodDisruptionBudgetView) List(ctx context.Context, namespace string) ([]domain.PodDisruptionBudget, int64, error) {
	return podDisruptionBudgets.list(ctx, v.db, namespace)
}

// Rows returns up to limit budgets whose keys ("namespace/name") sort
// after after, in key order, deleted ones (tombstones) included, and the
// log head at the moment of reading; limit 0 or less means all of them.
func (v *PodDisruptionBudgetView) Rows(ctx context.Context, after string, limit int) ([]domain.PodDisruptionBudget, int64, error) {
	return podDisruptionBudgets.rows(ctx, v.db, after, limit)
}
