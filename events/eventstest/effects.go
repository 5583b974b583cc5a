package eventstest

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"herd/events"
)

// EffectsLog appends the effects benchmarks' log to l — 2,000 nodes' 100
// heartbeats each (200,000 events with no cause), then a drain, the 100
// pods it deleted and the 9,900 pods those led to — and returns the
// drain's event: an event with 10,000 descendants among 210,001. On
// PostgreSQL it then gathers the table's statistics, as autovacuum would;
// SQLite plans without them.
func EffectsLog(tb testing.TB, l events.Log) events.Record {
	tb.Helper()
	ctx, at := tb.Context(), time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	tx, err := l.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	beat := []byte(`{"node":"web-01","at":"2025-03-01T03:12:00Z","cpu":0.42,"memory":0.61,"disk":0.33,"pids":412,"ready":true}`)
	beats := make([]events.NewEvent, 100)
	for i := range beats {
		beats[i] = events.NewEvent{Type: "HeartbeatRecorded", Payload: beat}
	}
	for n := range 2000 {
		node := fmt.Sprintf("node/n-%04d", n)
		if _, err := tx.Append(ctx, node, 0, events.Metadata{Actor: "system:node:" + node}, at, beats...); err != nil {
			tb.Fatal(err)
		}
	}
	root, err := tx.Append(ctx, "node/n-0000", 100, events.Metadata{Actor: "alice"}, at, events.NewEvent{Type: "NodeDrainStarted", Payload: []byte(`{}`)})
	if err != nil {
		tb.Fatal(err)
	}
	for c := range 100 {
		child, err := tx.Append(ctx, fmt.Sprintf("pod/default/c-%03d", c), 0, events.CausedBy(root[0], "drain", "drain"),
			at, events.NewEvent{Type: "PodDeletionRequested", Payload: []byte(`{}`)})
		if err != nil {
			tb.Fatal(err)
		}
		for g := range 99 {
			if _, err := tx.Append(ctx, fmt.Sprintf("pod/default/c-%03d-%02d", c, g), 0, events.CausedBy(child[0], "replicaset", "replicaset"),
				at, events.NewEvent{Type: "PodCreated", Payload: []byte(`{}`)}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	if db, engine := events.SQLDB(l); engine == events.EnginePostgres {
		if _, err := db.ExecContext(ctx, "ANALYZE events"); err != nil {
			tb.Fatal(err)
		}
	}
	return root[0]
}

// ProcessCPU is the CPU time this process has used, user and system.
func ProcessCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// LiveHeap is the bytes the Go heap holds in live objects, after a
// collection: what a test of memory kept per node or per version reads
// before and after it builds what it measures.
func LiveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
