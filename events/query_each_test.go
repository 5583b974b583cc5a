package events_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/pgtest"
)

// TestQueryEachAllocations: a page read one event at a time takes its
// rows from the driver itself, not through database/sql's Scan, so
// that it makes no value for a column but what the driver makes (on
// SQLite: each text column's string and each value it boxes, twelve a
// row) and, on PostgreSQL, where pgx's raw values are read, the
// record's id and stream alone; the bounds leave half an allocation a
// record over a page of 200 for the query's own. Through database/sql
// a record cost 13.3 on SQLite and 13.6 on PostgreSQL.
func TestQueryEachAllocations(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(t *testing.T) events.Log
		max  float64 // a record
	}{
		{"SQLite", func(t *testing.T) events.Log { s, _ := openSQLite(t); return s.Log() }, 12.5},
		{"PostgreSQL", func(t *testing.T) events.Log { l, _ := openPostgres(t); return l }, 3},
	} {
		t.Run(e.name, func(t *testing.T) {
			l := e.open(t)
			ctx, at := t.Context(), time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
			tx, err := l.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			// Positions past 255, which Go boxes with an allocation.
			pad := make([]events.NewEvent, 300)
			for i := range pad {
				pad[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: []byte(`{"n":1}`)}
			}
			if _, err := tx.Append(ctx, "node/n-0", 0, events.Metadata{Actor: "system:node:n-0"}, at, pad...); err != nil {
				t.Fatal(err)
			}
			root, err := tx.Append(ctx, "node/n-0", 300, events.Metadata{Actor: "alice", CorrelationID: "req-1", Source: "kubectl"}, at,
				events.NewEvent{Type: "NodeDrainStarted", Payload: []byte(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			const n = 200
			for i := range n {
				if _, err := tx.Append(ctx, fmt.Sprintf("pod/default/p-%03d", i), 0, events.CausedBy(root[0], "drain", "drain"),
					at.Add(time.Duration(i)*time.Millisecond), events.NewEvent{Type: "PodDeletionRequested", Payload: []byte(`{"grace":30}`)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			f := events.Filter{CausedBy: root[0].ID, Limit: 10000}
			read := func() {
				got := 0
				if err := events.QueryEach(ctx, l, f, func(r *events.Record) error {
					if r.Metadata.CausationID != root[0].ID || len(r.Payload) == 0 {
						return fmt.Errorf("%d: %+v", r.Position, r)
					}
					got++
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if got != n {
					t.Fatalf("%d effects read, want %d", got, n)
				}
			}
			read()
			perRecord := testing.AllocsPerRun(20, read) / n
			t.Logf("%.2f allocations a record", perRecord)
			if perRecord > e.max {
				t.Errorf("%.2f allocations a record read, want at most %v", perRecord, e.max)
			}
		})
	}
}

// TestQueryEachEndsWithItsContext: a read one event at a time whose
// context has ended reads nothing and says why, as database/sql's
// reads do (the audit API answers it 504), and leaves the log's
// connections usable; an error of fn ends the read and is returned as
// it is.
func TestQueryEachEndsWithItsContext(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(t *testing.T) events.Log
	}{
		{"SQLite", func(t *testing.T) events.Log { s, _ := openSQLite(t); return s.Log() }},
		{"PostgreSQL", func(t *testing.T) events.Log { l, _ := openPostgres(t); return l }},
	} {
		t.Run(e.name, func(t *testing.T) {
			l := e.open(t)
			at := time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
			for i := range 3 {
				tx, err := l.Begin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Append(t.Context(), fmt.Sprintf("node/n-%d", i), 0, events.Metadata{Actor: "alice"}, at,
					events.NewEvent{Type: "NodeRegistered", Payload: []byte(`{}`)}); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			called := 0
			err := events.QueryEach(ctx, l, events.Filter{Actor: "alice"}, func(*events.Record) error { called++; return nil })
			if !errors.Is(err, context.Canceled) || called != 0 {
				t.Errorf("read with an ended context: %v after %d events, want context.Canceled before any", err, called)
			}
			stop := errors.New("enough")
			called = 0
			err = events.QueryEach(t.Context(), l, events.Filter{Actor: "alice"}, func(*events.Record) error { called++; return stop })
			if !errors.Is(err, stop) || called != 1 {
				t.Errorf("read stopped by its callback: %v after %d events, want its error after 1", err, called)
			}
			for range 8 { // more reads than the pool has connections
				called = 0
				if err := events.QueryEach(t.Context(), l, events.Filter{Actor: "alice"}, func(*events.Record) error { called++; return nil }); err != nil || called != 3 {
					t.Fatalf("read after: %v, %d events, want 3", err, called)
				}
			}
		})
	}
}

// TestQueryEachReadsWhatQueryReads: a read one event at a time hands
// over the records Query returns, on SQLite and on PostgreSQL, there
// also with the simple protocol an operator may set in the URL
// (default_query_exec_mode), whose rows come as text: integers in
// decimal and byte columns in hex.
func TestQueryEachReadsWhatQueryReads(t *testing.T) {
	for _, e := range []struct {
		name string
		open func(t *testing.T) events.Log
	}{
		{"SQLite", func(t *testing.T) events.Log { s, _ := openSQLite(t); return s.Log() }},
		{"PostgreSQL", func(t *testing.T) events.Log { l, _ := openPostgres(t); return l }},
		{"PostgreSQL, simple protocol", func(t *testing.T) events.Log {
			l, err := events.OpenPostgres(t.Context(), pgtest.URL(t)+"&default_query_exec_mode=simple_protocol")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = l.Close() })
			return l
		}},
	} {
		t.Run(e.name, func(t *testing.T) {
			l := e.open(t)
			ctx, at := t.Context(), time.Date(2026, 12, 1, 6, 0, 0, 987654321, time.UTC)
			tx, err := l.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback() }()
			root, err := tx.Append(ctx, "node/n-0", 0, events.Metadata{}, at,
				events.NewEvent{Type: "NodeRegistered", SchemaVersion: 3, Payload: []byte(`{"labels":{"zone":"é \u2028"},"n":-12}`)},
				events.NewEvent{Type: "HeartbeatRecorded", Payload: []byte(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Append(ctx, "pod/default/p", 0, events.Metadata{Actor: "alice", CausationID: root[0].ID, CorrelationID: "req-1", Source: "kubectl"},
				at.Add(time.Hour), events.NewEvent{Type: "PodCreated", Payload: []byte(" { \"a\" : [1, 2] }\n")}); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			for _, f := range []events.Filter{{}, {CausedBy: root[0].ID}, {Actor: "alice", Limit: 1}} {
				want, err := l.Query(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				var got []events.Record
				if err := events.QueryEach(ctx, l, f, func(r *events.Record) error {
					c := *r
					c.Payload = append(json.RawMessage{}, r.Payload...)
					got = append(got, c)
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" || len(want) == 0 {
					t.Errorf("QueryEach(%+v) (-Query +QueryEach), %d records:\n%s", f, len(want), diff)
				}
			}
		})
	}
}
