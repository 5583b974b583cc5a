package events_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"herd/events"
)

// benchPayload is about the size of a heartbeat.
var benchPayload = []byte(`{"node":"web-01","at":"2025-03-01T03:12:00Z","cpu":0.42,"memory":0.61,"disk":0.33,"pids":412,"ready":true}`)

var benchMetadata = events.Metadata{Actor: "node/web-01", Source: "kubelet", CorrelationID: "0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e55"}

var benchSizes = []struct {
	name string
	n    int
}{{"single", 1}, {"batch100", 100}}

// BenchmarkAppend appends n events per transaction through Store.Append.
func BenchmarkAppend(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			s, err := events.Open(b.Context(), events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			evs := make([]events.NewEvent, size.n)
			for i := range evs {
				evs[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: benchPayload}
			}
			ctx, at := b.Context(), time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC)
			var version int64
			b.ResetTimer()
			for b.Loop() {
				tx, err := s.DB().BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Append(ctx, tx, "node/web-01", version, benchMetadata, at, evs...); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				version += int64(size.n)
			}
			b.ReportMetric(float64(version)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkRawInsert inserts the same rows into an identical table (same
// migrations, same DSN) with a prepared multi-row INSERT and no watermill:
// the floor Append is measured against.
func BenchmarkRawInsert(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			ctx := b.Context()
			db := rawDB(b)
			stmt, err := db.PrepareContext(ctx, `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata) VALUES `+
				strings.TrimSuffix(strings.Repeat(`(?,?,?,?,?,?,CAST(? AS TEXT),?),`, size.n), ","))
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = stmt.Close() }()
			metadata := `{"actor":"node/web-01","correlationId":"0195c4b2-8f3e-7a10-9d2e-3b7c1f0a9e55","source":"kubelet"}`
			at := time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC).UnixNano()
			args := make([]any, 0, 8*size.n)
			var version int64
			b.ResetTimer()
			for b.Loop() {
				args = args[:0]
				for range size.n {
					version++
					args = append(args, uuid.Must(uuid.NewV7()).String(), "node/web-01", version, "HeartbeatRecorded", 1, at, benchPayload, metadata)
				}
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := tx.StmtContext(ctx, stmt).ExecContext(ctx, args...); err != nil {
					b.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(version)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func rawDB(b *testing.B) *sql.DB {
	path := filepath.Join(b.TempDir(), "raw.db")
	db, err := events.OpenDB(b.Context(), path, events.Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	if err := events.Migrate(context.Background(), db, "events", events.Migrations()); err != nil {
		b.Fatal(fmt.Errorf("raw table: %w", err))
	}
	return db
}
