package health

import (
	"encoding/json"
	"testing"

	"herd/domain"
	"herd/events"
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
