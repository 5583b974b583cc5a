package domain

import (
	"cmp"
	"time"
)

// The Ready condition a node is left with when its agent stops cleanly.
const (
	// ReasonAgentStopped is the reason of Ready=False after a clean stop.
	ReasonAgentStopped = "AgentStopped"
	// MessageAgentStopped is the message that goes with it.
	MessageAgentStopped = "herd agent stopped cleanly"
	// MessagePressureAgentStopped is the message of the pressure
	// conditions a clean stop turns Unknown (reason ReasonAgentStopped).
	MessagePressureAgentStopped = "herd agent stopped: no longer reported"
)

// DeregisterNode is a node's agent saying goodbye before it stops: a clean
// shutdown, as opposed to falling silent.
//
// It records NodeDeregistered, which leaves the agent Stopped, followed by
// NodeConditionChanged turning Ready False (reason ReasonAgentStopped)
// unless Ready is already False: a stopped node takes no work, and nobody
// needs to wait for a heartbeat timeout to know it. The pressure
// conditions herd derived from the agent's reports (MemoryPressure,
// DiskPressure, PIDPressure, HighLoad, CPUPressure) go Unknown with the
// same reason: nobody reports them any more. More than one such change
// is recorded as one NodeStatusChanged, as a report's are. The node's
// next registration then counts as a clean start.
//
// Deregistering a node that is already Stopped records nothing: agents
// retry their goodbye, and a retry is not news.
type DeregisterNode struct {
	// Message replaces MessageAgentStopped on the Ready condition, for
	// nodes whose stop is not an agent's (herd no longer polling a
	// kubelet, say).
	Message string
}

func (c DeregisterNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if n.AgentState == AgentStopped {
		return nil, nil
	}
	var changes []NodeConditionChanged
	if from := conditionStatus(n, ConditionReady); from != ConditionFalse {
		changes = append(changes, NodeConditionChanged{
			Type:    ConditionReady,
			From:    from,
			Status:  ConditionFalse,
			Reason:  ReasonAgentStopped,
			Message: cmp.Or(c.Message, MessageAgentStopped),
			At:      now,
		})
	}
	// What the agent last reported of its load and use is no longer
	// known: Unknown, as the health rules turn a silent node's, not the
	// last reading shown as current.
	changes = append(changes, pressuresUnknown(n, reportedPressures, ReasonAgentStopped, cmp.Or(c.Message, MessagePressureAgentStopped), now)...)
	// More than one change is one NodeStatusChanged, as a report's are.
	return append([]Event{NodeDeregistered{At: now}}, statusChange(changes, nil, now)...), nil
}
