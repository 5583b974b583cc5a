package replicaset

import (
	"context"
	"maps"
	"time"

	"herd/domain"
	"herd/reconcilers"
)

// status is what a ReplicaSet's status says of owned, the active pods it
// controls, at now, as Kubernetes' calculateStatus counts them: every
// one; those that carry every label of the template (fullyLabeled);
// those whose Ready condition is True; and those ready for at least
// MinReadySeconds (available). It also returns when the next of the
// ready pods becomes available, zero when none is waiting to.
func status(rs domain.ReplicaSet, owned []domain.Pod, now time.Time) (domain.ReplicaSetStatus, time.Time) {
	st := domain.ReplicaSetStatus{Replicas: int32(len(owned)), ObservedGeneration: rs.Generation}
	minReady := time.Duration(rs.Spec.MinReadySeconds) * time.Second
	var next time.Time
	for _, p := range owned {
		if fullyLabeled(rs.Spec.Template.Labels, p.Labels) {
			st.FullyLabeledReplicas++
		}
		since := readySince(p)
		if since.IsZero() {
			continue
		}
		st.ReadyReplicas++
		at := since.Add(minReady)
		if minReady == 0 || !now.Before(at) {
			st.AvailableReplicas++
		} else if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	return st, next
}

// fullyLabeled reports whether labels carry every one of template's.
func fullyLabeled(template, labels map[string]string) bool {
	for k, v := range maps.All(template) {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// statusCause is ctx whose status record names what moved it, as
// Kubernetes' controller reads a ReplicaSet's status off the ReplicaSet
// and the pods it controls: the newest of its last change of spec or
// scale (a new generation observed, the pods it created or deleted for
// it) and the last change that moves a count of one of the pods it
// controlled as read, active or not (one coming, turning ready,
// stopping, or being deleted: a drained pod's eviction, which the
// replacement created for it follows). Pods it creates in this
// reconcile were not read; they follow its spec. The record that queued
// the key stays the cause when the log holds none.
func statusCause(ctx context.Context, rs domain.ReplicaSet, pods []domain.Pod) (context.Context, error) {
	var controlled []domain.Pod
	for _, p := range pods {
		if o, ok := p.Controller(); ok && o.UID == rs.UID {
			controlled = append(controlled, p)
		}
	}
	return reconcilers.BecauseOfCount(ctx, controlled,
		reconcilers.SpecChange(domain.ReplicaSetStream(rs.Namespace, rs.Name), rs.Version, domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{}))
}
