package domain

import (
	"strconv"
	"time"
)

// DrainNode starts emptying a node: it is cordoned, its agent state becomes
// Draining, and the drain reconciler evicts every pod on it, honouring
// each pod's grace period or the one given here. Draining a node that is
// draining or drained changes nothing.
type DrainNode struct {
	GracePeriodSeconds *int64
}

func (c DrainNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if g := c.GracePeriodSeconds; g != nil && *g < 0 {
		return nil, invalid("Node", n.Name, []FieldError{{Field: "gracePeriodSeconds", Value: strconv.FormatInt(*g, 10), Reason: "must be greater than or equal to 0"}})
	}
	if n.Drain != nil {
		return nil, nil
	}
	return []Event{NodeDrainStarted{GracePeriodSeconds: cloneInt64(c.GracePeriodSeconds), At: now}}, nil
}

// MarkNodeDrained records that a draining node holds no more pods.
type MarkNodeDrained struct{}

func (MarkNodeDrained) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if n.Drain == nil || !n.Drain.DrainedAt.IsZero() {
		return nil, nil
	}
	return []Event{NodeDrained{At: now}}, nil
}

// UndrainNode ends a drain: the node is uncordoned and back to Ready (or
// Starting, if it is not Ready). A node that was only cordoned (as
// `kubectl drain` leaves it) is uncordoned; one neither drained nor
// cordoned changes nothing.
type UndrainNode struct{}

func (UndrainNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	switch {
	case n.Drain != nil:
		return []Event{NodeUndrained{At: now}}, nil
	case n.Unschedulable:
		return []Event{NodeUncordoned{At: now}}, nil
	}
	return nil, nil
}
