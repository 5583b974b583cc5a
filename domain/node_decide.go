package domain

import (
	"fmt"
	"time"
)

// NodeCommand is a command on one node: RegisterNode, RecordHeartbeat,
// DeregisterNode, SetNodeLabels or DeleteNode. The method is unexported so
// that every command a node accepts lives in this package, beside the rules
// it must obey.
type NodeCommand interface {
	decideNode(n Node, now time.Time) ([]Event, error)
}

// errNilCommand is returned by DecideNode for a nil command: a caller bug,
// reported as bad input rather than a panic.
var errNilCommand = fmt.Errorf("nil node command: %w", ErrInvalid)

// DecideNode returns the events that cmd causes on node n at time now, in
// the order they are to be appended, or a typed error (ErrNotFound,
// ErrAlreadyExists, ErrConflict, or an *InvalidError matching ErrInvalid).
// A rejected command returns no events. No events and a nil error means the
// command is already satisfied: there is nothing to append.
//
// n is the node as the view holds it: the zero Node (or one with only its
// Name set) when herd has never seen it. DecideNode neither changes n nor
// keeps any map or slice of cmd in the events it returns.
//
// now is recorded in UTC and without its monotonic reading, so that an event
// is the same value before and after a trip through JSON.
func DecideNode(n Node, cmd NodeCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, errNilCommand
	}
	return cmd.decideNode(n, now.UTC())
}

// requireNode returns ErrNotFound, wrapped with the node's name, unless the
// node is registered and not deleted.
func requireNode(n Node) error {
	if n.Exists() {
		return nil
	}
	return fmt.Errorf("%s: %w", nodeRef(n.Name), ErrNotFound)
}

// nodeRef names a node in an error message, even when the name is unknown.
func nodeRef(name string) string {
	if name == "" {
		return "node"
	}
	return fmt.Sprintf("node %q", name)
}

// decideSequence decides cmds one after another on s, folding each one's
// events in before the next: the shape of DecidePodSequence (and of
// the node's, which its tests use).
func decideSequence[S, C any](s S, now time.Time, cmds []C, decide func(S, C, time.Time) ([]Event, error), evolve func(S, Event) S) ([]Event, error) {
	var out []Event
	for _, c := range cmds {
		evs, err := decide(s, c, now)
		if err != nil {
			return nil, err
		}
		for _, e := range evs {
			s = evolve(s, e)
		}
		out = append(out, evs...)
	}
	return out, nil
}
