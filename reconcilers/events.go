package reconcilers

import (
	"fmt"
	"slices"

	"herd/domain"
	"herd/events"
)

// Is reports whether rec holds an event of type E, alone or among the
// parts of a composite event (domain.Composite: a HeartbeatMissed holds
// the NodeTainted of its taints). KeysFor matches what happened by the
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

// OwnedPodEvents are what happens to a pod that may change what its
// controller (a ReplicaSet, a Job, a DaemonSet) or a disruption budget
// counts or does: its creation and owners (whose it is), its metadata
// (labels a selector reads, finalizers that hold its deletion), its
// status (ready, finished), its stop, the request to delete it and its
// end. One list, so that the controllers cannot drift apart on it.
var OwnedPodEvents = EventTypesOf(
	domain.PodCreated{}, domain.PodOwnersChanged{}, domain.PodMetadataChanged{}, domain.PodStatusUpdated{},
	domain.PodStopped{}, domain.PodDeletionRequested{}, domain.PodFinalized{},
)

// Decode reads rec as an event of type E, for a KeysFor that needs the
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
