package health

import (
	"sync"

	"herd/domain"
)

// reach is how the disruption rule sees one node.
type reach uint8

const (
	// reachable: reporting, or never reported and still within its
	// startup grace.
	reachable reach = iota
	// silent: past its deadline, not marked Unknown yet. It counts as
	// unreachable, so that a reconcile running beside a monitor pass does
	// not see an outage half-recorded and end the disruption the monitor
	// has just started.
	silent
	// unknown: Ready is Unknown.
	unknown
)

// tally is the health rules' count of the fleet for the disruption rule:
// which nodes are expected to report and how each is reached. It is read
// from the view at the first need and by every full resync that reads the
// view in full (which also heals any drift), counted afresh from the
// deadlines kept in memory by the other full resyncs, and kept up to date
// by every node's reconcile and every monitor pass, so that judging the
// fleet costs the same with ten nodes as with a hundred thousand.
//
// Between two full resyncs it can lag the view by what concurrent
// reconciles of one node wrote in the other order; the next reconcile of
// that node, or the next full resync, puts it right.
type tally struct {
	mu     sync.Mutex
	seeded bool
	// nodes holds every node expected to report.
	nodes map[string]reach
	// down counts the nodes not reachable.
	down int
	// silent holds the nodes in state silent: the monitor pass looks
	// again at those it no longer finds past their deadline (they
	// reported, or it marked them).
	silent map[string]struct{}
}

// needsSeed reports whether the tally has never been read from the view.
func (t *tally) needsSeed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.seeded
}

// reset forgets the count: the next judgement reads the fleet afresh.
func (t *tally) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seeded, t.nodes, t.down, t.silent = false, nil, 0, nil
}

// seed replaces the whole count.
func (t *tally) seed(nodes map[string]reach) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seeded, t.nodes, t.down, t.silent = true, make(map[string]reach, len(nodes)), 0, map[string]struct{}{}
	for name, r := range nodes {
		t.setLocked(name, true, r)
	}
}

// recount replaces the whole count with the nodes fill puts, each once, in the
// maps of the count it replaces: a full resync from memory counts the
// fleet every period without allocating it again.
func (t *tally) recount(fill func(put func(name string, r reach))) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.nodes == nil {
		t.nodes, t.silent = map[string]reach{}, map[string]struct{}{}
	}
	clear(t.nodes)
	clear(t.silent)
	t.seeded, t.down = true, 0
	fill(func(name string, r reach) {
		// The maps were cleared, and fill puts each name once: nothing
		// of name's to take back first.
		t.nodes[name] = r
		if r != reachable {
			t.down++
		}
		if r == silent {
			t.silent[name] = struct{}{}
		}
	})
}

// set records one node: expected to report or not, and how it is reached.
func (t *tally) set(name string, expected bool, r reach) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.nodes == nil {
		t.nodes, t.silent = map[string]reach{}, map[string]struct{}{}
	}
	t.setLocked(name, expected, r)
}

// setLocked is set with t.mu held.
func (t *tally) setLocked(name string, expected bool, r reach) {
	if was, ok := t.nodes[name]; ok && was != reachable {
		t.down--
	}
	delete(t.silent, name)
	if !expected {
		delete(t.nodes, name)
		return
	}
	t.nodes[name] = r
	if r != reachable {
		t.down++
	}
	if r == silent {
		t.silent[name] = struct{}{}
	}
}

// silentNames lists the nodes in state silent.
func (t *tally) silentNames() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.silent))
	for name := range t.silent {
		out = append(out, name)
	}
	return out
}

// assessment is the fleet as counted.
func (t *tally) assessment() domain.AssessFleet {
	t.mu.Lock()
	defer t.mu.Unlock()
	return domain.AssessFleet{Unreachable: t.down, Total: len(t.nodes)}
}
