package domain

import "time"

// DeleteNode removes a node from the fleet, as `kubectl delete node` does.
//
// It records NodeDeleted. The node's view row stays behind as a tombstone
// holding only the name and the stream's versions, so that a later
// registration under the same name continues the same stream, and starts
// afresh: a restart count of 0 and a new StartedAt.
//
// Deleting a node herd does not know, or one already deleted, fails with
// ErrNotFound, as a second `kubectl delete` does.
type DeleteNode struct{}

func (DeleteNode) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	return []Event{NodeDeleted{At: now}}, nil
}
