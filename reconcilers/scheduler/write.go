package scheduler

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
)

// write binds the pods a pass placed and marks those it could not, in
// batches of cfg.BindBatchSize per transaction. It returns how many pods
// it bound and how many it marked unschedulable.
func (r *Reconciler) write(ctx context.Context, decisions []decision) (bound, marked int, err error) {
	now := r.clock.Now()
	var binds, marks []projections.PodUpdate
	for _, d := range decisions {
		switch {
		case d.Node != "":
			binds = append(binds, update(d, domain.BindPod{NodeName: d.Node}, now))
		case !d.Recorded:
			marks = append(marks, update(d, domain.MarkPodUnschedulable{Message: d.Message}, now))
		}
	}
	// Bindings first: they are what the pods wait for.
	if bound, err = r.commit(ctx, binds); err != nil {
		return bound, 0, err
	}
	marked, err = r.commit(ctx, marks)
	return bound, marked, err
}

// update is the unit-of-work step for one decision.
func update(d decision, cmd domain.PodCommand, now time.Time) projections.PodUpdate {
	return projections.PodUpdate{Namespace: d.Namespace, Name: d.Name, Update: func(p domain.Pod) ([]domain.Event, error) {
		return domain.DecidePod(p, cmd, now)
	}}
}

// commit runs updates in batches, and returns how many took effect. A
// batch that fails because one of its pods changed since the pass read it
// (deleted, bound by someone else) is run again one pod at a time, so that
// the others still go through; the changed pod is skipped, and the next
// pass sees it as it now is.
func (r *Reconciler) commit(ctx context.Context, updates []projections.PodUpdate) (int, error) {
	done := 0
	for len(updates) > 0 {
		n := min(len(updates), r.cfg.BindBatchSize)
		batch := updates[:n]
		updates = updates[n:]
		_, err := r.repo.UpdatePods(ctx, batch)
		if err == nil {
			done += n
			continue
		}
		if !stale(err) {
			return done, err
		}
		for _, u := range batch {
			_, err := r.repo.UpdatePod(ctx, u.Namespace, u.Name, u.Update)
			switch {
			case err == nil:
				done++
			case stale(err):
				r.log.Debug("pod changed during the pass; skipped", zap.String("pod", u.Namespace+"/"+u.Name), zap.Error(err))
			default:
				return done, err
			}
		}
	}
	return done, nil
}

// stale reports whether err says a pod is no longer as the pass saw it.
func stale(err error) bool {
	return errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrNotFound)
}
