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

// countingLog is a streamLog that counts the queries of each stream.
type countingLog struct {
	streamLog
	queries map[string]int
}

func (l *countingLog) Query(ctx context.Context, f events.Filter) ([]events.Record, error) {
	l.queries[f.Stream]++
	return l.streamLog.Query(ctx, f)
}

func TestCountCauseNamesTheNewestChangeThatMovesACount(t *testing.T) {
	l := &countingLog{queries: map[string]int{}}
	add := func(stream string, version, position int64, ev domain.Event) {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		l.recs = append(l.recs, events.Record{ID: fmt.Sprintf("%s@%d", stream, position), Stream: stream, Version: version,
			Position: position, Type: ev.EventType(), Payload: payload})
	}
	rs := "replicaset/default/rs"
	add(rs, 1, 10, domain.ReplicaSetCreated{})
	add("pod/default/quiet", 1, 15, domain.PodCreated{})
	add(rs, 2, 20, domain.ReplicaSetChanged{})
	add(rs, 3, 25, domain.ReplicaSetStatusRecorded{})
	add("pod/default/a", 1, 30, domain.PodCreated{})
	add("pod/default/b", 1, 35, domain.PodCreated{})
	add("pod/default/a", 2, 40, domain.PodStatusUpdated{})
	add("pod/default/a", 3, 50, domain.PodScheduled{})
	add("pod/default/b", 2, 60, domain.PodDeletionRequested{})
	pod := func(name string, version, rv int64) domain.Pod {
		return domain.Pod{Namespace: "default", Name: name, Version: version, ResourceVersion: rv}
	}
	quiet := pod("quiet", 1, 15)
	spec := func(upTo int64) Change {
		return SpecChange(rs, upTo, domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{})
	}
	tests := []struct {
		name string
		pods []domain.Pod
		spec Change
		want string
	}{
		{"a pod's readiness, not its later scheduling", []domain.Pod{quiet, pod("a", 3, 50), pod("b", 1, 35)}, spec(3), "pod/default/a@40"},
		{"a deletion request, when read", []domain.Pod{quiet, pod("a", 3, 50), pod("b", 2, 60)}, spec(3), "pod/default/b@60"},
		{"the owner's change, newer than its pods'", []domain.Pod{quiet}, spec(3), rs + "@20"},
		{"the owner as read", nil, spec(1), rs + "@10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(l.queries)
			ctx := withCauseLog(context.Background(), l)
			got, ok, err := CountCause(ctx, tt.pods, tt.spec)
			if err != nil || !ok || got.ID != tt.want {
				t.Fatalf("CountCause = %s, %v, %v; want %s", got.ID, ok, err, tt.want)
			}
			if n := l.queries["pod/default/quiet"]; n != 0 {
				t.Errorf("the quiet pod, older than the change found, was read %d times", n)
			}
		})
	}
}

// TestCountCausePassesOverTheReconcilersOwnPodWrites: a pod the
// reconciler made itself for its owner follows a change read before (the
// owner's spec), which a status counting it names; a pod another made is
// a change of its own.
func TestCountCausePassesOverTheReconcilersOwnPodWrites(t *testing.T) {
	l := &streamLog{}
	add := func(stream string, version, position int64, actor string, ev domain.Event) {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		l.recs = append(l.recs, events.Record{ID: fmt.Sprintf("%s@%d", stream, position), Stream: stream, Version: version,
			Position: position, Type: ev.EventType(), Payload: payload, Metadata: events.Metadata{Actor: actor}})
	}
	rs := "replicaset/default/rs"
	add(rs, 1, 10, "alice", domain.ReplicaSetCreated{})
	add("pod/default/evicted", 1, 20, "system:herd:replicaset", domain.PodCreated{})
	add("pod/default/evicted", 2, 30, "system:herd:drain", domain.PodDeletionRequested{})
	add("pod/default/replacement", 1, 40, "system:herd:replicaset", domain.PodCreated{})
	pods := []domain.Pod{
		{Namespace: "default", Name: "evicted", Version: 2, ResourceVersion: 30},
		{Namespace: "default", Name: "replacement", Version: 1, ResourceVersion: 40},
	}
	spec := SpecChange(rs, 1, domain.ReplicaSetCreated{}, domain.ReplicaSetChanged{})
	for actor, want := range map[string]string{
		"system:herd:replicaset": "pod/default/evicted@30",
		"system:herd:disruption": "pod/default/replacement@40",
	} {
		ctx := withCauseLog(events.WithMetadata(context.Background(), events.Metadata{Actor: actor}), l)
		got, ok, err := CountCause(ctx, pods, spec)
		if err != nil || !ok || got.ID != want {
			t.Errorf("CountCause by %s = %s, %v, %v; want %s", actor, got.ID, ok, err, want)
		}
	}
}
