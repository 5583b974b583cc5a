package domain

import (
	"maps"
	"time"
)

// DefaultPressureTransitionPeriod is how long a pressure condition stays
// True after its signal falls back under the threshold: the kubelet's
// --eviction-pressure-transition-period default. Without it a signal that
// wanders around the threshold flips the condition and its taint on every
// other heartbeat, and the scheduler never settles on the node.
const DefaultPressureTransitionPeriod = 5 * time.Minute

// NodePressureEased records that the signal behind a True pressure
// condition fell to or under its threshold: the condition stays True, and
// clears once the signal has stayed under for the transition period,
// counted from At.
type NodePressureEased struct {
	Type ConditionType `json:"type"`
	At   time.Time     `json:"at"`
}

// NodePressureReturned records that the signal behind a held pressure
// condition rose above its threshold again before the transition period
// ended: the condition stays True, and the wait starts again with the
// next report under the threshold.
type NodePressureReturned struct {
	Type ConditionType `json:"type"`
	At   time.Time     `json:"at"`
}

// EventType implements Event.
func (NodePressureEased) EventType() string { return "NodePressureEased" }

// EventType implements Event.
func (NodePressureReturned) EventType() string { return "NodePressureReturned" }

// heldPressure reports whether t is a condition herd derives from a
// measurement against a threshold, and so holds True for the transition
// period.
func heldPressure(t ConditionType) bool {
	switch t {
	case ConditionMemoryPressure, ConditionDiskPressure, ConditionPIDPressure, ConditionHighLoad, ConditionCPUPressure:
		return true
	}
	return false
}

// holdPressure decides what a derived condition d does to the node's condition
// of its type under a transition period: hold is true when d must not be
// recorded yet (the condition stays True), and e, when not nil, is the
// NodePressureEased or NodePressureReturned that marks the turn of the
// signal. The wait is measured from the first report under the threshold,
// which the log holds, so a replay decides the same; a period of 0 holds
// nothing.
func holdPressure(n Node, d ReportedCondition, period time.Duration, now time.Time) (hold bool, e Event) {
	if period <= 0 || !heldPressure(d.Type) {
		return false, nil
	}
	if cur, ok := n.Condition(d.Type); !ok || cur.Status != ConditionTrue {
		return false, nil
	}
	eased, easing := n.PressureEasedAt[d.Type]
	switch {
	case d.Status == ConditionTrue && easing:
		return false, NodePressureReturned{Type: d.Type, At: now}
	case d.Status == ConditionTrue:
		return false, nil
	case !easing:
		return true, NodePressureEased{Type: d.Type, At: now}
	case now.Sub(eased) < period:
		return true, nil
	}
	return false, nil
}

// withEasing returns a copy of m with t eased at at.
func withEasing(m map[ConditionType]time.Time, t ConditionType, at time.Time) map[ConditionType]time.Time {
	c := maps.Clone(m)
	if c == nil {
		c = map[ConditionType]time.Time{}
	}
	c[t] = at
	return c
}

// withoutEasing returns a copy of m without t, nil when empty; m itself
// when it has no t.
func withoutEasing(m map[ConditionType]time.Time, t ConditionType) map[ConditionType]time.Time {
	if _, ok := m[t]; !ok {
		return m
	}
	c := maps.Clone(m)
	delete(c, t)
	return cloneEasing(c)
}

// cloneEasing is a copy of m, nil when empty.
func cloneEasing(m map[ConditionType]time.Time) map[ConditionType]time.Time {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}
