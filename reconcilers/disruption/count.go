package disruption

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"herd/domain"
)

// counted is what the reconciler counts of a budget's pods.
type counted struct {
	expected, desired, healthy int32
	// disrupted are the granted disruptions still awaited; recheck is
	// when the first of them times out, zero for none.
	disrupted map[string]time.Time
	recheck   time.Time
	// unmanaged names the pods without a controller that the budget's
	// expected count leaves out.
	unmanaged []string
}

// count counts b's pods at now, as Kubernetes' disruption controller
// does: the pods expected and the healthy ones the budget needs
// (getExpectedPodCount), the disruptions granted and still awaited
// (buildDisruptedPodMap), and the healthy pods (countHealthyPods).
func (r *Reconciler) count(ctx context.Context, b domain.PodDisruptionBudget, pods []domain.Pod, now time.Time) (counted, error) {
	var c counted
	switch s := b.Spec; {
	case s.MaxUnavailable != nil:
		expected, unmanaged, err := r.expectedScale(ctx, b.Namespace, pods)
		if err != nil {
			return c, err
		}
		c.expected, c.unmanaged = expected, unmanaged
		c.desired = max(expected-s.MaxUnavailable.Of(expected), 0)
	case s.MinAvailable != nil && !s.MinAvailable.Percent:
		c.expected, c.desired = int32(len(pods)), s.MinAvailable.Value //nolint:gosec // a namespace's pods
	case s.MinAvailable != nil:
		expected, unmanaged, err := r.expectedScale(ctx, b.Namespace, pods)
		if err != nil {
			return c, err
		}
		c.expected, c.unmanaged = expected, unmanaged
		c.desired = s.MinAvailable.Of(expected)
	}
	c.disrupted, c.recheck = awaited(b, pods, now)
	c.healthy = healthy(pods, c.disrupted, now)
	return c, nil
}

// status is the budget's status once counted: the disruptions it allows
// (none while it expects no pod, so that a budget whose first pods
// appear before it is counted allows nothing), observed at its
// generation, with its DisruptionAllowed condition.
func (c counted) status(b domain.PodDisruptionBudget, now time.Time) domain.PodDisruptionBudgetStatus {
	allowed := c.healthy - c.desired
	if c.expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := domain.PodDisruptionBudgetStatus{
		ObservedGeneration: b.Generation, DisruptedPods: c.disrupted, DisruptionsAllowed: allowed,
		CurrentHealthy: c.healthy, DesiredHealthy: c.desired, ExpectedPods: c.expected,
		Conditions: b.Status.Conditions,
	}
	return st.WithAllowedCondition(now)
}

// errNoController is the refusal to count a pod whose controller herd
// cannot find: Kubernetes' "found no controllers for pod".
var errNoController = errors.New("found no controllers for pod")

// expectedScale is how many pods the controllers of pods keep, added up
// once per controller, as Kubernetes' getExpectedScale: a ReplicaSet's
// replicas, or those of the Deployment that controls the ReplicaSet. A
// pod without a controller is left out (unmanaged). herd serves no other
// controller with a scale, so a pod controlled by anything else counts
// for itself, as if its controller kept exactly the pods the budget
// selects of it. A ReplicaSet or Deployment that is gone, or another of
// the same name, is an error: the budget cannot be counted.
func (r *Reconciler) expectedScale(ctx context.Context, namespace string, pods []domain.Pod) (int32, []string, error) {
	scales := map[string]int32{}
	var unmanaged []string
	for _, p := range pods {
		ref, ok := controllerOf(p)
		if !ok {
			unmanaged = append(unmanaged, p.Name)
			continue
		}
		if !isReplicaSet(ref) {
			scales["pod/"+p.UID]++
			continue
		}
		if _, seen := scales[ref.UID]; seen {
			continue
		}
		rs, err := r.replicaSets.Get(ctx, namespace, ref.Name)
		if errors.Is(err, domain.ErrNotFound) || err == nil && rs.UID != ref.UID {
			return 0, nil, fmt.Errorf("%w %q", errNoController, p.Name)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("replicaset %s/%s: %w", namespace, ref.Name, err)
		}
		owner, owned := controllerOf(domain.Pod{Owners: rs.Owners})
		if !owned || owner.Kind != "Deployment" || r.deployments == nil {
			scales[ref.UID] = rs.Spec.Replicas
			continue
		}
		if _, seen := scales[owner.UID]; seen {
			scales[ref.UID] = 0 // its Deployment is counted already
			continue
		}
		d, err := r.deployments.Get(ctx, namespace, owner.Name)
		if errors.Is(err, domain.ErrNotFound) || err == nil && d.UID != owner.UID {
			return 0, nil, fmt.Errorf("%w %q", errNoController, p.Name)
		}
		if err != nil {
			return 0, nil, fmt.Errorf("deployment %s/%s: %w", namespace, owner.Name, err)
		}
		scales[ref.UID], scales[owner.UID] = 0, d.Spec.Replicas
	}
	var total int32
	for _, n := range scales {
		total += n
	}
	return total, unmanaged, nil
}

// controllerOf is the pod's controller owner reference.
func controllerOf(p domain.Pod) (domain.OwnerReference, bool) {
	for _, o := range p.Owners {
		if o.Controller {
			return o, true
		}
	}
	return domain.OwnerReference{}, false
}

// isReplicaSet reports whether ref names a ReplicaSet (apps or the old
// extensions group, as Kubernetes' finder accepts).
func isReplicaSet(ref domain.OwnerReference) bool {
	group, _, _ := strings.Cut(ref.APIVersion, "/")
	return ref.Kind == "ReplicaSet" && (group == "apps" || group == "extensions")
}

// awaited are the disruptions b granted that are still awaited at now:
// those of pods not yet seen being deleted, for DisruptionTimeout after
// the grant; and when the first of them times out.
func awaited(b domain.PodDisruptionBudget, pods []domain.Pod, now time.Time) (map[string]time.Time, time.Time) {
	var (
		out     map[string]time.Time
		recheck time.Time
	)
	for _, p := range pods {
		at, ok := b.Status.DisruptedPods[p.Name]
		if !ok || p.Terminating() {
			continue
		}
		expires := at.Add(domain.DisruptionTimeout)
		if expires.Before(now) {
			continue
		}
		if out == nil {
			out = map[string]time.Time{}
		}
		out[p.Name] = at
		if recheck.IsZero() || expires.Before(recheck) {
			recheck = expires
		}
	}
	return out, recheck
}

// healthy counts the pods that are ready, not being deleted, and not
// awaited as disrupted.
func healthy(pods []domain.Pod, disrupted map[string]time.Time, now time.Time) int32 {
	var n int32
	for _, p := range pods {
		if p.Terminating() {
			continue
		}
		if at, ok := disrupted[p.Name]; ok && at.Add(domain.DisruptionTimeout).After(now) {
			continue
		}
		if domain.PodReady(p) {
			n++
		}
	}
	return n
}
