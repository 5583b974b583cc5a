package domain

import "time"

// Event is something that happened, in the past tense. Its EventType is the
// stable name it is stored under: renaming one is a migration.
type Event interface {
	EventType() string
}

// Registration is what a node says about itself when it registers.
type Registration struct {
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Kind        NodeKind          `json:"kind"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Addresses   []Address         `json:"addresses,omitempty"`
	Capacity    ResourceList      `json:"capacity,omitempty"`
	Allocatable ResourceList      `json:"allocatable,omitempty"`
	Info        NodeInfo          `json:"info"`
	MaxJobs     int               `json:"maxJobs,omitempty"`
	KubeletPort int32             `json:"kubeletPort,omitempty"`
}

// NodeRegistered records that herd saw the node for the first time (or the first time
// since it was deleted).
type NodeRegistered struct {
	Registration
	At time.Time `json:"at"`
}

// NodeRestarted records that a known node registered again.
type NodeRestarted struct {
	Registration
	// RestartCount is the node's restart count after this restart.
	RestartCount int `json:"restartCount"`
	// Reason is RestartCleanStart, RestartCrashRecovery or RestartReboot.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// HeartbeatRecorded records that the node reported in. Conditions whose status changed
// are recorded by the NodeConditionChanged events, or the one
// NodeStatusChanged, that follow it.
type HeartbeatRecorded struct {
	At time.Time `json:"at"`
	// Metrics as an agent reported them; nil for kubelets and Picos that
	// report conditions instead. A nil here leaves the node's latest
	// metrics in place.
	Metrics *Metrics `json:"metrics,omitempty"`
	// Kubelet are the figures of a kubelet's summary, nil for other
	// nodes; a nil here likewise leaves the latest in place.
	Kubelet *KubeletMetrics `json:"kubelet,omitempty"`
}

// NodeConditionChanged records that a condition appeared or changed status (or reason
// or message, with the same status). At is the transition time only when
// From differs from Status.
type NodeConditionChanged struct {
	Type ConditionType `json:"type"`
	// From is the previous status, empty if the node had no such condition.
	From    ConditionStatus `json:"from,omitempty"`
	Status  ConditionStatus `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	// Inferred is true when herd concluded the status itself (a silent
	// node's conditions going Unknown): the node reported nothing, so
	// the condition's lastHeartbeatTime stays at the last real report.
	Inferred bool      `json:"inferred,omitempty"`
	At       time.Time `json:"at"`
}

// NodeStatusChanged records, as one event, what one report of a node
// changed when it changed more than one thing: each condition that
// appeared or changed, and Ready's turn to or from True (and, the same
// way, what a node's clean stop changed: DeregisterNode). A kubelet
// registering with its four conditions and Ready True wrote five events
// before (four NodeConditionChanged and a NodeBecameReady); it writes
// this one. A report that changes one thing records that one event as
// before (NodeConditionChanged, NodeBecameReady or NodeBecameNotReady).
// Whoever looks for one of its parts in the log finds it here
// (Composite).
type NodeStatusChanged struct {
	// Conditions are the conditions that appeared or changed, in the
	// order herd appends new ones to a node.
	Conditions []ConditionChange `json:"conditions,omitempty"`
	// BecameReady says Ready turned True, or the node was Starting,
	// Stopped or Lost and is Ready now (NodeBecameReady).
	BecameReady bool `json:"becameReady,omitempty"`
	// NotReady is Ready's new status when it left True (False or
	// Unknown: NodeBecameNotReady), "" when it did not.
	NotReady ConditionStatus `json:"notReady,omitempty"`
	// NotReadyReason is the reason the report gave Ready when it left
	// True.
	NotReadyReason string    `json:"notReadyReason,omitempty"`
	At             time.Time `json:"at"`
}

// ConditionChange is one condition a NodeStatusChanged changed: a
// NodeConditionChanged within it.
type ConditionChange struct {
	Type ConditionType `json:"type"`
	// From is the previous status, empty if the node had no such
	// condition.
	From    ConditionStatus `json:"from,omitempty"`
	Status  ConditionStatus `json:"status"`
	Reason  string          `json:"reason,omitempty"`
	Message string          `json:"message,omitempty"`
	// Inferred is NodeConditionChanged's: herd concluded the status
	// itself (a clean stop's pressures going Unknown).
	Inferred bool `json:"inferred,omitempty"`
}

// Parts are the events e stands for, as herd records them one by one: each
// condition's change, then NodeBecameReady or NodeBecameNotReady.
// Folding them one after the other gives the node e leaves.
func (e NodeStatusChanged) Parts() []Event {
	out := make([]Event, 0, len(e.Conditions)+1)
	for _, c := range e.Conditions {
		out = append(out, NodeConditionChanged{Type: c.Type, From: c.From, Status: c.Status, Reason: c.Reason, Message: c.Message, Inferred: c.Inferred, At: e.At})
	}
	switch {
	case e.BecameReady:
		out = append(out, NodeBecameReady{At: e.At})
	case e.NotReady != "":
		out = append(out, NodeBecameNotReady{Status: e.NotReady, Reason: e.NotReadyReason, At: e.At})
	}
	return out
}

// statusChange is the events of one report's changes, the conditions'
// and Ready's turn (nil, NodeBecameReady or NodeBecameNotReady):
// themselves in that order when there is one, one NodeStatusChanged
// when there are more.
func statusChange(changes []NodeConditionChanged, turn Event, at time.Time) []Event {
	n := len(changes)
	if turn != nil {
		n++
	}
	if n < 2 {
		var out []Event
		for _, c := range changes {
			out = append(out, c)
		}
		if turn != nil {
			out = append(out, turn)
		}
		return out
	}
	out := NodeStatusChanged{At: at, Conditions: make([]ConditionChange, len(changes))}
	for i, c := range changes {
		out.Conditions[i] = ConditionChange{Type: c.Type, From: c.From, Status: c.Status, Reason: c.Reason, Message: c.Message, Inferred: c.Inferred}
	}
	switch t := turn.(type) {
	case NodeBecameReady:
		out.BecameReady = true
	case NodeBecameNotReady:
		out.NotReady, out.NotReadyReason = t.Status, t.Reason
	}
	return []Event{out}
}

// NodeBecameReady records that the node's Ready condition turned True. A node that was
// Starting (or Stopped) is Ready from here on.
type NodeBecameReady struct {
	At time.Time `json:"at"`
}

// NodeDeregistered records that the node stopped cleanly and said so.
type NodeDeregistered struct {
	At time.Time `json:"at"`
}

// NodeLabelsChanged records that the node's labels or annotations were replaced. The
// maps are the complete new sets.
type NodeLabelsChanged struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	At          time.Time         `json:"at"`
}

// NodeDeleted records that the node was removed from the fleet.
type NodeDeleted struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (NodeRegistered) EventType() string { return "NodeRegistered" }

// EventType implements Event.
func (NodeRestarted) EventType() string { return "NodeRestarted" }

// EventType implements Event.
func (HeartbeatRecorded) EventType() string { return "HeartbeatRecorded" }

// EventType implements Event.
func (NodeConditionChanged) EventType() string { return "NodeConditionChanged" }

// EventType implements Event.
func (NodeBecameReady) EventType() string { return "NodeBecameReady" }

// EventType implements Event.
func (NodeStatusChanged) EventType() string { return "NodeStatusChanged" }

// EventType implements Event.
func (NodeDeregistered) EventType() string { return "NodeDeregistered" }

// EventType implements Event.
func (NodeLabelsChanged) EventType() string { return "NodeLabelsChanged" }

// EventType implements Event.
func (NodeDeleted) EventType() string { return "NodeDeleted" }

// NodeAggregate is the node in the log: streams "node/NAME" and the events
// they hold, with their schema versions.
var NodeAggregate = defineAggregate("node",
	eventOf[NodeRegistered](1),
	eventOf[NodeRestarted](1),
	eventOf[HeartbeatRecorded](1),
	eventOf[NodeConditionChanged](1),
	eventOf[NodeBecameReady](1),
	eventOf[NodeBecameNotReady](1),
	eventOf[HeartbeatMissed](2), // 2: with its Parts; a 1 has none
	eventOf[NodeStatusChanged](1),
	eventOf[NodeDeregistered](1),
	eventOf[NodeLabelsChanged](1),
	eventOf[NodeDeleted](1),
	eventOf[NodeTainted](1),
	eventOf[NodeUntainted](1),
	eventOf[NodeCordoned](1),
	eventOf[NodeUncordoned](1),
	eventOf[NodeDrainStarted](1),
	eventOf[NodeDrained](1),
	eventOf[NodeUndrained](1),
	eventOf[NodeScrapeFailed](1),
	eventOf[NodeScrapeRecovered](1),
	eventOf[NodeMachineObserved](1),
	eventOf[NodeServiceFailed](1),
	eventOf[NodeServiceRecovered](1),
	eventOf[NodeKubeletEndpointChanged](1),
	eventOf[NodePressureEased](1),
	eventOf[NodePressureReturned](1),
)
