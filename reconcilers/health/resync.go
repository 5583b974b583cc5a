package health

import (
	"slices"
	"strings"
	"sync"

	"herd/domain"
)

// fullReadEvery is how many full resyncs pass between two that read the
// fleet from the view: the safety net for a change the memory missed (an
// event set aside as unreadable, a reconcile that failed). At the
// default period, every ten minutes.
const fullReadEvery = 20

// checks is, in memory, what a full resync reads of the fleet besides the
// deadlines: the nodes whose condition taints may not follow their
// conditions (those nodes_needing_taint_check names; needsTaintCheck),
// kept up to date by every node's reconcile, which reads the node after
// each of its events but plain heartbeats (its conditions, its taints,
// its deletion), and by the monitor's marks. With the deadlines, which
// the heartbeats and lease renewals the dispatcher hands over move, it
// lets a full resync judge the fleet and find the nodes to check without
// reading every node: the view is read in full by the first full resync
// of a term (events went unseen before it) and again every fullReadEvery
// full resyncs.
//
// A full read replaces the names, but not the verdict on a node noted
// while the read was under way: that note is newer than the read.
type checks struct {
	mu    sync.Mutex
	names map[string]struct{}
	// read says the view was read in full in this term; since counts the
	// full resyncs from memory after it.
	read  bool
	since int
	// touched, while a full read is under way (non-nil), names the nodes
	// noted since it began.
	touched map[string]struct{}
}

// needsTaintCheck is whether the full resync checks node n's taints: as
// the nodes_needing_taint_check index has it, Ready not True, a taint
// under node.kubernetes.io/, or a pressure condition True. A node outside
// it has no condition taint and needs none.
func needsTaintCheck(n domain.Node) bool {
	if !n.Exists() {
		return false
	}
	if ready, _ := n.Condition(domain.ConditionReady); ready.Status != domain.ConditionTrue {
		return true
	}
	for _, t := range n.Taints {
		if strings.HasPrefix(t.Key, "node.kubernetes.io/") {
			return true
		}
	}
	for _, c := range n.Conditions {
		if c.Status == domain.ConditionTrue && strings.HasSuffix(string(c.Type), "Pressure") {
			return true
		}
	}
	return false
}

// note takes node n (read under name; absent when deleted) as read.
func (c *checks) note(name string, n domain.Node) {
	c.set(name, needsTaintCheck(n))
}

// marked notes that node name was just marked unreachable: its Ready is
// Unknown.
func (c *checks) marked(name string) { c.set(name, true) }

func (c *checks) set(name string, need bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[string]struct{}{}
	}
	if need {
		c.names[name] = struct{}{}
	} else {
		delete(c.names, name)
	}
	if c.touched != nil {
		c.touched[name] = struct{}{}
	}
}

// due says whether the next full resync reads the view in full; when it
// does not, it counts that resync.
func (c *checks) due() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.read || c.since+1 >= fullReadEvery {
		return true
	}
	c.since++
	return false
}

// begin starts a full read: the nodes noted from now on keep their note.
func (c *checks) begin() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.touched = map[string]struct{}{}
}

// abort ends a full read that failed: the memory stays as it was, and
// the next full resync reads in full again.
func (c *checks) abort() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.touched = nil
}

// replace ends a full read that named listed.
func (c *checks) replace(listed []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := make(map[string]struct{}, len(listed))
	for _, name := range listed {
		if _, ok := c.touched[name]; !ok {
			m[name] = struct{}{}
		}
	}
	for name := range c.touched {
		if _, ok := c.names[name]; ok {
			m[name] = struct{}{}
		}
	}
	c.names, c.touched, c.read, c.since = m, nil, true, 0
}

// list names the nodes to check, in order.
func (c *checks) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.names))
	for name := range c.names {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// reset forgets everything: the next full resync reads in full.
func (c *checks) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names, c.read, c.since, c.touched = nil, false, 0, nil
}
