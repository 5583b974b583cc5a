package reconcilers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"herd/domain"
	"herd/events"
)

// streamLog answers Filters over one stream's records, as the log does:
// by types, up to a version, the newest Limit of them.
type streamLog struct{ recs []events.Record }

func (l *streamLog) Query(_ context.Context, f events.Filter) ([]events.Record, error) {
	var out []events.Record
	for _, r := range l.recs {
		if r.Stream == f.Stream && (len(f.Types) == 0 || slices.Contains(f.Types, r.Type)) && (f.UpToVersion == 0 || r.Version <= f.UpToVersion) {
			out = append(out, r)
		}
	}
	if f.Newest && f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, nil
}

// conditionLog is a node's stream in which each condition of turns turns
// once, in order, with heartbeats between.
func conditionLog(t *testing.T, turns ...domain.ConditionType) *streamLog {
	l := &streamLog{}
	for i, c := range turns {
		for _, ev := range []domain.Event{domain.HeartbeatRecorded{}, domain.NodeConditionChanged{Type: c, Status: domain.ConditionTrue}} {
			payload, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			v := int64(len(l.recs) + 1)
			l.recs = append(l.recs, events.Record{ID: fmt.Sprintf("e%d-%d", i, v), Stream: "node/a", Version: v, Position: 10 * v,
				Type: ev.EventType(), Payload: payload, Metadata: events.Metadata{CorrelationID: "corr"}})
		}
	}
	return l
}

func turned(c domain.ConditionType, upTo int64) Change {
	return ChangeOf("node/a", upTo, func(ch domain.NodeConditionChanged) bool { return ch.Type == c })
}

func TestBecauseOfNamesTheChangeTheDecisionRead(t *testing.T) {
	l := conditionLog(t, domain.ConditionMemoryPressure, domain.ConditionDiskPressure, domain.ConditionPIDPressure,
		domain.ConditionDiskPressure, domain.ConditionReady, domain.ConditionReady, domain.ConditionReady)
	fallback := events.Record{ID: "queued-it", Metadata: events.Metadata{CorrelationID: "q"}}
	base := events.WithMetadata(context.Background(), events.CausedBy(fallback, "", ""))
	base = events.WithMetadata(base, events.Metadata{Actor: "system:herd:test", Source: "reconciler/test"})
	tests := []struct {
		name   string
		log    bool
		change Change
		want   events.Metadata
	}{
		{name: "the newest turn of the condition, read back past many pages", log: true, change: turned(domain.ConditionMemoryPressure, 0),
			want: events.Metadata{Actor: "system:herd:test", Source: "reconciler/test", CausationID: "e0-2", CorrelationID: "corr"}},
		{name: "the newest turn up to the version read", log: true, change: turned(domain.ConditionDiskPressure, 7),
			want: events.Metadata{Actor: "system:herd:test", Source: "reconciler/test", CausationID: "e1-4", CorrelationID: "corr"}},
		{name: "the newest turn of all", log: true, change: turned(domain.ConditionDiskPressure, 0),
			want: events.Metadata{Actor: "system:herd:test", Source: "reconciler/test", CausationID: "e3-8", CorrelationID: "corr"}},
		{name: "no such change keeps the fallback", log: true, change: turned(domain.ConditionNetworkUnavailable, 0),
			want: events.Metadata{Actor: "system:herd:test", Source: "reconciler/test", CausationID: "queued-it", CorrelationID: "q"}},
		{name: "no log keeps the fallback", change: turned(domain.ConditionMemoryPressure, 0),
			want: events.Metadata{Actor: "system:herd:test", Source: "reconciler/test", CausationID: "queued-it", CorrelationID: "q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := base
			if tt.log {
				ctx = withCauseLog(ctx, l)
			}
			got, err := BecauseOf(ctx, tt.change)
			if err != nil {
				t.Fatal(err)
			}
			if md := events.MetadataFrom(got); md != tt.want {
				t.Errorf("metadata %+v, want %+v", md, tt.want)
			}
		})
	}
}

func TestBecauseEachNamesEachStreamsOwnCause(t *testing.T) {
	l := conditionLog(t, domain.ConditionMemoryPressure)
	ctx := withCauseLog(events.WithMetadata(context.Background(), events.Metadata{Actor: "system:herd:test"}), l)
	ctx, err := BecauseEach(ctx, []Change{turned(domain.ConditionMemoryPressure, 0), turned(domain.ConditionReady, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if md := events.MetadataFor(ctx, "node/a"); md.CausationID != "e0-2" || md.Actor != "system:herd:test" {
		t.Errorf("node/a's metadata %+v, want the MemoryPressure turn as its cause", md)
	}
	if md := events.MetadataFor(ctx, "node/b"); md.CausationID != "" || md.Actor != "system:herd:test" {
		t.Errorf("node/b's metadata %+v, want ctx's, with no cause", md)
	}
}

func TestNewestIsTheLatestByPosition(t *testing.T) {
	a, b := events.Record{ID: "a", Position: 3}, events.Record{ID: "b", Position: 9}
	if got, ok := Newest(a, events.Record{}, b); !ok || got.ID != "b" {
		t.Errorf("Newest = %+v, %t; want b", got, ok)
	}
	if _, ok := Newest(events.Record{}); ok {
		t.Error("Newest of nothing found something")
	}
}
