package daemonset

import (
	"context"
	"errors"
	"fmt"

	"herd/domain"
	"herd/events"
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
// returns the pods created. Each pod names its node's cause
// (createCauses).
func (r *Reconciler) create(ctx context.Context, w world, owned []domain.Pod, nodes []string) ([]domain.Pod, error) {
	ds := w.ds
	nodes = nodes[:min(len(nodes), r.cfg.BurstReplicas)]
	causes, err := createCauses(ctx, w, owned, nodes)
	if err != nil {
		return nil, fmt.Errorf("cause of daemonset %s's pods: %w", ds, err)
	}
	var created []domain.Pod
	for size := 1; len(created) < len(nodes); size = min(2*size, maxBatch) {
		batch := make([]domain.Keyed[domain.PodCommand], min(size, len(nodes)-len(created)))
		named := make(map[string]events.Record, len(batch))
		for i := range batch {
			node := nodes[len(created)+i]
			c := podFor(ds, node, r.ids.PodName(ds.Name), r.ids.UID())
			batch[i] = domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: c.Namespace, Name: c.Name}, Command: c}
			if rec, ok := causes[node]; ok {
				named[domain.PodStream(c.Namespace, c.Name)] = rec
			}
		}
		states, _, err := r.podCommands.ExecuteBatch(events.WithStreamCauses(ctx, named), batch)
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
