package replicaset

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
)

// collect is the garbage collector of the pods whose controller, a
// ReplicaSet called rs, is gone, as Kubernetes' background cascading
// deletion: a pod with no other owner is deleted, finished or not, with
// its own grace period; a pod with other owners only loses its dangling
// reference, as the garbage collector keeps a dependent one of whose
// owners still exists (herd does not read those owners: it takes them to
// exist). The pods of the ReplicaSet of UID orphan, deleted with its
// dependents orphaned, all only lose their reference to it.
func (r *Reconciler) collect(ctx context.Context, rs string, abandoned []domain.Pod, orphan string) error {
	if len(abandoned) == 0 {
		return nil
	}
	cmds := make([]domain.Keyed[domain.PodCommand], len(abandoned))
	for i, p := range abandoned {
		ctrl, _ := p.Controller()
		if len(p.Owners) > 1 || orphan != "" && ctrl.UID == orphan {
			cmds[i] = keyed(p, domain.ReleasePod{UID: ctrl.UID})
		} else {
			cmds[i] = keyed(p, domain.DeletePod{})
		}
	}
	if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
		return fmt.Errorf("collect pods of replicaset %s, which is gone: %w", rs, err)
	}
	r.log.Info("collected pods of a replicaset that is gone", zap.String("replicaset", rs), zap.Strings("pods", podNames(abandoned)),
		zap.Bool("orphaned", orphan != ""))
	return nil
}

// deleteForeground deletes the pods of rs, which is being deleted in the
// foreground, and deletes rs once none is left, finishing or not: what
// the foregroundDeletion finalizer waits for in Kubernetes.
func (r *Reconciler) deleteForeground(ctx context.Context, rs domain.ReplicaSet, pods []domain.Pod) error {
	var left, stop []domain.Pod
	for _, p := range pods {
		if ctrl, ok := p.Controller(); ok && ctrl.UID == rs.UID && p.Exists() {
			left = append(left, p)
			if !p.Terminating() {
				stop = append(stop, p)
			}
		}
	}
	if len(stop) > 0 {
		cmds := make([]domain.Keyed[domain.PodCommand], len(stop))
		for i, p := range stop {
			cmds[i] = keyed(p, domain.DeletePod{})
		}
		if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
			return fmt.Errorf("delete pods of replicaset %s, deleted in the foreground: %w", rs, err)
		}
		r.logPods("deleted pods of a replicaset deleted in the foreground", rs.String(), stop)
	}
	if len(left) > 0 {
		return nil // their finalization brings the key back
	}
	if _, err := r.rsCommands.Execute(ctx, rs.Key(), domain.FinishReplicaSetDeletion{}); err != nil && !errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("delete replicaset %s, its pods gone: %w", rs, err)
	}
	return nil
}
