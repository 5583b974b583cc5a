package command

import (
	"strings"
	"sync"
)

// maxCachedStates bounds the states the unit of work remembers: nodes
// and their leases, one of each per node. 262,144 states keep a fleet of
// 131,072 kubelet nodes and their leases entirely in memory; a larger one
// evicts at random and reads the rows of the states it forgot, as it
// would without the cache (outside the write lock). At 32,768, 100,000
// nodes read their rows on most commands: herd carried 328 heartbeats a
// second at 4.9 ms of CPU each, against 800 at 1.8 ms with this bound,
// for 7% more RSS (BENCHMARKS.md, "100,000 kubelet nodes on a quiet
// machine").
const maxCachedStates = 1 << 18

// stateCache remembers, by stream, the state the unit of work last
// committed for an aggregate that asks for it (the node: a heartbeat would
// otherwise decode the node's whole JSON row inside the write lock, the
// largest single cost of a heartbeat). Entries are put only after the group
// that wrote them committed, so a rolled-back command never leaves one
// behind. A remembered state can still be stale if something else wrote the
// stream (another replica on the same PostgreSQL database, another process
// on the same SQLite file), or, on the group commit's leader, when an
// earlier command of the same group moved it and has not committed yet. A
// command that appends then conflicts on its expected version, and the unit
// of work forgets the entry and decides again on the row; a command that
// would append nothing (a refusal, a no-op) has no version to conflict on,
// so it is decided again on the row before it is answered: on the leader
// always, prepared when the log shows the stream moved past the entry
// (UpdateTx, tryPrepared).
type stateCache struct {
	mu sync.Mutex
	m  map[string]cachedState
	// committing counts, by stream, the groups whose commit may have
	// moved the stream and whose states are not put yet: from just
	// before the commit until the states are put (or forgotten). A read
	// (current) of such a stream goes to its row, which shows the commit
	// as soon as it is visible to anyone: a reader that saw the newer
	// row, or a watch event of it, never reads the older state after.
	committing map[string]int
	// sharing counts, by stream, the groups whose commit will share
	// the stream's state (Unit.ShareStates) and has not yet: from just
	// before the commit until the state is shared (Unit.Sharing).
	sharing map[string]int
}

// cachedState is a state and the stream version it reflects.
type cachedState struct {
	version int64
	state   any
}

func (c *stateCache) get(stream string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[stream]
	return e.state, ok
}

// current is stream's remembered state for a read: not while a commit
// that may move it is under way (committing).
func (c *stateCache) current(stream string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.committing[stream] > 0 {
		return nil, false
	}
	e, ok := c.m[stream]
	return e.state, ok
}

// isSharing reports whether stream is marked sharing (sharingStarts).
func (c *stateCache) isSharing(stream string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sharing[stream] > 0
}

// commitStarts marks streams as being committed, until commitEnded.
func (c *stateCache) commitStarts(streams []string) { c.mark(&c.committing, streams) }

// commitEnded ends what commitStarts marked.
func (c *stateCache) commitEnded(streams []string) { c.unmark(c.committing, streams) }

// sharingStarts marks streams as having a state to be shared, until
// sharingEnded.
func (c *stateCache) sharingStarts(streams []string) { c.mark(&c.sharing, streams) }

// sharingEnded ends what sharingStarts marked.
func (c *stateCache) sharingEnded(streams []string) { c.unmark(c.sharing, streams) }

// mark counts streams once more in *marks; unmark once less.
func (c *stateCache) mark(marks *map[string]int, streams []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *marks == nil {
		*marks = make(map[string]int)
	}
	for _, s := range streams {
		(*marks)[s]++
	}
}

func (c *stateCache) unmark(marks map[string]int, streams []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range streams {
		if marks[s]--; marks[s] <= 0 {
			delete(marks, s)
		}
	}
}

func (c *stateCache) put(stream string, version int64, state any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]cachedState)
	}
	if _, ok := c.m[stream]; !ok && len(c.m) >= maxCachedStates {
		for k := range c.m { // an arbitrary entry: Go's map order
			delete(c.m, k)
			break
		}
	}
	if e, ok := c.m[stream]; ok && e.version > version {
		return // a newer state is already remembered
	}
	c.m[stream] = cachedState{version: version, state: state}
}

func (c *stateCache) forget(stream string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, stream)
}

// forgetAt forgets stream's state if it is still the one at version: a
// newer one, put since by a command that committed, is kept.
func (c *stateCache) forgetAt(stream string, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[stream]; ok && e.version == version {
		delete(c.m, stream)
	}
}

// committingPrefix reports whether any stream beginning with prefix is
// being committed (commitStarts). The map holds only the streams of the
// group now committing, a few dozen at most.
func (c *stateCache) committingPrefix(prefix string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.committing {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
