package termination

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
)

// terminate takes a pod through its runtime's steps as far as it can go
// now: shutdown requested, stopped (halted first if the deadline has
// passed), deprovisioned, finalized. Each step is recorded once, all those
// of one pass in one unit of work; a pod that is still shutting down is
// looked at again every poll period until its deadline.
func (r *Reconciler) terminate(ctx context.Context, p domain.Pod, rt Runtime, now time.Time) (reconcilers.Result, error) {
	d := p.Deletion
	var steps []domain.PodCommand
	record := func(s domain.TerminationStep) { steps = append(steps, domain.RecordTermination{Step: s}) }
	flush := func(res reconcilers.Result, err error) (reconcilers.Result, error) {
		if len(steps) == 0 {
			return res, err
		}
		got, werr := r.write(ctx, p, steps...)
		if werr != nil {
			return res, errors.Join(err, werr)
		}
		if got.Finalized {
			r.log.Info("pod terminated", zap.String("pod", p.Key()), zap.Bool("halted", !got.Deletion.HaltedAt.IsZero()))
		}
		return res, err
	}

	if d.StoppedAt.IsZero() {
		st, err := rt.State(ctx, p)
		if err != nil {
			return reconcilers.Result{}, fmt.Errorf("pod %s: runtime state: %w", p.Key(), err)
		}
		if !stopped(st) && now.Before(d.Deadline) && d.ShutdownRequestedAt.IsZero() {
			if err := rt.Shutdown(ctx, p); err != nil {
				// The deadline's halt stops the pod anyway; until then,
				// keep asking.
				r.log.Warn("runtime refused to shut the pod down; it is halted at its deadline if it does not stop",
					zap.String("pod", p.Key()), zap.Time("deadline", d.Deadline), zap.Error(err))
				return r.untilDeadline(now, d.Deadline), nil
			}
			record(domain.StepShutdownRequested)
			if st, err = rt.State(ctx, p); err != nil {
				return flush(reconcilers.Result{}, fmt.Errorf("pod %s: runtime state: %w", p.Key(), err))
			}
		}
		if !stopped(st) {
			if now.Before(d.Deadline) {
				return flush(r.untilDeadline(now, d.Deadline), nil)
			}
			if err := rt.Halt(ctx, p); err != nil {
				return flush(reconcilers.Result{}, fmt.Errorf("pod %s: halt: %w", p.Key(), err))
			}
			record(domain.StepHalted)
			if st, err = rt.State(ctx, p); err != nil {
				return flush(reconcilers.Result{}, fmt.Errorf("pod %s: runtime state: %w", p.Key(), err))
			}
			if !stopped(st) {
				return flush(reconcilers.Result{}, fmt.Errorf("pod %s: still %s after a halt", p.Key(), st.Phase))
			}
		}
		record(domain.StepStopped)
	}
	if d.DeprovisionedAt.IsZero() {
		if err := rt.Deprovision(ctx, p); err != nil {
			return flush(reconcilers.Result{}, fmt.Errorf("pod %s: deprovision: %w", p.Key(), err))
		}
		record(domain.StepDeprovisioned)
	}
	steps = append(steps, domain.FinalizePod{Reason: reasonTerminated})
	return flush(reconcilers.Result{}, nil)
}

// untilDeadline wakes the key at the next poll, or at the deadline if that
// comes first.
func (r *Reconciler) untilDeadline(now, deadline time.Time) reconcilers.Result {
	return reconcilers.Result{RequeueAfter: max(min(deadline.Sub(now), r.cfg.PollPeriod), time.Millisecond)}
}
