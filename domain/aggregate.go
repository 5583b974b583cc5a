package domain

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Aggregate describes one kind of aggregate as the log holds it: the
// prefix of its streams (its name and a "/"), how a stream's name is made
// from an aggregate's key and parsed back, and the event types its streams
// hold. Each aggregate's file defines its own with defineAggregate;
// UnmarshalEvent, SchemaVersion and AggregateOf know every one defined.
type Aggregate struct {
	name string
	// namespaced is true when the aggregate's keys are "namespace/name".
	namespaced bool
	events     []EventSchema
}

// EventSchema is one event type an aggregate owns: the name it is stored
// under, the schema version of the payload herd writes today, and how a
// payload turns back into the event.
type EventSchema struct {
	// Type is the stored type name: "NodeRegistered".
	Type string
	// Version is the payload's current schema version. Bump it when the
	// JSON changes shape, and teach the decoder the old one.
	Version int
	decode  func([]byte, Unmarshal) (Event, error)
}

// eventOf is the schema of event type E at schema version v.
func eventOf[E Event](v int) EventSchema {
	var e E
	return EventSchema{Type: e.EventType(), Version: v, decode: decode[E]}
}

// aggregates holds every defined aggregate by name, and eventSchemas every
// event type of any of them.
var (
	aggregates   = map[string]*Aggregate{}
	eventSchemas = map[string]EventSchema{}
)

// defineNamespacedAggregate is defineAggregate for an aggregate whose
// objects live in a namespace: its keys are "namespace/name".
func defineNamespacedAggregate(name string, evs ...EventSchema) *Aggregate {
	a := defineAggregate(name, evs...)
	a.namespaced = true
	return a
}

// defineAggregate describes and registers the aggregate whose streams are
// "name/KEY" and hold evs. A name or event type defined twice is a
// programming error, caught when the package initialises.
func defineAggregate(name string, evs ...EventSchema) *Aggregate {
	if name == "" || strings.Contains(name, "/") || aggregates[name] != nil {
		panic(fmt.Sprintf("domain: aggregate %q is empty, holds a / or is defined twice", name))
	}
	a := &Aggregate{name: name, events: evs}
	for _, s := range evs {
		if _, dup := eventSchemas[s.Type]; dup {
			panic(fmt.Sprintf("domain: event type %q belongs to two aggregates", s.Type))
		}
		eventSchemas[s.Type] = s
	}
	aggregates[name] = a
	return a
}

// Name is the aggregate's name: "node".
func (a *Aggregate) Name() string { return a.name }

// Namespaced reports whether the aggregate's objects live in a namespace,
// so that its keys are "namespace/name" (pods, ConfigMaps, leases); the
// key of any other is one name, which may itself hold a "/" (an address
// pool's CIDR).
func (a *Aggregate) Namespaced() bool { return a.namespaced }

// Prefix is what every stream of the aggregate starts with: "node/".
func (a *Aggregate) Prefix() string { return a.name + "/" }

// Stream is the name of the stream holding the events of the aggregate
// with key: "node/web-01".
func (a *Aggregate) Stream(key string) string { return a.Prefix() + key }

// Key parses a stream name into the aggregate's key; ok is false for a
// stream of another aggregate.
func (a *Aggregate) Key(stream string) (key string, ok bool) {
	return strings.CutPrefix(stream, a.Prefix())
}

// Owns reports whether stream is one of the aggregate's streams.
func (a *Aggregate) Owns(stream string) bool { return strings.HasPrefix(stream, a.Prefix()) }

// Events lists the aggregate's event schemas, in the order defined.
func (a *Aggregate) Events() []EventSchema { return slices.Clone(a.events) }

// AggregateOf returns the aggregate whose streams include stream; ok is
// false for a stream no aggregate owns. Prefixes are names plus "/" and
// names hold no "/", so a stream belongs to at most one.
func AggregateOf(stream string) (a *Aggregate, ok bool) {
	name, _, found := strings.Cut(stream, "/")
	if !found {
		return nil, false
	}
	a, ok = aggregates[name]
	return a, ok
}

// Aggregates lists every defined aggregate, by name.
func Aggregates() []*Aggregate {
	out := make([]*Aggregate, 0, len(aggregates))
	for _, name := range slices.Sorted(maps.Keys(aggregates)) {
		out = append(out, aggregates[name])
	}
	return out
}
