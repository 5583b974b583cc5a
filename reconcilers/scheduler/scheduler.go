package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// keyPending is the one key the scheduler works on: a pass over every
// pending pod. Whatever calls for a pass queues it; the work queue keeps
// one copy however many events arrive while a pass runs.
const keyPending = "pending"

// Repository is what the scheduler writes through: one pod at a time, or
// many in one transaction.
type Repository interface {
	domain.PodRepository
	UpdatePods(ctx context.Context, updates []projections.PodUpdate) ([]domain.Pod, error)
}

// Reconciler is the scheduler.
type Reconciler struct {
	cfg   Config
	repo  Repository
	nodes *projections.NodeView
	pods  *projections.PodView
	clock clock.PassiveClock
	log   *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the scheduler. Settings left at zero take their defaults.
func New(cfg Config, repo Repository, nodes *projections.NodeView, pods *projections.PodView, clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Reconciler{cfg: cfg, repo: repo, nodes: nodes, pods: pods, clock: clk, log: log.Named("scheduler")}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "scheduler" }

// KeysFor calls for a pass when a pod is created, when a pod lets go of
// its node's resources (finalized, or finished), and on every node event
// but a plain heartbeat: registrations, conditions, taints, cordons,
// labels and deletions all change where pods fit.
func (r *Reconciler) KeysFor(rec events.Record) []string {
	switch {
	case domain.NodeAggregate.Owns(rec.Stream):
		if rec.Type == (domain.HeartbeatRecorded{}).EventType() {
			return nil
		}
		return []string{keyPending}
	case domain.PodAggregate.Owns(rec.Stream):
		switch rec.Type {
		case (domain.PodCreated{}).EventType(), (domain.PodFinalized{}).EventType():
			return []string{keyPending}
		case (domain.PodStatusUpdated{}).EventType():
			if finishedPhase(rec.Payload) {
				return []string{keyPending}
			}
		}
	}
	return nil
}

// finishedPhase reports whether a PodStatusUpdated payload takes the pod
// to Succeeded or Failed.
func finishedPhase(payload []byte) bool {
	var ev struct {
		Status struct {
			Phase domain.PodPhase `json:"phase"`
		} `json:"status"`
	}
	if json.Unmarshal(payload, &ev) != nil {
		return false
	}
	return ev.Status.Phase == domain.PodSucceeded || ev.Status.Phase == domain.PodFailed
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.ResyncPeriod }

// Resync tries every pending pod again.
func (r *Reconciler) Resync(context.Context) ([]string, error) { return []string{keyPending}, nil }

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key string) (reconcilers.Result, error) {
	if key != keyPending {
		return reconcilers.Result{}, reconcilers.Terminal(fmt.Errorf("scheduler: unknown key %q", key))
	}
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:scheduler", Source: "reconciler/scheduler"})
	return reconcilers.Result{}, r.schedule(ctx)
}

// schedule is one pass: it reads the fleet, plans every pending pod in
// memory and writes the outcome.
func (r *Reconciler) schedule(ctx context.Context) error {
	herd := domain.SourceHerd
	waiting, _, err := r.pods.List(ctx, projections.PodFilter{Unbound: true, Source: &herd})
	if err != nil {
		return err
	}
	// Most passes find nothing to do: look before reading the whole
	// fleet.
	if !anyPending(waiting) {
		return nil
	}
	nodes, _, err := r.nodes.List(ctx)
	if err != nil {
		return err
	}
	pods, _, err := r.pods.List(ctx, projections.PodFilter{})
	if err != nil {
		return err
	}
	// Wall time on purpose: what the pass cost, for the debug log, not a
	// domain time (those come from r.clock).
	start := time.Now()
	decisions := plan(nodes, pods)
	planned := time.Since(start)
	bound, marked, err := r.write(ctx, decisions)
	r.log.Debug("scheduling pass", zap.Int("pending", len(decisions)), zap.Int("bound", bound),
		zap.Int("unschedulable", len(decisions)-bound), zap.Int("marked", marked),
		zap.Duration("planned", planned), zap.Duration("took", time.Since(start)))
	return err
}

func anyPending(pods []domain.Pod) bool {
	for _, p := range pods {
		if pending(p) {
			return true
		}
	}
	return false
}
