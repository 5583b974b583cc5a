package domain

import "time"

// HeartbeatMissed records that herd's clock passed the node's deadline (its last
// heartbeat plus the grace period, or its registration plus the startup
// grace period when it never reported) and herd marked its conditions
// Unknown.
type HeartbeatMissed struct {
	// LastHeartbeat is the node's last heartbeat, zero if it never sent one.
	LastHeartbeat time.Time `json:"lastHeartbeat"`
	// Reason is NodeStatusUnknown or NodeStatusNeverUpdated.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// NodeBecameNotReady records that the node's Ready condition left True.
type NodeBecameNotReady struct {
	// Status is Ready's new status, False or Unknown.
	Status ConditionStatus `json:"status"`
	Reason string          `json:"reason,omitempty"`
	At     time.Time       `json:"at"`
}

// NodeTainted records that a taint was put on the node.
type NodeTainted struct {
	Taint Taint `json:"taint"`
	// Cause says why, in words (the condition behind it, or who asked).
	Cause string    `json:"cause,omitempty"`
	At    time.Time `json:"at"`
}

// NodeUntainted records that a taint was taken off the node.
type NodeUntainted struct {
	Key    string      `json:"key"`
	Effect TaintEffect `json:"effect"`
	Cause  string      `json:"cause,omitempty"`
	At     time.Time   `json:"at"`
}

// EventType implements Event.
func (HeartbeatMissed) EventType() string { return "HeartbeatMissed" }

// EventType implements Event.
func (NodeBecameNotReady) EventType() string { return "NodeBecameNotReady" }

// EventType implements Event.
func (NodeTainted) EventType() string { return "NodeTainted" }

// EventType implements Event.
func (NodeUntainted) EventType() string { return "NodeUntainted" }
