package health

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
)

// TestTurnsAnswerOnlyWhereTheLogWould: the turns kept in memory name a
// condition's last turn only for the node read at the version the
// dispatcher last handed over, and only a turn they saw; a node read at
// another version, a condition they never saw turn, and a node deleted
// are read from the log.
func TestTurnsAnswerOnlyWhereTheLogWould(t *testing.T) {
	stream := domain.NodeStream("n1")
	rec := func(version int64, ev domain.Event) events.Record {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return events.Record{ID: ev.EventType() + string(rune('0'+version)), Stream: stream, Version: version,
			Position: 100 + version, Type: ev.EventType(), Payload: payload}
	}
	var mem turns
	mem.note(rec(1, domain.NodeConditionChanged{Type: domain.ConditionReady, Status: domain.ConditionTrue}))
	mem.note(rec(2, domain.HeartbeatRecorded{}))
	if got, ok := mem.last("n1", domain.ConditionReady, 2); !ok || got.Version != 1 || got.Payload != nil {
		t.Fatalf("Ready's turn at version 2: %+v %v", got, ok)
	}
	if _, ok := mem.last("n1", domain.ConditionReady, 1); ok {
		t.Fatal("a node read at an older version than handed over is answered from memory")
	}
	if _, ok := mem.last("n1", domain.ConditionReady, 3); ok {
		t.Fatal("a node read at a version not handed over yet is answered from memory")
	}
	if _, ok := mem.last("n1", domain.ConditionMemoryPressure, 2); ok {
		t.Fatal("a condition never seen to turn is answered from memory")
	}
	mem.note(rec(3, domain.HeartbeatMissed{Conditions: []domain.MissedCondition{{Type: domain.ConditionReady, From: domain.ConditionTrue}}}))
	if got, ok := mem.last("n1", domain.ConditionReady, 3); !ok || got.Version != 3 {
		t.Fatalf("Ready's turn in a HeartbeatMissed: %+v %v", got, ok)
	}
	mem.note(rec(4, domain.NodeDeleted{}))
	mem.note(rec(5, domain.HeartbeatRecorded{}))
	if _, ok := mem.last("n1", domain.ConditionReady, 5); ok {
		t.Fatal("a turn before the node's deletion is answered from memory")
	}
}

// TestFleetTurnsAnswerOnlyWhereTheLogWould: the fleet's turns kept in
// memory name its last disruption start or end only for the fleet read
// at the version the dispatcher last handed over, and only a turn they
// saw; the fleet read at another version, or before any turn was seen,
// is read from the log.
func TestFleetTurnsAnswerOnlyWhereTheLogWould(t *testing.T) {
	rec := func(version int64, ev domain.Event) events.Record {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return events.Record{ID: ev.EventType() + string(rune('0'+version)), Stream: domain.FleetHealthStream, Version: version,
			Position: 100 + version, Type: ev.EventType(), Payload: payload}
	}
	var mem fleetTurns
	mem.note(rec(1, domain.HealthMonitorStarted{Nodes: 3}))
	if _, ok := mem.last(1); ok {
		t.Fatal("a fleet whose disruption was never seen to start or end is answered from memory")
	}
	mem.note(rec(2, domain.FleetDisruptionStarted{Unreachable: 3, Total: 3}))
	if got, ok := mem.last(2); !ok || got.Version != 2 || got.Payload != nil {
		t.Fatalf("the disruption's start at version 2: %+v %v", got, ok)
	}
	if _, ok := mem.last(3); ok {
		t.Fatal("a fleet read at a version not handed over yet is answered from memory")
	}
	if _, ok := mem.last(1); ok {
		t.Fatal("a fleet read at an older version than handed over is answered from memory")
	}
	mem.note(rec(3, domain.HealthMonitorStarted{Nodes: 3}))
	if got, ok := mem.last(3); !ok || got.Version != 2 {
		t.Fatalf("the disruption's start after a later record that turns nothing: %+v %v", got, ok)
	}
	mem.note(rec(4, domain.FleetDisruptionEnded{Unreachable: 0, Total: 3}))
	if got, ok := mem.last(4); !ok || got.Version != 4 || got.Type != (domain.FleetDisruptionEnded{}).EventType() {
		t.Fatalf("the disruption's end: %+v %v", got, ok)
	}
	mem.note(events.Record{ID: "other", Stream: domain.NodeStream("n1"), Version: 9, Type: (domain.FleetDisruptionStarted{}).EventType()})
	if _, ok := mem.last(4); !ok {
		t.Fatal("a record of another stream moved the fleet's turns")
	}
}

// TestTurnsKeepLittlePerNode: the turns are kept for every node of the
// fleet, so a kubelet's registration, which turns five conditions in one
// write, is remembered in a few hundred bytes, its record once; not a
// copy of the record for every condition.
func TestTurnsKeepLittlePerNode(t *testing.T) {
	const nodes = 2000
	conds := []domain.ConditionType{domain.ConditionReady, domain.ConditionMemoryPressure,
		domain.ConditionDiskPressure, domain.ConditionPIDPressure, domain.ConditionNetworkUnavailable}
	recs := make([]events.Record, nodes)
	for i := range recs {
		ev := domain.HeartbeatMissed{}
		for _, c := range conds {
			ev.Conditions = append(ev.Conditions, domain.MissedCondition{Type: c, From: domain.ConditionTrue})
		}
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		recs[i] = events.Record{ID: fmt.Sprintf("%036d", i), Stream: domain.NodeStream(fmt.Sprintf("node-%05d", i)),
			Version: 2, Position: int64(i + 1), Type: ev.EventType(), Payload: payload,
			Metadata: events.Metadata{Actor: "health", CausationID: "c", CorrelationID: "c", Source: "health"}}
	}
	var mem turns
	before := eventstest.LiveHeap()
	for _, rec := range recs {
		mem.note(rec)
	}
	grown := eventstest.LiveHeap() - before
	perNode := grown / nodes
	t.Logf("%d nodes with 5 turned conditions each: %d bytes a node", nodes, perNode)
	for _, c := range conds {
		if got, ok := mem.last("node-00007", c, 2); !ok || got.Position != 8 {
			t.Fatalf("%s's turn: %+v %v", c, got, ok)
		}
	}
	if perNode > 600 {
		t.Errorf("the turns keep %d bytes a node; want at most 600", perNode)
	}
	runtime.KeepAlive(recs)
}
