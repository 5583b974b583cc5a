package termination

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// NodePods is where a node's own termination reconciler reads the node's
// pods and records their steps: herd's HTTP API, for `herd agent`.
type NodePods interface {
	// Pod returns the pod; an error matching domain.ErrNotFound when
	// there is none.
	Pod(ctx context.Context, namespace, name string) (domain.Pod, error)
	// List returns herd's own pods bound to node.
	List(ctx context.Context, node string) ([]domain.Pod, error)
	// RecordTermination records steps on the pod seen, in order, provided
	// it is still that pod (same UID).
	RecordTermination(ctx context.Context, seen domain.Pod, steps ...domain.TerminationStep) error
}

// NodeReconciler is the termination reconciler of one node's agent: it
// takes the node's pods being deleted through the node's runtime —
// shutdown, halt at the deadline, deprovision — and records each step
// through herd's API. Finalizing the pod, and garbage collection, stay
// with herd serve's Reconciler, which finalizes a pod of an agent's node
// once the agent has recorded it deprovisioned. Its keys are pods.
type NodeReconciler struct {
	cfg   Config
	node  string
	pods  NodePods
	rt    Runtime
	clock clock.PassiveClock
	log   *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*NodeReconciler)(nil)
	_ reconcilers.Resyncer   = (*NodeReconciler)(nil)
)

// NewNode returns the termination reconciler of the named node's agent,
// running the node's pods on rt.
func NewNode(cfg Config, node string, pods NodePods, rt Runtime, clk clock.PassiveClock, log *zap.Logger) (*NodeReconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if node == "" {
		return nil, errors.New("termination: a node's reconciler needs the node's name")
	}
	return &NodeReconciler{cfg: cfg, node: node, pods: pods, rt: rt, clock: clk, log: log.Named("termination")}, nil
}

// Name implements reconcilers.Reconciler.
func (r *NodeReconciler) Name() string { return "termination" }

// Watches implements reconcilers.Reconciler: pods, and no event, for an
// agent reads no log; it polls herd's API in Resync.
func (r *NodeReconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().Takes(domain.PodAggregate)
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *NodeReconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync returns the node's pods being deleted that the runtime has not
// yet deprovisioned.
func (r *NodeReconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	pods, err := r.pods.List(ctx, r.node)
	if err != nil {
		return nil, err
	}
	var keys []reconcilers.Key
	for _, p := range pods {
		if r.mine(p) {
			keys = append(keys, podKey(p))
		}
	}
	return keys, nil
}

// mine reports whether the pod is one of the node's that its runtime has
// yet to take out.
func (r *NodeReconciler) mine(p domain.Pod) bool {
	return !p.Observed() && p.Spec.NodeName == r.node && p.Terminating() && p.Deletion.DeprovisionedAt.IsZero()
}

// Reconcile implements reconcilers.Reconciler.
func (r *NodeReconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:termination", Source: "reconciler/termination"})
	p, err := r.pods.Pod(ctx, key.Namespace, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	if !r.mine(p) {
		return reconcilers.Result{}, nil
	}
	if ctx, err = becauseDeleted(ctx, p); err != nil {
		return reconcilers.Result{}, err
	}
	ps := runSteps(ctx, p, r.rt, r.clock.Now(), r.cfg.PollPeriod, r.log)
	if len(ps.steps) > 0 {
		if err := r.pods.RecordTermination(ctx, p, ps.steps...); err != nil {
			return ps.res, errors.Join(ps.err, fmt.Errorf("pod %s: record %v: %w", p.Key(), ps.steps, err))
		}
	}
	if ps.done {
		r.log.Info("pod stopped and deprovisioned; herd finalizes it", zap.String("pod", p.Key()),
			zap.Bool("halted", !p.Deletion.HaltedAt.IsZero() || slices.Contains(ps.steps, domain.StepHalted)))
	}
	return ps.res, ps.err
}
