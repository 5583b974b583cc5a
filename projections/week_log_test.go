package projections

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"herd/domain"
	"herd/events"
)

// TestWriteWeekLog writes a long history of a fleet into
// $HERD_WEEK_LOG_DIR/herd.db, for measuring lists of the past on it
// (make bench-past): $HERD_WEEK_NODES agents (default 10,000) reporting
// metrics, $HERD_WEEK_EVENTS events in all (default 50 million) spread
// evenly over the $HERD_WEEK_DAYS days (default 10) up to now, each node
// relabelled once a day and, with $HERD_WEEK_SILENCE, silent that many
// rounds once (make bench-whatif); then the views and the snapshots are built by a
// rebuild, as `herd replay` builds them. Without the variable it does
// nothing; a directory that holds a log already is left as it is.
func TestWriteWeekLog(t *testing.T) {
	dir := os.Getenv("HERD_WEEK_LOG_DIR")
	if dir == "" {
		t.Skip("HERD_WEEK_LOG_DIR not set")
	}
	path := filepath.Join(dir, events.DatabaseFileName)
	if _, err := os.Stat(path); err == nil {
		t.Skipf("%s exists already", path)
	}
	env := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
			return v
		}
		return def
	}
	nodes, total, days := env("HERD_WEEK_NODES", 10000), env("HERD_WEEK_EVENTS", 50_000_000), env("HERD_WEEK_DAYS", 10)
	silence := env("HERD_WEEK_SILENCE", 0) // rounds each node is silent for, once
	ctx := context.Background()
	store, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	written := writeWeek(t, store, nodes, total, silence, time.Duration(days)*24*time.Hour)
	t.Logf("%d events of %d nodes over %d days written in %s", written, nodes, days, time.Since(start).Round(time.Second))
	stats, err := Rebuild(ctx, store.Log(), RebuildOptions{Snapshots: SnapshotPolicy{Every: 100, Interval: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	var snaps int64
	if err := store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM snapshots`).Scan(&snaps); err != nil {
		t.Fatal(err)
	}
	t.Logf("views and %d snapshots rebuilt from %d events in %s", snaps, stats.Events, stats.Took.Round(time.Second))
}

// writeWeek appends the history in time order, one transaction per round
// of reports, 100 rows per statement, and returns how many events it
// wrote. With silence, each node misses that many rounds of reports
// once, at a time of its own (an outage for the health rules to find).
func writeWeek(t *testing.T, store *events.Store, nodes, total, silence int, span time.Duration) int64 {
	ctx := context.Background()
	const perStatement = 100
	insert := `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata) VALUES ` +
		strings.TrimSuffix(strings.Repeat(`(?,?,?,?,?,?,CAST(? AS TEXT),?),`, perStatement), ",")
	rounds := total / nodes
	every := span / time.Duration(rounds)
	end := time.Now().Add(-time.Minute)
	begin := end.Add(-span)

	type node struct {
		name, stream, md string
		n                domain.Node
		version          int64
	}
	fleet := make([]*node, nodes)
	for i := range fleet {
		name := fmt.Sprintf("node-%05d", i)
		fleet[i] = &node{name: name, stream: domain.NodeStream(name), md: fmt.Sprintf(`{"actor":"node/%s","source":"agent"}`, name)}
	}
	var (
		args    []any
		written int64
		tx      *sql.Tx
	)
	flush := func(force bool) {
		for len(args) >= 8*perStatement || (force && len(args) > 0) {
			n := min(len(args)/8, perStatement)
			q := insert
			if n < perStatement {
				q = `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata) VALUES ` +
					strings.TrimSuffix(strings.Repeat(`(?,?,?,?,?,?,CAST(? AS TEXT),?),`, n), ",")
			}
			if _, err := tx.ExecContext(ctx, q, args[:8*n]...); err != nil {
				t.Fatal(err)
			}
			args = append(args[:0], args[8*n:]...)
		}
	}
	add := func(nd *node, at time.Time, evs ...domain.Event) {
		for _, ev := range evs {
			payload, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			nd.version++
			args = append(args, uuid.Must(uuid.NewV7()).String(), nd.stream, nd.version, ev.EventType(),
				domain.SchemaVersion(ev.EventType()), at.UnixNano(), payload, nd.md)
			written++
		}
		flush(false)
	}
	decide := func(nd *node, cmd domain.NodeCommand, at time.Time) {
		evs, err := domain.DecideNode(nd.n, cmd, at)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			nd.n = domain.EvolveNode(nd.n, ev)
		}
		add(nd, at, evs...)
	}
	relabelEvery := int(24 * time.Hour / every)
	for r := range rounds {
		var err error
		if tx, err = store.DB().BeginTx(ctx, nil); err != nil {
			t.Fatal(err)
		}
		for i, nd := range fleet {
			at := begin.Add(time.Duration(r)*every + time.Duration(i)*every/time.Duration(nodes))
			switch {
			case r == 0:
				decide(nd, register(nd.name, domain.KindLinux), at)
			case silence > 0 && r-(1+i*37%(rounds-silence-1)) >= 0 && r-(1+i*37%(rounds-silence-1)) < silence:
				// silent
			case relabelEvery > 0 && r%relabelEvery == i%relabelEvery:
				decide(nd, domain.SetNodeLabels{Labels: map[string]string{"zone": "a", "day": strconv.Itoa(r / relabelEvery)}}, at)
			default:
				m := &domain.Metrics{
					CPUCount: 8, Load1: float64(r%7) / 2, Load5: 1.5, Load15: 1.25,
					MemoryTotalBytes: 32 << 30, MemoryAvailableBytes: int64(12+(r+i)%12) << 30,
					DiskTotalBytes: 500 << 30, DiskAvailableBytes: int64(200+(r*i)%50) << 30,
					PIDsMax: 4194304, PIDsCurrent: int64(300 + (r+i)%200),
				}
				if nd.n.LastHeartbeat.IsZero() {
					// The first report, decided: the node's conditions.
					decide(nd, domain.RecordHeartbeat{Metrics: m}, at)
					continue
				}
				add(nd, at, domain.HeartbeatRecorded{At: at, Metrics: m})
			}
		}
		flush(true)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if r%500 == 0 {
			t.Logf("round %d of %d: %d events", r, rounds, written)
		}
	}
	return written
}
