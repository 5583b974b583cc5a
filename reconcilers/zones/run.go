package zones

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// run brings one pod to running on its node's runtime, if that runtime is
// in this process, the node is Ready and the pod has its address, and
// reports what came of it: running, or, once its containers ran to their
// end, Succeeded or Failed as its restart policy says, or restarted. It
// returns when the pod's containers are due to end or to restart (zero
// for never), as nothing else brings the pod back then. Every runtime
// call is idempotent, so a pod whose provisioning a crash interrupted is
// provisioned again from where it stopped: the runtime finds what it
// made and never makes it twice.
func (r *Reconciler) run(ctx context.Context, p domain.Pod) (time.Time, error) {
	if !shouldRun(p) || r.cfg.Node != "" && p.Spec.NodeName != r.cfg.Node {
		return time.Time{}, nil
	}
	node, err := r.pods.Node(ctx, p.Spec.NodeName)
	if errors.Is(err, domain.ErrNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	if c, ok := node.Condition(domain.ConditionReady); !ok || c.Status != domain.ConditionTrue {
		return time.Time{}, nil // its NodeBecameReady wakes the node's pods
	}
	rt, ok := r.runtimes.For(node)
	if !ok {
		return time.Time{}, nil
	}
	if p.Network == nil {
		return time.Time{}, nil // IPAM's PodIPAssigned wakes the pod
	}
	st, err := rt.State(ctx, p)
	if err != nil {
		return time.Time{}, fmt.Errorf("pod %s: runtime state: %w", p.Key(), err)
	}
	switch st.Phase {
	case domain.RuntimeRunning:
		if p.Status.Phase == domain.PodRunning && restartCount(p) == st.Restarts {
			if domain.PodReady(p) {
				return st.ExitsAt, nil
			}
			// Its runtime runs it and its node is Ready, so it is
			// Ready: it ran on while its node was not, which marked
			// it not ready (podready), or a client said otherwise.
			return st.ExitsAt, r.report(ctx, p, rt, readyAgain(p), backOnline(node))
		}
	case domain.RuntimeExited:
		if due, done := r.exited(ctx, p, rt, node, st, ended(p)); done != nil {
			return due, *done
		}
		// Its restart: Start again below.
	case domain.RuntimeFailed:
		return time.Time{}, r.report(ctx, p, rt, failedStatus(node, ReasonRuntimeFailed, st.Message), ended(p))
	case domain.RuntimeStopped:
		return time.Time{}, r.report(ctx, p, rt, failedStatus(node, ReasonRuntimeStopped, "the runtime reports the pod stopped, and nobody asked it to"), ended(p))
	case domain.RuntimeAbsent:
		if p.Status.Phase == domain.PodRunning && !ephemeral(rt) {
			return time.Time{}, r.report(ctx, p, rt, failedStatus(node, ReasonRuntimeVanished,
				fmt.Sprintf("node %s's runtime no longer holds the pod: it vanished while running", node.Name)), ended(p))
		}
		fallthrough
	default:
		// Absent, or Provisioned — perhaps only partly, by a provisioning
		// that a crash cut short: Provision finishes what is missing.
		if err := rt.Provision(ctx, p); err != nil {
			return time.Time{}, r.failed(ctx, p, rt, node, ReasonProvisionFailed, err)
		}
	}
	status, err := rt.Start(ctx, p)
	if err != nil {
		return time.Time{}, r.failed(ctx, p, rt, node, ReasonStartFailed, err)
	}
	if status.PodIP == "" {
		status.PodIP = p.Network.IP
	}
	running := runningStatus(p, node, status)
	if !status.ExitsAt.IsZero() && !status.ExitsAt.After(r.clock.Now()) {
		// Its containers ended as they started (`true`): what they ended
		// with is its status, not Running, which no later look would
		// come to correct.
		if st, err := rt.State(ctx, p); err == nil && st.Phase == domain.RuntimeExited {
			p.Status = running
			if due, done := r.exited(ctx, p, rt, node, st, started(p, node)); done != nil {
				return due, *done
			}
		}
	}
	return status.ExitsAt, r.report(ctx, p, rt, running, started(p, node))
}

// exited reports a pod whose containers ran to their end: finished, as
// its restart policy keeps them ended, or waiting out the backoff before
// their restart, when it returns when the restart is due. It returns a
// nil error pointer when the restart is due now, for the caller to
// start the pod again.
func (r *Reconciler) exited(ctx context.Context, p domain.Pod, rt Runtime, node domain.Node, st domain.RuntimeState, why cause) (time.Time, *error) {
	if !p.Spec.RestartPolicy.Restarts(st.ExitCode) {
		err := r.report(ctx, p, rt, exitedStatus(p, node, st), why)
		return time.Time{}, &err
	}
	if due := st.FinishedAt.Add(crashLoopBackoff(st.Restarts)); r.clock.Now().Before(due) {
		err := r.report(ctx, p, rt, backingOffStatus(p, node, st), why)
		return due, &err
	}
	return time.Time{}, nil
}

// restartCount is the restarts the pod's status reports, of its first
// container (herd's runtimes restart a pod's containers together).
func restartCount(p domain.Pod) int32 {
	if len(p.Status.ContainerStatuses) == 0 {
		return 0
	}
	return p.Status.ContainerStatuses[0].RestartCount
}

// ephemeral reports whether the runtime's pods end with the process, as
// the in-memory mock's do: after a restart it holds nothing, and a pod
// that was running is started again rather than failed as vanished.
func ephemeral(rt Runtime) bool {
	e, ok := rt.(interface{ Ephemeral() bool })
	return ok && e.Ephemeral()
}

// failed reports a runtime's error as the pod's failure, unless herd is
// stopping (then the next start retries).
func (r *Reconciler) failed(ctx context.Context, p domain.Pod, rt Runtime, node domain.Node, reason string, err error) error {
	if ctx.Err() != nil {
		return err
	}
	r.log.Warn("pod failed on its runtime", zap.String("pod", p.Key()), zap.String("node", node.Name), zap.String("reason", reason), zap.Error(err))
	return r.report(ctx, p, rt, failedStatus(node, reason, err.Error()), started(p, node))
}

// report records the pod's status, naming what why finds as its cause, provided it is still the pod that was
// started and should run. A pod that left the fleet meanwhile has what was
// just started removed again: the termination reconciler has already
// finished with it.
func (r *Reconciler) report(ctx context.Context, seen domain.Pod, rt Runtime, status domain.PodStatus, why cause) error {
	ctx, err := why(ctx)
	if err != nil {
		return fmt.Errorf("pod %s: cause of its status: %w", seen.Key(), err)
	}
	var left bool
	err = r.pods.UpdateStatus(ctx, seen.Namespace, seen.Name, func(p domain.Pod) (domain.PodStatus, bool) {
		left = !p.Exists() || p.UID != seen.UID || p.Deletion != nil && !p.Deletion.DeprovisionedAt.IsZero()
		if left || !shouldRun(p) || p.Spec.NodeName != seen.Spec.NodeName {
			return domain.PodStatus{}, false
		}
		return status, true
	})
	if err != nil {
		return fmt.Errorf("pod %s: report status: %w", seen.Key(), err)
	}
	if left {
		return rt.Deprovision(ctx, seen)
	}
	return nil
}
