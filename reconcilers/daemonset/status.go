package daemonset

import (
	"time"

	"herd/domain"
)

// status is what the DaemonSet's status says of w, as Kubernetes'
// updateDaemonSetStatus counts it: the nodes that should run a pod
// (desired), those of them that run one (current), whose oldest pod is
// ready, available (ready for minReadySeconds) and of the current
// template (updated); the nodes that run one but should not
// (misscheduled); and the desired ones without an available pod. It also
// returns when the next ready pod becomes available, zero when none is
// waiting to.
func (w world) status() (domain.DaemonSetStatus, time.Time) {
	st := domain.DaemonSetStatus{ObservedGeneration: w.ds.Generation}
	minReady := time.Duration(w.ds.Spec.MinReadySeconds) * time.Second
	var next time.Time
	for _, s := range w.sites {
		scheduled := len(s.pods) > 0
		if !s.shouldRun {
			if scheduled {
				st.NumberMisscheduled++
			}
			continue
		}
		st.DesiredNumberScheduled++
		if !scheduled {
			continue
		}
		st.CurrentNumberScheduled++
		pod := s.pods[0]
		if since, ok := ready(pod); ok {
			st.NumberReady++
			if w.available(pod) {
				st.NumberAvailable++
			} else if at := since.Add(minReady); next.IsZero() || at.Before(next) {
				next = at
			}
		}
		if w.updated(pod) {
			st.UpdatedNumberScheduled++
		}
	}
	st.NumberUnavailable = st.DesiredNumberScheduled - st.NumberAvailable
	return st, next
}
