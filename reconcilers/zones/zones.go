package zones

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// DefaultResyncPeriod is how often every herd pod that should run is
// checked against its runtime without an event.
const DefaultResyncPeriod = 30 * time.Second

// Config says which pods the reconciler looks after and how often it
// checks them without an event.
type Config struct {
	// ResyncPeriod is how often every pod that should run is checked
	// against its runtime: the pass that notices a zone that vanished or
	// stopped, and, in an agent, the poll that finds new pods.
	ResyncPeriod time.Duration
	// Node, when set, limits the reconciler to the pods bound to that
	// node: an agent's own. Empty in herd serve, which looks at every
	// node whose runtime is in the process.
	Node string
}

// Reconciler starts herd's pods on their node's runtime. Its keys are
// pods, and nodes (every pod bound to the node).
type Reconciler struct {
	cfg      Config
	pods     Pods
	runtimes Runtimes
	clock    clock.PassiveClock
	log      *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the zones reconciler, or an error naming the setting that is
// wrong.
func New(cfg Config, pods Pods, runtimes Runtimes, clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if cfg.ResyncPeriod <= 0 {
		return nil, fmt.Errorf("zones resync period %s: want a positive duration", cfg.ResyncPeriod)
	}
	return &Reconciler{cfg: cfg, pods: pods, runtimes: runtimes, clock: clk, log: log.Named("zones")}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "zones" }

// nodeEvents are the node events after which its pods may be startable:
// it (re)appeared, became Ready, or changed hands between herd's runtime
// and its own agent.
var nodeEvents = reconcilers.EventTypesOf(
	domain.NodeRegistered{},
	domain.NodeRestarted{},
	domain.NodeBecameReady{},
	domain.NodeLabelsChanged{},
)

// Watches implements reconcilers.Reconciler: a pod's address — the last
// thing it waits for once bound — and its mark as not ready (which may
// land after its node is Ready again) mapped to the pod, and node changes
// to the node.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		Takes(domain.PodAggregate, domain.NodeAggregate).
		Watches(reconcilers.EventTypesOf(domain.PodIPAssigned{}, domain.PodMarkedNotReady{}), reconcilers.KeysOf).
		Watches(nodeEvents, reconcilers.KeysOf)
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync returns every herd pod that is bound and should run (on the
// reconciler's node, when it has one).
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	pods, err := r.pods.List(ctx, r.cfg.Node)
	if err != nil {
		return nil, err
	}
	var keys []reconcilers.Key
	for _, p := range pods {
		if shouldRun(p) {
			keys = append(keys, reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: p.Namespace, Name: p.Name})
		}
	}
	return keys, nil
}

// shouldRun reports whether the pod is herd's, bound, and neither leaving
// nor finished.
func shouldRun(p domain.Pod) bool {
	return !p.Observed() && p.Spec.NodeName != "" && !p.Terminating() && !p.Finished()
}

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:zones", Source: "reconciler/zones"})
	if key.Aggregate == domain.NodeAggregate {
		return r.reconcileNode(ctx, key.Name)
	}
	p, err := r.pods.Pod(ctx, key.Namespace, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	next, err := r.run(ctx, p)
	return r.after(next), err
}

// after is the result that looks at a key again at next: when a pod's
// containers are due to end or restart. Zero is never.
func (r *Reconciler) after(next time.Time) reconcilers.Result {
	if next.IsZero() {
		return reconcilers.Result{}
	}
	return reconcilers.Result{RequeueAfter: max(next.Sub(r.clock.Now()), time.Millisecond)}
}

// reconcileNode runs the node's pods, and comes back when the first of
// them is due to end or restart.
func (r *Reconciler) reconcileNode(ctx context.Context, name string) (reconcilers.Result, error) {
	if r.cfg.Node != "" && name != r.cfg.Node {
		return reconcilers.Result{}, nil
	}
	// A node none of whose pods can run here — gone, not Ready, or whose
	// runtime is not in this process (a kubelet's, an agent's) — is left
	// before its pods are listed: run would find the same for each of
	// them, and a fleet of kubelets registering would pay a list of pods
	// for every node.
	node, err := r.pods.Node(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	if c, ok := node.Condition(domain.ConditionReady); !ok || c.Status != domain.ConditionTrue {
		return reconcilers.Result{}, nil // its NodeBecameReady comes back
	}
	if _, ok := r.runtimes.For(node); !ok {
		return reconcilers.Result{}, nil
	}
	pods, err := r.pods.List(ctx, name)
	if err != nil {
		return reconcilers.Result{}, err
	}
	var (
		errs  []error
		first time.Time
	)
	for _, p := range pods {
		next, err := r.run(ctx, p)
		if err != nil {
			errs = append(errs, err)
		}
		if !next.IsZero() && (first.IsZero() || next.Before(first)) {
			first = next
		}
	}
	return r.after(first), errors.Join(errs...)
}
