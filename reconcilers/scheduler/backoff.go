package scheduler

import (
	"sync"
	"time"
)

// podKey names a pod in the scheduler's bookkeeping.
type podKey struct{ Namespace, Name string }

// backoff is the scheduler's memory of the pods it could not place: how
// often in a row, and until when it leaves each alone. As in the Kubernetes
// scheduler, the wait starts at the initial backoff and doubles with each
// attempt up to the maximum; something that may make room for the pods
// (a node registered, Ready, untainted, uncordoned, relabelled, a pod
// gone from its node) ends every wait at once. It lives in memory only, as
// kube-scheduler's queue does: after a restart every pending pod is tried
// at once.
type backoff struct {
	initial, max time.Duration

	mu   sync.Mutex
	pods map[podKey]attempt
}

// attempt is one pod's record of failures.
type attempt struct {
	// failures counts the passes in a row that found no node for the pod.
	failures int
	// until is when the pod may be tried again; zero once a change in the
	// fleet ended the wait.
	until time.Time
}

func newBackoff(initial, max time.Duration) *backoff {
	return &backoff{initial: initial, max: max, pods: map[podKey]attempt{}}
}

// waiting reports whether k is still backing off at now.
func (b *backoff) waiting(k podKey, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pods[k].until.After(now)
}

// failed records that no node took k at now.
func (b *backoff) failed(k podKey, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.pods[k]
	a.failures++
	d := b.initial
	for i := 1; i < a.failures && d < b.max; i++ {
		d *= 2
	}
	a.until = now.Add(min(d, b.max))
	b.pods[k] = a
}

// flush ends every wait: the fleet changed in a way that may make room.
// The failure counts stay, so a pod that still fits nowhere backs off
// from where it was.
func (b *backoff) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, a := range b.pods {
		a.until = time.Time{}
		b.pods[k] = a
	}
}

// keep forgets every pod not in pending (bound, deleted, finished).
func (b *backoff) keep(pending map[podKey]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.pods {
		if !pending[k] {
			delete(b.pods, k)
		}
	}
}

// next is how long until the first wait ends after now, and false when no
// pod is waiting.
func (b *backoff) next(now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var first time.Time
	for _, a := range b.pods {
		if a.until.After(now) && (first.IsZero() || a.until.Before(first)) {
			first = a.until
		}
	}
	return first.Sub(now), !first.IsZero()
}
