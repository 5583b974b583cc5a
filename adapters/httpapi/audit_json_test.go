package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"herd/events"
)

// TestAuditListAsEncodingJSON: an audit page is written byte for byte as
// encoding/json's Encoder writes the AuditEventList — strings that need
// escaping (quotes, control bytes, HTML, bytes that are not UTF-8,
// U+2028), payloads to compact or escape, times with and without
// nanoseconds, metadata empty or full, a next page and a thinned note —
// and what it refuses is refused.
func TestAuditListAsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 11, 30, 2, 3, 4, 500, time.UTC)
	full := events.Metadata{Actor: "alice", CausationID: "6f1c1f0e-8a4b-4f57-9d7e-0c1a2b3c4d5e", CorrelationID: "corr", Source: "drain"}
	recs := []events.Record{
		{Position: 1, ID: "a", Stream: "node/n-1", Version: 1, Type: "NodeRegistered", SchemaVersion: 1, RecordedAt: at, Payload: json.RawMessage(`{"n":1}`), Metadata: full},
		{Position: 2, ID: "b", Stream: "node/n-1", Version: 2, Type: "HeartbeatRecorded", SchemaVersion: 3, RecordedAt: at.Truncate(time.Second), Payload: json.RawMessage(`{}`), Continues: true},
		{Position: 3, ID: "c", Stream: "pod/default/<a&b>", Version: 1, Type: "PodCreated", SchemaVersion: 1, RecordedAt: at,
			Payload:  json.RawMessage(" { \"html\" : \"<b>&</b>\", \"sep\": \"\u2028\u2029\", \"list\": [1, 2.5e3, null, true] }\n"),
			Metadata: events.Metadata{Actor: "zoë \"q\" \\ \t\x01\x7f", Source: "bad \xff utf-8 \u2028"}},
		{Position: 4, ID: "d", Stream: "s", Version: 7, Type: "T", SchemaVersion: 2, RecordedAt: at.In(time.FixedZone("CET", 3600)), Payload: json.RawMessage(`[1,"é"]`)},
		{Position: 5, ID: "e", Stream: "s", Version: 8, Type: "T", RecordedAt: time.Time{}, Payload: nil},
	}
	for _, tt := range []struct {
		name string
		list AuditEventList
		recs []events.Record
	}{
		{"empty", AuditEventList{}, nil},
		{"every kind of record", AuditEventList{}, recs},
		{"a next page and a version", AuditEventList{Metadata: struct {
			ResourceVersion string `json:"resourceVersion,omitempty"`
			Continue        string `json:"continue,omitempty"`
		}{ResourceVersion: "12", Continue: "5"}}, recs[:2]},
		{"a next page alone", AuditEventList{Metadata: struct {
			ResourceVersion string `json:"resourceVersion,omitempty"`
			Continue        string `json:"continue,omitempty"`
		}{Continue: "5"}}, recs[:1]},
		{"thinned", AuditEventList{Thinned: &AuditThinned{Before: at, ThroughPosition: 9, DeletedHeartbeats: 3, Message: "history <thinned>"}}, recs[1:3]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			list := tt.list
			list.APIVersion, list.Kind, list.Items = "herd.dev/v1", "AuditEventList", []AuditEvent{}
			got, err := appendAuditList(nil, &list, tt.recs)
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range tt.recs {
				list.Items = append(list.Items, toAuditEvent(rec))
			}
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(list); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("written\n%s\nencoding/json writes\n%s", got, want.Bytes())
			}
		})
	}
	for _, bad := range []events.Record{
		{Payload: json.RawMessage(`{"n":`)},
		{Payload: json.RawMessage(`{"n": }`)},
		{Payload: json.RawMessage{}},
		{Payload: json.RawMessage(`{}`), RecordedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		list := AuditEventList{Items: []AuditEvent{toAuditEvent(bad)}}
		if err := json.NewEncoder(new(bytes.Buffer)).Encode(list); err == nil {
			t.Fatalf("encoding/json writes %+v", bad)
		}
		if got, err := appendAuditList(nil, &list, []events.Record{bad}); err == nil {
			t.Errorf("%+v written as %s, encoding/json refuses it", bad, got)
		}
	}
}

// appendAuditList appends list, whose items are recs, as the audit API
// writes the page: its head, its items through auditItems, its tail.
func appendAuditList(b []byte, list *AuditEventList, recs []events.Record) ([]byte, error) {
	b, err := appendAuditListHead(b, list)
	if err != nil {
		return nil, err
	}
	var items auditItems
	defer items.release()
	for i := range recs {
		if err := items.add(&recs[i]); err != nil {
			return nil, err
		}
	}
	w := httptest.NewRecorder()
	if err := items.writeTo(w); err != nil {
		return nil, err
	}
	b = append(b, w.Body.Bytes()...)
	return append(b, auditListTail...), nil
}

// TestAuditPageOfManyChunks: a page larger than the chunks its items are
// kept in — 3,000 items, one of them larger than a chunk — is written
// as encoding/json writes it, twice in a row (the chunks used again).
func TestAuditPageOfManyChunks(t *testing.T) {
	at := time.Date(2026, 11, 30, 2, 3, 4, 500, time.UTC)
	recs := make([]events.Record, 3000)
	for i := range recs {
		payload := fmt.Appendf(nil, `{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%700))
		if i == 1234 {
			payload = fmt.Appendf(nil, `{"big":"%s"}`, strings.Repeat("y", 3*auditChunk))
		}
		recs[i] = events.Record{Position: int64(i + 1), ID: fmt.Sprint(i), Stream: "node/n", Version: int64(i + 1), Type: "T", SchemaVersion: 1,
			RecordedAt: at, Payload: payload, Metadata: events.Metadata{Actor: "alice"}}
	}
	list := AuditEventList{APIVersion: "herd.dev/v1", Kind: "AuditEventList", Items: []AuditEvent{}}
	for _, rec := range recs {
		list.Items = append(list.Items, toAuditEvent(rec))
	}
	var want bytes.Buffer
	if err := json.NewEncoder(&want).Encode(list); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := appendAuditList(nil, &AuditEventList{APIVersion: "herd.dev/v1", Kind: "AuditEventList"}, recs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("written %d bytes, encoding/json writes %d; they differ", len(got), want.Len())
		}
	}
}
