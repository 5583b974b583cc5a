package replicaset

import (
	"maps"
	"time"

	"herd/domain"
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
