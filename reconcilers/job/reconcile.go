package job

import (
	"context"
	"errors"
	"fmt"

	"herd/domain"
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
	r.Controlled.Adopting(key, j.Spec.Selector, adopts(j))
	// The pods of a Job of its name: this one's, and an earlier one's to
	// collect; and the namespace's pods without a controller, of which a
	// running Job adopts those its selector matches, and lets go those a
	// Job still holds.
	pods, err := r.Controlled.Read(ctx, key, true)
	if err != nil {
		return reconcilers.Result{}, err
	}
	if adopts(j) {
		if pods, err = r.adopt(ctx, j, pods); err != nil {
			// Counting and scaling without knowing which orphans are its
			// own would make pods in their place: as Kubernetes' Job
			// controller, it stops at a failed claim.
			return reconcilers.Result{}, err
		}
	}
	if err := r.releaseOrphans(ctx, key, pods); err != nil {
		return reconcilers.Result{}, err
	}
	if !j.Exists() {
		orphan := ""
		if j.Orphan {
			orphan = j.UID
		}
		return reconcilers.Result{}, r.collect(ctx, key.Namespace, key.Name, j.Version, pods, "", orphan)
	}
	if j.UID == "" {
		// Its pods name it by UID; without one, every pod of its name
		// would look like an earlier Job's.
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("job %s has no uid: %w", j, domain.ErrInvalid))
	}
	if err := r.collect(ctx, j.Namespace, j.Name, 0, pods, j.UID, ""); err != nil {
		return reconcilers.Result{}, err
	}
	if j.DeletionRequestedAt != nil {
		return reconcilers.Result{}, r.deleteForeground(ctx, j, pods)
	}
	return r.sync(ctx, j, reconcilers.Filter(pods, func(p domain.Pod) bool { return j.Owns(p) }))
}

// collect is the garbage collector of the pods, among pods, whose
// controller is a Job called name that is gone (any of the name when uid
// is empty, else one of another UID; reconcilers.CollectCommands), as
// kubectl delete job asks; those of the one of UID orphan only lose their
// reference to it. It first releases every such pod it still holds, as
// nothing will count them. What it writes names that Job's deletion, in
// the Job's stream up to version upTo (deletedCause).
func (r *Reconciler) collect(ctx context.Context, namespace, name string, upTo int64, pods []domain.Pod, uid, orphan string) error {
	abandoned := reconcilers.Filter(pods, reconcilers.AbandonedBy(kindJob, name, uid))
	unheld := reconcilers.Filter(pods, heldByAnother(name, uid))
	if len(abandoned)+len(unheld) == 0 {
		return nil
	}
	job := namespace + "/" + name
	ctx, err := deletedCause(ctx, namespace, name, upTo)
	if err != nil {
		return fmt.Errorf("cause of the collection of pods of job %s: %w", job, err)
	}
	if err := r.release(ctx, job, "released pods of a job that is gone", unheld); err != nil {
		return err
	}
	if len(abandoned) == 0 {
		return nil
	}
	return r.Controlled.Collect(ctx, job, abandoned, orphan)
}

// deleteForeground deletes the pods of j, which is being deleted in the
// foreground (reconcilers.Controlled.DeleteForeground), and releases
// those it holds, as it counts none of them any more: the garbage
// collector waits for them to go. What it writes names j's deletion.
func (r *Reconciler) deleteForeground(ctx context.Context, j domain.Job, pods []domain.Pod) error {
	cmds, _ := reconcilers.ForegroundCommands(pods, j.UID)
	unheld := reconcilers.Filter(pods, func(p domain.Pod) bool { return held(p) && j.Owns(p) })
	if len(cmds)+len(unheld) == 0 {
		return nil
	}
	ctx, err := foregroundCause(ctx, j)
	if err != nil {
		return fmt.Errorf("cause of the deletion of pods of job %s: %w", j, err)
	}
	if err := r.release(ctx, j.String(), "released pods of a job deleted in the foreground", unheld); err != nil {
		return err
	}
	if len(cmds) == 0 {
		return nil
	}
	return r.Controlled.DeleteForeground(ctx, j.String(), j.UID, pods)
}
