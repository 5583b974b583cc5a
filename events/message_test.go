package events_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/go-cmp/cmp"

	"herd/events"
)

func TestRecordFromMessageRefusesForeignMessages(t *testing.T) {
	full := func() message.Metadata {
		return message.Metadata{
			events.KeyPosition: "7", events.KeyStream: "node/a", events.KeyVersion: "2", events.KeyType: "A",
			events.KeySchemaVersion: "1", events.KeyRecordedAt: "2025-03-01T03:12:00Z",
		}
	}
	tests := []struct {
		name   string
		uuid   string
		change func(message.Metadata)
		want   string
	}{
		{name: "no position", uuid: "id", change: func(m message.Metadata) { delete(m, events.KeyPosition) }, want: "no position"},
		{name: "bad version", uuid: "id", change: func(m message.Metadata) { m[events.KeyVersion] = "two" }, want: `version "two" is not an integer`},
		{name: "bad time", uuid: "id", change: func(m message.Metadata) { m[events.KeyRecordedAt] = "yesterday" }, want: "recorded_at"},
		{name: "no uuid", uuid: "", change: func(message.Metadata) {}, want: "no uuid"},
		{name: "everything missing", uuid: "id", change: func(m message.Metadata) { clear(m) }, want: "no stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := message.NewMessage(tt.uuid, []byte(`{}`))
			msg.Metadata = full()
			tt.change(msg.Metadata)
			if _, err := events.RecordFromMessage(msg); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("RecordFromMessage = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestMetadataTravelsInContext(t *testing.T) {
	md := events.Metadata{Actor: "alice", Source: "httpapi", CorrelationID: "req-9"}
	ctx := events.WithMetadata(context.Background(), md)
	if diff := cmp.Diff(md, events.MetadataFrom(ctx)); diff != "" {
		t.Errorf("MetadataFrom (-want +got):\n%s", diff)
	}
	if got := events.MetadataFrom(context.Background()); !got.IsZero() {
		t.Errorf("MetadataFrom(empty) = %+v, want zero", got)
	}
}

func TestCausedBy(t *testing.T) {
	tests := []struct {
		name  string
		cause events.Record
		want  events.Metadata
	}{
		{
			name:  "continues the cause's correlation",
			cause: events.Record{ID: "e1", Metadata: events.Metadata{CorrelationID: "req-9"}},
			want:  events.Metadata{Actor: "drain", Source: "reconciler", CausationID: "e1", CorrelationID: "req-9"},
		},
		{
			name:  "a cause without correlation starts one",
			cause: events.Record{ID: "e1"},
			want:  events.Metadata{Actor: "drain", Source: "reconciler", CausationID: "e1", CorrelationID: "e1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, events.CausedBy(tt.cause, "drain", "reconciler")); diff != "" {
				t.Errorf("CausedBy (-want +got):\n%s", diff)
			}
		})
	}
}
