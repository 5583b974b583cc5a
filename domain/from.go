package domain

import (
	"fmt"
	"time"
)

// From is a command made from the object as it stands inside the unit of
// work, for any aggregate with a resourceVersion (a node, a pod, a
// ConfigMap, a lease, a namespace, a ReplicaSet, a Deployment): S is its state and C its
// command type. A patch is one: applied to the object's current form
// inside the transaction, it becomes the update it amounts to, and no
// other write can get in between. A nil command is nothing to do. The
// function must be pure, as a decider is: it may run again when another
// writer got there first.
type From[S, C any] func(S) (C, error)

func (f From[S, C]) decideNode(n Node, now time.Time) ([]Event, error) {
	return decideFrom(f, n, now, DecideNode)
}

func (f From[S, C]) decidePod(p Pod, now time.Time) ([]Event, error) {
	return decideFrom(f, p, now, DecidePod)
}

// decideObject makes f's command of the object as it stands and decides
// it, for every kind on the object model.
func (f From[S, C]) decideObject(s subject[C], now time.Time) ([]Event, error) {
	state, ok := s.state.(S)
	if !ok {
		resource, name, _ := s.state.ref()
		return nil, fmt.Errorf("a command made from a %T is no command on %s %q: %w", *new(S), resource, name, ErrInvalid)
	}
	made, err := f(state)
	if err != nil || any(made) == nil {
		return nil, err
	}
	return decideSubject(made, s, now, nil)
}

// decideFrom makes f's command of s and decides it. f's types are the
// wrapper's type parameters, which Go cannot tie to the aggregate of each
// method; a From of another aggregate is refused as bad input.
func decideFrom[T object, S, C, K any](f From[S, C], s T, now time.Time, decide func(T, K, time.Time) ([]Event, error)) ([]Event, error) {
	state, ok := any(s).(S)
	if !ok {
		resource, name, _ := s.ref()
		return nil, fmt.Errorf("a command made from a %T is no command on %s %q: %w", *new(S), resource, name, ErrInvalid)
	}
	made, err := f(state)
	if err != nil {
		return nil, err
	}
	if any(made) == nil {
		return nil, nil
	}
	cmd, ok := any(made).(K)
	if !ok {
		resource, name, _ := s.ref()
		return nil, fmt.Errorf("%T is not a command on %s %q: %w", made, resource, name, ErrInvalid)
	}
	return decide(s, cmd, now)
}
