package drain

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
	"herd/projections"
	"herd/reconcilers"
)

// MessageEviction is the DisruptionTarget message on a drained pod, that
// of Kubernetes' eviction API, which `kubectl drain` uses.
const MessageEviction = "Eviction API: evicting"

// DefaultResyncPeriod is how often every draining node is looked at
// without an event.
const DefaultResyncPeriod = 30 * time.Second

// keyDraining stands for every node being drained: a pod that leaves
// names no node, so its finalization wakes them all (there are few).
var keyDraining = reconcilers.Pass("draining")

// scope is the keys the reconciler takes: nodes, and every draining node.
var scope = reconcilers.Scope{
	Aggregates: []*domain.Aggregate{domain.NodeAggregate},
	Passes:     []reconcilers.Key{keyDraining},
}

// Repository is what the reconciler writes through.
type Repository interface {
	NodeCommands() domain.Executor[domain.Node, domain.NodeCommand]
	PodCommands() domain.Executor[domain.Pod, domain.PodCommand]
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

// Scope implements reconcilers.Reconciler.
func (r *Reconciler) Scope() reconcilers.Scope { return scope }

// KeysFor maps the start of a drain to its node, a pod bound to a node to
// that node (it may be draining), and a pod leaving to every draining node.
func (r *Reconciler) KeysFor(rec events.Record) []reconcilers.Key {
	switch {
	case reconcilers.Is[domain.NodeDrainStarted](rec):
		return reconcilers.KeysOf(rec)
	case reconcilers.Is[domain.PodFinalized](rec):
		return []reconcilers.Key{keyDraining}
	case reconcilers.Is[domain.PodScheduled](rec):
		ev, err := reconcilers.Decode[domain.PodScheduled](rec)
		if err != nil {
			r.log.Error("unreadable binding", zap.String("stream", rec.Stream), zap.Int64("position", rec.Position), zap.Error(err))
			return nil
		}
		return []reconcilers.Key{nodeKey(ev.NodeName)}
	}
	return nil
}

// nodeKey is the key of the named node.
func nodeKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NodeAggregate, Name: name}
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
		return reconcilers.Result{}, r.reconcileDraining(ctx)
	}
	n, err := r.nodes.Get(ctx, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	return reconcilers.Result{}, r.drain(ctx, n)
}

// reconcileDraining goes over the nodes being drained: the few the view's
// index finds, not the fleet, since every pod that leaves any node calls
// for it.
func (r *Reconciler) reconcileDraining(ctx context.Context) error {
	nodes, err := r.nodes.Draining(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range nodes {
		if err := r.drain(ctx, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// drain evicts every herd pod left on a draining node, or records it
// Drained when there is none.
func (r *Reconciler) drain(ctx context.Context, n domain.Node) error {
	if n.Drain == nil || !n.Drain.DrainedAt.IsZero() {
		return nil
	}
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{NodeName: n.Name, Source: &herd})
	if err != nil {
		return err
	}
	pods = slices.DeleteFunc(pods, leftInPlace)
	if len(pods) == 0 {
		_, err := r.repo.NodeCommands().Execute(ctx, domain.Key{Name: n.Name}, domain.MarkNodeDrained{})
		if err == nil {
			r.log.Info("node drained", zap.String("node", n.Name))
		}
		return err
	}
	var errs []error
	for _, p := range pods {
		if err := r.evict(ctx, p, n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// evict marks the pod a disruption target and deletes it, with the drain's
// grace period when it has one; a pod already being deleted only gets the
// shorter deadline, if the drain's is shorter.
func (r *Reconciler) evict(ctx context.Context, seen domain.Pod, n domain.Node) error {
	p, err := r.repo.PodCommands().Execute(ctx, domain.Key{Namespace: seen.Namespace, Name: seen.Name}, domain.IfSamePod{
		UID: seen.UID, NodeName: n.Name,
		Command: domain.EvictPod{Reason: domain.ReasonEvictionByEvictionAPI, Message: MessageEviction, GracePeriodSeconds: n.Drain.GracePeriodSeconds},
	})
	if err != nil {
		return fmt.Errorf("evict %s: %w", seen.Key(), err)
	}
	// Evicted now: the pod the drain saw was not yet being deleted, and
	// the same pod now is.
	if !seen.Terminating() && p.UID == seen.UID && p.Terminating() {
		r.log.Info("evicting pod: node drain", zap.String("pod", seen.Key()), zap.String("node", n.Name))
	}
	return nil
}
