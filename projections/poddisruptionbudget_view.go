package projections

import (
	"herd/domain"
	"herd/events"
)

// PodDisruptionBudgetView answers queries about PodDisruptionBudgets
// from their view: the API's reads, the reconciler's, and the state
// watches start from.
type PodDisruptionBudgetView = JSONView[domain.PodDisruptionBudget]

// NewPodDisruptionBudgetView returns a PodDisruptionBudgetView reading
// the views beside log.
func NewPodDisruptionBudgetView(log events.Log) *PodDisruptionBudgetView {
	return newJSONView(log, podDisruptionBudgets)
}
