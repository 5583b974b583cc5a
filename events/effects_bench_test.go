package events_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"herd/events"
	"herd/events/pgtest"
)

// BenchmarkEffects: what one event led to, when it led to 10,000 events
// (a drain of a hundred nodes' worth of pods: 100 children, each with 99
// of its own), in a log that also holds 200,000 heartbeats with no cause.
// The target is the whole list in 100 ms.
func BenchmarkEffects(b *testing.B) {
	for _, e := range []struct {
		name string
		open func(b *testing.B) events.Log
	}{
		{"SQLite", func(b *testing.B) events.Log {
			s, err := events.Open(b.Context(), events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s.Log()
		}},
		{"PostgreSQL", func(b *testing.B) events.Log {
			l, err := events.OpenPostgres(b.Context(), pgtest.URL(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = l.Close() })
			return l
		}},
	} {
		b.Run(e.name, func(b *testing.B) {
			l := e.open(b)
			root := effectsLog(b, l)
			plan, err := events.QueryPlanAnalyzed(b.Context(), l, events.Filter{CausedBy: root.ID, Limit: 10000})
			if err != nil {
				b.Fatal(err)
			}
			b.Log(plan)
			var n int
			for b.Loop() {
				recs, err := l.Query(b.Context(), events.Filter{CausedBy: root.ID, Limit: 10000})
				if err != nil {
					b.Fatal(err)
				}
				n = len(recs)
			}
			if n != 10000 {
				b.Fatalf("%d effects, want 10000", n)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/list")
		})
	}
}

// effectsLog writes the benchmark's log into l and returns the root event.
func effectsLog(b *testing.B, l events.Log) events.Record {
	b.Helper()
	ctx, at := b.Context(), time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	tx, err := l.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	beats := make([]events.NewEvent, 100)
	for i := range beats {
		beats[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: benchPayload}
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
	if err := events.Analyze(ctx, l); err != nil {
		b.Fatal(err)
	}
	return root[0]
}
