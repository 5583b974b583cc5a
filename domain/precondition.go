package domain

import (
	"fmt"
	"time"
)

// Precondition decides Command only if the object is still at the
// resourceVersion the client based its write on, as kube-apiserver's
// optimistic concurrency does for an update or a patch carrying
// metadata.resourceVersion. Any other resourceVersion refuses the write
// with ErrConflict, in kube-apiserver's words, and appends nothing. A
// ResourceVersion of 0 is no precondition; an object that does not exist
// is left to Command, which refuses it as it would without one.
//
// It wraps a command of any aggregate with a resourceVersion (a node, a
// pod, a namespace, a lease, every kind on the object model): C is that
// aggregate's command type, such as NodeCommand. It is the one way a
// write is based on a resourceVersion: commands carry none of their own
// (TestOptimisticConcurrencyIsSaidOnce), so the rule and its refusal are
// said here once.
type Precondition[C any] struct {
	// ResourceVersion is the object's resourceVersion as the client sent
	// it (the adapter refuses one that is not a log position); 0 is none.
	ResourceVersion int64
	// Command is decided when the precondition holds.
	Command C
}

// check refuses s unless it exists at ResourceVersion.
func (c Precondition[C]) check(s object) error {
	if !s.Exists() {
		return nil
	}
	resource, name, rv := s.ref()
	return staleUnlessAt(resource, name, rv, c.ResourceVersion)
}

// staleUnlessAt is optimistic concurrency, said once for every write of
// every kind: a write based on resourceVersion want (0: on none) of an
// object that stands at have is refused as stale unless the two agree.
func staleUnlessAt(resource, name string, have, want int64) error {
	if want == 0 || want == have {
		return nil
	}
	return StaleObject(resource, name)
}

// StaleObject is the refusal of a write based on a resourceVersion the
// object no longer has, in kube-apiserver's words, which clients match.
func StaleObject(resource, name string) error {
	return fmt.Errorf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again: %w", //nolint:staticcheck // ST1005: kube-apiserver's exact words, which clients match
		resource, name, ErrConflict)
}

func (c Precondition[C]) decideNode(n Node, now time.Time) ([]Event, error) {
	return decideWrapped(n, now, c.check, c.Command, DecideNode)
}

func (c Precondition[C]) decidePod(p Pod, now time.Time) ([]Event, error) {
	return decideWrapped(p, now, c.check, c.Command, DecidePod)
}

// decideObject decides Command on an object of any kind on the object
// model once it is at ResourceVersion: a write of its spec, or of its
// status as a controller's update of NAME/status is.
func (c Precondition[C]) decideObject(s subject[C], now time.Time) ([]Event, error) {
	return decideSubject(c.Command, s, now, c.check)
}

// admitted is a command with a refusal of its own that comes before any
// precondition, as kube-apiserver's admission refuses a request before
// storage compares its resourceVersion: a stale delete of a system
// namespace is refused as forbidden, not as stale.
type admitted interface {
	admit(object) error
}

// decideWrapped decides inner on s once check lets it. inner's static
// type is the wrapper's type parameter, which Go cannot tie to the
// aggregate of each method; a wrapper around another aggregate's command
// is refused as bad input.
func decideWrapped[S object, K, C any](s S, now time.Time, check func(object) error, inner C, decide func(S, K, time.Time) ([]Event, error)) ([]Event, error) {
	cmd, ok := any(inner).(K)
	if !ok {
		resource, name, _ := s.ref()
		return nil, fmt.Errorf("%T is not a command on %s %q: %w", inner, resource, name, ErrInvalid)
	}
	if a, ok := any(cmd).(admitted); ok {
		if err := a.admit(s); err != nil {
			return nil, err
		}
	}
	if check != nil {
		if err := check(s); err != nil {
			return nil, err
		}
	}
	return decide(s, cmd, now)
}
