package domain

import "strconv"

// The budget's commands: the object model's, and GrantPodDisruption,
// which an eviction spends it with.
type (
	// PodDisruptionBudgetCommand is a command on one budget.
	PodDisruptionBudgetCommand = ObjectCommand[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// CreatePodDisruptionBudget creates a budget, as kubectl create pdb
	// does.
	CreatePodDisruptionBudget = Create[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// UpdatePodDisruptionBudget makes a budget's labels, annotations and
	// spec those given (policy/v1 lets every field of the spec change),
	// conditional on a resourceVersion in a Precondition. A change of the
	// spec is a new generation, which evictions wait for the reconciler
	// to count.
	UpdatePodDisruptionBudget = Update[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// RecordPodDisruptionBudgetStatus records what the reconciler counted
	// of the budget's pods, or what a client writes through the status
	// subresource.
	RecordPodDisruptionBudgetStatus = RecordStatus[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// DeletePodDisruptionBudget deletes a budget.
	DeletePodDisruptionBudget = Delete[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// ReleasePodDisruptionBudget takes off the budget's reference to the
	// owner of UID.
	ReleasePodDisruptionBudget = Release[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
)

// DecidePodDisruptionBudget returns the events cmd causes on b at now
// (DecideObject).
var DecidePodDisruptionBudget = DecideObject[PodDisruptionBudget]

// budgetResource is how kube-apiserver names the resource in refusals.
const budgetResource = "poddisruptionbudgets.policy"

// budgetSpecProblems checks a budget's spec as kube-apiserver does: not
// both minAvailable and maxUnavailable, each a number or a percentage
// not negative and not over 100%, a selector of valid keys, values and
// operators (an empty one is allowed: it selects every pod), and a known
// unhealthy pod eviction policy.
func budgetSpecProblems(s PodDisruptionBudgetSpec) []FieldError {
	var errs []FieldError
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, FieldError{Field: "spec", Reason: "minAvailable and maxUnavailable cannot be both set"})
	}
	for _, f := range []struct {
		field string
		v     *IntOrPercent
	}{{"spec.minAvailable", s.MinAvailable}, {"spec.maxUnavailable", s.MaxUnavailable}} {
		field, v := f.field, f.v
		if v == nil {
			continue
		}
		if v.Value < 0 {
			errs = append(errs, FieldError{Field: field, Value: strconv.Itoa(int(v.Value)), Reason: "must be greater than or equal to 0"})
		}
		if v.Percent && v.Value > 100 {
			errs = append(errs, FieldError{Field: field, Value: v.String(), Reason: "must not be greater than 100%"})
		}
	}
	if s.Selector != nil && !s.Selector.Empty() {
		errs = append(errs, s.Selector.problems("spec.selector")...)
	}
	switch s.UnhealthyPodEvictionPolicy {
	case "", IfHealthyBudget, AlwaysAllow:
	default:
		errs = append(errs, FieldError{Field: "spec.unhealthyPodEvictionPolicy", Value: s.UnhealthyPodEvictionPolicy,
			Reason: `Unsupported value: supported values: "AlwaysAllow", "IfHealthyBudget"`})
	}
	return errs
}
