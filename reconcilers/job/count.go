package job

import (
	"slices"
	"time"

	"herd/domain"
)

// countFinished is the command that counts the Job's finished pods it
// has not counted yet, and forgets the counted ones that are gone. A pod
// that succeeded counts as a success; one that failed, or that is being
// deleted before it finished, as a failure, as Kubernetes counts a pod
// deleted from under its Job (isPodFailed) — except while the Job is
// suspended or has succeeded, when the pods being deleted are the ones
// the reconciler itself stopped. A failure is what the Job's pod failure
// policy makes of it: ignored, counted, or, for the first a FailJob
// rule matches, the Job's failure. A pod being deleted is judged by its
// status as its deletion finds it (a DisruptionTarget condition, exit
// codes of containers that ended), where Kubernetes waits for its
// kubelet to fail it: herd's runtimes stop a deleted pod without a
// phase of its own.
func countFinished(j domain.Job, owned []domain.Pod) domain.CountJobPods {
	var c domain.CountJobPods
	deletedFails := !j.Spec.Suspend && !j.Status.Is(domain.JobSuccessCriteriaMet) && !j.Status.Is(domain.JobComplete)
	present := make(map[string]bool, len(owned))
	for _, p := range owned {
		present[p.UID] = true
		if slices.Contains(j.Tracking.Counted, p.UID) {
			continue
		}
		switch {
		case p.Status.Phase == domain.PodSucceeded:
			c.Succeeded = append(c.Succeeded, p.UID)
		case p.Status.Phase == domain.PodFailed, p.Terminating() && deletedFails:
			switch action, msg := domain.MatchPodFailurePolicy(j, p); action {
			case domain.PodFailureIgnore:
				c.Ignored = append(c.Ignored, p.UID)
			case domain.PodFailureFailJob:
				c.Failed = append(c.Failed, p.UID)
				if c.FailJob == "" {
					c.FailJob = msg
				}
			default:
				c.Failed = append(c.Failed, p.UID)
			}
		}
	}
	for _, uid := range j.Tracking.Counted {
		if !present[uid] {
			c.Forget = append(c.Forget, uid)
		}
	}
	if j.Spec.CompletionMode == domain.JobIndexed && len(c.Succeeded) > 0 {
		c.Indexes = succeededIndexes(owned, c.Succeeded)
	}
	return c
}

// active reports whether a pod counts as running for its Job: neither
// finished nor being deleted, as Kubernetes' controller.IsPodActive.
func active(p domain.Pod) bool { return !p.Finished() && !p.Terminating() }

// stopped reports whether a pod no longer runs: it finished. A pod being
// deleted runs until it is gone.
func stopped(p domain.Pod) bool { return p.Finished() }

// ready reports whether a pod's Ready condition is True.
func ready(p domain.Pod) bool {
	c, ok := p.Condition(domain.PodConditionReady)
	return ok && c.Status == domain.ConditionTrue
}

// Kubernetes' backoff before a Job replaces a failed pod: 10 s, doubled
// for each failure since the last success, at most 6 minutes
// (DefaultJobPodFailureBackOff, MaxJobPodFailureBackOff).
const (
	initialBackoff = 10 * time.Second
	maxBackoff     = 6 * time.Minute
)

// backoffUntil is when the Job may create pods again after its failures:
// zero when it may at once.
func backoffUntil(j domain.Job) time.Time {
	n := j.Tracking.FailuresSinceSuccess
	if n <= 0 || j.Tracking.LastFailureAt.IsZero() {
		return time.Time{}
	}
	d := initialBackoff
	for i := int32(1); i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return j.Tracking.LastFailureAt.Add(min(d, maxBackoff))
}

// pastBackoffLimitOnFailure reports whether the containers of a Job whose
// pods restart on failure have restarted more often than its backoff
// limit allows: their restarts are its failures, as Kubernetes counts
// them.
func pastBackoffLimitOnFailure(j domain.Job, active []domain.Pod) bool {
	if j.Spec.Template.Spec.RestartPolicy != domain.RestartOnFailure {
		return false
	}
	var restarts int32
	for _, p := range active {
		restarts += p.Status.Restarts()
	}
	return restarts >= restartLimit(j)
}

// restartLimit is how many restarts of its running pods, together, fail
// a Job whose pods restart on failure: its backoff limit, and at least
// one (a limit of 0 allows none).
func restartLimit(j domain.Job) int32 { return max(1, j.Spec.BackoffLimit) }

// wanted is how many pods the Job should run now, of which running run:
// its parallelism, less what would overshoot its completions; for a work
// queue (no completions), once a pod has succeeded, those that run are
// left to finish and no more are made, as Kubernetes does.
func wanted(j domain.Job, running int) int {
	p := int(j.Spec.Parallelism)
	if c := j.Spec.Completions; c != nil {
		return max(0, min(p, int(*c)-int(j.Status.Succeeded)))
	}
	if j.Status.Succeeded > 0 {
		return running
	}
	return p
}

// succeeded reports whether the Job has met its success criteria: its
// completions reached, or for a work queue, a pod succeeded and none
// runs.
func succeeded(j domain.Job, running int) bool {
	if c := j.Spec.Completions; c != nil {
		return j.Status.Succeeded >= *c
	}
	return j.Status.Succeeded > 0 && running == 0
}
