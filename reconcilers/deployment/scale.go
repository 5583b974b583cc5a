package deployment

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strconv"

	"herd/domain"
)

// The annotations Kubernetes' Deployment controller keeps on each of its
// ReplicaSets whenever it scales one: the Deployment's replicas, and its
// replicas plus maxSurge, at that moment. A Deployment whose replicas
// differ from an active ReplicaSet's first has been scaled since
// (scaling); the second is what each ReplicaSet's share of that scale is
// reckoned from (shareOf).
const (
	desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	maxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
)

// replicasAnnotations are rs's annotations with the Deployment's replicas
// and its replicas plus maxSurge; changed says whether they differed.
// rs's own map is not changed.
func replicasAnnotations(d domain.Deployment, rs domain.ReplicaSet) (out map[string]string, changed bool) {
	surge, _ := fenceposts(d)
	desired := strconv.FormatInt(int64(d.Spec.Replicas), 10)
	most := strconv.FormatInt(int64(d.Spec.Replicas+surge), 10)
	if rs.Annotations[desiredReplicasAnnotation] == desired && rs.Annotations[maxReplicasAnnotation] == most {
		return rs.Annotations, false
	}
	out = maps.Clone(rs.Annotations)
	if out == nil {
		out = map[string]string{}
	}
	out[desiredReplicasAnnotation], out[maxReplicasAnnotation] = desired, most
	return out, true
}

// annotatedReplicas is rs's annotation key as a number; false when it
// has none, or one that is not a number.
func annotatedReplicas(rs domain.ReplicaSet, key string) (int32, bool) {
	n, err := strconv.ParseInt(rs.Annotations[key], 10, 32)
	return int32(n), err == nil
}

// active are the ReplicaSets that ask for pods, the old ones first (oldest
// first) and the new one last.
func (ro *rollout) active() []*domain.ReplicaSet {
	var out []*domain.ReplicaSet
	for i := range ro.old {
		if ro.old[i].Spec.Replicas > 0 {
			out = append(out, &ro.old[i])
		}
	}
	if ro.newRS != nil && ro.newRS.Spec.Replicas > 0 {
		out = append(out, ro.newRS)
	}
	return out
}

// scaling says whether the Deployment was scaled since its active
// ReplicaSets last were: one of them is annotated with other desired
// replicas than the Deployment's (Kubernetes' isScalingEvent). A
// ReplicaSet without the annotation (one recorded before herd kept it)
// says nothing.
func (ro *rollout) scaling() bool {
	for _, rs := range ro.active() {
		if desired, ok := annotatedReplicas(*rs, desiredReplicasAnnotation); ok && desired != ro.d.Spec.Replicas {
			return true
		}
	}
	return false
}

// proportional scales a paused Deployment, or one scaled since its
// ReplicaSets last were, without moving its rollout on, as Kubernetes'
// DeploymentController.scale does: the one active ReplicaSet (or, with
// none, the newest) takes the Deployment's replicas; a new ReplicaSet
// that is saturated (all its pods available at the desired count) takes
// the old ones to nothing; otherwise, in a rolling update, what the
// ReplicaSets may ask for together (replicas + maxSurge) is shared out
// among the active ones in proportion to their size, the rest to the
// largest, so that a scale does not hasten or hold back the rollout.
func (ro *rollout) proportional(ctx context.Context) error {
	if ro.newRS != nil {
		if err := ro.bumpRevision(ctx); err != nil {
			return err
		}
	}
	d := ro.d
	active := ro.active()
	switch {
	case len(active) == 0 && ro.newRS != nil:
		return ro.scale(ctx, ro.newRS, d.Spec.Replicas)
	case len(active) == 0 && len(ro.old) > 0:
		return ro.scale(ctx, &ro.old[len(ro.old)-1], d.Spec.Replicas) // the newest (split orders them)
	case len(active) == 0:
		return nil
	case len(active) == 1:
		// Its annotations are brought up to date even when its size is
		// right already (one scaled by hand to the Deployment's new
		// replicas): otherwise every reconcile would see a scale, and
		// never roll a new template out.
		return ro.resize(ctx, active[0], d.Spec.Replicas)
	}
	if ro.saturated() {
		for _, rs := range active {
			if rs != ro.newRS {
				if err := ro.scale(ctx, rs, 0); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if d.Spec.Strategy.Type != domain.RollingUpdateStrategy {
		return nil
	}
	var allowed int32
	if d.Spec.Replicas > 0 {
		surge, _ := fenceposts(d)
		allowed = d.Spec.Replicas + surge
	}
	toAdd := allowed
	for _, rs := range active {
		toAdd -= rs.Spec.Replicas
	}
	// The largest first; of the same size, the newer first when adding,
	// the older first when taking away (Kubernetes' ReplicaSetsBySizeNewer
	// and ReplicaSetsBySizeOlder).
	slices.SortStableFunc(active, func(a, b *domain.ReplicaSet) int {
		if c := cmp.Compare(b.Spec.Replicas, a.Spec.Replicas); c != 0 {
			return c
		}
		older := cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Name, b.Name))
		if toAdd > 0 {
			return -older
		}
		return older
	})
	sizes := make([]int32, len(active))
	var added int32
	for i, rs := range active {
		share := ro.shareOf(*rs, toAdd, added)
		sizes[i] = rs.Spec.Replicas + share
		added += share
	}
	if toAdd != 0 {
		sizes[0] = max(sizes[0]+toAdd-added, 0)
	}
	for i, rs := range active {
		if err := ro.resize(ctx, rs, sizes[i]); err != nil {
			return err
		}
	}
	return nil
}

// saturated says whether the new ReplicaSet runs the Deployment's
// replicas, all available, and was last scaled for them (Kubernetes'
// IsSaturated).
func (ro *rollout) saturated() bool {
	rs, want := ro.newRS, ro.d.Spec.Replicas
	if rs == nil {
		return false
	}
	desired, ok := annotatedReplicas(*rs, desiredReplicasAnnotation)
	return ok && desired == want && rs.Spec.Replicas == want && rs.Status.AvailableReplicas == want
}

// shareOf is how many pods rs gains (or, below 0, loses) of toAdd, added
// having gone to the ReplicaSets before it (Kubernetes'
// GetReplicaSetProportion): its size scaled as the Deployment's replicas
// plus maxSurge were (its max-replicas annotation, or without one the
// Deployment's pods now) to what they are, never more than is left to
// share. A ReplicaSet with no pods gets none.
func (ro *rollout) shareOf(rs domain.ReplicaSet, toAdd, added int32) int32 {
	if rs.Spec.Replicas == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	d := ro.d
	var fraction int32
	if d.Spec.Replicas == 0 {
		fraction = -rs.Spec.Replicas
	} else {
		surge, _ := fenceposts(d)
		before, ok := annotatedReplicas(rs, maxReplicasAnnotation)
		if !ok || before == 0 {
			before = d.Status.Replicas
		}
		if before == 0 {
			return 0
		}
		fraction = int32(math.Round(float64(rs.Spec.Replicas)*float64(d.Spec.Replicas+surge)/float64(before))) - rs.Spec.Replicas
	}
	left := toAdd - added
	if toAdd > 0 {
		return min(fraction, left)
	}
	return max(fraction, left)
}
