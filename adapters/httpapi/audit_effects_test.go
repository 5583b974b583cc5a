package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/events"
	"herd/events/pgtest"
)

// TestAuditEffectsAnswer pins what ?causedBy= answers for a small log on
// each engine: a drain that led to two pods' deletions, one of which led
// to a pod made again (with a payload encoding/json compacts and
// escapes), among events it did not lead to. The body is the one below,
// byte for byte (the events' ids, which the log draws, in their place),
// encoding/json's encoding of the same events as the log's Query reads
// them, and it goes with its length rather than in chunks, a page of
// 43 effects too; a page of two says where the next one starts.
func TestAuditEffectsAnswer(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(t *testing.T) *testAPI
	}{
		{"SQLite", func(t *testing.T) *testAPI { return newTestAPI(t, nil) }},
		{"PostgreSQL", func(t *testing.T) *testAPI {
			l, err := events.OpenPostgres(t.Context(), pgtest.URL(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
			return newTestAPIOn(t, l, nil)
		}},
	} {
		t.Run(e.name, func(t *testing.T) {
			a := e.open(t)
			ctx, at := t.Context(), time.Date(2026, 12, 1, 6, 30, 0, 123456000, time.UTC)
			tx, err := a.Log.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			appendOne := func(stream string, version int64, md events.Metadata, at time.Time, typ, payload string) events.Record {
				t.Helper()
				recs, err := tx.Append(ctx, stream, version, md, at, events.NewEvent{Type: typ, Payload: []byte(payload)})
				if err != nil {
					t.Fatal(err)
				}
				return recs[0]
			}
			appendOne("node/n-1", 0, events.Metadata{Actor: "system:node:n-1"}, at, "HeartbeatRecorded", `{"ready":true}`)
			drain := appendOne("node/n-1", 1, events.Metadata{Actor: "alice", CorrelationID: "req-7", Source: "kubectl"}, at, "NodeDrainStarted", `{}`)
			appendOne("node/n-2", 0, events.Metadata{Actor: "system:node:n-2"}, at, "HeartbeatRecorded", `{"ready":true}`)
			web := appendOne("pod/default/web", 0, events.CausedBy(drain, "drain", "drain"), at.Add(time.Millisecond), "PodDeletionRequested", `{"grace":30}`)
			appendOne("pod/default/db", 0, events.CausedBy(drain, "drain", "drain"), at.Add(2*time.Millisecond), "PodDeletionRequested", `{"grace":30}`)
			appendOne("pod/default/web-2", 0, events.CausedBy(web, "replicaset", "replicaset"), at.Add(time.Second), "PodCreated", `{"note": "<a&b>"}`)
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			base := a.serve(t).URL + "/apis/herd.dev/v1/auditevents?causedBy=" + drain.ID
			type page struct {
				query  string
				filter events.Filter
				golden string
			}
			check := func(page page) {
				t.Helper()
				resp, err := http.Get(base + page.query) //nolint:noctx // a test's loopback request
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s: %v %s %s", page.query, err, resp.Status, body)
				}
				if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) > 0 {
					t.Errorf("GET %s: length %d, transfer encoding %q, for a body of %d bytes", page.query, resp.ContentLength, resp.TransferEncoding, len(body))
				}
				recs, err := a.Log.Query(ctx, page.filter)
				if err != nil {
					t.Fatal(err)
				}
				list := AuditEventList{APIVersion: "herd.dev/v1", Kind: "AuditEventList", Items: []AuditEvent{}}
				if len(recs) == page.filter.Limit {
					list.Metadata.Continue = strconv.FormatInt(recs[len(recs)-1].Position, 10)
				}
				for _, rec := range recs {
					list.Items = append(list.Items, toAuditEvent(rec))
				}
				var want bytes.Buffer
				if err := json.NewEncoder(&want).Encode(list); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(body, want.Bytes()) {
					t.Errorf("GET %s:\n%s\nencoding/json writes\n%s", page.query, body, want.Bytes())
				}
				golden := strings.NewReplacer("DRAIN", drain.ID, "WEB-ID", web.ID).Replace(page.golden)
				for i, rec := range recs {
					golden = strings.Replace(golden, fmt.Sprintf("ID-%d", i), rec.ID, 1)
				}
				if page.golden != "" && string(body) != golden {
					t.Errorf("GET %s:\n%s\nwant\n%s", page.query, body, golden)
				}
			}
			check(page{"", events.Filter{CausedBy: drain.ID, Limit: defaultAuditLimit}, effectsAnswer})
			check(page{"&limit=2", events.Filter{CausedBy: drain.ID, Limit: 2}, effectsFirstTwo})
			// A page larger than net/http holds back before it sends
			// (which it would send with its length anyway) goes with its
			// length too, not in chunks.
			tx, err = a.Log.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				appendOne(fmt.Sprintf("pod/default/p-%02d", i), 0, events.CausedBy(drain, "drain", "drain"), at, "PodDeletionRequested", `{"grace":30}`)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			check(page{query: "", filter: events.Filter{CausedBy: drain.ID, Limit: defaultAuditLimit}})
		})
	}
}

// effectsAnswer and effectsFirstTwo are TestAuditEffectsAnswer's pages:
// ID-n stands for the n-th item's id, DRAIN and WEB-ID for the causes'.
const (
	effectsAnswer = `{"apiVersion":"herd.dev/v1","kind":"AuditEventList","metadata":{},"items":[` +
		`{"position":8,"id":"ID-0","stream":"pod/default/web","version":1,"type":"PodDeletionRequested","schemaVersion":1,"recordedAt":"2026-12-01T06:30:00.124456Z","actor":"drain","causationId":"DRAIN","correlationId":"req-7","source":"drain","payload":{"grace":30}},` +
		`{"position":9,"id":"ID-1","stream":"pod/default/db","version":1,"type":"PodDeletionRequested","schemaVersion":1,"recordedAt":"2026-12-01T06:30:00.125456Z","actor":"drain","causationId":"DRAIN","correlationId":"req-7","source":"drain","payload":{"grace":30}},` +
		`{"position":10,"id":"ID-2","stream":"pod/default/web-2","version":1,"type":"PodCreated","schemaVersion":1,"recordedAt":"2026-12-01T06:30:01.123456Z","actor":"replicaset","causationId":"WEB-ID","correlationId":"req-7","source":"replicaset","payload":{"note":"\u003ca\u0026b\u003e"}}]}` + "\n"
	effectsFirstTwo = `{"apiVersion":"herd.dev/v1","kind":"AuditEventList","metadata":{"continue":"9"},"items":[` +
		`{"position":8,"id":"ID-0","stream":"pod/default/web","version":1,"type":"PodDeletionRequested","schemaVersion":1,"recordedAt":"2026-12-01T06:30:00.124456Z","actor":"drain","causationId":"DRAIN","correlationId":"req-7","source":"drain","payload":{"grace":30}},` +
		`{"position":9,"id":"ID-1","stream":"pod/default/db","version":1,"type":"PodDeletionRequested","schemaVersion":1,"recordedAt":"2026-12-01T06:30:00.125456Z","actor":"drain","causationId":"DRAIN","correlationId":"req-7","source":"drain","payload":{"grace":30}}]}` + "\n"
)
