package deployment

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
)

// Reconcile rolls one Deployment out one step and records its status, or
// deletes the ReplicaSets of a Deployment that is gone. Each step is
// decided on the ReplicaSets as they stand in the view, which is written
// in the same unit of work as the commands, and every scale is
// conditional on the ReplicaSet's resourceVersion: a reconcile that
// raced another write fails and is retried rather than act on what it
// did not see.
func (r *Reconciler) Reconcile(ctx context.Context, k reconcilers.Key) (reconcilers.Result, error) {
	ctx = r.Acting(ctx)
	d, err := r.deployments.Last(ctx, k.Namespace, k.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, fmt.Errorf("get deployment %s: %w", k, err)
	}
	controllers := []string{kindDeployment + "/" + k.Name}
	adopts := d.Exists() && d.DeletionRequestedAt == nil
	if adopts {
		controllers = append(controllers, "") // the orphans it may adopt
	}
	r.selectors.Track(domain.Key{Namespace: k.Namespace, Name: k.Name}, d.Spec.Selector, adopts)
	all, _, err := r.replicaSets.Controlled(ctx, k.Namespace, controllers)
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("list replicasets of deployment %s: %w", k, err)
	}
	for _, rs := range all {
		r.owners.Observe(rs.Key(), rs.Owners)
	}
	if !d.Exists() {
		orphan := ""
		if d.Orphan {
			orphan = d.UID
		}
		return reconcilers.Result{}, r.collect(ctx, k, all, orphan)
	}
	if d.UID == "" {
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("deployment %s has no uid: %w", d, domain.ErrInvalid))
	}
	if d.DeletionRequestedAt != nil {
		var owned []domain.ReplicaSet
		for _, rs := range all {
			if d.Owns(rs) {
				owned = append(owned, rs)
			}
		}
		return reconcilers.Result{}, r.deleteForeground(ctx, d, owned)
	}
	owned, err := r.claim(ctx, d, all)
	if err != nil {
		return reconcilers.Result{}, err
	}
	return r.sync(ctx, d, owned)
}

// claim returns the ReplicaSets d controls, as Kubernetes'
// ControllerRefManager claims them: those it controls that its selector
// matches, and the orphans its selector matches, which it adopts (a
// Deployment deleted with its dependents orphaned and created again
// takes its ReplicaSets back, pods and all, rather than start new ones);
// one it controls that its selector no longer matches (its labels
// changed by hand) it releases. A ReplicaSet being deleted is neither
// adopted nor released. Each adoption and release is conditional on the
// ReplicaSet's resourceVersion: one that changed meanwhile fails the
// reconcile, which is retried.
func (r *Reconciler) claim(ctx context.Context, d domain.Deployment, all []domain.ReplicaSet) ([]domain.ReplicaSet, error) {
	var owned []domain.ReplicaSet
	for _, rs := range all {
		matches := d.Spec.Selector.Matches(rs.Labels)
		var cmd domain.ReplicaSetCommand
		switch controlled := controllerUID(rs) != ""; {
		case d.Owns(rs) && (matches || rs.DeletionRequestedAt != nil):
			owned = append(owned, rs)
			continue
		case d.Owns(rs):
			cmd = domain.ReleaseReplicaSet{UID: d.UID}
		case !controlled && matches && rs.DeletionRequestedAt == nil:
			cmd = domain.AdoptReplicaSet{Owner: d.OwnerReference()}
		default:
			continue
		}
		got, err := r.rsCommands.Execute(ctx, rs.Key(), domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: rs.ResourceVersion, Command: cmd})
		if err != nil {
			return nil, fmt.Errorf("claim replicaset %s for deployment %s: %w", rs, d, err)
		}
		if _, adopt := cmd.(domain.AdoptReplicaSet); adopt {
			r.log.Info("adopted replicaset", zap.String("deployment", d.String()), zap.String("replicaset", rs.Name))
			owned = append(owned, got)
		} else {
			r.log.Info("released replicaset: the deployment's selector no longer matches it", zap.String("deployment", d.String()), zap.String("replicaset", rs.Name))
		}
	}
	return owned, nil
}

// deleteForeground deletes the ReplicaSets of d, which is being deleted
// in the foreground, each in the foreground too (so that each waits for
// its pods). The garbage collector deletes d once every dependent that
// blocks it is gone, these ReplicaSets and any other (Kubernetes'
// collector likewise removes the foregroundDeletion finalizer).
func (r *Reconciler) deleteForeground(ctx context.Context, d domain.Deployment, owned []domain.ReplicaSet) error {
	for _, rs := range owned {
		if rs.DeletionRequestedAt != nil {
			continue
		}
		if _, err := r.rsCommands.Execute(ctx, rs.Key(), domain.DeleteReplicaSet{Propagation: domain.PropagateForeground}); err != nil && !errors.Is(err, domain.ErrNotFound) {
			return fmt.Errorf("delete replicaset %s of deployment %s, deleted in the foreground: %w", rs, d, err)
		}
	}
	return nil
}

// collect deletes the ReplicaSets whose controller, the Deployment of
// k, is gone, as Kubernetes' background cascading deletion does; the
// ReplicaSet reconciler then collects their pods. The ReplicaSets of the
// Deployment of UID orphan, deleted with its dependents orphaned, only
// lose their reference to it.
func (r *Reconciler) collect(ctx context.Context, k reconcilers.Key, all []domain.ReplicaSet, orphan string) error {
	var errs []error
	var deleted, released []string
	for _, rs := range all {
		if r.owners.Controller(rs.Owners) != k.Name {
			continue
		}
		var cmd domain.ReplicaSetCommand = domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: rs.ResourceVersion, Command: domain.DeleteReplicaSet{}}
		if ctrl := controllerUID(rs); orphan != "" && ctrl == orphan {
			cmd = domain.ReleaseReplicaSet{UID: orphan}
		}
		_, err := r.rsCommands.Execute(ctx, rs.Key(), cmd)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("collect replicaset %s of deployment %s, which is gone: %w", rs, k, err))
			continue
		}
		if _, ok := cmd.(domain.ReleaseReplicaSet); ok {
			released = append(released, rs.Name)
		} else {
			deleted = append(deleted, rs.Name)
		}
	}
	if len(deleted)+len(released) > 0 {
		r.log.Info("collected the replicasets of a deployment that is gone", zap.String("deployment", k.Namespace+"/"+k.Name),
			zap.Strings("deleted", deleted), zap.Strings("orphaned", released))
	}
	return errors.Join(errs...)
}

// controllerUID is the UID of rs's controller, "" for none.
func controllerUID(rs domain.ReplicaSet) string {
	for _, o := range rs.Owners {
		if o.Controller {
			return o.UID
		}
	}
	return ""
}

// sync takes one step of d's rollout over owned, its ReplicaSets, and
// records its status; the status is recorded even when the step failed,
// and the failure returned after it.
func (r *Reconciler) sync(ctx context.Context, d domain.Deployment, owned []domain.ReplicaSet) (reconcilers.Result, error) {
	ro := &rollout{r: r, d: d}
	ro.split(owned)
	// The rollout's steps follow what the Deployment asks for: its last
	// change of spec or scale. Its status names what moved it
	// (statusCause), looked up in the ReplicaSets as read.
	rctx, err := reconcilers.BecauseOf(ctx, specChange(d))
	if err != nil {
		return reconcilers.Result{}, err
	}
	sctx, err := statusCause(ctx, d, owned)
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("cause of deployment %s's status: %w", d, err)
	}
	switch {
	case d.Spec.Paused || ro.scaling():
		err = ro.proportional(rctx)
	case d.Spec.Strategy.Type == domain.RecreateStrategy:
		err = ro.recreate(rctx)
	default:
		err = ro.rolling(rctx)
	}
	if err == nil {
		err = ro.cleanup(rctx)
	}
	now := r.clock.Now()
	st, revision, requeue := ro.status(now)
	if _, serr := r.commands.Execute(sctx, d.Key(), domain.RecordDeploymentStatus{Status: st, Revision: revision}); serr != nil && !errors.Is(serr, domain.ErrNotFound) {
		err = errors.Join(err, fmt.Errorf("record status of deployment %s: %w", d, serr))
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	return reconcilers.Result{RequeueAfter: requeue}, nil
}
