package reconcilers

import "time"

// TermStarter is a reconciler that must know when this replica starts
// running it: at herd's start, and each time this replica takes over the
// reconcilers from another (a new leader on PostgreSQL). What it keeps in
// memory from an earlier term is stale by then, and a rule that counts
// time from herd's own observations (the health rules' grace periods, as
// kube-controller-manager's node lifecycle controller counts them from its
// own start) must count from the start of the term, not from before herd
// was away.
type TermStarter interface {
	// BeginTerm is told the time a term begins, by the manager's clock,
	// before the term's first key or resync reaches the reconciler.
	BeginTerm(at time.Time)
}

// beginTerm tells every enabled reconciler that minds it that a term
// begins now.
func (m *Manager) beginTerm() {
	at := m.clock.Now()
	for _, r := range m.enabled {
		if s, ok := r.(TermStarter); ok {
			s.BeginTerm(at)
		}
	}
}
