package termination

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// Reconciler is the termination reconciler. Its keys are pods (one pod)
// and nodes (every pod bound to a node whose state changed).
type Reconciler struct {
	cfg      Config
	commands domain.Executor[domain.Pod, domain.PodCommand]
	pods     PodReader
	nodes    NodeReader
	runtimes Runtimes
	clock    clock.PassiveClock
	log      *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the termination reconciler.
func New(cfg Config, commands domain.Executor[domain.Pod, domain.PodCommand], pods PodReader, nodes NodeReader,
	runtimes Runtimes, clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciler{cfg: cfg, commands: commands, pods: pods, nodes: nodes, runtimes: runtimes, clock: clk, log: log.Named("termination")}, nil
}

// reasonTerminated is the finalization reason after a clean termination.
const reasonTerminated = "Terminated"

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "termination" }

// podEvents are the pod events that move a termination on: a deletion or
// a shorter deadline, a step an agent recorded, finalizers removed.
var podEvents = reconcilers.EventTypesOf(
	domain.PodDeletionRequested{},
	domain.PodShutdownRequested{},
	domain.PodHalted{},
	domain.PodStopped{},
	domain.PodDeprovisioned{},
	domain.PodMetadataChanged{},
)

// nodeEvents are the node events that change what happens to the pods
// bound to it: it went away, lost or regained Ready, or changed hands
// between herd's runtime and its own agent.
var nodeEvents = reconcilers.EventTypesOf(
	domain.NodeDeleted{},
	domain.NodeBecameNotReady{},
	domain.NodeBecameReady{},
	domain.NodeLabelsChanged{},
	domain.NodeRegistered{},
	domain.NodeRestarted{},
)

// Watches implements reconcilers.Reconciler: the steps of a pod's
// termination and the node changes it waits on, mapped to the pod or the
// node.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		Takes(domain.PodAggregate, domain.NodeAggregate).
		Watches(podEvents, reconcilers.KeysOf).
		Watches(nodeEvents, reconcilers.KeysOf)
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync returns every terminating herd pod, and every node name that
// herd pods are bound to but that no longer exists.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	herd := domain.SourceHerd
	pods, err := r.pods.Pods(ctx, projections.PodFilter{Source: &herd, Terminating: true})
	if err != nil {
		return nil, err
	}
	gone, err := r.pods.GoneNodeNames(ctx, herd)
	if err != nil {
		return nil, err
	}
	var keys []reconcilers.Key
	for _, p := range pods {
		keys = append(keys, podKey(p))
	}
	for _, n := range gone {
		keys = append(keys, reconcilers.Key{Aggregate: domain.NodeAggregate, Name: n})
	}
	return keys, nil
}

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:termination", Source: "reconciler/termination"})
	if key.Aggregate == domain.NodeAggregate {
		return r.reconcileNode(ctx, key.Name)
	}
	p, err := r.pods.Get(ctx, key.Namespace, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	return r.reconcilePod(ctx, p)
}

// reconcileNode looks at every herd pod bound to the node: those being
// deleted, and all of them when the node is gone. It wakes again at the
// earliest time one of them asked for, since a node's change (it became
// unreachable) can bring a pod's garbage collection nearer than the wake-up
// its own key has.
func (r *Reconciler) reconcileNode(ctx context.Context, node string) (reconcilers.Result, error) {
	herd := domain.SourceHerd
	pods, err := r.pods.Pods(ctx, projections.PodFilter{NodeName: node, Source: &herd})
	if err != nil {
		return reconcilers.Result{}, err
	}
	var (
		next reconcilers.Result
		errs []error
	)
	for _, p := range pods {
		res, err := r.reconcilePod(ctx, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if res.RequeueAfter > 0 && (next.RequeueAfter == 0 || res.RequeueAfter < next.RequeueAfter) {
			next = res
		}
	}
	return next, errors.Join(errs...)
}

// reconcilePod moves one pod on: garbage collection first, then the
// runtime's steps or the wait for the node's agent.
func (r *Reconciler) reconcilePod(ctx context.Context, p domain.Pod) (reconcilers.Result, error) {
	if p.Observed() {
		return reconcilers.Result{}, nil
	}
	now := r.clock.Now()
	node, found, err := r.node(ctx, p.Spec.NodeName)
	if err != nil {
		return reconcilers.Result{}, err
	}
	if !p.Terminating() {
		if p.Spec.NodeName != "" && !found {
			// An orphan's deletion follows its node's.
			ctx, err := reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.NodeDeleted](domain.NodeStream(p.Spec.NodeName), 0, nil))
			if err != nil {
				return reconcilers.Result{}, err
			}
			return reconcilers.Result{}, r.deleteOrphan(ctx, p)
		}
		return reconcilers.Result{}, nil
	}
	// Every step of a termination follows the request that began it.
	ctx, err = becauseDeleted(ctx, p)
	if err != nil {
		return reconcilers.Result{}, err
	}
	v := collect(p, node, found, now, r.cfg.PodGCTimeout)
	if v.collect {
		return reconcilers.Result{}, r.garbageCollect(ctx, p, v.why, domain.FinalizePod{Reason: domain.ReasonDeletionByPodGC})
	}
	rt, ok := r.runtimes.For(node)
	if !ok {
		if p.Deletion.DeprovisionedAt.IsZero() {
			// The node's agent records the steps through the API; each
			// one wakes this key. Only the GC deadline needs a timer.
			return after(now, v.at), nil
		}
		_, err := r.write(ctx, p, domain.FinalizePod{Reason: reasonTerminated})
		return reconcilers.Result{}, err
	}
	return r.terminate(ctx, p, rt, now)
}

// node returns the named node, and false when there is none.
func (r *Reconciler) node(ctx context.Context, name string) (domain.Node, bool, error) {
	if name == "" {
		return domain.Node{}, false, nil
	}
	n, err := r.nodes.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Node{}, false, nil
	}
	return n, err == nil, err
}

// podKey is the key of pod p.
func podKey(p domain.Pod) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: p.Namespace, Name: p.Name}
}

// after is a Result that wakes the key at t; none when t is zero.
func after(now, t time.Time) reconcilers.Result {
	if t.IsZero() {
		return reconcilers.Result{}
	}
	return reconcilers.Result{RequeueAfter: max(t.Sub(now), time.Millisecond)}
}

// write applies cmds to the pod as one unit of work, provided it is still
// the pod the reconciler looked at. A FinalizePod that finalizers block
// waits (WaitForFinalizers): the PodMetadataChanged that removes the last
// finalizer wakes the pod again.
func (r *Reconciler) write(ctx context.Context, seen domain.Pod, cmds ...domain.PodCommand) (domain.Pod, error) {
	seq := make(domain.PodSequence, len(cmds))
	for i, c := range cmds {
		if f, ok := c.(domain.FinalizePod); ok {
			f.WaitForFinalizers = true
			c = f
		}
		seq[i] = c
	}
	return r.commands.Execute(ctx, domain.Key{Namespace: seen.Namespace, Name: seen.Name},
		domain.IfSamePod{UID: seen.UID, Command: seq})
}

// becauseDeleted is ctx whose commands name as their cause the request
// that began p's deletion (an operator's, an eviction's, an owner's).
func becauseDeleted(ctx context.Context, p domain.Pod) (context.Context, error) {
	return reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.PodDeletionRequested](domain.PodStream(p.Namespace, p.Name), p.Version, nil))
}
