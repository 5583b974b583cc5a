package daemonset

import (
	"sync"
	"time"

	"herd/reconcilers"
)

// Bounds of the pause between two reconciles of a DaemonSet that only
// its pods' readiness calls for: paceFactor times what the last one
// took, at most paceMax.
const (
	paceFactor = 4
	paceMax    = 10 * time.Second
)

// pace keeps a DaemonSet whose pods keep changing readiness — a fleet's
// pods starting one after another — from being reconciled back to back:
// each reconcile reads every node and every pod of its namespace, so at
// 10,000 nodes a reconcile per pod that turns ready would keep a core
// busy for nothing but the status's counts. A reconcile that only
// readiness changes call for waits until paceFactor times the last one's
// duration has passed since it ended, so that such work takes at most a
// fifth of a core; anything else — the DaemonSet changed, a node, a pod
// created, failed, finished or gone, a resync — is reconciled at once.
// Small fleets, whose reconciles take milliseconds, hardly wait.
type pace struct {
	mu   sync.Mutex
	keys map[reconcilers.Key]*paced
}

type paced struct {
	// wanted counts the events that call for a reconcile at once; seen
	// is wanted when the last reconcile began.
	wanted, seen uint64
	// last is when the last reconcile ended, and cost what it took.
	last time.Time
	cost time.Duration
}

func newPace() *pace { return &pace{keys: map[reconcilers.Key]*paced{}} }

func (p *pace) entry(k reconcilers.Key) *paced {
	e := p.keys[k]
	if e == nil {
		e = &paced{}
		p.keys[k] = e
	}
	return e
}

// want records an event that calls for reconciling k at once.
func (p *pace) want(k reconcilers.Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.entry(k).wanted++
}

// begin returns how long a reconcile of k beginning at now should wait,
// zero when it may go on, in which case it counts as begun.
func (p *pace) begin(k reconcilers.Key, now time.Time) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(k)
	if e.wanted == e.seen && !e.last.IsZero() {
		if next := e.last.Add(min(paceFactor*e.cost, paceMax)); now.Before(next) {
			return next.Sub(now)
		}
	}
	e.seen = e.wanted
	return 0
}

// end records that the reconcile of k that began at start ended at now.
func (p *pace) end(k reconcilers.Key, start, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.keys[k]; e != nil {
		e.last, e.cost = now, now.Sub(start)
	}
}

// forget drops what is known of k, a DaemonSet that is gone.
func (p *pace) forget(k reconcilers.Key) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.keys, k)
}
