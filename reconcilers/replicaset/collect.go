package replicaset

import (
	"context"
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
// exist).
func (r *Reconciler) collect(ctx context.Context, rs string, abandoned []domain.Pod) error {
	if len(abandoned) == 0 {
		return nil
	}
	cmds := make([]domain.Keyed[domain.PodCommand], len(abandoned))
	for i, p := range abandoned {
		ctrl, _ := p.Controller()
		if len(p.Owners) > 1 {
			cmds[i] = keyed(p, domain.ReleasePod{UID: ctrl.UID})
		} else {
			cmds[i] = keyed(p, domain.DeletePod{})
		}
	}
	if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
		return fmt.Errorf("collect pods of replicaset %s, which is gone: %w", rs, err)
	}
	r.log.Info("collected pods of a replicaset that is gone", zap.String("replicaset", rs), zap.Strings("pods", podNames(abandoned)))
	return nil
}
