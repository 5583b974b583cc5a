package zones

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"herd/domain"
)

// run brings one pod to running on its node's runtime, if that runtime is
// in this process, the node is Ready and the pod has its address, and
// reports what came of it. Every runtime call is idempotent, so a pod
// whose provisioning a crash interrupted is provisioned again from where
// it stopped: the runtime finds what it made and never makes it twice.
func (r *Reconciler) run(ctx context.Context, p domain.Pod) error {
	if !shouldRun(p) || r.cfg.Node != "" && p.Spec.NodeName != r.cfg.Node {
		return nil
	}
	node, err := r.pods.Node(ctx, p.Spec.NodeName)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if c, ok := node.Condition(domain.ConditionReady); !ok || c.Status != domain.ConditionTrue {
		return nil // its NodeBecameReady wakes the node's pods
	}
	rt, ok := r.runtimes.For(node)
	if !ok {
		return nil
	}
	if p.Network == nil {
		return nil // IPAM's PodIPAssigned wakes the pod
	}
	st, err := rt.State(ctx, p)
	if err != nil {
		return fmt.Errorf("pod %s: runtime state: %w", p.Key(), err)
	}
	switch st.Phase {
	case domain.RuntimeRunning:
		if p.Status.Phase == domain.PodRunning {
			return nil
		}
	case domain.RuntimeFailed:
		return r.report(ctx, p, rt, failedStatus(node, ReasonRuntimeFailed, st.Message))
	case domain.RuntimeStopped:
		return r.report(ctx, p, rt, failedStatus(node, ReasonRuntimeStopped, "the runtime reports the pod stopped, and nobody asked it to"))
	case domain.RuntimeAbsent:
		if p.Status.Phase == domain.PodRunning && !ephemeral(rt) {
			return r.report(ctx, p, rt, failedStatus(node, ReasonRuntimeVanished,
				fmt.Sprintf("node %s's runtime no longer holds the pod: it vanished while running", node.Name)))
		}
		fallthrough
	default:
		// Absent, or Provisioned — perhaps only partly, by a provisioning
		// that a crash cut short: Provision finishes what is missing.
		if err := rt.Provision(ctx, p); err != nil {
			return r.failed(ctx, p, rt, node, ReasonProvisionFailed, err)
		}
	}
	status, err := rt.Start(ctx, p)
	if err != nil {
		return r.failed(ctx, p, rt, node, ReasonStartFailed, err)
	}
	if status.PodIP == "" {
		status.PodIP = p.Network.IP
	}
	return r.report(ctx, p, rt, runningStatus(p, node, status))
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
	return r.report(ctx, p, rt, failedStatus(node, reason, err.Error()))
}

// report records the pod's status, provided it is still the pod that was
// started and should run. A pod that left the fleet meanwhile has what was
// just started removed again: the termination reconciler has already
// finished with it.
func (r *Reconciler) report(ctx context.Context, seen domain.Pod, rt Runtime, status domain.PodStatus) error {
	var left bool
	err := r.pods.UpdateStatus(ctx, seen.Namespace, seen.Name, func(p domain.Pod) (domain.PodStatus, bool) {
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
