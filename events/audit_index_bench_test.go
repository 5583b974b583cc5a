package events_test

import (
	"path/filepath"
	"testing"
	"time"

	"herd/events"
)

// BenchmarkAppendAuditIndexes is BenchmarkAppend's batch of 100
// heartbeats with the audit indexes of migration 0006 as they are,
// without the actor index, and without any: what each costs an event's
// append, with the commit's fsync shared by the batch so that the
// indexes' own work shows.
func BenchmarkAppendAuditIndexes(b *testing.B) {
	for _, c := range []struct {
		name string
		drop []string
	}{
		{"all", nil},
		{"noActor", []string{"events_actor"}},
		{"none", []string{"events_actor", "events_type", "events_causation"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s, err := events.Open(b.Context(), events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			for _, ix := range c.drop {
				if _, err := s.DB().ExecContext(b.Context(), "DROP INDEX "+ix); err != nil {
					b.Fatal(err)
				}
			}
			evs := make([]events.NewEvent, 100)
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
				version += int64(len(evs))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(version), "ns/event")
		})
	}
}
