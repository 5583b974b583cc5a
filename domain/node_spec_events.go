package domain

import "time"

// NodeCordoned records that an operator marked the node unschedulable.
type NodeCordoned struct {
	At time.Time `json:"at"`
}

// NodeUncordoned records that an operator made the node schedulable again.
type NodeUncordoned struct {
	At time.Time `json:"at"`
}

// NodeDrainStarted records that an operator asked for the node to be emptied. The node
// is cordoned and its agent state is Draining.
type NodeDrainStarted struct {
	// GracePeriodSeconds overrides each pod's grace period; nil keeps it.
	GracePeriodSeconds *int64    `json:"gracePeriodSeconds,omitempty"`
	At                 time.Time `json:"at"`
}

// NodeDrained records that the last pod of a draining node is gone; it stays cordoned.
type NodeDrained struct {
	At time.Time `json:"at"`
}

// NodeUndrained records that an operator ended the drain; the node takes pods again.
type NodeUndrained struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (NodeCordoned) EventType() string { return "NodeCordoned" }

// EventType implements Event.
func (NodeUncordoned) EventType() string { return "NodeUncordoned" }

// EventType implements Event.
func (NodeDrainStarted) EventType() string { return "NodeDrainStarted" }

// EventType implements Event.
func (NodeDrained) EventType() string { return "NodeDrained" }

// EventType implements Event.
func (NodeUndrained) EventType() string { return "NodeUndrained" }
