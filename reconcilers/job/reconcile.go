package job

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
)

// Reconcile runs one Job's pods and records its status, or collects the
// pods of a Job that is gone. Every write is decided on the pod or Job
// as it stands (IfSamePod, counts by UID), and the views it reads are
// written in the same unit of work as the commands, so a second
// reconcile finds nothing left to do.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = r.Acting(ctx)
	j, err := r.jobs.Last(ctx, key.Namespace, key.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, fmt.Errorf("get job %s: %w", key, err)
	}
	herd := domain.SourceHerd
	// Only herd's own pods of a Job of its name (this one's, and an
	// earlier one's to collect): those a kubelet runs are its to manage,
	// and the rest of the namespace is not its business.
	pods, _, err := r.pods.List(ctx, projections.PodFilter{Namespace: key.Namespace, Source: &herd,
		Controllers: []string{kindJob + "/" + key.Name}})
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("list pods of namespace %s: %w", key.Namespace, err)
	}
	r.owners.ObservePods(pods)
	if !j.Exists() {
		orphan := ""
		if j.Orphan {
			orphan = j.UID
		}
		return reconcilers.Result{}, r.collect(ctx, key.Namespace, key.Name, j.Version, filter(pods, abandonedBy(key.Name, "")), orphan)
	}
	if j.UID == "" {
		// Its pods name it by UID; without one, every pod of its name
		// would look like an earlier Job's.
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("job %s has no uid: %w", j, domain.ErrInvalid))
	}
	if err := r.collect(ctx, j.Namespace, j.Name, 0, filter(pods, abandonedBy(j.Name, j.UID)), ""); err != nil {
		return reconcilers.Result{}, err
	}
	if j.DeletionRequestedAt != nil {
		return reconcilers.Result{}, r.deleteForeground(ctx, j, pods)
	}
	return r.sync(ctx, j, filter(pods, func(p domain.Pod) bool { return j.Owns(p) }))
}

// abandonedBy is whether a pod not already being deleted is controlled
// by a Job called name that is gone: any of that name when uid is empty
// (no Job of the name exists), else one of another UID (the Job of the
// name now is another).
func abandonedBy(name, uid string) func(domain.Pod) bool {
	return func(p domain.Pod) bool {
		if !p.Exists() || p.Terminating() {
			return false
		}
		ctrl, ok := p.Controller()
		return ok && ctrl.Kind == kindJob && ctrl.Name == name && (uid == "" || ctrl.UID != uid)
	}
}

// collect is the garbage collector of the pods whose controller, a Job
// called name, is gone (reconcilers.CollectCommands), as kubectl delete
// job asks; those of the one of UID orphan only lose their reference to
// it. What it writes names that Job's deletion, in the Job's stream up
// to version upTo (deletedCause).
func (r *Reconciler) collect(ctx context.Context, namespace, name string, upTo int64, abandoned []domain.Pod, orphan string) error {
	if len(abandoned) == 0 {
		return nil
	}
	job := namespace + "/" + name
	ctx, err := deletedCause(ctx, namespace, name, upTo)
	if err != nil {
		return fmt.Errorf("cause of the collection of pods of job %s: %w", job, err)
	}
	if _, _, err := r.podCommands.ExecuteBatch(ctx, reconcilers.CollectCommands(abandoned, orphan)); err != nil {
		return fmt.Errorf("collect pods of job %s, which is gone: %w", job, err)
	}
	r.logPods("collected pods of a job that is gone", job, abandoned)
	return nil
}

// deleteForeground deletes the pods of j, which is being deleted in the
// foreground. The garbage collector deletes j once every dependent that
// blocks it is gone, these pods and any other (Kubernetes' collector
// likewise removes the foregroundDeletion finalizer).
func (r *Reconciler) deleteForeground(ctx context.Context, j domain.Job, pods []domain.Pod) error {
	cmds, stopped := reconcilers.ForegroundCommands(pods, j.UID)
	if len(cmds) > 0 {
		ctx, err := foregroundCause(ctx, j)
		if err != nil {
			return fmt.Errorf("cause of the deletion of pods of job %s: %w", j, err)
		}
		if _, _, err := r.podCommands.ExecuteBatch(ctx, cmds); err != nil {
			return fmt.Errorf("delete pods of job %s, deleted in the foreground: %w", j, err)
		}
		r.logPods("deleted pods of a job deleted in the foreground", j.String(), stopped)
	}
	return nil
}

// filter returns the pods keep keeps.
func filter(pods []domain.Pod, keep func(domain.Pod) bool) []domain.Pod {
	var out []domain.Pod
	for _, p := range pods {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// logPods logs what was done to some pods of a Job, if any.
func (r *Reconciler) logPods(msg, job string, pods []domain.Pod) {
	if len(pods) == 0 {
		return
	}
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	r.log.Info(msg, zap.String("job", job), zap.Strings("pods", names))
}
