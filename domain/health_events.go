package domain

import "time"

// HeartbeatMissed records that herd's clock passed the node's deadline (its last
// heartbeat plus the grace period, or its registration plus the startup
// grace period when it never reported) and herd marked its conditions
// Unknown.
//
// Since schema version 2 it says, in the one event, everything the mark
// changed: the conditions that went Unknown, whether Ready left True, and
// the taints put on (Parts). Marking a silent node wrote one event
// followed by one per condition, one NodeBecameNotReady and one per
// taint; 100,000 nodes falling silent wrote seven times as many events as
// nodes. A version 1 event has no parts: those changes follow it in the
// log as events of their own, and replay as before.
type HeartbeatMissed struct {
	// LastHeartbeat is the node's last heartbeat, zero if it never sent one.
	LastHeartbeat time.Time `json:"lastHeartbeat"`
	// Reason is NodeStatusUnknown or NodeStatusNeverUpdated.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// Message is the message of every condition the mark turned Unknown.
	Message string `json:"message,omitempty"`
	// Conditions are the conditions the mark turned Unknown, each with
	// the status it had, in order.
	Conditions []MissedCondition `json:"conditions,omitempty"`
	// NotReady says Ready was True before the mark.
	NotReady bool `json:"notReady,omitempty"`
	// Taints are the taints the mark put on (node.kubernetes.io/unreachable),
	// each added at At.
	Taints []Taint `json:"taints,omitempty"`
}

// MissedCondition is a condition a HeartbeatMissed turned Unknown.
type MissedCondition struct {
	Type ConditionType   `json:"type"`
	From ConditionStatus `json:"from,omitempty"`
}

// Parts are the events e stands for besides itself, as herd recorded them
// one by one before version 2: each condition's change, NodeBecameNotReady
// and each taint, in that order. Folding them one after the other gives
// the node e leaves; the timeline, the explanations and the reconcilers
// that react to one of them read them from here.
func (e HeartbeatMissed) Parts() []Event {
	if len(e.Conditions) == 0 && !e.NotReady && len(e.Taints) == 0 {
		return nil
	}
	out := make([]Event, 0, len(e.Conditions)+1+len(e.Taints))
	for _, c := range e.Conditions {
		out = append(out, NodeConditionChanged{Type: c.Type, From: c.From, Status: ConditionUnknown, Reason: e.Reason, Message: e.Message, Inferred: true, At: e.At})
	}
	if e.NotReady {
		out = append(out, NodeBecameNotReady{Status: ConditionUnknown, Reason: e.Reason, At: e.At})
	}
	for _, t := range e.Taints {
		out = append(out, NodeTainted{Taint: t, Cause: taintCause(t.Key), At: e.At})
	}
	return out
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
