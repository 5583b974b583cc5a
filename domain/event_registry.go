package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrUnknownEventType is returned by UnmarshalEvent for a type name the
// domain does not know, such as one written by a newer herd. Replay can
// branch on it to stop with a clear message rather than skip history.
var ErrUnknownEventType = errors.New("unknown event type")

// UnmarshalEvent rebuilds an event from the type name and JSON payload it
// was stored under. It is the only way events come back from the log. The
// event is returned as a value (NodeRegistered, not *NodeRegistered), as
// DecideNode produces it and EvolveNode expects it. The types it knows are
// those of every aggregate's list (see defineAggregate). An unknown type
// fails with ErrUnknownEventType, wrapped with the name.
func UnmarshalEvent(eventType string, payload []byte) (Event, error) {
	return UnmarshalEventWith(eventType, payload, json.Unmarshal)
}

// Unmarshal decodes JSON into v as encoding/json's Unmarshal does.
type Unmarshal func(data []byte, v any) error

// UnmarshalEventWith is UnmarshalEvent decoding with unmarshal: replay,
// which decodes every event of the log, passes a faster library that
// reads JSON as encoding/json does (the domain itself uses only the
// standard library).
func UnmarshalEventWith(eventType string, payload []byte, unmarshal Unmarshal) (Event, error) {
	s, ok := eventSchemas[eventType]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEventType, eventType)
	}
	e, err := s.decode(payload, unmarshal)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", eventType, err)
	}
	return e, nil
}

// SchemaVersion is the schema version of the payload herd writes for an
// event type today, as its aggregate's list says; 0 for a type the domain
// does not know.
func SchemaVersion(eventType string) int {
	return eventSchemas[eventType].Version
}

// EventTypes lists every event type UnmarshalEvent knows, sorted.
func EventTypes() []string {
	return slices.Sorted(maps.Keys(eventSchemas))
}

// decode unmarshals a payload into an event of type E.
func decode[E Event](payload []byte, unmarshal Unmarshal) (Event, error) {
	var e E
	if err := unmarshal(payload, &e); err != nil {
		return nil, err
	}
	if in, ok := any(e).(internable); ok {
		return in.interned(), nil
	}
	return e, nil
}
