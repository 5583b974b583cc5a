package domain

import "time"

// IfExists decides Command only on an object that exists; on one that was
// deleted, or never was, it does nothing, without an error. A reconciler
// uses it for a write it decided on an object read a moment before: the
// object going in between is no failure, there is simply nothing left to
// do. C is the aggregate's command type, as for Precondition.
type IfExists[C any] struct {
	// Command is decided when the object exists.
	Command C
}

func (c IfExists[C]) decideNode(n Node, now time.Time) ([]Event, error) {
	if !n.Exists() {
		return nil, nil
	}
	return decideWrapped(n, now, nil, c.Command, DecideNode)
}

func (c IfExists[C]) decidePod(p Pod, now time.Time) ([]Event, error) {
	if !p.Exists() {
		return nil, nil
	}
	return decideWrapped(p, now, nil, c.Command, DecidePod)
}
