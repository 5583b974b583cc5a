package termination

import (
	"context"

	"herd/domain"
)

// Runtime is what the reconciler asks of the runtime that runs a node's
// pods. Every method is idempotent.
type Runtime interface {
	// State reports where the pod stands on the runtime.
	State(ctx context.Context, p domain.Pod) (domain.RuntimeState, error)
	// Shutdown asks the pod to stop gracefully.
	Shutdown(ctx context.Context, p domain.Pod) error
	// Halt stops the pod at once.
	Halt(ctx context.Context, p domain.Pod) error
	// Deprovision removes everything the runtime held for the pod.
	Deprovision(ctx context.Context, p domain.Pod) error
}

// Runtimes says which runtime in this process runs a node's pods; false
// when none does (the node's own agent runs them, or nothing can).
type Runtimes interface {
	For(node domain.Node) (Runtime, bool)
}

// RuntimesFunc is a function that is a Runtimes.
type RuntimesFunc func(node domain.Node) (Runtime, bool)

// For implements Runtimes.
func (f RuntimesFunc) For(node domain.Node) (Runtime, bool) { return f(node) }

// stopped reports whether a runtime state means the pod no longer runs.
func stopped(st domain.RuntimeState) bool {
	switch st.Phase {
	case domain.RuntimeAbsent, domain.RuntimeStopped, domain.RuntimeFailed, domain.RuntimeExited:
		return true
	}
	return false
}
