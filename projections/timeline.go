package projections

import (
	"fmt"
	"time"

	"herd/domain"
	"herd/events"
)

// TimelineEntry is one moment in a node's life as an operator reads it.
type TimelineEntry struct {
	// Position is the log position of the event behind the entry.
	Position int64 `json:"position"`
	// Node is the node's name.
	Node string `json:"node"`
	// At is when it happened, by herd's clock.
	At time.Time `json:"at"`
	// Kind is the lifecycle event: Registered, BecameReady, Restarted,
	// ConditionChanged, Stopped, Deleted, LabelsChanged, ScrapeFailed,
	// ScrapeRecovered, ...
	Kind string `json:"kind"`
	// Reason is a short machine-readable cause.
	Reason string `json:"reason,omitempty"`
	// Message says what happened in words.
	Message string `json:"message,omitempty"`
}

// timelineEntries maps one node event to the lifecycle entries it stands
// for. Plain heartbeats are not lifecycle events and map to none.
func timelineEntries(node string, rec events.Record, ev domain.Event) []TimelineEntry {
	entry := func(at time.Time, kind, reason, msg string) []TimelineEntry {
		return []TimelineEntry{{Position: rec.Position, Node: node, At: at.UTC(), Kind: kind, Reason: reason, Message: msg}}
	}
	switch e := ev.(type) {
	case domain.NodeRegistered:
		return entry(e.At, "Registered", string(e.Kind), fmt.Sprintf("registered as a %s node", e.Kind))
	case domain.NodeRestarted:
		return entry(e.At, "Restarted", e.Reason, fmt.Sprintf("restart #%d (%s)", e.RestartCount, e.Reason))
	case domain.NodeBecameReady:
		return entry(e.At, "BecameReady", "Ready", "node is Ready")
	case domain.NodeConditionChanged:
		from := string(e.From)
		if from == "" {
			from = "none"
		}
		msg := fmt.Sprintf("%s %s -> %s", e.Type, from, e.Status)
		if e.Message != "" {
			msg += ": " + e.Message
		}
		return entry(e.At, "ConditionChanged", e.Reason, msg)
	case domain.NodeDeregistered:
		return entry(e.At, "Stopped", "Deregistered", "node stopped cleanly")
	case domain.NodeLabelsChanged:
		return entry(e.At, "LabelsChanged", "", "labels or annotations changed")
	case domain.NodeDeleted:
		return entry(e.At, "Deleted", "", "node removed from the fleet")
	case domain.HeartbeatMissed:
		last := "never"
		if !e.LastHeartbeat.IsZero() {
			last = e.LastHeartbeat.UTC().Format(time.RFC3339)
		}
		return entry(e.At, "HeartbeatMissed", e.Reason, "no heartbeat since "+last)
	case domain.NodeBecameNotReady:
		return entry(e.At, "BecameNotReady", e.Reason, fmt.Sprintf("Ready is %s", e.Status))
	case domain.NodeScrapeFailed:
		msg := "herd cannot poll the kubelet"
		if e.Message != "" {
			msg += ": " + e.Message
		}
		return entry(e.At, "ScrapeFailed", e.Reason, msg)
	case domain.NodeScrapeRecovered:
		return entry(e.At, "ScrapeRecovered", e.Reason, "herd polls the kubelet again")
	case domain.NodeTainted:
		return entry(e.At, "Tainted", e.Cause, fmt.Sprintf("taint %s", taintString(e.Taint.Key, e.Taint.Value, e.Taint.Effect)))
	case domain.NodeUntainted:
		return entry(e.At, "Untainted", e.Cause, fmt.Sprintf("taint %s removed", taintString(e.Key, "", e.Effect)))
	case domain.NodeCordoned:
		return entry(e.At, "Cordoned", "", "node marked unschedulable")
	case domain.NodeUncordoned:
		return entry(e.At, "Uncordoned", "", "node marked schedulable")
	case domain.NodeDrainStarted:
		msg := "draining: evicting every pod with its own grace period"
		if e.GracePeriodSeconds != nil {
			msg = fmt.Sprintf("draining: evicting every pod with a %d s grace period", *e.GracePeriodSeconds)
		}
		return entry(e.At, "Draining", "", msg)
	case domain.NodeDrained:
		return entry(e.At, "Drained", "", "every pod is gone; the node stays cordoned")
	case domain.NodeUndrained:
		return entry(e.At, "Undrained", "", "drain ended; the node takes pods again")
	}
	return nil
}

func taintString(key, value string, effect domain.TaintEffect) string {
	if value != "" {
		key += "=" + value
	}
	return key + ":" + string(effect)
}

const insertTimelineSQL = `INSERT INTO node_timeline (position, seq, node, at, kind, reason, message) VALUES (?, ?, ?, ?, ?, ?, ?)`

func (e TimelineEntry) args(seq int) []any {
	return []any{e.Position, seq, e.Node, e.At.Format(time.RFC3339Nano), e.Kind, e.Reason, e.Message}
}
