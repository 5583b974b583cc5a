package scheduler

import (
	"context"
	"encoding/json"
	"slices"
	"sync/atomic"
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
var keyPending = reconcilers.Pass("pending")

// Repository is what the scheduler writes through: one pod at a time, or
// many in one transaction.
type Repository interface {
	PodCommands() domain.Executor[domain.Pod, domain.PodCommand]
	PodBatch() domain.BatchExecutor[domain.Pod, domain.PodCommand]
}

// Reconciler is the scheduler.
type Reconciler struct {
	cfg   Config
	repo  Repository
	nodes NodeLister
	pods  PodLister
	clock clock.PassiveClock
	log   *zap.Logger

	// backoff holds the pods no node took, until they are tried again.
	backoff *backoff
	// roomMayHaveGrown is set by the mapping of events (Watches) when
	// an event may make room for pods that fit nowhere before, and taken
	// by the next pass, which then tries every pending pod at once.
	roomMayHaveGrown atomic.Bool
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the scheduler. Settings left at zero take their defaults.
func New(cfg Config, repo Repository, nodes NodeLister, pods PodLister, clk clock.PassiveClock, log *zap.Logger) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Reconciler{cfg: cfg, repo: repo, nodes: nodes, pods: pods, clock: clk, log: log.Named("scheduler"),
		backoff: newBackoff(cfg.InitialBackoff, cfg.MaxBackoff)}, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "scheduler" }

// Watches implements reconcilers.Reconciler: a pass when a pod is
// created, when a pod lets go of its node's resources (finalized, or
// finished), and on every node event but a plain heartbeat:
// registrations, conditions, taints, cordons, labels and deletions all
// change where pods fit. Of these, the ones that may make room for a pod
// that fit nowhere (see mayMakeRoom) also end every pod's backoff; the
// others leave backing-off pods alone.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		Passes(keyPending).
		Watches(mayMakeRoom.With(domain.PodFinalized{}), r.roomGrew).
		Watches(reconcilers.EventsOf(domain.NodeAggregate, domain.HeartbeatRecorded{}), reconcilers.ToPass(keyPending)).
		Watches(reconcilers.EventTypesOf(domain.PodCreated{}), reconcilers.ToPass(keyPending)).
		Watches(reconcilers.EventTypesOf(domain.PodStatusUpdated{}), r.podFinished)
}

// roomGrew notes that a pod that fit nowhere may fit now, and calls for a
// pass.
func (r *Reconciler) roomGrew(events.Record) []reconcilers.Key {
	r.roomMayHaveGrown.Store(true)
	return []reconcilers.Key{keyPending}
}

// podFinished is roomGrew for a pod's status that finishes it, and
// nothing for any other.
func (r *Reconciler) podFinished(rec events.Record) []reconcilers.Key {
	if finishedPhase(rec.Payload) {
		return r.roomGrew(rec)
	}
	return nil
}

// mayMakeRoom are the node events after which a pod that fit nowhere may
// fit: a node came (with its capacity), became Ready, lost a taint or its
// cordon, or got labels a selector may match. A node going away, tainted,
// cordoned or not ready cannot help one.
var mayMakeRoom = reconcilers.EventTypesOf(
	domain.NodeRegistered{},
	domain.NodeRestarted{},
	domain.NodeBecameReady{},
	domain.NodeUntainted{},
	domain.NodeUncordoned{},
	domain.NodeUndrained{},
	domain.NodeLabelsChanged{},
)

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
func (r *Reconciler) Resync(context.Context) ([]reconcilers.Key, error) {
	return []reconcilers.Key{keyPending}, nil
}

// Reconcile implements reconcilers.Reconciler. It asks to run again when
// the first pod's backoff ends.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:scheduler", Source: "reconciler/scheduler"})
	err := r.schedule(ctx)
	d, ok := r.backoff.next(r.clock.Now())
	if !ok {
		d = 0
	}
	return reconcilers.Result{RequeueAfter: d}, err
}

// schedule is one pass: it reads the fleet, plans every pending pod that
// is not backing off in memory and writes the outcome.
func (r *Reconciler) schedule(ctx context.Context) error {
	if r.roomMayHaveGrown.Swap(false) {
		r.backoff.flush()
	}
	now := r.clock.Now()
	herd := domain.SourceHerd
	waiting, err := r.pods.Pods(ctx, projections.PodFilter{Unbound: true, Source: &herd})
	if err != nil {
		return err
	}
	// Most passes find nothing to do: look before reading the whole
	// fleet.
	if !r.anyDue(waiting, now) {
		return nil
	}
	nodes, _, err := r.nodes.List(ctx)
	if err != nil {
		return err
	}
	pods, err := r.pods.Pods(ctx, projections.PodFilter{})
	if err != nil {
		return err
	}
	// A pending pod holds no node's resources, so one that is backing off
	// can be left out of the pass altogether.
	pods = slices.DeleteFunc(pods, func(p domain.Pod) bool { return pending(p) && r.backoff.waiting(keyOf(p), now) })
	// Wall time on purpose: what the pass cost, for the debug log, not a
	// domain time (those come from r.clock).
	start := time.Now()
	decisions := plan(nodes, pods, scorer(r.cfg.ScoringStrategy, r.cfg.Shape))
	planned := time.Since(start)
	for _, d := range decisions {
		if d.Node == "" {
			r.backoff.failed(podKey{d.Namespace, d.Name}, now)
		}
	}
	bound, marked, err := r.write(ctx, decisions)
	r.log.Debug("scheduling pass", zap.Int("pending", len(decisions)), zap.Int("bound", bound),
		zap.Int("unschedulable", len(decisions)-bound), zap.Int("marked", marked),
		zap.Duration("planned", planned), zap.Duration("took", time.Since(start)))
	return err
}

// anyDue reports whether any of pods is pending and not backing off, and
// forgets the backoff of every pod that no longer waits.
func (r *Reconciler) anyDue(pods []domain.Pod, now time.Time) bool {
	waiting := make(map[podKey]bool, len(pods))
	due := false
	for _, p := range pods {
		if !pending(p) {
			continue
		}
		k := keyOf(p)
		waiting[k] = true
		due = due || !r.backoff.waiting(k, now)
	}
	r.backoff.keep(waiting)
	return due
}

func keyOf(p domain.Pod) podKey { return podKey{p.Namespace, p.Name} }
