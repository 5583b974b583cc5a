// Package disruption is the disruption reconciler, in the manner of
// Kubernetes' disruption controller (pkg/controller/disruption): for each
// PodDisruptionBudget it counts the pods its selector matches in its
// namespace — how many are expected (from their controllers' scale where
// the budget needs it), how many must stay healthy, how many are — and
// records in the budget's status how many disruptions it allows, which
// evictions then spend. A budget it cannot count allows none.
//
// It reads budgets, the pods of one namespace at a time and ReplicaSets
// through the small interfaces it declares, and writes only through
// domain commands. It must not import the adapters or cmd.
package disruption
