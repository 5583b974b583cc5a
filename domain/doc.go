// Package domain is herd's model of a fleet and its rules: nodes (and later
// pods) as deciders. Decide(state, command, now) returns the events a command
// causes, or a typed error; Evolve(state, event) folds one event into state.
//
// Each aggregate is described once, beside its events (defineAggregate):
// the prefix of its streams in the log and the event types they hold, with
// their schema versions. The event registry (UnmarshalEvent, SchemaVersion)
// and every routing by stream (AggregateOf) read those descriptions.
//
// The package is pure: it imports only the standard library, does no I/O,
// never reads the wall clock (time always arrives as an argument) and never
// logs. Storage reaches it only through the repository interfaces declared
// beside the aggregates that use them.
package domain
