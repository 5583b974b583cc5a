package zones

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// DefaultResyncPeriod is how often every herd pod that should run is
// checked against its runtime without an event.
const DefaultResyncPeriod = 30 * time.Second

// Reconciler starts herd's pods on their node's runtime. Its keys are
// "pod/NS/NAME" and "node/NAME" (every pod bound to the node).
type Reconciler struct {
	resync   time.Duration
	repo     domain.PodRepository
	pods     *projections.PodView
	nodes    *projections.NodeView
	runtimes Runtimes
	clock    clock.PassiveClock
	log      *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the zones reconciler, resyncing every resync.
func New(resync time.Duration, repo domain.PodRepository, pods *projections.PodView, nodes *projections.NodeView,
	runtimes Runtimes, clk clock.PassiveClock, log *zap.Logger) *Reconciler {
	return &Reconciler{resync: resync, repo: repo, pods: pods, nodes: nodes, runtimes: runtimes, clock: clk, log: log.Named("zones")}
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "zones" }

// nodeEvents are the node events after which its pods may be startable:
// it (re)appeared, became Ready, or changed hands between herd's runtime
// and its own agent.
var nodeEvents = map[string]bool{
	domain.NodeRegistered{}.EventType():    true,
	domain.NodeRestarted{}.EventType():     true,
	domain.NodeBecameReady{}.EventType():   true,
	domain.NodeLabelsChanged{}.EventType(): true,
}

// KeysFor maps a pod's binding to the pod, and node changes to the node.
func (r *Reconciler) KeysFor(rec events.Record) []string {
	switch {
	case strings.HasPrefix(rec.Stream, "pod/") && rec.Type == (domain.PodScheduled{}).EventType():
		return []string{rec.Stream}
	case strings.HasPrefix(rec.Stream, "node/") && nodeEvents[rec.Type]:
		return []string{rec.Stream}
	}
	return nil
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.resync }

// Resync returns every herd pod that is bound and should run.
func (r *Reconciler) Resync(ctx context.Context) ([]string, error) {
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{Source: &herd})
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, p := range pods {
		if shouldRun(p) {
			keys = append(keys, domain.PodStream(p.Namespace, p.Name))
		}
	}
	return keys, nil
}

// shouldRun reports whether the pod is herd's, bound, and neither leaving
// nor finished.
func shouldRun(p domain.Pod) bool {
	return !p.Observed() && p.Spec.NodeName != "" && !p.Terminating() && !p.Finished()
}

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key string) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:zones", Source: "reconciler/zones"})
	if name, ok := strings.CutPrefix(key, "node/"); ok && name != "" {
		return reconcilers.Result{}, r.reconcileNode(ctx, name)
	}
	rest, ok := strings.CutPrefix(key, "pod/")
	ns, name, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 {
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("zones: unknown key %q", key))
	}
	p, err := r.pods.Get(ctx, ns, name)
	if errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, nil
	}
	if err != nil {
		return reconcilers.Result{}, err
	}
	return reconcilers.Result{}, r.run(ctx, p)
}

func (r *Reconciler) reconcileNode(ctx context.Context, name string) error {
	herd := domain.SourceHerd
	pods, _, err := r.pods.List(ctx, projections.PodFilter{NodeName: name, Source: &herd})
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pods {
		if err := r.run(ctx, p); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// run brings one pod to running on its node's runtime, if that runtime is
// in this process and the node is Ready, and reports what came of it.
func (r *Reconciler) run(ctx context.Context, p domain.Pod) error {
	if !shouldRun(p) {
		return nil
	}
	node, err := r.nodes.Get(ctx, p.Spec.NodeName)
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
		if err := rt.Provision(ctx, p); err != nil {
			return r.failed(ctx, p, rt, node, ReasonProvisionFailed, err)
		}
	}
	status, err := rt.Start(ctx, p)
	if err != nil {
		return r.failed(ctx, p, rt, node, ReasonStartFailed, err)
	}
	return r.report(ctx, p, rt, runningStatus(p, node, status))
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
	_, err := r.repo.UpdatePod(ctx, seen.Namespace, seen.Name, func(p domain.Pod) ([]domain.Event, error) {
		left = !p.Exists() || p.UID != seen.UID || p.Deletion != nil && !p.Deletion.DeprovisionedAt.IsZero()
		if left || !shouldRun(p) || p.Spec.NodeName != seen.Spec.NodeName {
			return nil, nil
		}
		return domain.DecidePod(p, domain.UpdatePodStatus{Status: status}, r.clock.Now())
	})
	if err != nil {
		return fmt.Errorf("pod %s: report status: %w", seen.Key(), err)
	}
	if left {
		return rt.Deprovision(ctx, seen)
	}
	return nil
}
