//go:build unix

package viewstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
	"herd/projections/viewstore"
)

// BenchmarkTimelineMarkRows measures writing the timeline of one mark of
// a kubelet's node (nine entries: the mark and what it changed) as a
// group commit's leader writes a prepared command's rows, on each
// engine: recorded on the caller's side, on SQLite the statements
// prepared on the pool once, run in the group's transaction, 64 marks a
// transaction. "add" writes the entries as herd did before, a row and a
// statement each (AddAsBefore); "addall" calls AddAll, one row for the
// nine. An op is one mark; cpu-µs/mark is this process's user and
// system CPU over the loop (getrusage), commits' fsyncs included,
// PostgreSQL's server not.
func BenchmarkTimelineMarkRows(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		for _, all := range []bool{false, true} {
			name := engine + "/add"
			if all {
				name = engine + "/addall"
			}
			b.Run(name, func(b *testing.B) { benchmarkMarkRows(b, engine, all) })
		}
	}
}

func benchmarkMarkRows(b *testing.B, engine string, all bool) {
	ctx := context.Background()
	var (
		log events.Log
		tl  viewstore.Timeline
	)
	if engine == "sqlite" {
		store, err := events.Open(ctx, events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer func() { _ = store.Close() }()
		log, tl = store.Log(), viewstore.NewSQLiteTimeline()
	} else {
		log, tl = eventstest.OpenPostgres(b, pgtest.URL(b)), viewstore.NewPostgresTimeline()
	}
	if err := projections.Migrate(ctx, log); err != nil {
		b.Fatal(err)
	}
	_, eng := events.SQLDB(log)
	d := eng.Dialect()
	prepared := events.NewViewStatements(log)
	var err error
	// Positions of this run's own, past any an earlier run on the same
	// server wrote.
	base := time.Now().UnixNano() / 1000
	{
		{
			at := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
			const group = 64
			var pending []readyMark
			mark := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				// One mark recorded as its caller does.
				node := fmt.Sprintf("node-%06d", mark%20000)
				rs := make([]viewstore.TimelineRow, 9)
				for seq := range rs {
					rs[seq] = viewstore.TimelineRow{
						Position: events.PlaceholderBase, Seq: seq, Node: node, At: at,
						Kind: "ConditionChanged", Type: "Warning", Reason: "NodeStatusUnknown",
						Message: "MemoryPressure changed from False to Unknown: Kubelet stopped posting node status.",
					}
				}
				rs[0].Kind, rs[0].Message = "HeartbeatMissed", "no heartbeat since 2026-11-30T17:59:20Z"
				rec := events.NewRecorder(d, 1)
				if all {
					err = tl.AddAll(ctx, rec, rs)
				} else {
					for _, r := range rs {
						if err = viewstore.AddAsBefore(ctx, rec, r); err != nil {
							break
						}
					}
				}
				if err != nil {
					b.Fatal(err)
				}
				stmts := rec.Statements()
				if err := prepared.PrepareRecorded(ctx, stmts); err != nil {
					b.Fatal(err)
				}
				mark++
				pending = append(pending, readyMark{stmts, []events.Record{{Position: base + int64(mark)}}})
				if len(pending) < group {
					continue
				}
				runMarks(b, log, pending)
				pending = pending[:0]
			}
			if len(pending) > 0 {
				runMarks(b, log, pending)
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/mark")
		}
	}
}

// readyMark is one mark's recorded timeline statements and the record
// whose position they take.
type readyMark struct {
	stmts []events.RecordedStatement
	recs  []events.Record
}

// runMarks runs the marks' statements in one transaction, as a group
// commit's leader does, and commits.
func runMarks(b *testing.B, log events.Log, marks []readyMark) {
	ctx := context.Background()
	ltx, err := log.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = ltx.Rollback() }()
	x := events.ViewsIn(ltx)
	in := events.TxStatements{}
	for _, m := range marks {
		for _, s := range m.stmts {
			if err := x.ExecRecorded(ctx, in, s, m.recs); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := ltx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
