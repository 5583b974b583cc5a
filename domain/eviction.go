package domain

import (
	"errors"
	"fmt"
	"time"
)

// Eviction evicts a pod within its disruption budget, as Kubernetes'
// Eviction API does (pkg/registry/core/pod/storage/eviction.go): a pod
// that no budget covers, or that is already no disruption (pending,
// finished or being deleted), is evicted at once; a pod one budget covers
// is evicted only when that budget grants the disruption
// (GrantPodDisruption), which spends it. The grant and the eviction are
// one unit of work: two evictions can never both spend the last
// disruption. It spans two aggregates, so it has an executor of its own
// (Executor[Pod, Eviction]).
type Eviction struct {
	// Command is what the eviction does to the pod once its budget lets
	// it: EvictPod, or a command wrapping one (IfSamePod).
	Command PodCommand
}

// ErrDisruptionBudget is what every refusal of an eviction by a
// disruption budget matches with errors.Is (EvictionRefusedError).
var ErrDisruptionBudget = errors.New("the pod's disruption budget refuses the eviction")

// ErrMultipleBudgets refuses the eviction of a pod that more than one
// budget covers, in kube-apiserver's words: it cannot tell which to
// spend.
var ErrMultipleBudgets = errors.New("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.") //nolint:staticcheck // ST1005: kube-apiserver's exact words

// EvictionRefusedError is an eviction a disruption budget refuses: for
// now (Kubernetes' 429 TooManyRequests, with the DisruptionBudget cause),
// or, when Forbidden, until the budget's status is mended.
type EvictionRefusedError struct {
	// Budget is the budget's name.
	Budget string
	// Forbidden is set when the budget's status forbids any eviction
	// (kube-apiserver's 403), not only this one for now.
	Forbidden bool
	// Cause says why, in kube-apiserver's words: the DisruptionBudget
	// cause of a 429, or the reason of a 403.
	Cause string
	// RetryAfterSeconds is the wait kube-apiserver suggests.
	RetryAfterSeconds int
}

// EvictionRefusedMessage is the message of kube-apiserver's 429 for an
// eviction a budget refuses, which clients print.
const EvictionRefusedMessage = "Cannot evict pod as it would violate the pod's disruption budget."

func (e *EvictionRefusedError) Error() string {
	if e.Forbidden {
		return fmt.Sprintf("poddisruptionbudget.policy %q is forbidden: %s", e.Budget, e.Cause)
	}
	return EvictionRefusedMessage + " " + e.Cause
}

// Is makes errors.Is(err, ErrDisruptionBudget) true for every refusal.
func (e *EvictionRefusedError) Is(target error) bool { return target == ErrDisruptionBudget }

// maxDisruptedPods is how many granted disruptions a budget may hold
// before the reconciler has seen them through: kube-apiserver's
// MaxDisruptedPodSize.
const maxDisruptedPods = 2000

// Budget says which of budgets (those of the pod's namespace) must grant
// the eviction of p, and the command that asks it; a zero Key and nil
// command when none need be asked: p is gone, pending, finished or being
// deleted (already no disruption), or no budget covers it. A pod that
// more than one covers is refused with ErrMultipleBudgets.
func (e Eviction) Budget(p Pod, budgets []PodDisruptionBudget) (Key, PodDisruptionBudgetCommand, error) {
	if !p.Exists() || p.Terminating() || p.Status.Phase == PodPending || p.Status.Phase == PodSucceeded ||
		p.Status.Phase == PodFailed || p.Status.Phase == "" {
		return Key{}, nil, nil
	}
	var covering []PodDisruptionBudget
	for _, b := range budgets {
		if BudgetSelects(b, p) {
			covering = append(covering, b)
		}
	}
	switch len(covering) {
	case 0:
		return Key{}, nil, nil
	case 1:
		return covering[0].Key(), GrantPodDisruption{Pod: p.Name, PodReady: PodReady(p)}, nil
	}
	return Key{}, nil, ErrMultipleBudgets
}

// PodReady reports whether the pod's Ready condition is True: what a
// budget counts as healthy.
func PodReady(p Pod) bool {
	c, ok := p.Condition(PodConditionReady)
	return ok && c.Status == ConditionTrue
}

// GrantPodDisruption asks a budget to let pod Pod be evicted, as
// kube-apiserver's checkAndDecrement does: a pod that is not ready goes
// without spending anything when the budget's policy is AlwaysAllow, or
// while the budget has every healthy pod it needs; otherwise the budget
// must have counted its current spec and allow a disruption, and then
// allows one fewer and records the pod as disrupted.
type GrantPodDisruption struct {
	Pod      string
	PodReady bool
}

func (c GrantPodDisruption) decideObject(s subject[PodDisruptionBudgetCommand], now time.Time) ([]Event, error) {
	b := modelOf(s)
	if err := requireObject(b); err != nil {
		return nil, err
	}
	st := b.Status
	if !c.PodReady && (b.Spec.UnhealthyPodEvictionPolicy == AlwaysAllow || st.CurrentHealthy >= st.DesiredHealthy && st.DesiredHealthy > 0) {
		return nil, nil
	}
	switch {
	case st.ObservedGeneration < b.Generation:
		return nil, &EvictionRefusedError{Budget: b.Name, RetryAfterSeconds: 10,
			Cause: fmt.Sprintf("The disruption budget %s is still being processed by the server.", b.Name)}
	case st.DisruptionsAllowed < 0:
		return nil, &EvictionRefusedError{Budget: b.Name, Forbidden: true, Cause: "pdb disruptions allowed is negative"}
	case len(st.DisruptedPods) > maxDisruptedPods:
		return nil, &EvictionRefusedError{Budget: b.Name, Forbidden: true,
			Cause: "DisruptedPods map too big - too many evictions not confirmed by PDB controller"}
	case st.DisruptionsAllowed == 0:
		return nil, &EvictionRefusedError{Budget: b.Name,
			Cause: fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", b.Name, st.DesiredHealthy, st.CurrentHealthy)}
	}
	return []Event{PodDisruptionGranted{Pod: c.Pod, At: now}}, nil
}
