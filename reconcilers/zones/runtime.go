package zones

import (
	"context"

	"herd/domain"
)

// Runtime is what the reconciler asks of the runtime that runs a node's
// pods. Every method is idempotent.
type Runtime interface {
	// State reports where the pod stands on the runtime.
	State(ctx context.Context, p domain.Pod) (domain.RuntimeState, error)
	// Provision creates the pod's resources.
	Provision(ctx context.Context, p domain.Pod) error
	// Start boots a provisioned pod; starting a running one returns its
	// status again.
	Start(ctx context.Context, p domain.Pod) (domain.RuntimeStatus, error)
	// Deprovision removes everything the runtime holds for the pod: for a
	// pod that left the fleet while it was being started.
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
