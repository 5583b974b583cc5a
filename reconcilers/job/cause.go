package job

import (
	"context"
	"slices"

	"herd/domain"
	"herd/reconcilers"
)

// statusCause is ctx whose status record names what moved the Job's
// status, as Kubernetes' controller reads a Job's status off the Job and
// its pods: the newest of its last change of spec (a new generation, a
// suspension, the pods it created or deleted for it, which follow that
// change) and the last change that moves a count of one of its pods as
// read (one coming, turning ready, finishing, being deleted). Pods it
// creates in this reconcile were not read; they follow its spec. The
// record that queued the key stays the cause when the log holds none.
func statusCause(ctx context.Context, j domain.Job, owned []domain.Pod) (context.Context, error) {
	return reconcilers.BecauseOfCount(ctx, owned, specChange(j))
}

// countCause is ctx whose count of finished pods names the change that
// finished the newest of them: a pod succeeding or failing, or one
// deleted before it finished. A count that only forgets pods gone keeps
// the record that queued the key.
func countCause(ctx context.Context, owned []domain.Pod, c domain.CountJobPods) (context.Context, error) {
	counted := slices.DeleteFunc(slices.Clone(owned), func(p domain.Pod) bool {
		return !slices.Contains(c.Succeeded, p.UID) && !slices.Contains(c.Failed, p.UID)
	})
	return reconcilers.BecauseOfCount(ctx, counted)
}

// specChange is the Job's last change of what it asks for, as read.
func specChange(j domain.Job) reconcilers.Change {
	return reconcilers.SpecChange(domain.JobStream(j.Namespace, j.Name), j.Version, domain.JobCreated{}, domain.JobChanged{})
}

// jobEnd is the last deletion, or request of one, of the Job called
// name: what its pods are collected or deleted in the foreground for.
func jobEnd(namespace, name string) reconcilers.Change {
	return reconcilers.Change{Stream: domain.JobStream(namespace, name),
		Types: []string{domain.JobDeleted{}.EventType(), domain.JobDeletionRequested{}.EventType()}}
}
