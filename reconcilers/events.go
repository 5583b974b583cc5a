package reconcilers

import (
	"fmt"
	"slices"

	"herd/domain"
	"herd/events"
)

// Is reports whether rec holds an event of type E, alone or among the
// parts of a composite event (domain.Composite: a HeartbeatMissed holds
// the NodeTainted of its taints). A mapping matches what happened by the
// event's Go type (Is[domain.NodeDrainStarted](rec)), not by its stored
// name, which is the domain's to spell.
func Is[E domain.Event](rec events.Record) bool {
	var e E
	return slices.Contains(domain.TypesHolding(e.EventType()), rec.Type)
}

// EventTypes is a set of event types a reconciler reacts to, made from
// the events' Go types.
type EventTypes struct{ types map[string]bool }

// EventTypesOf is the set of the types of evs, given as zero values:
// EventTypesOf(domain.NodeDeleted{}, domain.NodeRegistered{}).
func EventTypesOf(evs ...domain.Event) EventTypes {
	s := EventTypes{types: make(map[string]bool, len(evs))}
	for _, e := range evs {
		// An event within a composite counts as that event.
		for _, t := range domain.TypesHolding(e.EventType()) {
			s.types[t] = true
		}
	}
	return s
}

// Match reports whether rec holds an event of one of the set's types.
func (s EventTypes) Match(rec events.Record) bool { return s.types[rec.Type] }

// With is the set and the types of evs, a new set.
func (s EventTypes) With(evs ...domain.Event) EventTypes {
	out := EventTypesOf(evs...)
	for t := range s.types {
		out.types[t] = true
	}
	return out
}

// PodStepsOwnersIgnore are the events of a pod that change nothing its
// controller (a ReplicaSet, a Job, a DaemonSet) counts or does: its
// scheduling and addresses, which the scheduler and the address manager
// follow, and the inner steps of its termination, whose start (the
// request to delete it), stop and end its controller does see. Every
// other event of a pod, its creation, owners, metadata and status among
// them, concerns its controller: Owns(domain.PodAggregate, ...,
// PodStepsOwnersIgnore...) keeps one list of the exceptions, and a new
// event of a pod reaches every controller until it is named here.
var PodStepsOwnersIgnore = []domain.Event{
	domain.PodScheduled{}, domain.PodUnschedulable{}, domain.PodIPAssigned{}, domain.PodIPUnavailable{},
	domain.PodDisruptionTargeted{}, domain.PodShutdownRequested{}, domain.PodHalted{}, domain.PodDeprovisioned{},
}

// Decode reads rec as an event of type E, for a MapFunc that needs the
// event's fields (the node a pod was bound to); an error when rec holds
// another type or its payload does not decode.
func Decode[E domain.Event](rec events.Record) (E, error) {
	var zero E
	if rec.Type != zero.EventType() {
		return zero, fmt.Errorf("event %s at %d is not a %s", rec.Type, rec.Position, zero.EventType())
	}
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return zero, err
	}
	e, ok := ev.(E)
	if !ok {
		return zero, fmt.Errorf("event %s at %d reads as %T", rec.Type, rec.Position, ev)
	}
	return e, nil
}
