package health

import (
	"context"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/reconcilers"
)

var _ reconcilers.TermStarter = (*Reconciler)(nil)

// BeginTerm implements reconcilers.TermStarter: the health rules start
// watching at at, at herd's start or when this replica takes them over.
// Every node then gets a full grace period from at, as
// kube-controller-manager's node lifecycle controller gives every node
// from its own start: a node's silence while herd was down (or while no
// replica ran the rules) is herd's absence, and restarting or upgrading
// herd must never mark or evict a node that reports within its grace
// period once herd is back. A node silent across the restart is marked
// one grace period after at. What the rules kept in memory from an
// earlier term is dropped, and the fleet is judged only once it has been
// read again from the view.
func (r *Reconciler) BeginTerm(at time.Time) {
	r.mu.Lock()
	r.started, r.lastFull, r.announced = at, time.Time{}, false
	r.mu.Unlock()
	r.fleet.reset()
	r.deadlines.reset()
	r.checks.reset()
}

// since is when the health rules started watching in this term; zero
// when no term began (a reconciler driven by hand in a test).
func (r *Reconciler) since() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// announce records, once per term, that the health rules started and
// when (domain.HealthMonitorStarted), so that the log says when herd was
// back: the what-if reads herd's downtime from it. A fleet of no node has
// no grace period to give, and nothing is recorded for it.
func (r *Reconciler) announce(ctx context.Context, nodes int) error {
	// One at a time: concurrent seeds must not record the start twice.
	r.announcing.Lock()
	defer r.announcing.Unlock()
	r.mu.Lock()
	at, done := r.started, r.announced
	r.mu.Unlock()
	if done || at.IsZero() {
		return nil
	}
	if nodes > 0 {
		if _, err := r.repo.FleetHealthCommands().Execute(ctx, domain.Key{}, domain.StartHealthMonitor{At: at, Nodes: nodes}); err != nil {
			return err
		}
		r.log.Info("health rules started: every node has a full grace period from now",
			zap.Time("since", at), zap.Int("nodes", nodes), zap.Duration("grace", r.cfg.GracePeriod))
	}
	r.mu.Lock()
	if r.started.Equal(at) {
		r.announced = true
	}
	r.mu.Unlock()
	return nil
}
