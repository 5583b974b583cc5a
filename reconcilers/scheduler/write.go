package scheduler

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
)

// write binds the pods a pass placed and marks those it could not, in
// batches of cfg.BindBatchSize per transaction. It returns how many pods
// it bound and how many it marked unschedulable.
func (r *Reconciler) write(ctx context.Context, decisions []decision) (bound, marked int, err error) {
	var binds, marks []domain.Keyed[domain.PodCommand]
	for _, d := range decisions {
		switch {
		case d.Node != "":
			binds = append(binds, keyed(d, domain.BindPod{NodeName: d.Node}))
		case !d.Recorded:
			marks = append(marks, keyed(d, domain.MarkPodUnschedulable{Message: d.Message}))
		}
	}
	// Each pod's binding, or its mark, follows its own creation: what the
	// pass read of it is that it waits for a node. Its creation is the
	// newest of its stream, not the first: a pod made again under the
	// name of one that is gone (a StatefulSet's) continues the stream.
	changes := make([]reconcilers.Change, 0, len(binds)+len(marks))
	for _, u := range append(binds[:len(binds):len(binds)], marks...) {
		changes = append(changes, reconcilers.ChangeOf[domain.PodCreated](domain.PodStream(u.Key.Namespace, u.Key.Name), 0, nil))
	}
	if ctx, err = reconcilers.BecauseEach(ctx, changes); err != nil {
		return 0, 0, err
	}
	// Bindings first: they are what the pods wait for.
	if bound, err = r.commit(ctx, binds); err != nil {
		return bound, 0, err
	}
	marked, err = r.commit(ctx, marks)
	return bound, marked, err
}

// keyed is the command for one decision's pod.
func keyed(d decision, cmd domain.PodCommand) domain.Keyed[domain.PodCommand] {
	return domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: d.Namespace, Name: d.Name}, Command: cmd}
}

// commit runs updates in batches, and returns how many took effect. A
// batch that fails because one of its pods changed since the pass read it
// (deleted, bound by someone else) is run again one pod at a time, so that
// the others still go through; the changed pod is skipped, and the next
// pass sees it as it now is.
func (r *Reconciler) commit(ctx context.Context, updates []domain.Keyed[domain.PodCommand]) (int, error) {
	done := 0
	for len(updates) > 0 {
		n := min(len(updates), r.cfg.BindBatchSize)
		batch := updates[:n]
		updates = updates[n:]
		_, _, err := r.repo.PodBatch().ExecuteBatch(ctx, batch)
		if err == nil {
			done += n
			continue
		}
		if !stale(err) {
			return done, err
		}
		for _, u := range batch {
			_, err := r.repo.PodCommands().Execute(ctx, u.Key, u.Command)
			switch {
			case err == nil:
				done++
			case stale(err):
				r.log.Debug("pod changed during the pass; skipped", zap.String("pod", u.Key.String()), zap.Error(err))
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
