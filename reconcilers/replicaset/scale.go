package replicaset

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"herd/domain"
	"herd/reconcilers"
)

// scale creates or deletes pods until rs controls Spec.Replicas active
// ones, at most cfg.BurstReplicas in one reconcile, and returns the
// active pods it controls afterwards: owned, less those it deleted, and
// those it created. read are the pods of rs's namespace as read.
func (r *Reconciler) scale(ctx context.Context, rs domain.ReplicaSet, owned, read []domain.Pod) ([]domain.Pod, error) {
	diff := len(owned) - int(rs.Spec.Replicas)
	spec := reconcilers.SpecChange(domain.ReplicaSetStream(rs.Namespace, rs.Name), rs.Version,
		domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{})
	switch {
	case diff < 0:
		// The pods it creates replace those it lost since its last
		// change of spec or scale (evicted, stopped, relabelled), or
		// follow that change: whichever came last. A pod lost and gone
		// before this pass read the namespace is found in the log. A
		// loss that answered another of its pod's (the stop of an
		// evicted pod) names that one.
		rec, _, err := reconcilers.ReplacementCause(ctx, lost(rs, owned, read), spec)
		if err != nil {
			return owned, err
		}
		gone, _, err := reconcilers.GoneLossCause(ctx, rs.Namespace, reconcilers.GeneratedBase(rs.Name), rs.UID, reconcilers.UIDs(owned), rec.Position)
		if err != nil {
			return owned, err
		}
		if rec, ok := reconcilers.Newest(rec, gone); ok {
			if rec, err = reconcilers.LossOrigin(ctx, rec); err != nil {
				return owned, err
			}
			ctx = reconcilers.Because(ctx, rec)
		}
	case diff > 0:
		// The pods it deletes follow what it asks for.
		var err error
		if ctx, err = reconcilers.BecauseOf(ctx, spec); err != nil {
			return owned, err
		}
	}
	switch {
	case diff < 0:
		created, err := r.create(ctx, rs, min(-diff, r.cfg.BurstReplicas))
		return append(owned, created...), err
	case diff > 0:
		doomed := deletionOrder(owned)[:min(diff, r.cfg.BurstReplicas)]
		if err := r.delete(ctx, rs, doomed); err != nil {
			return owned, err
		}
		return slices.DeleteFunc(owned, func(p domain.Pod) bool {
			return slices.ContainsFunc(doomed, func(d domain.Pod) bool { return d.UID == p.UID })
		}), nil
	}
	return owned, nil
}

// lost are the pods read that rs controls and no longer counts as its
// own: finished, being deleted, or no longer matched by its selector.
func lost(rs domain.ReplicaSet, owned, read []domain.Pod) []domain.Pod {
	var out []domain.Pod
	for _, p := range read {
		if o, ok := p.Controller(); !ok || o.UID != rs.UID {
			continue
		}
		if !slices.ContainsFunc(owned, func(q domain.Pod) bool { return q.UID == p.UID }) {
			out = append(out, p)
		}
	}
	return out
}

// create creates n pods from rs's template, in batches that start at
// one and double while they succeed, as Kubernetes' slowStartBatch does:
// a template every creation refuses fails once, not n times. It returns
// the pods created.
func (r *Reconciler) create(ctx context.Context, rs domain.ReplicaSet, n int) ([]domain.Pod, error) {
	var created []domain.Pod
	for size := 1; len(created) < n; size *= 2 {
		batch := make([]domain.Keyed[domain.PodCommand], min(size, n-len(created)))
		for i := range batch {
			c := domain.PodFromTemplate(rs.Namespace, r.IDs.PodName(rs.Name), r.IDs.UID(), rs.Spec.Template, rs.OwnerReference())
			batch[i] = domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: c.Namespace, Name: c.Name}, Command: c}
		}
		states, _, err := r.podCommands.ExecuteBatch(ctx, batch)
		if err != nil {
			r.Controlled.Log("created pods", rs.String(), created)
			err = fmt.Errorf("create pods of replicaset %s: %w", rs, err)
			if errors.Is(err, domain.ErrInvalid) {
				// The template makes pods the domain refuses; only a
				// change of the ReplicaSet, which brings the key back,
				// can help.
				return created, reconcilers.Terminal(err)
			}
			// A name taken already among them: the next reconcile draws
			// new ones.
			return created, err
		}
		created = append(created, states...)
	}
	r.Controlled.Log("created pods", rs.String(), created)
	return created, nil
}

// delete deletes pods, those of rs it chose, in one unit of work, each
// with its own grace period, as the ReplicaSet controller deletes them.
func (r *Reconciler) delete(ctx context.Context, rs domain.ReplicaSet, pods []domain.Pod) error {
	cmds := make([]domain.Keyed[domain.PodCommand], len(pods))
	for i, p := range pods {
		cmds[i] = reconcilers.KeyedPod(p, domain.DeletePod{})
	}
	if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
		return fmt.Errorf("delete surplus pods of replicaset %s: %w", rs, err)
	}
	r.Controlled.Log("deleted surplus pods", rs.String(), pods)
	return nil
}
