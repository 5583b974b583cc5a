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
	// gen counts the seeds and resets: a recount begun before one is
	// dropped, the count it would replace being as new as its own.
	gen uint64
	// touched, while a recount is under way (non-nil), names the nodes
	// set since it began: their verdict is newer than the recount's.
	touched map[string]struct{}
	// spareNodes and spareSilent are the maps of the count the last
	// recount replaced, which the next one fills (recounting held).
	spareNodes  map[string]reach
	spareSilent map[string]struct{}
	// recounting is held by a recount from its start to its swap: one
	// recount at a time, never holding mu while it counts.
	recounting sync.Mutex
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
	t.gen++
}

// seed replaces the whole count.
func (t *tally) seed(nodes map[string]reach) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seeded, t.nodes, t.down, t.silent = true, make(map[string]reach, len(nodes)), 0, map[string]struct{}{}
	t.gen++
	for name, r := range nodes {
		t.setLocked(name, true, r)
	}
}

// recount replaces the whole count with the nodes fill puts, each once.
// fill runs without the count's lock: the count stays as it was, and
// readable and settable, while it runs, and the new count takes its
// place in one short step at the end. A node set while fill ran keeps
// that verdict, which is newer than fill's; a seed or reset while fill
// ran wins over the recount, which is dropped. The maps of the count it
// replaces are kept for the next recount to fill: a full resync from
// memory counts the fleet every period without allocating it again.
func (t *tally) recount(fill func(put func(name string, r reach))) {
	t.recounting.Lock()
	defer t.recounting.Unlock()
	t.mu.Lock()
	gen := t.gen
	t.touched = map[string]struct{}{}
	nodes, sil := t.spareNodes, t.spareSilent
	t.spareNodes, t.spareSilent = nil, nil
	t.mu.Unlock()
	if nodes == nil {
		nodes, sil = map[string]reach{}, map[string]struct{}{}
	}
	clear(nodes)
	clear(sil)
	down := 0
	fill(func(name string, r reach) {
		// The maps were cleared, and fill puts each name once: nothing
		// of name's to take back first.
		nodes[name] = r
		if r != reachable {
			down++
		}
		if r == silent {
			sil[name] = struct{}{}
		}
	})
	t.mu.Lock()
	defer t.mu.Unlock()
	touched := t.touched
	t.touched = nil
	if t.gen != gen {
		t.spareNodes, t.spareSilent = nodes, sil
		return
	}
	for name := range touched {
		if was, ok := nodes[name]; ok {
			if was != reachable {
				down--
			}
			delete(nodes, name)
			delete(sil, name)
		}
		r, ok := t.nodes[name]
		if !ok {
			continue // set as not expected to report
		}
		nodes[name] = r
		if r != reachable {
			down++
		}
		if r == silent {
			sil[name] = struct{}{}
		}
	}
	t.spareNodes, t.spareSilent = t.nodes, t.silent
	t.seeded, t.nodes, t.silent, t.down = true, nodes, sil, down
}

// set records one node: expected to report or not, and how it is reached.
func (t *tally) set(name string, expected bool, r reach) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.nodes == nil {
		t.nodes, t.silent = map[string]reach{}, map[string]struct{}{}
	}
	if t.touched != nil {
		t.touched[name] = struct{}{}
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
