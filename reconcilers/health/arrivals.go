package health

import (
	"sync"
	"time"
)

// Arrivals is what the health rules know of heartbeats that reached herd
// but may not be in the log yet: a node whose Lease renewal or status
// report herd has received is not silent, however long that write waits
// behind others for its commit (ARCHITECTURE.md, "When herd falls
// behind").
type Arrivals interface {
	// LastArrival is when herd last received a heartbeat of node name
	// (its status or its lease's renewal), by herd's clock: now while
	// one is still on its way to the log; zero when none arrived.
	LastArrival(name string, now time.Time) time.Time
}

// Backlog says how far behind herd's write path is.
type Backlog interface {
	// Oldest is how long the oldest write waiting for its commit has
	// waited, by herd's clock.
	Oldest() time.Duration
}

// Heard is the in-memory note of node heartbeats as they reach herd's API,
// before they join the write queue: the HTTP layer writes it (Arrive),
// the health rules read it (LastArrival). It is one process's memory: a
// replica knows only the heartbeats it received itself, and another
// replica's health rules learn of them from the log, as before. Nothing
// in it outlives the process; a restart gives every node a full grace
// period anyway (Reconciler.BeginTerm).
type Heard struct {
	mu    sync.Mutex
	nodes map[string]*arrival
}

// arrival is one node's heartbeats in flight and the last one kept.
type arrival struct {
	// last is when the latest heartbeat that herd did not refuse
	// arrived.
	last time.Time
	// pending counts the heartbeats received and not answered yet.
	pending int
}

var _ Arrivals = (*Heard)(nil)

// NewHeard returns an empty note.
func NewHeard() *Heard { return &Heard{nodes: map[string]*arrival{}} }

// Arrive notes that a heartbeat of node name reached herd at at. done
// must be called once it is answered: kept says whether it counts as
// heard, false when herd refused it as the client's mistake (a bad body,
// a stale resourceVersion), so that a node whose every heartbeat is
// refused still falls silent. Until done, the node counts as heard now.
func (h *Heard) Arrive(name string, at time.Time) (done func(kept bool)) {
	h.mu.Lock()
	a := h.nodes[name]
	if a == nil {
		a = &arrival{}
		h.nodes[name] = a
	}
	a.pending++
	h.mu.Unlock()
	var once sync.Once
	return func(kept bool) {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			a.pending--
			if kept && at.After(a.last) {
				a.last = at
			}
			if a.pending == 0 && a.last.IsZero() && h.nodes[name] == a {
				delete(h.nodes, name)
			}
		})
	}
}

// LastArrival implements Arrivals.
func (h *Heard) LastArrival(name string, now time.Time) time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := h.nodes[name]
	switch {
	case a == nil:
		return time.Time{}
	case a.pending > 0:
		return now
	}
	return a.last
}
