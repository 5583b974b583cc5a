package replicaset

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
)

// collect is the garbage collector of the pods whose controller, a
// ReplicaSet called rs, is gone (reconcilers.CollectCommands); those of
// the one of UID orphan only lose their reference to it.
func (r *Reconciler) collect(ctx context.Context, rs string, abandoned []domain.Pod, orphan string) error {
	if len(abandoned) == 0 {
		return nil
	}
	if _, _, err := r.podCommands.ExecuteBatch(ctx, reconcilers.CollectCommands(abandoned, orphan)); err != nil {
		return fmt.Errorf("collect pods of replicaset %s, which is gone: %w", rs, err)
	}
	r.log.Info("collected pods of a replicaset that is gone", zap.String("replicaset", rs), zap.Strings("pods", podNames(abandoned)),
		zap.Bool("orphaned", orphan != ""))
	return nil
}

// deleteForeground deletes the pods of rs, which is being deleted in the
// foreground. The garbage collector deletes rs once every dependent that
// blocks it is gone, these pods and any other (Kubernetes' collector
// likewise removes the foregroundDeletion finalizer).
func (r *Reconciler) deleteForeground(ctx context.Context, rs domain.ReplicaSet, pods []domain.Pod) error {
	cmds, stopped := reconcilers.ForegroundCommands(pods, rs.UID)
	if len(cmds) > 0 {
		if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
			return fmt.Errorf("delete pods of replicaset %s, deleted in the foreground: %w", rs, err)
		}
		r.logPods("deleted pods of a replicaset deleted in the foreground", rs.String(), stopped)
	}
	return nil
}
