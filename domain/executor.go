package domain

import "context"

// Executor is the one way a command reaches an aggregate of state S: it
// loads the aggregate named by key, reads the clock once, decides cmd on
// it and appends the events in one unit of work, and returns the state as
// it stands afterwards. A refused command appends nothing and returns the
// domain's typed error. The actor and cause recorded with the events come
// from ctx. Adapters and reconcilers declare what they need as an
// Executor of the aggregates they write, so that a test can hand them a
// fake.
type Executor[S, C any] interface {
	Execute(ctx context.Context, key Key, cmd C) (S, error)
}

// Keyed is one command of a batch: the aggregate it is for, and the
// command.
type Keyed[C any] struct {
	// Key names the aggregate.
	Key Key
	// Command is decided on it.
	Command C
	// Lenient turns the domain's refusal of Command (ErrConflict or
	// ErrInvalid) into a no-op for this aggregate alone, reported beside
	// the batch's states, instead of rolling the whole batch back: what a
	// batch of observations wants, where one bad item must not hide the
	// others.
	Lenient bool
}

// BatchExecutor runs several commands on aggregates of one kind in one
// unit of work: all commit or none (except the lenient ones' refusals,
// returned in refused at their index). It returns each aggregate's state
// afterwards, in the order of cmds.
type BatchExecutor[S, C any] interface {
	ExecuteBatch(ctx context.Context, cmds []Keyed[C]) (states []S, refused []error, err error)
}
