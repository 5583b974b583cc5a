package daemonset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"herd/domain"
	"herd/reconcilers"
)

// Reconcile brings one DaemonSet's pods to one on each node that fits it
// and records its status, or collects the pods of a DaemonSet that is
// gone. Every write is decided on the pod or DaemonSet as it stands, and
// the views it reads are written in the same unit of work as the
// commands, so a second reconcile finds nothing left to do: unlike
// Kubernetes' controller, it needs no expectations to wait out a stale
// cache.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	start := r.clock.Now()
	if wait := r.pace.begin(key, start); wait > 0 {
		return reconcilers.Result{RequeueAfter: wait}, nil
	}
	defer func() { r.pace.end(key, start, r.clock.Now()) }()
	ctx = r.Acting(ctx)
	ds, err := r.daemonSets.Last(ctx, key.Namespace, key.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, fmt.Errorf("get daemonset %s: %w", key, err)
	}
	r.controlled.Adopting(key, ds.Spec.Selector, ds.Exists() && ds.DeletionRequestedAt == nil)
	// Its own pods, those of an earlier DaemonSet of its name, and the
	// orphans it may adopt.
	pods, err := r.controlled.Read(ctx, key, true)
	if err != nil {
		return reconcilers.Result{}, err
	}
	if !ds.Exists() {
		r.known.forget(key)
		r.pace.forget(key)
		orphan := ""
		if ds.Orphan {
			orphan = ds.UID
		}
		return reconcilers.Result{}, r.controlled.Collect(ctx, key.Namespace+"/"+key.Name, reconcilers.Filter(pods, reconcilers.AbandonedBy(domain.KindDaemonSet, key.Name, "")), orphan)
	}
	r.known.add(key)
	if ds.DeletionRequestedAt != nil {
		return reconcilers.Result{}, r.controlled.DeleteForeground(ctx, ds.String(), ds.UID, pods)
	}
	return r.sync(ctx, ds, pods)
}

// sync claims the pods of ds's namespace for ds, makes and deletes pods
// until each node that fits has one, rolls out a new template, and
// records the status; a status is recorded even when a write failed, as
// Kubernetes' controller records it, and the failure is returned after
// it.
func (r *Reconciler) sync(ctx context.Context, ds domain.DaemonSet, pods []domain.Pod) (reconcilers.Result, error) {
	if ds.UID == "" {
		// Its pods would name it by UID; without one, every pod of its
		// name would look like an earlier DaemonSet's.
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("daemonset %s has no uid: %w", ds, domain.ErrInvalid))
	}
	c := claim(ds, pods)
	var errs []error
	if err := r.controlled.Collect(ctx, ds.String(), c.abandoned, ""); err != nil {
		errs = append(errs, err)
	}
	adopted, err := r.adopt(ctx, ds, c.orphans, c.strays)
	if err != nil {
		// Making pods without knowing which orphans are its own would
		// put a second pod beside them: as Kubernetes' controller, it
		// stops at a failed claim.
		return reconcilers.Result{}, errors.Join(append(errs, err)...)
	}
	nodes, _, err := r.nodes.List(ctx)
	if err != nil {
		return reconcilers.Result{}, errors.Join(append(errs, fmt.Errorf("list nodes: %w", err))...)
	}
	owned := slices.Concat(c.owned, adopted)
	if err := r.keepRevisions(ctx, ds, owned); err != nil {
		errs = append(errs, err)
	}
	w := newWorld(ds, nodes, owned, r.clock.Now())
	act := r.manage(w)
	roomy, short, err := r.withRoom(ctx, w, act.create, r.cfg.BurstReplicas)
	if err != nil {
		return reconcilers.Result{}, errors.Join(append(errs, err)...)
	}
	act.create = roomy
	if act.none() {
		// Nothing left to make or delete on any node: the rollout may
		// go on, as Kubernetes' controller goes on once its
		// expectations are met.
		rolling := w.rollingUpdate()
		if act.create, _, err = r.withRoom(ctx, w, rolling.create, r.cfg.BurstReplicas); err != nil {
			return reconcilers.Result{}, errors.Join(append(errs, err)...)
		}
		act.delete = rolling.delete
	}
	dctx, err := deleteCause(ctx, w, act.delete)
	if err != nil {
		return reconcilers.Result{}, errors.Join(append(errs, fmt.Errorf("cause of daemonset %s's deletions: %w", ds, err))...)
	}
	if err := r.delete(dctx, ds, act.delete); err != nil {
		errs = append(errs, err)
	}
	created, err := r.create(ctx, w, owned, act.create)
	if err != nil {
		errs = append(errs, err)
	}
	st, next := w.with(created).status()
	sctx, err := statusCause(ctx, w, owned, act)
	if err != nil {
		return reconcilers.Result{}, errors.Join(append(errs, fmt.Errorf("cause of daemonset %s's status: %w", ds, err))...)
	}
	if _, err := r.dsCommands.Execute(sctx, ds.Key(), domain.RecordDaemonSetStatus{Status: st}); err != nil && !errors.Is(err, domain.ErrNotFound) {
		// A DaemonSet deleted since it was read has no status to record:
		// its deletion brings the key back, to collect its pods.
		errs = append(errs, fmt.Errorf("record status of daemonset %s: %w", ds, err))
	}
	if err := errors.Join(errs...); err != nil {
		return reconcilers.Result{}, err
	}
	return reconcilers.Result{RequeueAfter: r.requeue(w.now, next, short, act.retry)}, nil
}

// requeue is how soon the DaemonSet needs another look that no event
// will bring: when its next ready pod becomes available, when a node
// short of room may have some, when a failed pod held back may go; zero
// for none.
func (r *Reconciler) requeue(now, available time.Time, short int, failed time.Duration) time.Duration {
	var after time.Duration
	keep := func(d time.Duration) {
		if d > 0 && (after == 0 || d < after) {
			after = d
		}
	}
	if !available.IsZero() {
		keep(max(available.Sub(now), time.Millisecond))
	}
	if short > 0 {
		keep(r.cfg.RoomRetry)
	}
	keep(failed)
	return after
}
