package health

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// The passes the reconciler works on besides its nodes.
var (
	// keyMonitor is the periodic check of every node's deadline.
	keyMonitor = reconcilers.Pass("monitor")
	// keyAll re-syncs every node's taints (after a fleet change, and on
	// the full resync).
	keyAll = reconcilers.Pass("all")
)

// Watches implements reconcilers.Reconciler: every node event but plain
// heartbeats, which change no condition by themselves, mapped to its
// node, and fleet changes to every node. Plain heartbeats, and the
// renewals of nodes' leases, move the node's deadline kept in memory and
// need no reconcile. Every node event is noted in the turns kept in
// memory, and every record of the fleet's in the fleet's turns.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.NodeAggregate, domain.HeartbeatRecorded{}).
		Passes(keyMonitor, keyAll, keyEvictions).
		Watches(reconcilers.EventsOf(domain.FleetAggregate), reconcilers.ToPass(keyAll)).
		Watches(reconcilers.EventsOf(domain.FleetAggregate), r.fleetTurns.note).
		Watches(reconcilers.EventTypesOf(domain.HeartbeatRecorded{}), r.heartbeat).
		Watches(reconcilers.EventsOf(domain.LeaseAggregate, domain.LeaseDeleted{}), r.leaseRenewed).
		Watches(reconcilers.EventsOf(domain.NodeAggregate), r.turns.note)
}

// heartbeat moves the node's deadline, and nothing else the health rules
// act on: noted here, as the dispatcher reads it, with no reconcile.
func (r *Reconciler) heartbeat(rec events.Record) []reconcilers.Key {
	if k, ok := reconcilers.KeyOf(rec); ok && k.Aggregate == domain.NodeAggregate {
		r.deadlines.heartbeat(k.Name, rec.RecordedAt)
	}
	return nil
}

// leaseRenewed is a node's lease renewed (or written with a renew time):
// the node's heartbeat, read from the lease's stream.
func (r *Reconciler) leaseRenewed(rec events.Record) []reconcilers.Key {
	if k, ok := reconcilers.KeyOf(rec); ok {
		if node, ok := domain.NodeLeaseHolder(k.Namespace, k.Name); ok {
			r.deadlines.heartbeat(node, rec.RecordedAt)
		}
	}
	return nil
}

// Repository is what the reconciler writes through.
type Repository interface {
	NodeCommands() domain.Executor[domain.Node, domain.NodeCommand]
	FleetHealthCommands() domain.Executor[domain.FleetHealth, domain.FleetCommand]
}

// Reconciler is the health reconciler.
type Reconciler struct {
	cfg   Config
	repo  Repository
	view  View
	clock clock.PassiveClock
	log   *zap.Logger
	fleet tally
	// deadlines are every node's heartbeat deadline, in memory.
	deadlines deadlines
	// turns are the nodes' conditions' last turns, the causes of their
	// taints' changes, in memory.
	turns turns
	// checks are the nodes a full resync checks the taints of, in
	// memory, and when it last read them from the view (resync.go).
	checks checks
	// fleetTurns are the fleet's last disruption start or end, the cause
	// of a NoExecute taint's change when it came after the condition's
	// turn, in memory.
	fleetTurns fleetTurns
	// arrivals are the heartbeats herd received that may not be in the
	// log yet; backlog says how far behind herd's writes are. A node is
	// silent only past its grace period from the later of its last
	// written heartbeat and its last arrival, plus how long herd's own
	// writes wait (silence.go).
	arrivals Arrivals
	backlog  Backlog
	// holding says the monitor held back silent nodes on its last pass
	// because herd's own writes were behind, so that it says so once
	// when it starts and once when it ends.
	holding bool
	// evictions are the nodes waiting for their NoExecute taints under
	// an eviction rate.
	evictions *evictionQueue
	// recountBuf is the copy of the deadlines a full resync's count
	// from memory counts from, kept for the next pass to fill again; it
	// is used only inside the tally's recount, one at a time.
	recountBuf []namedDeadline

	mu       sync.Mutex
	lastFull time.Time
	// started is when this term of the health rules began (BeginTerm):
	// no node is silent before a grace period from it. announced says
	// the start is in the log.
	started   time.Time
	announced bool
	// announcing is held while the start is being recorded.
	announcing sync.Mutex
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// Option sets what the health rules know besides the log and its views.
type Option func(*Reconciler)

// WithArrivals lets the health rules count a heartbeat herd received as
// heard before its write lands.
func WithArrivals(a Arrivals) Option { return func(r *Reconciler) { r.arrivals = a } }

// WithBacklog lets the health rules allow for herd's own delay: a node is
// not silent while its silence could be the time herd's writes wait.
func WithBacklog(b Backlog) Option { return func(r *Reconciler) { r.backlog = b } }

// New returns the health reconciler.
func New(cfg Config, repo Repository, view View, clk clock.PassiveClock, log *zap.Logger, opts ...Option) (*Reconciler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Reconciler{cfg: cfg, repo: repo, view: view, clock: clk, log: log.Named("health"), arrivals: noArrivals{}, backlog: noBacklog{},
		evictions: newEvictionQueue(cfg.EvictionRate)}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "health" }

// ResyncPeriod implements reconcilers.Resyncer: the monitor period.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.cfg.MonitorPeriod }

// Resync checks deadlines every monitor period and every node's taints
// every full resync period.
func (r *Reconciler) Resync(context.Context) ([]reconcilers.Key, error) {
	now := r.clock.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := []reconcilers.Key{keyMonitor}
	if r.lastFull.IsZero() || now.Sub(r.lastFull) >= r.cfg.FullResyncPeriod {
		r.lastFull = now
		keys = append(keys, keyAll)
	}
	if _, _, waiting := r.evictions.head(now); waiting {
		keys = append(keys, keyEvictions)
	}
	return keys, nil
}

// Reconcile implements reconcilers.Reconciler.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:health", Source: "reconciler/health"})
	switch key {
	case keyMonitor:
		return reconcilers.Result{}, r.monitor(ctx)
	case keyAll:
		return reconcilers.Result{}, r.syncAll(ctx)
	case keyEvictions:
		wait, err := r.giveTurns(ctx)
		return reconcilers.Result{RequeueAfter: wait}, err
	}
	return reconcilers.Result{}, r.reconcileNode(ctx, key.Name)
}
