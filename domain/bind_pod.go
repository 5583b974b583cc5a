package domain

import (
	"fmt"
	"time"
)

// BindPod binds a pod to a node: the scheduler's decision, or a client's
// through the binding subresource. Binding again to the same node changes
// nothing; binding a bound pod elsewhere, or a terminating one, is a
// conflict. That the node exists and fits is the caller's business.
type BindPod struct {
	NodeName string
}

func (c BindPod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if c.NodeName == "" {
		return nil, invalid("Binding", p.Name, []FieldError{{Field: "target.name", Reason: "Required value"}})
	}
	switch {
	case p.Spec.NodeName == c.NodeName:
		return nil, nil
	case p.Spec.NodeName != "":
		return nil, fmt.Errorf("%s is already assigned to node %q: %w", podRef(p), p.Spec.NodeName, ErrConflict)
	case p.Terminating():
		return nil, fmt.Errorf("%s is being deleted: %w", podRef(p), ErrConflict)
	}
	return []Event{PodScheduled{NodeName: c.NodeName, At: now}}, nil
}

// MarkPodUnschedulable records that no node fits the pod. It changes
// nothing when the pod is bound, terminating, or already unschedulable for
// the same reasons: a message that differs only in its counts ("0/48
// nodes are available" against "0/49") is not recorded again, or every
// node that registers would append one event per pending pod.
type MarkPodUnschedulable struct {
	Message string
}

func (c MarkPodUnschedulable) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requireManaged(p); err != nil {
		return nil, err
	}
	if p.Spec.NodeName != "" || p.Terminating() {
		return nil, nil
	}
	if cond, ok := p.Condition(PodConditionScheduled); ok && cond.Status == ConditionFalse && SameUnschedulableReasons(cond.Message, c.Message) {
		return nil, nil
	}
	return []Event{PodUnschedulable{Message: c.Message, At: now}}, nil
}
