package domain

import (
	"maps"
	"time"
)

// NodeServiceFailed records that a service the node's agent watches
// stopped running: it failed, stopped, or does not exist. herd records it
// once per failure, not with every heartbeat that still reports it.
type NodeServiceFailed struct {
	// Service is the service's name (nginx.service, svc:/network/ssh:default).
	Service string `json:"service"`
	// State is the service manager's word for it at the failure
	// (failed/failed, maintenance, not-found).
	State string    `json:"state"`
	At    time.Time `json:"at"`
}

// NodeServiceRecovered records that a watched service that had failed
// runs again.
type NodeServiceRecovered struct {
	Service string `json:"service"`
	// State is the service manager's word for it now (active/running,
	// online).
	State string    `json:"state"`
	At    time.Time `json:"at"`
}

// EventType implements Event.
func (NodeServiceFailed) EventType() string { return "NodeServiceFailed" }

// EventType implements Event.
func (NodeServiceRecovered) EventType() string { return "NodeServiceRecovered" }

// serviceTransitions are the failures and recoveries in a heartbeat's
// watched services, compared with those herd last recorded as failed
// (n.FailedServices), in the order the agent reported them. A service
// whose state the agent cannot tell (Unknown) changes nothing: herd keeps
// its last word about it until the agent can tell again. A service no
// longer watched keeps it too.
func serviceTransitions(n Node, ss []ServiceState, now time.Time) []Event {
	var events []Event
	for _, s := range ss {
		_, wasFailed := n.FailedServices[s.Name]
		switch {
		case s.Status == ServiceFailed && !wasFailed:
			events = append(events, NodeServiceFailed{Service: s.Name, State: s.State, At: now})
		case s.Status == ServiceRunning && wasFailed:
			events = append(events, NodeServiceRecovered{Service: s.Name, State: s.State, At: now})
		}
	}
	return events
}

// withServiceFailed returns a copy of failed with name failed in state
// (see EvolveNode: maps are copied, never changed in place).
func withServiceFailed(failed map[string]string, name, state string) map[string]string {
	out := maps.Clone(failed)
	if out == nil {
		out = map[string]string{}
	}
	out[name] = state
	return out
}

// withServiceRecovered returns a copy of failed without name; nil when
// none is left.
func withServiceRecovered(failed map[string]string, name string) map[string]string {
	out := maps.Clone(failed)
	delete(out, name)
	if len(out) == 0 {
		return nil
	}
	return out
}
