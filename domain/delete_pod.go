package domain

import (
	"strconv"
	"time"
)

// DeletePod asks for a pod's deletion. A pod that was never scheduled, or
// that has finished, goes at once (unless finalizers hold it). Any other
// pod gets a deletion deadline: now plus the grace period given, or the
// pod's own terminationGracePeriodSeconds; the termination reconciler
// takes it from there. Deleting again is idempotent, and may shorten the
// deadline but never lengthen it.
type DeletePod struct {
	// GracePeriodSeconds overrides the pod's grace period; nil keeps it.
	GracePeriodSeconds *int64
}

func (c DeletePod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	grace := p.Spec.TerminationGracePeriodSeconds
	if c.GracePeriodSeconds != nil {
		grace = *c.GracePeriodSeconds
	}
	if grace < 0 {
		return nil, invalid("Pod", p.Name, []FieldError{{Field: "gracePeriodSeconds", Value: strconv.FormatInt(grace, 10), Reason: "must be greater than or equal to 0"}})
	}
	immediate := p.Spec.NodeName == "" || p.Finished()
	if immediate {
		grace = 0
	}
	deadline := now.Add(time.Duration(grace) * time.Second)
	var evs []Event
	if p.Deletion == nil || deadline.Before(p.Deletion.Deadline) {
		evs = append(evs, PodDeletionRequested{GracePeriodSeconds: grace, Deadline: deadline, At: now})
	}
	if immediate && len(p.Finalizers) == 0 {
		reason := "NeverScheduled"
		if p.Finished() {
			reason = "Finished"
		}
		evs = append(evs, PodFinalized{Reason: reason, At: now})
	}
	return evs, nil
}

// TargetPodDisruption marks a pod as about to be evicted, with the reason
// naming who evicts it. Marking it again for the same reason changes
// nothing.
type TargetPodDisruption struct {
	Reason  string
	Message string
}

func (c TargetPodDisruption) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if c.Reason == "" {
		return nil, invalid("Pod", p.Name, []FieldError{{Field: "reason", Reason: "Required value"}})
	}
	if cond, ok := p.Condition(PodConditionDisruptionTarget); ok && cond.Status == ConditionTrue && cond.Reason == c.Reason {
		return nil, nil
	}
	return []Event{PodDisruptionTargeted{Reason: c.Reason, Message: c.Message, At: now}}, nil
}
