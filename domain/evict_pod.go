package domain

import "time"

// EvictPod marks a pod as a disruption target and deletes it, with
// GracePeriodSeconds when it is set and the pod's own otherwise: what a
// node drain and the NoExecute taint manager do to the pods they move
// off a node. A pod already being deleted only gets the shorter deadline,
// when GracePeriodSeconds is set and shorter; otherwise it is left as it
// is.
type EvictPod struct {
	// Reason and Message go on the pod's DisruptionTarget condition.
	Reason, Message string
	// GracePeriodSeconds overrides the pod's own grace period.
	GracePeriodSeconds *int64
}

func (c EvictPod) decidePod(p Pod, now time.Time) ([]Event, error) {
	del := DeletePod{GracePeriodSeconds: c.GracePeriodSeconds}
	if p.Terminating() {
		if c.GracePeriodSeconds == nil {
			return nil, nil
		}
		return DecidePod(p, del, now)
	}
	return DecidePodSequence(p, now, TargetPodDisruption{Reason: c.Reason, Message: c.Message}, del)
}
