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

// pass is what one pass over a pod's runtime steps did.
type pass struct {
	// steps were taken in this pass, in order, and are to be recorded.
	steps []domain.TerminationStep
	// done: the pod is stopped and deprovisioned, and may be finalized.
	done bool
	res  reconcilers.Result
	err  error
}

// runSteps takes a pod through its runtime's steps as far as it can go
// now: shutdown requested, stopped (halted first if the deadline has
// passed), deprovisioned. Steps the pod already records are not taken
// again. A pod that is still shutting down is looked at again every poll
// period until its deadline. The caller records the steps, those taken
// before a failure included.
func runSteps(ctx context.Context, p domain.Pod, rt Runtime, now time.Time, poll time.Duration, log *zap.Logger) pass {
	d := p.Deletion
	var out pass
	fail := func(err error) pass { out.err = err; return out }
	if d.StoppedAt.IsZero() {
		st, err := rt.State(ctx, p)
		if err != nil {
			return fail(fmt.Errorf("pod %s: runtime state: %w", p.Key(), err))
		}
		if !stopped(st) && now.Before(d.Deadline) && d.ShutdownRequestedAt.IsZero() {
			if err := rt.Shutdown(ctx, p); err != nil {
				// The deadline's halt stops the pod anyway; until then,
				// keep asking.
				log.Warn("runtime refused to shut the pod down; it is halted at its deadline if it does not stop",
					zap.String("pod", p.Key()), zap.Time("deadline", d.Deadline), zap.Error(err))
				out.res = untilDeadline(now, d.Deadline, poll)
				return out
			}
			out.steps = append(out.steps, domain.StepShutdownRequested)
			if st, err = rt.State(ctx, p); err != nil {
				return fail(fmt.Errorf("pod %s: runtime state: %w", p.Key(), err))
			}
		}
		if !stopped(st) {
			if now.Before(d.Deadline) {
				out.res = untilDeadline(now, d.Deadline, poll)
				return out
			}
			if err := rt.Halt(ctx, p); err != nil {
				return fail(fmt.Errorf("pod %s: halt: %w", p.Key(), err))
			}
			out.steps = append(out.steps, domain.StepHalted)
			if st, err = rt.State(ctx, p); err != nil {
				return fail(fmt.Errorf("pod %s: runtime state: %w", p.Key(), err))
			}
			if !stopped(st) {
				return fail(fmt.Errorf("pod %s: still %s after a halt", p.Key(), st.Phase))
			}
		}
		out.steps = append(out.steps, domain.StepStopped)
	}
	if d.DeprovisionedAt.IsZero() {
		if err := rt.Deprovision(ctx, p); err != nil {
			return fail(fmt.Errorf("pod %s: deprovision: %w", p.Key(), err))
		}
		out.steps = append(out.steps, domain.StepDeprovisioned)
	}
	out.done = true
	return out
}

// terminate runs the pod's runtime steps and records them, and the pod's
// finalization once they are all done, in one unit of work.
func (r *Reconciler) terminate(ctx context.Context, p domain.Pod, rt Runtime, now time.Time) (reconcilers.Result, error) {
	ps := runSteps(ctx, p, rt, now, r.cfg.PollPeriod, r.log)
	var cmds []domain.PodCommand
	for _, s := range ps.steps {
		cmds = append(cmds, domain.RecordTermination{Step: s})
	}
	if ps.done {
		cmds = append(cmds, domain.FinalizePod{Reason: reasonTerminated})
	}
	if len(cmds) == 0 {
		return ps.res, ps.err
	}
	got, err := r.write(ctx, p, cmds...)
	if err != nil {
		return ps.res, errors.Join(ps.err, err)
	}
	if got.Finalized {
		r.log.Info("pod terminated", zap.String("pod", p.Key()), zap.Bool("halted", !got.Deletion.HaltedAt.IsZero()))
	}
	return ps.res, ps.err
}

// untilDeadline wakes the key at the next poll, or at the deadline if that
// comes first.
func untilDeadline(now, deadline time.Time, poll time.Duration) reconcilers.Result {
	return reconcilers.Result{RequeueAfter: max(min(deadline.Sub(now), poll), time.Millisecond)}
}
