package events_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// BenchmarkEffects: what one event led to, when it led to 10,000 events
// (a drain of a hundred nodes' worth of pods: 100 children, each with 99
// of its own), in a log that also holds 200,000 heartbeats with no cause.
// The target is the whole list in 100 ms.
//
// Besides the wall time, which a busy machine stretches, it reports the
// CPU time a list takes: herd's (the benchmark process's) and, on
// PostgreSQL, the server's (its backends').
func BenchmarkEffects(b *testing.B) {
	for _, e := range []struct {
		name string
		open func(b *testing.B) (events.Log, func() time.Duration)
	}{
		{"SQLite", func(b *testing.B) (events.Log, func() time.Duration) {
			s, err := events.Open(b.Context(), events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Close() })
			return s.Log(), nil
		}},
		{"PostgreSQL", func(b *testing.B) (events.Log, func() time.Duration) {
			url := pgtest.URL(b)
			l, err := events.OpenPostgres(b.Context(), url)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = l.Close() })
			db, err := sql.Open("pgx", url)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = db.Close() })
			return l, func() time.Duration { return backendsCPU(b, db) }
		}},
	} {
		b.Run(e.name, func(b *testing.B) {
			l, serverCPU := e.open(b)
			root := eventstest.EffectsLog(b, l)
			plan, err := events.QueryPlanAnalyzed(b.Context(), l, events.Filter{CausedBy: root.ID, Limit: 10000})
			if err != nil {
				b.Fatal(err)
			}
			b.Log(plan)
			var n int
			var server time.Duration
			if serverCPU != nil {
				server = serverCPU()
			}
			client := eventstest.ProcessCPU(b)
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
			b.ReportMetric(float64((eventstest.ProcessCPU(b)-client).Microseconds())/1000/float64(b.N), "herd-cpu-ms/list")
			if serverCPU != nil {
				b.ReportMetric(float64((serverCPU()-server).Microseconds())/1000/float64(b.N), "server-cpu-ms/list")
			}
		})
	}
}

// backendsCPU is the CPU time, user and system, the server's backends
// for db's database (the log's connections; the server runs on this
// machine) have used so far, from /proc, less db's own.
func backendsCPU(b *testing.B, db *sql.DB) time.Duration {
	rows, err := db.QueryContext(b.Context(), `SELECT pid FROM pg_stat_activity
WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var ticks int64
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			b.Fatal(err)
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // the backend has ended
		}
		// The fields after the command's closing parenthesis; utime and
		// stime are the 14th and 15th of the line.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		for _, f := range fields[11:13] {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			ticks += n
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	// USER_HZ is 100 on Linux.
	return time.Duration(ticks) * 10 * time.Millisecond
}
