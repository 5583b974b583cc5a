package events_test

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"herd/events"
	"herd/events/pgtest"
)

// BenchmarkLogAppendParallel appends through the storage port from 64
// concurrent writers, each to a stream of its own, one event per
// transaction, on each engine: the shape of many kubelets renewing their
// leases with no group commit in front. It reports committed events per
// second; on PostgreSQL every transaction waits for the head row, which
// the one before it holds until its commit.
func BenchmarkLogAppendParallel(b *testing.B) {
	engines := []struct {
		name string
		open func(b *testing.B) events.Log
	}{
		{"sqlite", func(b *testing.B) events.Log {
			s, err := events.Open(b.Context(), events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
			if err != nil {
				b.Fatal(err)
			}
			return s.Log()
		}},
		{"postgres", func(b *testing.B) events.Log {
			l, err := events.OpenPostgres(b.Context(), pgtest.URL(b))
			if err != nil {
				b.Fatal(err)
			}
			return l
		}},
	}
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			l := e.open(b)
			defer func() { _ = l.Close() }()
			at := time.Date(2025, 3, 1, 3, 12, 0, 0, time.UTC)
			var writers atomic.Int64
			b.SetParallelism(32) // 64 writers on two cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				stream := fmt.Sprintf("lease/kube-node-lease/n%d", writers.Add(1))
				var version int64
				for pb.Next() {
					tx, err := l.Begin(b.Context())
					if err != nil {
						b.Error(err)
						return
					}
					if _, err := tx.Append(b.Context(), stream, version, benchMetadata, at, events.NewEvent{Type: "LeaseRenewed", Payload: benchPayload}); err != nil {
						b.Error(err)
						_ = tx.Rollback()
						return
					}
					if err := tx.Commit(); err != nil {
						b.Error(err)
						return
					}
					version++
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
