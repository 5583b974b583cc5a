package job

import (
	"context"
	"fmt"
	"slices"

	"herd/domain"
	"herd/reconcilers"
)

// adopts says whether the Job takes in orphans now, as Kubernetes' Job
// controller does while a Job runs: one that exists, has its UID, is
// not being deleted and has not finished.
func adopts(j domain.Job) bool {
	return j.Exists() && j.UID != "" && j.DeletionRequestedAt == nil && !j.Status.Finished()
}

// adopt claims the pods of j's namespace for it, as Kubernetes' Job
// controller claims them (ClaimPods, with the tracking finalizer): an
// orphan its selector matches becomes its own, held by the tracking
// finalizer until it is counted, and a pod of its own its selector no
// longer matches is let go, finalizer and all. It returns pods with
// each one it changed as it stands after.
func (r *Reconciler) adopt(ctx context.Context, j domain.Job, pods []domain.Pod) ([]domain.Pod, error) {
	var (
		cmds    []domain.Keyed[domain.PodCommand]
		changed []int
	)
	for i, p := range pods {
		if !p.Exists() || p.Terminating() {
			continue
		}
		ctrl, controlled := p.Controller()
		matches := j.Spec.Selector.Matches(p.Labels)
		var cmd domain.PodCommand
		switch {
		case !controlled && matches:
			cmd = domain.PodSequence{domain.AdoptPod{Owner: j.OwnerReference()},
				domain.SetPodMetadata{Labels: p.Labels, Annotations: p.Annotations, Finalizers: withTracking(p.Finalizers)}}
		case controlled && ctrl.UID == j.UID && !matches:
			cmd = domain.PodSequence{domain.ReleasePod{UID: j.UID},
				domain.SetPodMetadata{Labels: p.Labels, Annotations: p.Annotations, Finalizers: withoutTracking(p.Finalizers)}}
		default:
			continue
		}
		k := reconcilers.KeyedPod(p, cmd)
		k.Lenient = true // a pod that changed since it was read is looked at again
		cmds, changed = append(cmds, k), append(changed, i)
	}
	if len(cmds) == 0 {
		return pods, nil
	}
	states, _, err := r.podCommands.ExecuteBatch(ctx, cmds)
	if err != nil {
		return nil, fmt.Errorf("adopt and release pods of job %s: %w", j, err)
	}
	out := slices.Clone(pods)
	var adopted, released []domain.Pod
	for k, i := range changed {
		p := states[k]
		if !p.Exists() {
			continue
		}
		out[i] = p
		if j.Owns(p) {
			adopted = append(adopted, p)
		} else {
			released = append(released, p)
		}
	}
	r.Controlled.Log("adopted pods", j.String(), adopted)
	r.Controlled.Log("released pods the selector no longer matches", j.String(), released)
	return out, nil
}

// withTracking is finalizers with the Job's tracking finalizer.
func withTracking(finalizers []string) []string {
	if slices.Contains(finalizers, domain.JobTrackingFinalizer) {
		return finalizers
	}
	return append(slices.Clone(finalizers), domain.JobTrackingFinalizer)
}

// withoutTracking is finalizers without the Job's tracking finalizer.
func withoutTracking(finalizers []string) []string {
	return slices.DeleteFunc(slices.Clone(finalizers), func(f string) bool { return f == domain.JobTrackingFinalizer })
}
