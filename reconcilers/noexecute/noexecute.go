package noexecute

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// MessageTaintManager is the DisruptionTarget message on an evicted pod,
// Kubernetes' own.
const MessageTaintManager = "Taint manager: deleting due to NoExecute taint"

// DefaultResyncPeriod is how often every node with a NoExecute taint is
// looked at without an event.
const DefaultResyncPeriod = 30 * time.Second

// Reconciler is the NoExecute eviction reconciler. Its keys are nodes: a
// node's taints and the pods bound to it are judged together.
type Reconciler struct {
	resync time.Duration
	// commands is how the reconciler evicts a pod.
	commands domain.Executor[domain.Pod, domain.PodCommand]
	pods     PodLister
	nodes    NodeReader
	clock    clock.PassiveClock
	log      *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the NoExecute eviction reconciler, resyncing every resync.
func New(resync time.Duration, commands domain.Executor[domain.Pod, domain.PodCommand], pods PodLister, nodes NodeReader,
	clk clock.PassiveClock, log *zap.Logger) *Reconciler {
	return &Reconciler{resync: resync, commands: commands, pods: pods, nodes: nodes, clock: clk, log: log.Named("noexecute")}
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "noexecute" }

// Watches implements reconcilers.Reconciler: a node's taint changes,
// mapped to the node, and a pod's binding to the node it names.
func (r *Reconciler) Watches() *reconcilers.Watches {
	w := reconcilers.Watch()
	return w.
		Takes(domain.NodeAggregate).
		Watches(reconcilers.EventTypesOf(domain.NodeTainted{}, domain.NodeUntainted{}), reconcilers.KeysOf).
		Watches(reconcilers.EventTypesOf(domain.PodScheduled{}), w.ToBoundNode)
}

// nodeKey is the key of the named node.
func nodeKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NodeAggregate, Name: name}
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.resync }

// Resync returns every node that may have a NoExecute taint: the few the
// view's index names, not the fleet. Reconcile checks the node itself.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	names, err := r.nodes.NamesWithNoExecute(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]reconcilers.Key, 0, len(names))
	for _, name := range names {
		keys = append(keys, nodeKey(name))
	}
	return keys, nil
}

// Reconcile evicts the pods of one node that are due, and wakes again when
// the next one will be.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	name := key.Name
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:noexecute", Source: "reconciler/noexecute"})
	n, err := r.nodes.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) || err == nil && !n.HasNoExecute() {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{NodeName: name, Source: &herd})
	if err != nil {
		return reconcilers.Result{}, err
	}
	now := r.clock.Now()
	var (
		next time.Time
		errs []error
	)
	for _, p := range pods {
		if p.Terminating() {
			continue
		}
		at, evict := domain.NoExecuteDeadline(n.Taints, p.Spec.Tolerations, p.BoundAt())
		switch {
		case !evict:
		case now.Before(at):
			if next.IsZero() || at.Before(next) {
				next = at
			}
		default:
			cctx, err := reconcilers.BecauseOf(ctx, evictingTaint(n, p, now))
			if err == nil {
				err = r.evict(cctx, p, name)
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return reconcilers.Result{}, err
	}
	if next.IsZero() {
		return reconcilers.Result{}, nil
	}
	return reconcilers.Result{RequeueAfter: next.Sub(now)}, nil
}

// evict marks the pod a disruption target and deletes it with its own
// grace period, provided it is still the same pod on the same node.
func (r *Reconciler) evict(ctx context.Context, seen domain.Pod, node string) error {
	// EvictPod leaves a pod already being deleted as it is: it has no
	// grace period of its own to shorten it with.
	_, err := r.commands.Execute(ctx, domain.Key{Namespace: seen.Namespace, Name: seen.Name}, domain.IfSamePod{
		UID: seen.UID, NodeName: node,
		Command: domain.EvictPod{Reason: domain.ReasonDeletionByTaintManager, Message: MessageTaintManager},
	})
	if err != nil {
		return fmt.Errorf("evict %s: %w", seen.Key(), err)
	}
	r.log.Info("evicting pod: NoExecute taint", zap.String("pod", seen.Key()), zap.String("node", node))
	return nil
}

// evictingTaint is the change an eviction of p from n at now follows: the
// NodeTainted of the first NoExecute taint of n that p does not tolerate,
// or tolerates for a time that has run out.
func evictingTaint(n domain.Node, p domain.Pod, now time.Time) reconcilers.Change {
	var taint domain.Taint
	for _, t := range n.Taints {
		if at, evict := domain.NoExecuteDeadline([]domain.Taint{t}, p.Spec.Tolerations, p.BoundAt()); evict && !now.Before(at) {
			taint = t
			break
		}
	}
	return reconcilers.ChangeOf(domain.NodeStream(n.Name), n.Version, func(e domain.NodeTainted) bool {
		return e.Taint.Key == taint.Key && e.Taint.Effect == taint.Effect
	})
}
