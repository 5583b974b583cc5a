package domain

import "time"

// A node's conditions are heard with the node: a report moves every
// condition's LastHeartbeatTime to the node's LastHeartbeat. So that a
// report changing no condition keeps the very slice the node had (one
// slice for every version of the node that the watch hub and the unit of
// work hold, not one per report), a Condition in Node.Conditions whose
// LastHeartbeatTime is zero was last heard at the node's LastHeartbeat.
// Only a condition heard at another time holds its own: one herd inferred
// (a missed heartbeat turns Ready Unknown and keeps when it was heard),
// one dated from the registration of a node that never reported.
//
// Read a node's conditions with their times through Node.Condition,
// Node.ConditionsHeard or Node.Heard; Node.Conditions as it is holds the
// zero times.
//
// Conditions slices are shared between versions of a node and must never
// be written in place: EvolveNode copies one before changing it
// (TestEvolveNodeNeverWritesTheConditionsItWasGiven).

// Condition returns the node's condition of the given type, with its
// LastHeartbeatTime, and whether it has one.
func (n Node) Condition(t ConditionType) (Condition, bool) {
	for _, c := range n.Conditions {
		if c.Type == t {
			return n.heard(c), true
		}
	}
	return Condition{}, false
}

// ConditionsHeard returns the node's conditions with every
// LastHeartbeatTime filled in: Conditions itself when none is the node's,
// otherwise a copy.
func (n Node) ConditionsHeard() []Condition {
	if !n.heardWithNode() {
		return n.Conditions
	}
	out := make([]Condition, len(n.Conditions))
	for i, c := range n.Conditions {
		out[i] = n.heard(c)
	}
	return out
}

// Heard returns n with ConditionsHeard as its conditions: the node as a
// client sees it.
func (n Node) Heard() Node {
	n.Conditions = n.ConditionsHeard()
	return n
}

// WithConditionsHeardWithNode returns n with every condition last heard at
// the node's LastHeartbeat holding a zero LastHeartbeatTime, as EvolveNode
// keeps them: a node read from a row or a snapshot written before, or
// built by hand. Conditions is copied only when one changes.
func (n Node) WithConditionsHeardWithNode() Node {
	if n.LastHeartbeat.IsZero() {
		return n
	}
	var out []Condition
	for i, c := range n.Conditions {
		if c.LastHeartbeatTime.IsZero() || !c.LastHeartbeatTime.Equal(n.LastHeartbeat) {
			continue
		}
		if out == nil {
			out = cloneSlice(n.Conditions)
		}
		out[i].LastHeartbeatTime = time.Time{}
	}
	if out != nil {
		n.Conditions = out
	}
	return n
}

// heard is c with its LastHeartbeatTime filled in.
func (n Node) heard(c Condition) Condition {
	if c.LastHeartbeatTime.IsZero() {
		c.LastHeartbeatTime = n.LastHeartbeat
	}
	return c
}

// heardWithNode reports whether a condition of n was last heard at the
// node's LastHeartbeat, so holds a zero time that is not its own.
func (n Node) heardWithNode() bool {
	if n.LastHeartbeat.IsZero() {
		return false
	}
	for _, c := range n.Conditions {
		if c.LastHeartbeatTime.IsZero() {
			return true
		}
	}
	return false
}

// heardAt is what a condition heard at t holds as its LastHeartbeatTime on
// n: zero when t is the node's LastHeartbeat.
func (n Node) heardAt(t time.Time) time.Time {
	if !n.LastHeartbeat.IsZero() && t.Equal(n.LastHeartbeat) {
		return time.Time{}
	}
	return t
}
