package projections

import (
	"slices"
	"sync"
	"sync/atomic"

	"herd/domain"
	"herd/projections/command"
)

// Observer is told of each state of an aggregate that the unit of work
// commits (command.Observer).
type Observer[S any] = command.Observer[S]

// observers is a copy-on-write list of observers: adding one is rare (at
// start-up), reading the list happens on every commit, so a commit pays
// one atomic load and takes no lock.
type observers[S any] struct {
	mu   sync.Mutex // serialises add
	list atomic.Pointer[[]Observer[S]]
}

// add appends o to the list.
func (o *observers[S]) add(obs Observer[S]) {
	o.mu.Lock()
	defer o.mu.Unlock()
	next := append(slices.Clone(o.load()), obs)
	o.list.Store(&next)
}

// load returns the observers, nil when there are none.
func (o *observers[S]) load() []Observer[S] {
	if cur := o.list.Load(); cur != nil {
		return *cur
	}
	return nil
}

// ObserveNodes makes the Writer tell obs of every node state it commits
// from now on (see Observer). herd's per-node Prometheus series are kept
// this way, without reading the log or the view on a heartbeat.
func (w *Writer) ObserveNodes(obs Observer[domain.Node]) { w.nodeObservers.add(obs) }

// Adopter takes an object's state as of a log position from the process
// that committed it (watch.Hub.Adopt).
type Adopter interface {
	Adopt(stream string, pos int64, s any)
	// ExpectOffers is told which streams have a commit whose states are
	// not offered yet, and returns what the Writer calls once a group's
	// are (watch.Hub.ExpectOffers).
	ExpectOffers(unoffered func(stream string) bool) (settle func())
}

// ShareStatesWith offers a every node and Lease state the Writer commits
// from now on, the very value the unit of work remembers, so that a
// reader of the log that keeps the same states (the watch hub) holds the
// Writer's copy rather than folding one of its own: the fleet's objects
// held once, not twice.
func (w *Writer) ShareStatesWith(a Adopter) {
	w.unit.ShareStates(a.Adopt, a.ExpectOffers(w.unit.Sharing))
}
