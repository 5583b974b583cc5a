package zones

import (
	"context"

	"herd/domain"
	"herd/reconcilers"
)

// cause is ctx whose commands name as their cause the change a report
// follows; looked up only when there is something to report, as a
// resync of a running pod reports nothing.
type cause func(ctx context.Context) (context.Context, error)

// started is the cause of a pod's start, or of its failure to start: the
// last of the gates run reads to open, as read — the pod's binding to
// its node, its address from IPAM, its node's Ready condition turning
// True. The record that queued the key stays the cause when the log
// holds none of them (`herd agent`, which reads herd through its API,
// keeps it).
func started(p domain.Pod, node domain.Node) cause {
	pod := domain.PodStream(p.Namespace, p.Name)
	return func(ctx context.Context) (context.Context, error) {
		return reconcilers.BecauseOfNewest(ctx,
			reconcilers.ChangeOf[domain.PodScheduled](pod, p.Version, nil),
			reconcilers.ChangeOf[domain.PodIPAssigned](pod, p.Version, nil),
			readyTurnedTrue(node))
	}
}

// readyTurnedTrue is the node's Ready condition turning True, as read.
func readyTurnedTrue(node domain.Node) reconcilers.Change {
	return reconcilers.ChangeOf(domain.NodeStream(node.Name), node.Version, func(e domain.NodeConditionChanged) bool {
		return e.Type == domain.ConditionReady && e.Status == domain.ConditionTrue
	})
}

// backOnline is the cause of a running pod reported Ready again: its
// node's Ready condition turning True, as read.
func backOnline(node domain.Node) cause {
	return func(ctx context.Context) (context.Context, error) {
		return reconcilers.BecauseOf(ctx, readyTurnedTrue(node))
	}
}

// ended is the cause of a report of how a running pod ended (its
// containers exited, its runtime failed it or lost it): the report of
// it running, as read, since which its containers ran to that end. The
// record that queued the key stays the cause when the log holds none.
func ended(p domain.Pod) cause {
	return func(ctx context.Context) (context.Context, error) {
		return reconcilers.BecauseOf(ctx, reconcilers.ChangeOf(domain.PodStream(p.Namespace, p.Name), p.Version, func(e domain.PodStatusUpdated) bool {
			return e.Status.Phase == domain.PodRunning
		}))
	}
}
