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

// countCause is ctx whose count of finished pods names the end of a pod
// it reflects, as read: of the pods it counts, the change that finished
// the newest of them (one succeeding or failing, or deleted before it
// finished: the deletion, where its end began, and not the stop herd's
// termination made for it, whichever the count read; LossOrigin), or
// when only the Job's own changes ended them (pods it
// stopped itself), the newest of those; of a count that only forgets
// pods gone, the newest of their finalizations, found in the log. The
// record that queued the key stays the cause only when the log holds
// none: a reconcile a resync started has no such record, and may read
// a pod's end before that record reaches the reconciler.
func countCause(ctx context.Context, j domain.Job, owned []domain.Pod, c domain.CountJobPods) (context.Context, error) {
	counted := slices.DeleteFunc(slices.Clone(owned), func(p domain.Pod) bool {
		return !slices.Contains(c.Succeeded, p.UID) && !slices.Contains(c.Failed, p.UID) && !slices.Contains(c.Ignored, p.UID)
	})
	rec, ok, err := reconcilers.CountCause(ctx, counted)
	if err == nil && ok {
		rec, err = reconcilers.LossOrigin(ctx, rec)
	}
	if err == nil && !ok {
		rec, ok, err = reconcilers.EndCause(ctx, counted)
	}
	if err == nil && !ok && len(c.Forget) > 0 {
		rec, ok, err = reconcilers.FinalizationCause(ctx, j.Namespace, reconcilers.GeneratedBase(j.Name), c.Forget)
	}
	if err != nil || !ok {
		return ctx, err
	}
	return reconcilers.Because(ctx, rec), nil
}

// stoppedCause is ctx whose count or release of stopped pods names their
// end: for a failing Job's, the newest of the deletions the reconciler
// itself just made of stopped, as they stand after it; for those it lets
// go uncounted, the deletion that stopped them. Their earlier changes
// (running, turning ready) ended nothing.
func stoppedCause(ctx context.Context, stopped []domain.Pod) (context.Context, error) {
	rec, ok, err := reconcilers.EndCause(ctx, stopped)
	if err != nil || !ok {
		return ctx, err
	}
	return reconcilers.Because(ctx, rec), nil
}

// deletedCause is ctx whose collection of the pods of a Job called name
// that is gone names that Job's deletion: the newest in its stream up to
// upTo, the version read (0: the whole stream; a Job of the name now is
// a later one, not deleted). The record that queued the key stays the
// cause when the log holds none.
func deletedCause(ctx context.Context, namespace, name string, upTo int64) (context.Context, error) {
	return reconcilers.BecauseOf(ctx, reconcilers.Change{Stream: domain.JobStream(namespace, name), UpTo: upTo,
		Types: []string{domain.JobDeleted{}.EventType()}})
}

// foregroundCause is ctx whose deletion of the pods of j, deleted in the
// foreground, names the request to delete it, as read.
func foregroundCause(ctx context.Context, j domain.Job) (context.Context, error) {
	return reconcilers.BecauseOf(ctx, reconcilers.Change{Stream: domain.JobStream(j.Namespace, j.Name), UpTo: j.Version,
		Types: []string{domain.JobDeletionRequested{}.EventType()}})
}

// outcomeCause is ctx whose stopping of the pods of j, whose outcome st
// says is known, names the count that made it known: its last count of
// a failure when its failures passed its backoff limit, or of a success
// when it met its success criteria, or the count whose failure a FailJob
// rule of its pod failure policy matched; or, for a Job past its deadline, the
// change of spec its deadline counts from (its creation, which asked for
// the deadline, or its resumption, which started the count again). An
// outcome its running pods' restarts decided (restarting on failure)
// names the status report whose restart reached the backoff limit.
func outcomeCause(ctx context.Context, j domain.Job, st domain.JobStatus, running []domain.Pod) (context.Context, error) {
	var made func(domain.JobPodsCounted) bool
	failure, _ := st.Condition(domain.JobFailureTarget)
	backoff := st.Is(domain.JobFailureTarget) && failure.Reason == domain.JobReasonBackoffLimitExceeded
	switch {
	case backoff && j.Status.Failed > j.Spec.BackoffLimit:
		made = func(c domain.JobPodsCounted) bool { return len(c.Failed) > 0 }
	case backoff && pastBackoffLimitOnFailure(j, running):
		rec, ok, err := reconcilers.RestartCause(ctx, running, restartLimit(j))
		if err != nil || !ok {
			return ctx, err
		}
		return reconcilers.Because(ctx, rec), nil
	case st.Is(domain.JobFailureTarget) && failure.Reason == domain.JobReasonPodFailurePolicy:
		made = func(c domain.JobPodsCounted) bool { return c.FailJob != "" }
	case st.Is(domain.JobSuccessCriteriaMet):
		made = func(c domain.JobPodsCounted) bool { return len(c.Succeeded) > 0 }
	case st.Is(domain.JobFailureTarget) && failure.Reason == domain.JobReasonDeadlineExceeded:
		return reconcilers.BecauseOf(ctx, specChange(j))
	default:
		return ctx, nil
	}
	return reconcilers.BecauseOf(ctx, reconcilers.ChangeOf(domain.JobStream(j.Namespace, j.Name), j.Version, made))
}

// expiryCause is ctx whose deletion of j, finished longer ago than its
// TTL, names the record of its status that finished it: the newest, as
// read, that says it finished (those after the first still say when).
func expiryCause(ctx context.Context, j domain.Job) (context.Context, error) {
	return reconcilers.BecauseOf(ctx, reconcilers.ChangeOf(domain.JobStream(j.Namespace, j.Name), j.Version,
		func(e domain.JobStatusRecorded) bool { return e.Status.Finished() }))
}

// surplusCause is ctx whose deletion of running pods of j beyond what it
// wants names what made them too many: the newest of its change of spec
// (a lower parallelism or completions) and the arrival of a pod it did
// not make (created by hand with the Job as its controller, or adopted).
// ctx as it was when the log holds neither.
func surplusCause(ctx context.Context, j domain.Job, running []domain.Pod) (context.Context, error) {
	rec, ok, err := reconcilers.SurplusCause(ctx, running, specChange(j))
	if err != nil || !ok {
		return ctx, err
	}
	return reconcilers.Because(ctx, rec), nil
}

// specChange is the Job's last change of what it asks for, as read.
func specChange(j domain.Job) reconcilers.Change {
	return reconcilers.SpecChange(domain.JobStream(j.Namespace, j.Name), j.Version, domain.JobCreated{}, domain.JobChanged{})
}

// createCause is ctx whose new pods name why the Job wants more than
// run: the newest of its last change of spec (its creation, a larger
// parallelism, its resumption), its last count of pods that finished (a
// pod that succeeded with completions still to make; one that failed, or
// was evicted or deleted before it finished, whose retry this is) and
// the loss of a pod taken from it by another and gone before this pass
// read its pods (its owners or labels changed), traced back to where
// that loss began, when it began after the first two. A pod made after
// a drain evicted its predecessor so names the count of that failure,
// and the count the eviction. ctx as it was when the log holds none.
func createCause(ctx context.Context, j domain.Job, owned []domain.Pod) (context.Context, error) {
	rec, _, err := reconcilers.LastChange(ctx, reconcilers.Change{Stream: domain.JobStream(j.Namespace, j.Name), UpTo: j.Version,
		Types: []string{domain.JobCreated{}.EventType(), domain.JobChanged{}.EventType(), domain.JobPodsCounted{}.EventType()},
		Made: func(ev domain.Event) bool {
			c, ok := ev.(domain.JobPodsCounted)
			return !ok || len(c.Succeeded)+len(c.Failed)+len(c.Ignored) > 0 // one that only forgets gone pods wants none
		}})
	if err != nil {
		return ctx, err
	}
	gone, ok, err := reconcilers.GoneLossCause(ctx, j.Namespace, reconcilers.GeneratedBase(j.Name), j.UID, reconcilers.UIDs(owned), rec.Position)
	if err != nil {
		return ctx, err
	}
	if ok {
		origin, err := reconcilers.LossOrigin(ctx, gone)
		if err != nil {
			return ctx, err
		}
		// A loss that began before the Job's last change or count (an
		// eviction, whose pod herd's termination stopped later) is one
		// that count already answered: the count stays the cause.
		rec, _ = reconcilers.Newest(rec, origin)
	}
	if rec.ID == "" {
		return ctx, nil
	}
	return reconcilers.Because(ctx, rec), nil
}
