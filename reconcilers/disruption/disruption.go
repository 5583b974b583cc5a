package disruption

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers"
)

// Reconciler is the disruption reconciler. Its keys are budgets, and
// namespaces: a namespace's key stands for every budget in it, which is
// what an event of one of its pods or ReplicaSets calls for. Its
// resync counts every budget.
type Reconciler struct {
	reconcilers.Kind[domain.PodDisruptionBudget]
	cfg         Config
	budgets     Reader
	pods        PodLister
	replicaSets ReplicaSetReader
	// deployments, when set, gives the scale of a ReplicaSet's
	// Deployment; without, the ReplicaSet's own counts.
	deployments DeploymentReader
	commands    domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	clock       clock.PassiveClock
	log         *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the disruption reconciler, or the configuration's problems.
func New(cfg Config, budgets Reader, pods PodLister, replicaSets ReplicaSetReader,
	commands domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand], clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reconciler{Kind: reconcilers.NewKind("disruption", domain.PodDisruptionBudgetAggregate, cfg.ResyncPeriod, budgets),
		cfg: cfg, budgets: budgets, pods: pods, replicaSets: replicaSets, commands: commands, clock: clk, log: log.Named("disruption")}, nil
}

// Watches implements reconcilers.Reconciler: budgets, but the status the
// reconciler records itself and a change of their labels or annotations
// alone (a budget counts what its spec says), and what happens to a pod or a ReplicaSet
// that may change what a budget of its namespace counts, mapped to the
// namespace, whose every budget is counted again: a pod's coming, labels,
// owners, readiness and going (every event of a pod that its controller
// sees too), and a ReplicaSet's scale (not its labels or annotations
// alone, which change no count).
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.PodDisruptionBudgetAggregate, domain.PodDisruptionBudgetStatusRecorded{}, domain.PodDisruptionBudgetMetadataChanged{}).
		Takes(domain.NamespaceAggregate).
		Watches(reconcilers.EventsOf(domain.PodAggregate, reconcilers.PodStepsOwnersIgnore...).With(
			domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{}, domain.ReplicaSetDeleted{},
		), reconcilers.ToNamespace)
}

// Reconcile counts one budget, or every budget of a namespace, and
// records what it counted.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = r.Acting(ctx)
	var budgets []domain.PodDisruptionBudget
	namespace := key.Namespace
	if key.Aggregate == domain.NamespaceAggregate {
		namespace = key.Name
		all, _, err := r.budgets.List(ctx, namespace)
		if err != nil {
			return reconcilers.Result{}, fmt.Errorf("list poddisruptionbudgets of %s: %w", namespace, err)
		}
		budgets = all
	} else {
		b, err := r.budgets.Get(ctx, key.Namespace, key.Name)
		if errors.Is(err, domain.ErrNotFound) {
			return reconcilers.Result{}, nil
		}
		if err != nil {
			return reconcilers.Result{}, fmt.Errorf("get poddisruptionbudget %s: %w", key, err)
		}
		budgets = []domain.PodDisruptionBudget{b}
	}
	if len(budgets) == 0 {
		return reconcilers.Result{}, nil
	}
	// The pods are read after the budgets: a budget's resourceVersion,
	// the condition of its status write, then covers every eviction that
	// could have changed what the pods say.
	pods, _, err := r.pods.List(ctx, projections.PodFilter{Namespace: namespace})
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("list pods of namespace %s: %w", namespace, err)
	}
	var (
		result reconcilers.Result
		errs   []error
	)
	for _, b := range budgets {
		next, err := r.sync(ctx, b, pods)
		if err != nil {
			errs = append(errs, err)
		}
		if next > 0 && (result.RequeueAfter == 0 || next < result.RequeueAfter) {
			result.RequeueAfter = next
		}
	}
	return result, errors.Join(errs...)
}

// sync counts b's pods among pods and records its status, conditional on
// the budget being as read: an eviction that spent it since makes the
// write conflict, and the budget is counted again (its grant is an event
// that brings the key back). A budget that cannot be counted allows no
// disruption (Kubernetes' failSafe). It returns when to count b again,
// for a granted disruption that times out.
func (r *Reconciler) sync(ctx context.Context, b domain.PodDisruptionBudget, all []domain.Pod) (time.Duration, error) {
	var pods []domain.Pod
	for _, p := range all {
		if domain.BudgetSelects(b, p) {
			pods = append(pods, p)
		}
	}
	now := r.clock.Now()
	c, err := r.count(ctx, b, pods, now)
	var st domain.PodDisruptionBudgetStatus
	if err != nil {
		r.log.Warn("poddisruptionbudget cannot be counted: no disruption allowed", zap.String("poddisruptionbudget", b.Key().String()), zap.Error(err))
		st = b.Status.FailSafe(err, now)
	} else {
		if len(c.unmanaged) > 0 {
			r.log.Debug("poddisruptionbudget selects pods without a controller, which its expected count leaves out",
				zap.String("poddisruptionbudget", b.Key().String()), zap.Strings("pods", c.unmanaged))
		}
		st = c.status(b, now)
	}
	// The status names as its cause the change it counted that made it
	// so (countCause); the record that queued the key is the fallback.
	if rec, ok, err := countCause(ctx, b, pods); err != nil {
		return 0, fmt.Errorf("cause of poddisruptionbudget %s's status: %w", b.Key(), err)
	} else if ok {
		ctx = reconcilers.Because(ctx, rec)
	}
	cmd := domain.Precondition[domain.PodDisruptionBudgetCommand]{ResourceVersion: b.ResourceVersion, Command: domain.RecordPodDisruptionBudgetStatus{Status: st}}
	if _, err := r.commands.Execute(ctx, b.Key(), cmd); err != nil {
		if errors.Is(err, domain.ErrNotFound) || errors.Is(err, domain.ErrConflict) {
			// Gone since, or changed since: its own event counts it again.
			return 0, nil
		}
		return 0, fmt.Errorf("record status of poddisruptionbudget %s: %w", b.Key(), err)
	}
	if c.recheck.IsZero() {
		return 0, nil
	}
	return c.recheck.Sub(now) + time.Second, nil
}
