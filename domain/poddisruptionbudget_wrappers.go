package domain

import "time"

// The command wrappers on a budget: a patch applied inside its unit of
// work (From), and a write conditional on a resourceVersion
// (Precondition), as a controller's update of poddisruptionbudgets/NAME/status
// is.

func (f From[S, C]) decidePodDisruptionBudget(b PodDisruptionBudget, now time.Time) ([]Event, error) {
	return decideFrom(f, b, now, DecidePodDisruptionBudget)
}

func (c Precondition[C]) decidePodDisruptionBudget(b PodDisruptionBudget, now time.Time) ([]Event, error) {
	return decideWrapped(b, now, c.check, c.Command, DecidePodDisruptionBudget)
}
