package replicaset

import (
	"context"
	"errors"
	"fmt"

	"herd/domain"
	"herd/reconcilers"
)

// Reconcile brings one ReplicaSet's pods to what it asks for and records
// its status, or collects the pods of a ReplicaSet that is gone. Every
// write is decided on the pod or ReplicaSet as it stands (IfSamePod, the
// status decided against the last one), and the views it reads are
// written in the same unit of work as the commands, so a second reconcile
// finds nothing left to do: unlike Kubernetes' controller, it needs no
// expectations to wait out a stale cache.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = r.Acting(ctx)
	rs, err := r.replicaSets.Last(ctx, key.Namespace, key.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, fmt.Errorf("get replicaset %s: %w", key, err)
	}
	r.Controlled.Adopting(key, rs.Spec.Selector, rs.Exists() && rs.DeletionRequestedAt == nil)
	// Its own pods, those of an earlier ReplicaSet of its name, and the
	// orphans it may adopt.
	pods, err := r.Controlled.Read(ctx, key, true)
	if err != nil {
		return reconcilers.Result{}, err
	}
	if !rs.Exists() {
		orphan := ""
		if rs.Orphan {
			orphan = rs.UID
		}
		return reconcilers.Result{}, r.Controlled.Collect(ctx, key.Namespace+"/"+key.Name, reconcilers.Filter(pods, reconcilers.AbandonedBy(kindReplicaSet, key.Name, "")), orphan)
	}
	if rs.DeletionRequestedAt != nil {
		return reconcilers.Result{}, r.Controlled.DeleteForeground(ctx, rs.String(), rs.UID, pods)
	}
	return r.sync(ctx, rs, pods)
}

// sync claims the pods of rs's namespace for rs, scales them to its
// replicas and records its status; a status is recorded even when
// scaling failed, as Kubernetes' controller records it, and the failure
// is returned after it.
func (r *Reconciler) sync(ctx context.Context, rs domain.ReplicaSet, pods []domain.Pod) (reconcilers.Result, error) {
	if rs.UID == "" {
		// Its pods would name it by UID; without one, every pod of its
		// name would look like an earlier ReplicaSet's.
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("replicaset %s has no uid: %w", rs, domain.ErrInvalid))
	}
	c := claim(rs, pods)
	var errs []error
	if err := r.Controlled.Collect(ctx, rs.String(), c.abandoned, ""); err != nil {
		errs = append(errs, err)
	}
	adopted, err := r.adopt(ctx, rs, c.orphans, c.strays)
	if err != nil {
		// Scaling without knowing which orphans are its own would create
		// pods in their place: as Kubernetes' controller, it stops at a
		// failed claim.
		return reconcilers.Result{}, errors.Join(append(errs, err)...)
	}
	owned, err := r.scale(ctx, rs, append(c.owned, adopted...), pods)
	if err != nil {
		errs = append(errs, err)
	}
	now := r.Clock.Now()
	st, next := status(rs, owned, now)
	sctx, err := statusCause(ctx, rs, pods)
	if err != nil {
		return reconcilers.Result{}, errors.Join(append(errs, err)...)
	}
	// The status is what the ReplicaSet as read asks for and has: it is
	// recorded on that ReplicaSet only. One changed since (a scale, a new
	// template from its Deployment) would get a status of a generation
	// it no longer is, naming a change older than its own: its change
	// brings the key back, to count it as it now stands.
	cmd := domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: rs.ResourceVersion, Command: domain.RecordReplicaSetStatus{Status: st}}
	if _, err := r.rsCommands.Execute(sctx, rs.Key(), cmd); err != nil {
		switch {
		case errors.Is(err, domain.ErrConflict):
			return reconcilers.Result{}, errors.Join(errs...)
		case !errors.Is(err, domain.ErrNotFound):
			// A ReplicaSet deleted since it was read has no status to
			// record: its deletion brings the key back, to collect its
			// pods.
			errs = append(errs, fmt.Errorf("record status of replicaset %s: %w", rs, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return reconcilers.Result{}, err
	}
	if next.IsZero() {
		return reconcilers.Result{}, nil
	}
	// Wait for the first ready pod to become available: nothing else
	// happens to the pod to bring the key back.
	return reconcilers.Result{RequeueAfter: next.Sub(now)}, nil
}
