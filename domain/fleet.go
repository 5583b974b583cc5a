package domain

import (
	"fmt"
	"math"
	"time"
)

// FleetHealthStream is the log stream of the fleet's health as a whole.
var FleetHealthStream = FleetAggregate.Stream("health")

// FleetAggregate is the fleet's health in the log: its one stream and its
// events.
var FleetAggregate = defineAggregate("fleet",
	eventOf[FleetDisruptionStarted](1),
	eventOf[FleetDisruptionEnded](1),
	eventOf[HealthMonitorStarted](1),
)

// FleetHealth is the fleet-level health aggregate: whether so much of the
// fleet is unreachable at once that herd is more likely the one cut off.
type FleetHealth struct {
	// Disrupted is true while a fleet-wide disruption lasts.
	Disrupted bool `json:"disrupted"`
	// Unreachable and Total are the counts at the last change.
	Unreachable int `json:"unreachable"`
	Total       int `json:"total"`
	// Since is when the current state began.
	Since time.Time `json:"since"`
	// Version is the number of events in the fleet's stream.
	Version int64 `json:"version"`
}

// DefaultUnhealthyThreshold is the share of the fleet unreachable, three
// nodes or more, at which herd suspects itself unless told otherwise
// (herd serve --unhealthy-fleet-threshold): Kubernetes'
// --unhealthy-zone-threshold default, with the fleet as the zone.
const DefaultUnhealthyThreshold = 0.55

// FleetDisruptionStarted records that every node, or three or more and
// at least the threshold's share, are unreachable; herd withholds or
// slows NoExecute taints.
type FleetDisruptionStarted struct {
	Unreachable int `json:"unreachable"`
	Total       int `json:"total"`
	// Threshold is the share that decided; absent in events recorded
	// before herd kept it, when it was always the default.
	Threshold float64 `json:"threshold,omitempty"`
	// SlowedTo is how many nodes a second still got a new NoExecute
	// taint as the disruption began (a large fleet still partly
	// reachable: the secondary eviction rate); absent, none did.
	SlowedTo float64   `json:"slowedTo,omitempty"`
	At       time.Time `json:"at"`
}

// FleetDisruptionEnded records that enough of the fleet is reachable again; NoExecute
// taints apply as usual.
type FleetDisruptionEnded struct {
	Unreachable int       `json:"unreachable"`
	Total       int       `json:"total"`
	Threshold   float64   `json:"threshold,omitempty"`
	At          time.Time `json:"at"`
}

// EventType implements Event.
func (FleetDisruptionStarted) EventType() string { return "FleetDisruptionStarted" }

// EventType implements Event.
func (FleetDisruptionEnded) EventType() string { return "FleetDisruptionEnded" }

// AssessFleet compares the fleet's reachability with the disruption rule
// and records a change of state, and nothing otherwise.
type AssessFleet struct {
	// Unreachable is the number of nodes whose Ready is Unknown.
	Unreachable int
	// Total is the number of nodes expected to report (registered, not
	// stopped).
	Total int
	// Threshold is the share of the fleet unreachable, three nodes or
	// more, that makes a disruption; 0 is DefaultUnhealthyThreshold.
	Threshold float64
	// LargeFleet and SecondaryRate are the pace of new NoExecute taints
	// during a disruption (DisruptedRate): the size above which a fleet
	// is large, and the rate a large one still partly reachable keeps.
	LargeFleet    int
	SecondaryRate float64
}

// threshold is the share the rule applies.
func (c AssessFleet) threshold() float64 {
	if c.Threshold == 0 {
		return DefaultUnhealthyThreshold
	}
	return c.Threshold
}

// IsDisrupted applies Kubernetes' rule for a zone: every node
// unreachable, or three or more, and at least the threshold's share of
// the fleet. The share is a quotient compared with the threshold, as
// Kubernetes' node lifecycle controller compares it: 11 of 20 is 0.55
// exactly.
func (c AssessFleet) IsDisrupted() bool {
	if c.Total == 0 || c.Unreachable == 0 {
		return false
	}
	return c.Unreachable == c.Total || (c.Unreachable >= 3 && float64(c.Unreachable)/float64(c.Total) >= c.threshold())
}

// EveryNodeUnreachable says whether the whole fleet is unreachable: a
// disruption in which herd takes the NoExecute taints off and adds none,
// as Kubernetes does when every zone is fully disrupted.
func (c AssessFleet) EveryNodeUnreachable() bool { return c.Total > 0 && c.Unreachable == c.Total }

// DisruptedRate is how many nodes a second get a new NoExecute taint
// while the fleet is disrupted, as Kubernetes' node lifecycle controller
// paces a zone in partial disruption: SecondaryRate in a fleet of more
// than LargeFleet nodes of which some are still reachable, and none (0:
// the taints are withheld) in a smaller fleet or when every node is
// unreachable.
func (c AssessFleet) DisruptedRate() float64 {
	if c.EveryNodeUnreachable() || c.Total <= c.LargeFleet {
		return 0
	}
	return c.SecondaryRate
}

// Note says, for condition messages, what herd suspects and what it does
// about it: withholds NoExecute taints, or, at a disrupted rate above 0,
// slows them.
func (c AssessFleet) Note() string {
	if rate := c.DisruptedRate(); rate > 0 {
		return fmt.Sprintf("%d of %d nodes are unreachable together: herd suspects it is cut off itself and slows NoExecute taints to %v nodes a second.", c.Unreachable, c.Total, rate)
	}
	return fmt.Sprintf("%d of %d nodes are unreachable together: herd suspects it is cut off itself and withholds NoExecute taints.", c.Unreachable, c.Total)
}

// FleetCommand is a command on the fleet's health: AssessFleet, or
// StartHealthMonitor.
type FleetCommand interface {
	decideFleet(f FleetHealth, now time.Time) ([]Event, error)
}

// DecideFleet decides a command against the fleet's health.
func DecideFleet(f FleetHealth, c FleetCommand, now time.Time) ([]Event, error) {
	if c == nil {
		return nil, fmt.Errorf("nil fleet command: %w", ErrInvalid)
	}
	return c.decideFleet(f, now)
}

func (c AssessFleet) decideFleet(f FleetHealth, now time.Time) ([]Event, error) {
	if c.Unreachable < 0 || c.Total < 0 || c.Unreachable > c.Total {
		return nil, &InvalidError{Kind: "FleetHealth", Name: "fleet", Fields: []FieldError{{
			Field: "unreachable", Value: fmt.Sprint(c.Unreachable), Reason: fmt.Sprintf("must be between 0 and the total %d", c.Total)}}}
	}
	if !(c.Threshold >= 0 && c.Threshold <= 1) {
		return nil, &InvalidError{Kind: "FleetHealth", Name: "fleet", Fields: []FieldError{{
			Field: "threshold", Value: fmt.Sprint(c.Threshold), Reason: "must be a share between 0 and 1"}}}
	}
	if c.LargeFleet < 0 || !(c.SecondaryRate >= 0) || math.IsInf(c.SecondaryRate, 0) {
		return nil, &InvalidError{Kind: "FleetHealth", Name: "fleet", Fields: []FieldError{{
			Field: "secondaryRate", Value: fmt.Sprintf("%v above %d nodes", c.SecondaryRate, c.LargeFleet), Reason: "must be a rate and a fleet size, 0 or more"}}}
	}
	now = now.UTC()
	switch d := c.IsDisrupted(); {
	case d && !f.Disrupted:
		return []Event{FleetDisruptionStarted{Unreachable: c.Unreachable, Total: c.Total, Threshold: c.threshold(),
			SlowedTo: c.DisruptedRate(), At: now}}, nil
	case !d && f.Disrupted:
		return []Event{FleetDisruptionEnded{Unreachable: c.Unreachable, Total: c.Total, Threshold: c.threshold(), At: now}}, nil
	}
	return nil, nil
}

// EvolveFleet folds one event into the fleet's health.
func EvolveFleet(f FleetHealth, e Event) FleetHealth {
	f.Version++
	switch e := e.(type) {
	case FleetDisruptionStarted:
		f.Disrupted, f.Unreachable, f.Total, f.Since = true, e.Unreachable, e.Total, e.At
	case FleetDisruptionEnded:
		f.Disrupted, f.Unreachable, f.Total, f.Since = false, e.Unreachable, e.Total, e.At
	case HealthMonitorStarted:
		// Nothing of the fleet's disruption state changes: the record is
		// there for whoever reads the log (the what-if, the audit).
	}
	return f
}
