package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// BenchmarkAuditEffects measures what a user gets for "what did this
// event lead to": ?causedBy= over loopback HTTP, the whole answer read,
// for an event that led to 10,000 others (a drain of a hundred nodes'
// worth of pods: 100 children, each with 99 of its own) in a log that
// also holds 200,000 heartbeats with no cause — the log of the events
// package's BenchmarkEffects. The target is the list in 100 ms.
//
// Besides the wall time, it reports the CPU time of this process (herd's
// server and the client reading the answer) a list, and the answer's size.
//
//	go test -run '^$' -bench AuditEffects -benchtime 20x ./adapters/httpapi/
func BenchmarkAuditEffects(b *testing.B) {
	for _, e := range []struct {
		name string
		open func(b *testing.B) *testAPI
	}{
		{"SQLite", func(b *testing.B) *testAPI { return newTestAPI(b, nil) }},
		{"PostgreSQL", func(b *testing.B) *testAPI {
			return newTestAPIOn(b, eventstest.OpenPostgres(b, pgtest.URL(b)), nil)
		}},
	} {
		b.Run(e.name, func(b *testing.B) {
			a := e.open(b)
			root := effectsLog(b, a.Log)
			caughtUp(b, a)
			url := a.serve(b).URL + "/apis/herd.dev/v1/auditevents?limit=10000&causedBy=" + root.ID
			var list AuditEventList
			if err := json.Unmarshal(getAll(b, url), &list); err != nil {
				b.Fatal(err)
			}
			if len(list.Items) != 10000 || list.Metadata.Continue == "" {
				b.Fatalf("%d effects (continue %q), want a full page of 10,000", len(list.Items), list.Metadata.Continue)
			}
			var size int
			cpu := processCPU(b)
			for b.Loop() {
				size = len(getAll(b, url))
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/list")
			b.ReportMetric(float64((processCPU(b)-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/list")
			b.ReportMetric(float64(size), "bytes/list")
		})
	}
}

// caughtUp waits for a's watch hub to have followed the log to its
// head: a hub still reading the 210,000 events just appended would be
// timed with the lists.
func caughtUp(b *testing.B, a *testAPI) {
	b.Helper()
	head, err := a.Log.Head(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for a.Watch.Position() < head {
		if time.Now().After(deadline) {
			b.Fatalf("the watch hub at %d after 5 minutes, the log's head at %d", a.Watch.Position(), head)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// getAll is the body of a GET of url, which must answer 200.
func getAll(b *testing.B, url string) []byte {
	resp, err := http.Get(url) //nolint:noctx // a benchmark's loopback request
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %s", resp.Status, body)
	}
	return body
}

// effectsLog appends the benchmark's log to l: 2,000 nodes' 100
// heartbeats each, then a drain, its 100 pods and their 9,900; it
// returns the drain's event.
func effectsLog(b *testing.B, l events.Log) events.Record {
	b.Helper()
	ctx, at := b.Context(), time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	tx, err := l.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	beat := []byte(`{"node":"web-01","at":"2025-03-01T03:12:00Z","cpu":0.42,"memory":0.61,"disk":0.33,"pids":412,"ready":true}`)
	beats := make([]events.NewEvent, 100)
	for i := range beats {
		beats[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: beat}
	}
	for n := range 2000 {
		node := fmt.Sprintf("node/n-%04d", n)
		if _, err := tx.Append(ctx, node, 0, events.Metadata{Actor: "system:node:" + node}, at, beats...); err != nil {
			b.Fatal(err)
		}
	}
	root, err := tx.Append(ctx, "node/n-0000", 100, events.Metadata{Actor: "alice"}, at, events.NewEvent{Type: "NodeDrainStarted", Payload: []byte(`{}`)})
	if err != nil {
		b.Fatal(err)
	}
	for c := range 100 {
		child, err := tx.Append(ctx, fmt.Sprintf("pod/default/c-%03d", c), 0, events.CausedBy(root[0], "drain", "drain"),
			at, events.NewEvent{Type: "PodDeletionRequested", Payload: []byte(`{}`)})
		if err != nil {
			b.Fatal(err)
		}
		for g := range 99 {
			if _, err := tx.Append(ctx, fmt.Sprintf("pod/default/c-%03d-%02d", c, g), 0, events.CausedBy(child[0], "replicaset", "replicaset"),
				at, events.NewEvent{Type: "PodCreated", Payload: []byte(`{}`)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// PostgreSQL's statistics of the table, as its autovacuum would
	// gather them; SQLite plans without them.
	if db, engine := events.SQLDB(l); engine == events.EnginePostgres {
		if _, err := db.ExecContext(ctx, "ANALYZE events"); err != nil {
			b.Fatal(err)
		}
	}
	return root[0]
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
