package projections

import (
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
)

// podDisruptionBudgets describes the PodDisruptionBudget: its row in
// poddisruptionbudgets.
var podDisruptionBudgets = describeObjectRows(domain.PodDisruptionBudgetAggregate, "poddisruptionbudgets", "poddisruptionbudgets.policy",
	domain.EvolvePodDisruptionBudget)

// FoldPodDisruptionBudget folds one logged event of a budget's stream
// into the budget, as the inline view does: watches and consistent lists
// use it to rebuild a budget as it stood at any log position.
func FoldPodDisruptionBudget(b domain.PodDisruptionBudget, rec events.Record) (domain.PodDisruptionBudget, error) {
	return podDisruptionBudgets.fold(b, rec)
}

// budgetsOf reads the budgets of namespace through q, tombstones left
// out: inside a unit of work, what an eviction decides on.
func budgetsOf(ctx context.Context, q events.Querier, namespace string) ([]domain.PodDisruptionBudget, error) {
	data, err := podDisruptionBudgets.store.In(ctx, q, namespace)
	if err != nil {
		return nil, fmt.Errorf("budgets of namespace %s: %w", namespace, err)
	}
	var out []domain.PodDisruptionBudget
	for _, d := range data {
		b, err := podDisruptionBudgets.unmarshal(d)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
