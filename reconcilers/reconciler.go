package reconcilers

import (
	"context"
	"errors"
	"time"
)

// Reconciler drives part of the world towards what the log says it should
// be. It is level-based: Reconcile gets a key, never the event, reads the
// current state and acts on that, so running it twice is harmless.
type Reconciler interface {
	// Name identifies the reconciler in configuration, metrics and logs.
	Name() string
	// Watches declares what the reconciler watches: its own kinds, the
	// kinds it owns and its own mappings (see Watch). The runner asks
	// once, when it starts, and derives from it the keys each log record
	// maps to and the keys the reconciler takes (its Scope), refusing any
	// other key before Reconcile sees it.
	Watches() *Watches
	// Reconcile brings one key, one of its Scope, to its desired state.
	Reconcile(ctx context.Context, key Key) (Result, error)
}

// Resyncer is implemented by reconcilers that want periodic passes beyond
// the events they see.
type Resyncer interface {
	// ResyncPeriod is how often Resync runs.
	ResyncPeriod() time.Duration
	// Resync returns the keys to enqueue now: all of them, or only those
	// that a cheap check says need attention.
	Resync(ctx context.Context) ([]Key, error)
}

// Result says what to do with a key after a successful Reconcile.
type Result struct {
	// RequeueAfter, when positive, reconciles the key again after this
	// long: for expected waits, such as a deadline that has not passed.
	RequeueAfter time.Duration
}

// terminalError marks a failure that retrying cannot fix.
type terminalError struct{ err error }

func (e terminalError) Error() string { return "terminal: " + e.err.Error() }
func (e terminalError) Unwrap() error { return e.err }

// Terminal wraps err so that the framework records it and stops retrying
// the key instead of backing off.
func Terminal(err error) error {
	if err == nil {
		return nil
	}
	return terminalError{err}
}

// IsTerminal reports whether err was wrapped by Terminal.
func IsTerminal(err error) bool {
	var t terminalError
	return errors.As(err, &t)
}
