package events_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"herd/events"
)

// auditLog fills l as a fleet fills its log: many nodes' heartbeats, each
// by its node, and a few operator commands that caused others.
func auditLog(t *testing.T, l events.Log) events.Record {
	t.Helper()
	at := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	appendAll := func(stream string, expected int64, md events.Metadata, evs ...events.NewEvent) []events.Record {
		tx, err := l.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		recs, err := tx.Append(t.Context(), stream, expected, md, at, evs...)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return recs
	}
	beats := make([]events.NewEvent, 20)
	for i := range beats {
		beats[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: fmt.Appendf(nil, `{"n":%d}`, i)}
	}
	for n := range 150 {
		name := fmt.Sprintf("node/n-%03d", n)
		appendAll(name, 0, events.Metadata{Actor: "system:node:" + name, Source: "httpapi"}, beats...)
	}
	cmd := appendAll("node/n-007", 20, events.Metadata{Actor: "alice", Source: "httpapi"},
		events.NewEvent{Type: "NodeCordoned", Payload: []byte(`{}`)})
	appendAll("pod/default/web", 0, events.CausedBy(cmd[0], "drain", "drain"),
		events.NewEvent{Type: "PodDeletionRequested", Payload: []byte(`{}`)})
	return cmd[0]
}

// TestAuditQueriesUseTheirIndexes: the audit API's queries by actor, by
// cause and by type are served from an index on each engine, not by
// reading the log until a page matches; one stream's events of one type
// still come from the stream's own index. The walk over what an event
// led to finds each generation in the causation index alone (the ids
// and positions it reads are there), and what one event caused comes
// from that index in position order, unsorted.
func TestAuditQueriesUseTheirIndexes(t *testing.T) {
	engines := []struct {
		name string
		open func(t *testing.T) events.Log
		// walk is how the plan says that the causation index alone
		// serves the walk.
		walk string
	}{
		{name: "SQLite", walk: "COVERING INDEX events_causation", open: func(t *testing.T) events.Log {
			s, err := events.Open(t.Context(), events.Config{Path: t.TempDir() + "/herd.db"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s.Log()
		}},
		{name: "PostgreSQL", walk: "Index Only Scan using events_causation", open: func(t *testing.T) events.Log {
			l, _ := openPostgres(t)
			return l
		}},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			l := e.open(t)
			cmd := auditLog(t, l)
			// The statistics PostgreSQL's autovacuum gathers soon enough.
			if err := events.Analyze(t.Context(), l); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name   string
				filter events.Filter
				want   string
				not    []string
			}{
				{"an actor's first page", events.Filter{Actor: "alice", Limit: 500}, "events_actor", []string{"TEMP B-TREE"}},
				{"an actor's newest", events.Filter{Actor: "alice", Limit: 50, Newest: true}, "events_actor", nil},
				{"an actor's next page", events.Filter{Actor: "alice", After: 100, Limit: 500}, "events_actor", nil},
				{"what an event caused", events.Filter{CausationID: cmd.ID, Limit: 500}, "events_causation", []string{"TEMP B-TREE"}},
				{"what an event led to, transitively", events.Filter{CausedBy: cmd.ID, Limit: 500}, e.walk, nil},
				{"one type", events.Filter{Types: []string{"NodeCordoned"}, Limit: 500}, "events_type", nil},
				{"one stream's heartbeats", events.Filter{Stream: "node/n-007", Types: []string{"HeartbeatRecorded"}, Before: 3000, Limit: 10, Newest: true},
					"", []string{"events_type", "events_actor"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					plan, err := events.QueryPlan(t.Context(), l, tc.filter)
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(plan, tc.want) {
						t.Errorf("the plan does not use %s:\n%s", tc.want, plan)
					}
					for _, not := range tc.not {
						if strings.Contains(plan, not) {
							t.Errorf("the plan uses %s:\n%s", not, plan)
						}
					}
					if _, err := l.Query(t.Context(), tc.filter); err != nil {
						t.Fatal(err)
					}
				})
			}
		})
	}
}
