package events_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"herd/events"
	"herd/events/pgtest"
)

// BenchmarkCopyLog copies a SQLite log of 100,000 heartbeat-sized events
// (1,000 nodes, 100 each) into a fresh PostgreSQL database per round,
// as herd migrate does, and reports events copied per second.
func BenchmarkCopyLog(b *testing.B) {
	const nodes, each = 1_000, 100
	ctx := b.Context()
	src, err := events.Open(ctx, events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	at := time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC)
	for v := range int64(each) {
		tx, err := src.DB().BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for n := range nodes {
			if _, err := src.Append(ctx, tx, fmt.Sprintf("node/n%04d", n), v, benchMetadata, at,
				events.NewEvent{Type: "HeartbeatRecorded", Payload: benchPayload}); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		at = at.Add(10 * time.Second)
	}

	var copied int64
	var took time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dst, err := events.OpenPostgres(ctx, pgtest.URL(b))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		stats, err := events.CopyLog(ctx, src, dst, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		copied, took = copied+stats.Events, took+stats.Took
		_ = dst.Close()
	}
	b.ReportMetric(float64(copied)/took.Seconds(), "events/s")
}
