package domain

import (
	"fmt"
	"time"
)

// HealthMonitorStarted records that herd's health rules started watching
// the fleet: herd started, or another replica took the rules over. herd
// was not watching before At (or not since the previous record), so a
// node's silence before then is herd's absence, not the node's: as
// kube-controller-manager's node lifecycle controller does from its own
// start, every node's grace period counts from At. A what-if over a window
// that crosses At reads herd's downtime from it.
type HealthMonitorStarted struct {
	// At is when the rules started, by herd's clock: every node's grace
	// period runs from it.
	At time.Time `json:"at"`
	// Nodes is how many nodes were expected to report then.
	Nodes int `json:"nodes"`
}

// EventType implements Event.
func (HealthMonitorStarted) EventType() string { return "HealthMonitorStarted" }

// StartHealthMonitor is the health rules' start, recorded so that the log
// says when herd began watching again. Every start is news: it always
// records HealthMonitorStarted.
type StartHealthMonitor struct {
	// At is when the rules started.
	At time.Time
	// Nodes is how many nodes were expected to report then.
	Nodes int
}

func (c StartHealthMonitor) decideFleet(_ FleetHealth, _ time.Time) ([]Event, error) {
	if c.At.IsZero() || c.Nodes < 0 {
		return nil, &InvalidError{Kind: "FleetHealth", Name: "fleet", Fields: []FieldError{{
			Field: "at", Value: fmt.Sprint(c.At), Reason: "want the time the health rules started, and a node count of zero or more"}}}
	}
	return []Event{HealthMonitorStarted{At: c.At.UTC(), Nodes: c.Nodes}}, nil
}
