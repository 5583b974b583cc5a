package health

import (
	"sync"

	gojson "github.com/goccy/go-json"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// turns remembers, for each node, the newest record the dispatcher
// handed over that turned each of its conditions, and the newest version
// of its stream handed over: a taint change names the turn of its
// condition as its cause (taintCause), and reading it back from the log
// for every change cost a fleet whose nodes come and go as much as the
// change itself. It answers only where its answer is the log's: the node
// was read at the version the dispatcher last handed over (nothing newer
// that could have turned the condition since, nothing older still on its
// way), and it saw a turn of the condition since herd started following
// the log. Anything else is read from the log.
type turns struct {
	mu    sync.Mutex
	nodes map[string]*nodeTurns
}

// nodeTurns is one node's: seen is the newest version of its stream
// handed over, turned each condition's newest turn (without its payload,
// which a cause does not need). A fleet keeps one for every node, so it
// is small: a slice of a few pairs rather than a map of records, and the
// conditions one record turned share that record (a kubelet's
// registration turns five).
type nodeTurns struct {
	seen   int64
	turned []conditionTurn
}

// conditionTurn is the newest turn of one condition.
type conditionTurn struct {
	cond domain.ConditionType
	rec  *events.Record
}

// set makes rec the newest turn of cond.
func (n *nodeTurns) set(cond domain.ConditionType, rec *events.Record) {
	for i := range n.turned {
		if n.turned[i].cond == cond {
			n.turned[i].rec = rec
			return
		}
	}
	n.turned = append(n.turned, conditionTurn{cond: cond, rec: rec})
}

// get is the newest turn of cond, nil when none was seen.
func (n *nodeTurns) get(cond domain.ConditionType) *events.Record {
	for _, t := range n.turned {
		if t.cond == cond {
			return t.rec
		}
	}
	return nil
}

// conditionTurns are the event types that may turn a condition.
var conditionTurns = reconcilers.EventTypesOf(domain.NodeConditionChanged{}, domain.HeartbeatMissed{})

// note takes one record of a node's stream, as the dispatcher hands it
// over, in the log's order. It queues nothing.
func (t *turns) note(rec events.Record) []reconcilers.Key {
	k, ok := reconcilers.KeyOf(rec)
	if !ok || k.Aggregate != domain.NodeAggregate {
		return nil
	}
	if rec.Type == (domain.NodeDeleted{}).EventType() {
		t.forget(k.Name) // a node registered again is read from the log
		return nil
	}
	var turned []domain.ConditionType
	if conditionTurns.Has(rec.Type) {
		// goccy/go-json decodes as encoding/json does, in a fraction of
		// the time: every mark and every report that turns a condition
		// passes here, on herd serve as in a what-if's hour of them.
		ev, err := domain.UnmarshalEventWith(rec.Type, rec.Payload, gojson.Unmarshal)
		if err != nil {
			// Unknown turns: the node is read from the log until a later
			// record is handed over and a taint change reads it.
			t.forget(k.Name)
			return nil
		}
		domain.Holds(ev, func(c domain.NodeConditionChanged) bool {
			turned = append(turned, c.Type)
			return false
		})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.nodes == nil {
		t.nodes = map[string]*nodeTurns{}
	}
	n := t.nodes[k.Name]
	if n == nil {
		n = &nodeTurns{}
		t.nodes[k.Name] = n
	}
	n.seen = max(n.seen, rec.Version)
	if len(turned) > 0 {
		lite := rec
		lite.Payload = nil
		if n.turned == nil {
			n.turned = make([]conditionTurn, 0, len(turned))
		}
		for _, c := range turned {
			n.set(c, &lite)
		}
	}
	return nil
}

// forget drops what is remembered of node name.
func (t *turns) forget(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.nodes, name)
}

// last is the newest turn of condition cond on node name up to version
// upTo, when it is remembered and is the log's answer.
func (t *turns) last(name string, cond domain.ConditionType, upTo int64) (events.Record, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.nodes[name]
	if n == nil || n.seen != upTo {
		return events.Record{}, false
	}
	rec := n.get(cond)
	if rec == nil {
		return events.Record{}, false
	}
	return *rec, true
}

// fleetTurns remembers the newest start or end of a fleet disruption the
// dispatcher handed over, and the newest version of the fleet's stream
// handed over: a NoExecute taint's change names it as its cause when it
// came after the condition's turn (taintCause), and reading it back from
// the log for every such change cost a fleet whose nodes come and go a
// query each. It answers, as turns do, only where its answer is the
// log's: the fleet was read at the version last handed over, and a turn
// was seen since herd started following the log.
type fleetTurns struct {
	mu     sync.Mutex
	seen   int64
	turned events.Record
}

// disruptionTurns are the event types that start or end a disruption.
var disruptionTurns = reconcilers.EventTypesOf(domain.FleetDisruptionStarted{}, domain.FleetDisruptionEnded{})

// note takes one record of the fleet's stream, as the dispatcher hands
// it over, in the log's order. It queues nothing.
func (f *fleetTurns) note(rec events.Record) []reconcilers.Key {
	if rec.Stream != domain.FleetHealthStream {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = max(f.seen, rec.Version)
	if disruptionTurns.Has(rec.Type) {
		f.turned = rec
		f.turned.Payload = nil // a cause needs no payload
	}
	return nil
}

// last is the newest start or end of a disruption up to the fleet's
// version upTo, when it is remembered and is the log's answer.
func (f *fleetTurns) last(upTo int64) (events.Record, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen != upTo || f.turned.ID == "" {
		return events.Record{}, false
	}
	return f.turned, true
}
