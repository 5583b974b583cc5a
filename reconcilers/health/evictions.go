package health

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"herd/domain"
	"herd/reconcilers"
)

// keyEvictions is the pass that gives the nodes waiting for their
// NoExecute taint their turns, as the eviction rate allows.
var keyEvictions = reconcilers.Pass("evictions")

// evictionQueue is the eviction rate (--node-eviction-rate): the nodes
// whose Ready condition calls for a NoExecute taint they do not carry
// get it one at a time, first come first served, at most rate a second,
// as Kubernetes' node lifecycle controller taints them through its
// rate-limited queue. Without a rate every node gets its taint at once.
//
// The limiter counts on herd's clock, so that the what-if, on its
// simulated clock, keeps the same pace. Its rate changes with the fleet's
// state (pace): a partial disruption of a large fleet slows it to the
// secondary rate.
type evictionQueue struct {
	mu  sync.Mutex
	lim *rate.Limiter // nil: no rate
	// waiting are the nodes in the order they asked; an entry whose
	// node is not in queued any more (it got its turn, or was
	// forgotten) is skipped.
	waiting []string
	// queued are the nodes waiting, with when each began to.
	queued map[string]time.Time
}

func newEvictionQueue(perSecond float64) *evictionQueue {
	q := &evictionQueue{queued: map[string]time.Time{}}
	q.setRate(perSecond, time.Time{})
	return q
}

// setRate makes the queue give perSecond turns a second from now on (0:
// no limit). A limiter already running keeps the turn it holds, as
// Kubernetes' queue keeps it when its rate is swapped.
func (q *evictionQueue) setRate(perSecond float64, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case perSecond <= 0:
		q.lim = nil
	case q.lim == nil:
		// One at a time, as Kubernetes' queue: a burst of one.
		q.lim = rate.NewLimiter(rate.Limit(perSecond), 1)
	case q.lim.Limit() != rate.Limit(perSecond):
		q.lim.SetLimitAt(now, rate.Limit(perSecond))
	}
}

// limited says whether a rate holds the taints back.
func (q *evictionQueue) limited() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lim != nil
}

// first is the first node waiting, dropping the entries of nodes gone
// from the queue; q.mu is held.
func (q *evictionQueue) first() (string, bool) {
	for len(q.waiting) > 0 && q.queued[q.waiting[0]].IsZero() {
		q.waiting = q.waiting[1:]
	}
	if len(q.waiting) == 0 {
		return "", false
	}
	return q.waiting[0], true
}

// turn says whether node may have its NoExecute taint now: no rate, or
// no node waiting before it and the rate allows one more at now. A node
// that may not waits, in the order it first asked.
func (q *evictionQueue) turn(node string, now time.Time) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lim == nil {
		return true
	}
	head, waiting := q.first()
	if (!waiting || head == node) && q.lim.AllowN(now, 1) {
		if waiting {
			delete(q.queued, node)
			q.waiting = q.waiting[1:]
		}
		return true
	}
	q.enqueue(node, now)
	return false
}

// forget takes node out of the queue: at its turn it needs no new
// NoExecute taint any more (it reported, or was deleted), or the fleet is
// disrupted and no taint is added at all. Without a rate nothing is
// queued but what a rate queued before it was lifted; forgetting that is
// harmless.
func (q *evictionQueue) forget(node string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.queued, node)
}

// wait adds nodes to the queue at now, in their order, those not in it
// yet.
func (q *evictionQueue) wait(nodes []string, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range nodes {
		q.enqueue(n, now)
	}
}

// enqueue adds node at the end of the queue unless it waits already;
// q.mu is held.
func (q *evictionQueue) enqueue(node string, now time.Time) {
	if _, ok := q.queued[node]; !ok {
		q.queued[node] = now
		q.waiting = append(q.waiting, node)
	}
}

// settled takes a waiting node that needs no new NoExecute taint, as n
// reads at now, out of the queue once that is sure: it carries the
// taint already, or it was heard from after it began to wait, or it has
// waited longer than a monitor period (the mark of the pass that queued
// it has landed by then). A read taken before the node's mark was
// written shows none of these, and the node keeps its place.
func (q *evictionQueue) settled(n domain.Node, now time.Time, monitorPeriod time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	since, ok := q.queued[n.Name]
	if !ok {
		return
	}
	ready, _ := n.Condition(domain.ConditionReady)
	carries := ready.Status == domain.ConditionUnknown || ready.Status == domain.ConditionFalse
	if carries || n.LastHeartbeat.After(since) || now.Sub(since) > monitorPeriod {
		delete(q.queued, n.Name)
	}
}

// head is the first node waiting, and how long from now until the rate
// allows the next taint.
func (q *evictionQueue) head(now time.Time) (string, time.Duration, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.lim == nil {
		return "", 0, false
	}
	name, ok := q.first()
	if !ok {
		return "", 0, false
	}
	var wait time.Duration
	if tokens := q.lim.TokensAt(now); tokens < 1 {
		wait = time.Duration(math.Ceil((1 - tokens) / float64(q.lim.Limit()) * float64(time.Second)))
	}
	return name, wait, true
}

// giveTurns gives the waiting nodes their NoExecute taints, first come
// first served, as long as the rate allows, and says when to come back
// for the next (0: nobody waits). A node that no longer calls for a new
// NoExecute taint leaves the queue without using a turn.
func (r *Reconciler) giveTurns(ctx context.Context) (time.Duration, error) {
	if _, wait, ok := r.evictions.head(r.clock.Now()); !ok || wait > 0 {
		return wait, nil
	}
	// Read once a pass: a disruption that starts meanwhile withholds or
	// slows the taints of the nodes synced after it at the next pass.
	f, err := r.view.FleetHealth(ctx)
	if err != nil {
		return 0, err
	}
	p := r.pace(f.Disrupted, r.assess())
	if p.pause {
		// No turns while the disruption lasts; the nodes keep their
		// places for its end.
		return 0, nil
	}
	for {
		name, wait, ok := r.evictions.head(r.clock.Now())
		if !ok {
			return 0, nil
		}
		if wait > 0 {
			return wait, nil
		}
		n, err := r.view.Get(ctx, name)
		if errors.Is(err, domain.ErrNotFound) {
			r.evictions.forget(name)
			continue
		}
		if err != nil {
			return 0, err
		}
		if err := r.syncTaints(ctx, n, p); err != nil {
			return 0, err
		}
		if next, wait, ok := r.evictions.head(r.clock.Now()); ok && next == name {
			// Still first: another pass took the rate's turn
			// meanwhile; come back when the next is due.
			return max(wait, time.Millisecond), nil
		}
	}
}

// noExecute is what the fleet's state allows of NoExecute taints, as
// Kubernetes' node lifecycle controller treats a zone's state.
type noExecute struct {
	// withhold adds none and takes off those present: every node is
	// unreachable (Kubernetes' full disruption of every zone).
	withhold bool
	// pause adds none and leaves those present: a disruption of a
	// fleet still partly reachable, with no rate for it (Kubernetes'
	// partial disruption, its queue's rate set to 0).
	pause bool
}

// adds says whether new NoExecute taints go on, at the queue's rate.
func (p noExecute) adds() bool { return !p.withhold && !p.pause }

// pace sets the rate of new NoExecute taints for the fleet as a counts
// it, disrupted as recorded or judged, and says what the fleet's state
// allows: without a disruption they go at the eviction rate (or all at
// once); during one, at the secondary rate in a large fleet still partly
// reachable (domain.AssessFleet.DisruptedRate), or none are added, and
// when every node is unreachable those present come off too.
func (r *Reconciler) pace(disrupted bool, a domain.AssessFleet) noExecute {
	perSecond := r.cfg.EvictionRate
	if disrupted {
		if a.EveryNodeUnreachable() {
			return noExecute{withhold: true}
		}
		if perSecond = a.DisruptedRate(); perSecond == 0 {
			return noExecute{pause: true}
		}
	}
	r.evictions.setRate(perSecond, r.clock.Now())
	return noExecute{}
}
