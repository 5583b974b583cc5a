package deployment

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
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
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:deployment", Source: "reconciler/deployment"})
	d, err := r.deployments.Get(ctx, k.Namespace, k.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, fmt.Errorf("get deployment %s: %w", k, err)
	}
	all, _, err := r.replicaSets.List(ctx, k.Namespace)
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("list replicasets of namespace %s: %w", k.Namespace, err)
	}
	for _, rs := range all {
		r.owners.Observe(rs.Key(), rs.Owners)
	}
	if !d.Exists() {
		return reconcilers.Result{}, r.collect(ctx, k, all)
	}
	if d.UID == "" {
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("deployment %s has no uid: %w", d, domain.ErrInvalid))
	}
	var owned []domain.ReplicaSet
	for _, rs := range all {
		if d.Owns(rs) {
			owned = append(owned, rs)
		}
	}
	return r.sync(ctx, d, owned)
}

// collect deletes the ReplicaSets whose controller, the Deployment of
// k, is gone, as Kubernetes' background cascading deletion does; the
// ReplicaSet reconciler then collects their pods.
func (r *Reconciler) collect(ctx context.Context, k reconcilers.Key, all []domain.ReplicaSet) error {
	var errs []error
	var names []string
	for _, rs := range all {
		if r.owners.Controller(rs.Owners) != k.Name {
			continue
		}
		_, err := r.rsCommands.Execute(ctx, rs.Key(), domain.DeleteReplicaSet{ResourceVersion: rs.ResourceVersion})
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete replicaset %s of deployment %s, which is gone: %w", rs, k, err))
			continue
		}
		names = append(names, rs.Name)
	}
	if len(names) > 0 {
		r.log.Info("deleted the replicasets of a deployment that is gone", zap.String("deployment", k.Namespace+"/"+k.Name), zap.Strings("replicasets", names))
	}
	return errors.Join(errs...)
}

// sync takes one step of d's rollout over owned, its ReplicaSets, and
// records its status; the status is recorded even when the step failed,
// and the failure returned after it.
func (r *Reconciler) sync(ctx context.Context, d domain.Deployment, owned []domain.ReplicaSet) (reconcilers.Result, error) {
	ro := &rollout{r: r, d: d}
	ro.split(owned)
	var err error
	switch {
	case d.Spec.Paused:
		err = ro.scalePaused(ctx)
	case d.Spec.Strategy.Type == domain.RecreateStrategy:
		err = ro.recreate(ctx)
	default:
		err = ro.rolling(ctx)
	}
	if err == nil {
		err = ro.cleanup(ctx)
	}
	now := r.clock.Now()
	st, revision, requeue := ro.status(now)
	if _, serr := r.commands.Execute(ctx, d.Key(), domain.RecordDeploymentStatus{Status: st, Revision: revision}); serr != nil && !errors.Is(serr, domain.ErrNotFound) {
		err = errors.Join(err, fmt.Errorf("record status of deployment %s: %w", d, serr))
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	return reconcilers.Result{RequeueAfter: requeue}, nil
}
