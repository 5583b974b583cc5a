package job

import (
	"context"
	"fmt"
	"slices"

	"herd/domain"
	"herd/reconcilers"
)

// held reports whether a pod still carries the Job's tracking finalizer
// (domain.JobTrackingFinalizer), which keeps it from going before its Job
// has counted it.
func held(p domain.Pod) bool { return slices.Contains(p.Finalizers, domain.JobTrackingFinalizer) }

// done reports whether the Job has nothing more to count of a pod it
// holds, once its finished pods are counted: the pod finished, or is
// being deleted (counted as a failure, or not counted at all while the
// Job is suspended or has succeeded).
func done(p domain.Pod) bool { return held(p) && (p.Finished() || p.Terminating()) }

// heldByAnother is whether a pod holds the tracking finalizer for a Job
// called name that is gone: any of that name when uid is empty (none of
// the name exists), else one of another UID. Kubernetes' controller
// releases such a pod without counting it.
func heldByAnother(name, uid string) func(domain.Pod) bool {
	return func(p domain.Pod) bool {
		ctrl, ok := p.Controller()
		return held(p) && ok && ctrl.Kind == kindJob && ctrl.Name == name && (uid == "" || ctrl.UID != uid)
	}
}

// releaseOrphans takes the tracking finalizer off the pods among pods
// that no controller owns any more (an operator took the pod from its
// Job): no Job will count them, and a deletion would wait for ever.
// Kubernetes' controller releases such a pod whichever Job it came from;
// each release names the change that took its controller away.
func (r *Reconciler) releaseOrphans(ctx context.Context, key reconcilers.Key, pods []domain.Pod) error {
	for _, p := range pods {
		if _, owned := p.Controller(); owned || !held(p) {
			continue
		}
		pctx, err := reconcilers.BecauseOf(ctx, reconcilers.ChangeOf[domain.PodOwnersChanged](domain.PodStream(p.Namespace, p.Name), p.Version, nil))
		if err != nil {
			return fmt.Errorf("cause of the release of pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		if err := r.release(pctx, key.Namespace+"/"+key.Name, "released a pod no Job controls", []domain.Pod{p}); err != nil {
			return err
		}
	}
	return nil
}

// releaseDone takes the tracking finalizer off the pods of j it has
// nothing more to count of (done), after its count: those it counted
// name the count that counted them, the others their own end (a
// deletion while the Job was suspended or had succeeded).
func (r *Reconciler) releaseDone(ctx context.Context, j domain.Job, owned []domain.Pod) error {
	counted, uncounted := splitCounted(j, reconcilers.Filter(owned, done))
	if len(counted) > 0 {
		uids := reconcilers.UIDs(counted)
		cctx, err := reconcilers.BecauseOf(ctx, reconcilers.ChangeOf(domain.JobStream(j.Namespace, j.Name), j.Version,
			func(c domain.JobPodsCounted) bool {
				return slices.ContainsFunc(uids, func(uid string) bool {
					return slices.Contains(c.Succeeded, uid) || slices.Contains(c.Failed, uid) || slices.Contains(c.Ignored, uid)
				})
			}))
		if err != nil {
			return fmt.Errorf("cause of the release of job %s's counted pods: %w", j, err)
		}
		if err := r.release(cctx, j.String(), "released pods it has counted", counted); err != nil {
			return err
		}
	}
	if len(uncounted) == 0 {
		return nil
	}
	ctx, err := stoppedCause(ctx, uncounted)
	if err != nil {
		return fmt.Errorf("cause of the release of job %s's stopped pods: %w", j, err)
	}
	return r.release(ctx, j.String(), "released pods it does not count", uncounted)
}

// splitCounted parts pods into those j has counted and the rest.
func splitCounted(j domain.Job, pods []domain.Pod) (counted, uncounted []domain.Pod) {
	for _, p := range pods {
		if slices.Contains(j.Tracking.Counted, p.UID) {
			counted = append(counted, p)
		} else {
			uncounted = append(uncounted, p)
		}
	}
	return counted, uncounted
}

// release takes the tracking finalizer off pods in one unit of work, each
// decided on the pod as it stands, provided it is the one read
// (IfSamePod); ctx names why. A pod being deleted goes once nothing else
// holds it.
func (r *Reconciler) release(ctx context.Context, job, msg string, pods []domain.Pod) error {
	if len(pods) == 0 {
		return nil
	}
	cmds := make([]domain.Keyed[domain.PodCommand], len(pods))
	for i, p := range pods {
		cmds[i] = reconcilers.KeyedPod(p, domain.RemovePodFinalizer{Finalizer: domain.JobTrackingFinalizer})
	}
	if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
		return fmt.Errorf("release pods of job %s: %w", job, err)
	}
	r.Controlled.Log(msg, job, pods)
	return nil
}
