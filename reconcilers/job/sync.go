package job

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"herd/domain"
	"herd/reconcilers"
)

// Kubernetes' messages on the conditions the reconciler sets.
const (
	msgBackoffLimit = "Job has reached the specified backoff limit"
	msgDeadline     = "Job was active longer than specified deadline"
	msgCompletions  = "Reached expected number of succeeded pods"
	msgSuspended    = "Job suspended"
	msgResumed      = "Job resumed"
)

// sync counts the Job's finished pods, decides where it stands, creates
// or deletes pods to match, and records its status; a status is
// recorded even when a pod write failed, and the failure returned after
// it. It returns when to look again for what no event brings: a
// deadline, the end of a backoff, a TTL.
func (r *Reconciler) sync(ctx context.Context, j domain.Job, owned []domain.Pod) (reconcilers.Result, error) {
	if c := countFinished(j, owned); len(c.Succeeded)+len(c.Failed)+len(c.Ignored)+len(c.Forget) > 0 {
		cctx, err := countCause(ctx, j, owned, c)
		if err != nil {
			return reconcilers.Result{}, fmt.Errorf("cause of job %s's count: %w", j, err)
		}
		counted, err := r.jobCommands.Execute(cctx, j.Key(), c)
		if err != nil {
			return reconcilers.Result{}, r.jobGone(fmt.Errorf("count pods of job %s: %w", j, err))
		}
		j = counted
	}
	if err := r.releaseDone(ctx, j, owned); err != nil {
		return reconcilers.Result{}, err
	}
	now := r.Clock.Now()
	running := reconcilers.Filter(owned, active)
	if j.Status.Finished() {
		return r.finished(ctx, j, owned, running, now)
	}
	st := j.Status
	var errs []error
	var next time.Time
	decided := st.Is(domain.JobFailureTarget) || st.Is(domain.JobSuccessCriteriaMet)
	policyMsg, policyMet := domain.MetSuccessPolicy(j)
	switch reason := failedNow(j, st, running, now); {
	case decided:
	case !j.Spec.Suspend && reason != "":
		st = st.WithCondition(domain.JobCondition{Type: domain.JobFailureTarget, Status: domain.ConditionTrue, Reason: reason, Message: failureMessage(reason)}, now)
	case !j.Spec.Suspend && policyMet:
		st = st.WithCondition(domain.JobCondition{Type: domain.JobSuccessCriteriaMet, Status: domain.ConditionTrue,
			Reason: domain.JobReasonSuccessPolicy, Message: policyMsg}, now)
	case succeeded(j, len(running)):
		st = st.WithCondition(domain.JobCondition{Type: domain.JobSuccessCriteriaMet, Status: domain.ConditionTrue,
			Reason: domain.JobReasonCompletionsReached, Message: msgCompletions}, now)
	}
	switch {
	case st.Is(domain.JobFailureTarget) || st.Is(domain.JobSuccessCriteriaMet):
		// The outcome is known: stop what runs, and finish once every pod
		// has stopped.
		octx := ctx
		if len(running) > 0 {
			var err error
			if octx, err = outcomeCause(ctx, j, st, running); err != nil {
				return reconcilers.Result{}, fmt.Errorf("cause of job %s's outcome: %w", j, err)
			}
		}
		if deleted, err := r.delete(octx, j, "deleted the pods of a finishing job", running); err != nil {
			errs = append(errs, err)
		} else if failed := st.Is(domain.JobFailureTarget); failed && len(running) > 0 {
			// A failing Job's pods stopped before they finished are its
			// failures, as Kubernetes counts every pod not yet finished
			// once a Job fails; counted now, as they may be gone before
			// the next look, naming their deletion.
			cctx, err := stoppedCause(ctx, deleted)
			if err != nil {
				return reconcilers.Result{}, fmt.Errorf("cause of the count of job %s's stopped pods: %w", j, err)
			}
			counted, err := r.jobCommands.Execute(cctx, j.Key(), domain.CountJobPods{Failed: reconcilers.UIDs(running)})
			if err != nil {
				return reconcilers.Result{}, r.jobGone(fmt.Errorf("count the stopped pods of job %s: %w", j, err))
			}
			j, st.Failed = counted, counted.Status.Failed
			if err := r.releaseDone(ctx, j, deleted); err != nil {
				errs = append(errs, err)
			}
		}
		running = nil
		if !slices.ContainsFunc(owned, func(p domain.Pod) bool { return !stopped(p) }) {
			st = finish(st, now)
		}
	case j.Spec.Suspend:
		if len(running) > 0 {
			// Its suspension is a change of its spec.
			if sctx, err := reconcilers.BecauseOf(ctx, specChange(j)); err != nil {
				errs = append(errs, fmt.Errorf("cause of the deletion of pods of job %s: %w", j, err))
			} else if _, err := r.delete(sctx, j, "deleted the pods of a suspended job", running); err != nil {
				errs = append(errs, err)
			}
		}
		running = nil
		st = st.WithCondition(domain.JobCondition{Type: domain.JobSuspended, Status: domain.ConditionTrue, Reason: domain.JobReasonSuspended, Message: msgSuspended}, now)
	default:
		if st.Is(domain.JobSuspended) {
			st = st.WithCondition(domain.JobCondition{Type: domain.JobSuspended, Status: domain.ConditionFalse, Reason: domain.JobReasonResumed, Message: msgResumed}, now)
			st.StartTime = now // the deadline counts from the resumption, as in Kubernetes
		}
		if st.StartTime.IsZero() {
			st.StartTime = now
		}
		var err error
		running, next, err = r.scale(ctx, j, owned, running, now)
		if err != nil {
			errs = append(errs, err)
		}
		if d := j.Spec.ActiveDeadlineSeconds; d != nil {
			next = earliest(next, st.StartTime.Add(time.Duration(*d)*time.Second))
		}
	}
	st.Active = int32(len(running))                           //nolint:gosec // at most Parallelism
	st.Ready = int32(len(reconcilers.Filter(running, ready))) //nolint:gosec // likewise
	if err := r.record(ctx, j, owned, st); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return reconcilers.Result{}, err
	}
	if ttl := j.Spec.TTLSecondsAfterFinished; ttl != nil && st.Finished() {
		next = st.FinishedAt().Add(time.Duration(*ttl) * time.Second)
	}
	return after(next, now), nil
}

// failedNow is the reason the Job fails at now, or "" while it does not:
// more failures than its backoff limit allows, or its deadline passed.
func failedNow(j domain.Job, st domain.JobStatus, running []domain.Pod, now time.Time) string {
	if st.Failed > j.Spec.BackoffLimit || pastBackoffLimitOnFailure(j, running) {
		return domain.JobReasonBackoffLimitExceeded
	}
	if d := j.Spec.ActiveDeadlineSeconds; d != nil && !st.StartTime.IsZero() && !now.Before(st.StartTime.Add(time.Duration(*d)*time.Second)) {
		return domain.JobReasonDeadlineExceeded
	}
	return ""
}

func failureMessage(reason string) string {
	if reason == domain.JobReasonDeadlineExceeded {
		return msgDeadline
	}
	return msgBackoffLimit
}

// finish turns the Job's outcome into its last condition: Failed with
// FailureTarget's reason, or Complete with SuccessCriteriaMet's, at now.
func finish(st domain.JobStatus, now time.Time) domain.JobStatus {
	if c, ok := st.Condition(domain.JobFailureTarget); ok && c.Status == domain.ConditionTrue {
		return st.WithCondition(domain.JobCondition{Type: domain.JobFailed, Status: domain.ConditionTrue, Reason: c.Reason, Message: c.Message}, now)
	}
	reason, msg := domain.JobReasonCompletionsReached, msgCompletions
	if c, ok := st.Condition(domain.JobSuccessCriteriaMet); ok && c.Status == domain.ConditionTrue {
		reason, msg = c.Reason, c.Message
	}
	st = st.WithCondition(domain.JobCondition{Type: domain.JobComplete, Status: domain.ConditionTrue, Reason: reason, Message: msg}, now)
	st.CompletionTime = now
	return st
}

// finished looks after a Job that is Complete or Failed: nothing of it
// runs any more, and once its TTL after finishing has passed, it is
// deleted (and its pods with it, when its deletion comes back as a key).
func (r *Reconciler) finished(ctx context.Context, j domain.Job, owned, running []domain.Pod, now time.Time) (reconcilers.Result, error) {
	if _, err := r.delete(ctx, j, "deleted the pods of a finished job", running); err != nil {
		return reconcilers.Result{}, err
	}
	if st := j.Status; st.Active != 0 || st.Ready != 0 {
		st.Active, st.Ready = 0, 0
		sctx, err := statusCause(ctx, j, owned)
		if err != nil {
			return reconcilers.Result{}, fmt.Errorf("cause of job %s's status: %w", j, err)
		}
		recorded, err := r.jobCommands.Execute(sctx, j.Key(), domain.RecordJobStatus{Status: st})
		if err != nil {
			return reconcilers.Result{}, r.jobGone(fmt.Errorf("record status of job %s: %w", j, err))
		}
		j = recorded // at the resourceVersion its deletion is conditional on
	}
	ttl := j.Spec.TTLSecondsAfterFinished
	if ttl == nil {
		return reconcilers.Result{}, nil
	}
	expires := j.Status.FinishedAt().Add(time.Duration(*ttl) * time.Second)
	if now.Before(expires) {
		return after(expires, now), nil
	}
	// Conditional on the Job as read: one changed since is looked at
	// again, as Kubernetes' TTL controller checks once more before it
	// deletes.
	ctx, err := expiryCause(ctx, j)
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("cause of the expiry of job %s: %w", j, err)
	}
	if _, err := r.jobCommands.Execute(ctx, j.Key(), domain.Precondition[domain.JobCommand]{ResourceVersion: j.ResourceVersion, Command: domain.DeleteJob{}}); err != nil {
		return reconcilers.Result{}, r.jobGone(fmt.Errorf("delete job %s, finished %s ago: %w", j, now.Sub(j.Status.FinishedAt()), err))
	}
	r.Controlled.Log("deleted a job past its TTL after finishing, and so its pods", j.String(), running)
	return reconcilers.Result{}, nil
}

// scale creates or deletes pods until the Job runs as many as it wants
// now, at most cfg.BurstPods in one reconcile, and returns the pods that
// run afterwards and, while a backoff holds the creations back, when it
// ends. owned are all the pods the Job controls, running among them.
func (r *Reconciler) scale(ctx context.Context, j domain.Job, owned, running []domain.Pod, now time.Time) ([]domain.Pod, time.Time, error) {
	if j.Spec.CompletionMode == domain.JobIndexed {
		var extra []domain.Pod
		if running, extra = indexed(j, running); len(extra) > 0 {
			// Pods of no index the Job wants, or a second pod of one:
			// its completions moved on, or a pod came by another's hand.
			ctx, err := surplusCause(ctx, j, extra)
			if err != nil {
				return running, time.Time{}, err
			}
			if _, err := r.delete(ctx, j, "deleted pods of indexes the job does not want", extra[:min(len(extra), r.cfg.BurstPods)]); err != nil {
				return running, time.Time{}, err
			}
		}
	}
	diff := wanted(j, len(running)) - len(running)
	switch {
	case diff > 0:
		if until := backoffUntil(j); now.Before(until) {
			return running, until, nil
		}
		ctx, err := createCause(ctx, j, owned)
		if err != nil {
			return running, time.Time{}, fmt.Errorf("cause of new pods of job %s: %w", j, err)
		}
		created, err := r.create(ctx, j, running, min(diff, r.cfg.BurstPods))
		return append(running, created...), time.Time{}, err
	case diff < 0:
		doomed := deletionOrder(running)[:min(-diff, r.cfg.BurstPods)]
		// Fewer are wanted than run: its spec changed (its parallelism,
		// its completions), or a pod came to it by another's hand.
		ctx, err := surplusCause(ctx, j, running)
		if err != nil {
			return running, time.Time{}, err
		}
		if _, err := r.delete(ctx, j, "deleted surplus pods", doomed); err != nil {
			return running, time.Time{}, err
		}
		return slices.DeleteFunc(running, func(p domain.Pod) bool {
			return slices.ContainsFunc(doomed, func(d domain.Pod) bool { return d.UID == p.UID })
		}), time.Time{}, nil
	}
	return running, time.Time{}, nil
}

// deletionOrder sorts running pods as the Job controller deletes its
// surplus: those not yet bound to a node first, then those not ready,
// then the newest.
func deletionOrder(pods []domain.Pod) []domain.Pod {
	out := slices.Clone(pods)
	slices.SortStableFunc(out, func(a, b domain.Pod) int {
		if c := cmp.Compare(boolRank(a.Spec.NodeName != ""), boolRank(b.Spec.NodeName != "")); c != 0 {
			return c
		}
		if c := cmp.Compare(boolRank(ready(a)), boolRank(ready(b))); c != 0 {
			return c
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// create creates n pods from the Job's template in one unit of work and
// returns them, each held by the tracking finalizer until the Job has
// counted it; for an Indexed Job, one for each of the n lowest indexes
// neither completed nor held by one of running. ctx names why
// (createCause).
func (r *Reconciler) create(ctx context.Context, j domain.Job, running []domain.Pod, n int) ([]domain.Pod, error) {
	var indexes []int32
	if j.Spec.CompletionMode == domain.JobIndexed {
		indexes = pendingIndexes(j, running, n)
		n = len(indexes)
	}
	batch := make([]domain.Keyed[domain.PodCommand], n)
	for i := range batch {
		var c domain.CreatePod
		if indexes != nil {
			c = indexedPod(domain.PodFromTemplate(j.Namespace, indexedPodName(r.IDs, j.Name, indexes[i]), r.IDs.UID(), j.Spec.Template, j.OwnerReference()), j.Name, indexes[i])
		} else {
			c = domain.PodFromTemplate(j.Namespace, r.IDs.PodName(j.Name), r.IDs.UID(), j.Spec.Template, j.OwnerReference())
		}
		c.Finalizers = append(c.Finalizers, domain.JobTrackingFinalizer)
		batch[i] = domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: c.Namespace, Name: c.Name}, Command: c}
	}
	if n == 0 {
		return nil, nil
	}
	created, _, err := r.podCommands.ExecuteBatch(ctx, batch)
	if err != nil {
		err = fmt.Errorf("create pods of job %s: %w", j, err)
		if errors.Is(err, domain.ErrInvalid) {
			// The template makes pods the domain refuses; the Job cannot
			// change it, so retrying cannot help.
			return nil, reconcilers.Terminal(err)
		}
		// A name taken already: the next reconcile draws new ones.
		return nil, err
	}
	r.Controlled.Log("created pods", j.String(), created)
	return created, nil
}

// delete deletes pods of the Job in one unit of work, each with its own
// grace period, and returns them as they stand after.
func (r *Reconciler) delete(ctx context.Context, j domain.Job, msg string, pods []domain.Pod) ([]domain.Pod, error) {
	if len(pods) == 0 {
		return nil, nil
	}
	cmds := make([]domain.Keyed[domain.PodCommand], len(pods))
	for i, p := range pods {
		cmds[i] = reconcilers.KeyedPod(p, domain.DeletePod{})
	}
	deleted, _, err := r.podCommands.ExecuteBatch(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("delete pods of job %s: %w", j, err)
	}
	r.Controlled.Log(msg, j.String(), pods)
	return deleted, nil
}

// record writes the Job's status, counted from owned, naming what moved
// it (statusCause); the same status again writes nothing.
func (r *Reconciler) record(ctx context.Context, j domain.Job, owned []domain.Pod, st domain.JobStatus) error {
	ctx, err := statusCause(ctx, j, owned)
	if err != nil {
		return fmt.Errorf("cause of job %s's status: %w", j, err)
	}
	if _, err := r.jobCommands.Execute(ctx, j.Key(), domain.RecordJobStatus{Status: st}); err != nil {
		return r.jobGone(fmt.Errorf("record status of job %s: %w", j, err))
	}
	return nil
}

// jobGone drops err when it says the Job is gone: its deletion brings
// the key back, to collect its pods.
func (r *Reconciler) jobGone(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	return err
}

// earliest is the earlier of two times, a zero one being none.
func earliest(a, b time.Time) time.Time {
	if a.IsZero() || !b.IsZero() && b.Before(a) {
		return b
	}
	return a
}

// after is the result that looks at the Job again at t; none when t is
// zero.
func after(t, now time.Time) reconcilers.Result {
	if t.IsZero() {
		return reconcilers.Result{}
	}
	return reconcilers.Result{RequeueAfter: max(t.Sub(now), time.Millisecond)}
}
