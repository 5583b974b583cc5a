package projections

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
)

// BenchmarkHeartbeatWAL measures what one plain heartbeat costs the log
// on disk: the bytes of WAL it writes, alone and in a group of 24 written
// at once (what a loaded herd commits together), with checkpoints off so
// that the WAL only grows. Report: walB/heartbeat.
//
//	go test ./projections -run '^$' -bench HeartbeatWAL -benchtime 2000x
func BenchmarkHeartbeatWAL(b *testing.B) {
	for _, group := range []int{1, 24} {
		b.Run(fmt.Sprintf("group-%d", group), func(b *testing.B) {
			ctx := context.Background()
			path := filepath.Join(b.TempDir(), "herd.db")
			store, err := events.Open(ctx, events.Config{Path: path}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = store.Close() })
			if err := Migrate(ctx, store.Log()); err != nil {
				b.Fatal(err)
			}
			clk := clocktesting.NewFakeClock(t0)
			w := NewWriter(store.Log(), clk, nil)
			names := make([]string, group)
			for i := range names {
				names[i] = fmt.Sprintf("node-%02d", i)
				do(b, w, clk, names[i], register(names[i], domain.KindLinux))
				do(b, w, clk, names[i], metrics(500))
			}
			// The store keeps one connection for its write transactions
			// (the one that appends): the pragma goes to it through a
			// transaction, and to every other connection of the pool.
			ltx, err := store.Log().Begin(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := events.SQLTx(ltx).ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
				b.Fatal(err)
			}
			if err := ltx.Rollback(); err != nil {
				b.Fatal(err)
			}
			conns := store.DB().Stats().MaxOpenConnections - 1
			held := make([]func() error, 0, conns)
			for range conns {
				c, err := store.DB().Conn(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
					b.Fatal(err)
				}
				held = append(held, c.Close)
			}
			for _, release := range held {
				_ = release()
			}
			if _, err := store.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				b.Fatal(err)
			}
			wal := func() int64 {
				fi, err := os.Stat(path + "-wal")
				if err != nil {
					b.Fatal(err)
				}
				return fi.Size()
			}
			before := wal()
			b.ResetTimer()
			for range b.N {
				clk.Step(10 * time.Second)
				var wg sync.WaitGroup
				for _, name := range names {
					wg.Go(func() { do(b, w, clk, name, metrics(500)) })
				}
				wg.Wait()
			}
			b.StopTimer()
			b.ReportMetric(float64(wal()-before)/float64(b.N*group), "walB/heartbeat")
		})
	}
}
