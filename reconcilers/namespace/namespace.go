// Package namespace empties the namespaces being deleted, as Kubernetes'
// namespace controller does: once an operator deletes a namespace it is
// Terminating and takes no new objects; this reconciler deletes its
// workloads and every other object of the kinds it is given (Objects),
// its pods (each with its own grace period, through the usual
// termination), its ConfigMaps and its leases, and when none is left the
// namespace goes.
//
// Pods a kubelet runs outside herd (observed, not herd's own) are not
// herd's to delete and do not hold the namespace back.
package namespace

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

// DefaultResyncPeriod is how often every terminating namespace is looked
// at without an event.
const DefaultResyncPeriod = 30 * time.Second

// Repository is what the reconciler writes through.
type Repository interface {
	NamespaceCommands() domain.Executor[domain.Namespace, domain.NamespaceCommand]
	PodCommands() domain.Executor[domain.Pod, domain.PodCommand]
	ConfigMapCommands() domain.Executor[domain.ConfigMap, domain.ConfigMapCommand]
	LeaseCommands() domain.Executor[domain.Lease, domain.LeaseCommand]
}

// Reconciler is the namespace reconciler. Its keys are namespaces.
type Reconciler struct {
	resync     time.Duration
	repo       Repository
	namespaces Reader
	pods       PodLister
	configMaps ConfigMapLister
	leases     LeaseLister
	objects    []Objects
	clock      clock.PassiveClock
	log        *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the namespace reconciler, resyncing every resync; objects
// are the other kinds a namespace's deletion deletes, deleted first, so
// that no controller of the namespace makes pods while they go.
func New(resync time.Duration, repo Repository, namespaces Reader, pods PodLister,
	configMaps ConfigMapLister, leases LeaseLister, clk clock.PassiveClock, log *zap.Logger, objects ...Objects) *Reconciler {
	return &Reconciler{resync: resync, repo: repo, namespaces: namespaces, pods: pods, configMaps: configMaps, leases: leases,
		objects: objects, clock: clk, log: log.Named("namespace")}
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "namespace" }

// Watches implements reconcilers.Reconciler: a namespace turning
// Terminating, mapped to it, and a pod finalized, a ConfigMap, lease or
// object of the other kinds deleted, to its namespace, which may be
// waiting for it. The namespace is part of the object's key, so no
// payload is decoded.
func (r *Reconciler) Watches() *reconcilers.Watches {
	gone := []domain.Event{domain.PodFinalized{}, domain.ConfigMapDeleted{}, domain.LeaseDeleted{}}
	for _, o := range r.objects {
		gone = append(gone, o.deleted)
	}
	return reconcilers.Watch().
		Takes(domain.NamespaceAggregate).
		Watches(reconcilers.EventTypesOf(domain.NamespaceTerminating{}), reconcilers.KeysOf).
		Watches(reconcilers.EventTypesOf(gone...), reconcilers.ToNamespace)
}

// namespaceKey is the key of the named namespace.
func namespaceKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NamespaceAggregate, Name: name}
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.resync }

// Resync returns every terminating namespace.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	nss, err := r.namespaces.Terminating(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]reconcilers.Key, len(nss))
	for i, ns := range nss {
		keys[i] = namespaceKey(ns.Name)
	}
	return keys, nil
}

// Reconcile implements reconcilers.Reconciler: it deletes what a
// terminating namespace still holds, or removes the namespace once it
// holds nothing.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:namespace", Source: "reconciler/namespace"})
	name := key.Name
	ns, err := r.namespaces.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	if domain.NamespacePhase(ns) != domain.PhaseTerminating {
		return reconcilers.Result{}, nil
	}
	// Everything a terminating namespace's emptying does (its objects',
	// pods', ConfigMaps' and leases' deletions, and its own removal at the end)
	// it does because its deletion was asked for: they name that request
	// as their cause, not the pod finalization that last woke the key.
	if ctx, err = reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.NamespaceTerminating](domain.NamespaceStream(name), ns.Version, nil)); err != nil {
		return reconcilers.Result{}, err
	}
	left, err := r.empty(ctx, name)
	if err != nil || left > 0 {
		return reconcilers.Result{}, err
	}
	_, err = r.repo.NamespaceCommands().Execute(ctx, domain.Key{Name: name}, domain.FinalizeNamespace{})
	if err == nil {
		r.log.Info("namespace deleted", zap.String("namespace", name))
	}
	return reconcilers.Result{}, err
}

// empty asks for the deletion of every object of the other kinds, every
// pod of herd's, every ConfigMap and every lease in the namespace, and
// returns how many of those objects it found and how many pods are still
// there (being terminated, or held back; each one's end wakes the
// namespace again).
func (r *Reconciler) empty(ctx context.Context, namespace string) (int, error) {
	var (
		found int
		errs  []error
	)
	for _, o := range r.objects {
		n, err := o.deleteAll(ctx, namespace)
		found += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{Namespace: namespace, Source: &herd})
	if err != nil {
		return 0, err
	}
	for _, p := range pods {
		if p.Terminating() {
			continue
		}
		_, err := r.repo.PodCommands().Execute(ctx, domain.Key{Namespace: namespace, Name: p.Name}, domain.DeletePod{})
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete pod %s/%s: %w", namespace, p.Name, err))
		}
	}
	cms, _, err := r.configMaps.List(ctx, namespace)
	if err != nil {
		return 0, err
	}
	for _, cm := range cms {
		_, err := r.repo.ConfigMapCommands().Execute(ctx, domain.Key{Namespace: namespace, Name: cm.Name}, domain.DeleteConfigMap{})
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete configmap %s/%s: %w", namespace, cm.Name, err))
		}
	}
	ls, _, err := r.leases.List(ctx, namespace)
	if err != nil {
		return 0, err
	}
	for _, l := range ls {
		_, err := r.repo.LeaseCommands().Execute(ctx, domain.Key{Namespace: namespace, Name: l.Name}, domain.DeleteLease{})
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete lease %s/%s: %w", namespace, l.Name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	// Pods that went at once (never scheduled) are finalized already;
	// count what is left.
	left, _, err := r.pods.List(ctx, projections.PodFilter{Namespace: namespace, Source: &herd})
	return found + len(left), err
}
