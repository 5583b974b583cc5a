package domain

import "time"

// RequireExists refuses with ErrNotFound, in the words kube-apiserver uses
// for the kind, when the object does not exist, and decides Command
// otherwise: what a patch needs, which has nothing to apply to on an
// object that is not there. C is the aggregate's command type, as for
// Precondition.
type RequireExists[C any] struct {
	// Command is decided when the object exists.
	Command C
}

func (c RequireExists[C]) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	return decideWrapped(n, now, nil, c.Command, DecideNode)
}

func (c RequireExists[C]) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := requirePod(p); err != nil {
		return nil, err
	}
	return decideWrapped(p, now, nil, c.Command, DecidePod)
}
