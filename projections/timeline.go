package projections

import (
	"fmt"
	"strings"
	"time"

	"herd/domain"
	"herd/events"
	"herd/projections/viewstore"
)

// The types of a timeline entry, as a Kubernetes Event's type.
const (
	// TimelineNormal is an entry that needs nobody's attention.
	TimelineNormal = "Normal"
	// TimelineWarning is an entry an operator should look at: Kubernetes'
	// Warning events (NodeNotReady, a pressure condition True, a node
	// unreachable or rebooted, an eviction, a failed scrape).
	TimelineWarning = "Warning"
)

// TimelineDeleted is the kind of the entry that says a node was removed
// from the fleet: its name is free for another node.
const TimelineDeleted = "Deleted"

// TimelineEntry is one moment in a node's life as an operator reads it.
type TimelineEntry struct {
	// Position is the log position of the event behind the entry.
	Position int64 `json:"position"`
	// Seq is the entry's place among the entries of its event (a missed
	// heartbeat and what it changed), from 0: with Position, where a page
	// of the timeline continues after it.
	Seq int `json:"seq"`
	// Node is the node's name.
	Node string `json:"node"`
	// At is when it happened, by herd's clock.
	At time.Time `json:"at"`
	// Kind is the lifecycle event: Registered, BecameReady, Restarted,
	// ConditionChanged, Stopped, Deleted, LabelsChanged, ScrapeFailed,
	// ScrapeRecovered, ...
	Kind string `json:"kind"`
	// Type is TimelineWarning or TimelineNormal, the type of the
	// Kubernetes Event the entry is shown as.
	Type string `json:"type"`
	// Reason is a short machine-readable cause.
	Reason string `json:"reason,omitempty"`
	// Message says what happened in words.
	Message string `json:"message,omitempty"`
}

// timelineEntries maps one node event to the lifecycle entries it stands
// for. Plain heartbeats are not lifecycle events and map to none.
func timelineEntries(node string, rec events.Record, ev domain.Event) []TimelineEntry {
	entry := func(at time.Time, kind, typ, reason, msg string) []TimelineEntry {
		return []TimelineEntry{{Position: rec.Position, Node: node, At: at.UTC(), Kind: kind, Type: typ, Reason: reason, Message: msg}}
	}
	const normal, warning = TimelineNormal, TimelineWarning
	switch e := ev.(type) {
	case domain.NodeRegistered:
		return entry(e.At, "Registered", normal, string(e.Kind), fmt.Sprintf("registered as a node of kind %s", e.Kind))
	case domain.NodeRestarted:
		// The kubelet's Rebooted event is a Warning: what ran on the node
		// stopped.
		return entry(e.At, "Restarted", warning, e.Reason, fmt.Sprintf("node restarted (restart #%d: %s)", e.RestartCount, e.Reason))
	case domain.NodeBecameReady:
		return entry(e.At, "BecameReady", normal, "Ready", "node is Ready")
	case domain.NodeConditionChanged:
		msg := fmt.Sprintf("%s changed from %s to %s", e.Type, e.From, e.Status)
		if e.From == "" {
			msg = fmt.Sprintf("%s is %s", e.Type, e.Status)
		}
		if e.Message != "" {
			msg += ": " + e.Message
		}
		return entry(e.At, "ConditionChanged", conditionType(e.Type, e.From, e.Status), e.Reason, msg)
	case domain.NodeDeregistered:
		return entry(e.At, "Stopped", normal, "Deregistered", "node stopped cleanly")
	case domain.NodeLabelsChanged:
		return entry(e.At, "LabelsChanged", normal, "", "labels or annotations changed")
	case domain.NodeDeleted:
		return entry(e.At, TimelineDeleted, normal, "", "node removed from the fleet")
	case domain.HeartbeatMissed:
		msg := "no heartbeat ever received"
		if !e.LastHeartbeat.IsZero() {
			msg = "no heartbeat since " + e.LastHeartbeat.UTC().Format(time.RFC3339)
		}
		out := entry(e.At, "HeartbeatMissed", warning, e.Reason, msg)
		// What the mark changed, as the events it stands for read.
		for _, p := range e.Parts() {
			out = append(out, timelineEntries(node, rec, p)...)
		}
		return out
	case domain.NodeStatusChanged:
		// One report's changes, as the events it stands for read.
		var out []TimelineEntry
		for _, p := range e.Parts() {
			out = append(out, timelineEntries(node, rec, p)...)
		}
		return out
	case domain.NodeBecameNotReady:
		return entry(e.At, "BecameNotReady", warning, e.Reason, fmt.Sprintf("node is not Ready: Ready is %s", e.Status))
	case domain.NodeScrapeFailed:
		msg := "herd cannot poll the kubelet"
		if e.Message != "" {
			msg += ": " + e.Message
		}
		return entry(e.At, "ScrapeFailed", warning, e.Reason, msg)
	case domain.NodeKubeletEndpointChanged:
		return entry(e.At, "KubeletEndpointChanged", normal, "KubeletEndpointChanged", kubeletEndpointMessage(e))
	case domain.NodeScrapeRecovered:
		return entry(e.At, "ScrapeRecovered", normal, e.Reason, "herd polls the kubelet again")
	case domain.NodeServiceFailed:
		msg := fmt.Sprintf("service %s stopped running: %s", e.Service, e.State)
		if e.State == domain.ServiceNotFound {
			msg = fmt.Sprintf("service %s does not exist", e.Service)
		}
		return entry(e.At, "ServiceFailed", warning, "ServiceFailed", msg)
	case domain.NodeServiceRecovered:
		return entry(e.At, "ServiceRecovered", normal, "ServiceRecovered", fmt.Sprintf("service %s runs again: %s", e.Service, e.State))
	case domain.NodeTainted:
		// An operator's taint is an intent; one herd puts on for a
		// condition (unreachable, not ready, pressure) is trouble.
		typ := warning
		if e.Cause == domain.CauseOperator {
			typ = normal
		}
		return entry(e.At, "Tainted", typ, e.Cause, fmt.Sprintf("taint %s added", taintString(e.Taint.Key, e.Taint.Value, e.Taint.Effect)))
	case domain.NodeUntainted:
		return entry(e.At, "Untainted", normal, e.Cause, fmt.Sprintf("taint %s removed", taintString(e.Key, "", e.Effect)))
	case domain.NodeCordoned:
		return entry(e.At, "Cordoned", normal, "", "node marked unschedulable")
	case domain.NodeUncordoned:
		return entry(e.At, "Uncordoned", normal, "", "node marked schedulable")
	case domain.NodeDrainStarted:
		// Evictions are Warnings in Kubernetes: the node's pods are stopped.
		msg := "draining: evicting every pod, each with its own grace period"
		if e.GracePeriodSeconds != nil {
			msg = fmt.Sprintf("draining: evicting every pod with a grace period of %d s", *e.GracePeriodSeconds)
		}
		return entry(e.At, "Draining", warning, "", msg)
	case domain.NodeDrained:
		return entry(e.At, "Drained", normal, "", "every pod is gone; the node stays cordoned")
	case domain.NodeUndrained:
		return entry(e.At, "Undrained", normal, "", "drain ended; the node takes pods again")
	}
	return nil
}

// conditionType is Warning when a condition leaves its healthy status
// (domain.HealthyStatus): Ready, KubeletReachable and ServicesHealthy
// anything but True, any other condition (the pressures, HighLoad,
// NetworkUnavailable, a node problem detector's) True or Unknown, as
// Kubernetes' node conditions read. A condition first known as Unknown (a
// node just registered) is nothing to look at yet.
func conditionType(c domain.ConditionType, from, s domain.ConditionStatus) string {
	if s == domain.HealthyStatus(c) || (from == "" && s == domain.ConditionUnknown) {
		return TimelineNormal
	}
	return TimelineWarning
}

// kubeletEndpointMessage says where the node's kubelet listens now.
func kubeletEndpointMessage(e domain.NodeKubeletEndpointChanged) string {
	var parts []string
	if e.KubeletPort > 0 {
		parts = append(parts, fmt.Sprintf("kubelet port %d (was %d)", e.KubeletPort, e.FromPort))
	}
	if len(e.Addresses) > 0 {
		as := make([]string, len(e.Addresses))
		for i, a := range e.Addresses {
			as[i] = a.Type + " " + a.Address
		}
		parts = append(parts, "addresses "+strings.Join(as, ", "))
	}
	return "node reports its kubelet endpoint anew: " + strings.Join(parts, "; ")
}

func taintString(key, value string, effect domain.TaintEffect) string {
	if value != "" {
		key += "=" + value
	}
	return key + ":" + string(effect)
}

// timelineRows is the node timeline's table behind the views' store
// port, on whichever engine a handle is of.
var timelineRows = viewstore.NewTimeline()

// row is e as the seq'th entry of its event, in the timeline's table.
func (e TimelineEntry) row(seq int) viewstore.TimelineRow {
	return viewstore.TimelineRow{
		Position: e.Position, Seq: seq, Node: e.Node, At: e.At,
		Kind: e.Kind, Type: e.Type, Reason: e.Reason, Message: e.Message,
	}
}

// timelineEntry is the entry a row of the timeline's table keeps.
func timelineEntry(r viewstore.TimelineRow) TimelineEntry {
	return TimelineEntry{
		Position: r.Position, Seq: r.Seq, Node: r.Node, At: r.At,
		Kind: r.Kind, Type: r.Type, Reason: r.Reason, Message: r.Message,
	}
}
