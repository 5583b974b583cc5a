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
// simulated clock, keeps the same pace.
type evictionQueue struct {
	mu  sync.Mutex
	lim *rate.Limiter // nil: no rate
	// waiting are the nodes in the order they asked; an entry whose
	// node is not in queued any more (it got its turn, or was
	// forgotten) is skipped.
	waiting []string
	queued  map[string]bool
}

func newEvictionQueue(perSecond float64) *evictionQueue {
	q := &evictionQueue{queued: map[string]bool{}}
	if perSecond > 0 {
		// One at a time, as Kubernetes' queue: a burst of one.
		q.lim = rate.NewLimiter(rate.Limit(perSecond), 1)
	}
	return q
}

// limited says whether a rate holds the taints back.
func (q *evictionQueue) limited() bool { return q.lim != nil }

// first is the first node waiting, dropping the entries of nodes gone
// from the queue; q.mu is held.
func (q *evictionQueue) first() (string, bool) {
	for len(q.waiting) > 0 && !q.queued[q.waiting[0]] {
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
	if q.lim == nil {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	head, waiting := q.first()
	if (!waiting || head == node) && q.lim.AllowN(now, 1) {
		if waiting {
			delete(q.queued, node)
			q.waiting = q.waiting[1:]
		}
		return true
	}
	if !q.queued[node] {
		q.queued[node] = true
		q.waiting = append(q.waiting, node)
	}
	return false
}

// forget takes node out of the queue: it needs no new NoExecute taint
// any more (it reported, or was deleted), or the fleet is disrupted and
// no taint is added at all.
func (q *evictionQueue) forget(node string) {
	if q.lim == nil {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.queued, node)
}

// wait adds nodes to the queue, in their order, those not in it yet.
func (q *evictionQueue) wait(nodes []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range nodes {
		if !q.queued[n] {
			q.queued[n] = true
			q.waiting = append(q.waiting, n)
		}
	}
}

// head is the first node waiting, and how long from now until the rate
// allows the next taint.
func (q *evictionQueue) head(now time.Time) (string, time.Duration, bool) {
	if q.lim == nil {
		return "", 0, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
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
	// Read once a pass: a disruption that starts meanwhile withholds the
	// taints of the nodes synced after it at the next pass.
	f, err := r.view.FleetHealth(ctx)
	if err != nil {
		return 0, err
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
		if err := r.syncTaints(ctx, n, f.Disrupted); err != nil {
			return 0, err
		}
		if next, wait, ok := r.evictions.head(r.clock.Now()); ok && next == name {
			// Still first: another pass took the rate's turn
			// meanwhile; come back when the next is due.
			return max(wait, time.Millisecond), nil
		}
	}
}
