package domain

import (
	"fmt"
	"time"
)

// MarkPodNotReady turns the Ready condition of a pod on a node that is not
// Ready to False, as Kubernetes' node lifecycle controller does
// (MarkPodsNotReady): nobody hears from the pod's containers while nobody
// hears from their node, so the pod no longer counts as serving — not
// in a workload's ready replicas, nor in a disruption budget's healthy
// pods. Only the condition's status changes; its reason and message stay.
// The node's runtime reports the pod Ready again once the node is back;
// for a pod herd observes through its kubelet, the kubelet's next report
// does. A pod whose Ready is not True, or that has none, is left as it
// is.
type MarkPodNotReady struct {
	// Node is the node the pod is bound to, which is not Ready.
	Node string
}

// PodMarkedNotReady records that herd turned the pod's Ready condition to
// False because Node, the node it is bound to, is not Ready.
type PodMarkedNotReady struct {
	Node string    `json:"node"`
	At   time.Time `json:"at"`
}

// EventType implements Event.
func (PodMarkedNotReady) EventType() string { return "PodMarkedNotReady" }

func (c MarkPodNotReady) decidePod(p Pod, now time.Time) ([]Event, error) {
	// A kubelet's pod too, as Kubernetes marks every pod of the node: the
	// kubelet says otherwise when herd hears from it again.
	if err := requirePod(p); err != nil {
		return nil, err
	}
	if c.Node == "" || p.Spec.NodeName != c.Node {
		return nil, fmt.Errorf("%s is bound to node %q, not %q: %w", podRef(p), p.Spec.NodeName, c.Node, ErrInvalid)
	}
	if !PodReady(p) {
		return nil, nil
	}
	return []Event{PodMarkedNotReady{Node: c.Node, At: now}}, nil
}

// markedNotReady is p's Ready condition once its node was found not Ready.
func markedNotReady(conds []PodCondition, at time.Time) []PodCondition {
	for _, c := range conds {
		if c.Type == PodConditionReady {
			c.Status = ConditionFalse
			return setPodCondition(conds, c, at)
		}
	}
	return conds
}
