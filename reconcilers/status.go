package reconcilers

// Status is a reconciler's progress, for operators' debugging and for
// tests that must wait until asynchronous work has settled.
type Status struct {
	// Resyncs counts the resync passes done since start.
	Resyncs int64
	// Queued is the number of keys waiting (not counting delayed ones).
	Queued int
	// InFlight is the number of keys being reconciled right now.
	InFlight int64
	// Position is the log position of the last record its consumer
	// handled.
	Position int64
}

// Status returns the named reconciler's progress, and false when it does
// not run.
func (m *Manager) Status(name string) (Status, bool) {
	for _, rn := range m.runners {
		if rn.r.Name() == name {
			return Status{
				Resyncs:  rn.resyncs.Load(),
				Queued:   rn.queue.Len(),
				InFlight: rn.inFlight.Load(),
				Position: rn.lastPos.Load(),
			}, true
		}
	}
	return Status{}, false
}
