package daemonset

import (
	"sync"
	"time"
)

// The bounds of the wait between two deletions of a node's failed pod,
// Kubernetes' DaemonSet controller's (failedPodsBackoff): a pod that
// fails as soon as it starts is not made and deleted in a tight loop.
const (
	failedBackoffInitial = time.Second
	failedBackoffMax     = 15 * time.Minute
)

// failedBackoff spaces the deletions of the failed pods of each
// DaemonSet on each node: the first at once, then after 1 s, 2 s, 4 s
// and so on up to 15 minutes; a node that has not had a failed pod for
// twice that is forgotten.
type failedBackoff struct {
	mu    sync.Mutex
	nodes map[string]backoffEntry
}

type backoffEntry struct {
	delay time.Duration
	last  time.Time
}

func newFailedBackoff() *failedBackoff { return &failedBackoff{nodes: map[string]backoffEntry{}} }

// wait returns how long to wait before deleting a failed pod of key (a
// DaemonSet's UID and a node) at now, zero when it may go now; a zero
// answer counts as a deletion, which doubles the next wait.
func (b *failedBackoff) wait(key string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.nodes[key]
	if ok && now.Sub(e.last) > 2*failedBackoffMax {
		ok = false
	}
	if ok && now.Before(e.last.Add(e.delay)) {
		return e.last.Add(e.delay).Sub(now)
	}
	switch {
	case !ok:
		e.delay = failedBackoffInitial
	default:
		e.delay = min(2*e.delay, failedBackoffMax)
	}
	e.last = now
	b.nodes[key] = e
	return 0
}
