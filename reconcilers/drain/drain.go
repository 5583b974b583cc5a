package drain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// MessageEviction is the DisruptionTarget message on a drained pod, that
// of Kubernetes' eviction API, which `kubectl drain` uses.
const MessageEviction = "Eviction API: evicting"

// DefaultResyncPeriod is how often every draining node is looked at
// without an event.
const DefaultResyncPeriod = 30 * time.Second

// BudgetRetry is how long a drain waits before it tries again to evict a
// pod its disruption budget kept: kubectl drain's wait after a 429.
const BudgetRetry = 5 * time.Second

// keyDraining stands for every node being drained: a pod that leaves
// names no node, so its finalization wakes them all (there are few).
var keyDraining = reconcilers.Pass("draining")

// Repository is what the reconciler writes through: nodes, and
// evictions, which respect the pods' disruption budgets as the Eviction
// API that kubectl drain uses does.
type Repository interface {
	NodeCommands() domain.Executor[domain.Node, domain.NodeCommand]
	Evictions() domain.Executor[domain.Pod, domain.Eviction]
}

// Reconciler is the drain reconciler. Its keys are nodes, and the pass
// "draining".
type Reconciler struct {
	resync time.Duration
	repo   Repository
	pods   PodLister
	nodes  NodeReader
	clock  clock.PassiveClock
	log    *zap.Logger
	// held are the pods a budget keeps on a draining node, by UID, with
	// the node's name, so that the wait is logged once, not at every
	// retry; a node's are forgotten once it is drained.
	held sync.Map
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the drain reconciler, resyncing every resync.
func New(resync time.Duration, repo Repository, pods PodLister, nodes NodeReader,
	clk clock.PassiveClock, log *zap.Logger) *Reconciler {
	return &Reconciler{resync: resync, repo: repo, pods: pods, nodes: nodes, clock: clk, log: log.Named("drain")}
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "drain" }

// Watches implements reconcilers.Reconciler: the start of a drain, mapped
// to its node, a pod bound to a node to that node (it may be draining),
// and a pod leaving or a disruption budget counted again (it may allow an
// eviction now) to every draining node.
func (r *Reconciler) Watches() *reconcilers.Watches {
	w := reconcilers.Watch()
	return w.
		Takes(domain.NodeAggregate).
		Passes(keyDraining).
		Watches(reconcilers.EventTypesOf(domain.NodeDrainStarted{}), reconcilers.KeysOf).
		Watches(reconcilers.EventTypesOf(domain.PodFinalized{}, domain.PodDisruptionBudgetStatusRecorded{}), reconcilers.ToPass(keyDraining)).
		Watches(reconcilers.EventTypesOf(domain.PodScheduled{}), w.ToBoundNode)
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.resync }

// Resync looks at every draining node.
func (r *Reconciler) Resync(context.Context) ([]reconcilers.Key, error) {
	return []reconcilers.Key{keyDraining}, nil
}

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:drain", Source: "reconciler/drain"})
	if key == keyDraining {
		return r.reconcileDraining(ctx)
	}
	n, err := r.nodes.Get(ctx, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	return r.drain(ctx, n)
}

// reconcileDraining goes over the nodes being drained: the few the view's
// index finds, not the fleet, since every pod that leaves any node calls
// for it.
func (r *Reconciler) reconcileDraining(ctx context.Context) (reconcilers.Result, error) {
	nodes, err := r.nodes.Draining(ctx)
	if err != nil {
		return reconcilers.Result{}, err
	}
	var (
		res  reconcilers.Result
		errs []error
	)
	for _, n := range nodes {
		nr, err := r.drain(ctx, n)
		if err != nil {
			errs = append(errs, err)
		}
		if nr.RequeueAfter > 0 {
			res = nr
		}
	}
	return res, errors.Join(errs...)
}

// drain evicts every herd pod left on a draining node, or records it
// Drained when there is none. A pod whose disruption budget refuses its
// eviction stays, and the drain tries again after BudgetRetry, as kubectl
// drain does after a 429; the budget's next count wakes it sooner.
func (r *Reconciler) drain(ctx context.Context, n domain.Node) (reconcilers.Result, error) {
	if n.Drain == nil || !n.Drain.DrainedAt.IsZero() {
		return reconcilers.Result{}, nil
	}
	// What a drain does, it does because the operator drained the node:
	// its evictions and its end name the drain's start as their cause.
	ctx, err := reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.NodeDrainStarted](domain.NodeStream(n.Name), n.Version, nil))
	if err != nil {
		return reconcilers.Result{}, err
	}
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{NodeName: n.Name, Source: &herd})
	if err != nil {
		return reconcilers.Result{}, err
	}
	pods = slices.DeleteFunc(pods, leftInPlace)
	if len(pods) == 0 {
		_, err := r.repo.NodeCommands().Execute(ctx, domain.Key{Name: n.Name}, domain.MarkNodeDrained{})
		if err == nil {
			r.log.Info("node drained", zap.String("node", n.Name))
			r.held.Range(func(uid, node any) bool {
				if node == n.Name {
					r.held.Delete(uid)
				}
				return true
			})
		}
		return reconcilers.Result{}, err
	}
	var (
		res  reconcilers.Result
		errs []error
	)
	for _, p := range pods {
		err := r.evict(ctx, p, n)
		switch {
		case errors.Is(err, domain.ErrDisruptionBudget), errors.Is(err, domain.ErrMultipleBudgets):
			r.hold(p, n, err)
			res.RequeueAfter = BudgetRetry
		case err != nil:
			errs = append(errs, err)
		}
	}
	return res, errors.Join(errs...)
}

// hold logs, once per pod, that its disruption budget keeps it on the
// draining node for now.
func (r *Reconciler) hold(p domain.Pod, n domain.Node, err error) {
	if _, seen := r.held.LoadOrStore(p.UID, n.Name); seen {
		r.log.Debug("pod still held by its disruption budget", zap.String("pod", p.Key()), zap.String("node", n.Name), zap.Error(err))
		return
	}
	r.log.Info("pod waits for its disruption budget before the drain evicts it", zap.String("pod", p.Key()), zap.String("node", n.Name), zap.Error(err))
}

// evict marks the pod a disruption target and deletes it, with the drain's
// grace period when it has one, once its disruption budget allows it
// (domain.Eviction); a pod already being deleted only gets the shorter
// deadline, if the drain's is shorter.
func (r *Reconciler) evict(ctx context.Context, seen domain.Pod, n domain.Node) error {
	p, err := r.repo.Evictions().Execute(ctx, domain.Key{Namespace: seen.Namespace, Name: seen.Name}, domain.Eviction{Command: domain.IfSamePod{
		UID: seen.UID, NodeName: n.Name,
		Command: domain.EvictPod{Reason: domain.ReasonEvictionByEvictionAPI, Message: MessageEviction, GracePeriodSeconds: n.Drain.GracePeriodSeconds},
	}})
	if err != nil {
		return fmt.Errorf("evict %s: %w", seen.Key(), err)
	}
	r.held.Delete(seen.UID)
	// Evicted now: the pod the drain saw was not yet being deleted, and
	// the same pod now is.
	if !seen.Terminating() && p.UID == seen.UID && p.Terminating() {
		r.log.Info("evicting pod: node drain", zap.String("pod", seen.Key()), zap.String("node", n.Name))
	}
	return nil
}
