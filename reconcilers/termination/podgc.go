package termination

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// verdict is pod garbage collection's judgement of a terminating pod.
type verdict struct {
	// collect: finalize the pod now, whatever its runtime says.
	collect bool
	// why, in words, for the log.
	why string
	// at is when the pod will be collected if nothing changes; zero when
	// no time alone will do it.
	at time.Time
}

// collect judges a pod being deleted by Kubernetes' pod GC rules, and
// herd's own for unreachable nodes: a pod never scheduled, or whose node is
// gone or cannot run herd's pods, goes now; one whose node is not Ready
// goes once the GC timeout has passed since its deadline or since the node
// stopped being Ready, whichever is later.
func collect(p domain.Pod, node domain.Node, found bool, now time.Time, timeout time.Duration) verdict {
	switch {
	case p.Spec.NodeName == "":
		return verdict{collect: true, why: "never scheduled"}
	case !found:
		return verdict{collect: true, why: fmt.Sprintf("node %s no longer exists", p.Spec.NodeName)}
	case node.Kind == domain.KindKubelet || node.Kind == domain.KindRP2040:
		return verdict{collect: true, why: fmt.Sprintf("node %s is a %s node, which runs none of herd's pods", node.Name, node.Kind)}
	}
	since := node.RegisteredAt
	if c, ok := node.Condition(domain.ConditionReady); ok {
		if c.Status == domain.ConditionTrue {
			return verdict{}
		}
		since = c.LastTransitionTime
	}
	at := p.Deletion.Deadline
	if since.After(at) {
		at = since
	}
	at = at.Add(timeout)
	if now.Before(at) {
		return verdict{at: at}
	}
	return verdict{collect: true, why: fmt.Sprintf("node %s has not been Ready since %s", node.Name, since.Format(time.RFC3339))}
}

// deleteOrphan deletes a pod bound to a node that no longer exists, at
// once and with DisruptionTarget DeletionByPodGC, as Kubernetes' pod GC
// does with orphaned pods.
func (r *Reconciler) deleteOrphan(ctx context.Context, p domain.Pod) error {
	zero := int64(0)
	return r.garbageCollect(ctx, p, fmt.Sprintf("node %s no longer exists", p.Spec.NodeName),
		domain.TargetPodDisruption{Reason: domain.ReasonDeletionByPodGC, Message: "PodGC: node no longer exists"},
		domain.DeletePod{GracePeriodSeconds: &zero},
		domain.FinalizePod{Reason: domain.ReasonDeletionByPodGC})
}

// garbageCollect writes cmds and says what became of the pod.
func (r *Reconciler) garbageCollect(ctx context.Context, p domain.Pod, why string, cmds ...domain.PodCommand) error {
	got, err := r.write(ctx, p, cmds...)
	switch {
	case err != nil:
		return err
	case got.Finalized:
		r.log.Info("pod garbage-collected", zap.String("pod", p.Key()), zap.String("why", why))
	case len(got.Finalizers) > 0:
		r.log.Debug("pod due for garbage collection waits for its finalizers", zap.String("pod", p.Key()),
			zap.String("why", why), zap.Strings("finalizers", got.Finalizers))
	}
	return nil
}
