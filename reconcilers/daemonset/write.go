package daemonset

import (
	"context"
	"errors"
	"fmt"

	"herd/domain"
	"herd/reconcilers"
)

// maxBatch is the most pods one unit of work creates or deletes: a
// fleet's DaemonSet is written in commits of this size, as the
// scheduler binds its pods.
const maxBatch = 500

// create creates one pod of ds on each of nodes, at most
// cfg.BurstReplicas, in batches that start at one and double while they
// succeed, up to maxBatch, as Kubernetes' slowStartBatch does: a
// template every creation refuses fails once, not once per node. It
// returns the pods created.
func (r *Reconciler) create(ctx context.Context, ds domain.DaemonSet, nodes []string) ([]domain.Pod, error) {
	// The pods follow what the DaemonSet asks for: its last change of
	// spec.
	ctx, err := reconcilers.BecauseOf(ctx, reconcilers.SpecChange(domain.DaemonSetStream(ds.Namespace, ds.Name), ds.Version, domain.DaemonSetCreated{}, domain.DaemonSetChanged{}))
	if err != nil {
		return nil, err
	}
	nodes = nodes[:min(len(nodes), r.cfg.BurstReplicas)]
	var created []domain.Pod
	for size := 1; len(created) < len(nodes); size = min(2*size, maxBatch) {
		batch := make([]domain.Keyed[domain.PodCommand], min(size, len(nodes)-len(created)))
		for i := range batch {
			c := podFor(ds, nodes[len(created)+i], r.ids.PodName(ds.Name), r.ids.UID())
			batch[i] = domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: c.Namespace, Name: c.Name}, Command: c}
		}
		states, _, err := r.podCommands.ExecuteBatch(ctx, batch)
		if err != nil {
			r.controlled.Log("created pods", ds.String(), created)
			err = fmt.Errorf("create pods of daemonset %s: %w", ds, err)
			if errors.Is(err, domain.ErrInvalid) {
				// The template makes pods the domain refuses; only a
				// change of the DaemonSet, which brings the key back,
				// can help.
				return created, reconcilers.Terminal(err)
			}
			// A name taken already among them: the next reconcile draws
			// new ones.
			return created, err
		}
		created = append(created, states...)
	}
	r.controlled.Log("created pods", ds.String(), created)
	return created, nil
}

// delete deletes pods of ds, at most cfg.BurstReplicas, in units of work
// of maxBatch, each with its own grace period.
func (r *Reconciler) delete(ctx context.Context, ds domain.DaemonSet, pods []domain.Pod) error {
	pods = pods[:min(len(pods), r.cfg.BurstReplicas)]
	for start := 0; start < len(pods); start += maxBatch {
		chunk := pods[start:min(start+maxBatch, len(pods))]
		cmds := make([]domain.Keyed[domain.PodCommand], len(chunk))
		for i, p := range chunk {
			cmds[i] = reconcilers.KeyedPod(p, domain.DeletePod{})
		}
		if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
			return fmt.Errorf("delete pods of daemonset %s: %w", ds, err)
		}
	}
	r.controlled.Log("deleted pods", ds.String(), pods)
	return nil
}
