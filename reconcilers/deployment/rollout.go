package deployment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"herd/domain"
)

// rollout is one reconcile of a Deployment: its ReplicaSets as read, the
// new one (whose template is the Deployment's) apart from the old, each
// updated in memory as the reconcile scales it, and what the step did.
type rollout struct {
	r     *Reconciler
	d     domain.Deployment
	newRS *domain.ReplicaSet
	// old are the other ReplicaSets, the oldest first.
	old []domain.ReplicaSet
	// progress says what the step did to move the rollout on ("" for
	// nothing): a condition reason (NewReplicaSetCreated,
	// ReplicaSetUpdated).
	progress string
	// collided says the new ReplicaSet's name was taken by another.
	collided bool
}

// split finds the new ReplicaSet among owned and orders the old ones.
func (ro *rollout) split(owned []domain.ReplicaSet) {
	// Of several with the template (which only a user's hand makes), the
	// oldest, as Kubernetes' FindNewReplicaSet takes.
	slices.SortFunc(owned, func(a, b domain.ReplicaSet) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Name, b.Name))
	})
	for i, rs := range owned {
		if ro.newRS == nil && templateEqual(rs.Spec.Template, ro.d.Spec.Template) {
			ro.newRS = &owned[i]
			continue
		}
		ro.old = append(ro.old, rs)
	}
}

// all is every ReplicaSet, the new one last.
func (ro *rollout) all() []domain.ReplicaSet {
	if ro.newRS == nil {
		return ro.old
	}
	return append(slices.Clone(ro.old), *ro.newRS)
}

// specReplicas is how many pods rss ask for.
func specReplicas(rss []domain.ReplicaSet) int32 {
	var n int32
	for _, rs := range rss {
		n += rs.Spec.Replicas
	}
	return n
}

// fenceposts are the Deployment's maxSurge and maxUnavailable in pods, as
// Kubernetes resolves them: the surge rounded up, the unavailability
// down, and never both zero.
func fenceposts(d domain.Deployment) (surge, unavailable int32) {
	if d.Spec.Strategy.Type != domain.RollingUpdateStrategy {
		return 0, 0
	}
	surge = d.Spec.Strategy.MaxSurge.Count(d.Spec.Replicas, true)
	unavailable = d.Spec.Strategy.MaxUnavailable.Count(d.Spec.Replicas, false)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, min(unavailable, d.Spec.Replicas)
}

// scale sets rs's replicas, and with them the annotations of the
// Deployment's replicas (replicasAnnotations), when they are not replicas
// already (Kubernetes' scaleReplicaSetAndRecordEvent).
func (ro *rollout) scale(ctx context.Context, rs *domain.ReplicaSet, replicas int32) error {
	if rs.Spec.Replicas == replicas {
		return nil
	}
	return ro.resize(ctx, rs, replicas)
}

// resize sets rs's replicas and the annotations of the Deployment's
// replicas, when either differs (Kubernetes' scaleReplicaSet), in one
// write conditional on rs's resourceVersion, and keeps the in-memory
// copy in step.
func (ro *rollout) resize(ctx context.Context, rs *domain.ReplicaSet, replicas int32) error {
	ann, annotate := replicasAnnotations(ro.d, *rs)
	if rs.Spec.Replicas == replicas && !annotate {
		return nil
	}
	meta, spec := rs.ObjectMeta, rs.Spec
	meta.Annotations, spec.Replicas = ann, replicas
	got, err := ro.r.rsCommands.Execute(ctx, rs.Key(), domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: rs.ResourceVersion, Command: domain.UpdateReplicaSet{Meta: meta, Spec: spec}})
	if err != nil {
		return fmt.Errorf("scale replicaset %s of deployment %s to %d: %w", rs, ro.d, replicas, err)
	}
	if rs.Spec.Replicas != replicas {
		ro.r.log.Info("scaled replicaset", zap.String("deployment", ro.d.String()), zap.String("replicaset", rs.Name),
			zap.Int32("from", rs.Spec.Replicas), zap.Int32("to", replicas))
		ro.progress = reasonUpdated
	}
	*rs = got
	return nil
}

// rolling is one step of a RollingUpdate, as Kubernetes' rolloutRolling:
// make the new ReplicaSet if there is none; else grow it as far as
// maxSurge lets; else shrink the old ones as far as maxUnavailable lets,
// the unhealthy pods first.
func (ro *rollout) rolling(ctx context.Context) error {
	if ro.newRS == nil {
		return ro.create(ctx, ro.newReplicas(0))
	}
	if err := ro.bumpRevision(ctx); err != nil {
		return err
	}
	if specReplicas(ro.old) == 0 {
		// Nothing to roll: a change of replicas is a scale.
		return ro.scale(ctx, ro.newRS, ro.d.Spec.Replicas)
	}
	if want := ro.newReplicas(ro.newRS.Spec.Replicas); want != ro.newRS.Spec.Replicas {
		return ro.scale(ctx, ro.newRS, want)
	}
	return ro.scaleDownOld(ctx)
}

// newReplicas is what the new ReplicaSet, at current replicas, may grow
// to: up to the Deployment's replicas, with every ReplicaSet's pods
// together at most replicas + maxSurge (Kubernetes' NewRSNewReplicas).
func (ro *rollout) newReplicas(current int32) int32 {
	surge, _ := fenceposts(ro.d)
	total := specReplicas(ro.old) + current
	most := ro.d.Spec.Replicas + surge
	if total >= most {
		return current
	}
	return current + min(most-total, max(ro.d.Spec.Replicas-current, 0))
}

// scaleDownOld shrinks the old ReplicaSets while at least replicas -
// maxUnavailable pods stay available, as Kubernetes'
// reconcileOldReplicaSets: first the pods that are not available
// (cleanupUnhealthyReplicas), then available ones, oldest ReplicaSet
// first.
func (ro *rollout) scaleDownOld(ctx context.Context) error {
	_, unavailable := fenceposts(ro.d)
	minAvailable := ro.d.Spec.Replicas - unavailable
	newUnavailable := ro.newRS.Spec.Replicas - ro.newRS.Status.AvailableReplicas
	room := specReplicas(ro.all()) - minAvailable - newUnavailable
	if room <= 0 {
		return nil
	}
	for i := range ro.old {
		rs := &ro.old[i]
		unhealthy := rs.Spec.Replicas - rs.Status.AvailableReplicas
		if rs.Spec.Replicas == 0 || unhealthy <= 0 || room <= 0 {
			continue
		}
		n := min(room, unhealthy)
		if err := ro.scale(ctx, rs, rs.Spec.Replicas-n); err != nil {
			return err
		}
		room -= n
	}
	var available int32
	for _, rs := range ro.all() {
		available += rs.Status.AvailableReplicas
	}
	if available <= minAvailable {
		return nil
	}
	down := available - minAvailable
	for i := range ro.old {
		rs := &ro.old[i]
		if down <= 0 {
			break
		}
		if rs.Spec.Replicas == 0 {
			continue
		}
		n := min(rs.Spec.Replicas, down)
		if err := ro.scale(ctx, rs, rs.Spec.Replicas-n); err != nil {
			return err
		}
		down -= n
	}
	return nil
}

// recreate is one step of a Recreate rollout: the old ReplicaSets down
// to nothing; once none of their pods is left, the new one made or
// scaled to the Deployment's replicas.
func (ro *rollout) recreate(ctx context.Context) error {
	for i := range ro.old {
		if err := ro.scale(ctx, &ro.old[i], 0); err != nil {
			return err
		}
	}
	for _, rs := range ro.old {
		if rs.Status.Replicas > 0 {
			return nil // their pods still stop; their status brings the key back
		}
	}
	if ro.newRS == nil {
		return ro.create(ctx, ro.d.Spec.Replicas)
	}
	if err := ro.bumpRevision(ctx); err != nil {
		return err
	}
	return ro.scale(ctx, ro.newRS, ro.d.Spec.Replicas)
}

// cleanup deletes the oldest ReplicaSets with no pods beyond the
// Deployment's revisionHistoryLimit.
func (ro *rollout) cleanup(ctx context.Context) error {
	var idle []domain.ReplicaSet
	for _, rs := range ro.old {
		if rs.Spec.Replicas == 0 && rs.Status.Replicas == 0 && rs.Status.ObservedGeneration >= rs.Generation {
			idle = append(idle, rs)
		}
	}
	extra := len(idle) - int(ro.d.Spec.RevisionHistoryLimit)
	if extra <= 0 {
		return nil
	}
	slices.SortFunc(idle, func(a, b domain.ReplicaSet) int { return cmp.Compare(revisionOf(a), revisionOf(b)) })
	var errs []error
	for _, rs := range idle[:extra] {
		if _, err := ro.r.rsCommands.Execute(ctx, rs.Key(), domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: rs.ResourceVersion, Command: domain.DeleteReplicaSet{}}); err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete old replicaset %s of deployment %s: %w", rs, ro.d, err))
			continue
		}
		ro.r.log.Info("deleted an old replicaset beyond the revision history limit", zap.String("deployment", ro.d.String()), zap.String("replicaset", rs.Name))
		ro.old = slices.DeleteFunc(ro.old, func(o domain.ReplicaSet) bool { return o.Name == rs.Name })
	}
	return errors.Join(errs...)
}
