package health

import (
	"time"

	"go.uber.org/zap"

	"herd/domain"
)

// silent judges node name, whose last written heartbeat is lastHeartbeat
// (zero: it never reported), at now, the rules having watched since
// since. A heartbeat herd received counts as heard though its write has
// not landed (Arrivals), and while herd's writes are behind, a node is
// given its grace period plus that delay: its renewal may be one of the
// writes waiting, or stuck behind them on its way in, and herd must not
// mark a node for its own slowness. ownDelay says the node would be
// silent but for that allowance.
func (r *Reconciler) silent(name string, lastHeartbeat, registeredAt, since, now time.Time) (silent, ownDelay bool) {
	return r.silentWith(name, lastHeartbeat, registeredAt, since, now, r.backlog.Oldest)
}

// silentWith is silent with lag telling how far behind herd's writes are,
// asked only of a node silent by its heartbeats. A node heard within its
// grace period by its written heartbeat is not silent whatever arrived
// since (a later heartbeat only moves its deadline on), so the arrivals
// are asked only of a node that is, or that never reported in writing.
func (r *Reconciler) silentWith(name string, lastHeartbeat, registeredAt, since, now time.Time, lag func() time.Duration) (silent, ownDelay bool) {
	grace, startup := r.cfg.GracePeriod, r.cfg.StartupGracePeriod
	if !lastHeartbeat.IsZero() && !domain.SilentSince(lastHeartbeat, registeredAt, since, now, grace, startup) {
		return false, false
	}
	if arrived := r.arrivals.LastArrival(name, now); arrived.After(lastHeartbeat) {
		lastHeartbeat = arrived
	}
	if !domain.SilentSince(lastHeartbeat, registeredAt, since, now, grace, startup) {
		return false, false
	}
	behind := lag()
	if behind <= 0 {
		return true, false
	}
	if domain.SilentSince(lastHeartbeat, registeredAt, since, now, grace+behind, startup+behind) {
		return true, false
	}
	return false, true
}

// classify is how the fleet's count takes node name: unknown when it is
// marked, silent when silent by the rules above, reachable otherwise.
func (r *Reconciler) classify(name string, ready domain.ConditionStatus, lastHeartbeat, registeredAt, since, now time.Time) reach {
	return r.classifyWith(name, ready, lastHeartbeat, registeredAt, since, now, r.backlog.Oldest)
}

// classifyWith is classify with lag as in silentWith.
func (r *Reconciler) classifyWith(name string, ready domain.ConditionStatus, lastHeartbeat, registeredAt, since, now time.Time, lag func() time.Duration) reach {
	if ready == domain.ConditionUnknown {
		return unknown
	}
	if s, _ := r.silentWith(name, lastHeartbeat, registeredAt, since, now, lag); s {
		return silent
	}
	return reachable
}

// noteHeld says, once when it starts and once when it ends, that the
// monitor holds back nodes it would have marked because herd's own writes
// are behind: the operator sees why nodes that look silent are not
// marked, as a fleet disruption says why nothing is evicted.
func (r *Reconciler) noteHeld(held []string) {
	r.mu.Lock()
	was := r.holding
	r.holding = len(held) > 0
	r.mu.Unlock()
	switch {
	case len(held) > 0 && !was:
		r.log.Warn("herd's writes are behind: nodes silent no longer than that delay are not marked",
			zap.Int("nodes", len(held)), zap.String("first", held[0]), zap.Duration("behind", r.backlog.Oldest()))
	case len(held) == 0 && was:
		r.log.Info("herd's writes caught up: silent nodes are marked again after their grace period")
	}
}

// noArrivals knows of no heartbeat beyond the log.
type noArrivals struct{}

func (noArrivals) LastArrival(string, time.Time) time.Time { return time.Time{} }

// noBacklog is a write path that never falls behind.
type noBacklog struct{}

func (noBacklog) Oldest() time.Duration { return 0 }
