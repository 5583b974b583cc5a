package reconcilers

import "time"

// Status is a reconciler's progress, for operators' debugging and for
// tests that must wait until asynchronous work has settled.
type Status struct {
	// Resyncs counts the resync passes done since start.
	Resyncs int64
	// Queued is the number of keys waiting (not counting delayed ones).
	Queued int
	// InFlight is the number of keys being reconciled right now.
	InFlight int64
	// Position is the log position of the last record the dispatcher
	// handed it (or where the dispatcher started, before the first).
	Position int64
	// ResyncPeriod is how often it resyncs; 0 when it does not.
	ResyncPeriod time.Duration
	// Retrying counts failed keys waiting for their retry.
	Retrying int64
	// Due counts keys whose RequeueAfter has passed on herd's clock but
	// which no worker has taken yet.
	Due int
	// Unfinished counts keys queued or being reconciled, as the queue
	// counts them under its lock: unlike Queued and InFlight, read one
	// after the other, never zero while a worker takes a key.
	Unfinished int64
}

// Settled reports whether the reconciler has nothing left to do for the
// log up to head: nothing queued, in flight, retrying or due.
func (s Status) Settled(head int64) bool {
	return s.Queued == 0 && s.InFlight == 0 && s.Unfinished == 0 && s.Retrying == 0 && s.Due == 0 && s.Position >= head
}

// Status returns the named reconciler's progress, and false when it does
// not run. While another replica leads, it is the progress of this
// replica's last term (or none, before its first).
func (m *Manager) Status(name string) (Status, bool) {
	for _, rn := range m.current() {
		if rn.r.Name() == name {
			st := Status{
				Resyncs:    rn.resyncs.Load(),
				Queued:     rn.queue.Len(),
				InFlight:   rn.inFlight.Load(),
				Position:   rn.lastPos.Load(),
				Retrying:   rn.retrying.Load(),
				Due:        rn.due(),
				Unfinished: rn.unfinished.load(),
			}
			if rs, ok := rn.r.(Resyncer); ok {
				st.ResyncPeriod = rs.ResyncPeriod()
			}
			return st, true
		}
	}
	return Status{}, false
}
