package eventstest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func testAppendAndReadStream(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	md := events.Metadata{Actor: "alice", CausationID: "req-1", CorrelationID: "corr-1", Source: "httpapi"}
	// A local time with nanoseconds: it must come back as the same instant,
	// in UTC.
	local := t0.In(time.FixedZone("CET", 3600))

	first := AppendCommit(t, s, "node/a", 0, md, local,
		ev("NodeRegistered", 1),
		events.NewEvent{Type: "NodeTainted", SchemaVersion: 3, Payload: []byte(`{"key":"k"}`)},
		ev("HeartbeatRecorded", 3))
	other := AppendCommit(t, s, "node/b", 0, events.Metadata{}, t0, ev("NodeRegistered", 1))
	second := AppendCommit(t, s, "node/a", 3, events.Metadata{Actor: "kubelet"}, t0.Add(time.Minute), ev("HeartbeatRecorded", 4))
	all := append(append([]events.Record{}, first...), second...)

	want := []events.Record{
		{Stream: "node/a", Version: 1, Type: "NodeRegistered", SchemaVersion: 1, RecordedAt: t0, Payload: json.RawMessage(`{"n":1}`), Metadata: md},
		{Stream: "node/a", Version: 2, Type: "NodeTainted", SchemaVersion: 3, RecordedAt: t0, Payload: json.RawMessage(`{"key":"k"}`), Metadata: md, Continues: true},
		{Stream: "node/a", Version: 3, Type: "HeartbeatRecorded", SchemaVersion: 1, RecordedAt: t0, Payload: json.RawMessage(`{"n":3}`), Metadata: md, Continues: true},
		{Stream: "node/a", Version: 4, Type: "HeartbeatRecorded", SchemaVersion: 1, RecordedAt: t0.Add(time.Minute), Payload: json.RawMessage(`{"n":4}`), Metadata: events.Metadata{Actor: "kubelet"}},
	}
	ignoreIdentity := cmp.FilterPath(func(p cmp.Path) bool {
		f := p.Last().String()
		return f == ".Position" || f == ".ID"
	}, cmp.Ignore())
	if diff := cmp.Diff(want, all, ignoreIdentity); diff != "" {
		t.Errorf("Append returned (-want +got):\n%s", diff)
	}
	if got := positions(all); got[1] != got[0]+1 || got[2] != got[1]+1 || other[0].Position != got[2]+1 || got[3] != got[2]+2 {
		t.Errorf("positions %v then %d for node/b: want consecutive in append order", got, other[0].Position)
	}
	if all[0].RecordedAt.Location() != time.UTC {
		t.Errorf("RecordedAt location %s, want UTC", all[0].RecordedAt.Location())
	}

	tests := []struct {
		name   string
		stream string
		after  int64
		want   []events.Record
	}{
		{name: "whole stream", stream: "node/a", after: 0, want: all},
		{name: "after a version", stream: "node/a", after: 2, want: all[2:]},
		{name: "after the last version", stream: "node/a", after: 4, want: nil},
		{name: "another stream", stream: "node/b", after: 0, want: other},
		{name: "unknown stream", stream: "node/nope", after: 0, want: nil},
		{name: "prefix is not a stream", stream: "node/", after: 0, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ReadStream(t.Context(), tt.stream, tt.after)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadStream(%q, %d) (-want +got):\n%s", tt.stream, tt.after, diff)
			}
		})
	}
}

func testReadAfterAndHead(t *testing.T, open OpenLogFunc) {
	s, _ := open(t)
	ctx := t.Context()
	head, err := s.Head(ctx)
	if err != nil || head != 0 {
		t.Fatalf("Head of an empty log = %d, %v; want 0, nil", head, err)
	}
	var all []events.Record
	all = append(all, AppendCommit(t, s, "node/a", 0, events.Metadata{}, t0, ev("A", 1), ev("A", 2))...)
	all = append(all, AppendCommit(t, s, "pod/default/x", 0, events.Metadata{}, t0, ev("B", 1))...)
	all = append(all, AppendCommit(t, s, "node/a", 2, events.Metadata{}, t0, ev("A", 3), ev("A", 4), ev("A", 5))...)

	head, err = s.Head(ctx)
	if err != nil || head != all[len(all)-1].Position {
		t.Fatalf("Head = %d, %v; want %d", head, err, all[len(all)-1].Position)
	}
	tests := []struct {
		name  string
		after int64
		limit int
		want  []events.Record
	}{
		{name: "everything", after: 0, limit: 0, want: all},
		{name: "negative limit is no limit", after: 0, limit: -1, want: all},
		{name: "first page", after: 0, limit: 2, want: all[:2]},
		{name: "next page", after: all[1].Position, limit: 2, want: all[2:4]},
		{name: "last page is short", after: all[3].Position, limit: 10, want: all[4:]},
		{name: "after the head", after: head, limit: 10, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.ReadAfter(ctx, tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadAfter(%d, %d) (-want +got):\n%s", tt.after, tt.limit, diff)
			}
		})
	}
}
