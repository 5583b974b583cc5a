package domain

import (
	"fmt"
	"time"
)

// Reasons and messages herd gives conditions it marks Unknown. They are
// Kubernetes' own (node lifecycle controller), so dashboards and alerts
// written for Kubernetes read herd's nodes unchanged.
const (
	ReasonNodeStatusUnknown      = "NodeStatusUnknown"
	MessageNodeStatusUnknown     = "Kubelet stopped posting node status."
	ReasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverUpd    = "Kubelet never posted node status."
)

// healthConditions are the conditions that go Unknown when a node falls
// silent, in the order they are added to a node that never reported.
var healthConditions = []ConditionType{
	ConditionReady, ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad,
}

// MarkNodeUnreachable is the health rule's verdict that a node missed its
// deadline: every health condition goes Unknown. A node that never reported
// gets them all, with NodeStatusNeverUpdated. Conditions already Unknown
// keep their transition time; a node with nothing left to change records
// nothing, so repeated checks are harmless. A stopped node is expected to
// be silent and is left alone.
type MarkNodeUnreachable struct {
	// Note is added to the condition messages, for instance to say that
	// herd suspects it is cut off itself.
	Note string
	// LastHeard is when herd last heard from the node by its lease
	// (domain.LastHeard); HeartbeatMissed records the later of it and
	// the node's own last report. Whether the node ever posted its status
	// is judged by its own reports, as Kubernetes judges it.
	LastHeard time.Time
}

func (c MarkNodeUnreachable) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if n.AgentState == AgentStopped {
		return nil, nil
	}
	reason, msg := ReasonNodeStatusUnknown, MessageNodeStatusUnknown
	never := n.LastHeartbeat.IsZero()
	if never {
		reason, msg = ReasonNodeStatusNeverUpdated, MessageNodeStatusNeverUpd
	}
	if c.Note != "" {
		msg = fmt.Sprintf("%s %s", msg, c.Note)
	}
	var changes []Event
	for _, t := range healthConditions {
		cur, ok := n.Condition(t)
		if (!ok && !never) || cur.Status == ConditionUnknown {
			continue
		}
		changes = append(changes, NodeConditionChanged{
			Type: t, From: cur.Status, Status: ConditionUnknown, Reason: reason, Message: msg, Inferred: true, At: now,
		})
	}
	if len(changes) == 0 {
		return nil, nil
	}
	last := n.LastHeartbeat
	if c.LastHeard.After(last) {
		last = c.LastHeard
	}
	evs := append([]Event{HeartbeatMissed{LastHeartbeat: last, Reason: reason, At: now}}, changes...)
	if conditionStatus(n, ConditionReady) == ConditionTrue {
		evs = append(evs, NodeBecameNotReady{Status: ConditionUnknown, Reason: reason, At: now})
	}
	return evs, nil
}

// Silent reports whether a node has missed its deadline at now: its last
// heartbeat is older than grace or, never having reported, its
// registration is older than startupGrace. It is the rule the health check
// applies, in the same strict form as its query over the node view.
func Silent(lastHeartbeat, registeredAt, now time.Time, grace, startupGrace time.Duration) bool {
	if lastHeartbeat.IsZero() {
		return registeredAt.Before(now.Add(-startupGrace))
	}
	return lastHeartbeat.Before(now.Add(-grace))
}

// ExpectedToReport reports whether n counts in the fleet disruption rule:
// registered, not deleted, not stopped.
func (n Node) ExpectedToReport() bool { return n.Exists() && n.AgentState != AgentStopped }
