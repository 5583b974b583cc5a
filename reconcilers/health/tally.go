package health

import (
	"sync"

	"herd/domain"
)

// tally is the health rules' count of the fleet for the disruption rule:
// which nodes are expected to report and which of those are unreachable.
// It is read once from the view (at the first need and on every full
// resync, which also heals any drift) and then kept up to date by every
// node's reconcile and every monitor pass, so that judging the fleet costs
// the same with ten nodes as with a hundred thousand.
//
// Between two full resyncs it can lag the view by what concurrent
// reconciles of one node wrote in the other order; the next reconcile of
// that node, or the next full resync, puts it right.
type tally struct {
	mu     sync.Mutex
	seeded bool
	// unreachable holds every node expected to report, and whether it is
	// unreachable.
	unreachable map[string]bool
	// down counts the true values of unreachable.
	down int
}

// needsSeed reports whether the tally has never been read from the view.
func (t *tally) needsSeed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.seeded
}

// seed replaces the whole count.
func (t *tally) seed(unreachable map[string]bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seeded, t.unreachable, t.down = true, unreachable, 0
	for _, u := range unreachable {
		if u {
			t.down++
		}
	}
}

// set records one node: expected to report or not, and unreachable or not.
func (t *tally) set(name string, expected, unreachable bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.unreachable == nil {
		t.unreachable = map[string]bool{}
	}
	was, ok := t.unreachable[name]
	if ok && was {
		t.down--
	}
	if !expected {
		delete(t.unreachable, name)
		return
	}
	t.unreachable[name] = unreachable
	if unreachable {
		t.down++
	}
}

// assessment is the fleet as counted.
func (t *tally) assessment() domain.AssessFleet {
	t.mu.Lock()
	defer t.mu.Unlock()
	return domain.AssessFleet{Unreachable: t.down, Total: len(t.unreachable)}
}
