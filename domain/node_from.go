package domain

import "time"

// NodeFrom is a command made from the node as it stands inside the unit of
// work: a patch applied to the node's current form, or an update checked
// against it, becomes the command it amounts to. A nil command is nothing
// to do. The function must be pure, as a decider is: it may run again
// when another writer got there first.
type NodeFrom func(Node) (NodeCommand, error)

func (f NodeFrom) decideNode(n Node, now time.Time) ([]Event, error) {
	cmd, err := f(n)
	if err != nil || cmd == nil {
		return nil, err
	}
	return DecideNode(n, cmd, now)
}
