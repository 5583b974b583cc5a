package domain

// Composite is an event that stands for several (HeartbeatMissed since
// its version 2, NodeStatusChanged): whoever looks for one of its parts in the log — the
// timeline, `herd node why`, a reconciler's cause — finds it in the
// composite.
type Composite interface {
	Event
	// Parts are the events it stands for besides itself, in order.
	Parts() []Event
}

// carriers names, for an event type, the composite event types that may
// hold events of it among their parts.
var carriers = map[string][]string{
	NodeConditionChanged{}.EventType(): {HeartbeatMissed{}.EventType(), NodeStatusChanged{}.EventType()},
	NodeBecameReady{}.EventType():      {NodeStatusChanged{}.EventType()},
	NodeBecameNotReady{}.EventType():   {HeartbeatMissed{}.EventType(), NodeStatusChanged{}.EventType()},
	NodeTainted{}.EventType():          {HeartbeatMissed{}.EventType()},
}

// TypesHolding are the event types whose events may be, or hold among
// their parts, an event of type typ: typ itself and its carriers. A
// query of the log for typ's events asks for these.
func TypesHolding(typ string) []string {
	return append([]string{typ}, carriers[typ]...)
}

// Holds reports whether ev is, or holds among its parts, an event of type
// E for which match (nil: any) holds.
func Holds[E Event](ev Event, match func(E) bool) bool {
	if e, ok := ev.(E); ok && (match == nil || match(e)) {
		return true
	}
	if c, ok := ev.(Composite); ok {
		for _, p := range c.Parts() {
			if e, ok := p.(E); ok && (match == nil || match(e)) {
				return true
			}
		}
	}
	return false
}
